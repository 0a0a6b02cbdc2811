/* A candidate pair's impact inside the step (stage 4, events.c): seed 004
 * eq. 47 when the two bodies share one acceleration (their relative motion
 * is then linear), the first root of the quartic |d(t)|^2 - rho^2
 * otherwise (cr_toi_quadratic_paths: each path is quadratic in the step).
 *
 * A pure function of the two bodies' plans: it reads the world and writes
 * nothing, so that the events stage's first round can take the broad
 * phase's pairs over the workers and push their events in the pairs' order
 * afterwards, the same bits for any number of workers. Inline: the events
 * stage asks it about every candidate pair, about ten per impact. */
#ifndef CAROM_PAIR_EVENT_H
#define CAROM_PAIR_EVENT_H

#include "world_internal.h"

typedef struct cr_pair_gap {
    const cr_world *w;
    uint32_t a, b;
    double radius;
} cr_pair_gap;

static inline double cr_pair_gap_at(double t, void *ctx)
{
    const cr_pair_gap *g = ctx;
    return cr_v3_len(cr_v3_sub(cr_body_position_at(g->w, g->a, t), cr_body_position_at(g->w, g->b, t))) - g->radius;
}

static inline bool cr_same_vec(cr_vec3 a, cr_vec3 b) { return a.x == b.x && a.y == b.y && a.z == b.z; }

/* Body i's position, path velocity and velocity at time t in the step. */
typedef struct cr_body_now {
    double t;
    cr_vec3 x, vpath, v;
} cr_body_now;

static inline void cr_body_now_at(const cr_world *w, uint32_t i, double t, cr_body_now *now)
{
    now->t = t;
    now->x = cr_body_position_at(w, i, t);
    now->vpath = cr_body_path_velocity_at(w, i, t);
    now->v = cr_body_velocity_at(w, i, t);
}

/* Whether ball i's resting contacts hold it against a neighbour in unit
 * direction u from it (seed 001 §3.2 through its rest set): one of them
 * within 25 degrees of u that its present plan holds (the held mask, set by
 * lean_on or cr_rest_hold_flying: the plan decides, not this test again,
 * which measured the approach otherwise and at the resting speed's edge
 * called resting what the plan let through). Its directions are taken at
 * the step's start or at an impact (rolling_rest.c, events.c lean_after), and the balls roll
 * round each other by less over a step (|v| dt / (r_i + r_j) < 0.3 rad at
 * 1 m/s and 60 Hz); a neighbour it met otherwise (both flying, held by
 * position projection, then landing while touching) is in no direction of
 * its set, and nothing holds it. */
static inline bool cr_rest_holds(const cr_world *w, uint32_t i, cr_vec3 u)
{
    const cr_rest_set *r = &w->bodies.rest[i];
    for (uint32_t k = 0; k < r->count; ++k)
        if ((r->held >> k & 1u) && -cr_v3_dot(r->n[k], u) >= 0.9) return true;
    return false;
}

/* Whether a slow approach of bodies i and j (closing at most at the resting
 * speed; d = x_i - x_j, dist = |d|) is resting contact, held without an
 * impact. Between balls off any surface position projection holds it
 * (seed 000 c.5), unless one of them leans on something (its rest set: a
 * surface ball just hit off it, lying on others): its plan holds it there
 * (cr_rest_hold_flying), the ball that hit it came on into it, and it
 * landed again, bound, where projection no longer parts them (1.3 mm at
 * 10,000 balls of the boiling scene); it is held as a surface ball is. A
 * ball on a surface is held by its resting contacts instead (rolling_rest.c; projection counts it immovable), and those stop
 * only a ball's own approach that is at most the resting speed, as seed
 * 001 §3.2 stops one against a wall: a ball that runs into a slower one
 * ahead at 0.46 m/s against its 0.35 closes at 0.11 m/s, slowly, but is not
 * held, and would sink into it step after step (13 mm in 16 steps of the
 * boiling scene). And they stop it only when its set holds that direction
 * (cr_rest_holds): two flying balls resting on each other at 0.27 m/s (below
 * the resting speed of 0.33 m/s at 60 Hz) that land went on into each other
 * by 3.4 mm in the step. Such a pair is an impact, which the resting
 * contacts then keep closed (lean_after). */
