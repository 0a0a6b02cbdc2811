/* Physically absurd but well-formed input (issue 7): each case either runs
 * with finite numbers and an energy that never exceeds the start (every
 * restitution <= 1, no gravity or external work), or is refused with a clear
 * message. And the world stops at the first non-finite value, naming the
 * body, whichever method steps it.
 *
 * - bodies at 10^9 m/s in a closed box, both methods;
 * - masses spanning 12 orders of magnitude (1e-6 .. 1e6 kg), both methods
 *   and both impact laws, and the head-on closed form;
 * - 10^5 coincident spheres with allow_overlap: refused (each step would
 *   solve 5e9 contacts); 500 coincident ones run;
 * - zero gravity and e = 1: 200 balls for 10^5 steps here (2 x 10^4 under
 *   the sanitizers), 10^6 steps in the soak benchmark (bench/soak.c,
 *   docs/reliability.md).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene.h"
#include "test_helpers.h"

/* A closed box [-half, half]^3 of elastic, frictionless walls, no gravity. */
static cr_world *make_box(cr_method method, cr_law law, double dt, double half)
{
    cr_world_def def = cr_default_world_def();
    def.gravity = cr_v3_zero();
    def.dt = dt;
    def.method = method;
    def.law = law;
    cr_world *w = make_world_def(&def);
    const cr_vec3 n[6] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
    for (int k = 0; k < 6; ++k) {
        cr_plane_def p = cr_default_plane_def();
        p.normal = n[k];
        p.point = cr_v3_scale(n[k], -half);
        p.restitution = 1.0;
        p.friction = 0.0;
        assert_int_equal(cr_world_add_plane(w, &p, NULL), CR_OK);
    }
    return w;
}

/* Every live body's state is finite. */
static void assert_all_finite(cr_world *w)
{
    uint32_t cap = cr_world_body_capacity(w);
    for (uint32_t i = 0; i < cap; ++i) {
        cr_body_id id = cr_world_body_at(w, i);
        if (id.generation == 0) continue;
        cr_body_state s = state_of(w, id);
        if (!cr_v3_isfinite(s.position) || !cr_v3_isfinite(s.velocity) || !cr_v3_isfinite(s.angular_velocity))
            fail_msg("body %u is not finite after %llu steps", i, (unsigned long long)cr_world_step_count(w));
    }
}

/* Steps n times; every step succeeds, every state stays finite, and the
 * energy never exceeds the start by more than tol of it. Returns the
 * largest ratio E / E0 seen. */
static double run_bounded(cr_world *w, long n, double tol)
{
    double e0 = cr_world_energy(w).total, worst = 1.0;
    assert_true(e0 > 0.0);
    for (long k = 0; k < n; ++k) {
        cr_status s = cr_world_step(w);
        if (s != CR_OK) fail_msg("step %ld: %s: %s", k, cr_status_string(s), cr_world_last_error(w));
        double e = cr_world_energy(w).total;
        if (!(e <= e0 * (1.0 + tol))) fail_msg("step %ld: energy %.17g above the start %.17g", k, e, e0);
        worst = fmax(worst, e / e0);
    }
    assert_all_finite(w);
    return worst;
}

/* ---- 10^9 m/s ---------------------------------------------------------- */

static void test_billion_metres_per_second(void **state)
{
    (void)state;
    for (int m = 0; m < 2; ++m) {
        cr_world *w = make_box(m ? CR_METHOD_EVENT : CR_METHOD_IMPULSE, CR_LAW_NEWTON, 1e-3, 1.0);
        for (int i = 0; i < 8; ++i) {
            cr_body_def d = cr_default_body_def();
            d.position = cr_v3(-0.5 + 0.3 * (i % 4), -0.3 + 0.6 * (i / 4), 0.0);
            d.velocity = cr_v3(1e9 * (i % 2 ? 1 : -1), 3e8 * (i % 3 - 1), 1e8);
            d.restitution = 1.0;
            d.friction = 0.0;
            assert_int_equal(cr_world_add_body(w, &d, NULL), CR_OK);
        }
        double worst = run_bounded(w, 10, 1e-9);
        /* 10^6 m per step in a 2 m box: far more bounces than the
         * max_events_per_body guard resolves, the rest is left to position
         * projection. Finite and energy-bounded, not contained: reported. */
        print_message("%s: 10 steps at 1e9 m/s: largest E/E0 %.17g, impacts deferred in the last step %u, deepest "
                      "penetration %.3g m\n",
                      m ? "event" : "impulse", worst, cr_world_stats(w)->events_deferred,
                      cr_world_stats(w)->max_penetration);
        cr_world_destroy(w);
    }
}

