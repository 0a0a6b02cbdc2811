/* Broad phase: a uniform grid, counting-sorted, rebuilt each step.
 *
 * The cell edge is at least the largest box (up to a cap; bigger boxes go to
 * a short "large" list tested against everything). Each body is entered
 * once, in the cell of its box's lower corner, so a body's partners lie in
 * the 27 cells around its own: building and querying are O(n) for bounded
 * density, and a counting sort keeps each cell's bodies contiguous.
 *
 * The buckets are the cells of the box around the occupied cells, x
 * fastest, when that box is small (a few cells per body): the three cells
 * x-1, x, x+1 of a row are then one range, scanned without key checks. A
 * body far from the rest would make that box huge; then cells are hashed
 * into buckets and keys compared. Either way each cell's bodies stay in slot
 * order, so the pairs come out in the same order.
 *
 * After an impact a body's path inside the step can grow; when its lower
 * corner leaves its cell, it goes on an overflow list that every query also
 * scans (cr_broad_extend), its box copied beside the others' so that the
 * scan reads them in a row and looks at a body only when its box overlaps
 * (at 100,000 balls a query scans about 150 of them). The list is indexed
 * again (the grid rebuilt from the grown boxes) when it is long, or when the
 * queries since the last index have scanned about as many entries as one
 * index costs (CR_BROAD_REINDEX_WORK): the scans then cost at most about one
 * index per index, at any n (without it the list's length, and each query's
 * scan, grew with n: 165 entries a query at 100,000 boiling balls, 16 at
 * 10,000).
 * An index changes which list a body is met on, never whether it is met.
 */
#ifndef CAROM_BROAD_PHASE_H
#define CAROM_BROAD_PHASE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "carom/math.h"

typedef struct cr_broad_pair { uint32_t a, b; } cr_broad_pair;
typedef struct cr_cell { int32_t x, y, z; } cr_cell;
/* cr_broad_phase.state of a slot */
enum { CR_BROAD_EMPTY = 0, CR_BROAD_GRID, CR_BROAD_LARGE, CR_BROAD_OVERFLOW };

typedef struct cr_broad_phase {
    double cell, inv_cell;
    uint32_t n;                  /* slots covered */
    cr_vec3 *lo, *hi;            /* each body's box (empty: lo.x > hi.x) */
    cr_cell *key;                /* cell of each body's lower corner */
    uint8_t *state;              /* 0 empty, 1 in grid, 2 large, 3 overflow */
    uint32_t box_capacity;
    uint32_t *bucket_start;      /* bucket -> first index into sorted (size buckets + 1) */
    uint32_t bucket_count, bucket_capacity;
    uint32_t *sorted;            /* grid bodies, grouped by bucket */
    uint32_t sorted_capacity;
    cr_vec3 *sorted_box;         /* lo, hi of sorted[s] at 2 s, 2 s + 1: the build's and the queries' scans
                                    read boxes in cell order; kept current by cr_broad_extend (empty once
                                    the body left the grid for the overflow list) */
    uint32_t sorted_box_capacity;
    uint32_t *slot_pos;          /* grid body -> its index in sorted (size box_capacity) */
    uint32_t *large, large_count, large_capacity;       /* boxes bigger than a cell */
    uint32_t *overflow, overflow_count, overflow_capacity;
    cr_vec3 *overflow_box;       /* lo, hi of overflow[k] at 2 k, 2 k + 1: a query tests them in a row */
    uint32_t overflow_box_capacity;
    uint64_t overflow_work;      /* overflow entries scanned since the last index, counted by cr_broad_extend
                                    (the one loop queries once after each; the workers' queries must not write) */
    cr_broad_pair *pairs;
    uint32_t pair_count, pair_capacity;
    cr_broad_pair *chunk_pairs;  /* scratch of a build over the workers: each work item's pairs, */
    uint32_t chunk_pairs_capacity, chunk_room; /* chunk_room of them at most (cr_broad_build) */
    uint32_t *chunk_count;       /* ... and how many each found */
    uint32_t chunk_count_capacity;
    double size_hint;            /* typical box edge (2 r_max + padding) */
    /* Sleeping balls (broad_sleep.c): parked[i] when ball i's box is kept in
     * the grid *sleep, built when balls fall asleep and kept while they
     * sleep, instead of this one, rebuilt each step; lo[i], hi[i] keep its
     * box. 0 parked: none of it is used. */
    uint8_t *parked;
    uint32_t parked_capacity, parked_count, park_wait; /* park_wait: steps sleeping balls waited unparked */
    struct cr_broad_phase *sleep;
    double parked_extent, parked_rmax; /* the parked boxes' largest extent, radius */
    double *parked_depth;              /* a parked ball's cr_ball_plane_depth, taken when parked */
    uint32_t parked_depth_capacity;
    uint32_t *sleep_marks, sleep_mark, sleep_marks_capacity; /* the pair search's queries of *sleep */
    uint32_t *sleep_found, sleep_found_capacity;               /* ... and what they find */
    struct cr_sleep_pair *sleep_pairs;  /* scratch: the pairs with a parked ball, sorted */
    uint32_t sleep_pairs_capacity;
    uint32_t grid_pair_count;           /* pairs[0 .. grid_pair_count): the grid's, the large boxes' after */
    bool park_off;                      /* tests: every box in the per-step grid, as before parking */
    bool dense;                  /* buckets are the cells of the box below (else hashed) */
    int32_t gx0, gy0, gz0;       /* dense: lowest occupied cell */
    int64_t gnx, gny, gnz;       /* dense: cells along each axis */
} cr_broad_phase;

