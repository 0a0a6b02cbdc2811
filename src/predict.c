/* Stage 1, predict: each body's motion over the coming step.
 *
 * Impulse method: the leapfrog kick. Velocities are advanced by the external
 * force first (v += g dt), the contact stage then removes what the contacts
 * forbid, and the drift moves bodies with the resulting velocity: impulses
 * and projections act at the half step, as seed 000 c.6 asks, so that
 * external forces stay balanced. The drift is linear (acc = 0).
 *
 * Event method: motion between impacts is exact under constant
 * acceleration. A body resting on a plane (touching, normal speed within the
 * resting speed) gets seed 001 §3.2's contact force f_c = -n.F_ext, set to
 * zero when it would pull, and friction at rest: static up to mu f_c, else
 * kinetic opposite the sliding velocity.
 *
 * Balls on a parametric surface are planned by seed 004's moving algorithm
 * in either method (rolling.c).
 */
#include "world_internal.h"

/* Seed 001 §3.2 for body i against plane k, adding to its accelerations. */
static void resting_plane_force(cr_world *w, uint32_t i, uint32_t k)
{
    cr_bodies *b = &w->bodies;
    const cr_plane_def *pl = &w->planes.def[k];
    cr_vec3 n = pl->normal;
    double r = b->radius[i];
    double gap = -cr_penetration_sphere_plane(b->x[i], r, pl->point, n);
    if (gap > cr_touch_margin(r) || fabs(cr_v3_dot(n, b->v[i])) > w->resting_speed) return;

    /* Seed 001 §3.2 starts from v_N = 0 (a collision with e = 0): a resting
     * body's small approaching speed is removed, or it would creep in. */
    double vn = cr_v3_dot(n, b->v[i]);
    if (vn < 0.0) b->v[i] = cr_v3_madd(b->v[i], n, -vn);

    double m = b->mass[i];
    double fc = -cr_v3_dot(n, cr_v3_scale(b->acc[i], m)); /* eq. 3 */
    if (!(fc > 0.0)) return;                                /* it would pull: release */
    b->acc[i] = cr_v3_madd(b->acc[i], n, fc / m);

    double mu = b->friction[i] * pl->friction;
    if (mu <= 0.0) return;
    cr_vec3 rc = cr_v3_scale(n, -r); /* contact point offset */
    double inv_i = b->inv_inertia[i];
    /* Tangential effective inverse mass at the contact point: 1/m + r^2/I. */
    double kt = 1.0 / m + r * r * inv_i;
    cr_vec3 slip = cr_v3_reject(cr_v3_add(b->v[i], cr_v3_cross(b->w[i], rc)), n);
    double slip_len = cr_v3_len(slip);
    cr_vec3 f;
    if (slip_len <= w->resting_speed * 1e-3) {
        /* At rest: the force that keeps the contact point from accelerating,
         * chopped to mu f_c when it is larger (seed 001 §3.2). */
        f = cr_v3_scale(cr_v3_reject(b->acc[i], n), -1.0 / kt);
        double fl = cr_v3_len(f);
        if (fl > mu * fc) f = cr_v3_scale(f, mu * fc / fl);
    } else {
        /* Sliding: mu f_c opposite the slip, never more than stops the slip
         * within the step (seed 000 c.4's clip, as a force). */
        double mag = fmin(mu * fc, slip_len / (kt * w->def.dt));
        f = cr_v3_scale(slip, -mag / slip_len);
    }
    b->acc[i] = cr_v3_madd(b->acc[i], f, 1.0 / m);
    b->alpha[i] = cr_v3_add(b->alpha[i], cr_v3_scale(cr_v3_cross(rc, f), inv_i));
}

void cr_body_predict_forces(cr_world *w, uint32_t i)
{
    cr_bodies *b = &w->bodies;
    b->acc[i] = b->alpha[i] = cr_v3_zero();
    if (!cr_slot_dynamic(b, i)) return;
    b->acc[i] = w->def.gravity;
    for (uint32_t k = 0; k < w->planes.count; ++k) resting_plane_force(w, i, k);
}

/* A free ball that touches a surface without moving off it (or into it
 * faster than resting) is on it from now on (seed 004: rolling, sliding or
 * still, decided by its plan). */
static void bind_to_surfaces(cr_world *w, uint32_t i)
{
    cr_bodies *b = &w->bodies;
    for (uint32_t k = 0; k < w->surfaces.count && b->surface[i] == CR_NO_SURFACE; ++k) {
        cr_vec3 n;
        double gap = cr_ball_surface_gap(w, i, k, b->x[i], &n, true);
        if (gap <= 1e-6 * b->radius[i] && fabs(cr_v3_dot(b->v[i], n)) <= cr_surface_bind_speed(w, b->v[i]))
            b->surface[i] = k;
    }
}

/* Body i's plan for the coming step. It reads the statics and writes body
 * i only (its closest points counted by cr_count_closest): the bodies are
 * planned over the world's workers (cr_run_balls). */
void cr_body_predict(cr_world *w, uint32_t i)
{
    cr_bodies *b = &w->bodies;
    if (!cr_slot_alive(b, i)) return;
    /* Parked (broad_sleep.c): asleep since before the last step's broad
     * phase, so planned asleep then, and nothing has touched it since (an
     * event or the user would have woken it): that plan stands. */
    if (cr_broad_sleeps(&w->broad, i, b->asleep[i])) return;
    bool event = w->def.method == CR_METHOD_EVENT;
    b->t_local[i] = 0.0;
    b->events[i] = 0;
    b->replanned[i] = 0;
    b->rest[i].count = b->rest[i].held = 0;
    /* a sleeping ball stays: cr_body_plan gives it no motion */
    bool dynamic = cr_slot_dynamic(b, i) && !b->asleep[i];
    if (dynamic && b->surface[i] == CR_NO_SURFACE && w->surfaces.count) bind_to_surfaces(w, i);
    /* The impulse method's kick; a surface ball's gravity is in its plan. */
    if (!event && dynamic && b->surface[i] == CR_NO_SURFACE) b->v[i] = cr_v3_madd(b->v[i], w->def.gravity, w->def.dt);
    cr_body_plan(w, i);
}

void cr_stage_predict(cr_world *w)
{
    if (w->surfaces.count) cr_ball_memo_reserve(w); /* without room a ball searches afresh: the same bits */
    cr_run_balls(w, cr_body_predict);
}