/* The same speed through a scene file: the loader takes it. */
static void test_billion_metres_per_second_scene(void **state)
{
    (void)state;
    cr_scene s;
    char err[512];
    int rc = cr_scene_load_string("{\"gravity\": [0, 0, 0], \"method\": \"event\","
                                  " \"statics\": [{\"point\": [0, 0, -1], \"normal\": [0, 0, 1]},"
                                  "               {\"point\": [0, 0, 1], \"normal\": [0, 0, -1]}],"
                                  " \"bodies\": [{\"velocity\": [0, 0, 1e9], \"restitution\": 1, \"friction\": 0}]}",
                                  "fast.json", &s, err, sizeof err);
    if (rc) fail_msg("%s", err);
    run_bounded(s.world, 5, 1e-9);
    cr_scene_free(&s);
}

/* ---- masses over 12 orders of magnitude ---------------------------------- */

static void test_masses_twelve_orders(void **state)
{
    (void)state;
    const cr_method methods[2] = {CR_METHOD_IMPULSE, CR_METHOD_EVENT};
    const cr_law laws[2] = {CR_LAW_NEWTON, CR_LAW_STRONGE};
    for (int m = 0; m < 2; ++m)
        for (int l = 0; l < 2; ++l) {
            cr_world *w = make_box(methods[m], laws[l], 1e-3, 1.0);
            for (int i = 0; i < 20; ++i) {
                cr_body_def d = cr_default_body_def();
                d.radius = 0.05;
                d.mass = pow(10.0, -6.0 + 12.0 * i / 19.0);
                d.position = cr_v3(-0.8 + 0.08 * i, 0.1 * (i % 3), 0.0);
                d.velocity = cr_v3((i % 2 ? 1 : -1) * 3.0, (i % 3 - 1) * 2.0, 1.0);
                d.restitution = 1.0;
                d.friction = 0.3;
                assert_int_equal(cr_world_add_body(w, &d, NULL), CR_OK);
            }
            double worst = run_bounded(w, 2000, 1e-9);
            print_message("masses 1e-6..1e6 kg, %s, %s: 2000 steps, largest E/E0 %.17g\n", m ? "event" : "impulse",
                          l ? "stronge" : "newton", worst);
            cr_world_destroy(w);
        }
}

/* Head-on, elastic, 1e-6 kg against 1e6 kg: the closed form
 * v1' = ((m1 - m2) v1 + 2 m2 v2) / (m1 + m2), momentum conserved. */
static void test_masses_head_on(void **state)
{
    (void)state;
    for (int m = 0; m < 2; ++m) {
        cr_world_def def = cr_default_world_def();
        def.gravity = cr_v3_zero();
        def.method = m ? CR_METHOD_EVENT : CR_METHOD_IMPULSE;
        cr_world *w = make_world_def(&def);
        const double m1 = 1e-6, m2 = 1e6, v1 = 5.0, v2 = -1.0;
        cr_body_id a = add_sphere(w, cr_v3(-0.5, 0, 0), cr_v3(v1, 0, 0), 0.1, m1, CR_INERTIA_SOLID, 1.0, 0.0);
        cr_body_id b = add_sphere(w, cr_v3(0.5, 0, 0), cr_v3(v2, 0, 0), 0.1, m2, CR_INERTIA_SOLID, 1.0, 0.0);
        step_n(w, 300);
        double va = state_of(w, a).velocity.x, vb = state_of(w, b).velocity.x;
        assert_near(va, ((m1 - m2) * v1 + 2 * m2 * v2) / (m1 + m2), 1e-9);
        assert_near(vb, ((m2 - m1) * v2 + 2 * m1 * v1) / (m1 + m2), 1e-12);
        assert_near(m1 * va + m2 * vb, m1 * v1 + m2 * v2, 1e-9 * m2);
        cr_world_destroy(w);
    }
}

/* ---- coincident spheres --------------------------------------------------- */

