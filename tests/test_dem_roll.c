/* Method dem's rolling resistance (cr_hooke k_roll, gamma_roll, mu_roll;
 * src/dem_rolling.h, LAMMPS's rolling sds) on whole worlds:
 * - a solid sphere (m, r) rolling on a frozen sphere so large that it is a
 *   floor: once the slider saturates (k_roll large), the rolling torque is
 *   mu_roll R* m g and, rolling without slipping (m a = F_t,
 *   I alpha = -r F_t - M, a = r alpha, I = 2/5 m r^2), the ball slows at
 *   a = (5/7) mu_roll g R* / r, within 2 % (0.05 % measured);
 * - on a slope with tan theta below mu_roll R* / r it holds still (it
 *   creeps only by the springs' stretch: 0.11 mm in 1 s, under 1 mm
 *   asked, where without the resistance it rolls 8.8 cm); above, it rolls down at
 *   (5/7) g (sin theta - mu_roll (R* / r) cos theta), within 2 %;
 * - 1,152 free spheres packed with overlaps and spun at random, without
 *   gravity or tangential forces: the rolling torques come in pairs
 *   (T_i = -T_j) and the normal forces are central, so the sum of the spins
 *   stays put (within 1e-9 of the sum of their sizes) while they slow
 *   (pairs across work items included: their second body's torque goes
 *   through its pf row);
 * - the chute (tests/dem_chute.h) with rolling gives the same bits on 1 and
 *   2 workers, and other bits than without (the torque acts). */
#include <math.h>

#include "dem_chute.h"
#include "test_helpers.h"

enum { CHUTE_STEPS = 300 };

static const double M = 1.0, RB = 0.5, FLOOR = 1e4, DT = 1e-4, G = 9.81, MU_ROLL = 0.05;

static cr_body_id add_ball(cr_world *w, cr_body_type type, cr_vec3 x, cr_vec3 v, cr_vec3 wv, double r)
{
    cr_body_def b = cr_default_body_def();
    b.type = type;
    b.position = x;
    b.velocity = v;
    b.angular_velocity = wv;
    b.radius = r;
    b.mass = M;
    b.inertia_kind = CR_INERTIA_SOLID;
    cr_body_id id;
    assert_int_equal(cr_world_add_body(w, &b, &id), CR_OK);
    return id;
}

static double pos_x(cr_world *w, cr_body_id id)
{
    cr_body_state s;
    assert_int_equal(cr_body_get_state(w, id, &s), CR_OK);
    assert_true(s.position.z > 0.0); /* still on the floor */
    return s.position.x;
}

/* The ball on the floor under gravity tilted by theta (along +x), started
 * rolling at v0 along +x; x(T) and the acceleration from x(T) - 2 x(T/2). */
static double floor_run(double tan_theta, double v0, double k_roll, double *accel)
{
    const double th = atan(tan_theta), T = 1.0;
    cr_world_def d = test_dem_def(DT, cr_v3(G * sin(th), 0, -G * cos(th)), 1e4, 200.0);
    d.hooke.gamma_t = 200.0;
    d.hooke.k_roll = k_roll;
    d.hooke.gamma_roll = k_roll > 0.0 ? 0.05 : 0.0; /* damps the rolling spring's swing */
    d.hooke.mu_roll = k_roll > 0.0 ? MU_ROLL : 0.0;
    cr_world *w = make_world_def(&d);
    add_ball(w, CR_BODY_KINEMATIC, cr_v3(0, 0, -FLOOR), cr_v3_zero(), cr_v3_zero(), FLOOR);
    const double delta = M * G * cos(th) / d.hooke.kn; /* resting overlap */
    const cr_body_id p = add_ball(w, CR_BODY_DYNAMIC, cr_v3(0, 0, RB - delta), cr_v3(v0, 0, 0),
                                  cr_v3(0, v0 / RB, 0), RB);
    const int n = (int)(T / DT + 0.5);
    double x_half = 0.0;
    for (int k = 1; k <= n; ++k) {
        assert_int_equal(cr_world_step(w), CR_OK);
        if (k == n / 2) x_half = pos_x(w, p);
    }
    const double x = pos_x(w, p);
    *accel = 4.0 * (x - 2.0 * x_half) / (T * T);
    cr_world_destroy(w);
    return x;
}

static double reff(void) { return RB * FLOOR / (RB + FLOOR); }