static inline bool cr_pair_rests(const cr_world *w, uint32_t i, uint32_t j, cr_vec3 d, double dist, cr_vec3 vi,
                                 cr_vec3 vj)
{
    const cr_bodies *b = &w->bodies;
    if (b->surface[i] == CR_NO_SURFACE && b->surface[j] == CR_NO_SURFACE && b->rest[i].count == 0 && b->rest[j].count == 0)
        return true;
    double limit = w->resting_speed * dist; /* the approaches along d, times dist */
    double ai = -cr_v3_dot(vi, d), aj = cr_v3_dot(vj, d);
    if (ai > limit || aj > limit) return false;
    cr_vec3 u = cr_v3_scale(d, 1.0 / dist); /* from j to i */
    /* a ball that approaches the other: held by its set (a flying one on
     * a surface ball too: cr_rest_hold_flying) */
    if (ai > 0.0 && !cr_rest_holds(w, i, cr_v3_neg(u))) return false;
    if (aj > 0.0 && !cr_rest_holds(w, j, u)) return false;
    return true;
}

/* Whether rest set r can take a direction on body j (cr_rest_add). */
static inline bool cr_rest_has_room(const cr_rest_set *r, uint32_t j)
{
    if (r->count < CR_REST_MAX) return true;
    for (uint32_t k = 0; k < r->count; ++k)
        if (r->on[k] == j) return true;
    return false;
}

/* Whether touching bodies i and j, whose velocities give no impact, are run
 * into each other by their PLANNED paths (unit u from j to i; vi, vj their
 * velocities at the later local time ts): the gap on the plans half way
 * to the step's end or at its end is under minus the time-of-impact
 * tolerance (seed 004 predicts a pair on its planned paths;
 * seed 001 §3.2: a touching pair that would close is resting contact, held
 * by a force, not left alone). Only for balls held on a surface (or a static
 * body): a surface ball's plan keeps only its velocity along the surface,
 * and on a curved surface the chord turns back into a neighbour that an
 * impact just parted it from faster than resting, so they did not lean
 * (0.457 mm at 10,000 balls of the boiling scene, docs/benchmarks.md,
 * "touch"), and projection moves no surface ball. Flying balls are parted
 * by projection. A pair already leaning on each other (both hold the
 * other's direction) is kept apart by the plans themselves (keep_off).
 * The event at ts is resolved as an impact (no impulse where the velocities
 * do not approach) and lean_after leaves both leaning on each other, their
 * plans held off (rolling.c keep_off). */
static inline bool cr_pair_plans_close(const cr_world *w, uint32_t i, uint32_t j, double ts, double r, cr_vec3 u,
                                       cr_vec3 vi, cr_vec3 vj)
{
    const cr_bodies *b = &w->bodies;
    bool di = cr_slot_dynamic(b, i), dj = cr_slot_dynamic(b, j);
    if ((di && b->surface[i] == CR_NO_SURFACE) || (dj && b->surface[j] == CR_NO_SURFACE)) return false;
    bool hi = !di || cr_rest_holds(w, i, cr_v3_neg(u)), hj = !dj || cr_rest_holds(w, j, u);
    if (hi && hj) return false;
    /* a ball whose set is full of others cannot lean on this one
     * (cr_rest_add): the event would come again at once, to the hard cap */
    if ((!hi && !cr_rest_has_room(&b->rest[i], j)) || (!hj && !cr_rest_has_room(&b->rest[j], i))) return false;
    /* nor hold a ball that itself moves towards the other faster than
     * resting (cr_rest_slow: its set holds only the slow directions; two
     * balls sliding on together, the front one pushed): the plan would not
     * change, the event would come again at once (257 times at one instant
     * in the 100,000-ball boiling scene, past the hard cap, 1.44 mm deep) */
    if ((!hi && -cr_v3_dot(vi, u) > w->resting_speed) || (!hj && cr_v3_dot(vj, u) > w->resting_speed)) return false;
    /* nor a pair whose velocities part faster than resting: lean_after
     * leaves it out of the sets as well (none such in the boiling scene's
     * 10,000, 20,000 and 100,000-ball runs: the same bits with or without) */
    if (fabs(cr_v3_dot(cr_v3_sub(vi, vj), u)) > w->resting_speed) return false;
    double dt = w->def.dt, eps = w->def.toi_tolerance;
    cr_pair_gap g = {w, i, j, r};
    return cr_pair_gap_at(dt, &g) < -eps || cr_pair_gap_at(0.5 * (ts + dt), &g) < -eps;
}

/* The time of the next impact of bodies i and j inside the step from the
 * later of their local times, INFINITY for none. now_i, when given, is body
 * i at some time (used when it is that time). */
