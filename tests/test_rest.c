/* A ball resting on the floor for 10 s neither sinks nor jitters (issue 2),
 * and a stack of three balls stays stacked. */
#include "test_helpers.h"

static void test_ball_rests(void **state)
{
    (void)state;
    for (int m = 0; m < 2; ++m) {
        cr_world *w = make_world(cr_v3(0, 0, -9.81), 1e-3, m ? CR_METHOD_EVENT : CR_METHOD_IMPULSE);
        add_plane(w, cr_v3_zero(), cr_v3(0, 0, 1));
        cr_body_id b = add_sphere(w, cr_v3(0.3, -0.2, 0.1), cr_v3_zero(), 0.1, 0.3, CR_INERTIA_SOLID, 0.8, 0.5);
        double max_dz = 0.0, max_v = 0.0;
        for (int i = 0; i < 10000; ++i) {
            assert_int_equal(cr_world_step(w), CR_OK);
            cr_body_state s = state_of(w, b);
            max_dz = fmax(max_dz, fabs(s.position.z - 0.1));
            max_v = fmax(max_v, cr_v3_len(s.velocity));
        }
        assert_true(max_dz < 1e-9); /* does not sink */
        assert_true(max_v < 1e-9);  /* does not jitter */
        cr_world_destroy(w);
    }
}

static void test_stack_stays(void **state)
{
    (void)state;
    cr_world *w = make_world(cr_v3(0, 0, -9.81), 1e-3, CR_METHOD_IMPULSE);
    add_plane(w, cr_v3_zero(), cr_v3(0, 0, 1));
    cr_body_id b[3];
    for (int k = 0; k < 3; ++k)
        b[k] = add_sphere(w, cr_v3(0, 0, 0.1 + 0.2 * k), cr_v3_zero(), 0.1, 1.0, CR_INERTIA_SOLID, 0.5, 0.5);
    step_n(w, 5000);
    for (int k = 0; k < 3; ++k) {
        cr_body_state s = state_of(w, b[k]);
        assert_near(s.position.z, 0.1 + 0.2 * k, 1e-4);
        assert_near(s.position.x, 0.0, 1e-9);
        assert_true(cr_v3_len(s.velocity) < 1e-3);
    }
    cr_world_destroy(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ball_rests),
        cmocka_unit_test(test_stack_stays),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
