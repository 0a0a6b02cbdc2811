/* LSD radix sort of (key, value) records (radix_sort.h): one pass over the
 * keys counts all eight bytes' histograms, then each byte that is not the
 * same in every key scatters the records, stably, into the other buffer.
 * Linear in n, no comparisons: sorting the box sweep's strips (17,000
 * boxes a check at 100,000 balls) by glibc's qsort, a merge sort through
 * a comparison function, was about a third of the sweep. */
#include "radix_sort.h"

#include <string.h>

cr_radix_item *cr_radix_sort(cr_radix_item *a, cr_radix_item *tmp, uint32_t n)
{
    enum { bytes = 8 };
    uint32_t count[bytes][256];
    memset(count, 0, sizeof count);
    for (uint32_t k = 0; k < n; ++k)
        for (unsigned d = 0; d < bytes; ++d) count[d][(a[k].key >> (8 * d)) & 255u]++;
    for (unsigned d = 0; d < bytes; ++d) {
        uint32_t *c = count[d];
        if (n == 0 || c[(a[0].key >> (8 * d)) & 255u] == n) continue; /* one bucket: already in order */
        uint32_t sum = 0;
        for (unsigned v = 0; v < 256; ++v) {
            uint32_t m = c[v];
            c[v] = sum;
            sum += m;
        }
        for (uint32_t k = 0; k < n; ++k) tmp[c[(a[k].key >> (8 * d)) & 255u]++] = a[k];
        cr_radix_item *t = a;
        a = tmp;
        tmp = t;
    }
    return a;
}
