/* The Newton law against seed 000/001 closed forms. */
#include "test_helpers.h"

static cr_contact_side particle(double m, cr_vec3 v)
{
    cr_contact_side s = cr_contact_side_immovable();
    s.inv_mass = 1.0 / m;
    s.v = v;
    return s;
}

/* Seed 001 §3.1: j = -(1+e) m v_N against a plane; v_N' = -e v_N. */
static void test_plane_impulse(void **state)
{
    (void)state;
    cr_contact_side a = particle(2.0, cr_v3(0, 0, -3.0)), wall = cr_contact_side_immovable();
    cr_newton_result r = cr_law_newton(&a, &wall, cr_v3(0, 0, 1), 0.6, 0.0, 0.0);
    assert_near(r.normal_impulse, (1.0 + 0.6) * 2.0 * 3.0, 1e-12);
    cr_contact_apply(&a, &wall, r.impulse);
    assert_near(a.v.z, 0.6 * 3.0, 1e-12);
}

/* Seed 001 §3.1 friction: tangential impulse mu j opposite the tangential
 * velocity when that does not stop the sliding. */
static void test_plane_friction_unclipped(void **state)
{
    (void)state;
    cr_contact_side a = particle(1.0, cr_v3(5.0, 0, -1.0)), wall = cr_contact_side_immovable();
    cr_newton_result r = cr_law_newton(&a, &wall, cr_v3(0, 0, 1), 0.5, 0.2, 0.0);
    double j = 1.5 * 1.0;
    assert_false(r.friction_clipped);
    assert_near(r.impulse.x, -0.2 * j, 1e-12);
    assert_near(r.impulse.z, j, 1e-12);
}

/* Seed 000 c.4: mu j clipped so friction never exceeds the tangential speed. */
static void test_plane_friction_clipped(void **state)
{
    (void)state;
    cr_contact_side a = particle(1.0, cr_v3(0.1, 0.0, -1.0)), wall = cr_contact_side_immovable();
    cr_newton_result r = cr_law_newton(&a, &wall, cr_v3(0, 0, 1), 0.5, 0.9, 0.0);
    assert_true(r.friction_clipped);
    cr_contact_apply(&a, &wall, r.impulse);
    assert_near(a.v.x, 0.0, 1e-15); /* sliding stopped, not reversed */
}

/* No tangential velocity: no friction, and no NaN (seed 001's guard). */
static void test_no_tangential_velocity(void **state)
{
    (void)state;
    cr_contact_side a = particle(1.0, cr_v3(0, 0, -2.0)), wall = cr_contact_side_immovable();
    cr_newton_result r = cr_law_newton(&a, &wall, cr_v3(0, 0, 1), 1.0, 0.5, 0.0);
    assert_true(cr_v3_isfinite(r.impulse));
    assert_near(r.impulse.x, 0.0, 0.0);
    assert_near(r.impulse.y, 0.0, 0.0);
}

/* Seed 000 c.1-c.2: the velocity jolt of a is -(1+e) m_red v_n with
 * m_red = m_b / (m_a + m_b); momentum is conserved; v_n' = -e v_n. */
static void test_particle_pair(void **state)
{
    (void)state;
    double ma = 1.5, mb = 4.0, e = 0.7;
    cr_vec3 n = cr_v3_normalize(cr_v3(1, 2, 2));
    cr_contact_side a = particle(ma, cr_v3(-1, -2, 0.5)), b = particle(mb, cr_v3(0.3, 0.1, 0.2));
    double vn = cr_v3_dot(n, cr_v3_sub(a.v, b.v));
    cr_vec3 pa0 = cr_v3_add(cr_v3_scale(a.v, ma), cr_v3_scale(b.v, mb));
    cr_vec3 va0 = a.v;
    cr_newton_result r = cr_law_newton(&a, &b, n, e, 0.0, 0.0);
    cr_contact_apply(&a, &b, r.impulse);
    double jolt = cr_v3_dot(cr_v3_sub(a.v, va0), n);
    assert_near(jolt, -(1 + e) * cr_reduced_mass_ratio(1 / ma, 1 / mb) * vn, 1e-12);
    assert_near(cr_reduced_mass_ratio(1 / ma, 1 / mb), mb / (ma + mb), 1e-15);
    cr_vec3 pa1 = cr_v3_add(cr_v3_scale(a.v, ma), cr_v3_scale(b.v, mb));
    assert_near(cr_v3_len(cr_v3_sub(pa1, pa0)), 0.0, 1e-12);
    assert_near(cr_v3_dot(n, cr_v3_sub(a.v, b.v)), -e * vn, 1e-12);
}

static void test_separating_and_resting(void **state)
{
    (void)state;
    cr_contact_side a = particle(1.0, cr_v3(0, 0, 1.0)), wall = cr_contact_side_immovable();
    cr_newton_result r = cr_law_newton(&a, &wall, cr_v3(0, 0, 1), 1.0, 0.5, 0.0);
    assert_near(cr_v3_len(r.impulse), 0.0, 0.0); /* separating: nothing */
    /* Approaching slower than the resting speed: resting, e not applied. */
    a.v = cr_v3(0, 0, -0.01);
    r = cr_law_newton(&a, &wall, cr_v3(0, 0, 1), 1.0, 0.0, 0.02);
    assert_true(r.resting);
    cr_contact_apply(&a, &wall, r.impulse);
    assert_near(a.v.z, 0.0, 1e-15);
}

/* A ball sliding on a plane: friction at the contact point spins it. With
 * enough friction the contact point stops: v = r w, and the impulse is
 * |u_t| / (1/m + r^2/I). */
static void test_ball_spin_up(void **state)
{
    (void)state;
    double m = 2.0, r = 0.5, I = 0.4 * m * r * r;
    cr_contact_side a = particle(m, cr_v3(3.0, 0, -1.0));
    a.inv_inertia = cr_m3_diag(1 / I, 1 / I, 1 / I);
    a.r = cr_v3(0, 0, -r);
    cr_contact_side wall = cr_contact_side_immovable();
    cr_newton_result res = cr_law_newton(&a, &wall, cr_v3(0, 0, 1), 0.0, 10.0, 0.0);
    assert_true(res.friction_clipped);
    assert_near(res.tangent_impulse, 3.0 / (1 / m + r * r / I), 1e-12);
    cr_contact_apply(&a, &wall, res.impulse);
    assert_near(a.v.x, r * a.w.y, 1e-12); /* rolling: contact point at rest */
    assert_near(a.v.x, 5.0 / 7.0 * 3.0, 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plane_impulse),          cmocka_unit_test(test_plane_friction_unclipped),
        cmocka_unit_test(test_plane_friction_clipped), cmocka_unit_test(test_no_tangential_velocity),
        cmocka_unit_test(test_particle_pair),          cmocka_unit_test(test_separating_and_resting),
        cmocka_unit_test(test_ball_spin_up),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
