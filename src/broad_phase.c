/* Uniform-grid broad phase; see broad_phase.h for the design. */
#include "broad_phase.h"

#include <string.h>

#include "dem_internal.h"
#include "world_internal.h"

enum {
    SLOT_EMPTY = CR_BROAD_EMPTY,
    SLOT_GRID = CR_BROAD_GRID,
    SLOT_LARGE = CR_BROAD_LARGE,
    SLOT_OVERFLOW = CR_BROAD_OVERFLOW
};

/* Cells a box may cover before it counts as large (in cell-size hints). */
#define CR_BROAD_CELL_CAP 4.0
/* A dense grid may have this many cells per grid body (else: hashed). */
#define CR_BROAD_DENSE_CELLS 8.0
/* Queries wider than this many cells scan every body instead. */
#define CR_BROAD_QUERY_CELLS 4096.0

static inline cr_cell cell_of(const cr_broad_phase *bp, cr_vec3 p) { return cr_cell_of(p, bp->inv_cell); }

/* Dense grid: cells are numbered x fastest over the box of the occupied
 * lower corners, so the cells x-1, x, x+1 of a row are consecutive buckets.
 * Hashed grid (the corners spread too far): any cell maps to a bucket that
 * other cells may share. */
static bool dense_cell(const cr_broad_phase *bp, int32_t y, int32_t z)
{
    return (int64_t)y - bp->gy0 >= 0 && (int64_t)y - bp->gy0 < bp->gny && (int64_t)z - bp->gz0 >= 0 &&
           (int64_t)z - bp->gz0 < bp->gnz;
}

static inline uint32_t bucket_of(const cr_broad_phase *bp, int32_t x, int32_t y, int32_t z)
{
    if (bp->dense)
        return (uint32_t)((((int64_t)z - bp->gz0) * bp->gny + ((int64_t)y - bp->gy0)) * bp->gnx + ((int64_t)x - bp->gx0));
    return cr_cell_hash(x, y, z) & (bp->bucket_count - 1u);
}

static bool empty_box(cr_vec3 lo, cr_vec3 hi) { return !(lo.x <= hi.x); }

/* Body i not in this grid: no box, or parked in the sleeping grid. */
static bool off_grid(const cr_broad_phase *bp, uint32_t i)
{
    return cr_broad_is_parked(bp, i) || empty_box(bp->lo[i], bp->hi[i]);
}

static bool push(cr_world *w, uint32_t **arr, uint32_t *count, uint32_t *cap, uint32_t v)
{
    if (*count >= *cap && !cr_grow(w, (void **)arr, cap, *count + 1, sizeof **arr)) return false;
    (*arr)[(*count)++] = v;
    return true;
}

static bool add_pair(cr_world *w, cr_broad_phase *bp, uint32_t a, uint32_t b)
{
    if (bp->pair_count >= bp->pair_capacity &&
        !cr_grow(w, (void **)&bp->pairs, &bp->pair_capacity, bp->pair_count + 1, sizeof *bp->pairs))
        return false;
    bp->pairs[bp->pair_count].a = a < b ? a : b;
    bp->pairs[bp->pair_count].b = a < b ? b : a;
    bp->pair_count++;
    return true;
}

bool cr_broad_reserve(cr_world *w, cr_broad_phase *bp, uint32_t n)
{
    if (n <= bp->box_capacity) return true;
    uint32_t c0 = bp->box_capacity, c1 = c0, c2 = c0, c3 = c0, c4 = c0;
    if (!cr_grow(w, (void **)&bp->lo, &c0, n, sizeof *bp->lo) || !cr_grow(w, (void **)&bp->hi, &c1, n, sizeof *bp->hi) ||
        !cr_grow(w, (void **)&bp->key, &c2, n, sizeof *bp->key) ||
        !cr_grow(w, (void **)&bp->state, &c3, n, sizeof *bp->state) ||
        !cr_grow(w, (void **)&bp->slot_pos, &c4, n, sizeof *bp->slot_pos))
        return false;
    bp->box_capacity = c0;
    return true;
}

