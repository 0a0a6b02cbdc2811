/* What a ball on a surface leans on (its rest set, rolling_rest.c; seed
 * 001 §3.2: one contact force per contact), checked where the boiling
 * scene's deepest overlaps came from (docs/benchmarks.md, "a full rest
 * set"):
 *   - one direction per contact: a ball that leaned on one neighbour again
 *     and again (each resting impact of the pair adds it) still takes a
 *     second neighbour it comes to rest on, and its plan does not run into
 *     it (before: the set filled with the first six times, the second was
 *     dropped, and the ball rolled 0.4 mm into it in the step);
 *   - a flying ball that comes to rest on a surface ball inside the step
 *     leans on the wall it touches too: it does not slide into it (before:
 *     0.5 mm into it by the step's end);
 *   - two surface balls that touch without leaning on each other, whose
 *     velocities do not approach but whose plans do, lean on each other
 *     and end the step apart (before: no event, 0.1 mm into each other);
 *   - the hold itself (cr_rest_hold) keeps every contact, also for a ball
 *     wedged between two nearly opposite ones (before: 100 Gauss-Seidel
 *     sweeps left 0.39 m/s^2 into one, and a flying ball's held plan
 *     ended 0.089 mm inside the surface ball it leaned on).
 * A ball woken by an impact leaning on what it touches (events.c
 * lean_when_woken) is checked by tests/test_ball_sleep.c's rolled ball:
 * without it, that pile's deepest overlap is 0.113 mm against 0.001 mm
 * awake, over its limit of 0.1 mm more. */
#include <math.h>

#include "test_helpers.h"
#include "world_internal.h"

#define R_BOWL 0.5
#define R_BALL 0.03
#define SLOPE 25.0 /* degrees: the balls' place on the bowl */

/* A ball's centre on the bowl (the sphere of radius R_BOWL - R_BALL about
 * its centre) at polar angle th from the bottom and azimuth ph. */
static cr_vec3 on_bowl(double th, double ph)
{
    double rc = R_BOWL - R_BALL;
    return cr_v3(rc * sin(th) * cos(ph), rc * sin(th) * sin(ph), R_BOWL - rc * cos(th));
}

/* The polar angle between two touching balls on one meridian, and the
 * azimuth between two touching balls at polar angle th. */
static double meridian_step(void) { return 2.0 * asin(R_BALL / (R_BOWL - R_BALL)); }
static double circle_step(double th) { return 2.0 * asin(R_BALL / ((R_BOWL - R_BALL) * sin(th))); }

/* Ball B on the slope, ball K touching it downhill (where B's weight pulls
 * it), ball J touching it sideways. B leans on J seven times over (as seven
 * resting impacts of the pair add it), then on K, and is planned: it must
 * hold both, J once, and not move into K. */
static void test_one_direction_per_contact(void **state)
{
    (void)state;
    cr_world *w = make_bowl_world(R_BOWL);
    double th = SLOPE * 3.14159265358979 / 180.0;
    cr_vec3 xb = on_bowl(th, 0.0), xk = on_bowl(th - meridian_step(), 0.0), xj = on_bowl(th, circle_step(th));
    cr_body_id b = add_sphere(w, xb, cr_v3_zero(), R_BALL, 0.1, CR_INERTIA_SOLID, 0.5, 0.5);
    cr_body_id k = add_sphere(w, xk, cr_v3_zero(), R_BALL, 0.1, CR_INERTIA_SOLID, 0.5, 0.5);
    cr_body_id j = add_sphere(w, xj, cr_v3_zero(), R_BALL, 0.1, CR_INERTIA_SOLID, 0.5, 0.5);
    cr_stage_predict(w);
    cr_bodies *bs = &w->bodies;
    uint32_t i = b.index;
    assert_true(bs->surface[i] != CR_NO_SURFACE); /* bound by predict */
    bs->rest[i].count = 0;
    for (int n = 0; n < 7; ++n) cr_rest_add(w, i, cr_v3_normalize(cr_v3_sub(xb, xj)), j.index);
    cr_rest_add(w, i, cr_v3_normalize(cr_v3_sub(xb, xk)), k.index);
    cr_body_plan(w, i);
    /* K rolls off downhill itself: B's own way towards it is what K's
     * direction holds (rolling.c keep_off: (x1 - x0).n_K >= 0) */
    cr_vec3 n_k = cr_v3_normalize(cr_v3_sub(xb, xk));
    double towards_k = -cr_v3_dot(cr_v3_sub(cr_body_position_at(w, i, w->def.dt), xb), n_k);
    print_message("rest set of %u directions, the plan moves %.3g m towards the ball below\n", bs->rest[i].count,
                  towards_k);
    assert_int_equal(bs->rest[i].count, 2);
    if (!(towards_k <= 1e-9)) fail_msg("the plan runs %.3g m towards the ball it leans on", towards_k);
    cr_world_destroy(w);
}

