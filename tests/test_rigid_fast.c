/* No tunnelling for rigid bodies (issue 5, seed 001 §3.3): a box at
 * 1000 m/s against a 1 cm plate, over steps of 1 ms (a metre a step), is
 * stopped by the plate; so is a ball. Contacts enter the system while still
 * apart (the speculative margin covers what a pair closes in a step), and the
 * multiplier system lets them close the gap, never pass it. */
#include "rigid_helpers.h"

static cr_body_id add_plate(cr_world *w)
{
    cr_shape *s;
    char msg[128];
    assert_int_equal(cr_shape_create_box(cr_v3(0.005, 1.0, 1.0), &s, msg, sizeof msg), CR_OK);
    cr_body_def d = cr_default_body_def();
    d.shape = CR_SHAPE_BOX;
    d.shape_ref = s;
    d.type = CR_BODY_STATIC;
    d.restitution = 1.0; /* the ball's own coefficient decides */
    d.position = cr_v3(0, 0, 0);
    cr_body_id id;
    assert_int_equal(cr_world_add_body(w, &d, &id), CR_OK);
    cr_shape_release(s);
    return id;
}

static void test_fast_box_stops_at_thin_plate(void **state)
{
    (void)state;
    cr_world *w = make_world(cr_v3_zero(), 1e-3, CR_METHOD_IMPULSE);
    add_plate(w);
    cr_body_id box = add_box(w, cr_v3(0.05, 0.05, 0.05), cr_v3(-3.3, 0.01, 0.02), cr_q_identity(), 1.0, 0.0, 0.0);
    cr_body_state s = state_of(w, box);
    s.velocity = cr_v3(1000.0, 0, 0);
    assert_int_equal(cr_body_set_state(w, box, &s), CR_OK);
    for (int i = 0; i < 20; ++i) {
        assert_int_equal(cr_world_step(w), CR_OK);
        /* never past the plate's near face (x = -0.005) by more than rounding */
        assert_true(state_of(w, box).position.x + 0.05 <= -0.005 + 1e-9);
    }
    assert_true(state_of(w, box).velocity.x <= 1e-9); /* stopped, e = 0 */
    cr_world_destroy(w);
}

static void test_fast_ball_bounces_off_thin_plate(void **state)
{
    (void)state;
    cr_world *w = make_world(cr_v3_zero(), 1e-3, CR_METHOD_IMPULSE);
    add_plate(w);
    cr_body_id ball = add_sphere(w, cr_v3(-2.7, 0, 0), cr_v3(1000.0, 0, 0), 0.05, 1.0, CR_INERTIA_SOLID, 1.0, 0.0);
    for (int i = 0; i < 20; ++i) {
        assert_int_equal(cr_world_step(w), CR_OK);
        assert_true(state_of(w, ball).position.x + 0.05 <= -0.005 + 1e-9);
    }
    /* e = 1: it comes back with its speed */
    assert_near(state_of(w, ball).velocity.x, -1000.0, 1e-6);
    cr_world_destroy(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fast_box_stops_at_thin_plate),
        cmocka_unit_test(test_fast_ball_bounces_off_thin_plate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
