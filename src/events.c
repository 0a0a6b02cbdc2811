/* Stage 4, events: impacts inside the step, in time order.
 *
 * Design note. Every candidate pair and every body-plane pair gets its time
 * of impact inside the step: seed 004 eq. 47 when the two bodies share one
 * acceleration (their relative motion is then linear: always in the impulse
 * method, and for two flying balls in the event method), the quadratic gap
 * for a plane, and conservative advancement with seed 001 §3.3 bisection
 * otherwise. The earliest event is taken; only its two bodies are advanced
 * to its time (each body keeps its own local time), the impact law is
 * applied, and both bodies are predicted again against everything their new
 * path can reach (seed 004 Algorithm 2). Events predicted before a body's
 * last impact are stale (stamps) and skipped. Because every path is checked
 * before bodies move, nothing tunnels at any speed.
 *
 * Balls on surfaces (seed 004) add two kinds: a flying ball landing on a
 * surface (its gap through the closest point, by conservative advancement
 * and bisection), and a state change planned by the moving algorithm (a
 * sliding ball starting to roll). Every body an event touches is planned
 * again from the event's time (cr_body_plan).
 *
 * A pair within the contact margin that approaches no faster than the
 * resting speed is resting contact: the contact stage's business (impulse
 * method), or held by resting forces (event method), not an event. So is a
 * flying ball touching its surface that slowly: bound to it at once (an
 * event at its own time, no impulse) where its flight would end behind it.
 * Dense clusters can ask for ever more impacts in ever less time (inelastic
 * collapse); after max_events_per_body impacts in one step a body's further
 * impacts are counted in the stats (events_deferred) and left to the
 * impulse method's contact solver and projection of the next step; the
 * event method still resolves them, and past CR_EVENTS_HARD times the cap
 * no longer predicts the body (cr_events_loop).
 */
#include "dem_internal.h"
#include "event_run.h"
#include "pair_event.h"
#include "plane_event.h"
#include "world_internal.h"

static bool push(cr_world *w, cr_event_run *run, double t, uint32_t a, uint32_t b, cr_event_kind kind)
{
    cr_event e;
    e.t = t;
    e.a = a;
    e.b = b;
    e.kind = kind;
    e.stamp_a = w->bodies.stamp[a];
    e.stamp_b = kind == CR_EVENT_PAIR ? w->bodies.stamp[b] : 0;
    /* a group's run on a worker allocates nothing: out of room, it stops
     * and is run again on the calling thread (event_groups.c) */
    if (run->fixed && run->queue->count == run->queue->capacity) return false;
    return cr_event_push(w, run->queue, &e);
}

/* Body i's impact with plane k, or INFINITY at once when its path (pb)
 * keeps clear of the plane (cr_plane_clear: most bodies are nowhere near
 * most planes). */
static double plane_time_in(const cr_world *w, uint32_t i, uint32_t k, const cr_path_bound *pb)
{
    return cr_plane_clear(w, k, pb) ? INFINITY : cr_plane_impact_time(w, i, k);
}

/* The impact of bodies i and j at t, if any (t finite). */
static bool push_pair(cr_world *w, cr_event_run *run, double t, uint32_t i, uint32_t j)
{
    return t == INFINITY || push(w, run, t, i < j ? i : j, i < j ? j : i, CR_EVENT_PAIR);
}

/* Body i (at now_i when given) against body j. */
static bool predict_pair(cr_world *w, cr_event_run *run, uint32_t i, uint32_t j, const cr_body_now *now_i)
{
    return push_pair(w, run, cr_pair_impact_time(w, i, j, now_i), i, j);
}

/* Broad pairs per work item of the first round: fixed, not a function of
 * the workers. */
#define CR_PAIR_CHUNK 2048u

static void pair_time_items(uint32_t start, uint32_t end, uint32_t worker, void *ctx)
{
    (void)worker;
    const cr_world *w = ctx;
    uint32_t count = w->broad.pair_count;
    for (uint32_t c = start; c < end; ++c) {
        uint32_t last = cr_chunk_end(c, CR_PAIR_CHUNK, count);
        for (uint32_t k = c * CR_PAIR_CHUNK; k < last; ++k)
            w->pair_time[k] = cr_pair_impact_time(w, w->broad.pairs[k].a, w->broad.pairs[k].b, NULL);
    }
}

