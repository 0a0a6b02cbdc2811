/* The sub-stepped soft contact solver (rigid_substeps > 0, branch pyr10;
 * docs/physics/substep.md), against closed forms and invariants.
 *
 * Cubes of 0.1 m and 0.5 kg, dt = 1/240, g = 9.81. The closed forms of the
 * resting tests come from the soft row's fixed point: with the bodies at
 * rest and the warm start, a pass leaves a point's impulse lambda (per
 * substep h) unchanged where -m_eff (mass_scale bias_rate s) = impulse_scale
 * lambda, that is s = -lambda / (m_eff h omega^2) (a2 bias_rate = h
 * omega^2). A cube face on the floor: four points, each m_eff = m / 4
 * (1 / m + (r x n) . I^-1 (r x n) = 1/m + 3/m at a corner), each carrying
 * lambda = m g h / 4, so s = -g / omega^2 with omega = 2 pi (2 hertz) (the
 * stiffer softness against what cannot move). Between two free cubes
 * m_eff = m / 8 and the k cubes above give lambda = k m g h / 4: s = -2 k g
 * / omega^2, omega = 2 pi hertz. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rigid.h"
#include "rigid_helpers.h"

#define G 9.81
#define DT (1.0 / 240.0)
#define HALF 0.05
#define MASS 0.5

/* A cube resting on the floor settles to rest at the overlap g / omega^2. */
static void test_cube_rests_at_soft_overlap(void **state)
{
    (void)state;
    const int substeps[] = {1, 4, 8};
    for (int k = 0; k < 3; ++k) {
        cr_world_def def = substep_world_def(substeps[k], 30.0);
        cr_world *w = make_world_def(&def);
        add_plane(w, cr_v3_zero(), cr_v3(0, 0, 1));
        cr_body_id c = add_box(w, cr_v3(HALF, HALF, HALF), cr_v3(0, 0, HALF), cr_q_identity(), MASS, 0.0, 0.5);
        step_n(w, 480);
        cr_body_state s = state_of(w, c);
        double expected = G / soft_omega2(60.0); /* 6.9e-5 m */
        printf("cube on the floor, %d substeps: overlap %.6g m (closed form %.6g), speed %.3g m/s\n", substeps[k],
               HALF - s.position.z, expected, cr_v3_len(s.velocity));
        assert_near(HALF - s.position.z, expected, 1e-3 * expected);
        assert_near(cr_world_stats(w)->max_penetration, expected, 1e-3 * expected);
        assert_true(cr_v3_len(s.velocity) < 1e-9 && cr_v3_len(s.angular_velocity) < 1e-9);
        cr_world_destroy(w);
    }
}

/* A stack of 10 cubes: the top sinks by the sum of the soft overlaps,
 * 2 g / omega^2 (1 + ... + 9) between cubes and 10 g / omega_static^2 at
 * the floor, and the stack stays straight: one pass a substep leaves a
 * face's four points unequal while the load comes on (the first point of
 * a manifold takes more), which turns the cubes a little; the stack ends
 * within 0.5 mm of the axis, and at rest. (At 60 Hz, 4 substeps, it leans
 * 2.6 mm and still moves at 0.6 mm/s after 2 s: stiff piles want a high
 * contact_hertz.) */