/* Overflow entries the queries may scan per body before the grid is indexed
 * again. Rent or buy: an index costs about as much per body as this many
 * entries' box tests (boiling at 100,000 balls: index_boxes ~34 ns a body,
 * an entry ~1 ns), so the scans cost at most about one index each time. */
#define CR_BROAD_REINDEX_WORK 32u

struct cr_world;

/* Makes room for n boxes; the caller then fills lo[i], hi[i] for i < n. */
bool cr_broad_reserve(struct cr_world *w, cr_broad_phase *bp, uint32_t n);
/* Builds the grid from the boxes of slots i < n, with size_hint set, and
 * lists every overlapping pair (a < b) once, in deterministic order. */
bool cr_broad_build(struct cr_world *w, cr_broad_phase *bp, uint32_t n);
/* The grid of slots i < n without the pairs (size_hint set). */
bool cr_broad_index(struct cr_world *w, cr_broad_phase *bp, uint32_t n);
/* Appends to *out the bodies whose boxes overlap [lo, hi], each once (marks),
 * except skip. Returns the count, or UINT32_MAX when out of memory. */
uint32_t cr_broad_query(struct cr_world *w, cr_broad_phase *bp, cr_vec3 lo, cr_vec3 hi, uint32_t skip,
                        uint32_t **out, uint32_t *out_capacity, uint32_t *marks, uint32_t mark);
/* Grows body i's box to contain [lo, hi] (a parked ball leaves the
 * sleeping grid for the overflow list). */
bool cr_broad_extend(struct cr_world *w, cr_broad_phase *bp, uint32_t i, cr_vec3 lo, cr_vec3 hi);
/* broad_sleep.c. Before the boxes of a step: the balls that woke, died or
 * fell asleep leave or join the sleeping grid (box: the ball's box
 * function); false when out of memory. */
bool cr_broad_park(struct cr_world *w, cr_broad_phase *bp,
                   double (*box)(const struct cr_world *, uint32_t, cr_vec3 *, cr_vec3 *));
/* Ball i's box leaves the sleeping grid (lo[i], hi[i] keep it). */
void cr_broad_unpark(cr_broad_phase *bp, uint32_t i);
/* Every parked ball back to the per-step grid's care (lo, hi about to be
 * overwritten): the next cr_broad_park parks them again. */
void cr_broad_unpark_all(cr_broad_phase *bp);
/* The pairs of the grid bodies with parked balls merged into bp->pairs'
 * first grid_count (the grid pairs), in the order one grid of every box
 * would list them; false when out of memory. */
bool cr_broad_sleep_pairs(struct cr_world *w, cr_broad_phase *bp, uint32_t grid_count);
/* The pairs of the parked balls the broad phase woke (woken[0 .. count):
 * their boxes not grown yet) with the parked ones, merged into the grid
 * pairs as cr_broad_sleep_pairs does; false when out of memory. */
bool cr_broad_woken_pairs(struct cr_world *w, cr_broad_phase *bp, const uint32_t *woken, uint32_t count);
static inline bool cr_broad_is_parked(const cr_broad_phase *bp, uint32_t i) { return bp->parked_count && bp->parked[i]; }
/* Ball i parked and still asleep (asleep: its flag): asleep since before
 * the last broad phase, planned asleep, its state as it was then. Safe
 * for any slot (one added since is not parked). */
static inline bool cr_broad_sleeps(const cr_broad_phase *bp, uint32_t i, uint8_t asleep)
{
    return asleep && bp->parked_count && i < bp->parked_capacity && bp->parked[i];
}
/* Slots [i, i + 8) all parked and asleep (both flags 1; below end, a
 * bound of both arrays): a settled world's per-slot loops pass eight of
 * its parked balls by one test of two words (a flag other than 0 or 1
 * just fails it, and the slot's own test decides). */