static char *coincident_scene(int n)
{
    static const char head[] = "{\"gravity\": [0, 0, 0], \"allow_overlap\": true, \"bodies\": [";
    static const char body[] = "{\"radius\": 0.01, \"restitution\": 1, \"friction\": 0}";
    size_t size = sizeof head + (size_t)n * (sizeof body + 1) + 4;
    char *json = malloc(size), *p = json;
    assert_non_null(json);
    p += sprintf(p, "%s", head);
    for (int i = 0; i < n; ++i) p += sprintf(p, "%s%s", i ? "," : "", body);
    sprintf(p, "]}");
    return json;
}

/* 10^5 spheres at one point: a step would solve 5e9 overlapping pairs
 * (hours and tens of GB); the loader refuses, naming the first pair. */
static void test_coincident_spheres_refused(void **state)
{
    (void)state;
    char *json = coincident_scene(100000);
    cr_scene s;
    char err[512];
    assert_int_equal(cr_scene_load_string(json, "pile.json", &s, err, sizeof err), -1);
    free(json);
    assert_null(s.world);
    assert_non_null(strstr(err, "pile.json: more than 6500000 overlapping pairs among 100000 bodies"));
    assert_non_null(strstr(err, "bodies[1] overlaps bodies[0]"));
    assert_non_null(strstr(err, "spread the bodies out"));
    /* Without allow_overlap the same pile gets the same message (the
     * ordinary overlap check would build every pair first). */
    json = coincident_scene(100000);
    char *flag = strstr(json, "\"allow_overlap\": true");
    memcpy(flag, "\"allow_overlap\":false", strlen("\"allow_overlap\":false"));
    assert_int_equal(cr_scene_load_string(json, "pile.json", &s, err, sizeof err), -1);
    free(json);
    assert_non_null(strstr(err, "overlapping pairs among 100000 bodies"));
}

/* The same pile beside one box: a rigid-body scene, whose spheres are
 * counted as in a scene of spheres (before tidy6, 3,000 of them loaded and
 * their first step took over a minute and 11 GB); a pyramid of boxes still
 * loads. */
static void test_coincident_spheres_beside_a_box_refused(void **state)
{
    (void)state;
    char *json = coincident_scene(3000);
    size_t len = strlen(json);
    static const char box[] = ",{\"shape\": \"box\", \"half_extents\": [0.5, 0.5, 0.5], \"position\": [5, 5, 5]}]}";
    char *mixed = malloc(len + sizeof box);
    assert_non_null(mixed);
    memcpy(mixed, json, len - 2); /* without the closing "]}" */
    memcpy(mixed + len - 2, box, sizeof box);
    free(json);
    cr_scene s;
    char err[512];
    assert_int_equal(cr_scene_load_string(mixed, "pile.json", &s, err, sizeof err), -1);
    free(mixed);
    assert_null(s.world);
    assert_non_null(strstr(err, "pile.json: more than 292064 overlapping pairs among 3001 bodies"));
    assert_non_null(strstr(err, "bodies[1] overlaps bodies[0]"));
    assert_int_equal(cr_scene_load_file(CAROM_SOURCE_DIR "/scenes/pyramid.json", &s, err, sizeof err), 0);
    cr_scene_free(&s);
}

/* n bodies of one shape ("shape": ..., its keys) at z = dz k, k < n. */
static char *column_scene(int n, const char *shape, double dz)
{
    static const char head[] = "{\"gravity\": [0, 0, 0], \"allow_overlap\": true, \"bodies\": [";
    size_t size = sizeof head + (size_t)n * (strlen(shape) + 64) + 4;
    char *json = malloc(size), *p = json;
    assert_non_null(json);
    p += sprintf(p, "%s", head);
    for (int i = 0; i < n; ++i) p += sprintf(p, "%s{%s, \"position\": [0, 0, %.17g]}", i ? "," : "", shape, dz * i);
    sprintf(p, "]}");
    return json;
}

/* Coincident boxes pile up as spheres do (each step would solve every
 * pair): refused, counted by their inner balls (before, a rigid-body scene
 * counted its spheres only, and 3,000 coincident boxes loaded). Thin
 * plates stacked face to face are no pile, though each one's bounding
 * sphere overlaps ~700 others': 2,000 of them load. */
