/* Sleeping balls' boxes out of the per-step grid (issue 8: a settled world
 * costs what its awake balls cost).
 *
 * A sleeping ball's box is the same every step (it stays to the bit, with
 * no plan: ball_sleep.c), so it is parked in a second grid, bp->sleep,
 * built when balls fall asleep and kept while they sleep; the per-step grid
 * indexes the other bodies only, and a step costs what they cost. The
 * results stay those of one grid of every box:
 * - the pairs: a pair is listed by one grid iff both boxes are grid boxes
 *   (no larger than the cell), their lower corners' cells are neighbours
 *   and the boxes overlap; its place in the list is its lower slot, then
 *   its other body's cell (z, y, x) and slot (broad_phase.c grid_pairs).
 *   The grid bodies' pairs with parked balls are found by asking the
 *   sleeping grid, kept by that rule in the per-step grid's cells, and
 *   merged into place (cr_broad_sleep_pairs). The cell is the one of all
 *   the boxes (index_boxes counts parked_extent), and a sleeping ball's box
 *   is never larger than it, so a parked ball is never a large one.
 *   Sleeping pairs themselves are never listed: cr_ball_sleep_broad would
 *   drop them. A ball the broad phase wakes keeps its pairs of the step,
 *   the pairs its parked box met.
 * - the queries: a query asks both grids (a body is parked or not: met
 *   once); the events push what they find into a queue ordered by time
 *   and fixed ties, so the order of the finds does not matter;
 * - a parked ball that wakes inside the step leaves the sleeping grid for
 *   the overflow list when its box grows (cr_broad_extend), and leaves it
 *   anyway at the next step's start (cr_broad_park).
 * lo[i], hi[i] keep a parked ball's box: the events' groups and the large
 * boxes' loop read it there.
 */
#include <stdlib.h>
#include <string.h>

#include "broad_phase.h"
#include "world_internal.h"

/* Steps a ball fallen asleep may wait to be parked (a few more than these
 * fall asleep at once are parked at once). */
#define CR_PARK_WAIT 16u

typedef struct cr_sleep_pair {
    uint32_t a, b;   /* a < b */
    int32_t x, y, z; /* b's cell */
} cr_sleep_pair;

/* The order of one grid's list (grid_pairs): a, then b's cell z, y, x,
 * then b. */
static int pair_order(const uint32_t a0, const cr_cell k0, uint32_t b0, const uint32_t a1, const cr_cell k1, uint32_t b1)
{
    if (a0 != a1) return a0 < a1 ? -1 : 1;
    if (k0.z != k1.z) return k0.z < k1.z ? -1 : 1;
    if (k0.y != k1.y) return k0.y < k1.y ? -1 : 1;
    if (k0.x != k1.x) return k0.x < k1.x ? -1 : 1;
    return b0 < b1 ? -1 : b0 > b1;
}

static int sleep_pair_cmp(const void *p, const void *q)
{
    const cr_sleep_pair *x = p, *y = q;
    return pair_order(x->a, (cr_cell){x->x, x->y, x->z}, x->b, y->a, (cr_cell){y->x, y->y, y->z}, y->b);
}

static void empty(cr_vec3 *lo, cr_vec3 *hi)
{
    *lo = cr_v3(1.0, 0.0, 0.0);
    *hi = cr_v3(0.0, 0.0, 0.0);
}

void cr_broad_unpark(cr_broad_phase *bp, uint32_t i)
{
    cr_broad_phase *s = bp->sleep;
    if (s->state[i] == CR_BROAD_GRID) { /* its copy in cell order off: no finite box overlaps it */
        s->sorted_box[2 * s->slot_pos[i]] = cr_v3(INFINITY, INFINITY, INFINITY);
        s->sorted_box[2 * s->slot_pos[i] + 1] = cr_v3(-INFINITY, -INFINITY, -INFINITY);
    }
    s->state[i] = CR_BROAD_EMPTY;
    empty(&s->lo[i], &s->hi[i]); /* a large one: met by its box only */
    bp->parked[i] = 0;
    bp->parked_count--;
}

void cr_broad_unpark_all(cr_broad_phase *bp)
{
    if (bp->parked) memset(bp->parked, 0, bp->parked_capacity);
    bp->parked_count = 0;
}