static inline double cr_pair_impact_time(const cr_world *w, uint32_t i, uint32_t j, const cr_body_now *now_i)
{
    const cr_bodies *b = &w->bodies;
    if (!cr_slot_dynamic(b, i) && !cr_slot_dynamic(b, j)) return INFINITY;
    double dt = w->def.dt;
    double ts = b->t_local[i] > b->t_local[j] ? b->t_local[i] : b->t_local[j]; /* times: finite */
    if (ts >= dt) return INFINITY;
    double r = b->radius[i] + b->radius[j];
    /* Body i at ts: taken once per prediction round where given (the same
     * function of the same time: the same bits). */
    cr_body_now here;
    const cr_body_now *ni = now_i && now_i->t == ts ? now_i : &here;
    if (ni == &here) cr_body_now_at(w, i, ts, &here);
    cr_vec3 pj = cr_body_position_at(w, j, ts), vj = cr_body_path_velocity_at(w, j, ts);
    cr_vec3 d = cr_v3_sub(ni->x, pj), uj = cr_body_velocity_at(w, j, ts);
    double dist = cr_v3_len(d);
    double vn = dist > 0.0 ? cr_v3_dot(cr_v3_sub(ni->v, uj), d) / dist : 0.0;
    /* (asked only of a pair that touches or is within the margin: the
     * only ones that read it, a few of the many candidate pairs) */
    const bool touching = dist - r <= cr_touching_gap(w, r), near = dist - r <= cr_contact_margin(w, r);
    const bool rests = (touching || near) && -vn <= w->resting_speed && cr_pair_rests(w, i, j, d, dist, ni->v, uj);
    if (touching)
        /* Touching now: an impact if closing, unless resting holds it, and
         * closing by more than the time-of-impact tolerance over the rest
         * of the step (seed 001 §3.3's epsilon): less has nothing for an
         * impact to stop. A ball pushed by a faster one into a third it
         * leans on (held, lean_on) was hit again and again at one instant,
         * each impact undone by the held plan (its approach shrank by 3.4
         * times an impact, then stayed at rounding), until it passed
         * CR_EVENTS_HARD times the cap, was no longer predicted and ran
         * into the third: 2.7 mm deep in 1,000-ball boiling seed 4. */
        return (-vn * (dt - ts) > w->def.toi_tolerance && !rests) ||
                       (dist > 0.0 && cr_pair_plans_close(w, i, j, ts, r, cr_v3_scale(d, 1.0 / dist), ni->v, uj))
                   ? ts
                   : INFINITY;
    if (near && rests) return INFINITY;
    double t;
    if (cr_same_vec(b->acc[i], b->acc[j])) {
        double x, span = dt - ts;
        if (cr_toi_sphere_sphere(ni->x, cr_v3_scale(ni->vpath, span), pj, cr_v3_scale(vj, span), r, 0.0, &x) != CR_TOI_HIT)
            return INFINITY;
        t = ts + x * span;
    } else {
        /* Each path is quadratic in the step (cr_body_position_at), so d is
         * too: the exact first root of the quartic |d|^2 - rho^2. Its time
         * is checked on the gap itself (the paths from each body's own
         * local time, not from ts: rounding apart), and conservative
         * advancement answers where the check fails, so that no contact is
         * lost to rounding. It answers a graze too (a gap that comes within
         * the tolerance but not to 0: a pair that ends the step resting on
         * the other, 12 of 20,500 calls in the 1,000-ball boiling scene), a
         * matter of convention, kept as it was: counted an impact always,
         * a ball resting on a stack in a bowl gained 1.8e-5 m g r in a step
         * (test_ball_stack). */
        double s, eps = w->def.toi_tolerance, span = dt - ts;
        cr_vec3 dv = cr_v3_sub(ni->vpath, vj), da = cr_v3_sub(b->acc[i], b->acc[j]);
        cr_toi_result res = cr_toi_quadratic_paths(d, dv, da, r, span, eps, &s);
        if (res == CR_TOI_MISS) return INFINITY;
        t = ts + s < dt ? ts + s : dt;
        cr_pair_gap g = {w, i, j, r};
        double gap = cr_pair_gap_at(t, &g);
        if (res == CR_TOI_GRAZE || !(gap >= 0.0 && gap <= eps)) {
            double rate = cr_v3_len(dv) + cr_v3_len(da) * span;
            if (cr_toi_conservative(cr_pair_gap_at, &g, ts, dt, rate, eps, &t) != CR_TOI_HIT) return INFINITY;
        }
    }
    return t;
}

#endif
