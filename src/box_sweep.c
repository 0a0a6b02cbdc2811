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
 * of each strip it reaches (and with the other such boxes).
 *
 * The boxes are read once, in ids[] order, into a compact copy with their
 * strips: the caller's boxes are indexed by slot (the event groups' 17,000
 * escaped boxes among 100,000 slots), and reading them there in each pass
 * was a cache miss each time. The copy is sorted by lower x once (a radix
 * sort, stable: equal x keep the ids[] order) and dealt into the strips in
 * that order, so each strip comes out sorted without a sort of its own. */
#include "box_sweep.h"

#include <math.h>
#include <string.h>

#include "broad_phase.h"
#include "prefetch.h"
#include "world_internal.h"

/* Strips a box may reach and still be swept in them. */
#define CR_SWEEP_SPAN 4u
/* Boxes ahead that the gather fetches: the caller's boxes are scattered. */
#define CR_SWEEP_AHEAD 16u
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

static bool overlap(const cr_box_sweep_box *b, uint32_t i, uint32_t j)
{
    return cr_box_overlap(b[i].lo, b[i].hi, b[j].lo, b[j].hi);
}

/* Strips of about CR_SWEEP_HEIGHTS mean box heights over the boxes' y
 * range, at most one a box; one strip when the range is not finite. */
static strips strips_for(const cr_box_sweep_box *b, uint32_t n)
{
    double lo = INFINITY, hi = -INFINITY, sum = 0.0;
    for (uint32_t k = 0; k < n; ++k) {
        lo = b[k].lo.y < lo ? b[k].lo.y : lo;
        hi = b[k].hi.y > hi ? b[k].hi.y : hi;
        sum += b[k].hi.y - b[k].lo.y;
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

static bool reserve(cr_world *w, cr_box_sweep *s, uint32_t n)
{
    uint32_t m = n ? n : 1;
    return cr_grow(w, (void **)&s->box, &s->box_capacity, m, sizeof *s->box) &&
           cr_grow(w, (void **)&s->order, &s->order_capacity, m, sizeof *s->order) &&
           cr_grow(w, (void **)&s->order_tmp, &s->order_tmp_capacity, m, sizeof *s->order_tmp) &&
           cr_grow(w, (void **)&s->tall, &s->tall_capacity, m, sizeof *s->tall);
}

bool cr_box_sweep_pairs(cr_world *w, cr_box_sweep *s, const cr_vec3 *box, const uint32_t *ids, uint32_t n,
                        cr_box_pair_fn *pair, void *ctx)
{
    if (!reserve(w, s, n)) return false;
    cr_box_sweep_box *B = s->box;
    for (uint32_t k = 0; k < n; ++k) {
        uint32_t id = ids[k];
        if (k + CR_SWEEP_AHEAD < n) {
            const cr_vec3 *next = &box[2 * ids[k + CR_SWEEP_AHEAD]];
            CR_PREFETCH(next, 0);
            CR_PREFETCH(&next[1].z, 0);
        }
        B[k] = (cr_box_sweep_box){box[2 * id], box[2 * id + 1], id, 0, 0};
    }
    strips st = strips_for(B, n);
    if (!cr_grow(w, (void **)&s->start, &s->start_capacity, st.count + 1, sizeof *s->start)) return false;
    /* each box's strips, counted per strip (a counting sort of the
     * (strip, box) entries); the tall ones aside, the others by lower x */
    memset(s->start, 0, sizeof *s->start * (st.count + 1));
    uint32_t tall_count = 0, swept = 0;
    uint64_t entries = 0;
    for (uint32_t k = 0; k < n; ++k) {
        uint32_t a = strip_of(&st, B[k].lo.y), b = strip_of(&st, B[k].hi.y);
        B[k].first = a;
        B[k].last = b;
        if (b - a >= CR_SWEEP_SPAN) {
            s->tall[tall_count++] = k;
            continue;
        }
        s->order[swept++] = (cr_radix_item){cr_radix_key_of_double(B[k].lo.x), k};
        for (uint32_t q = a; q <= b; ++q) s->start[q + 1]++;
        entries += b - a + 1;
    }
    if (entries > UINT32_MAX || !cr_grow(w, (void **)&s->key, &s->key_capacity, (uint32_t)entries + 1, sizeof *s->key))
        return false;
    const cr_radix_item *order = cr_radix_sort(s->order, s->order_tmp, swept);
    /* the entries dealt into their strips in x order */
    for (uint32_t q = 0; q < st.count; ++q) s->start[q + 1] += s->start[q];
    for (uint32_t k = 0; k < swept; ++k) {
        const cr_box_sweep_box *b = &B[order[k].value];
        cr_box_sweep_key key = {b->lo.x, b->hi.x, order[k].value, b->first};
        for (uint32_t q = b->first; q <= b->last; ++q) s->key[s->start[q]++] = key;
    }
    for (uint32_t q = st.count; q > 0; --q) s->start[q] = s->start[q - 1];
    s->start[0] = 0;
    /* each strip swept along x */
    for (uint32_t q = 0; q < st.count; ++q) {
        const cr_box_sweep_key *key = s->key + s->start[q];
        uint32_t m = s->start[q + 1] - s->start[q];
        for (uint32_t a = 0; a < m; ++a) {
            uint32_t i = key[a].box;
            double end = key[a].end;
            for (uint32_t b = a + 1; b < m && key[b].x <= end; ++b) {
                uint32_t j = key[b].box;
                uint32_t first = key[a].first > key[b].first ? key[a].first : key[b].first;
                if (first == q && overlap(B, i, j)) pair(B[i].id, B[j].id, ctx);
            }
        }
    }
    /* the tall boxes: against the boxes of the strips they reach, each
     * in the first strip both reach; each two tall boxes once */
    for (uint32_t t = 0; t < tall_count; ++t) {
        uint32_t i = s->tall[t], a = B[i].first;
        for (uint32_t q = a; q <= B[i].last; ++q)
            for (uint32_t k = s->start[q]; k < s->start[q + 1]; ++k) {
                const cr_box_sweep_key *key = &s->key[k];
                if ((key->first > a ? key->first : a) == q && overlap(B, i, key->box)) pair(B[i].id, B[key->box].id, ctx);
            }
        for (uint32_t u = t + 1; u < tall_count; ++u)
            if (overlap(B, i, s->tall[u])) pair(B[i].id, B[s->tall[u]].id, ctx);
    }
    return true;
}

void cr_box_sweep_free(cr_world *w, cr_box_sweep *s)
{
    cr_free(w, s->box);
    cr_free(w, s->order);
    cr_free(w, s->order_tmp);
    cr_free(w, s->key);
    cr_free(w, s->start);
    cr_free(w, s->tall);
    memset(s, 0, sizeof *s);
}
