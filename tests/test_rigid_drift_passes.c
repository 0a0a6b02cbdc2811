/* The drift correction's own Gauss-Seidel passes (world options
 * drift_iterations and drift_tolerance, branch pyr9).
 *
 * A wall pyramid of 20 rows of cubes (0.1 m, 0.5 kg, e = 0, mu = 0.5; row k
 * holds 20 - k cubes, each row offset by half a cube: bench/peers' pyramid,
 * 210 cubes) on a floor, dt = 1/240, with only 3 passes of the contact
 * solve. Its islands are far over the direct method's bounds (240 rows for
 * the contact solve, 64 for the drift correction), so both solves are
 * Gauss-Seidel. With 3 passes the contact solve leaves the pile sagging; the
 * drift correction (seed 000 c.5's projection with k_p = 0.8, at position
 * level) takes the overlaps out again when its own system is solved, which
 * takes more passes than 3. Until pyr9 it ran the contact solve's count:
 * the pile then sinks 4.6 mm into itself within the 240 steps here; with
 * its own default of 50 passes (and the default drift_tolerance) 0.86 mm.
 *
 * The checks: the deepest overlap of every step (the world's
 * max_penetration, after the drift correction) stays under 1.5 mm with
 * drift_iterations 50, and the option is honoured: with drift_iterations 3,
 * the count the drift correction took before (main's rule: the contact
 * solve's pgs_iterations), the same pile overlaps deeper than 3 mm. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rigid_helpers.h"

#define ROWS 20
#define EDGE 0.1

static cr_world *pyramid(int pgs, int drift, double tolerance)
{
    cr_world_def def = cr_default_world_def();
    def.gravity = cr_v3(0, 0, -9.81);
    def.dt = 1.0 / 240.0;
    def.pgs_iterations = pgs;
    def.drift_iterations = drift;
    def.drift_tolerance = tolerance;
    cr_world *w = make_world_def(&def);
    add_plane(w, cr_v3_zero(), cr_v3(0, 0, 1));
    cr_vec3 half = cr_v3(0.5 * EDGE, 0.5 * EDGE, 0.5 * EDGE);
    for (int k = 0; k < ROWS; ++k)
        for (int j = 0; j < ROWS - k; ++j)
            add_box(w, half, cr_v3((j - 0.5 * (ROWS - k - 1)) * EDGE, 0.0, 0.5 * EDGE + k * EDGE), cr_q_identity(),
                    0.5, 0.0, 0.5);
    return w;
}

/* The deepest overlap over steps, in m (the default drift_tolerance). */
static double pyramid_overlap(int pgs, int drift, int steps)
{
    cr_world *w = pyramid(pgs, drift, cr_default_world_def().drift_tolerance);
    double deepest = 0.0;
    for (int n = 0; n < steps; ++n) {
        assert_int_equal(cr_world_step(w), CR_OK);
        deepest = fmax(deepest, cr_world_stats(w)->max_penetration);
    }
    cr_world_destroy(w);
    printf("pyramid of %d rows, %d contact passes, %d drift passes: deepest overlap %.4g mm over %d steps\n", ROWS,
           pgs, drift, 1e3 * deepest, steps);
    return deepest;
}

static void test_drift_passes_hold_the_pile(void **state)
{
    (void)state;
    double d = pyramid_overlap(3, 50, 240);
    if (!(d < 1.5e-3)) fail_msg("3 contact passes, 50 drift passes: deepest overlap %.4g mm, want < 1.5 mm", 1e3 * d);
}

static void test_drift_iterations_honoured(void **state)
{
    (void)state;
    double d = pyramid_overlap(3, 3, 240);
    if (!(d > 3e-3)) fail_msg("3 contact passes, 3 drift passes: deepest overlap %.4g mm, want > 3 mm", 1e3 * d);
}

/* The world's state hash after steps. */
static uint64_t pyramid_hash(int pgs, int drift, double tolerance, int steps)
{
    cr_world *w = pyramid(pgs, drift, tolerance);
    for (int n = 0; n < steps; ++n) assert_int_equal(cr_world_step(w), CR_OK);
    uint64_t h = cr_world_state_hash(w);
    cr_world_destroy(w);
    return h;
}

/* drift_tolerance ends the drift correction's passes after the first that
 * moved no contact by more than it: a tolerance of 1 m (no pass of this
 * pile moves anything by a metre) leaves one pass of the 50, the very same
 * bits as drift_iterations 1; a tolerance of 1e-300 only ends passes that
 * changed nothing, so the bits are those of every pass (tolerance 0); and
 * 1e-4 m ends some passes early in these 60 steps, while the pile settles
 * (other bits than tolerance 0; a stop that never came would give the
 * same). */
static void test_drift_tolerance_honoured(void **state)
{
    (void)state;
    assert_true(pyramid_hash(3, 50, 1.0, 60) == pyramid_hash(3, 1, 0.0, 60));
    assert_true(pyramid_hash(3, 50, 1e-300, 60) == pyramid_hash(3, 50, 0.0, 60));
    assert_true(pyramid_hash(3, 50, 1e-4, 60) != pyramid_hash(3, 50, 0.0, 60));
    assert_true(pyramid_hash(3, 50, 1.0, 60) != pyramid_hash(3, 50, 0.0, 60));
}

/* The world def refuses counts outside [1, 100000] and tolerances below 0
 * or not finite with the field and value named, and takes the bounds
 * themselves. */
static void test_drift_iterations_validated(void **state)
{
    (void)state;
    char msg[256];
    cr_world_def def = cr_default_world_def();
    assert_int_equal(def.drift_iterations, 50);
    const int bad[] = {0, -3, 100001};
    for (int k = 0; k < 3; ++k) {
        def.drift_iterations = bad[k];
        assert_int_equal(cr_world_def_validate(&def, msg, sizeof msg), CR_ERR_INVALID_ARGUMENT);
        char want[80];
        snprintf(want, sizeof want, "drift_iterations: must be in [1, 100000], got %d", bad[k]);
        assert_non_null(strstr(msg, want));
    }
    def.drift_iterations = 1;
    assert_int_equal(cr_world_def_validate(&def, msg, sizeof msg), CR_OK);
    def.drift_iterations = 100000;
    assert_int_equal(cr_world_def_validate(&def, msg, sizeof msg), CR_OK);
    def = cr_default_world_def();
    assert_true(def.drift_tolerance == 1e-5);
    const double worse[] = {-1e-9, INFINITY, NAN};
    for (int k = 0; k < 3; ++k) {
        def.drift_tolerance = worse[k];
        assert_int_equal(cr_world_def_validate(&def, msg, sizeof msg), CR_ERR_INVALID_ARGUMENT);
        assert_non_null(strstr(msg, "drift_tolerance: must be >= 0 and finite (0: every pass), got "));
    }
    def.drift_tolerance = 0.0;
    assert_int_equal(cr_world_def_validate(&def, msg, sizeof msg), CR_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_drift_passes_hold_the_pile),
                                       cmocka_unit_test(test_drift_iterations_honoured),
                                       cmocka_unit_test(test_drift_tolerance_honoured),
                                       cmocka_unit_test(test_drift_iterations_validated)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
