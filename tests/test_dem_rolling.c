/* The rolling resistance kernel (src/dem_rolling.h, LAMMPS's rolling sds)
 * on random contacts: below the slider's limit the force is the spring and
 * dashpot exactly (-k xi - gamma v, the history turned into the tangent
 * plane with its length kept, then advanced by v dt); above it the force has
 * the limit's length mu |F_n| (relative 1e-12) and the new history gives it
 * back through the spring and dashpot (within 1e-12 of the limit plus
 * the dashpot's force, which the history's rescale cancels); the
 * torque R* n x F lies in the tangent plane, opposes the relative spin when
 * the history starts at zero, and at the limit is mu R* |F_n|; and the
 * rolling velocity of a ball spinning on a bed points along its travel. */
#include <math.h>

#include "dem_rolling.h"
#include "test_helpers.h"

static cr_vec3 rand_unit(uint64_t *s)
{
    for (;;) {
        const cr_vec3 v = test_rand_vec(s, -1.0, 1.0);
        const double l = cr_v3_len(v);
        if (l > 0.1 && l < 1.0) return cr_v3_scale(v, 1.0 / l);
    }
}

static double dist(cr_vec3 a, cr_vec3 b) { return cr_v3_len(cr_v3_sub(a, b)); }

/* A ball spinning about +y on a bed below it (n = +z) rolls toward +x:
 * v_roll = R* w_y x, its travel (LAMMPS's sign; Wang eq. 31). */
static void test_velocity_direction(void **state)
{
    (void)state;
    const cr_vec3 v = cr_dem_rolling_velocity(cr_v3(0, 3, 0), cr_v3_zero(), cr_v3(0, 0, 1), 0.5);
    assert_true(v.x == 1.5 && v.y == 0.0 && v.z == 0.0);
    /* the same with the bed spinning the other way: only w_i - w_j counts */
    const cr_vec3 u = cr_dem_rolling_velocity(cr_v3(0, 1, 0), cr_v3(0, -2, 0), cr_v3(0, 0, 1), 0.5);
    assert_true(u.x == 1.5 && u.y == 0.0 && u.z == 0.0);
}

/* Turning keeps the length and leaves nothing along n. */
static void test_turn(void **state)
{
    (void)state;
    uint64_t seed = 5;
    for (int c = 0; c < 20000; ++c) {
        const cr_vec3 n = rand_unit(&seed), xi = test_rand_vec(&seed, -1e-3, 1e-3);
        const cr_vec3 t = cr_dem_rolling_turn(xi, n);
        assert_true(fabs(cr_v3_len(t) - cr_v3_len(xi)) <= 1e-12 * cr_v3_len(xi));
        assert_true(fabs(cr_v3_dot(t, n)) <= 1e-12 * cr_v3_len(xi));
    }
    const cr_vec3 along = cr_dem_rolling_turn(cr_v3(0, 0, 2), cr_v3(0, 0, 1));
    assert_true(along.x == 0.0 && along.y == 0.0 && along.z == 0.0);
}

