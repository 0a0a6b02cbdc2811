/* Sleeping balls in event-method worlds (issue 8: "bodies at rest sleep in
 * islands"): the rigid bodies' rule (rigid_sleep.c) for balls on surfaces,
 * flying balls and planes.
 *
 * A ball is still while its centre speed plus spin times radius stays
 * under def.sleep_speed. An island is the balls joined by touching
 * contacts at the step's end (cr_rest_touching, the gap under which they
 * lean on each other; statics do not join); when all its balls have been
 * still for def.sleep_time it falls asleep: v = w = 0, and it stays
 * (cr_body_plan gives it no motion). A sleeping ball costs almost nothing:
 * no plan, no closest point, no landing check, no pair times, rest sets or
 * projection rows with another body that cannot move (its pairs with
 * those leave the broad pairs), no advance. It keeps its position to the
 * bit.
 *
 * It wakes whole
 * - when an awake moving body's box overlaps a sleeping ball's box at the
 *   broad phase (cr_ball_sleep_broad): its balls are planned then, from
 *   the step's start;
 * - when an awake ball's event meets it inside the step: that ball wakes at
 *   the event (events.c resolve), its island at the step's end;
 * - when the user sets a ball's state or removes it.
 * An island's balls are a ring (island_next), so that waking costs the
 * island, never the world.
 */
#include "union_find.h"
#include "world_internal.h"

#define NONE UINT32_MAX

/* The speed that must stay under sleep_speed: the centre's plus spin
 * times radius. But a flying ball that leans on balls on surfaces
 * (cr_rest_flying_on) counts its centre only: nothing brakes its spin
 * there (the resting contact holds the centre only, seed 001 §3.2, and
 * the rolling law ignores spin), so it would keep it for ever and keep
 * its whole pile awake (the boiling scene: such balls spin at 0.1-0.4 m/s
 * on v = 0 after 3 s). Its spin goes when it falls asleep: energy lost,
 * never gained. */
static double ball_speed(const cr_bodies *b, uint32_t i)
{
    double spin = b->surface[i] == CR_NO_SURFACE && b->rest[i].count > 0 ? 0.0 : cr_v3_len(b->w[i]) * b->radius[i];
    return cr_v3_len(b->v[i]) + spin;
}

/* An awake body that moves: its box wakes the sleeping islands it
 * overlaps. A ball whose centre is slower than the sleep speed does not
 * (its box hardly moves; its impacts inside the step wake what they meet),
 * nor does its spin (a flying ball spinning on its pile would wake the
 * islands around it at every step). */
static bool mover(const cr_world *w, uint32_t i)
{
    const cr_bodies *b = &w->bodies;
    if (b->asleep[i]) return false;
    if (b->type[i] == CR_BODY_KINEMATIC) return cr_v3_len2(b->v[i]) > 0.0 || cr_v3_len2(b->w[i]) > 0.0;
    return b->type[i] == CR_BODY_DYNAMIC && cr_v3_len(b->v[i]) >= w->def.sleep_speed;
}

/* A body that cannot move this step: asleep, static, or kinematic at rest. */
static bool fixed(const cr_world *w, uint32_t i)
{
    const cr_bodies *b = &w->bodies;
    return b->asleep[i] || (b->type[i] != CR_BODY_DYNAMIC && !mover(w, i));
}

/* Wakes i's island; each ball is planned from the step's start when
 * woken is given (the broad phase), and listed in *woken, *count (its box
 * grown to its path in the grid after the wakes). */
static void wake(cr_world *w, uint32_t i, uint32_t *woken, uint32_t *count)
{
    cr_bodies *b = &w->bodies;
    if (!b->asleep[i] && b->island_next[i] == NONE) return;
    uint32_t k = i;
    do {
        uint32_t next = b->island_next[k];
        b->asleep[k] = 0;
        b->still[k] = 0.0;
        b->island_next[k] = NONE;
        if (woken) {
            cr_body_predict(w, k);
            b->replanned[k] = 1; /* the events ask the grid for its partners */
            woken[(*count)++] = k;
        }
        k = next;
    } while (k != NONE && k != i);
}

void cr_ball_wake(cr_world *w, uint32_t i) { wake(w, i, NULL, NULL); }

static bool reserve(cr_world *w, uint32_t n);

cr_status cr_ball_sleep_broad(cr_world *w)
{
    const cr_bodies *b = &w->bodies;
    cr_broad_phase *bp = &w->broad;
    if (!reserve(w, b->slot_count)) return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "broad phase: out of memory");
    /* the pairs in order: the same wakes, the same grid, on any worker
     * count. A woken ball's speed stays 0 through its plan (no mover): the
     * pairs that follow wake nothing more. */
    uint32_t *woken = w->sleep_ring, count = 0; /* scratch until cr_ball_update_sleep */
    for (uint32_t k = 0; k < bp->pair_count; ++k) {
        uint32_t i = bp->pairs[k].a, j = bp->pairs[k].b;
        if (b->asleep[i] && mover(w, j)) wake(w, i, woken, &count);
        else if (b->asleep[j] && mover(w, i)) wake(w, j, woken, &count);
    }
    /* the woken parked balls' pairs with sleeping ones, which the grid of
     * every box lists (broad_sleep.c), then the boxes grown in turn */
    if (count && bp->parked_count && !cr_broad_woken_pairs(w, bp, woken, count))
        return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "broad phase: out of memory");
    for (uint32_t k = 0; k < count; ++k) {
        cr_vec3 lo, hi;
        cr_body_path_box(w, woken[k], &lo, &hi);
        if (!cr_broad_extend(w, bp, woken[k], lo, hi))
            return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "broad phase: out of memory");
    }
    /* a sleeping ball with a body that cannot move: no pair (the order of
     * the others kept) */
    uint32_t kept = 0;
    for (uint32_t k = 0; k < bp->pair_count; ++k) {
        uint32_t i = bp->pairs[k].a, j = bp->pairs[k].b;
        if ((b->asleep[i] || b->asleep[j]) && fixed(w, i) && fixed(w, j)) continue;
        bp->pairs[kept++] = bp->pairs[k];
    }
    bp->pair_count = kept;
    w->stats.candidate_pairs = kept;
    return CR_OK;
}