/* Bodies per work item of the first round's plane times. */
#define CR_PLANE_CHUNK 1024u

static void plane_time_items(uint32_t start, uint32_t end, uint32_t worker, void *ctx)
{
    (void)worker;
    const cr_world *w = ctx;
    uint32_t slots = w->bodies.slot_count, planes = w->planes.count;
    for (uint32_t c = start; c < end; ++c) {
        uint32_t last = cr_chunk_end(c, CR_PLANE_CHUNK, slots);
        for (uint32_t i = c * CR_PLANE_CHUNK; i < last; ++i) {
            /* a parked sleeping ball has no events of its own: no times */
            bool alive = cr_slot_alive(&w->bodies, i) && !cr_broad_sleeps(&w->broad, i, w->bodies.asleep[i]);
            cr_path_bound pb;
            if (alive) cr_path_bound_of(w, i, NULL, &pb);
            for (uint32_t k = 0; k < planes; ++k)
                w->plane_time[(size_t)i * planes + k] = alive ? plane_time_in(w, i, k, &pb) : INFINITY;
        }
    }
}

/* The first round's plane times of every body over the workers, into
 * w->plane_time (each item writes its own bodies' slots); NULL without
 * threads (each body takes its own as it is predicted). */
static bool first_plane_times(cr_world *w, const double **planes)
{
    *planes = NULL;
    uint64_t need = (uint64_t)w->bodies.slot_count * w->planes.count;
    if (!cr_parallel(w) || need == 0 || w->bodies.slot_count <= CR_PLANE_CHUNK) return true;
    if (need > UINT32_MAX ||
        !cr_grow(w, (void **)&w->plane_time, &w->plane_time_capacity, (uint32_t)need, sizeof *w->plane_time))
        return false;
    cr_run_items(w, plane_time_items, (w->bodies.slot_count + CR_PLANE_CHUNK - 1) / CR_PLANE_CHUNK, w);
    *planes = w->plane_time;
    return true;
}

/* The first round over the broad pairs. With threads, their times are
 * taken over the workers (cr_pair_impact_time reads the world only, each
 * item writes its own pairs' slots) and the events pushed afterwards in the
 * pairs' order, as one pass would: the same queue, the same bits, for any
 * number of workers. */
static bool predict_broad_pairs(cr_world *w, cr_event_run *run)
{
    const cr_broad_phase *bp = &w->broad;
    if (!cr_parallel(w) || bp->pair_count <= CR_PAIR_CHUNK) {
        for (uint32_t k = 0; k < bp->pair_count; ++k)
            if (!predict_pair(w, run, bp->pairs[k].a, bp->pairs[k].b, NULL)) return false;
        return true;
    }
    if (!cr_grow(w, (void **)&w->pair_time, &w->pair_time_capacity, bp->pair_count, sizeof *w->pair_time)) return false;
    cr_run_items(w, pair_time_items, (bp->pair_count + CR_PAIR_CHUNK - 1) / CR_PAIR_CHUNK, w);
    for (uint32_t k = 0; k < bp->pair_count; ++k)
        if (!push_pair(w, run, w->pair_time[k], bp->pairs[k].a, bp->pairs[k].b)) return false;
    return true;
}

typedef struct surface_gap {
    cr_world *w;
    uint32_t ball, surface;
} surface_gap;

/* A landing check's gap along ball i's path at time t. Each closest point
 * keeps its parameters as the ball's warm start: the next sample starts
 * where this one ended (the nearest at hand, and the ball's memo holds the
 * surface there, so Newton's first iteration costs no evaluation), and so
 * does the landing's own closest point (cr_ball_land, at the last sample's
 * time and position) or the step's end check after a miss (at the last
 * sample, t = dt): found again in one iteration without an evaluation. */