static void test_spring_and_slider(void **state)
{
    (void)state;
    uint64_t seed = 17;
    int slid = 0, held = 0;
    for (int c = 0; c < 50000; ++c) {
        const dem_rolling_params p = {test_rand(&seed, 1e2, 1e5), test_rand(&seed, 0.0, 5.0),
                                      test_rand(&seed, 0.0, 0.5)};
        const double fn = test_rand(&seed, 0.0, 1000.0), dt = test_rand(&seed, 1e-6, 1e-4),
                     reff = test_rand(&seed, 1e-3, 1.0);
        const cr_vec3 n = rand_unit(&seed);
        const cr_vec3 wi = test_rand_vec(&seed, -50.0, 50.0), wj = test_rand_vec(&seed, -50.0, 50.0);
        const cr_vec3 v = cr_dem_rolling_velocity(wi, wj, n, reff);
        /* a history partly off the plane, as after the pair has turned */
        const cr_vec3 xi0 = test_rand_vec(&seed, -1e-3, 1e-3);
        cr_vec3 xi = xi0;
        const cr_vec3 f = cr_dem_rolling_force(&p, fn, n, v, dt, true, &xi);
        const double lim = p.mu * fn;
        const cr_vec3 h = cr_v3_add(cr_dem_rolling_turn(xi0, n), cr_v3_scale(v, dt));
        const cr_vec3 spring = cr_v3_sub(cr_v3_scale(h, -p.k), cr_v3_scale(v, p.gamma));
        assert_true(fabs(cr_v3_dot(xi, n)) <= 1e-12 * (cr_v3_len(xi) + (dt + p.gamma / p.k) * cr_v3_len(v)));
        if (cr_v3_len(spring) <= lim * (1.0 - 1e-9)) { /* held: the spring and dashpot */
            ++held;
            assert_true(dist(f, spring) <= 1e-12 * cr_v3_len(spring) + 1e-300);
            assert_true(dist(xi, h) <= 1e-12 * cr_v3_len(h));
        } else if (cr_v3_len(spring) > lim * (1.0 + 1e-9)) { /* sliding: at the limit */
            ++slid;
            assert_true(fabs(cr_v3_len(f) - lim) <= 1e-12 * lim);
            const cr_vec3 back = cr_v3_sub(cr_v3_scale(xi, -p.k), cr_v3_scale(v, p.gamma));
            assert_true(dist(back, f) <= 1e-12 * (lim + p.gamma * cr_v3_len(v)));
            /* the torque at the limit: mu R* |F_n|, in the tangent plane */
            const cr_vec3 t = cr_dem_rolling_torque(n, f, reff);
            assert_true(fabs(cr_v3_len(t) - lim * reff) <= 1e-12 * lim * reff);
            assert_true(fabs(cr_v3_dot(t, n)) <= 1e-12 * lim * reff);
        }
        /* without update the history is left and the force still capped */
        cr_vec3 kept = xi0;
        const cr_vec3 g = cr_dem_rolling_force(&p, fn, n, v, dt, false, &kept);
        assert_true(kept.x == xi0.x && kept.y == xi0.y && kept.z == xi0.z);
        assert_true(cr_v3_len(g) <= lim * (1.0 + 1e-12));
    }
    assert_true(held > 10000 && slid > 10000);
}

/* From zero history the torque on i works against w_i - w_j: the rolling
 * resistance only takes energy out. */
static void test_torque_opposes_spin(void **state)
{
    (void)state;
    uint64_t seed = 29;
    for (int c = 0; c < 20000; ++c) {
        const dem_rolling_params p = {test_rand(&seed, 1e2, 1e5), test_rand(&seed, 0.0, 5.0),
                                      test_rand(&seed, 0.0, 0.5)};
        const double reff = test_rand(&seed, 1e-3, 1.0);
        const cr_vec3 n = rand_unit(&seed), wi = test_rand_vec(&seed, -50.0, 50.0),
                      wj = test_rand_vec(&seed, -50.0, 50.0);
        const cr_vec3 v = cr_dem_rolling_velocity(wi, wj, n, reff);
        cr_vec3 xi = cr_v3_zero();
        const cr_vec3 f = cr_dem_rolling_force(&p, test_rand(&seed, 0.0, 100.0), n, v, 1e-5, true, &xi);
        const cr_vec3 t = cr_dem_rolling_torque(n, f, reff);
        assert_true(cr_v3_dot(t, cr_v3_sub(wi, wj)) <= 1e-12 * cr_v3_len(t) * cr_v3_len(cr_v3_sub(wi, wj)));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_velocity_direction),
        cmocka_unit_test(test_turn),
        cmocka_unit_test(test_spring_and_slider),
        cmocka_unit_test(test_torque_opposes_spin),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