/* Grid cells, large list and sorted buckets from the current boxes. */
/* Boxes per work item of the index's per-box passes: fixed, not a function
 * of the workers. */
#define CR_INDEX_CHUNK 4096u

/* The largest extent of the grid boxes [i0, i1) no wider than cap, from 0. */
static double widest_of(const cr_broad_phase *bp, uint32_t i0, uint32_t i1, double cap)
{
    double cell = 0.0;
    for (uint32_t i = i0; i < i1; ++i)
        if (!off_grid(bp, i)) {
            double e = cr_box_extent(bp->lo[i], bp->hi[i]);
            if (e <= cap && e > cell) cell = e;
        }
    return cell;
}

/* Each box's state and, for a grid box, its cell (bp->cell set) over
 * boxes [i0, i1): the grid boxes' count and the range of their cells, and
 * the large boxes' count, into part. */
typedef struct index_part {
    _Alignas(64) cr_cell kmin, kmax;
    uint32_t grid, large;
} index_part;

/* part's range of cells grown to hold [lo, hi] (a cell: lo = hi; another
 * part's range, when the workers' parts are joined). */
static void widen(index_part *part, cr_cell lo, cr_cell hi)
{
    part->kmin.x = lo.x < part->kmin.x ? lo.x : part->kmin.x;
    part->kmin.y = lo.y < part->kmin.y ? lo.y : part->kmin.y;
    part->kmin.z = lo.z < part->kmin.z ? lo.z : part->kmin.z;
    part->kmax.x = hi.x > part->kmax.x ? hi.x : part->kmax.x;
    part->kmax.y = hi.y > part->kmax.y ? hi.y : part->kmax.y;
    part->kmax.z = hi.z > part->kmax.z ? hi.z : part->kmax.z;
}

static void states_of(cr_broad_phase *bp, uint32_t i0, uint32_t i1, index_part *part)
{
    for (uint32_t i = i0; i < i1; ++i) {
        if (off_grid(bp, i)) {
            bp->state[i] = SLOT_EMPTY;
        } else if (cr_box_extent(bp->lo[i], bp->hi[i]) > bp->cell) {
            bp->state[i] = SLOT_LARGE;
            part->large++;
        } else {
            bp->state[i] = SLOT_GRID;
            cr_cell c = cell_of(bp, bp->lo[i]);
            bp->key[i] = c;
            widen(part, c, c);
            part->grid++;
        }
    }
}

static const index_part no_part = {{INT32_MAX, INT32_MAX, INT32_MAX}, {INT32_MIN, INT32_MIN, INT32_MIN}, 0, 0};

/* The per-box passes over the workers: maxima, minima and counts, the same
 * for any split. */
typedef struct index_run {
    cr_broad_phase *bp;
    double cap;
    double widest[64];    /* each worker's */
    index_part part[64];  /* each worker's */
} index_run;

static void widest_items(uint32_t start, uint32_t end, uint32_t worker, void *ctx)
{
    index_run *r = ctx;
    for (uint32_t c = start; c < end; ++c) {
        double e = widest_of(r->bp, c * CR_INDEX_CHUNK, cr_chunk_end(c, CR_INDEX_CHUNK, r->bp->n), r->cap);
        if (e > r->widest[worker]) r->widest[worker] = e;
    }
}

static void state_items(uint32_t start, uint32_t end, uint32_t worker, void *ctx)
{
    index_run *r = ctx;
    for (uint32_t c = start; c < end; ++c)
        states_of(r->bp, c * CR_INDEX_CHUNK, cr_chunk_end(c, CR_INDEX_CHUNK, r->bp->n), &r->part[worker]);
}