static void test_coincident_boxes_refused(void **state)
{
    (void)state;
    cr_scene s;
    char err[512];
    char *json = column_scene(3000, "\"shape\": \"box\", \"half_extents\": [0.05, 0.05, 0.05]", 0.0);
    assert_int_equal(cr_scene_load_string(json, "boxes.json", &s, err, sizeof err), -1);
    free(json);
    assert_null(s.world);
    assert_non_null(strstr(err, "boxes.json: more than 292000 overlapping pairs among 3000 bodies"));
    assert_non_null(strstr(err, "bodies[1] overlaps bodies[0]"));
    json = column_scene(2000, "\"shape\": \"box\", \"half_extents\": [0.5, 0.5, 0.001]", 0.002);
    int rc = cr_scene_load_string(json, "plates.json", &s, err, sizeof err);
    free(json);
    if (rc) fail_msg("%s", err);
    assert_int_equal(cr_world_body_count(s.world), 2000);
    cr_scene_free(&s);
}

/* A few hundred coincident spheres are a dense but finite problem: they run. */
static void test_coincident_spheres_few(void **state)
{
    (void)state;
    char *json = coincident_scene(500);
    cr_scene s;
    char err[512];
    int rc = cr_scene_load_string(json, "pile.json", &s, err, sizeof err);
    free(json);
    if (rc) fail_msg("%s", err);
    double e0 = cr_world_energy(s.world).total;
    for (int k = 0; k < 5; ++k) assert_int_equal(cr_world_step(s.world), CR_OK);
    assert_all_finite(s.world);
    assert_true(cr_world_energy(s.world).total <= e0); /* at rest, nothing pushes them apart faster */
    cr_scene_free(&s);
}

/* ---- zero gravity, e = 1, long ------------------------------------------- */

/* 10^5 steps in the plain build (about 10 s); the ASan+UBSan build (-O0)
 * looks for memory errors, not drift, in 2 x 10^4 of them. */
#if defined(__SANITIZE_ADDRESS__)
#define GAS_STEPS 20000L
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GAS_STEPS 20000L
#endif
#endif
#ifndef GAS_STEPS
#define GAS_STEPS 100000L
#endif

static void test_elastic_gas_long(void **state)
{
    (void)state;
    enum { N = 200, SIDE = 6 };
    const long steps = GAS_STEPS; /* 10^6 in bench/soak.c */
    cr_world *w = make_box(CR_METHOD_EVENT, CR_LAW_NEWTON, 0.01, 0.5);
    uint64_t seed = 7;
    for (int i = 0; i < N; ++i) {
        cr_body_def d = cr_default_body_def();
        d.radius = 0.02;
        d.inertia_kind = CR_INERTIA_PARTICLE;
        d.restitution = 1.0;
        d.friction = 0.0;
        d.position = cr_v3(-0.45 + 0.9 * (i % SIDE + 0.5) / SIDE, -0.45 + 0.9 * ((i / SIDE) % SIDE + 0.5) / SIDE,
                           -0.45 + 0.9 * (i / (SIDE * SIDE) + 0.5) / SIDE);
        d.velocity = test_rand_vec(&seed, -1.0, 1.0);
        assert_int_equal(cr_world_add_body(w, &d, NULL), CR_OK);
    }
    double e0 = cr_world_energy(w).total, lo = 1.0, hi = 1.0;
    for (long k = 0; k < steps; ++k) {
        cr_status s = cr_world_step(w);
        if (s != CR_OK) fail_msg("step %ld: %s", k, cr_world_last_error(w));
        if (k % 100 == 99) {
            double r = cr_world_energy(w).total / e0;
            lo = fmin(lo, r);
            hi = fmax(hi, r);
            if (!(r <= 1.0 + 1e-9)) fail_msg("step %ld: E/E0 = %.17g", k, r);
        }
    }
    assert_all_finite(w);
    /* Exact elastic impacts between time-ordered events: the energy holds
     * to rounding, both ways. */
    assert_true(lo >= 1.0 - 1e-9);
    uint32_t cap = cr_world_body_capacity(w);
    for (uint32_t i = 0; i < cap; ++i) {
        cr_vec3 x = state_of(w, cr_world_body_at(w, i)).position;
        assert_true(fabs(x.x) <= 0.5 && fabs(x.y) <= 0.5 && fabs(x.z) <= 0.5);
    }
    print_message("%d balls, e = 1, no gravity, %ld steps: E/E0 in [%.17g, %.17g]\n", N, steps, lo, hi);
    cr_world_destroy(w);
}

