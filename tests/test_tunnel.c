/* No tunnelling at any speed (issue 2): a sphere of radius 0.01 at 1000 m/s
 * against a wall with dt = 0.01 (10 m per step) bounces back; two such
 * spheres head-on collide instead of passing through each other. */
#include "test_helpers.h"

static void test_fast_sphere_bounces_off_wall(void **state)
{
    (void)state;
    for (int m = 0; m < 2; ++m) {
        cr_world *w = make_world(cr_v3_zero(), 0.01, m ? CR_METHOD_EVENT : CR_METHOD_IMPULSE);
        add_plane(w, cr_v3(1.0, 0, 0), cr_v3(-1, 0, 0)); /* wall at x = 1, solid beyond */
        cr_body_id b = add_sphere(w, cr_v3(0, 0, 0), cr_v3(1000, 0, 0), 0.01, 1.0, CR_INERTIA_PARTICLE, 0.9, 0.0);
        for (int i = 0; i < 5; ++i) {
            assert_int_equal(cr_world_step(w), CR_OK);
            cr_body_state s = state_of(w, b);
            assert_true(s.position.x <= 1.0 - 0.01 + 1e-9); /* never beyond the wall */
        }
        cr_body_state s = state_of(w, b);
        assert_near(s.velocity.x, -900.0, 1e-9); /* -e v */
        /* Hit at t = 0.99/1000 s; since then it went back for 0.05 - that. */
        assert_near(s.position.x, 0.99 - 900.0 * (0.05 - 0.99e-3), 1e-9);
        cr_world_destroy(w);
    }
}

static void test_fast_spheres_meet_head_on(void **state)
{
    (void)state;
    for (int m = 0; m < 2; ++m) {
        cr_world *w = make_world(cr_v3_zero(), 0.01, m ? CR_METHOD_EVENT : CR_METHOD_IMPULSE);
        cr_body_id a = add_sphere(w, cr_v3(-5.003, 0, 0), cr_v3(1000, 0, 0), 0.01, 1.0, CR_INERTIA_SOLID, 1.0, 0.0);
        cr_body_id b = add_sphere(w, cr_v3(5.0, 0, 0), cr_v3(-1000, 0, 0), 0.01, 1.0, CR_INERTIA_SOLID, 1.0, 0.0);
        for (int i = 0; i < 10; ++i) {
            assert_int_equal(cr_world_step(w), CR_OK);
            cr_body_state sa = state_of(w, a), sb = state_of(w, b);
            assert_true(sb.position.x - sa.position.x >= 0.02 - 1e-9); /* never overlapping, never passed */
        }
        cr_body_state sa = state_of(w, a), sb = state_of(w, b);
        assert_near(sa.velocity.x, -1000.0, 1e-9); /* equal masses, e = 1: velocities exchanged */
        assert_near(sb.velocity.x, 1000.0, 1e-9);
        cr_world_destroy(w);
    }
}

/* A sphere that ends up behind a plane (here placed there) is pushed back
 * out, never lost (seed 000 signed penetration). */
static void test_behind_plane_is_pushed_back(void **state)
{
    (void)state;
    cr_world_def def = cr_default_world_def();
    def.gravity = cr_v3_zero();
    def.k_p = 1.0;
    cr_world *w = make_world_def(&def);
    add_plane(w, cr_v3_zero(), cr_v3(0, 0, 1));
    cr_body_id b = add_sphere(w, cr_v3(0, 0, -3.0), cr_v3_zero(), 0.1, 1.0, CR_INERTIA_PARTICLE, 0.5, 0.0);
    step_n(w, 1);
    assert_near(state_of(w, b).position.z, 0.1, 1e-12);
    cr_world_destroy(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fast_sphere_bounces_off_wall),
        cmocka_unit_test(test_fast_spheres_meet_head_on),
        cmocka_unit_test(test_behind_plane_is_pushed_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