static bool index_boxes(cr_world *w, cr_broad_phase *bp)
{
    uint32_t n = bp->n;
    double hint = bp->size_hint > 0.0 ? bp->size_hint : 1.0, cell = 0.0;
    /* each box on its own (pure): over the workers when there are many */
    bool spread = cr_parallel(w) && n > CR_INDEX_CHUNK;
    uint32_t items = (n + CR_INDEX_CHUNK - 1) / CR_INDEX_CHUNK;
    index_run *run = NULL;
    index_run local;
    if (spread) {
        run = &local;
        run->bp = bp;
        run->cap = CR_BROAD_CELL_CAP * hint;
        for (int k = 0; k < 64; ++k) {
            run->widest[k] = 0.0;
            run->part[k] = no_part;
        }
        cr_run_items(w, widest_items, items, run);
        for (int k = 0; k < 64; ++k)
            if (run->widest[k] > cell) cell = run->widest[k];
    } else {
        cell = widest_of(bp, 0, n, CR_BROAD_CELL_CAP * hint);
    }
    /* the parked boxes count as ever: the same cell as one grid of them all */
    if (bp->parked_count) {
        if (bp->parked_extent <= CR_BROAD_CELL_CAP * hint) {
            cell = bp->parked_extent > cell ? bp->parked_extent : cell;
        } else {
            for (uint32_t i = 0; i < n; ++i)
                if (bp->parked[i]) {
                    double e = cr_box_extent(bp->lo[i], bp->hi[i]);
                    if (e <= CR_BROAD_CELL_CAP * hint && e > cell) cell = e;
                }
        }
    }
    bp->cell = cell > 0.0 ? cell : hint;
    bp->inv_cell = 1.0 / bp->cell;
    bp->large_count = bp->overflow_count = 0;
    bp->overflow_work = 0;

    index_part all = no_part;
    if (spread) {
        cr_run_items(w, state_items, items, run);
        for (int k = 0; k < 64; ++k) {
            const index_part *p = &run->part[k];
            widen(&all, p->kmin, p->kmax);
            all.grid += p->grid;
            all.large += p->large;
        }
    } else {
        states_of(bp, 0, n, &all);
    }
    /* the large boxes listed in slot order */
    for (uint32_t i = 0; all.large && i < n; ++i)
        if (bp->state[i] == SLOT_LARGE && !push(w, &bp->large, &bp->large_count, &bp->large_capacity, i)) return false;
    uint32_t grid = all.grid;
    cr_cell kmin = all.kmin, kmax = all.kmax;
    /* Dense when the occupied box holds at most a few cells per body: rows of
     * cells are then one range of the sorted list, and no key is compared.
     * Both layouts keep each cell's bodies in slot order, so they list the
     * same pairs in the same order. */
    uint32_t buckets = 64;
    double cells = grid ? ((double)kmax.x - kmin.x + 1.0) * ((double)kmax.y - kmin.y + 1.0) *
                              ((double)kmax.z - kmin.z + 1.0)
                        : 0.0;
    bp->dense = grid > 0 && cells <= CR_BROAD_DENSE_CELLS * grid + 4096.0 && cells < (double)(1u << 30);
    if (bp->dense) {
        bp->gx0 = kmin.x;
        bp->gy0 = kmin.y;
        bp->gz0 = kmin.z;
        bp->gnx = (int64_t)kmax.x - kmin.x + 1;
        bp->gny = (int64_t)kmax.y - kmin.y + 1;
        bp->gnz = (int64_t)kmax.z - kmin.z + 1;
        buckets = (uint32_t)cells;
    } else {
        while (buckets < 2u * grid && buckets < (1u << 30)) buckets <<= 1;
    }
    bp->bucket_count = buckets;
    if (!cr_grow(w, (void **)&bp->bucket_start, &bp->bucket_capacity, buckets + 1, sizeof *bp->bucket_start) ||
        !cr_grow(w, (void **)&bp->sorted, &bp->sorted_capacity, grid + 1, sizeof *bp->sorted) ||
        !cr_grow(w, (void **)&bp->sorted_box, &bp->sorted_box_capacity, 2 * (grid + 1), sizeof *bp->sorted_box))
        return false;
    /* Counting sort by bucket: stable, so bodies keep slot order in a cell. */
    memset(bp->bucket_start, 0, sizeof *bp->bucket_start * (buckets + 1));
    for (uint32_t i = 0; i < n; ++i)
        if (bp->state[i] == SLOT_GRID) bp->bucket_start[bucket_of(bp, bp->key[i].x, bp->key[i].y, bp->key[i].z) + 1]++;
    for (uint32_t b = 0; b < buckets; ++b) bp->bucket_start[b + 1] += bp->bucket_start[b];
    for (uint32_t i = 0; i < n; ++i)
        if (bp->state[i] == SLOT_GRID) {
            uint32_t b = bucket_of(bp, bp->key[i].x, bp->key[i].y, bp->key[i].z);
            bp->sorted_box[2 * bp->bucket_start[b]] = bp->lo[i];
            bp->sorted_box[2 * bp->bucket_start[b] + 1] = bp->hi[i];
            bp->slot_pos[i] = bp->bucket_start[b];
            bp->sorted[bp->bucket_start[b]++] = i;
        }
    for (uint32_t b = buckets; b > 0; --b) bp->bucket_start[b] = bp->bucket_start[b - 1];
    bp->bucket_start[0] = 0;
    return true;
}

