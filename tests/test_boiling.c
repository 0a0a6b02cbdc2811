/* The boiling scene of seed 004 (Figure 1): many balls rolling, sliding,
 * flying and colliding on a hilly surface inside four walls.
 *   - with no friction and e = 1, total energy stays within 1e-6 relative;
 *   - with friction, energy never increases;
 *   - no ball ever ends a step below the surface or outside the walls. */
#include <stdlib.h>
#include <string.h>

#include "test_helpers.h"

static const cr_hill bumps[4] = {
    {0.25, -0.6, -0.5, 0.35}, {0.2, 0.7, 0.4, 0.3}, {-0.15, 0.0, 0.8, 0.4}, {0.18, 0.5, -0.7, 0.25}};
#define HALF 1.5

typedef struct boiling {
    cr_world *w;
    const cr_surface *surface;
} boiling;

static boiling make_boiling_on(int n, double mu, double rolling_mu, double e, cr_law law, uint64_t seed,
                               uint32_t workers, cr_method method)
{
    cr_world_def wd = cr_default_world_def();
    wd.worker_count = workers;
    wd.dt = 1.0 / 120.0;
    wd.method = method;
    wd.k_p = 1.0; /* a flying ball that ends a step in a wall goes all the way back */
    /* Elastic: every approach is an impact, however slow. */
    if (e == 1.0) wd.resting_speed = 0.0;
    wd.law = law;
    boiling out;
    out.w = make_world_def(&wd);
    cr_surface_def s = hills_def(bumps, 4, HALF);
    s.wave_amplitude = 0.04;
    s.wave_length_x = 1.1;
    s.wave_length_y = 0.9;
    s.friction = 1.0;
    s.restitution = 1.0;
    assert_int_equal(cr_world_add_surface(out.w, &s, NULL), CR_OK);
    out.surface = cr_world_surface(out.w, 0);
    add_plane(out.w, cr_v3(-HALF, 0, 0), cr_v3(1, 0, 0));
    add_plane(out.w, cr_v3(HALF, 0, 0), cr_v3(-1, 0, 0));
    add_plane(out.w, cr_v3(0, -HALF, 0), cr_v3(0, 1, 0));
    add_plane(out.w, cr_v3(0, HALF, 0), cr_v3(0, -1, 0));
    int side = (int)ceil(sqrt((double)n));
    double spacing = 2.0 * HALF / side;
    for (int i = 0; i < n; ++i) {
        double r = test_rand(&seed, 0.025, 0.04);
        double x = -HALF + spacing * (i % side + 0.5), y = -HALF + spacing * (i / side + 0.5);
        cr_surface_eval ev;
        cr_vec3 nrm;
        cr_surface_evaluate(out.surface, x, y, &ev, &nrm);
        cr_body_def d = cr_default_body_def();
        d.radius = r;
        d.mass = 1000.0 * 4.0 / 3.0 * 3.14159 * r * r * r;
        d.inertia_kind = i % 3 == 0 ? CR_INERTIA_HOLLOW : CR_INERTIA_SOLID;
        d.inner_radius = i % 3 == 0 ? 0.7 * r : 0.0;
        d.position = cr_v3_madd(ev.s, nrm, r);
        cr_vec3 v = test_rand_vec(&seed, -1.0, 1.0);
        d.velocity = cr_v3_reject(v, nrm);
        d.restitution = e;
        d.friction = mu;
        d.rolling_friction = rolling_mu;
        assert_int_equal(cr_world_add_body(out.w, &d, NULL), CR_OK);
    }
    return out;
}

static boiling make_boiling(int n, double mu, double rolling_mu, double e, cr_law law, uint64_t seed)
{
    return make_boiling_on(n, mu, rolling_mu, e, law, seed, 1, CR_METHOD_EVENT);
}

/* Every ball above the surface (within the time-of-impact tolerance) and
 * inside the walls, now. */
static void check_bounds(const boiling *b)
{
    for (uint32_t i = 0; i < cr_world_body_capacity(b->w); ++i) {
        cr_body_id id = cr_world_body_at(b->w, i);
        cr_body_state s = state_of(b->w, id);
        cr_body_def d;
        cr_body_get_def(b->w, id, &d);
        cr_closest c = cr_surface_closest(b->surface, s.position, s.position.x, s.position.y, 1e-12);
        if (!(c.distance >= d.radius - 1e-7)) fail_msg("ball %u below the surface by %.3g m", i, d.radius - c.distance);
        double lim = HALF - d.radius + 1e-7;
        double out = fmax(fabs(s.position.x), fabs(s.position.y)) - lim;
        if (!(out <= 0.0)) fail_msg("ball %u outside the walls by %.3g m", i, out);
    }
}

static void test_frictionless_energy(void **state)
{
    (void)state;
    boiling b = make_boiling(300, 0.0, 0.0, 1.0, CR_LAW_NEWTON, 3);
    double e0 = cr_world_energy(b.w).total, worst = 0.0;
    long impacts = 0, deferred = 0;
    for (int i = 0; i < 60 * 120; ++i) {
        assert_int_equal(cr_world_step(b.w), CR_OK);
        impacts += cr_world_stats(b.w)->events;
        deferred += cr_world_stats(b.w)->events_deferred;
        worst = fmax(worst, fabs(cr_world_energy(b.w).total - e0) / e0);
        if (i % 120 == 0) check_bounds(&b);
        if (i % 600 == 0) print_message("t %d s: drift %.3g, impacts %ld, deferred %ld\n", i / 120, worst, impacts, deferred);
    }
    print_message("frictionless boiling: 60 s, %ld impacts (%ld deferred), worst relative energy drift %.3g, %.2f "
                  "closest-point iterations per call\n",
                  impacts, deferred, worst, cr_world_stats(b.w)->mean_closest_iterations);
    assert_true(impacts > 1000);
    assert_true(worst < 1e-6);
    cr_world_destroy(b.w);
}

