/* Seed 000 position projection and friction clipping (issue 2):
 * k_p = 0 no projection, k_p = 1 full, in between a share; the reduced mass
 * splits the displacement; friction never reverses a tangential velocity. */
#include <string.h>

#include "test_helpers.h"

static double overlap_after_one_step(double k_p, double ma, double mb, double *moved_a, double *moved_b)
{
    cr_world_def def = cr_default_world_def();
    def.gravity = cr_v3_zero();
    def.k_p = k_p;
    cr_world *w = make_world_def(&def);
    cr_body_id a = add_sphere(w, cr_v3(0, 0, 0.18), cr_v3_zero(), 0.1, ma, CR_INERTIA_SOLID, 0.5, 0.3);
    cr_body_id b = add_sphere(w, cr_v3(0, 0, 0), cr_v3_zero(), 0.1, mb, CR_INERTIA_SOLID, 0.5, 0.3);
    step_n(w, 1);
    cr_body_state sa = state_of(w, a), sb = state_of(w, b);
    *moved_a = sa.position.z - 0.18;
    *moved_b = sb.position.z;
    double ov = 0.2 - (sa.position.z - sb.position.z);
    assert_true(cr_v3_len(sa.velocity) == 0.0 && cr_v3_len(sb.velocity) == 0.0); /* positions only */
    cr_world_destroy(w);
    return ov;
}

static void test_kp_zero_one_half(void **state)
{
    (void)state;
    double da, db;
    assert_near(overlap_after_one_step(0.0, 1.0, 1.0, &da, &db), 0.02, 1e-15);
    assert_near(overlap_after_one_step(1.0, 1.0, 1.0, &da, &db), 0.0, 1e-15);
    assert_near(overlap_after_one_step(0.5, 1.0, 1.0, &da, &db), 0.01, 1e-15);
    /* Reduced mass (seed 000 eq. B.17): a of mass 1 against b of mass 3
     * takes m_b / (m_a + m_b) = 3/4 of the displacement. */
    assert_near(overlap_after_one_step(1.0, 1.0, 3.0, &da, &db), 0.0, 1e-15);
    assert_near(da, 0.75 * 0.02, 1e-15);
    assert_near(db, -0.25 * 0.02, 1e-15);
}

static void test_kp_plane(void **state)
{
    (void)state;
    for (int k = 0; k <= 4; ++k) {
        double kp = 0.25 * k;
        cr_world_def def = cr_default_world_def();
        def.gravity = cr_v3_zero();
        def.k_p = kp;
        cr_world *w = make_world_def(&def);
        add_plane(w, cr_v3_zero(), cr_v3(0, 0, 1));
        cr_body_id b = add_sphere(w, cr_v3(0, 0, 0.06), cr_v3_zero(), 0.1, 1.0, CR_INERTIA_PARTICLE, 0.5, 0.3);
        step_n(w, 1);
        assert_near(0.1 - state_of(w, b).position.z, (1.0 - kp) * 0.04, 1e-15);
        cr_world_destroy(w);
    }
}

/* A column of 8 balls (r = 0.1) on a floor, every contact 1 cm too deep,
 * no gravity: seed 000's single pass leaves overlaps (a push lifts a ball
 * into the one above); projection_passes repeats the pass until no overlap
 * exceeds 0.1% of r (5e-4 of r_a + r_b). Positions only, velocities stay 0. */
static double column_after_one_step(int passes, uint32_t *passes_run, double *top)
{
    cr_world_def def = cr_default_world_def();
    def.gravity = cr_v3_zero();
    def.projection_passes = passes;
    cr_world *w = make_world_def(&def);
    add_plane(w, cr_v3_zero(), cr_v3(0, 0, 1));
    cr_body_id id[8];
    for (int k = 0; k < 8; ++k)
        id[k] = add_sphere(w, cr_v3(0, 0, 0.09 + 0.19 * k), cr_v3_zero(), 0.1, 1.0, CR_INERTIA_SOLID, 0.5, 0.3);
    step_n(w, 1);
    double worst = 0.1 - state_of(w, id[0]).position.z;
    for (int k = 0; k < 8; ++k) {
        cr_body_state s = state_of(w, id[k]);
        assert_true(cr_v3_len(s.velocity) == 0.0 && cr_v3_len(s.angular_velocity) == 0.0);
        if (k) worst = fmax(worst, 0.2 - (s.position.z - state_of(w, id[k - 1]).position.z));
    }
    *passes_run = cr_world_stats(w)->projection_passes;
    *top = state_of(w, id[7]).position.z;
    cr_world_destroy(w);
    return worst;
}

