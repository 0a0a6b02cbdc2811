/* Broad phase: a uniform grid, hashed, rebuilt every step from swept bounds.
 *
 * Each body is entered in every cell its box covers (boxes spanning more than
 * CR_BROAD_MAX_CELLS cells go to a short "large" list tested against all), so
 * building and querying are O(n) for bounded density. A pair is reported once,
 * in the cell that holds the lower corner of the two boxes' intersection.
 * Bodies whose path grows after an impact are entered again (cr_broad_extend)
 * so that later queries see where they now go.
 */
#ifndef CAROM_BROAD_PHASE_H
#define CAROM_BROAD_PHASE_H

#include <stdbool.h>
#include <stdint.h>

#include "carom/math.h"

#define CR_BROAD_MAX_CELLS 4096

typedef struct cr_broad_entry {
    int32_t ix, iy, iz;
    uint32_t body;
    uint32_t next;
} cr_broad_entry;

typedef struct cr_broad_pair { uint32_t a, b; } cr_broad_pair;

typedef struct cr_broad_phase {
    double cell;                 /* cell edge */
    uint32_t *head;              /* bucket -> first entry (UINT32_MAX: none) */
    uint32_t bucket_count;       /* power of two */
    cr_broad_entry *entries;
    uint32_t entry_count, entry_capacity;
    cr_vec3 *lo, *hi;            /* each body's box */
    uint32_t box_capacity;
    uint8_t *large;              /* 1 when the body is on the large list */
    uint32_t *large_list;
    uint32_t large_count, large_capacity;
    cr_broad_pair *pairs;
    uint32_t pair_count, pair_capacity;
} cr_broad_phase;

struct cr_world;

/* Makes room for n boxes (lo[i], hi[i], set by the caller; an empty box,
 * lo.x > hi.x, marks a slot to skip). */
bool cr_broad_reserve(struct cr_world *w, cr_broad_phase *bp, uint32_t n);
/* Builds the grid with cell edge bp->cell from the boxes of slots i < n and
 * lists all overlapping pairs (a < b) in deterministic order. */
bool cr_broad_build(struct cr_world *w, cr_broad_phase *bp, uint32_t n);
/* Appends to out the bodies whose boxes overlap [lo, hi] (each once, using
 * marks), except skip. Returns the count or UINT32_MAX when out of memory. */
uint32_t cr_broad_query(struct cr_world *w, cr_broad_phase *bp, cr_vec3 lo, cr_vec3 hi, uint32_t skip,
                        uint32_t **out, uint32_t *out_capacity, uint32_t *marks, uint32_t mark);
/* Grows body i's box to contain [lo, hi], entering it in the new cells. */
bool cr_broad_extend(struct cr_world *w, cr_broad_phase *bp, uint32_t i, cr_vec3 lo, cr_vec3 hi);
void cr_broad_free(struct cr_world *w, cr_broad_phase *bp);

static inline bool cr_box_overlap(cr_vec3 alo, cr_vec3 ahi, cr_vec3 blo, cr_vec3 bhi)
{
    return alo.x <= bhi.x && blo.x <= ahi.x && alo.y <= bhi.y && blo.y <= ahi.y && alo.z <= bhi.z &&
           blo.z <= ahi.z;
}

#endif
