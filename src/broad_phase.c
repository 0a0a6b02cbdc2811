/* Uniform-grid broad phase; see broad_phase.h for the design. */
#include "broad_phase.h"

#include <string.h>

#include "world_internal.h"

#define CR_NONE UINT32_MAX

typedef struct cell_range { int32_t lo[3], hi[3]; } cell_range;

static int32_t cell_coord(double x, double cell)
{
    double c = floor(x / cell);
    /* Far-away (or absurd) coordinates share the outermost cells instead of
     * overflowing the integer conversion. */
    if (c < -1073741824.0) c = -1073741824.0;
    if (c > 1073741823.0) c = 1073741823.0;
    return (int32_t)c;
}

static cell_range range_of(const cr_broad_phase *bp, cr_vec3 lo, cr_vec3 hi)
{
    cell_range r = {{cell_coord(lo.x, bp->cell), cell_coord(lo.y, bp->cell), cell_coord(lo.z, bp->cell)},
                    {cell_coord(hi.x, bp->cell), cell_coord(hi.y, bp->cell), cell_coord(hi.z, bp->cell)}};
    return r;
}

static double range_cells(cell_range r)
{
    return ((double)r.hi[0] - r.lo[0] + 1.0) * ((double)r.hi[1] - r.lo[1] + 1.0) *
           ((double)r.hi[2] - r.lo[2] + 1.0);
}

static uint32_t bucket_of(const cr_broad_phase *bp, int32_t ix, int32_t iy, int32_t iz)
{
    uint32_t h = (uint32_t)ix * 73856093u ^ (uint32_t)iy * 19349663u ^ (uint32_t)iz * 83492791u;
    return (h ^ (h >> 16)) & (bp->bucket_count - 1u);
}

static bool empty_box(cr_vec3 lo, cr_vec3 hi) { return !(lo.x <= hi.x); }

static bool insert(cr_world *w, cr_broad_phase *bp, uint32_t body, int32_t ix, int32_t iy, int32_t iz)
{
    if (!cr_grow(w, (void **)&bp->entries, &bp->entry_capacity, bp->entry_count + 1, sizeof *bp->entries))
        return false;
    uint32_t h = bucket_of(bp, ix, iy, iz);
    cr_broad_entry *e = &bp->entries[bp->entry_count];
    e->ix = ix;
    e->iy = iy;
    e->iz = iz;
    e->body = body;
    e->next = bp->head[h];
    bp->head[h] = bp->entry_count++;
    return true;
}

static bool add_large(cr_world *w, cr_broad_phase *bp, uint32_t body)
{
    if (!cr_grow(w, (void **)&bp->large_list, &bp->large_capacity, bp->large_count + 1, sizeof *bp->large_list))
        return false;
    bp->large[body] = 1;
    bp->large_list[bp->large_count++] = body;
    return true;
}

static bool add_pair(cr_world *w, cr_broad_phase *bp, uint32_t a, uint32_t b)
{
    if (!cr_grow(w, (void **)&bp->pairs, &bp->pair_capacity, bp->pair_count + 1, sizeof *bp->pairs)) return false;
    bp->pairs[bp->pair_count].a = a < b ? a : b;
    bp->pairs[bp->pair_count].b = a < b ? b : a;
    bp->pair_count++;
    return true;
}

bool cr_broad_reserve(cr_world *w, cr_broad_phase *bp, uint32_t n)
{
    uint32_t cap = bp->box_capacity;
    if (!cr_grow(w, (void **)&bp->lo, &cap, n, sizeof *bp->lo)) return false;
    cap = bp->box_capacity;
    if (!cr_grow(w, (void **)&bp->hi, &cap, n, sizeof *bp->hi)) return false;
    cap = bp->box_capacity;
    if (!cr_grow(w, (void **)&bp->large, &cap, n, sizeof *bp->large)) return false;
    bp->box_capacity = cap;
    return true;
}