/* The grid pairs (i, j > i) of the grid bodies i in [i0, i1), in the order
 * of i: partners' lower corners lie in the 27 cells around one's own. Writes
 * the first cap of them to out and returns how many there are. Pure: reads
 * the grid only, so that ranges of bodies run on the workers. */
static uint32_t grid_pairs(const cr_broad_phase *bp, uint32_t i0, uint32_t i1, cr_broad_pair *out, uint32_t cap)
{
    uint32_t count = 0;
    for (uint32_t i = i0; i < i1; ++i) {
        if (bp->state[i] != SLOT_GRID) continue;
        cr_cell c = bp->key[i];
        cr_vec3 lo = bp->lo[i], hi = bp->hi[i];
        if (bp->dense) {
            /* the rows dy, dz: cells x-1 .. x+1 are one range (dx innermost, as below) */
            int64_t xa = (int64_t)c.x - 1 < bp->gx0 ? bp->gx0 : (int64_t)c.x - 1;
            int64_t xb = (int64_t)c.x + 1 >= bp->gx0 + bp->gnx ? bp->gx0 + bp->gnx - 1 : (int64_t)c.x + 1;
            /* bucket_of(x, c.y, c.z) less x: a row dy, dz further is dz gny + dy rows of gnx on */
            int64_t own = bucket_of(bp, bp->gx0, c.y, c.z);
            for (int dz = -1; dz <= 1; ++dz)
                for (int dy = -1; dy <= 1; ++dy) {
                    int32_t y = c.y + dy, z = c.z + dz;
                    if (!dense_cell(bp, y, z)) continue;
                    int64_t row = own + (dz * bp->gny + dy) * bp->gnx - bp->gx0;
                    uint32_t s0 = bp->bucket_start[row + xa];
                    uint32_t s1 = bp->bucket_start[row + xb + 1];
                    if (cap >= count && s1 - s0 <= cap - count) {
                        /* room for the whole row: each candidate written, kept
                         * when it is a pair (the same pairs, in the same order,
                         * as the loop below). Whether it is, is as good as
                         * random (j > i for about half, the boxes overlapping
                         * for few), too often wrong for a branch to guess. */
                        for (uint32_t s = s0; s < s1; ++s) {
                            uint32_t j = bp->sorted[s];
                            const cr_vec3 *q = bp->sorted_box + 2 * s;
                            out[count] = (cr_broad_pair){i, j};
                            count += (j > i) & (lo.x <= q[1].x) & (q[0].x <= hi.x) & (lo.y <= q[1].y) & (q[0].y <= hi.y) &
                                     (lo.z <= q[1].z) & (q[0].z <= hi.z);
                        }
                        continue;
                    }
                    for (uint32_t s = s0; s < s1; ++s) {
                        uint32_t j = bp->sorted[s];
                        if (j > i && cr_box_overlap(lo, hi, bp->sorted_box[2 * s], bp->sorted_box[2 * s + 1])) {
                            if (count < cap) out[count] = (cr_broad_pair){i, j};
                            ++count;
                        }
                    }
                }
            continue;
        }
        for (int dz = -1; dz <= 1; ++dz)
            for (int dy = -1; dy <= 1; ++dy)
                for (int dx = -1; dx <= 1; ++dx) {
                    int32_t x = c.x + dx, y = c.y + dy, z = c.z + dz;
                    uint32_t b = bucket_of(bp, x, y, z);
                    for (uint32_t s = bp->bucket_start[b]; s < bp->bucket_start[b + 1]; ++s) {
                        uint32_t j = bp->sorted[s];
                        if (j <= i || bp->key[j].x != x || bp->key[j].y != y || bp->key[j].z != z) continue;
                        if (cr_box_overlap(bp->lo[i], bp->hi[i], bp->lo[j], bp->hi[j])) {
                            if (count < cap) out[count] = (cr_broad_pair){i, j};
                            ++count;
                        }
                    }
                }
    }
    return count;
}