/* Ball F, flying, touching a wall, 0.1 mm over ball S at the bowl's
 * bottom along 45 degrees, falls onto S (an impact slower than resting:
 * it leans on S from then on). Held by S alone, its weight pushes it
 * sideways into the wall beside it, which it touches without approaching:
 * no impact. It must lean on the wall too from the impact on (the resting
 * contacts stage gave it no walls: it leaned on nothing then) and end the
 * step out of the wall (before: 0.3 mm into it, and the end of the step
 * pushed it out into S). */
static void test_flying_leaner_takes_its_walls(void **state)
{
    (void)state;
    cr_world *w = make_bowl_world(R_BOWL);
    cr_vec3 xs = on_bowl(0.0, 0.0);
    cr_vec3 u = cr_v3_normalize(cr_v3(1, 0, 1));
    cr_vec3 xf = cr_v3_madd(xs, u, 2.0 * R_BALL + 1e-4);
    cr_plane_def pd = cr_default_plane_def();
    pd.point = cr_v3(xf.x + R_BALL, 0, 0);
    pd.normal = cr_v3(-1, 0, 0);
    assert_int_equal(cr_world_add_plane(w, &pd, NULL), CR_OK);
    cr_body_id s = add_sphere(w, xs, cr_v3_zero(), R_BALL, 0.1, CR_INERTIA_SOLID, 0.5, 0.5);
    cr_body_id f = add_sphere(w, xf, cr_v3_zero(), R_BALL, 0.1, CR_INERTIA_SOLID, 0.5, 0.5);
    cr_stage_predict(w);
    cr_bodies *bs = &w->bodies;
    assert_true(bs->surface[s.index] != CR_NO_SURFACE && bs->surface[f.index] == CR_NO_SURFACE);
    assert_int_equal(cr_stage_broad_phase(w), CR_OK);
    assert_int_equal(cr_stage_contacts(w), CR_OK);
    assert_int_equal(bs->rest[f.index].count, 0);
    assert_int_equal(cr_stage_events(w), CR_OK);
    cr_vec3 end = cr_body_position_at(w, f.index, w->def.dt);
    double in_wall = cr_penetration_sphere_plane(end, R_BALL, pd.point, pd.normal);
    print_message("flying ball leans on %u, ends the step %.3g m into the wall\n", bs->rest[f.index].count, in_wall);
    assert_true(bs->rest[f.index].count >= 1); /* the impact on S was resting */
    if (!(in_wall <= 1e-9)) fail_msg("the flying ball ends %.3g m into the wall it touches", in_wall);
    cr_world_destroy(w);
}

/* Balls T and S touching on one meridian of the bowl's slope, T uphill, not
 * leaning on each other (as after an impact that parted them faster than
 * resting: lean_after leaves such a pair out of its sets). Their velocities
 * do not approach, but their plans do: T, higher up the slope, slides down
 * faster than S (about 0.1 mm in the step). Projection moves no surface
 * ball, so the events must stop it: the touching pair whose plans close
 * leans on each other (cr_pair_plans_close, lean_after) and ends the step
 * apart (before: 0.1 mm into each other; the boiling scene's 0.457 mm at
 * 10,000 balls, docs/benchmarks.md, "touch"). */
static void test_touching_plans_that_close(void **state)
{
    (void)state;
    cr_world *w = make_bowl_world(R_BOWL);
    double th = SLOPE * 3.14159265358979 / 180.0;
    cr_vec3 xs = on_bowl(th, 0.0), xt = on_bowl(th + meridian_step(), 0.0);
    cr_body_id s = add_sphere(w, xs, cr_v3_zero(), R_BALL, 0.1, CR_INERTIA_SOLID, 0.5, 0.5);
    cr_body_id t = add_sphere(w, xt, cr_v3_zero(), R_BALL, 0.1, CR_INERTIA_SOLID, 0.5, 0.5);
    cr_stage_predict(w);
    cr_bodies *bs = &w->bodies;
    assert_true(bs->surface[s.index] != CR_NO_SURFACE && bs->surface[t.index] != CR_NO_SURFACE);
    assert_int_equal(cr_stage_broad_phase(w), CR_OK);
    assert_int_equal(cr_stage_contacts(w), CR_OK);
    bs->rest[s.index].count = bs->rest[t.index].count = 0; /* not leaning */
    cr_body_plan(w, s.index);
    cr_body_plan(w, t.index);
    double dt = w->def.dt, planned = cr_v3_len(cr_v3_sub(cr_body_position_at(w, t.index, dt),
                                                       cr_body_position_at(w, s.index, dt))) - 2.0 * R_BALL;
    assert_true(planned < -1e-5); /* the case: the plans run into each other */
    assert_int_equal(cr_stage_events(w), CR_OK);
    double gap = cr_v3_len(cr_v3_sub(cr_body_position_at(w, t.index, dt), cr_body_position_at(w, s.index, dt))) -
                 2.0 * R_BALL;
    print_message("planned %.3g m, after the events %.3g m apart at the step's end (%u event)\n", planned, gap,
                  bs->events[t.index]);
    if (!(gap >= -1e-9)) fail_msg("the touching balls end the step %.3g m into each other", -gap);
    cr_world_destroy(w);
}

