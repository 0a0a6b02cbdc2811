/* Newton's cradle in the rigid-body pipeline (issue 5, seed 003's colliding
 * contact): three equal touching balls, the first striking at v, e = 1, no
 * gravity or friction. Rounds (the seed's algorithm): the impulse runs down
 * the row, velocities (0, 0, v). Simultaneous: one system with the touching
 * contact, velocities (-v/3, 2v/3, 2v/3). Both keep momentum and energy. */
#include "rigid_helpers.h"

static void cradle(cr_collision_order order, double out[3])
{
    cr_world_def def = cr_default_world_def();
    def.gravity = cr_v3_zero();
    def.dt = 1e-3;
    def.collision_order = order;
    cr_world *w = make_world_def(&def);
    const double r = 0.1, v = 1.0;
    cr_body_id balls[3];
    for (int k = 0; k < 3; ++k)
        balls[k] = add_sphere(w, cr_v3(2 * r * k + (k == 0 ? -0.0005 : 0.0), 0, 0), cr_v3(k == 0 ? v : 0.0, 0, 0), r,
                              1.0, CR_INERTIA_SOLID, 1.0, 0.0);
    /* a static box far away makes this a rigid-body world */
    cr_body_def d = cr_default_body_def();
    cr_shape *s;
    char msg[128];
    assert_int_equal(cr_shape_create_box(cr_v3(0.1, 0.1, 0.1), &s, msg, sizeof msg), CR_OK);
    d.shape = CR_SHAPE_BOX;
    d.shape_ref = s;
    d.type = CR_BODY_STATIC;
    d.position = cr_v3(0, 100, 0);
    assert_int_equal(cr_world_add_body(w, &d, NULL), CR_OK);
    cr_shape_release(s);
    for (int i = 0; i < 5; ++i) assert_int_equal(cr_world_step(w), CR_OK);
    for (int k = 0; k < 3; ++k) out[k] = state_of(w, balls[k]).velocity.x;
    cr_world_destroy(w);
}

static void test_cradle_rounds(void **state)
{
    (void)state;
    double v[3];
    cradle(CR_ORDER_ROUNDS, v);
    assert_near(v[0], 0.0, 1e-9);
    assert_near(v[1], 0.0, 1e-9);
    assert_near(v[2], 1.0, 1e-9);
}

static void test_cradle_simultaneous(void **state)
{
    (void)state;
    double v[3];
    cradle(CR_ORDER_SIMULTANEOUS, v);
    assert_near(v[0], -1.0 / 3.0, 1e-9);
    assert_near(v[1], 2.0 / 3.0, 1e-9);
    assert_near(v[2], 2.0 / 3.0, 1e-9);
    assert_near(v[0] + v[1] + v[2], 1.0, 1e-12);
    assert_near(v[0] * v[0] + v[1] * v[1] + v[2] * v[2], 1.0, 1e-9);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cradle_rounds),
        cmocka_unit_test(test_cradle_simultaneous),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