/* Grid bodies per work item of the pair search: fixed, not a function of
 * the workers (the pairs come out the same for any count anyway). */
#define CR_BROAD_CHUNK 1024u

typedef struct pair_run {
    const cr_broad_phase *bp;
    uint32_t n, room; /* bodies; pairs each item may write to its part of scratch */
} pair_run;

/* Work item c: its bodies' pairs to its own part of the scratch list, their
 * count (beyond room: found again on the caller's thread) to chunk_count. */
static void pair_items(uint32_t start, uint32_t end, uint32_t worker, void *ctx)
{
    (void)worker;
    const pair_run *r = ctx;
    const cr_broad_phase *bp = r->bp;
    for (uint32_t c = start; c < end; ++c) {
        uint32_t i1 = cr_chunk_end(c, CR_BROAD_CHUNK, r->n);
        bp->chunk_count[c] = grid_pairs(bp, c * CR_BROAD_CHUNK, i1, bp->chunk_pairs + (size_t)c * r->room, r->room);
    }
}

/* The grid pairs over the workers: each work item lists its range of
 * bodies into its own room, then the lists are joined in the order of the
 * items, which is the order of the bodies: the same list, in the same
 * order, as one pass over all of them. An item that found more than its
 * room (the room follows the largest of the last build) is searched again
 * here, straight into its place. */
static bool grid_pairs_parallel(cr_world *w, cr_broad_phase *bp, uint32_t n)
{
    uint32_t chunks = (n + CR_BROAD_CHUNK - 1) / CR_BROAD_CHUNK;
    uint32_t room = bp->chunk_room > 64 ? bp->chunk_room : 64;
    if ((uint64_t)room * chunks > UINT32_MAX) room = UINT32_MAX / chunks;
    if (!cr_grow(w, (void **)&bp->chunk_count, &bp->chunk_count_capacity, chunks, sizeof *bp->chunk_count) ||
        !cr_grow(w, (void **)&bp->chunk_pairs, &bp->chunk_pairs_capacity, room * chunks, sizeof *bp->chunk_pairs))
        return false;
    pair_run r = {bp, n, room};
    cr_run_items(w, pair_items, chunks, &r);
    uint64_t total = 0;
    uint32_t most = 0;
    for (uint32_t c = 0; c < chunks; ++c) {
        total += bp->chunk_count[c];
        most = bp->chunk_count[c] > most ? bp->chunk_count[c] : most;
    }
    if (total > UINT32_MAX || !cr_grow(w, (void **)&bp->pairs, &bp->pair_capacity, (uint32_t)total, sizeof *bp->pairs))
        return false;
    /* next time: room for the largest item and a quarter more */
    bp->chunk_room = most > UINT32_MAX / 5 * 4 ? UINT32_MAX : most + most / 4;
    for (uint32_t c = 0; c < chunks; ++c) {
        uint32_t k = bp->chunk_count[c];
        if (k <= room) {
            if (k) memcpy(bp->pairs + bp->pair_count, bp->chunk_pairs + (size_t)c * room, sizeof *bp->pairs * k);
        } else {
            uint32_t i1 = cr_chunk_end(c, CR_BROAD_CHUNK, n);
            grid_pairs(bp, c * CR_BROAD_CHUNK, i1, bp->pairs + bp->pair_count, k);
        }
        bp->pair_count += k;
    }
    return true;
}