/* Seed 001 §3.2: the held vector keeps each contact, a.n_k >= lo[k]. */
static void assert_holds(const cr_rest_set *r, const double *lo, cr_vec3 a0, cr_vec3 a)
{
    double scale = cr_v3_len(a0);
    for (uint32_t k = 0; k < r->count; ++k) scale = fmax(scale, fabs(lo[k]));
    for (uint32_t k = 0; k < r->count; ++k) {
        if (cr_v3_dot(a, r->n[k]) < lo[k] - 1e-9 * scale)
            fail_msg("contact %u: a.n %.3e below lo %.3e", k, cr_v3_dot(a, r->n[k]), lo[k]);
    }
    /* lo <= 0 here, so 0 is allowed: the nearest allowed vector is no
     * farther from a0 than 0 is */
    if (!(cr_v3_len(cr_v3_sub(a, a0)) <= cr_v3_len(a0) * (1.0 + 1e-9)))
        fail_msg("moved %.6g, farther than 0 (%.6g); count %u", cr_v3_len(cr_v3_sub(a, a0)), cr_v3_len(a0), r->count);
}

static void test_hold_keeps_every_contact(void **state)
{
    (void)state;
    /* The 3,000-ball boiling scene's step 63 (docs/benchmarks.md, "hold"):
     * flying ball 2398 between surface balls 2289 and 2400, 172 degrees
     * apart, and 2455 beside; gravity held */
    cr_rest_set r = {0};
    r.count = 3;
    r.n[0] = cr_v3_normalize(cr_v3(0.0433, 0.9746, 0.2198));
    r.n[1] = cr_v3_normalize(cr_v3(0.9950, 0.0529, 0.0849));
    r.n[2] = cr_v3_normalize(cr_v3(-0.1550, -0.9776, -0.1425));
    double lo[CR_REST_MAX] = {0.0};
    cr_vec3 g = cr_v3(0.0, 0.0, -9.81);
    assert_holds(&r, lo, g, cr_rest_hold(&r, lo, g));
    /* Many random sets, one pair nearly opposite in each (within 1 to 15
     * degrees), approaching limits lo <= 0 as a flying ball's plan has */
    uint64_t rng = 7;
    for (int c = 0; c < 2000; ++c) {
        cr_rest_set s = {0};
        double l[CR_REST_MAX] = {0.0};
        s.count = 2 + (uint32_t)(test_rand(&rng, 0.0, 1.0) * (CR_REST_MAX - 1));
        if (s.count > CR_REST_MAX) s.count = CR_REST_MAX;
        for (uint32_t k = 0; k < s.count; ++k) {
            s.n[k] = cr_v3_normalize(cr_v3(test_rand(&rng, 0.0, 1.0) - 0.5, test_rand(&rng, 0.0, 1.0) - 0.5, test_rand(&rng, 0.0, 1.0) - 0.5));
            l[k] = test_rand(&rng, 0.0, 1.0) < 0.5 ? 0.0 : -3.0 * test_rand(&rng, 0.0, 1.0);
        }
        double tilt = (1.0 + 14.0 * test_rand(&rng, 0.0, 1.0)) * 3.14159265358979323846 / 180.0;
        cr_vec3 side = cr_v3_normalize(cr_v3_cross(s.n[0], cr_v3(0.3, 0.5, 0.8)));
        s.n[1] = cr_v3_normalize(cr_v3_madd(cr_v3_scale(s.n[0], -cos(tilt)), side, sin(tilt)));
        cr_vec3 a = cr_v3(20.0 * (test_rand(&rng, 0.0, 1.0) - 0.5), 20.0 * (test_rand(&rng, 0.0, 1.0) - 0.5), -9.81);
        assert_holds(&s, l, a, cr_rest_hold(&s, l, a));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_direction_per_contact),
        cmocka_unit_test(test_flying_leaner_takes_its_walls),
        cmocka_unit_test(test_touching_plans_that_close),
        cmocka_unit_test(test_hold_keeps_every_contact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