static void test_stack_sags_by_closed_form(void **state)
{
    (void)state;
    const int substeps[] = {4, 8};
    const double hertz[] = {120.0, 240.0};
    for (int k = 0; k < 2; ++k) {
        cr_world_def def = substep_world_def(substeps[k], hertz[k]);
        cr_world *w = make_world_def(&def);
        add_plane(w, cr_v3_zero(), cr_v3(0, 0, 1));
        cr_body_id ids[10];
        for (int i = 0; i < 10; ++i)
            ids[i] = add_box(w, cr_v3(HALF, HALF, HALF), cr_v3(0, 0, HALF + 2 * HALF * i), cr_q_identity(), MASS, 0.0,
                             0.5);
        step_n(w, 480);
        double sag = 90.0 * G / soft_omega2(hertz[k]) + 10.0 * G / soft_omega2(2.0 * hertz[k]);
        cr_body_state top = state_of(w, ids[9]);
        double sideways = 0.0, speed = 0.0;
        for (int i = 0; i < 10; ++i) {
            cr_body_state s = state_of(w, ids[i]);
            sideways = fmax(sideways, hypot(s.position.x, s.position.y));
            speed = fmax(speed, cr_v3_len(s.velocity));
        }
        printf("stack of 10, %d substeps at %g Hz: top sank %.6g m (closed form %.6g), sideways %.3g m, "
               "speed %.3g m/s\n",
               substeps[k], hertz[k], 19 * HALF - top.position.z, sag, sideways, speed);
        assert_near(19 * HALF - top.position.z, sag, 1e-2 * sag);
        assert_true(sideways < 5e-4);
        assert_true(speed < 1e-4);
        cr_world_destroy(w);
    }
}

/* A cube sliding on the floor decelerates at mu g (Coulomb, the slip along
 * the first friction direction) until it stops. */
static void test_sliding_cube_decelerates_at_mu_g(void **state)
{
    (void)state;
    const double mu = 0.4, v0 = 2.0;
    cr_world_def def = substep_world_def(4, 30.0);
    cr_world *w = make_world_def(&def);
    add_plane(w, cr_v3_zero(), cr_v3(0, 0, 1));
    cr_body_id c = add_box(w, cr_v3(HALF, HALF, HALF), cr_v3(0, 0, HALF), cr_q_identity(), MASS, 0.0, mu);
    step_n(w, 24); /* settle onto the soft contact */
    cr_body_state s = state_of(w, c);
    s.velocity = cr_v3(v0, 0.5 * v0, 0.0);
    assert_int_equal(cr_body_set_state(w, c, &s), CR_OK);
    const int steps = 72; /* 0.3 s: v0 |(1, 0.5)| / (mu g) = 0.57 s to stop */
    step_n(w, steps);
    cr_body_state e = state_of(w, c);
    double speed0 = v0 * hypot(1.0, 0.5), expected = speed0 - mu * G * steps * DT;
    double speed = hypot(e.velocity.x, e.velocity.y);
    printf("sliding cube: speed %.9g m/s after %.3g s (closed form %.9g), heading %.9g (start %.9g)\n", speed,
           steps * DT, expected, atan2(e.velocity.y, e.velocity.x), atan2(0.5, 1.0));
    assert_near(speed, expected, 1e-3 * speed0);
    assert_near(atan2(e.velocity.y, e.velocity.x), atan2(0.5, 1.0), 1e-4);
    step_n(w, 240); /* stopped at 0.57 s: static friction holds it (the last creep dies out) */
    e = state_of(w, c);
    printf("0.7 s after it stopped: %.3g m/s\n", hypot(e.velocity.x, e.velocity.y));
    assert_true(hypot(e.velocity.x, e.velocity.y) < 1e-6);
    cr_world_destroy(w);
}

/* A sphere dropped on the floor leaves with e times the speed it had at the
 * start of the step it hit in (a single point through the centre: the
 * restitution pass is exact), and a plastic one (e = 0) stays down. */
static void test_restitution_of_a_drop(void **state)
{
    (void)state;
    const double es[] = {0.0, 0.5, 0.9};
    for (int k = 0; k < 3; ++k) {
        cr_world_def def = substep_world_def(4, 30.0);
        cr_world *w = make_world_def(&def);
        add_plane(w, cr_v3_zero(), cr_v3(0, 0, 1));
        /* a box elsewhere makes the world a rigid-body one */
        add_box(w, cr_v3(HALF, HALF, HALF), cr_v3(1, 0, HALF), cr_q_identity(), MASS, 0.0, 0.5);
        cr_body_id b = add_sphere(w, cr_v3(0, 0, 0.3), cr_v3(0, 0, -2.0), 0.05, 0.2, CR_INERTIA_SOLID, es[k], 0.5);
        double before = 0.0, after = 0.0, later = -INFINITY;
        for (int n = 0; n < 60; ++n) {
            double v = state_of(w, b).velocity.z;
            assert_int_equal(cr_world_step(w), CR_OK);
            double u = state_of(w, b).velocity.z;
            if (before == 0.0 && u > v + 1.0) before = v, after = u; /* the step of the impact */
            else if (before != 0.0 && es[k] == 0.0) later = fmax(later, u);
        }
        printf("drop with e = %g: left at %.12g m/s from %.12g m/s\n", es[k], after, before);
        assert_true(before < -2.0);
        if (es[k] > 0.0) {
            assert_near(after, -es[k] * before, 1e-9);
        } else { /* the last of the gap is closed in the next step, then nothing bounces */
            assert_true(after <= 0.0 && later <= 1e-12);
        }
        cr_world_destroy(w);
    }
}