bool cr_broad_index(cr_world *w, cr_broad_phase *bp, uint32_t n)
{
    bp->n = n;
    bp->pair_count = 0;
    return index_boxes(w, bp);
}

bool cr_broad_build(cr_world *w, cr_broad_phase *bp, uint32_t n)
{
    bp->n = n;
    bp->pair_count = 0;
    if (!index_boxes(w, bp)) return false;
    if (cr_parallel(w) && n > CR_BROAD_CHUNK) {
        if (!grid_pairs_parallel(w, bp, n)) return false;
    } else {
        /* one pass into the list; again, into a list grown to fit, when it was short */
        uint32_t k = grid_pairs(bp, 0, n, bp->pairs, bp->pair_capacity);
        if (k > bp->pair_capacity) {
            if (!cr_grow(w, (void **)&bp->pairs, &bp->pair_capacity, k, sizeof *bp->pairs)) return false;
            grid_pairs(bp, 0, n, bp->pairs, k);
        }
        bp->pair_count = k;
    }
    if (bp->parked_count && !cr_broad_sleep_pairs(w, bp, bp->pair_count)) return false;
    bp->grid_pair_count = bp->pair_count;
    /* Large boxes against everything (large-large pairs once; a parked
     * ball's box is in lo, hi). */
    for (uint32_t k = 0; k < bp->large_count; ++k) {
        uint32_t i = bp->large[k];
        for (uint32_t j = 0; j < n; ++j) {
            if (j == i || (bp->state[j] == SLOT_EMPTY && !cr_broad_is_parked(bp, j)) ||
                (bp->state[j] == SLOT_LARGE && j < i))
                continue;
            if (cr_box_overlap(bp->lo[i], bp->hi[i], bp->lo[j], bp->hi[j]) && !add_pair(w, bp, i, j)) return false;
        }
    }
    return true;
}

static bool take(cr_world *w, cr_broad_phase *bp, uint32_t j, cr_vec3 lo, cr_vec3 hi, uint32_t skip, uint32_t **out,
                 uint32_t *cap, uint32_t *count, uint32_t *marks, uint32_t mark)
{
    if (j == skip || marks[j] == mark || !cr_box_overlap(lo, hi, bp->lo[j], bp->hi[j])) return true;
    marks[j] = mark;
    return push(w, out, count, cap, j);
}

/* The grid bodies at sorted[s0 .. s1): their boxes in cell order, read in the order the
 * scan goes (no load from the slot arrays for a body that does not
 * overlap). A grid body is in one cell and on neither the large nor the
 * overflow list, so it cannot be met twice: no mark. A body that left for
 * the overflow list has an empty box here and is met on that list. */
static inline bool take_grid(cr_world *w, cr_broad_phase *bp, uint32_t s0, uint32_t s1, cr_vec3 lo, cr_vec3 hi,
                             uint32_t skip, uint32_t **out, uint32_t *cap, uint32_t *count)
{
    /* room for the whole range first: the scan itself then only compares
     * (a dozen bodies a query in the ball pit) */
    if (*count + (s1 - s0) > *cap && !cr_grow(w, (void **)out, cap, *count + (s1 - s0), sizeof **out)) return false;
    const cr_vec3 *box = bp->sorted_box;
    uint32_t *o = *out, n = *count;
    for (uint32_t s = s0; s < s1; ++s)
        if (cr_box_overlap(lo, hi, box[2 * s], box[2 * s + 1])) {
            uint32_t j = bp->sorted[s];
            if (j != skip) o[n++] = j;
        }
    *count = n;
    return true;
}

uint32_t cr_broad_query(cr_world *w, cr_broad_phase *bp, cr_vec3 lo, cr_vec3 hi, uint32_t skip, uint32_t **out,
                        uint32_t *out_capacity, uint32_t *marks, uint32_t mark)
{
    uint32_t count = cr_broad_query_from(w, bp, lo, hi, skip, out, out_capacity, marks, mark, 0);
    /* the parked balls: each in the sleeping grid only, met once */
    if (count != UINT32_MAX && bp->parked_count)
        count = cr_broad_query_from(w, bp->sleep, lo, hi, skip, out, out_capacity, marks, mark, count);
    return count;
}