static double surface_gap_at(double t, void *ctx, double *slope)
{
    const surface_gap *g = ctx;
    cr_vec3 n;
    double gap = cr_ball_surface_gap(g->w, g->ball, g->surface, cr_body_position_at(g->w, g->ball, t), &n, true);
    /* The distance's gradient is the closest point's normal: its rate along
     * the path is n . v, free with the search. */
    *slope = cr_v3_dot(n, cr_body_path_velocity_at(g->w, g->ball, t));
    return gap;
}

/* Samples of a landing check after the step's start (cr_toi_hermite). */
#define CR_LANDING_SAMPLES 1

/* When flying ball i lands on surface k: its first contact on its path,
 * INFINITY for none in the step. It writes ball i's own warm start only
 * (its closest point's parameters), so the balls can be taken over the
 * workers (landing_one). */
static double landing_time(cr_world *w, uint32_t i, uint32_t k)
{
    const cr_bodies *b = &w->bodies;
    if (!cr_slot_dynamic(b, i) || b->surface[i] != CR_NO_SURFACE) return INFINITY;
    double ts = b->t_local[i], dt = w->def.dt;
    cr_vec3 n;
    double gap = cr_ball_surface_gap(w, i, k, b->x[i], &n, true);
    if (gap <= cr_touching_gap(w, b->radius[i])) {
        double vn = cr_v3_dot(b->v[i], n);
        if (-vn > w->resting_speed) return ts; /* an impact now */
        /* Touching, approaching no faster than resting: resting contact
         * (seed 001 §3.2), not an impact. Left flying, its free flight went
         * behind a surface that holds it (the boiling scene: v.n = -0.02 to
         * -0.04 m/s after an impact, 1.7 mm behind by the step's end), and
         * the end-of-step guard, after projection, pushed it out into a
         * neighbour (docs/benchmarks.md, "deepest ball-ball overlaps"). So
         * where its flight ends behind the surface it is bound now (seed
         * 004: on the surface, its plan holds it there; rest_on_surface).
         * One moving off faster than a ball may stay bound (plan_surface
         * would fly it again at once), or whose flight stays above the
         * surface (over a crest: it takes off), flies. */
        if (vn > cr_surface_bind_speed(w, b->v[i])) return INFINITY;
        cr_vec3 n_end;
        double end = cr_ball_surface_gap(w, i, k, cr_body_position_at(w, i, dt), &n_end, true);
        return end < -w->def.toi_tolerance ? ts : INFINITY;
    }
    /* The gap (the centre's distance to the surface, less r) changes no
     * faster than the centre moves: a path that cannot travel the gap
     * within the step, |vpath| s + |acc| s^2 / 2 < gap, cannot land in it
     * (nor could the samples below find a landing: no closest point). */
    double s = dt - ts;
    double reach = cr_v3_len(b->vpath[i]) * s + 0.5 * cr_v3_len(b->acc[i]) * s * s;
    if (gap > reach * (1.0 + 1e-9) + w->def.toi_tolerance) return INFINITY;
    /* The gap along a step is smooth: its value and slope at the step's
     * start (the gap just taken, at x) and end, the cubic Hermite between
     * them to catch a graze, then Newton in the bracket (seed 001 §3.3's
     * stopping rule). */
    surface_gap g = {w, i, k};
    double t;
    return cr_toi_hermite(surface_gap_at, &g, ts, gap, cr_v3_dot(n, b->vpath[i]), dt, CR_LANDING_SAMPLES,
                          w->def.toi_tolerance, &t) == CR_TOI_HIT
               ? t
               : INFINITY;
}

/* Ball i's landing times on every surface at the events' start, into
 * w->landing (cr_run_balls: over the workers, same bits for any count). */
static void landing_one(cr_world *w, uint32_t i)
{
    if (!cr_slot_alive(&w->bodies, i) || w->bodies.asleep[i]) return; /* asleep: no events of its own */
    for (uint32_t k = 0; k < w->surfaces.count; ++k)
        w->landing[(size_t)i * w->surfaces.count + k] = landing_time(w, i, k);
}