bool cr_broad_park(cr_world *w, cr_broad_phase *bp, double (*box)(const cr_world *, uint32_t, cr_vec3 *, cr_vec3 *))
{
    const cr_bodies *b = &w->bodies;
    uint32_t n = b->slot_count, was = bp->parked_capacity;
    if (!cr_grow(w, (void **)&bp->parked, &bp->parked_capacity, n, sizeof *bp->parked)) return false;
    if (bp->parked_capacity > was) memset(bp->parked + was, 0, bp->parked_capacity - was);
    if (!bp->sleep) {
        bp->sleep = cr_alloc(w, sizeof *bp->sleep);
        if (!bp->sleep) return false;
        memset(bp->sleep, 0, sizeof *bp->sleep);
    }
    /* woken (an impact inside the last step, the user) or removed: out;
     * fallen asleep: the sleeping grid is built again, once they are many
     * or have waited CR_PARK_WAIT steps (while a settling world's balls
     * fall asleep a few a step; till then they are in the per-step grid,
     * as every box was) */
    uint32_t missing = 0, alive = 0, sleeping = 0;
    for (uint32_t i = 0; i < n; ++i) {
        bool sleeps = cr_slot_alive(b, i) && b->asleep[i];
        if (bp->parked[i] && !sleeps) cr_broad_unpark(bp, i);
        missing += sleeps && !bp->parked[i];
        alive += cr_slot_alive(b, i);
        sleeping += sleeps;
    }
    /* Only a world mostly asleep parks (from 3/4 of its balls asleep, till
     * under 1/2): the awake balls' queries walk two grids' cells, which
     * costs more than parking saves while many are awake (10,000 settling
     * balls over 8 s: +4.4 % instructions when every sleeping ball
     * parked). */
    if (!bp->parked_count && (uint64_t)sleeping * 4 < (uint64_t)alive * 3) return true;
    if (bp->parked_count && (uint64_t)sleeping * 2 < alive) {
        cr_broad_unpark_all(bp);
        return true;
    }
    bp->park_wait = missing ? bp->park_wait + 1 : 0;
    if (!missing || (missing < bp->parked_count / 8 && bp->park_wait < CR_PARK_WAIT)) return true;
    bp->park_wait = 0;
    cr_broad_phase *s = bp->sleep;
    if (!cr_broad_reserve(w, s, n) ||
        !cr_grow(w, (void **)&bp->parked_depth, &bp->parked_depth_capacity, n, sizeof *bp->parked_depth))
        return false;
    double rmax = 0.0, most = 0.0;
    uint32_t count = 0;
    for (uint32_t i = 0; i < n; ++i) {
        if (!(cr_slot_alive(b, i) && b->asleep[i])) {
            empty(&s->lo[i], &s->hi[i]);
            continue;
        }
        /* the box the per-step grid would take (the ball stays: the same
         * every step), kept in lo, hi too */
        double r = box(w, i, &bp->lo[i], &bp->hi[i]);
        s->lo[i] = bp->lo[i];
        s->hi[i] = bp->hi[i];
        rmax = r > rmax ? r : rmax;
        double e = cr_box_extent(s->lo[i], s->hi[i]);
        most = e > most ? e : most;
        bp->parked[i] = 1;
        bp->parked_depth[i] = cr_ball_plane_depth(w, i); /* the finish's statistic, kept too */
        ++count;
    }
    s->size_hint = rmax > 0.0 ? 2.0 * rmax * 1.25 : 1.0;
    if (!cr_broad_index(w, s, n)) return false;
    bp->parked_count = count;
    bp->parked_rmax = rmax;
    bp->parked_extent = most;
    return true;
}

/* The cell of body j in the per-step grid: a grid body's key, a parked
 * ball's lower corner's cell. */
static cr_cell cell_of(const cr_broad_phase *bp, uint32_t j)
{
    return cr_broad_is_parked(bp, j) ? cr_cell_of(bp->lo[j], bp->inv_cell) : bp->key[j];
}

static bool near(cr_cell p, cr_cell q)
{
    return (int64_t)p.x - q.x <= 1 && (int64_t)q.x - p.x <= 1 && (int64_t)p.y - q.y <= 1 && (int64_t)q.y - p.y <= 1 &&
           (int64_t)p.z - q.z <= 1 && (int64_t)q.z - p.z <= 1;
}

/* Room for m more sorted pairs. */
static bool room(cr_world *w, cr_broad_phase *bp, uint32_t m)
{
    return m <= bp->sleep_pairs_capacity ||
           cr_grow(w, (void **)&bp->sleep_pairs, &bp->sleep_pairs_capacity, m, sizeof *bp->sleep_pairs);
}

/* Pair (i, j) in one grid's order, with the cell of the later one. */
static cr_sleep_pair pair_of(const cr_broad_phase *bp, uint32_t i, uint32_t j)
{
    uint32_t a = i < j ? i : j, b = i < j ? j : i;
    cr_cell k = cell_of(bp, b);
    return (cr_sleep_pair){a, b, k.x, k.y, k.z};
}