uint32_t cr_broad_query_from(cr_world *w, cr_broad_phase *bp, cr_vec3 lo, cr_vec3 hi, uint32_t skip, uint32_t **out,
                             uint32_t *out_capacity, uint32_t *marks, uint32_t mark, uint32_t count)
{
    /* A grid body overlapping [lo, hi] has its lower corner in [lo - cell, hi]. */
    cr_cell a = cell_of(bp, cr_v3_sub(lo, cr_v3(bp->cell, bp->cell, bp->cell))), b = cell_of(bp, hi);
    double cells = ((double)b.x - a.x + 1.0) * ((double)b.y - a.y + 1.0) * ((double)b.z - a.z + 1.0);
    if (cells > CR_BROAD_QUERY_CELLS) {
        for (uint32_t j = 0; j < bp->n; ++j)
            if (bp->state[j] != SLOT_EMPTY && !take(w, bp, j, lo, hi, skip, out, out_capacity, &count, marks, mark))
                return UINT32_MAX;
        return count;
    }
    if (bp->dense) {
        /* each row of cells is one range of the sorted list (x innermost, as below) */
        int64_t xa = a.x < bp->gx0 ? bp->gx0 : a.x, xb = (int64_t)b.x >= bp->gx0 + bp->gnx ? bp->gx0 + bp->gnx - 1 : b.x;
        int64_t ya = a.y < bp->gy0 ? bp->gy0 : a.y, za = a.z < bp->gz0 ? bp->gz0 : a.z;
        /* the rows inside the grid, their buckets counted on by gnx a row
         * (the cells, and the order, of a walk over every row that stops at
         * the grid's edge) */
        int64_t yb = (int64_t)b.y >= bp->gy0 + bp->gny ? bp->gy0 + bp->gny - 1 : b.y;
        int64_t zb = (int64_t)b.z >= bp->gz0 + bp->gnz ? bp->gz0 + bp->gnz - 1 : b.z;
        for (int64_t z = za; z <= zb && xa <= xb && ya <= yb; ++z) {
            int64_t row = bucket_of(bp, (int32_t)xa, (int32_t)ya, (int32_t)z);
            for (int64_t y = ya; y <= yb; ++y, row += bp->gnx) {
                uint32_t s0 = bp->bucket_start[row], s1 = bp->bucket_start[row + (xb - xa) + 1];
                if (!take_grid(w, bp, s0, s1, lo, hi, skip, out, out_capacity, &count)) return UINT32_MAX;
            }
        }
    } else {
        for (int32_t z = a.z; z <= b.z; ++z)
            for (int32_t y = a.y; y <= b.y; ++y)
                for (int32_t x = a.x; x <= b.x; ++x) {
                    uint32_t bk = bucket_of(bp, x, y, z);
                    for (uint32_t s = bp->bucket_start[bk]; s < bp->bucket_start[bk + 1]; ++s) {
                        uint32_t j = bp->sorted[s];
                        if (bp->key[j].x != x || bp->key[j].y != y || bp->key[j].z != z) continue;
                        if (!take_grid(w, bp, s, s + 1, lo, hi, skip, out, out_capacity, &count)) return UINT32_MAX;
                    }
                }
    }
    for (uint32_t k = 0; k < bp->large_count; ++k)
        if (!take(w, bp, bp->large[k], lo, hi, skip, out, out_capacity, &count, marks, mark)) return UINT32_MAX;
    for (uint32_t k = 0; k < bp->overflow_count; ++k)
        if (cr_box_overlap(lo, hi, bp->overflow_box[2 * k], bp->overflow_box[2 * k + 1]) &&
            !take(w, bp, bp->overflow[k], lo, hi, skip, out, out_capacity, &count, marks, mark))
            return UINT32_MAX;
    return count;
}

static bool overflow_push(cr_world *w, cr_broad_phase *bp, uint32_t i);