/* A heap of 30 cubes dropped turned at random into a box never gains
 * energy (kinetic + potential over its start; the planes are static, the
 * contacts plastic: the soft push-out must not pump). */
static void test_heap_never_gains_energy(void **state)
{
    (void)state;
    const int substeps[] = {2, 4};
    for (int p = 0; p < 2; ++p)
        for (uint64_t seed = 1; seed <= 2; ++seed) {
            cr_world_def def = substep_world_def(substeps[p], 30.0);
            char label[32];
            snprintf(label, sizeof label, "%d substeps", substeps[p]);
            heap_energy_rise(&def, seed, 240, label);
        }
}

/* Pyramids of 12 and 20 rows of cubes side by side (bench/peers' box
 * pyramid: 78 and 210 cubes) stand for 1 s: every contact is taken, at 12
 * rows in the overflow (colours too small to keep: runs over several work
 * items, serially), at 20 rows in colours kept; a cube moves less than 3 mm
 * (1.9 mm at 20 rows, 2 s, branch pyr13) and the pyramid comes to rest. */
static void test_pyramid_stands(void **state)
{
    (void)state;
    enum { MOST = 20 * 21 / 2 };
    const int rows[2] = {12, 20};
    for (int p = 0; p < 2; ++p) {
        cr_world_def def = substep_world_def(4, 120.0);
        cr_world *w = make_world_def(&def);
        add_plane(w, cr_v3_zero(), cr_v3(0, 0, 1));
        cr_body_id ids[MOST];
        cr_vec3 x0[MOST];
        int n = 0;
        for (int k = 0; k < rows[p]; ++k)
            for (int j = 0; j < rows[p] - k; ++j, ++n) {
                x0[n] = cr_v3((j - 0.5 * (rows[p] - k - 1)) * 2 * HALF, 0, HALF + 2 * HALF * k);
                ids[n] = add_box(w, cr_v3(HALF, HALF, HALF), x0[n], cr_q_identity(), MASS, 0.0, 0.5);
            }
        step_n(w, 240);
        double drift = 0.0, ke = 0.0;
        for (int i = 0; i < n; ++i) {
            cr_body_state s = state_of(w, ids[i]);
            drift = fmax(drift, cr_v3_len(cr_v3_sub(s.position, x0[i])));
            ke += 0.5 * MASS * cr_v3_dot(s.velocity, s.velocity);
        }
        printf("pyramid of %d rows: %u colours kept, largest drift %.3g m, translational KE %.3g J\n", rows[p],
               (unsigned)cr_rigid_substep_colours(w), drift, ke);
        assert_true(p == 0 ? cr_rigid_substep_colours(w) == 0 : cr_rigid_substep_colours(w) >= 3);
        assert_true(drift < 3e-3);
        assert_true(ke < 1e-5);
        cr_world_destroy(w);
    }
}

/* Same bits on 1 and 4 workers (the narrow phase is threaded; a heap this
 * small has colours too small to spread, so the solver's passes run on the
 * caller: tests/test_substep_threads.c has the coloured passes threaded). */
