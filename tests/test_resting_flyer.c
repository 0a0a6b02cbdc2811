/* A flying ball that touches its surface and moves into it slower than the
 * resting speed is in resting contact (seed 001 §3.2, seed 004): events.c's
 * landing_time binds it at once instead of letting its free flight fall
 * behind the surface for the rest of the step, where the end-of-step guard
 * (after projection) pushed it out into a neighbour (the boiling scene's
 * deepest overlaps, docs/benchmarks.md).
 *   - set flying mid-step at gap 0 in a bowl with v.n = -0.03 m/s, a ball
 *     with a neighbour flying just above it ends the step on the surface,
 *     not overlapping the neighbour, and the step gains no energy;
 *   - a ball that takes off over a crest at gap 0 (its flight stays above
 *     the surface) is not bound again and again: it flies, with no impact. */
#include <math.h>

#include "test_helpers.h"
#include "world_internal.h"

#define R_BOWL 0.5
#define R_BALL 0.03
#define APART 1e-4 /* the neighbour's gap over the ball, m */

static double gap_to_surface(cr_world *w, cr_vec3 x)
{
    const cr_surface *s = cr_world_surface(w, 0);
    return cr_surface_closest(s, x, x.x, x.y, 1e-12).distance - R_BALL;
}

/* Ball B on the bowl's slope 25 degrees up, its neighbour A right above it
 * along B's normal (APART away), both still. After the step's predict B
 * (bound) is set flying from a third of the step on, at gap 0 with
 * v.n = -0.03 m/s (as an impact leaves such balls in the boiling scene),
 * and the step is run on. A falls onto B: that impact must be found, and B
 * must end on the surface, not pushed out into A after the events. */
static void test_resting_flyer_binds(void **state)
{
    (void)state;
    cr_world *w = make_bowl_world(R_BOWL);
    double th = 25.0 * 3.14159265358979 / 180.0;
    cr_vec3 c = cr_v3(0, 0, R_BOWL);
    cr_vec3 out = cr_v3(sin(th), 0, -cos(th)); /* from the bowl's centre to B's contact */
    cr_vec3 n = cr_v3_neg(out);                 /* B's surface normal, into the bowl */
    cr_vec3 xb = cr_v3_madd(c, out, R_BOWL - R_BALL);
    cr_vec3 xa = cr_v3_madd(xb, n, 2.0 * R_BALL + APART);
    double m = 0.1;
    cr_body_id b = add_sphere(w, xb, cr_v3_zero(), R_BALL, m, CR_INERTIA_SOLID, 0.5, 0.5);
    cr_body_id a = add_sphere(w, xa, cr_v3_zero(), R_BALL, m, CR_INERTIA_SOLID, 0.5, 0.5);

    cr_stage_predict(w);
    cr_bodies *bs = &w->bodies;
    uint32_t i = b.index;
    assert_true(bs->surface[i] != CR_NO_SURFACE); /* bound by predict */
    bs->surface[i] = CR_NO_SURFACE;
    bs->ball_state[i] = CR_BALL_FLYING;
    bs->t_local[i] = w->def.dt / 3.0;
    bs->v[i] = cr_v3_scale(n, -0.03);
    bs->w[i] = cr_v3_zero();
    cr_body_plan(w, i);
    double e0 = cr_world_energy(w).total;

    assert_int_equal(cr_stage_broad_phase(w), CR_OK);
    assert_int_equal(cr_stage_contacts(w), CR_OK);
    assert_int_equal(cr_stage_events(w), CR_OK);
    assert_int_equal(cr_stage_finish(w), CR_OK);

    cr_vec3 pb = state_of(w, b).position, pa = state_of(w, a).position;
    double behind = -gap_to_surface(w, pb);
    double overlap = 2.0 * R_BALL - cr_v3_len(cr_v3_sub(pa, pb));
    double e1 = cr_world_energy(w).total;
    print_message("ball %.3g m behind its surface, %.3g m into its neighbour, energy %.9g -> %.9g J\n", behind,
                  overlap, e0, e1);
    /* the neighbour fell 1.2 mm along B's normal in the step: without the
     * binding the guard left B 1.2 mm into it */
    if (!(behind <= 1e-7)) fail_msg("ball behind its surface by %.3g m", behind);
    if (!(overlap <= 5e-5)) fail_msg("ball %.3g m into its neighbour", overlap);
    if (!(e1 <= e0 + 1e-12 * fabs(e0))) fail_msg("energy gained: %.17g -> %.17g J", e0, e1);
    cr_world_destroy(w);
}

/* A ball over the top of a hill faster than the hill lets it stay
 * (seed 004 eq. 8: k_c |v|^2 > |g.n|) takes off at gap 0 moving along the
 * surface: it is touching, not moving into the surface, but its flight
 * stays above it, so it is left flying. Bound again at once, its plan
 * would fly it off again, each time an event, until the cap. */
static void test_takeoff_not_bound(void **state)
{
    (void)state;
    cr_world_def wd = cr_default_world_def();
    wd.dt = 1.0 / 60.0;
    wd.method = CR_METHOD_EVENT;
    cr_world *w = make_world_def(&wd);
    static const cr_hill hill = {0.1, 0.0, 0.0, 0.2};
    cr_surface_def sd = hills_def(&hill, 1, 1.0);
    sd.friction = 1.0;
    assert_int_equal(cr_world_add_surface(w, &sd, NULL), CR_OK);
    /* the top's curvature is 2.5 1/m: it holds a ball up to about 2 m/s */
    cr_body_id b = add_sphere(w, cr_v3(0, 0, 0.1 + R_BALL), cr_v3(3.0, 0, 0), R_BALL, 0.1, CR_INERTIA_SOLID, 0.5, 0.5);
    assert_int_equal(cr_world_step(w), CR_OK);
    const cr_step_stats *st = cr_world_stats(w);
    print_message("%lu events, %lu deferred, surface %d, %.3g m above\n", (unsigned long)st->events,
                  (unsigned long)st->events_deferred, (int)w->bodies.surface[b.index],
                  gap_to_surface(w, state_of(w, b).position));
    assert_true(st->events <= 2);
    assert_int_equal(st->events_deferred, 0);
    assert_true(w->bodies.surface[b.index] == CR_NO_SURFACE);
    assert_true(gap_to_surface(w, state_of(w, b).position) > 1e-4);
    cr_world_destroy(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resting_flyer_binds),
        cmocka_unit_test(test_takeoff_not_bound),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
