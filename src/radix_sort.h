/* A stable sort of (64-bit key, 32-bit value) records by key, least
 * significant byte first (LSD radix). Internal (the box sweep's boxes by
 * their lower x, box_sweep.c; the DEM grid's cells along the Morton curve,
 * dem_list.c). */
#ifndef CAROM_RADIX_SORT_H
#define CAROM_RADIX_SORT_H

#include <stdint.h>

typedef struct cr_radix_item {
    uint64_t key;
    uint32_t value;
} cr_radix_item;

/* The key whose unsigned order is x's order among doubles that are not
 * NaN (-0 just before +0). */
static inline uint64_t cr_radix_key_of_double(double x)
{
    union {
        double d;
        uint64_t u;
    } b = {x};
    return b.u ^ (b.u >> 63 ? ~(uint64_t)0 : (uint64_t)1 << 63);
}

/* Sorts a[0 .. n) by key, stably (equal keys keep their order), with tmp
 * (room for n) as scratch; returns the one of a and tmp that holds the
 * result. Eight passes of 256 buckets at most: a byte equal in every key
 * costs no pass. */
cr_radix_item *cr_radix_sort(cr_radix_item *a, cr_radix_item *tmp, uint32_t n);

#endif