bool cr_broad_extend(cr_world *w, cr_broad_phase *bp, uint32_t i, cr_vec3 lo, cr_vec3 hi)
{
    /* the query that follows in the one loop scans the list as it is now */
    bp->overflow_work += bp->overflow_count;
    bool woke = cr_broad_is_parked(bp, i);
    if (woke) cr_broad_unpark(bp, i); /* its box, kept in lo, hi, to the overflow list */
    bp->lo[i] = cr_box_min(lo, bp->lo[i]);
    bp->hi[i] = cr_box_max(hi, bp->hi[i]);
    if (woke) return overflow_push(w, bp, i);
    if (bp->state[i] == SLOT_OVERFLOW) { /* its copy on the overflow list grows with it */
        for (uint32_t k = bp->overflow_count; k-- > 0;)
            if (bp->overflow[k] == i) {
                bp->overflow_box[2 * k] = bp->lo[i];
                bp->overflow_box[2 * k + 1] = bp->hi[i];
                break;
            }
        return true;
    }
    if (bp->state[i] != SLOT_GRID) return true; /* large boxes are always scanned */
    cr_cell c = cell_of(bp, bp->lo[i]);
    bool same_cell = c.x == bp->key[i].x && c.y == bp->key[i].y && c.z == bp->key[i].z;
    uint32_t s = bp->slot_pos[i];
    if (same_cell && cr_box_extent(bp->lo[i], bp->hi[i]) <= bp->cell) {
        bp->sorted_box[2 * s] = bp->lo[i];
        bp->sorted_box[2 * s + 1] = bp->hi[i];
        return true;
    }
    /* off the grid: an empty box there (no finite box overlaps it) */
    bp->sorted_box[2 * s] = cr_v3(INFINITY, INFINITY, INFINITY);
    bp->sorted_box[2 * s + 1] = cr_v3(-INFINITY, -INFINITY, -INFINITY);
    return overflow_push(w, bp, i);
}

/* Body i, off the grid, onto the overflow list with its box. */
static bool overflow_push(cr_world *w, cr_broad_phase *bp, uint32_t i)
{
    bp->state[i] = SLOT_OVERFLOW;
    if (!push(w, &bp->overflow, &bp->overflow_count, &bp->overflow_capacity, i) ||
        !cr_grow(w, (void **)&bp->overflow_box, &bp->overflow_box_capacity, 2 * bp->overflow_count,
                 sizeof *bp->overflow_box))
        return false;
    bp->overflow_box[2 * bp->overflow_count - 2] = bp->lo[i];
    bp->overflow_box[2 * bp->overflow_count - 1] = bp->hi[i];
    /* Many movers, or the list scanned about as often as indexing costs:
     * index everything again rather than scan a long list. */
    if (bp->overflow_count > 64 &&
        (bp->overflow_count > bp->n / 32 || bp->overflow_work > (uint64_t)CR_BROAD_REINDEX_WORK * bp->n))
        return index_boxes(w, bp);
    return true;
}

void cr_broad_free(cr_world *w, cr_broad_phase *bp)
{
    cr_free(w, bp->lo);
    cr_free(w, bp->hi);
    cr_free(w, bp->key);
    cr_free(w, bp->state);
    cr_free(w, bp->bucket_start);
    cr_free(w, bp->sorted);
    cr_free(w, bp->sorted_box);
    cr_free(w, bp->slot_pos);
    cr_free(w, bp->large);
    cr_free(w, bp->overflow);
    cr_free(w, bp->overflow_box);
    cr_free(w, bp->pairs);
    cr_free(w, bp->chunk_pairs);
    cr_free(w, bp->chunk_count);
    cr_free(w, bp->parked);
    cr_free(w, bp->parked_depth);
    cr_free(w, bp->sleep_marks);
    cr_free(w, bp->sleep_found);
    cr_free(w, bp->sleep_pairs);
    if (bp->sleep) {
        cr_broad_free(w, bp->sleep);
        cr_free(w, bp->sleep);
    }
    memset(bp, 0, sizeof *bp);
}