bool cr_broad_build(cr_world *w, cr_broad_phase *bp, uint32_t n)
{
    bp->entry_count = bp->large_count = bp->pair_count = 0;
    /* Size the table for about two buckets per entry. */
    double estimate = 0.0;
    for (uint32_t i = 0; i < n; ++i) {
        bp->large[i] = 0;
        if (empty_box(bp->lo[i], bp->hi[i])) continue;
        double c = range_cells(range_of(bp, bp->lo[i], bp->hi[i]));
        estimate += c > CR_BROAD_MAX_CELLS ? 0.0 : c;
    }
    uint32_t buckets = 1024;
    while (buckets < 2.0 * estimate && buckets < (1u << 30)) buckets <<= 1;
    if (buckets != bp->bucket_count) {
        cr_free(w, bp->head);
        bp->head = cr_alloc(w, sizeof *bp->head * buckets);
        if (!bp->head) {
            bp->bucket_count = 0;
            return false;
        }
        bp->bucket_count = buckets;
    }
    memset(bp->head, 0xff, sizeof *bp->head * buckets);

    for (uint32_t i = 0; i < n; ++i) {
        if (empty_box(bp->lo[i], bp->hi[i])) continue;
        cell_range r = range_of(bp, bp->lo[i], bp->hi[i]);
        if (range_cells(r) > CR_BROAD_MAX_CELLS) {
            if (!add_large(w, bp, i)) return false;
            continue;
        }
        for (int32_t z = r.lo[2]; z <= r.hi[2]; ++z)
            for (int32_t y = r.lo[1]; y <= r.hi[1]; ++y)
                for (int32_t x = r.lo[0]; x <= r.hi[0]; ++x)
                    if (!insert(w, bp, i, x, y, z)) return false;
    }

    /* Pairs of grid bodies: each reported in the cell holding the lower
     * corner of the boxes' intersection, so exactly once. */
    for (uint32_t i = 0; i < n; ++i) {
        if (empty_box(bp->lo[i], bp->hi[i]) || bp->large[i]) continue;
        cell_range r = range_of(bp, bp->lo[i], bp->hi[i]);
        for (int32_t z = r.lo[2]; z <= r.hi[2]; ++z)
            for (int32_t y = r.lo[1]; y <= r.hi[1]; ++y)
                for (int32_t x = r.lo[0]; x <= r.hi[0]; ++x)
                    for (uint32_t e = bp->head[bucket_of(bp, x, y, z)]; e != CR_NONE; e = bp->entries[e].next) {
                        const cr_broad_entry *en = &bp->entries[e];
                        uint32_t j = en->body;
                        if (j <= i || en->ix != x || en->iy != y || en->iz != z) continue;
                        if (!cr_box_overlap(bp->lo[i], bp->hi[i], bp->lo[j], bp->hi[j])) continue;
                        cr_vec3 corner = cr_v3_max(bp->lo[i], bp->lo[j]);
                        if (cell_coord(corner.x, bp->cell) != x || cell_coord(corner.y, bp->cell) != y ||
                            cell_coord(corner.z, bp->cell) != z)
                            continue;
                        if (!add_pair(w, bp, i, j)) return false;
                    }
    }
    /* Large boxes against everything (large-large pairs once). */
    for (uint32_t k = 0; k < bp->large_count; ++k) {
        uint32_t i = bp->large_list[k];
        for (uint32_t j = 0; j < n; ++j) {
            if (j == i || empty_box(bp->lo[j], bp->hi[j]) || (bp->large[j] && j < i)) continue;
            if (cr_box_overlap(bp->lo[i], bp->hi[i], bp->lo[j], bp->hi[j]) && !add_pair(w, bp, i, j)) return false;
        }
    }
    return true;
}

