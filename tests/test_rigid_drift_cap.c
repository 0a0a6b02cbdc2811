/* The drift correction's lift out of an overlap is capped at
 * drift_max_speed dt a step (src/rigid_finish.c, lift_target;
 * docs/physics/rigid.md, "Finish"). A box resting flat on a plane in an
 * overlap d: the velocity solve holds it (resting contact, target 0), so
 * only the correction moves it, and the overlap follows in closed form
 *   d' = d - min(k_p d, drift_max_speed dt)
 * step by step: the box rises by exactly that (so never by more than the
 * cap), ends touching, and never moves with any speed (no pop). Without the
 * cap the first step lifts it by k_p d. */
#include <stdio.h>
#include <string.h>

#include "rigid_helpers.h"

#define G 9.81

/* Steps a unit box (half 0.5 m, 2 kg) put d deep into a plane; returns the
 * largest |rise - closed form| over the steps; *first_rise the first step's
 * rise, *depth the overlap at the end, *ke the largest kinetic energy after
 * any step, *worst_rise the largest rise. */
static double overlap_run(double max_speed, double d, int steps, double *first_rise, double *depth, double *ke,
                          double *worst_rise)
{
    cr_world_def def = cr_default_world_def();
    def.gravity = cr_v3(0, 0, -G);
    def.dt = 1.0 / 60.0;
    def.method = CR_METHOD_IMPULSE;
    def.drift_max_speed = max_speed;
    cr_world *w = make_world_def(&def);
    add_plane(w, cr_v3_zero(), cr_v3(0, 0, 1));
    const double h = 0.5;
    cr_body_id box = add_box(w, cr_v3(h, h, h), cr_v3(0.1, -0.2, h - d), cr_q_identity(), 2.0, 0.0, 0.5);
    double over = d, worst = 0.0, cap = max_speed * def.dt;
    *ke = 0.0;
    *worst_rise = 0.0;
    double z = h - d;
    for (int i = 0; i < steps; ++i) {
        assert_int_equal(cr_world_step(w), CR_OK);
        cr_body_state s = state_of(w, box);
        double lift = def.k_p * over;
        if (cap > 0.0 && lift > cap) lift = cap;
        over -= lift;
        double rise = s.position.z - z;
        if (i == 0) *first_rise = rise;
        *worst_rise = fmax(*worst_rise, rise);
        worst = fmax(worst, fabs(rise - lift));
        z = s.position.z;
        *ke = fmax(*ke, cr_world_energy(w).kinetic);
    }
    *depth = h - z;
    cr_world_destroy(w);
    return worst;
}

static void test_lift_is_capped(void **state)
{
    (void)state;
    const double d = 0.05, speed = 0.3, cap = speed / 60.0; /* 5 mm a step */
    double first, depth, ke, worst_rise;
    double off = overlap_run(speed, d, 120, &first, &depth, &ke, &worst_rise);
    printf("capped at %.3g m/s: first rise %.4g m (cap %.4g), largest %.4g, off the closed form by %.3g m, "
           "overlap left %.3g m, kinetic energy at most %.3g J\n",
           speed, first, cap, worst_rise, off, depth, ke);
    assert_true(worst_rise <= cap + 1e-12);
    assert_true(off < 1e-9);         /* the closed form, step by step */
    assert_true(fabs(depth) < 1e-9); /* touching */
    assert_true(ke < 1e-12);         /* no pop: it never moves with any speed */
    /* the default (1 m/s: 16.7 mm a step at 60 Hz) caps this overlap too */
    off = overlap_run(cr_default_world_def().drift_max_speed, d, 120, &first, &depth, &ke, &worst_rise);
    assert_true(worst_rise <= 1.0 / 60.0 + 1e-12 && off < 1e-9 && fabs(depth) < 1e-9 && ke < 1e-12);
    /* No cap (0): k_p of the overlap at once, 40 mm, what the fix takes out */
    off = overlap_run(0.0, d, 120, &first, &depth, &ke, &worst_rise);
    printf("no cap: first rise %.4g m (k_p d = %.4g)\n", first, cr_default_world_def().k_p * d);
    assert_true(off < 1e-9);
    assert_true(first > 7.0 * cap);
}

static void test_bad_max_speed(void **state)
{
    (void)state;
    char msg[256];
    cr_world_def def = cr_default_world_def();
    assert_true(def.drift_max_speed == 1.0);
    const double bad[] = {-1e-9, INFINITY, NAN};
    for (int k = 0; k < 3; ++k) {
        def.drift_max_speed = bad[k];
        assert_int_equal(cr_world_def_validate(&def, msg, sizeof msg), CR_ERR_INVALID_ARGUMENT);
        assert_non_null(strstr(msg, "drift_max_speed: must be >= 0 and finite (0: no cap), got "));
    }
    def.drift_max_speed = 0.0;
    assert_int_equal(cr_world_def_validate(&def, msg, sizeof msg), CR_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_lift_is_capped), cmocka_unit_test(test_bad_max_speed)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