/* Body i's pairs with the parked balls of the sleeping grid (but those
 * keep skips) appended at sleep_pairs[*m]; false when out of memory. */
static bool parked_partners(cr_world *w, cr_broad_phase *bp, uint32_t i,
                            bool (*keep)(const cr_world *, uint32_t, uint32_t), uint32_t *m)
{
    if (++bp->sleep_mark == 0) {
        memset(bp->sleep_marks, 0, sizeof *bp->sleep_marks * bp->sleep_marks_capacity);
        bp->sleep_mark = 1;
    }
    uint32_t k = cr_broad_query_from(w, bp->sleep, bp->lo[i], bp->hi[i], i, &bp->sleep_found, &bp->sleep_found_capacity,
                                     bp->sleep_marks, bp->sleep_mark, 0);
    if (k == UINT32_MAX || !room(w, bp, *m + k)) return false;
    cr_cell ci = cell_of(bp, i);
    for (uint32_t q = 0; q < k; ++q) {
        uint32_t j = bp->sleep_found[q];
        /* one grid would not look in cells further off */
        if (near(ci, cell_of(bp, j)) && (!keep || keep(w, i, j))) bp->sleep_pairs[(*m)++] = pair_of(bp, i, j);
    }
    return true;
}

/* sleep_pairs[0 .. m) sorted and merged into the grid pairs (the first
 * grid_count), the large boxes' pairs after them moved along. */
static bool merge(cr_world *w, cr_broad_phase *bp, uint32_t grid_count, uint32_t m)
{
    if (!m) return true;
    qsort(bp->sleep_pairs, m, sizeof *bp->sleep_pairs, sleep_pair_cmp);
    uint32_t total = bp->pair_count + m;
    if (!cr_grow(w, (void **)&bp->pairs, &bp->pair_capacity, total, sizeof *bp->pairs)) return false;
    memmove(bp->pairs + grid_count + m, bp->pairs + grid_count, sizeof *bp->pairs * (bp->pair_count - grid_count));
    /* from the back: both lists in one grid's order */
    uint32_t g = grid_count, p = m, out = grid_count + m;
    while (p > 0) {
        const cr_sleep_pair *x = &bp->sleep_pairs[p - 1];
        if (g > 0) {
            cr_broad_pair y = bp->pairs[g - 1];
            if (pair_order(y.a, cell_of(bp, y.b), y.b, x->a, (cr_cell){x->x, x->y, x->z}, x->b) > 0) {
                bp->pairs[--out] = y;
                --g;
                continue;
            }
        }
        bp->pairs[--out] = (cr_broad_pair){x->a, x->b};
        --p;
    }
    bp->pair_count = total;
    bp->grid_pair_count = grid_count + m;
    return true;
}

static bool marks_reserve(cr_world *w, cr_broad_phase *bp, uint32_t n)
{
    uint32_t was = bp->sleep_marks_capacity;
    if (!cr_grow(w, (void **)&bp->sleep_marks, &bp->sleep_marks_capacity, n, sizeof *bp->sleep_marks)) return false;
    if (bp->sleep_marks_capacity > was)
        memset(bp->sleep_marks + was, 0, sizeof *bp->sleep_marks * (bp->sleep_marks_capacity - was));
    return true;
}

bool cr_broad_sleep_pairs(cr_world *w, cr_broad_phase *bp, uint32_t grid_count)
{
    uint32_t n = bp->n, m = 0;
    if (!marks_reserve(w, bp, n)) return false;
    for (uint32_t i = 0; i < n; ++i) /* the large boxes' loop follows */
        if (bp->state[i] == CR_BROAD_GRID && !parked_partners(w, bp, i, NULL, &m)) return false;
    return merge(w, bp, grid_count, m);
}

/* A pair of two woken balls is found from both: kept from the lower. */
static bool once(const cr_world *w, uint32_t i, uint32_t j) { return w->bodies.asleep[j] || i < j; }

bool cr_broad_woken_pairs(cr_world *w, cr_broad_phase *bp, const uint32_t *woken, uint32_t count)
{
    uint32_t m = 0;
    if (!marks_reserve(w, bp, bp->n)) return false;
    for (uint32_t k = 0; k < count; ++k)
        if (cr_broad_is_parked(bp, woken[k]) && !parked_partners(w, bp, woken[k], once, &m)) return false;
    return merge(w, bp, bp->grid_pair_count, m);
}