static inline bool cr_broad_eight_sleep(const cr_broad_phase *bp, const uint8_t *asleep, uint32_t i, uint32_t end)
{
    uint64_t p, a;
    if (!bp->parked_count || i + 8u > end || i + 8u > bp->parked_capacity) return false;
    memcpy(&p, bp->parked + i, sizeof p);
    memcpy(&a, asleep + i, sizeof a);
    return (p & a) == 0x0101010101010101ull;
}
/* The first slot from i (at most end) not in a run of eight parked
 * sleeping balls (cr_broad_eight_sleep): a settled world's per-slot loops
 * read `for (i = i0; (i = cr_broad_past_sleeping(...)) < end; ++i)`. */
static inline uint32_t cr_broad_past_sleeping(const cr_broad_phase *bp, const uint8_t *asleep, uint32_t i,
                                              uint32_t end)
{
    while (cr_broad_eight_sleep(bp, asleep, i, end)) i += 8u;
    return i;
}
/* the grid's query from count on (broad_phase.c); the sleeping grid's too */
uint32_t cr_broad_query_from(struct cr_world *w, cr_broad_phase *bp, cr_vec3 lo, cr_vec3 hi, uint32_t skip, uint32_t **out,
                             uint32_t *out_capacity, uint32_t *marks, uint32_t mark, uint32_t count);
void cr_broad_free(struct cr_world *w, cr_broad_phase *bp);

static inline bool cr_box_overlap(cr_vec3 alo, cr_vec3 ahi, cr_vec3 blo, cr_vec3 bhi)
{
    return alo.x <= bhi.x && blo.x <= ahi.x && alo.y <= bhi.y && blo.y <= ahi.y && alo.z <= bhi.z &&
           blo.z <= ahi.z;
}

/* fmin and fmax for box corners without libm's call (the baseline x86-64
 * has no instruction for them, and boxes are taken for every prediction):
 * the same values, a NaN argument giving the other one as fmin does, but
 * for the sign of a zero result, which makes no difference to a box (its
 * corners are compared, turned into cells and moved by a padding). */
static inline double cr_box_fmin(double a, double b) { return b < a || a != a ? b : a; }
static inline double cr_box_fmax(double a, double b) { return b > a || a != a ? b : a; }
static inline cr_vec3 cr_box_min(cr_vec3 a, cr_vec3 b)
{
    cr_vec3 r = {cr_box_fmin(a.x, b.x), cr_box_fmin(a.y, b.y), cr_box_fmin(a.z, b.z)};
    return r;
}
static inline cr_vec3 cr_box_max(cr_vec3 a, cr_vec3 b)
{
    cr_vec3 r = {cr_box_fmax(a.x, b.x), cr_box_fmax(a.y, b.y), cr_box_fmax(a.z, b.z)};
    return r;
}
/* A box's widest side. */
static inline double cr_box_extent(cr_vec3 lo, cr_vec3 hi)
{
    return cr_box_fmax(hi.x - lo.x, cr_box_fmax(hi.y - lo.y, hi.z - lo.z));
}

/* The cell of coordinate x, cells 1 / inv_cell wide: floor(x inv_cell),
 * never decreasing in x. */
static inline int32_t cr_cell_coord(double x, double inv_cell)
{
    double c = x * inv_cell;
    /* Far-away (or absurd) coordinates share the outermost cells instead of
     * overflowing the integer conversion. */
    if (!(c >= -1073741824.0)) return -1073741824; /* also NaN: never cast it */
    if (c > 1073741823.0) return 1073741823;
    /* floor without libm's call (the baseline x86-64 has no rounding
     * instruction; every query takes two cells): the conversion truncates
     * towards zero, one less below a negative fraction */
    int32_t k = (int32_t)c;
    return k - (c < (double)k);
}

static inline cr_cell cr_cell_of(cr_vec3 p, double inv_cell)
{
    cr_cell c = {cr_cell_coord(p.x, inv_cell), cr_cell_coord(p.y, inv_cell), cr_cell_coord(p.z, inv_cell)};
    return c;
}

/* A cell's hash, to be masked to a power-of-two table (the hashed grid's
 * buckets, box_cells.c's). */
static inline uint32_t cr_cell_hash(int32_t x, int32_t y, int32_t z)
{
    uint32_t h = (uint32_t)x * 73856093u ^ (uint32_t)y * 19349663u ^ (uint32_t)z * 83492791u;
    return h ^ (h >> 15);
}

/* [lo, hi] inside [olo, ohi]. */
static inline bool cr_box_inside(cr_vec3 lo, cr_vec3 hi, cr_vec3 olo, cr_vec3 ohi)
{
    return olo.x <= lo.x && olo.y <= lo.y && olo.z <= lo.z && hi.x <= ohi.x && hi.y <= ohi.y && hi.z <= ohi.z;
}

#endif