/* Everything of body i that does not involve another body; its plane and
 * landing times taken from planes and landing when given (computed at its
 * present state); box: its path box when at hand. */
static bool predict_statics(cr_world *w, cr_event_run *run, uint32_t i, const double *planes, const double *landing,
                            const cr_vec3 *box)
{
    cr_path_bound pb;
    if (!planes && w->planes.count) cr_path_bound_of(w, i, box, &pb);
    for (uint32_t k = 0; k < w->planes.count; ++k) {
        double t = planes ? planes[(size_t)i * w->planes.count + k] : plane_time_in(w, i, k, &pb);
        if (t != INFINITY && !push(w, run, t, i, k, CR_EVENT_PLANE)) return false;
    }
    for (uint32_t k = 0; k < w->surfaces.count; ++k) {
        double t = landing ? landing[(size_t)i * w->surfaces.count + k] : landing_time(w, i, k);
        if (t != INFINITY && !push(w, run, t, i, k, CR_EVENT_SURFACE)) return false;
    }
    if (w->bodies.t_state[i] <= w->def.dt && !push(w, run, w->bodies.t_state[i], i, 0, CR_EVENT_STATE)) return false;
    return true;
}

/* Predicts body i against everything its remaining path can reach, except
 * body skip (UINT32_MAX: none), which predicts itself against i right after
 * (the same event: the pair's time does not depend on its order). */
static bool predict_body(cr_world *w, cr_event_run *run, uint32_t i, uint32_t skip, const double *landing)
{
    cr_bodies *b = &w->bodies;
    cr_vec3 box[2];
    cr_body_path_box(w, i, &box[0], &box[1]);
    cr_vec3 lo = box[0], hi = box[1];
    uint32_t n;
    if (run->group) {
        /* a group's run leaves the grid as it is (event_groups.c) */
        n = cr_group_query(w, run->group, i, lo, hi);
    } else {
        /* The new path may leave the box the grid holds: enter it again so
         * that later queries by others see it too. */
        if (!cr_broad_extend(w, &w->broad, i, lo, hi)) return false;
        n = cr_broad_query(w, &w->broad, lo, hi, i, run->query, run->query_capacity, run->marks, ++*run->mark);
    }
    if (n == UINT32_MAX) return false;
    const uint32_t *query = *run->query;
    /* Body i's state at its own time, the time of most of its pairs (a
     * partner is rarely ahead of it), once instead of per pair. */
    cr_body_now now;
    cr_body_now_at(w, i, b->t_local[i], &now);
    /* The partners' plans, from all over memory in a large world: asked for
     * all at once, so that the loads overlap instead of waiting in turn. */
    for (uint32_t q = 0; q < n; ++q) {
        uint32_t j = query[q];
        CR_PREFETCH(&b->t_local[j], 0);
        CR_PREFETCH(&b->x[j], 0);
        CR_PREFETCH(&b->vpath[j], 0);
        CR_PREFETCH(&b->v[j], 0);
        CR_PREFETCH(&b->dvel[j], 0);
        CR_PREFETCH(&b->acc[j], 0);
    }
    for (uint32_t q = 0; q < n; ++q) {
        uint32_t j = query[q];
        if (j == skip) continue;
        double t = cr_pair_impact_time(w, i, j, &now);
        /* a group's run may read a body of another group, not meet it */
        if (run->group && !cr_group_may_meet(w, run->group, j, t)) return false;
        if (!push_pair(w, run, t, i, j)) return false;
    }
    return predict_statics(w, run, i, NULL, landing, box);
}

/* Ball i, woken by an impact inside the step, leans on what it touches
 * now, as an awake ball has since the resting contacts stage (which skips
 * a sleeping one: rolling_rest.c), and is planned again with it. Left out,
 * its plan ran it into a still neighbour it touched, with no impact (they
 * touch and their velocities do not approach: cr_pair_impact_time), and
 * projection, which holds balls on surfaces, left the overlap (0.11 mm in
 * tests/test_ball_sleep.c's pile woken by a rolled ball). A parked ball's
 * set is the one of the step it was parked in: taken anew. False: out of
 * memory, or a group's run stopped. */
