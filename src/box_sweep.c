/* Overlapping pairs among a set of boxes (box_sweep.h).
 *
 * One sweep along x over all the boxes compares each box with every box
 * whose x range it meets, wherever it lies in y: over a square field the
 * comparisons grow as n^2 / sqrt(n). The event groups' grown boxes at
 * 100,000 balls took 0.7 M comparisons a check that way (about 17,000
 * boxes) and the check ran serially between the groups' runs. Here the
 * boxes are first cut into strips along y, a few box heights each: a box
 * goes into every strip it reaches, each strip is swept along x, and a
 * pair is reported in the first strip both reach (its two boxes' first
 * strips, the later of the two), so once. A box over more than
 * CR_SWEEP_SPAN strips is not entered in them but compared with the boxes
 * of each strip it reaches (and with the other such boxes). */
#include "box_sweep.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "broad_phase.h"
#include "world_internal.h"

/* Strips a box may reach and still be swept in them. */
#define CR_SWEEP_SPAN 4u
/* Strip height in mean box heights. */
#define CR_SWEEP_HEIGHTS 2.0

typedef struct strips {
    double y0, inv_h; /* strip k is [y0 + k h, y0 + (k + 1) h) */
    uint32_t count;
} strips;

/* Monotone in y (clamped at both ends), so two boxes that overlap in y
 * share the later of their first strips. */
static uint32_t strip_of(const strips *st, double y)
{
    double t = (y - st->y0) * st->inv_h;
    if (!(t > 0.0)) return 0;
    if (t >= (double)(st->count - 1)) return st->count - 1;
    return (uint32_t)t;
}

static bool tall(const strips *st, const cr_vec3 *box, uint32_t id)
{
    return strip_of(st, box[2 * id + 1].y) - strip_of(st, box[2 * id].y) >= CR_SWEEP_SPAN;
}

static int by_x(const void *p, const void *q)
{
    const cr_box_sweep_key *a = p, *b = q;
    return a->x < b->x ? -1 : a->x > b->x ? 1 : (a->id > b->id) - (a->id < b->id);
}

static bool overlap(const cr_vec3 *box, uint32_t i, uint32_t j)
{
    return cr_box_overlap(box[2 * i], box[2 * i + 1], box[2 * j], box[2 * j + 1]);
}

/* Strips of about CR_SWEEP_HEIGHTS mean box heights over the boxes' y
 * range, at most one a box; one strip when the range is not finite. */
static strips strips_for(const cr_vec3 *box, const uint32_t *ids, uint32_t n)
{
    double lo = INFINITY, hi = -INFINITY, sum = 0.0;
    for (uint32_t k = 0; k < n; ++k) {
        const cr_vec3 *b = &box[2 * ids[k]];
        lo = b[0].y < lo ? b[0].y : lo;
        hi = b[1].y > hi ? b[1].y : hi;
        sum += b[1].y - b[0].y;
    }
    strips st = {0.0, 0.0, 1};
    double h = CR_SWEEP_HEIGHTS * sum / (n ? n : 1), range = hi - lo;
    if (!(h > 0.0) || !(range > 0.0) || !isfinite(range) || !isfinite(h)) return st;
    double count = floor(range / h) + 1.0;
    if (count > n) count = n;
    st.y0 = lo;
    st.count = count < 1.0 ? 1 : (uint32_t)count;
    st.inv_h = st.count / range; /* the top strip ends at hi */
    return st;
}

bool cr_box_sweep_pairs(cr_world *w, cr_box_sweep *s, const cr_vec3 *box, const uint32_t *ids, uint32_t n,
                        cr_box_pair_fn *pair, void *ctx)
{
    strips st = strips_for(box, ids, n);
    if (!cr_grow(w, (void **)&s->start, &s->start_capacity, st.count + 1, sizeof *s->start) ||
        !cr_grow(w, (void **)&s->tall, &s->tall_capacity, n ? n : 1, sizeof *s->tall))
        return false;
    /* counting sort of the (strip, box) entries by strip */
    memset(s->start, 0, sizeof *s->start * (st.count + 1));
    uint32_t tall_count = 0;
    uint64_t entries = 0;
    for (uint32_t k = 0; k < n; ++k) {
        uint32_t id = ids[k];
        if (tall(&st, box, id)) {
            s->tall[tall_count++] = id;
            continue;
        }
        uint32_t a = strip_of(&st, box[2 * id].y), b = strip_of(&st, box[2 * id + 1].y);
        for (uint32_t q = a; q <= b; ++q) s->start[q + 1]++;
        entries += b - a + 1;
    }
    if (entries > UINT32_MAX || !cr_grow(w, (void **)&s->key, &s->key_capacity, (uint32_t)entries + 1, sizeof *s->key))
        return false;
    for (uint32_t q = 0; q < st.count; ++q) s->start[q + 1] += s->start[q];
    for (uint32_t k = 0; k < n; ++k) {
        uint32_t id = ids[k];
        if (tall(&st, box, id)) continue;
        uint32_t a = strip_of(&st, box[2 * id].y), b = strip_of(&st, box[2 * id + 1].y);
        for (uint32_t q = a; q <= b; ++q) s->key[s->start[q]++] = (cr_box_sweep_key){box[2 * id].x, id, a};
    }
    for (uint32_t q = st.count; q > 0; --q) s->start[q] = s->start[q - 1];
    s->start[0] = 0;
    /* each strip swept along x */
    for (uint32_t q = 0; q < st.count; ++q) {
        cr_box_sweep_key *key = s->key + s->start[q];
        uint32_t m = s->start[q + 1] - s->start[q];
        qsort(key, m, sizeof *key, by_x);
        for (uint32_t a = 0; a < m; ++a) {
            uint32_t i = key[a].id;
            double end = box[2 * i + 1].x;
            for (uint32_t b = a + 1; b < m && key[b].x <= end; ++b) {
                uint32_t j = key[b].id;
                uint32_t first = key[a].first > key[b].first ? key[a].first : key[b].first;
                if (first == q && overlap(box, i, j)) pair(i, j, ctx);
            }
        }
    }
    /* the tall boxes: against the boxes of the strips they reach, each
     * in the first strip both reach; each two tall boxes once */
    for (uint32_t t = 0; t < tall_count; ++t) {
        uint32_t i = s->tall[t];
        uint32_t a = strip_of(&st, box[2 * i].y), b = strip_of(&st, box[2 * i + 1].y);
        for (uint32_t q = a; q <= b; ++q)
            for (uint32_t k = s->start[q]; k < s->start[q + 1]; ++k) {
                const cr_box_sweep_key *key = &s->key[k];
                if ((key->first > a ? key->first : a) == q && overlap(box, i, key->id)) pair(i, key->id, ctx);
            }
        for (uint32_t u = t + 1; u < tall_count; ++u)
            if (overlap(box, i, s->tall[u])) pair(i, s->tall[u], ctx);
    }
    return true;
}

void cr_box_sweep_free(cr_world *w, cr_box_sweep *s)
{
    cr_free(w, s->key);
    cr_free(w, s->start);
    cr_free(w, s->tall);
    memset(s, 0, sizeof *s);
}
