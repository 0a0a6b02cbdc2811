/* A flying ball squeezed between a wall and a ball on a surface stays out
 * of both. Position projection counts the surface ball immovable (it would
 * lift it, projection.c), so its single pass (seed 000 c.5) pushed the
 * flying ball out of the ball and into the wall, then out of the wall and
 * back into the ball, and the ball, planned to lean on the surface ball
 * alone, was driven into the wall again every step: in the boiling scene
 * such balls sat 3 to 4 mm deep (docs/benchmarks.md). Now the flying ball's
 * hold takes the walls it touches (rolling_rest.c) and worlds with surfaces
 * run at least CR_PROJECTION_SURFACE_PASSES projection passes.
 *
 * The case: a flat surface z = 0 and a wall x = 0; ball S on the surface,
 * its centre at x_S = r_S + gap, and ball F, flying, on S and against the
 * wall (x_F = r_F, touching S). With gap < 2 r_F, F cannot fall past S.
 * Over many random radii and gaps, at 60 and 120 steps a second, for two
 * simulated seconds, at the end of every step:
 *   - F is out of the wall and out of S within 1e-6 m (at fca9f78 F sat
 *     up to 8.55 mm deep, 92 um at the first step already; now 25 nm at
 *     most);
 *   - the total energy never grows by more than 1e-9 of the initial total
 *     a step (what holds F does no work; at fca9f78 up to 6.9e-3 a step,
 *     and 1.8e-3 with the projection passes but not the walls in the
 *     hold: the passes lift F out of S each step). */
#include <math.h>

#include "test_helpers.h"
#include "world_internal.h" /* CR_PROJECTION_TOLERANCE */

#define CASES 12

typedef struct squeeze {
    cr_world *w;
    cr_body_id s, f;
    double rs, rf;
} squeeze;

static squeeze make_squeeze(double hz, double rs, double rf, double gap)
{
    cr_world_def wd = cr_default_world_def();
    wd.dt = 1.0 / hz;
    wd.method = CR_METHOD_EVENT;
    wd.law = CR_LAW_ROLLING;
    squeeze q;
    q.w = make_world_def(&wd);
    q.rs = rs;
    q.rf = rf;
    add_flat_surface(q.w);
    add_plane(q.w, cr_v3(0, 0, 0), cr_v3(1, 0, 0));
    double xs = rs + gap, xf = rf;
    double dx = xs - xf, reach = rs + rf;
    double zf = rs + sqrt(reach * reach - dx * dx);
    q.s = add_sphere(q.w, cr_v3(xs, 0, rs), cr_v3(0, 0, 0), rs, 1000.0 * rs * rs * rs * 4.19, CR_INERTIA_SOLID, 0.5, 0.3);
    q.f = add_sphere(q.w, cr_v3(xf, 0, zf), cr_v3(0, 0, 0), rf, 1000.0 * rf * rf * rf * 4.19, CR_INERTIA_SOLID, 0.5, 0.3);
    return q;
}

static void check_squeeze(double hz, uint64_t *seed)
{
    double rs = test_rand(seed, 0.025, 0.04), rf = test_rand(seed, 0.025, 0.04);
    double gap = test_rand(seed, 0.1, 1.9) * rf;
    squeeze q = make_squeeze(hz, rs, rf, gap);
    double e0 = cr_world_energy(q.w).total, scale = fabs(e0);
    cr_ball_state state;
    cr_static_id on;
    assert_int_equal(cr_body_get_ball_state(q.w, q.f, &state, &on), CR_OK);
    assert_int_equal(state, CR_BALL_FLYING);
    double before = e0;
    for (int k = 0; k < (int)(2.0 * hz); ++k) {
        assert_int_equal(cr_world_step(q.w), CR_OK);
        cr_vec3 xs = state_of(q.w, q.s).position, xf = state_of(q.w, q.f).position;
        double into_s = rs + rf - cr_v3_len(cr_v3_sub(xs, xf)), into_wall = rf - xf.x;
        if (!(into_s <= 1e-6 && into_wall <= 1e-6))
            fail_msg("%g Hz, r_S %g, r_F %g, gap %g: step %d, F %.3g m into S and %.3g m into the wall", hz, rs, rf,
                     gap, k, into_s, into_wall);
        double e = cr_world_energy(q.w).total;
        if (!(e <= before + 1e-9 * scale))
            fail_msg("%g Hz, gap %g: step %d, energy grew %.17g -> %.17g J", hz, gap, k, before, e);
        before = e;
    }
    cr_world_destroy(q.w);
}

static void test_flying_ball_between_wall_and_surface_ball(void **state)
{
    (void)state;
    uint64_t seed = 2026;
    for (int c = 0; c < CASES; ++c) {
        check_squeeze(120.0, &seed);
        check_squeeze(60.0, &seed);
    }
}