static bool lean_when_woken(cr_world *w, cr_event_run *run, uint32_t i)
{
    cr_bodies *b = &w->bodies;
    cr_vec3 lo, hi;
    cr_body_path_box(w, i, &lo, &hi);
    uint32_t n = run->group ? cr_group_query(w, run->group, i, lo, hi)
                            : cr_broad_query(w, &w->broad, lo, hi, i, run->query, run->query_capacity, run->marks,
                                             ++*run->mark);
    if (n == UINT32_MAX) return false;
    const uint32_t *query = *run->query;
    double t = b->t_local[i];
    b->rest[i].count = 0;
    for (uint32_t q = 0; q < n; ++q) {
        uint32_t j = query[q];
        if (b->surface[i] == CR_NO_SURFACE && !cr_rest_flying_on(w, i, j)) continue;
        cr_vec3 xj = cr_body_position_at(w, j, t), d = cr_v3_sub(b->x[i], xj);
        double dist = cr_v3_len(d);
        if (dist > 0.0 && cr_rest_touching(dist - b->radius[i] - b->radius[j], b->radius[i] + b->radius[j]))
            cr_rest_add(w, i, cr_v3_scale(d, 1.0 / dist), j);
    }
    cr_rest_add_walls(w, i);
    if (b->rest[i].count) cr_body_plan(w, i);
    return true;
}

static bool stale(const cr_world *w, const cr_event *e)
{
    return e->stamp_a != w->bodies.stamp[e->a] || (e->kind == CR_EVENT_PAIR && e->stamp_b != w->bodies.stamp[e->b]);
}

static void report(cr_world *w, cr_event_run *run, cr_impact *im)
{
    run->events++;
    if (!w->def.on_impact) return;
    w->in_callback = true;
    w->def.on_impact(im, w->def.callback_ctx);
    w->in_callback = false;
}

/* Seed 004 eq. 49-56 between balls i and j; a ball rolling on a surface
 * weighs m + I/r^2, and its spin follows its new velocity. */
static void resolve_rolling(cr_world *w, uint32_t i, uint32_t j, cr_impact *im, double e)
{
    cr_bodies *b = &w->bodies;
    double m[2];
    uint32_t ids[2] = {i, j};
    for (int k = 0; k < 2; ++k) {
        uint32_t q = ids[k];
        bool rolling = b->surface[q] != CR_NO_SURFACE && b->ball_state[q] == CR_BALL_ROLLING;
        m[k] = !cr_slot_dynamic(b, q) ? 0.0 : b->mass[q] + (rolling ? b->inertia[q] / (b->radius[q] * b->radius[q]) : 0.0);
    }
    cr_vec3 dva, dvb;
    cr_law_rolling(m[0], m[1], b->v[i], b->v[j], im->normal, e, &dva, &dvb);
    b->v[i] = cr_v3_add(b->v[i], dva);
    b->v[j] = cr_v3_add(b->v[j], dvb);
    /* The law's energy (eq. 49) is that of a ball whose spin follows its
     * velocity: a rolling ball keeps rolling, w = n x v_t / r. */
    for (int k = 0; k < 2; ++k) {
        uint32_t q = ids[k];
        if (b->surface[q] == CR_NO_SURFACE || b->ball_state[q] != CR_BALL_ROLLING) continue;
        cr_vec3 n;
        cr_ball_surface_gap(w, q, b->surface[q], b->x[q], &n, false);
        b->w[q] = cr_v3_scale(cr_v3_cross(n, b->v[q]), 1.0 / b->radius[q]);
    }
    im->impulse = cr_v3_scale(dva, m[0]);
    im->va_after = b->v[i];
    im->vb_after = b->v[j];
}