/* ---- the world's non-finite check, through the C API ------------------------ */

static void test_non_finite_names_the_body(void **state)
{
    (void)state;
    for (int m = 0; m < 2; ++m) {
        cr_world_def def = cr_default_world_def();
        def.method = m ? CR_METHOD_EVENT : CR_METHOD_IMPULSE;
        cr_world *w = make_world_def(&def);
        add_plane(w, cr_v3_zero(), cr_v3(0, 0, 1));
        cr_body_id ids[10];
        for (int i = 0; i < 10; ++i)
            ids[i] = add_sphere(w, cr_v3(i, 0, 1), cr_v3_zero(), 0.1, 1, CR_INERTIA_SOLID, 0.5, 0.3);
        step_n(w, 10);
        /* Body 7 is put where one more step overflows: finite now, beyond
         * the largest double (1.7977e308) after 1e308 m/s for 1 ms. */
        cr_body_state s = state_of(w, ids[7]);
        s.position = cr_v3(1.797e308, 0, 1);
        s.velocity = cr_v3(1e308, 0, 0);
        assert_int_equal(cr_body_set_state(w, ids[7], &s), CR_OK);
        uint64_t steps = cr_world_step_count(w);
        assert_int_equal(cr_world_step(w), CR_ERR_NON_FINITE);
        const char *msg = cr_world_last_error(w);
        if (!strstr(msg, "body 7")) fail_msg("%s: the message does not name body 7: '%s'", m ? "event" : "impulse", msg);
        /* Stopped: no more steps, nothing counted, and the message stays. */
        assert_int_equal(cr_world_step(w), CR_ERR_NON_FINITE);
        assert_int_equal(cr_world_step_count(w), steps);
        assert_non_null(strstr(cr_world_last_error(w), "body 7"));
        /* The other bodies are readable. */
        for (int i = 0; i < 10; ++i) {
            cr_body_state t;
            assert_int_equal(cr_body_get_state(w, ids[i], &t), CR_OK);
            if (i != 7) assert_true(cr_v3_isfinite(t.position) && cr_v3_isfinite(t.velocity));
        }
        cr_world_destroy(w);
    }
}

/* NaN and infinity cannot be put into a world at all: defs and states
 * are checked at the door, so the step's check is the only way in. */
static void test_non_finite_refused_at_the_door(void **state)
{
    (void)state;
    cr_world *w = make_world(cr_v3(0, 0, -9.81), 1e-3, CR_METHOD_IMPULSE);
    cr_body_def d = cr_default_body_def();
    d.velocity = cr_v3(0, INFINITY, 0);
    assert_int_equal(cr_world_add_body(w, &d, NULL), CR_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cr_world_last_error(w), "velocity: must be finite"));
    cr_body_id id = add_sphere(w, cr_v3(0, 0, 1), cr_v3_zero(), 0.1, 1, CR_INERTIA_SOLID, 0.5, 0.3);
    cr_body_state s = state_of(w, id);
    s.angular_velocity.z = NAN;
    assert_int_equal(cr_body_set_state(w, id, &s), CR_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cr_world_last_error(w), "must be finite"));
    assert_true(cr_v3_isfinite(state_of(w, id).angular_velocity));
    assert_int_equal(cr_world_set_dt(w, NAN), CR_ERR_INVALID_ARGUMENT);
    cr_world_destroy(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_billion_metres_per_second),
        cmocka_unit_test(test_billion_metres_per_second_scene),
        cmocka_unit_test(test_masses_twelve_orders),
        cmocka_unit_test(test_masses_head_on),
        cmocka_unit_test(test_coincident_spheres_refused),
        cmocka_unit_test(test_coincident_spheres_beside_a_box_refused),
        cmocka_unit_test(test_coincident_boxes_refused),
        cmocka_unit_test(test_coincident_spheres_few),
        cmocka_unit_test(test_elastic_gas_long),
        cmocka_unit_test(test_non_finite_names_the_body),
        cmocka_unit_test(test_non_finite_refused_at_the_door),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