/* Room for the islands' scratch of n slots. */
static bool reserve(cr_world *w, uint32_t n)
{
    return cr_grow(w, (void **)&w->sleep_least, &w->sleep_least_capacity, n, sizeof *w->sleep_least) &&
           cr_grow(w, (void **)&w->sleep_ring, &w->sleep_ring_capacity, n, sizeof *w->sleep_ring) &&
           cr_grow(w, (void **)&w->sleep_awake, &w->sleep_awake_capacity, n, sizeof *w->sleep_awake);
}

/* Ball i joins the ring of island r (w->sleep_ring[r]: its first ball,
 * NONE before), right after the first: the order of a ring is of no
 * consequence (a wake clears it whole). */
static void join_ring(cr_world *w, uint32_t r, uint32_t i)
{
    uint32_t *first = w->sleep_ring, *next = w->bodies.island_next;
    if (first[r] == NONE) {
        first[r] = i;
        next[i] = i;
    } else {
        next[i] = next[first[r]];
        next[first[r]] = i;
    }
}

/* an awake dynamic ball: the ones that count time still and join islands */
static bool awake_ball(const cr_bodies *b, uint32_t i)
{
    return cr_slot_alive(b, i) && cr_slot_dynamic(b, i) && !b->asleep[i];
}

cr_status cr_ball_update_sleep(cr_world *w)
{
    cr_bodies *b = &w->bodies;
    uint32_t n = b->slot_count;
    if (!reserve(w, n)) return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "sleeping: out of memory");
    /* balls woken by an impact inside the step: their islands wake whole */
    for (uint32_t i = 0; (i = cr_broad_past_sleeping(&w->broad, b->asleep, i, n)) < n; ++i) /* asleep: not woken */
        if (cr_slot_alive(b, i) && !b->asleep[i] && b->island_next[i] != NONE) wake(w, i, NULL, NULL);
    /* the awake balls, listed once: the passes below cost what they cost
     * (a world asleep, little) */
    uint32_t *awake = w->sleep_awake, count = 0, sleeping = 0;
    for (uint32_t i = 0; i < n; ++i) {
        if (!cr_slot_alive(b, i)) continue;
        sleeping += b->asleep[i];
        if (cr_slot_dynamic(b, i) && !b->asleep[i]) awake[count++] = i;
    }
    /* the islands' union-find in the awake balls' island ids: a sleeping
     * ball's stays its island's root, the id checkpoints keep */
    uint32_t *parent = b->island;
    for (uint32_t k = 0; k < count; ++k) {
        uint32_t i = awake[k];
        parent[i] = i;
        b->still[i] = ball_speed(b, i) < w->def.sleep_speed ? b->still[i] + w->def.dt : 0.0;
    }
    for (uint32_t k = 0; k < w->broad.pair_count; ++k) {
        uint32_t i = w->broad.pairs[k].a, j = w->broad.pairs[k].b;
        if (!awake_ball(b, i) || !awake_ball(b, j)) continue;
        double gap = -cr_overlap_sphere_sphere(b->x[i], b->radius[i], b->x[j], b->radius[j], NULL);
        if (cr_rest_touching(gap, b->radius[i] + b->radius[j])) cr_uf_union(parent, i, j);
    }
    /* an island's stillness is its least still ball's; a root is its
     * lowest slot, so one pass settles every root's least */
    double *least = w->sleep_least;
    for (uint32_t k = 0; k < count; ++k) {
        uint32_t i = awake[k];
        parent[i] = cr_uf_find(parent, i);
        least[i] = b->still[i];
        w->sleep_ring[i] = NONE;
    }
    for (uint32_t k = 0; k < count; ++k) {
        uint32_t i = awake[k];
        if (parent[i] != i && b->still[i] < least[parent[i]]) least[parent[i]] = b->still[i];
    }
    for (uint32_t k = 0; k < count; ++k) {
        uint32_t i = awake[k];
        if (least[parent[i]] < w->def.sleep_time) continue;
        /* what it keeps of its speed is under the sleep speed: energy only lost */
        b->asleep[i] = 1;
        b->v[i] = b->w[i] = cr_v3_zero();
        b->energy_on[i] = 0;
        join_ring(w, parent[i], i);
        ++sleeping;
    }
    w->stats.sleeping = sleeping;
    return CR_OK;
}

cr_status cr_ball_sleep_rings(cr_world *w)
{
    cr_bodies *b = &w->bodies;
    uint32_t n = b->slot_count;
    if (!reserve(w, n)) return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "sleeping: out of memory");
    for (uint32_t i = 0; i < n; ++i) {
        w->sleep_ring[i] = NONE;
        if (cr_slot_alive(b, i)) b->island_next[i] = NONE;
    }
    if (!cr_balls_sleep(w)) return CR_OK; /* the rigid bodies wake by island ids (rigid_sleep.c) */
    for (uint32_t i = 0; i < n; ++i)
        if (cr_slot_alive(b, i) && b->asleep[i] && b->island[i] < n) join_ring(w, b->island[i], i);
    return CR_OK;
}