static void test_same_bits_for_any_worker_count(void **state)
{
    (void)state;
    cr_body_state end[2][20];
    const uint32_t workers[2] = {1, 4};
    for (int r = 0; r < 2; ++r) {
        cr_world_def def = substep_world_def(4, 60.0);
        def.worker_count = workers[r];
        cr_world *w = make_world_def(&def);
        add_plane(w, cr_v3_zero(), cr_v3(0, 0, 1));
        cr_body_id ids[20];
        uint64_t s = 7;
        for (int i = 0; i < 20; ++i) {
            cr_vec3 x = cr_v3(test_rand(&s, -0.2, 0.2), test_rand(&s, -0.2, 0.2), 0.06 + 0.12 * i);
            ids[i] = add_box(w, cr_v3(HALF, HALF, HALF), x, axis_angle(test_rand_vec(&s, -1, 1), test_rand(&s, 0, 3)),
                             MASS, 0.2, 0.5);
        }
        step_n(w, 240);
        for (int i = 0; i < 20; ++i) end[r][i] = state_of(w, ids[i]);
        cr_world_destroy(w);
    }
    for (int i = 0; i < 20; ++i) {
        assert_memory_equal(&end[0][i].position, &end[1][i].position, sizeof(cr_vec3));
        assert_memory_equal(&end[0][i].velocity, &end[1][i].velocity, sizeof(cr_vec3));
        assert_memory_equal(&end[0][i].orientation, &end[1][i].orientation, sizeof(cr_quat));
    }
}

/* The options are checked with their names and values, and a world with a
 * joint is refused at its step with the reason. */
static void test_options_checked(void **state)
{
    (void)state;
    char msg[256];
    cr_world_def def = substep_world_def(-1, 30.0);
    assert_int_equal(cr_world_def_validate(&def, msg, sizeof msg), CR_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(msg, "rigid_substeps") && strstr(msg, "-1") ? msg : NULL);
    def = substep_world_def(65, 30.0);
    assert_int_equal(cr_world_def_validate(&def, msg, sizeof msg), CR_ERR_INVALID_ARGUMENT);
    def = substep_world_def(4, 0.0);
    assert_int_equal(cr_world_def_validate(&def, msg, sizeof msg), CR_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(msg, "contact_hertz"));
    def = substep_world_def(4, NAN);
    assert_int_equal(cr_world_def_validate(&def, msg, sizeof msg), CR_ERR_INVALID_ARGUMENT);
    def = substep_world_def(4, 30.0);
    def.contact_damping_ratio = -1.0;
    assert_int_equal(cr_world_def_validate(&def, msg, sizeof msg), CR_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(msg, "contact_damping_ratio"));
    def = substep_world_def(4, 30.0);
    def.substep_iterations = 0;
    assert_int_equal(cr_world_def_validate(&def, msg, sizeof msg), CR_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(msg, "substep_iterations"));

    def = substep_world_def(4, 30.0);
    cr_world *w = make_world_def(&def);
    cr_body_id a = add_box(w, cr_v3(HALF, HALF, HALF), cr_v3(0, 0, 1), cr_q_identity(), MASS, 0.0, 0.5);
    cr_joint_def j = cr_default_joint_def();
    j.a = a;
    j.anchor = cr_v3(0, 0, 1.1);
    cr_joint_id jid;
    assert_int_equal(cr_world_add_joint(w, &j, &jid), CR_OK);
    assert_int_equal(cr_world_step(w), CR_ERR_INVALID_ARGUMENT);
    printf("with a joint: %s\n", cr_world_last_error(w));
    assert_non_null(strstr(cr_world_last_error(w), "joint"));
    assert_non_null(strstr(cr_world_last_error(w), "rigid_substeps"));
    cr_world_destroy(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cube_rests_at_soft_overlap),  cmocka_unit_test(test_stack_sags_by_closed_form),
        cmocka_unit_test(test_sliding_cube_decelerates_at_mu_g), cmocka_unit_test(test_restitution_of_a_drop),
        cmocka_unit_test(test_heap_never_gains_energy),     cmocka_unit_test(test_same_bits_for_any_worker_count),
        cmocka_unit_test(test_options_checked),            cmocka_unit_test(test_pyramid_stands),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