static bool push_unique(cr_world *w, uint32_t body, uint32_t **out, uint32_t *cap, uint32_t *count,
                        uint32_t *marks, uint32_t mark)
{
    if (marks[body] == mark) return true;
    marks[body] = mark;
    if (!cr_grow(w, (void **)out, cap, *count + 1, sizeof **out)) return false;
    (*out)[(*count)++] = body;
    return true;
}

uint32_t cr_broad_query(cr_world *w, cr_broad_phase *bp, cr_vec3 lo, cr_vec3 hi, uint32_t skip, uint32_t **out,
                        uint32_t *out_capacity, uint32_t *marks, uint32_t mark)
{
    uint32_t count = 0;
    cell_range r = range_of(bp, lo, hi);
    if (range_cells(r) > CR_BROAD_MAX_CELLS) {
        /* A box too large for the grid: test every body. */
        for (uint32_t j = 0; j < w->bodies.slot_count; ++j)
            if (j != skip && !empty_box(bp->lo[j], bp->hi[j]) && cr_box_overlap(lo, hi, bp->lo[j], bp->hi[j]) &&
                !push_unique(w, j, out, out_capacity, &count, marks, mark))
                return UINT32_MAX;
        return count;
    }
    for (int32_t z = r.lo[2]; z <= r.hi[2]; ++z)
        for (int32_t y = r.lo[1]; y <= r.hi[1]; ++y)
            for (int32_t x = r.lo[0]; x <= r.hi[0]; ++x)
                for (uint32_t e = bp->head[bucket_of(bp, x, y, z)]; e != CR_NONE; e = bp->entries[e].next) {
                    uint32_t j = bp->entries[e].body;
                    if (j == skip || marks[j] == mark) continue;
                    if (cr_box_overlap(lo, hi, bp->lo[j], bp->hi[j]) &&
                        !push_unique(w, j, out, out_capacity, &count, marks, mark))
                        return UINT32_MAX;
                }
    for (uint32_t k = 0; k < bp->large_count; ++k) {
        uint32_t j = bp->large_list[k];
        if (j != skip && cr_box_overlap(lo, hi, bp->lo[j], bp->hi[j]) &&
            !push_unique(w, j, out, out_capacity, &count, marks, mark))
            return UINT32_MAX;
    }
    return count;
}

bool cr_broad_extend(cr_world *w, cr_broad_phase *bp, uint32_t i, cr_vec3 lo, cr_vec3 hi)
{
    cr_vec3 nlo = cr_v3_min(lo, bp->lo[i]), nhi = cr_v3_max(hi, bp->hi[i]);
    if (bp->large[i]) {
        bp->lo[i] = nlo;
        bp->hi[i] = nhi;
        return true;
    }
    cell_range old = range_of(bp, bp->lo[i], bp->hi[i]);
    cell_range r = range_of(bp, nlo, nhi);
    bp->lo[i] = nlo;
    bp->hi[i] = nhi;
    if (range_cells(r) > CR_BROAD_MAX_CELLS) return add_large(w, bp, i);
    for (int32_t z = r.lo[2]; z <= r.hi[2]; ++z)
        for (int32_t y = r.lo[1]; y <= r.hi[1]; ++y)
            for (int32_t x = r.lo[0]; x <= r.hi[0]; ++x) {
                bool inside_old = x >= old.lo[0] && x <= old.hi[0] && y >= old.lo[1] && y <= old.hi[1] &&
                                  z >= old.lo[2] && z <= old.hi[2];
                if (!inside_old && !insert(w, bp, i, x, y, z)) return false;
            }
    return true;
}

void cr_broad_free(cr_world *w, cr_broad_phase *bp)
{
    cr_free(w, bp->head);
    cr_free(w, bp->entries);
    cr_free(w, bp->lo);
    cr_free(w, bp->hi);
    cr_free(w, bp->large);
    cr_free(w, bp->large_list);
    cr_free(w, bp->pairs);
    memset(bp, 0, sizeof *bp);
}