/* With friction the energy never increases, step after step (up to
 * rounding, 1e-12 of the initial kinetic energy), and most of the motion is
 * gone after 20 s. Seed 004 §4's energy control keeps each ball's step
 * within its energy budget (eq. 43), resting contacts do no work, and the
 * end-of-step corrections pay for what they move. */
static void test_friction_never_gains_energy(void **state)
{
    (void)state;
    for (int law = 0; law < 2; ++law) {
        boiling b = make_boiling(300, 0.1, 0.002, 0.9, law ? CR_LAW_ROLLING : CR_LAW_NEWTON, 5);
        cr_energy e_start = cr_world_energy(b.w);
        double prev = e_start.total, worst = 0.0;
        for (int i = 0; i < 20 * 120; ++i) {
            assert_int_equal(cr_world_step(b.w), CR_OK);
            double e = cr_world_energy(b.w).total;
            worst = fmax(worst, (e - prev) / e_start.kinetic);
            prev = e;
            if (i % 120 == 0) check_bounds(&b);
        }
        print_message("friction (law %d): 20 s, energy %.6g -> %.6g J, worst one-step gain %.3g of the initial kinetic "
                      "energy\n",
                      law, e_start.total, prev, worst);
        assert_true(prev < e_start.total - 0.5 * e_start.kinetic); /* most of the motion is gone */
        assert_true(worst <= 1e-12);
        cr_world_destroy(b.w);
    }
}

/* Every ball bound to a surface ends every step on it: its centre's
 * distance to the surface is its radius within the time-of-impact
 * tolerance (1e-9 m), whether the step's end looked for its closest point
 * or took the one its plan ended on (rolling.c, at_plan_end), under both
 * laws. */
static void test_surface_balls_end_on_surface(void **state)
{
    (void)state;
    for (int law = 0; law < 2; ++law) {
        boiling b = make_boiling(300, 0.1, 0.002, 0.9, law ? CR_LAW_ROLLING : CR_LAW_NEWTON, 7);
        long checked = 0;
        for (int i = 0; i < 240; ++i) {
            assert_int_equal(cr_world_step(b.w), CR_OK);
            for (uint32_t k = 0; k < cr_world_body_capacity(b.w); ++k) {
                cr_body_id id = cr_world_body_at(b.w, k);
                cr_ball_state bs;
                cr_static_id on;
                assert_int_equal(cr_body_get_ball_state(b.w, id, &bs, &on), CR_OK);
                if (on.generation == 0) continue; /* flying */
                cr_body_state s = state_of(b.w, id);
                cr_body_def d;
                cr_body_get_def(b.w, id, &d);
                cr_closest c = cr_surface_closest(b.surface, s.position, s.position.x, s.position.y, 1e-12);
                double off = fabs(c.distance - d.radius);
                if (!(off <= 1.01e-9)) fail_msg("step %d: ball %u ends %.3g m off its surface", i, k, off);
                checked++;
            }
        }
        print_message("law %d: %ld ball-steps on the surface checked\n", law, checked);
        assert_true(checked > 240 * 100);
        cr_world_destroy(b.w);
    }
}

/* The balls are planned, checked for landings at the events' start, and
 * put back on the surface at the step's end, over the world's workers: the
 * same bits, impacts and closest-point iterations for 1, 2 and 3 of them
 * (600 balls: three work items), with friction and without, under both
 * laws, and in the impulse method. */
static void test_threads_same_bits(void **state)
{
    (void)state;
    for (int c = 0; c < 3; ++c) {
        boiling b[3];
        for (uint32_t k = 0; k < 3; ++k)
            b[k] = make_boiling_on(600, c ? 0.1 : 0.0, c ? 0.002 : 0.0, c ? 0.9 : 1.0, c == 1 ? CR_LAW_ROLLING : CR_LAW_NEWTON,
                                   11, k + 1, c == 2 ? CR_METHOD_IMPULSE : CR_METHOD_EVENT);
        for (int i = 0; i < 240; ++i)
            for (int k = 0; k < 3; ++k) assert_int_equal(cr_world_step(b[k].w), CR_OK);
        for (uint32_t i = 0; i < cr_world_body_capacity(b[0].w); ++i) {
            cr_body_state s0 = state_of(b[0].w, cr_world_body_at(b[0].w, i));
            for (int k = 1; k < 3; ++k) {
                cr_body_state sk = state_of(b[k].w, cr_world_body_at(b[k].w, i));
                if (memcmp(&s0, &sk, sizeof s0) != 0) fail_msg("ball %u differs with %d workers", i, k + 1);
            }
        }
        for (int k = 1; k < 3; ++k) {
            assert_true(cr_world_stats(b[k].w)->mean_closest_iterations == cr_world_stats(b[0].w)->mean_closest_iterations);
            assert_true(cr_world_stats(b[k].w)->events == cr_world_stats(b[0].w)->events);
        }
        for (int k = 0; k < 3; ++k) cr_world_destroy(b[k].w);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_frictionless_energy),
        cmocka_unit_test(test_friction_never_gains_energy),
        cmocka_unit_test(test_threads_same_bits),
        cmocka_unit_test(test_surface_balls_end_on_surface),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
