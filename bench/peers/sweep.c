/* The box pyramid's matched-stability rule: see sweep.h. */
#include "sweep.h"

int pyr_as_stable(const pyr_stability *a, const pyr_stability *b)
{
    if (!a->complete || !b->complete) return 0;
    /* NaN figures compare false and so never match */
    return a->lost <= b->lost && a->overlap <= b->overlap && a->drift <= b->drift &&
           (a->ke <= b->ke || a->ke <= PYR_KE_AT_REST);
}

int pyr_fewest_as_stable(const pyr_stability *runs, int n, const pyr_stability *ref)
{
    for (int i = 0; i < n; ++i)
        if (pyr_as_stable(&runs[i], ref)) return i;
    return -1;
}