/* Ball i leans on ball j in direction n from the impact on, and on the
 * walls it touches: a ball that was neither on a surface nor leaning on one
 * at the resting contacts stage (a flying ball that ends up on a surface
 * ball) has no walls in its set yet, and its plan would drive it into one
 * it touches slowly, with no event (cr_plane_impact_time: resting contact):
 * 0.93 mm into a wall in the 100,000-ball boiling scene, and the
 * end-of-step guard then pushed it out into a neighbour
 * (docs/benchmarks.md, "a full rest set"). */
static void lean_on_ball(cr_world *w, uint32_t i, cr_vec3 n, uint32_t j)
{
    cr_rest_add(w, i, n, j);
    cr_rest_add_walls(w, i);
}

/* Brought to rest against each other by an impact: balls on surfaces, and
 * a flying ball on one of them (rolling_rest.c), now lean on each other for
 * the rest of the step (seed 001 §3.2). */
static void lean_after(cr_world *w, uint32_t i, uint32_t j, const cr_impact *im)
{
    const cr_bodies *b = &w->bodies;
    if (fabs(cr_v3_dot(im->normal, cr_v3_sub(im->va_after, im->vb_after))) > w->resting_speed) return;
    if (b->surface[i] != CR_NO_SURFACE || cr_rest_flying_on(w, i, j)) lean_on_ball(w, i, im->normal, j);
    if (b->surface[j] != CR_NO_SURFACE || cr_rest_flying_on(w, j, i)) lean_on_ball(w, j, cr_v3_neg(im->normal), i);
}

/* Flying ball i touching surface k at its own time, as landing_time's
 * resting branch predicted it: resting contact when it approaches no
 * faster than the resting speed (seed 001 §3.2: no impact, e = 0, its
 * normal speed dropped). It is bound to the surface (surface = k) and its
 * plan (cr_body_plan, plan_surface) drops that normal speed and moves it
 * onto the offset surface keeping its energy (seed 004 eq. 43); no
 * impulse: cr_ball_land's impact law would also take friction out of its
 * tangential speed. False: faster, an impact (cr_ball_land). */
static bool rest_on_surface(cr_world *w, uint32_t i, uint32_t k)
{
    cr_bodies *b = &w->bodies;
    cr_vec3 n;
    cr_ball_surface_gap(w, i, k, b->x[i], &n, true);
    if (-cr_v3_dot(b->v[i], n) > w->resting_speed) return false;
    b->surface[i] = k;
    return true;
}

