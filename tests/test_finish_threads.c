/* The finish's deepest-overlap stat (cr_max_penetration, src/finish.c)
 * over the workers: the same value as a scan of every broad pair and every
 * body against the planes, for 1, 2 and 3 workers and a task system that
 * runs the items backwards, with the deepest overlap placed in the last
 * work item of the pairs, then of the bodies, then in the first.
 * The finish's finiteness test over the workers (check_finite_spread): a
 * non-finite velocity in the first, a middle or the last slot stops the
 * world with the error naming that body, for the same worker counts. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "test_helpers.h"
#include "world_internal.h"

#define BALLS 9000 /* over 2 x 4,096 pairs and bodies: the items path */

/* The same quantity by one scan in the test. */
static double scan(cr_world *w)
{
    const cr_bodies *b = &w->bodies;
    double worst = 0.0;
    for (uint32_t k = 0; k < w->broad.pair_count; ++k) {
        uint32_t i = w->broad.pairs[k].a, j = w->broad.pairs[k].b;
        double d = b->radius[i] + b->radius[j] - cr_v3_len(cr_v3_sub(b->x[i], b->x[j]));
        if (d > worst) worst = d;
    }
    for (uint32_t i = 0; i < b->slot_count; ++i)
        for (uint32_t k = 0; k < w->planes.count; ++k) {
            double d = cr_penetration_sphere_plane(b->x[i], b->radius[i], w->planes.def[k].point, w->planes.def[k].normal);
            if (d > worst) worst = d;
        }
    return worst;
}

/* BALLS balls of radius 0.04 touching on a 95 x 95 grid above the floor z = 0, at
 * rest; ball `deep` pushed into its neighbour (pair) or into the floor. */
static cr_world *grid(uint32_t workers, int *enqueued, uint32_t deep, bool floor)
{
    cr_world_def d = cr_default_world_def();
    d.gravity = cr_v3_zero();
    d.dt = 0.01;
    test_use_tasks(&d, workers, enqueued);
    cr_world *w = make_world_def(&d);
    add_plane(w, cr_v3_zero(), cr_v3(0, 0, 1));
    for (uint32_t i = 0; i < BALLS; ++i) {
        cr_vec3 x = cr_v3(0.08 * (i % 95), 0.08 * (i / 95), 0.5);
        if (i == deep) x = floor ? cr_v3(x.x, x.y, 0.03 - 0.005 * (i % 3)) : cr_v3(x.x - 0.03 - 0.001 * (i % 3), x.y, x.z);
        add_sphere(w, x, cr_v3_zero(), 0.04, 1.0, CR_INERTIA_SOLID, 0.5, 0.3);
    }
    cr_stage_predict(w);
    assert_int_equal(cr_stage_broad_phase(w), CR_OK);
    return w;
}

static void test_deepest_any_workers(void **state)
{
    (void)state;
    const uint32_t deep[] = {BALLS - 1, BALLS - 2, 1, 4095, 4096};
    for (size_t c = 0; c < sizeof deep / sizeof deep[0]; ++c)
        for (int floor = 0; floor < 2; ++floor) {
            int enqueued = 0;
            cr_world *w[4] = {grid(1, NULL, deep[c], floor), grid(2, NULL, deep[c], floor),
                              grid(3, NULL, deep[c], floor), grid(2, &enqueued, deep[c], floor)};
            double want = scan(w[0]);
            assert_true(want > 0.005); /* the pushed ball: the deepest */
            assert_true(w[0]->broad.pair_count > 4096 || floor);
            for (int k = 0; k < 4; ++k) {
                double got = cr_max_penetration(w[k]);
                assert_true(fabs(got - want) <= 1e-15); /* one scan's rounding */
                assert_memory_equal(&got, &(double){cr_max_penetration(w[0])}, sizeof got);
            }
            assert_true(enqueued > 0);
            for (int k = 0; k < 4; ++k) cr_world_destroy(w[k]);
        }
}

static void test_nonfinite_any_workers(void **state)
{
    (void)state;
    const uint32_t bad[] = {0, 4095, 4096, BALLS - 1};
    for (size_t c = 0; c < sizeof bad / sizeof bad[0]; ++c) {
        int enqueued = 0;
        cr_world *w[4] = {grid(1, NULL, 1, false), grid(2, NULL, 1, false), grid(3, NULL, 1, false),
                          grid(2, &enqueued, 1, false)};
        char want[64];
        snprintf(want, sizeof want, "body %u: non-finite velocity", bad[c]);
        for (int k = 0; k < 4; ++k) {
            w[k]->bodies.v[bad[c]].y = NAN;
            assert_int_equal(cr_stage_finish(w[k]), CR_ERR_NON_FINITE);
            assert_non_null(strstr(cr_world_last_error(w[k]), want));
            cr_world_destroy(w[k]);
        }
        assert_true(enqueued > 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_deepest_any_workers),
        cmocka_unit_test(test_nonfinite_any_workers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