static void test_projection_passes(void **state)
{
    (void)state;
    uint32_t run;
    double top;
    assert_true(column_after_one_step(1, &run, &top) > 1e-3);
    assert_int_equal(run, 1);
    double worst = column_after_one_step(1000, &run, &top);
    assert_true(worst <= 5e-4 * 0.2);
    assert_true(run > 1 && run < 1000); /* stopped early, at the tolerance */
    assert_near(top, 0.1 + 7 * 0.2, 8 * 5e-4 * 0.2); /* the column stands on the floor, touching */
    /* an isolated contact: the extra passes find nothing more to do */
    cr_world_def def = cr_default_world_def();
    def.gravity = cr_v3_zero();
    def.k_p = 1.0;
    def.projection_passes = 50;
    cr_world *w = make_world_def(&def);
    cr_body_id a = add_sphere(w, cr_v3(0, 0, 0.18), cr_v3_zero(), 0.1, 1.0, CR_INERTIA_SOLID, 0.5, 0.3);
    cr_body_id b = add_sphere(w, cr_v3(0, 0, 0), cr_v3_zero(), 0.1, 3.0, CR_INERTIA_SOLID, 0.5, 0.3);
    step_n(w, 1);
    assert_near(state_of(w, a).position.z - 0.18, 0.75 * 0.02, 1e-15);
    assert_near(state_of(w, b).position.z, -0.25 * 0.02, 1e-15);
    assert_int_equal(cr_world_stats(w)->projection_passes, 2);
    cr_world_destroy(w);
    /* validated */
    char msg[256];
    def = cr_default_world_def();
    def.projection_passes = 0;
    assert_int_equal(cr_world_def_validate(&def, msg, sizeof msg), CR_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(msg, "projection_passes: must be in [1, 1000], got 0"));
}

/* projection_shock (shock propagation, docs/physics.md step 5): a column of
 * 8 balls (r = 0.1) standing along -gravity on a wall, every contact 1 cm
 * too deep, k_p = 1. Taken from the ground up with each lower ball held,
 * one extra pass stands the column touching (the next one finds nothing
 * deep, so 3 passes run); the seed's ratios need many more. A step of 1 ns
 * keeps the motion of the step out of it. Gravity along -y, not -z: "up" is
 * against gravity. */
static uint32_t shock_column(bool shock, double *top, double *worst)
{
    cr_world_def def = cr_default_world_def();
    def.gravity = cr_v3(0, -9.81, 0);
    def.dt = 1e-9;
    def.k_p = 1.0;
    def.projection_passes = 1000;
    def.projection_shock = shock;
    cr_world *w = make_world_def(&def);
    add_plane(w, cr_v3_zero(), cr_v3(0, 1, 0));
    cr_body_id id[8];
    for (int k = 0; k < 8; ++k)
        id[k] = add_sphere(w, cr_v3(0.3, 0.09 + 0.19 * k, -0.2), cr_v3_zero(), 0.1, 1.0, CR_INERTIA_SOLID, 0.5, 0.3);
    step_n(w, 1);
    *worst = 0.1 - state_of(w, id[0]).position.y;
    for (int k = 1; k < 8; ++k)
        *worst = fmax(*worst, 0.2 - (state_of(w, id[k]).position.y - state_of(w, id[k - 1]).position.y));
    *top = state_of(w, id[7]).position.y;
    uint32_t run = cr_world_stats(w)->projection_passes;
    cr_world_destroy(w);
    return run;
}

static void test_projection_shock(void **state)
{
    (void)state;
    double top, worst;
    assert_int_equal(shock_column(true, &top, &worst), 3);
    assert_near(top, 0.1 + 7 * 0.2, 1e-12); /* on the wall, every ball touching the next */
    assert_true(fabs(worst) <= 1e-12);
    assert_true(shock_column(false, &top, &worst) > 20);
    /* balls side by side keep the seed's ratios: m = 1 and 3, k_p = 1, the
     * light one moves 3/4 of the overlap, as in test_projection_passes */
    cr_world_def def = cr_default_world_def();
    def.dt = 1e-9;
    def.k_p = 1.0;
    def.projection_passes = 50;
    def.projection_shock = true;
    cr_world *w = make_world_def(&def);
    cr_body_id a = add_sphere(w, cr_v3(0.18, 0, 1), cr_v3_zero(), 0.1, 1.0, CR_INERTIA_SOLID, 0.5, 0.3);
    cr_body_id b = add_sphere(w, cr_v3(0, 0, 1), cr_v3_zero(), 0.1, 3.0, CR_INERTIA_SOLID, 0.5, 0.3);
    step_n(w, 1);
    assert_near(state_of(w, a).position.x - 0.18, 0.75 * 0.02, 1e-12);
    assert_near(state_of(w, b).position.x, -0.25 * 0.02, 1e-12);
    cr_world_destroy(w);
    /* validated: shock orders the extra passes, so it needs some */
    char msg[256];
    def = cr_default_world_def();
    def.projection_shock = true;
    assert_int_equal(cr_world_def_validate(&def, msg, sizeof msg), CR_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(msg, "projection_shock: needs projection_passes >= 2"));
}

/* The extra passes visit only the rows next to a body that moved
 * (projection_active.c): a skipped row must be one that has nothing to
 * push. Random piles (6 layers of 5 x 5 balls on a floor, every neighbour
 * 1-3% r too deep, random masses), with the seed's ratios and with shock:
 * once the passes stop short of the limit, no pair and no ball on the floor
 * may overlap by more than the tolerance (5e-4 of r_a + r_b, 1e-3 r). A
 * step of 1 ns keeps the motion of the step out of it. */