static void test_rolling_slows(void **state)
{
    (void)state;
    double a;
    const double x = floor_run(0.0, 1.0, 1e4, &a), want = -5.0 / 7.0 * MU_ROLL * G * reff() / RB;
    print_message("rolling at 1 m/s: x(1 s) = %.5g, a = %.5g (closed form %.5g)\n", x, a, want);
    assert_true(fabs(a - want) < 0.02 * fabs(want));
}

static void test_slope_hold_and_roll(void **state)
{
    (void)state;
    const double limit = MU_ROLL * reff() / RB; /* tan theta at which the slider gives */
    double a;
    double x = floor_run(0.5 * limit, 0.0, 1e4, &a);
    print_message("below the limit: x(1 s) = %.3g\n", x);
    assert_true(fabs(x) < 1e-3);
    const double free_x = floor_run(0.5 * limit, 0.0, 0.0, &a); /* the same slope without it */
    print_message("without rolling resistance: x(1 s) = %.3g, a = %.4g\n", free_x, a);
    assert_true(free_x > 0.01);
    x = floor_run(2.0 * limit, 0.0, 1e4, &a);
    const double th = atan(2.0 * limit), want = 5.0 / 7.0 * G * (sin(th) - limit * cos(th));
    print_message("above the limit: a = %.5g (closed form %.5g)\n", a, want);
    assert_true(fabs(a - want) < 0.02 * want);
}

static void test_spin_conserved(void **state)
{
    (void)state;
    cr_world_def d = test_dem_def(1e-4, cr_v3_zero(), 2e5, 50.0);
    d.hooke.kt = 0.0, d.hooke.mu = 0.0;
    d.hooke.k_roll = 2e4, d.hooke.gamma_roll = 1.0, d.hooke.mu_roll = 0.2;
    cr_world *w = make_world_def(&d);
    uint64_t seed = 7;
    cr_body_def b = cr_default_body_def();
    b.radius = 0.5, b.mass = 1.0, b.inertia_kind = CR_INERTIA_SOLID;
    for (int ix = 0; ix < 12; ++ix)
        for (int iy = 0; iy < 12; ++iy)
            for (int iz = 0; iz < 8; ++iz) {
                b.position = cr_v3(0.97 * ix, 0.97 * iy, 0.97 * iz);
                b.angular_velocity = test_rand_vec(&seed, -5, 5);
                assert_int_equal(cr_world_add_body(w, &b, NULL), CR_OK);
            }
    cr_vec3 sum0 = cr_v3_zero(), sum = cr_v3_zero();
    double size0 = 0.0, size = 0.0;
    for (int s = 0; s <= 200; ++s) {
        if (s) assert_int_equal(cr_world_step(w), CR_OK);
        if (s != 0 && s != 200) continue;
        cr_vec3 *acc = s ? &sum : &sum0;
        double *len = s ? &size : &size0;
        for (uint32_t k = 0; k < cr_world_body_count(w); ++k) {
            cr_body_state st;
            assert_int_equal(cr_body_get_state(w, cr_world_body_at(w, k), &st), CR_OK);
            *acc = cr_v3_add(*acc, st.angular_velocity), *len += cr_v3_len(st.angular_velocity);
        }
    }
    print_message("spins: sum %.6g %.6g %.6g -> %.6g %.6g %.6g, sizes %.6g -> %.6g\n", sum0.x, sum0.y, sum0.z, sum.x,
                  sum.y, sum.z, size0, size);
    assert_true(cr_v3_len(cr_v3_sub(sum, sum0)) <= 1e-9 * size0);
    assert_true(size < 0.9 * size0); /* the rolling resistance acted */
    cr_world_destroy(w);
}

static void test_chute_threads(void **state)
{
    (void)state;
    uint64_t h[3];
    for (int k = 0; k < 3; ++k) {
        cr_world *w = test_chute_rolling(k == 1 ? 2u : 1u, NULL, CR_DEM_HOOKE, k < 2 ? 2e5 * 2.0 / 7.0 : 0.0,
                                         k < 2 ? 0.1 : 0.0);
        for (int s = 0; s < CHUTE_STEPS; ++s) assert_int_equal(cr_world_step(w), CR_OK);
        h[k] = cr_world_state_hash(w);
        cr_world_destroy(w);
    }
    assert_true(h[0] == h[1]);
    assert_true(h[0] != h[2]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rolling_slows),
        cmocka_unit_test(test_slope_hold_and_roll),
        cmocka_unit_test(test_spin_conserved),
        cmocka_unit_test(test_chute_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
