/* Growing boxes filed by the cells they cover; see box_cells.h. */
#include "box_cells.h"

#include <string.h>

#include "broad_phase.h"
#include "world_internal.h"

#define NONE UINT32_MAX

bool cr_box_cells_reserve(cr_world *w, cr_box_cells *s, uint32_t ids, uint32_t entries)
{
    if (ids > s->id_capacity) {
        uint32_t c = s->id_capacity;
        if (!cr_grow(w, (void **)&s->is_wide, &c, ids, 1) ||
            !cr_grow(w, (void **)&s->wide, &s->wide_capacity, ids, sizeof *s->wide))
            return false;
        /* the new ones are not on the list (cr_grow keeps only the old) */
        memset(s->is_wide + s->id_capacity, 0, c - s->id_capacity);
        s->id_capacity = c;
    }
    if (entries > UINT32_MAX / 4) return false;
    if (!cr_grow(w, (void **)&s->entry, &s->entry_capacity, 2 * entries, sizeof *s->entry)) return false;
    /* about one bucket per entry: short chains */
    uint32_t buckets = 64;
    while (buckets < entries) buckets *= 2;
    if (2 * buckets > s->bucket_capacity) {
        cr_free(w, s->bucket);
        s->bucket_capacity = 0;
        s->bucket = cr_alloc(w, (size_t)buckets * 2 * sizeof *s->bucket);
        if (!s->bucket) return false;
        s->bucket_capacity = 2 * buckets;
        memset(s->bucket, 0, (size_t)buckets * 2 * sizeof *s->bucket);
        s->bucket_mask = buckets - 1;
        s->stamp = 0; /* every bucket empty: stamps start again */
    }
    return true;
}

void cr_box_cells_clear(cr_box_cells *s, const cr_vec3 *box, double cell)
{
    for (uint32_t k = 0; k < s->wide_count; ++k) s->is_wide[s->wide[k]] = 0;
    s->wide_count = 0;
    s->entry_count = 0;
    s->box = box;
    s->inv_cell = 1.0 / cell;
    if (++s->stamp == 0) { /* wrapped: a bucket's old stamp may come round again */
        memset(s->bucket, 0, (size_t)s->bucket_capacity * sizeof *s->bucket);
        s->stamp = 1;
    }
}

/* The cells [a, b] of a proper box that covers at most CR_BOX_CELLS_MOST
 * along each axis; false: it is not such a box. */
static inline bool cells_of(const cr_box_cells *s, cr_vec3 lo, cr_vec3 hi, cr_cell *a, cr_cell *b)
{
    if (!(lo.x <= hi.x && lo.y <= hi.y && lo.z <= hi.z)) return false;
    *a = cr_cell_of(lo, s->inv_cell);
    *b = cr_cell_of(hi, s->inv_cell);
    return (int64_t)b->x - a->x < CR_BOX_CELLS_MOST && (int64_t)b->y - a->y < CR_BOX_CELLS_MOST &&
           (int64_t)b->z - a->z < CR_BOX_CELLS_MOST;
}

static void make_wide(cr_box_cells *s, uint32_t id)
{
    s->is_wide[id] = 1;
    s->wide[s->wide_count++] = id;
}

void cr_box_cells_enter(cr_box_cells *s, uint32_t id, const cr_vec3 *was)
{
    if (s->is_wide[id]) return; /* scanned by every query as it is */
    cr_cell a, b, oa = {0, 0, 0}, ob = {-1, -1, -1};
    if (!cells_of(s, s->box[2 * id], s->box[2 * id + 1], &a, &b)) {
        make_wide(s, id);
        return;
    }
    /* the cells filed before (a box filed was proper and small) */
    if (was && !cells_of(s, was[0], was[1], &oa, &ob)) {
        oa = (cr_cell){0, 0, 0};
        ob = (cr_cell){-1, -1, -1};
    }
    uint32_t cells = (uint32_t)(b.x - a.x + 1) * (uint32_t)(b.y - a.y + 1) * (uint32_t)(b.z - a.z + 1);
    if (cells > s->entry_capacity / 2 - s->entry_count) { /* no room: its cells filed so far stay, harmless */
        make_wide(s, id);
        return;
    }
    for (int32_t z = a.z; z <= b.z; ++z)
        for (int32_t y = a.y; y <= b.y; ++y)
            for (int32_t x = a.x; x <= b.x; ++x) {
                if (x >= oa.x && x <= ob.x && y >= oa.y && y <= ob.y && z >= oa.z && z <= ob.z) continue;
                uint32_t *k = s->bucket + 2 * (cr_cell_hash(x, y, z) & s->bucket_mask);
                if (k[0] != s->stamp) {
                    k[0] = s->stamp;
                    k[1] = NONE;
                }
                uint32_t e = s->entry_count++;
                s->entry[2 * e] = id;
                s->entry[2 * e + 1] = k[1];
                k[1] = e;
            }
}

static inline uint32_t look(const cr_box_cells *s, uint32_t id, cr_vec3 lo, cr_vec3 hi, uint32_t *marks,
                            uint32_t mark, uint32_t *out, uint32_t n)
{
    if (marks[id] == mark) return n;
    marks[id] = mark;
    out[n] = id;
    return n + cr_box_overlap(lo, hi, s->box[2 * id], s->box[2 * id + 1]);
}

uint32_t cr_box_cells_query(const cr_box_cells *s, cr_vec3 lo, cr_vec3 hi, uint32_t *marks, uint32_t mark,
                            uint32_t *out)
{
    cr_cell a, b;
    if (!cells_of(s, lo, hi, &a, &b)) return UINT32_MAX;
    uint32_t n = 0;
    for (int32_t z = a.z; z <= b.z; ++z)
        for (int32_t y = a.y; y <= b.y; ++y)
            for (int32_t x = a.x; x <= b.x; ++x) {
                const uint32_t *k = s->bucket + 2 * (cr_cell_hash(x, y, z) & s->bucket_mask);
                if (k[0] != s->stamp) continue;
                for (uint32_t e = k[1]; e != NONE; e = s->entry[2 * e + 1])
                    n = look(s, s->entry[2 * e], lo, hi, marks, mark, out, n);
            }
    for (uint32_t k = 0; k < s->wide_count; ++k) n = look(s, s->wide[k], lo, hi, marks, mark, out, n);
    return n;
}

void cr_box_cells_free(cr_world *w, cr_box_cells *s)
{
    cr_free(w, s->bucket);
    cr_free(w, s->entry);
    cr_free(w, s->wide);
    cr_free(w, s->is_wide);
    memset(s, 0, sizeof *s);
}
