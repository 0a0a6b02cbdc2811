/* One insertion sort for the core's short, nearly sorted lists (the warm
 * start's keys in src/contact_keys.c, the pair contacts in
 * src/contact_solve.c), written once for any element type. Internal. */
#ifndef CAROM_INSERTION_SORT_H
#define CAROM_INSERTION_SORT_H

#include <stdint.h>

/* Defines static void NAME(TYPE *k, uint32_t n), which sorts k[0..n) by
 * CMP (qsort's comparison, on pointers to two elements), stably: an element
 * already in order costs one comparison, so a list that is nearly in order
 * takes a few passes. Quadratic: callers bound n or check the order first.
 * A macro so that each list keeps its element type and its comparison
 * inlined (no element size or function pointer in the loop). */
#define CR_DEFINE_INSERTION_SORT(NAME, TYPE, CMP)                                                                      \
    static void NAME(TYPE *k, uint32_t n)                                                                              \
    {                                                                                                                  \
        for (uint32_t i = 1; i < n; ++i) {                                                                             \
            if (CMP(&k[i - 1], &k[i]) <= 0) continue;                                                                  \
            TYPE x = k[i];                                                                                             \
            uint32_t m = i;                                                                                            \
            for (; m > 0 && CMP(&k[m - 1], &x) > 0; --m) k[m] = k[m - 1];                                             \
            k[m] = x;                                                                                                  \
        }                                                                                                              \
    }

#endif