static void resolve(cr_world *w, cr_event_run *run, const cr_event *e)
{
    cr_bodies *b = &w->bodies;
    uint32_t i = e->a;
    if (run->group) { /* what the bodies were, should the group be run again */
        cr_group_keep(w, run->group, i);
        if (e->kind == CR_EVENT_PAIR) cr_group_keep(w, run->group, e->b);
    }
    double was = b->t_local[i];
    cr_body_advance(w, i, e->t);
    b->stamp[i]++;
    b->events[i]++;
    cr_impact im = {0};
    im.time = w->time + e->t;
    im.a = cr_world_body_at(w, i);
    if (e->kind == CR_EVENT_STATE) return; /* only a new plan from here */
    if (e->kind == CR_EVENT_SURFACE) {
        /* bound from here: on the walls it touches too (lean_on_ball) */
        if (e->t == was && rest_on_surface(w, i, e->b)) {
            cr_rest_add_walls(w, i);
            return;
        }
        cr_ball_land(w, i, e->b, &im);
        if (b->surface[i] != CR_NO_SURFACE) cr_rest_add_walls(w, i);
        report(w, run, &im);
        return;
    }
    im.va_before = b->v[i];
    cr_contact_side sa, sb;
    double e_coef, mu;
    if (e->kind == CR_EVENT_PLANE) {
        const cr_plane_def *pl = &w->planes.def[e->b];
        im.normal = pl->normal;
        im.static_id.index = e->b;
        im.static_id.generation = w->planes.generation[e->b];
        im.static_id.type = CR_STATIC_PLANE;
        sa = cr_body_side(w, i, cr_v3_scale(pl->normal, -b->radius[i]));
        sb = cr_contact_side_immovable();
        e_coef = b->restitution[i] * pl->restitution;
        mu = b->friction[i] * pl->friction;
    } else {
        uint32_t j = e->b;
        /* met by an impact, a sleeping ball wakes (its island at the
         * step's end, ball_sleep.c) */
        b->asleep[i] = b->asleep[j] = 0;
        cr_body_advance(w, j, e->t);
        b->stamp[j]++;
        b->events[j]++;
        cr_overlap_sphere_sphere(b->x[i], b->radius[i], b->x[j], b->radius[j], &im.normal);
        im.b = cr_world_body_at(w, j);
        im.vb_before = b->v[j];
        sa = cr_body_side(w, i, cr_v3_scale(im.normal, -b->radius[i]));
        sb = cr_body_side(w, j, cr_v3_scale(im.normal, b->radius[j]));
        e_coef = b->restitution[i] * b->restitution[j];
        mu = b->friction[i] * b->friction[j];
    }
    im.normal_speed = cr_v3_dot(im.normal, cr_v3_sub(cr_contact_point_velocity(&sa), cr_contact_point_velocity(&sb)));
    if (e->kind == CR_EVENT_PAIR && w->def.law == CR_LAW_ROLLING) {
        resolve_rolling(w, i, e->b, &im, e_coef);
        lean_after(w, i, e->b, &im);
        report(w, run, &im);
        return;
    }
    im.impulse = cr_world_impact_impulse(w, &sa, &sb, im.normal, e_coef, mu);
    cr_contact_apply(&sa, &sb, im.impulse);
    cr_body_store_side(w, i, &sa);
    im.va_after = b->v[i];
    if (e->kind == CR_EVENT_PAIR) {
        cr_body_store_side(w, e->b, &sb);
        im.vb_after = b->v[e->b];
        lean_after(w, i, e->b, &im);
    } else if (cr_ball_leans(b, i) && fabs(cr_v3_dot(im.normal, im.va_after)) <= w->resting_speed) {
        /* brought to rest on the wall: it leans on it from here (seed 001
         * §3.2), a flying ball that leans on a surface ball too. Without it
         * that ball's plan, which leans on the ball alone, drove it into the
         * wall it had just come to rest on, with no event (resting contact):
         * 0.93 mm in 5 ms, 0.185 mm left after projection, which holds the
         * surface ball on its other side (10,000-ball boiling scene, step
         * 15; docs/benchmarks.md, "wall"). */
        cr_rest_add(w, i, im.normal, e->b | CR_REST_PLANE);
    }
    report(w, run, &im);
}

/* How many times max_events_per_body a body's impacts in a step may be
 * before it is no longer predicted (cr_events_loop). A body that is not
 * predicted runs into neighbours that never saw its new path. The boiling
 * scene at 60 Hz, 1 s, cap 2, deepest overlap of two surface balls: 300
 * balls, three seeds, 27 to 43 mm with the impacts over the cap skipped
 * (before), 15.5 mm resolved but not predicted right at the cap, 1.6 to 3.4
 * mm at 4 times; 100 balls (tests/test_surface_apart.c) 1.2 mm at 2 times,
 * under 0.1 mm at 4. At 8 times a ball of test_boiling's friction scene
 * (Newton law, one ball at the cap every step) took 449 impacts a step
 * over the cap instead of 1, and that run then gained energy in later
 * steps (docs/physics.md, "Balls on freeform surfaces": projection lifting
 * a flying ball that rests among surface balls when nothing can pay). */
#define CR_EVENTS_HARD 4u

/* Seed 004 Algorithm 2's loop: the run's events in time order, each
 * resolved, its bodies planned and predicted again. False: out of memory
 * (the world's run), or stopped (a group's: event_groups.c). */
