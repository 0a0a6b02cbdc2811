/* Impacts in the world under both laws. A spinning ball hitting the floor:
 * for a sphere the collision matrix has no normal-tangent coupling, so the
 * exact law of seed 002 and the clipped Newton law agree, and both match
 * the closed form: the friction impulse is mu (1+e) m |v_n| while sliding
 * lasts, else the one that brings the contact point to rest (rolling,
 * v = 5/7 of the initial slip for a solid ball starting without spin). */
#include "test_helpers.h"

static cr_body_state throw_ball(cr_law law, cr_vec3 v, cr_vec3 spin, double mu)
{
    cr_world_def def = cr_default_world_def();
    def.gravity = cr_v3_zero();
    def.method = CR_METHOD_EVENT;
    def.law = law;
    cr_world *w = make_world_def(&def);
    add_plane(w, cr_v3_zero(), cr_v3(0, 0, 1));
    cr_body_def d = cr_default_body_def();
    d.position = cr_v3(0, 0, 0.2);
    d.velocity = v;
    d.angular_velocity = spin;
    d.radius = 0.1;
    d.mass = 2.0;
    d.restitution = 0.6;
    d.friction = mu;
    cr_body_id id;
    assert_int_equal(cr_world_add_body(w, &d, &id), CR_OK);
    step_n(w, 100); /* 0.1 s: one bounce at t = 0.05 s */
    cr_body_state s = state_of(w, id);
    assert_int_equal(cr_world_stats(w)->law_fallbacks, 0);
    cr_world_destroy(w);
    return s;
}

static void test_sliding_impact(void **state)
{
    (void)state;
    /* v_n = -2, slip 3: mu (1+e) |v_n| = 0.1 * 1.6 * 2 = 0.32 < 5/7... slides. */
    for (int law = 0; law < 2; ++law) {
        cr_body_state s = throw_ball(law ? CR_LAW_STRONGE : CR_LAW_NEWTON, cr_v3(3, 0, -2), cr_v3_zero(), 0.1);
        assert_near(s.velocity.z, 0.6 * 2.0, 1e-9);
        assert_near(s.velocity.x, 3.0 - 0.1 * 1.6 * 2.0, 1e-6);
        /* The friction impulse spins it: dw = r x p / I. */
        double I = 0.4 * 2.0 * 0.01;
        assert_near(s.angular_velocity.y, 0.1 * (0.1 * 1.6 * 2.0 * 2.0) / I, 1e-6);
    }
}

static void test_rolling_after_impact(void **state)
{
    (void)state;
    for (int law = 0; law < 2; ++law) {
        cr_body_state s = throw_ball(law ? CR_LAW_STRONGE : CR_LAW_NEWTON, cr_v3(3, 0, -2), cr_v3_zero(), 1.0);
        assert_near(s.velocity.x, 5.0 / 7.0 * 3.0, 1e-6);
        assert_near(s.velocity.x, 0.1 * s.angular_velocity.y, 1e-6); /* contact point at rest */
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sliding_impact),
        cmocka_unit_test(test_rolling_after_impact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
