/* The warm start's key sort (contact_keys.h). qsort's merge sort over a
 * resting pile's contacts (15 000 keys a step in the 50-row pyramid) took
 * 3 to 4 % of the step; the keys are nearly in order already (contacts are
 * made pair by pair, the pairs by body a, planes' after), so a counting
 * sort on a and short insertion sorts do it in a few passes. */
#include "contact_keys.h"
#include "insertion_sort.h"

#include <stdlib.h>
#include <string.h>

/* a body's keys past this many are left to qsort (insertion sort is
 * quadratic: a body touching hundreds of others, e.g. a large floor box) */
#define CR_CONTACT_KEYS_INSERTION 32u

int cr_contact_key_cmp(const void *px, const void *py)
{
    const cr_contact_key *x = px, *y = py;
    if (x->pair != y->pair) return x->pair < y->pair ? -1 : 1;
    return x->rank < y->rank ? -1 : (x->rank > y->rank);
}

CR_DEFINE_INSERTION_SORT(insertion_sort, cr_contact_key, cr_contact_key_cmp)

void cr_contact_keys_sort(cr_contact_key *keys, cr_contact_key *tmp, uint32_t *count, uint32_t n, uint32_t buckets)
{
    if (n == 0) return;
    /* count[a + 1]: how many keys of body a; then count[a]: where a's go */
    memset(count, 0, ((size_t)buckets + 1) * sizeof *count);
    for (uint32_t k = 0; k < n; ++k) ++count[(keys[k].pair >> 33) + 1];
    for (uint32_t a = 0; a < buckets; ++a) count[a + 1] += count[a];
    for (uint32_t k = 0; k < n; ++k) tmp[count[keys[k].pair >> 33]++] = keys[k];
    /* count[a] is now where a's keys end, and a + 1's begin */
    for (uint32_t a = 0, begin = 0; a < buckets; begin = count[a++]) {
        uint32_t size = count[a] - begin;
        if (size <= CR_CONTACT_KEYS_INSERTION) insertion_sort(tmp + begin, size);
        else qsort(tmp + begin, size, sizeof *tmp, cr_contact_key_cmp);
    }
    memcpy(keys, tmp, (size_t)n * sizeof *keys);
}