static void test_projection_pile_converges(void **state)
{
    (void)state;
    const double r = 0.05;
    for (int shock = 0; shock <= 1; ++shock)
        for (uint64_t seed = 1; seed <= 3; ++seed) {
            uint64_t rng = seed;
            cr_world_def def = cr_default_world_def();
            def.gravity = shock ? cr_v3(0, 0, -9.81) : cr_v3_zero();
            def.dt = 1e-9;
            def.projection_passes = 1000;
            def.projection_shock = shock;
            cr_world *w = make_world_def(&def);
            add_plane(w, cr_v3_zero(), cr_v3(0, 0, 1));
            enum { N = 150 };
            cr_body_id id[N];
            for (int k = 0; k < N; ++k) {
                double gap = test_rand(&rng, 0.01, 0.03) * r;
                cr_vec3 at = cr_v3((k % 5) * (2 * r - gap), (k / 5 % 5) * (2 * r - gap), r - gap + (k / 25) * (2 * r - gap));
                at = cr_v3_add(at, test_rand_vec(&rng, -1e-4, 1e-4));
                id[k] = add_sphere(w, at, cr_v3_zero(), r, test_rand(&rng, 0.2, 2.0), CR_INERTIA_SOLID, 0.5, 0.3);
            }
            step_n(w, 1);
            uint32_t run = cr_world_stats(w)->projection_passes;
            assert_true(run > 2 && run < 1000);
            double worst = 0.0;
            for (int a = 0; a < N; ++a) {
                cr_vec3 xa = state_of(w, id[a]).position;
                worst = fmax(worst, (r - xa.z) / (2 * r));
                for (int b = a + 1; b < N; ++b)
                    worst = fmax(worst, (2 * r - cr_v3_len(cr_v3_sub(xa, state_of(w, id[b]).position))) / (2 * r));
            }
            assert_true(worst <= 5e-4 * (1 + 1e-9));
            assert_true(worst > 1e-5); /* the passes stopped at the tolerance, not at touching */
            cr_world_destroy(w);
        }
}

/* Random contacts: the Newton law's friction reduces the sliding speed of the
 * contact point and never reverses it, for particles and balls. */
static void test_friction_never_reverses(void **state)
{
    (void)state;
    uint64_t seed = 7;
    int clipped = 0;
    for (int i = 0; i < 20000; ++i) {
        cr_vec3 n = cr_v3_normalize(test_rand_vec(&seed, -1, 1));
        double ra = test_rand(&seed, 0.01, 1), rb = test_rand(&seed, 0.01, 1);
        double ma = test_rand(&seed, 0.1, 10), mb = test_rand(&seed, 0.1, 10);
        double ia = i % 2 ? 0.0 : 1.0 / (0.4 * ma * ra * ra), ib = i % 3 ? 0.0 : 1.0 / (0.4 * mb * rb * rb);
        cr_contact_side a = {1.0 / ma, cr_m3_diag(ia, ia, ia), cr_v3_scale(n, -ra), test_rand_vec(&seed, -5, 5),
                             test_rand_vec(&seed, -5, 5)};
        cr_contact_side b = {i % 5 ? 1.0 / mb : 0.0, cr_m3_diag(ib, ib, ib), cr_v3_scale(n, rb),
                             test_rand_vec(&seed, -5, 5), test_rand_vec(&seed, -5, 5)};
        if (!(i % 5)) b.inv_inertia = cr_m3_zero();
        double mu = test_rand(&seed, 0, 2), e = test_rand(&seed, 0, 1);
        cr_vec3 u0 = cr_v3_sub(cr_contact_point_velocity(&a), cr_contact_point_velocity(&b));
        cr_newton_result res = cr_law_newton(&a, &b, n, e, mu, 0.0);
        cr_contact_apply(&a, &b, res.impulse);
        cr_vec3 u1 = cr_v3_sub(cr_contact_point_velocity(&a), cr_contact_point_velocity(&b));
        cr_vec3 t0 = cr_v3_reject(u0, n), t1 = cr_v3_reject(u1, n);
        assert_true(cr_v3_dot(t1, t0) >= -1e-12 * cr_v3_len2(t0)); /* same direction or stopped */
        assert_true(cr_v3_len(t1) <= cr_v3_len(t0) * (1.0 + 1e-12));
        assert_true(res.tangent_impulse <= mu * res.normal_impulse * (1.0 + 1e-12)); /* inside the cone */
        if (cr_v3_dot(n, u0) < 0.0) assert_near(cr_v3_dot(n, u1), -e * cr_v3_dot(n, u0), 1e-9 * cr_v3_len(u0));
        clipped += res.friction_clipped;
    }
    assert_true(clipped > 1000 && clipped < 19000); /* both branches exercised */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kp_zero_one_half),
        cmocka_unit_test(test_kp_plane),
        cmocka_unit_test(test_projection_passes),
        cmocka_unit_test(test_projection_shock),
        cmocka_unit_test(test_projection_pile_converges),
        cmocka_unit_test(test_friction_never_reverses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