bool cr_events_loop(cr_world *w, cr_event_run *run)
{
    cr_bodies *b = &w->bodies;
    uint32_t cap = (uint32_t)w->def.max_events_per_body;
    cr_event e;
    while (cr_event_pop(run->queue, &e)) {
        if (stale(w, &e)) continue;
        bool pair = e.kind == CR_EVENT_PAIR;
        /* Over the cap (inelastic collapse, counted): an impact is still
         * resolved and its bodies predicted again, up to CR_EVENTS_HARD
         * times the cap; past that a body is no longer predicted, its
         * impacts still resolved, so that a step's impacts stay bounded
         * whatever happens. An impact skipped instead (as before) let its
         * pair keep closing for the rest of the step, and where both balls
         * are on a surface nothing separated them after it (projection
         * holds them): 18.3 mm deep in the 1,000-ball boiling scene at 60
         * Hz. This is for the event method, which has no contact solver:
         * the impulse method's are still deferred, to its contact solver
         * and projection of the next step, as is a sliding ball's state
         * change (it keeps its plan, rolling.c). */
        bool over_a = b->events[e.a] >= cap, over_b = pair && b->events[e.b] >= cap;
        if (over_a || over_b) {
            run->deferred++;
            if (e.kind == CR_EVENT_STATE || w->def.method != CR_METHOD_EVENT) continue;
        }
        bool woke_a = b->asleep[e.a], woke_b = pair && b->asleep[e.b]; /* resolve wakes them */
        resolve(w, run, &e);
        cr_body_plan(w, e.a); /* from the event's time, in its new state */
        if (pair) cr_body_plan(w, e.b);
        if ((woke_a && !lean_when_woken(w, run, e.a)) || (woke_b && !lean_when_woken(w, run, e.b))) return false;
        uint64_t hard = (uint64_t)CR_EVENTS_HARD * cap;
        bool stop_a = b->events[e.a] > hard, stop_b = pair && b->events[e.b] > hard;
        /* body a skips b where b predicts itself against a right after */
        if (!stop_a && !predict_body(w, run, e.a, pair && !stop_b ? e.b : UINT32_MAX, NULL)) return false;
        if (pair && !stop_b && !predict_body(w, run, e.b, UINT32_MAX, NULL)) return false;
    }
    return true;
}

cr_status cr_stage_events(cr_world *w)
{
    cr_bodies *b = &w->bodies;
    cr_event_clear(&w->queue);
    cr_event_run run = {&w->queue, &w->query, &w->query_capacity, b->visit, &w->visit_mark, 0, 0, false, NULL};
    /* The landing checks of the flying balls (closest points along each
     * path: most of this first round's time) over the workers; the events
     * are then pushed in the same order as ever. */
    const double *landing = NULL;
    if (w->surfaces.count) {
        uint64_t need = (uint64_t)b->slot_count * w->surfaces.count;
        if (need > UINT32_MAX || !cr_grow(w, (void **)&w->landing, &w->landing_capacity, (uint32_t)need, sizeof *w->landing))
            goto oom;
        cr_run_balls(w, landing_one);
        landing = w->landing;
    }
    const double *planes;
    if (!predict_broad_pairs(w, &run) || !first_plane_times(w, &planes)) goto oom;
    for (uint32_t i = 0; i < b->slot_count; ++i) {
        if (!cr_slot_alive(b, i) || b->asleep[i]) continue; /* asleep: no events of its own */
        /* A body whose plan changed after the broad phase (contacts) may
         * reach beyond its pairs: ask the grid. One whose new path stayed
         * inside its box (replanned 2) has all its partners in the pairs
         * above: one that may reach it from outside its own box asks the
         * grid itself, and finds it there. */
        if (b->replanned[i] == 1) {
            if (!predict_body(w, &run, i, UINT32_MAX, landing)) goto oom;
        } else if (!predict_statics(w, &run, i, planes, landing, NULL)) {
            goto oom;
        }
    }
    /* The rest over the workers in independent groups where it may be
     * (event_groups.c: the same bits as this loop), else in one run; no
     * event (a world asleep): nothing to group, over every slot. */
    bool ok = w->queue.count == 0 || (cr_events_grouped_fit(w) ? cr_events_grouped(w) : cr_events_loop(w, &run));
    w->stats.events += run.events;
    w->stats.events_deferred += run.deferred;
    if (ok) return CR_OK;
oom:
    return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "events: out of memory");
}