/* A flying ball that ends a step in both the wall and the surface ball
 * (placed there, 0.5 to 3 mm into each) is out of both after one step,
 * within the tolerance at which projection's passes stop (CR_PROJECTION_
 * TOLERANCE of r_S + r_F, of 2 r_F against the wall). One pass leaves most
 * of it, whatever the hold does: the push out of S goes into the wall and
 * back. Left over at the worst of these cases: one pass (as at fca9f78)
 * 2.6 mm of 2.75 into S; 4 passes 0.48 mm, 8 passes 87 um into the wall
 * (a ball in a narrow wedge: alternating pushes close it slowly);
 * CR_PROJECTION_SURFACE_PASSES (16) meets the tolerance. */
static void test_projection_frees_a_ball_put_into_wall_and_surface_ball(void **state)
{
    (void)state;
    uint64_t seed = 7;
    for (int c = 0; c < CASES; ++c) {
        double rs = test_rand(&seed, 0.025, 0.04), rf = test_rand(&seed, 0.025, 0.04);
        double depth = test_rand(&seed, 0.5e-3, 3e-3), gap = test_rand(&seed, 0.3, 1.5) * rf;
        squeeze q = make_squeeze(120.0, rs, rf, gap);
        /* F moved into the wall and down along the wall into S, each by depth */
        cr_vec3 xs = state_of(q.w, q.s).position;
        double xf = rf - depth, dx = xs.x - xf, reach = rs + rf - depth;
        cr_body_state st = state_of(q.w, q.f);
        st.position = cr_v3(xf, 0, xs.z + sqrt(reach * reach - dx * dx));
        assert_int_equal(cr_body_set_state(q.w, q.f, &st), CR_OK);
        assert_int_equal(cr_world_step(q.w), CR_OK);
        cr_vec3 x = state_of(q.w, q.f).position;
        double into_s = rs + rf - cr_v3_len(cr_v3_sub(state_of(q.w, q.s).position, x)), into_wall = rf - x.x;
        double tol_s = CR_PROJECTION_TOLERANCE * (rs + rf), tol_wall = CR_PROJECTION_TOLERANCE * 2.0 * rf;
        if (!(into_s <= tol_s && into_wall <= tol_wall))
            fail_msg("r_S %g, r_F %g, gap %g, depth %g: F %.3g m into S and %.3g m into the wall (tolerances %.3g, %.3g)",
                     rs, rf, gap, depth, into_s, into_wall, tol_s, tol_wall);
        cr_world_destroy(q.w);
    }
}

/* F leans on S a little off the wall (0.05 to 0.5 mm) and rolls down S
 * into it within the first step, slowly: the wall impact brings it to rest
 * (e = 0 under the resting speed, seed 001 §3.2) mid-step, and from there
 * it must lean on the wall as well as on S. F was not touching the wall
 * when its walls were taken (the contacts stage, or its impact with S), and
 * the wall impact added the wall only to a ball on a surface: F's plan,
 * leaning on S alone, drove it on into the wall with no event (resting
 * contact), and projection, with S immovable on F's other side, could not
 * take it all out (10,000-ball boiling scene: 0.93 mm in, 0.185 mm left at
 * the step's end; here, before, up to 31 um into the wall and 34 um into S
 * over these cases; now 0). At the end of every step of two simulated
 * seconds F is within 1e-6 m of the wall and of S (as the test above). */
static void test_flying_ball_rolling_into_the_wall_leans_on_it(void **state)
{
    (void)state;
    uint64_t seed = 99;
    for (int c = 0; c < 2 * CASES; ++c) {
        double hz = c % 2 ? 60.0 : 120.0;
        double rs = test_rand(&seed, 0.025, 0.04), rf = test_rand(&seed, 0.025, 0.04);
        double gap = test_rand(&seed, 0.3, 1.5) * rf, off = test_rand(&seed, 0.05e-3, 0.5e-3);
        squeeze q = make_squeeze(hz, rs, rf, gap);
        /* F off the wall by `off`, still on S */
        cr_vec3 xs = state_of(q.w, q.s).position;
        double xf = rf + off, dx = xs.x - xf, reach = rs + rf;
        cr_body_state st = state_of(q.w, q.f);
        st.position = cr_v3(xf, 0, xs.z + sqrt(reach * reach - dx * dx));
        assert_int_equal(cr_body_set_state(q.w, q.f, &st), CR_OK);
        for (int k = 0; k < (int)(2.0 * hz); ++k) {
            assert_int_equal(cr_world_step(q.w), CR_OK);
            cr_vec3 x = state_of(q.w, q.f).position;
            double into_s = rs + rf - cr_v3_len(cr_v3_sub(state_of(q.w, q.s).position, x)), into_wall = rf - x.x;
            if (!(into_s <= 1e-6 && into_wall <= 1e-6))
                fail_msg("%g Hz, r_S %g, r_F %g, gap %g, off %g: step %d, F %.3g m into S and %.3g m into the wall", hz,
                         rs, rf, gap, off, k, into_s, into_wall);
        }
        cr_world_destroy(q.w);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_flying_ball_between_wall_and_surface_ball),
                                       cmocka_unit_test(test_projection_frees_a_ball_put_into_wall_and_surface_ball),
                                       cmocka_unit_test(test_flying_ball_rolling_into_the_wall_leans_on_it)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
