/* Scene loading: good scenes give the bodies the JSON describes; every class
 * of bad input fails with a message naming the JSON path and the value
 * (issue 2: "a message naming the JSON path and value"). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene.h"
#include "scene_test_helpers.h"

/* ---- helpers -------------------------------------------------------------- */

static cr_body_def body_def(const cr_scene *s, uint32_t id)
{
    cr_body_def d;
    assert_int_equal(cr_body_get_def(s->world, cr_world_body_at(s->world, id), &d), CR_OK);
    return d;
}

static cr_body_state body_state(const cr_scene *s, uint32_t id)
{
    cr_body_state st;
    assert_int_equal(cr_body_get_state(s->world, cr_world_body_at(s->world, id), &st), CR_OK);
    return st;
}

static void load_ok(const char *json, cr_scene *s)
{
    char err[512];
    int rc = cr_scene_load_string(json, "scene.json", s, err, sizeof err);
    if (rc != 0) print_error("unexpected error: %s\n", err);
    assert_int_equal(rc, 0);
    assert_non_null(s->world);
}


static void assert_vec_equal(cr_vec3 a, cr_vec3 b)
{
    assert_true(a.x == b.x);
    assert_true(a.y == b.y);
    assert_true(a.z == b.z);
}

/* ---- good scenes ---------------------------------------------------------- */

static const char *good_scene =
    "{ \"gravity\": [0, -1, -9.5], \"dt\": 0.002, \"duration\": 1.5, \"output\": {\"every\": 0.01},\n"
    "  \"method\": \"event\", \"law\": \"stronge\", \"k_p\": 0.5, \"toi_tolerance\": 1e-8,\n"
    "  \"resting_speed\": 0.01, \"solver_iterations\": 7, \"pgs_iterations\": 20, \"drift_iterations\": 70,\n"
    "  \"drift_tolerance\": 2.5e-6, \"drift_max_speed\": 0.4, \"max_events_per_body\": 9,\n"
    "  \"projection_passes\": 12, \"projection_shock\": true,\n"
    "  \"statics\": [ {\"shape\": \"plane\", \"point\": [0, 0, 0], \"normal\": [0, 0, 2],\n"
    "                 \"restitution\": 0.9, \"friction\": 0.5},\n"
    "               {\"shape\": \"plane\", \"point\": [5, 0, 0], \"normal\": [-1, 0, 0]} ],\n"
    "  \"bodies\": [ {\"shape\": \"sphere\", \"radius\": 0.1, \"mass\": 2, \"inertia\": \"particle\",\n"
    "                \"position\": [0, 0, 1], \"velocity\": [1, 2, 3], \"restitution\": 0.8, \"friction\": 0.3},\n"
    "              {\"radius\": 0.2, \"mass\": 3, \"inertia\": \"hollow\", \"position\": [1, 0, 1],\n"
    "               \"angular_velocity\": [0, 0, 4], \"type\": \"kinematic\"},\n"
    "              {\"radius\": 0.05, \"inertia\": 0.25, \"position\": [2, 0, 1]} ] }";

static void test_good_scene_values(void **state)
{
    (void)state;
    cr_scene s;
    load_ok(good_scene, &s);
    assert_int_equal(s.body_count, 3);
    assert_int_equal(s.static_count, 2);
    assert_int_equal(cr_world_body_count(s.world), 3);
    assert_int_equal(cr_world_plane_count(s.world), 2);
    assert_true(s.duration == 1.5);
    assert_true(s.output_every == 0.01);
    assert_int_equal(s.steps, 750);
    assert_int_equal(s.output_stride, 5);
    assert_int_equal(cr_scene_sample_count(&s), 151);
    assert_false(s.allow_overlap);

    const cr_world_def *wd = cr_world_get_def(s.world);
    assert_vec_equal(wd->gravity, cr_v3(0, -1, -9.5));
    assert_true(wd->dt == 0.002);
    assert_int_equal(wd->method, CR_METHOD_EVENT);
    assert_int_equal(wd->law, CR_LAW_STRONGE);
    assert_true(wd->k_p == 0.5);
    assert_true(wd->toi_tolerance == 1e-8);
    assert_true(wd->resting_speed == 0.01);
    assert_int_equal(wd->solver_iterations, 7);
    assert_int_equal(wd->pgs_iterations, 20);
    assert_int_equal(wd->drift_iterations, 70);
    assert_true(wd->drift_tolerance == 2.5e-6);
    assert_true(wd->drift_max_speed == 0.4);
    assert_int_equal(wd->max_events_per_body, 9);
    assert_int_equal(wd->projection_passes, 12);
    assert_true(wd->projection_shock);

    cr_body_def b0 = body_def(&s, 0);
    assert_true(b0.radius == 0.1 && b0.mass == 2.0);
    assert_int_equal(b0.inertia_kind, CR_INERTIA_PARTICLE);
    assert_true(b0.restitution == 0.8 && b0.friction == 0.3);
    assert_int_equal(b0.type, CR_BODY_DYNAMIC);
    cr_body_state s0 = body_state(&s, 0);
    assert_vec_equal(s0.position, cr_v3(0, 0, 1));
    assert_vec_equal(s0.velocity, cr_v3(1, 2, 3));

    cr_body_def b1 = body_def(&s, 1);
    assert_true(b1.radius == 0.2 && b1.mass == 3.0);
    assert_int_equal(b1.inertia_kind, CR_INERTIA_HOLLOW);
    assert_int_equal(b1.type, CR_BODY_KINEMATIC);
    assert_vec_equal(body_state(&s, 1).angular_velocity, cr_v3(0, 0, 4));

    /* Unspecified fields keep the cr_default_body_def() values. */
    cr_body_def d = cr_default_body_def();
    cr_body_def b2 = body_def(&s, 2);
    assert_int_equal(b2.inertia_kind, CR_INERTIA_CUSTOM);
    assert_true(b2.inertia == 0.25);
    assert_true(b2.mass == d.mass);
    assert_true(b2.restitution == d.restitution && b2.friction == d.friction);

    cr_plane_def p0;
    assert_int_equal(cr_plane_get_def(s.world, (cr_static_id){0, 1, CR_STATIC_PLANE}, &p0), CR_OK);
    assert_true(fabs(cr_v3_len(p0.normal) - 1.0) < 1e-15); /* normalised from [0,0,2] */
    assert_true(p0.restitution == 0.9 && p0.friction == 0.5);
    cr_scene_free(&s);
    cr_scene_free(&s); /* harmless twice */
}

static void test_defaults(void **state)
{
    (void)state;
    cr_scene s;
    load_ok("{}", &s);
    cr_world_def d = cr_default_world_def();
    const cr_world_def *wd = cr_world_get_def(s.world);
    assert_vec_equal(wd->gravity, d.gravity);
    assert_true(wd->dt == d.dt && wd->k_p == d.k_p);
    assert_int_equal(s.body_count, 0);
    assert_true(s.duration == 1.0);
    assert_true(s.output_every == 0.01);
    assert_int_equal(s.steps, 1000);
    assert_int_equal(s.output_stride, 10);
    assert_int_equal(cr_scene_sample_count(&s), 101);
    cr_scene_free(&s);

    /* duration 0: one sample, t = 0. */
    load_ok("{\"duration\": 0, \"description\": \"empty\"}", &s);
    assert_int_equal(s.steps, 0);
    assert_int_equal(cr_scene_sample_count(&s), 1);
    cr_scene_free(&s);
}

static void test_allow_overlap(void **state)
{
    (void)state;
    cr_scene s;
    load_ok("{\"allow_overlap\": true, \"bodies\": [{\"radius\": 0.1}, {\"radius\": 0.1, \"position\": [0.1, 0, 0]}]}",
            &s);
    assert_true(s.allow_overlap);
    assert_int_equal(s.body_count, 2);
    cr_scene_free(&s);
    /* Touching is not overlapping. */
    load_ok("{\"statics\": [{\"normal\": [0, 0, 1]}], \"bodies\": [{\"radius\": 0.1, \"position\": [0, 0, 0.1]},"
            " {\"radius\": 0.1, \"position\": [0.2, 0, 0.1]}]}",
            &s);
    cr_scene_free(&s);
}

/* ---- bad scenes: path and value in every message -------------------------- */

static void test_unknown_key(void **state)
{
    (void)state;
    EXPECT_ERROR("{\"bodies\": [{}, {\"position\": [1, 0, 0], \"foo\": 1}]}", "bodies[1].foo: unknown key");
    EXPECT_ERROR("{\"gravty\": [0, 0, -9.81]}", "gravty: unknown key");
    EXPECT_ERROR("{\"output\": {\"every\": 0.1, \"format\": \"csv\"}}", "output.format: unknown key");
    EXPECT_ERROR("{\"statics\": [{\"nromal\": [0, 0, 1]}]}", "statics[0].nromal: unknown key");
    EXPECT_ERROR("{\"generate\": [{\"lattice\": {\"count\": [1, 1, 1], \"spacing\": 1, \"jiter\": 0}}]}",
                 "generate[0].lattice.jiter: unknown key");
    EXPECT_ERROR("{\"bodies\": [{\"radius\": 0.1, \"radius\": 0.2}]}", "bodies[0].radius: duplicate key");
}

static void test_wrong_type(void **state)
{
    (void)state;
    EXPECT_ERROR("{\"gravity\": \"x\"}", "gravity: expected an array of 3 numbers, got \"x\"");
    EXPECT_ERROR("{\"gravity\": [0, 0]}", "gravity: expected an array of 3 numbers, got [0,0]");
    EXPECT_ERROR("{\"dt\": \"0.001\"}", "dt: expected a number, got \"0.001\"");
    EXPECT_ERROR("{\"bodies\": {}}", "bodies: expected an array of objects, got {}");
    EXPECT_ERROR("{\"bodies\": [3]}", "bodies[0]: expected an object, got 3");
    EXPECT_ERROR("{\"allow_overlap\": 1}", "allow_overlap: expected true or false, got 1");
    EXPECT_ERROR("{\"method\": \"euler\"}", "method: expected one of \"impulse\", \"event\", \"dem\", got \"euler\"");
    EXPECT_ERROR("{\"law\": 1}", "law: expected one of", "got 1");
    EXPECT_ERROR("{\"bodies\": [{\"shape\": \"cone\"}]}",
                 "bodies[0].shape: expected one of \"sphere\", \"box\", \"hull\", \"mesh\", got \"cone\"");
    EXPECT_ERROR("{\"bodies\": [{\"inertia\": \"cube\"}]}", "bodies[0].inertia:", "got \"cube\"");
    EXPECT_ERROR("{\"bodies\": [{\"type\": \"frozen\"}]}", "bodies[0].type:", "got \"frozen\"");
    EXPECT_ERROR("{\"solver_iterations\": 2.5}", "solver_iterations: expected an integer, got 2.5");
    EXPECT_ERROR("[]", "expected a JSON object at the top level, got []");
}

static void test_bad_numbers(void **state)
{
    (void)state;
    EXPECT_ERROR("{\"bodies\": [{\"mass\": -2}]}", "bodies[0].mass: must be > 0, got -2");
    EXPECT_ERROR("{\"bodies\": [{\"mass\": 0}]}", "bodies[0].mass: must be > 0, got 0");
    EXPECT_ERROR("{\"bodies\": [{\"radius\": -0.1}]}", "bodies[0].radius: must be > 0, got -0.1");
    EXPECT_ERROR("{\"bodies\": [{\"restitution\": 1.5}]}", "bodies[0].restitution: must be in [0, 1], got 1.5");
    EXPECT_ERROR("{\"statics\": [{\"restitution\": -0.5}]}", "statics[0].restitution: must be in [0, 1], got -0.5");
    EXPECT_ERROR("{\"bodies\": [{\"friction\": -1}]}", "bodies[0].friction: must be >= 0, got -1");
    EXPECT_ERROR("{\"bodies\": [{\"inertia\": -1}]}", "bodies[0].inertia: must be > 0", "got -1");
    EXPECT_ERROR("{\"dt\": 0}", "dt: must be > 0, got 0");
    EXPECT_ERROR("{\"duration\": -1}", "duration: must be >= 0, got -1");
    EXPECT_ERROR("{\"k_p\": 2}", "k_p: must be in [0, 1], got 2");
    EXPECT_ERROR("{\"dt\": 0.01, \"output\": {\"every\": 0.001}}", "output.every: must be >= dt (0.01), got 0.001");
    EXPECT_ERROR("{\"solver_iterations\": 0}", "solver_iterations: must be an integer in [1, 1000], got 0");
    EXPECT_ERROR("{\"pgs_iterations\": 0}", "pgs_iterations: must be an integer in [1, 100000], got 0");
    EXPECT_ERROR("{\"drift_iterations\": 0}", "drift_iterations: must be an integer in [1, 100000], got 0");
    EXPECT_ERROR("{\"drift_iterations\": 2.5}", "drift_iterations: expected an integer, got 2.5");
    EXPECT_ERROR("{\"drift_tolerance\": -1}", "drift_tolerance", "-1");
    EXPECT_ERROR("{\"drift_max_speed\": -0.5}", "drift_max_speed", "-0.5");
    EXPECT_ERROR("{\"projection_passes\": 0}", "projection_passes: must be an integer in [1, 1000], got 0");
    EXPECT_ERROR("{\"projection_shock\": 1}", "projection_shock", "expected true or false");
    EXPECT_ERROR("{\"projection_shock\": true}", "projection_shock: needs projection_passes >= 2", "got 1");
    EXPECT_ERROR("{\"bodies\": [{\"inertia\": \"particle\", \"angular_velocity\": [0, 0, 1]}]}",
                 "bodies[0].angular_velocity: must be zero for a particle", "got [0,0,1]");
}

static void test_zero_normal(void **state)
{
    (void)state;
    EXPECT_ERROR("{\"statics\": [{\"shape\": \"plane\", \"normal\": [0, 0, 0]}]}",
                 "statics[0].normal: must be non-zero and finite, got [0,0,0]");
    EXPECT_ERROR("{\"statics\": [{\"normal\": [0, 0, 1]}, {\"normal\": [1e300, 1e300, 0]}]}",
                 "statics[1].normal: must be non-zero and finite, got [1e+300,1e+300,0]");
}

static void test_non_finite(void **state)
{
    (void)state;
    /* cJSON turns 1e999 into infinity; the loader must not let it through. */
    EXPECT_ERROR("{\"bodies\": [{\"velocity\": [0, 1e999, 0]}]}", "bodies[0].velocity[1]: must be a finite number, got inf");
    EXPECT_ERROR("{\"dt\": -1e999}", "dt: must be a finite number, got -inf");
    EXPECT_ERROR("{\"bodies\": [{\"mass\": 1e999}]}", "bodies[0].mass: must be a finite number, got inf");
    EXPECT_ERROR("{\"gravity\": [0, 0, 1e999]}", "gravity[2]: must be a finite number, got inf");
    EXPECT_ERROR("{\"bodies\": [{\"inertia\": 1e999}]}", "bodies[0].inertia:", "got inf");
    /* NaN is not JSON: a parse error with its place and a hint. */
    EXPECT_ERROR("{\n  \"dt\": NaN\n}", "line 2, column 9", "NaN");
    EXPECT_ERROR("{\"dt\": 0.001,}", "line 1, column", "invalid JSON");
    EXPECT_ERROR("{\"dt\": 0.001}\n{}", "line 2, column 1: invalid JSON near '{}'");
    EXPECT_ERROR("{\"dt\": 0.001", "invalid JSON");
    EXPECT_ERROR("", "invalid JSON");
}

static void test_overlapping_start(void **state)
{
    (void)state;
    EXPECT_ERROR("{\"bodies\": [{\"radius\": 0.1, \"position\": [0, 0, 0]}, {\"radius\": 0.1, \"position\": [0.18, 0, 0]}]}",
                 "bodies[1] overlaps bodies[0] by 0.02 m", "allow_overlap");
    EXPECT_ERROR("{\"statics\": [{\"normal\": [0, 0, 1]}], \"bodies\": [{\"radius\": 0.1, \"position\": [0, 0, 0.05]}]}",
                 "bodies[0] penetrates statics[0] by 0.05 m");
    EXPECT_ERROR("{\"bodies\": [{\"radius\": 0.1, \"position\": [0, 0, 0]}],"
                 " \"generate\": [{\"lattice\": {\"count\": [2, 1, 1], \"spacing\": 0.3, \"origin\": [0.15, 0, 0]},"
                 " \"body\": {\"radius\": 0.1}}]}",
                 "generate[0] body 0 (id 1) overlaps bodies[0] by 0.05 m");
}

static void test_unreadable_file(void **state)
{
    (void)state;
    cr_scene s;
    char err[512];
    assert_int_equal(cr_scene_load_file("/nonexistent/scene.json", &s, err, sizeof err), -1);
    assert_null(s.world);
    assert_non_null(strstr(err, "/nonexistent/scene.json: cannot read: No such file or directory"));
    assert_int_equal(cr_scene_load_file(CAROM_SOURCE_DIR "/scenes", &s, err, sizeof err), -1);
    assert_non_null(strstr(err, "scenes: cannot read: Is a directory"));
}

static void test_bad_generator(void **state)
{
    (void)state;
    EXPECT_ERROR("{\"generate\": [{}]}", "generate[0]: expected exactly one of \"lattice\", \"random_fill\" or \"on_surface\", got none");
    EXPECT_ERROR("{\"generate\": [{\"lattice\": {\"count\": [1, 1, 1], \"spacing\": 1},"
                 " \"random_fill\": {\"count\": 1, \"min\": [0, 0, 0], \"max\": [1, 1, 1]}}]}",
                 "generate[0]: expected exactly one", "got more than one");
    EXPECT_ERROR("{\"generate\": [{\"lattice\": {\"count\": [2, -2, 2], \"spacing\": 1}}]}",
                 "generate[0].lattice.count:", "got [2,-2,2]");
    EXPECT_ERROR("{\"generate\": [{\"lattice\": {\"count\": [10, 10, 1.5], \"spacing\": 1}}]}",
                 "generate[0].lattice.count:", "got [10,10,1.5]");
    EXPECT_ERROR("{\"generate\": [{\"lattice\": {\"count\": [2, 2, 2]}}]}", "generate[0].lattice.spacing: missing");
    EXPECT_ERROR("{\"generate\": [{\"lattice\": {\"count\": [2, 2, 2], \"spacing\": -1}}]}",
                 "generate[0].lattice.spacing: must be > 0, got -1");
    EXPECT_ERROR("{\"generate\": [{\"lattice\": {\"count\": [2, 2, 2], \"spacing\": 1}, \"body\": {\"position\": [0, 0, 0]}}]}",
                 "generate[0].body.position: not allowed", "got [0,0,0]");
    EXPECT_ERROR("{\"generate\": [{\"lattice\": {\"count\": [2, 2, 2], \"spacing\": 1}, \"body\": {\"radius\": -1}}]}",
                 "generate[0].body.radius: must be > 0, got -1");
    EXPECT_ERROR("{\"generate\": [{\"lattice\": {\"count\": [1000, 1000, 1000], \"spacing\": 1}}]}",
                 "generate[0].lattice.count:", "limit");
    EXPECT_ERROR("{\"generate\": [{\"random_fill\": {\"count\": 1000, \"min\": [0, 0, 0], \"max\": [0.5, 0.5, 0.5]},"
                 " \"body\": {\"radius\": 0.05}}]}",
                 "generate[0].random_fill.count: placed only", "of 1000 spheres");
    EXPECT_ERROR("{\"generate\": [{\"random_fill\": {\"count\": 3, \"min\": [0, 0, 0], \"max\": [1, 0.1, 1]},"
                 " \"body\": {\"radius\": 0.1}}]}",
                 "generate[0].random_fill: the box must be at least the sphere diameter 0.2 wide",
                 "got min [0,0,0], max [1,0.1,1]");
    EXPECT_ERROR("{\"generate\": [{\"random_fill\": {\"count\": 3, \"max\": [1, 1, 1]}}]}",
                 "generate[0].random_fill.min: missing");
    EXPECT_ERROR("{\"generate\": [{\"random_fill\": {\"count\": 3, \"min\": [0, 0, 0], \"max\": [1, 1, 1], \"seed\": -1}}]}",
                 "generate[0].random_fill.seed:", "got -1");
}

/* A tiny message buffer is filled, never overrun (ASan checks this). */
static void test_small_error_buffer(void **state)
{
    (void)state;
    cr_scene s;
    char err[8];
    memset(err, 'x', sizeof err);
    assert_int_equal(cr_scene_load_string("{\"bodies\": [{\"mass\": -2}]}", "scene.json", &s, err, sizeof err), -1);
    assert_int_equal(err[sizeof err - 1], '\0');
    assert_int_equal(cr_scene_load_string("{\"x\": 1}", NULL, &s, NULL, 0), -1);
}

/* ---- generators ----------------------------------------------------------- */

static char *lattice_scene(int seed, double jitter)
{
    static char buf[512];
    snprintf(buf, sizeof buf,
             "{\"bodies\": [{\"radius\": 0.05, \"position\": [-1, -1, -1]}],"
             " \"generate\": [{\"lattice\": {\"count\": [4, 3, 2], \"origin\": [0, 0, 1], \"spacing\": [0.2, 0.3, 0.4],"
             " \"jitter\": %g, \"seed\": %d}, \"body\": {\"radius\": 0.05, \"mass\": 0.5, \"velocity\": [0, 0, -1]}}]}",
             jitter, seed);
    return buf;
}

static void test_lattice(void **state)
{
    (void)state;
    cr_scene s;
    load_ok(lattice_scene(1, 0.0), &s);
    assert_int_equal(s.body_count, 1 + 4 * 3 * 2);
    /* Generated bodies follow "bodies"; x varies fastest, then y, then z. */
    assert_vec_equal(body_state(&s, 0).position, cr_v3(-1, -1, -1));
    assert_vec_equal(body_state(&s, 1).position, cr_v3(0, 0, 1));
    assert_vec_equal(body_state(&s, 2).position, cr_v3(0.2, 0, 1));
    assert_vec_equal(body_state(&s, 1 + 4).position, cr_v3(0, 0.3, 1));
    assert_vec_equal(body_state(&s, 1 + 12).position, cr_v3(0, 0, 1.4));
    assert_vec_equal(body_state(&s, 24).velocity, cr_v3(0, 0, -1));
    assert_true(body_def(&s, 24).mass == 0.5);
    cr_scene_free(&s);
}

static void test_lattice_jitter_determinism(void **state)
{
    (void)state;
    cr_scene a, b, c;
    load_ok(lattice_scene(7, 0.02), &a);
    load_ok(lattice_scene(7, 0.02), &b);
    load_ok(lattice_scene(8, 0.02), &c);
    int differ = 0;
    for (uint32_t i = 1; i < a.body_count; ++i) {
        cr_vec3 pa = body_state(&a, i).position, pb = body_state(&b, i).position, pc = body_state(&c, i).position;
        assert_vec_equal(pa, pb); /* same seed: bit-identical */
        if (pa.x != pc.x || pa.y != pc.y || pa.z != pc.z) ++differ;
        /* Within the jitter of its lattice point. */
        uint32_t k = i - 1;
        cr_vec3 grid = cr_v3(0.2 * (k % 4), 0.3 * ((k / 4) % 3), 1 + 0.4 * (k / 12));
        assert_true(fabs(pa.x - grid.x) <= 0.02 && fabs(pa.y - grid.y) <= 0.02 && fabs(pa.z - grid.z) <= 0.02);
    }
    assert_int_equal(differ, (int)a.body_count - 1); /* different seed: every body moves */
    cr_scene_free(&a);
    cr_scene_free(&b);
    cr_scene_free(&c);
}

/* "speed": random directions of the given magnitude, on their own stream so
 * that positions do not change when speed is added. */
static void test_generator_speed(void **state)
{
    (void)state;
    cr_scene a, b;
    load_ok("{\"generate\": [{\"lattice\": {\"count\": [5, 5, 4], \"spacing\": 0.5, \"jitter\": 0.1, \"seed\": 5,"
            " \"speed\": 2}, \"body\": {\"velocity\": [0, 0, 1]}}]}",
            &a);
    load_ok("{\"generate\": [{\"lattice\": {\"count\": [5, 5, 4], \"spacing\": 0.5, \"jitter\": 0.1, \"seed\": 5}}]}", &b);
    cr_vec3 mean = cr_v3_zero();
    for (uint32_t i = 0; i < a.body_count; ++i) {
        cr_body_state sa = body_state(&a, i);
        assert_vec_equal(sa.position, body_state(&b, i).position);
        cr_vec3 dv = cr_v3_sub(sa.velocity, cr_v3(0, 0, 1));
        assert_true(fabs(cr_v3_len(dv) - 2.0) < 1e-12);
        mean = cr_v3_add(mean, cr_v3_scale(dv, 1.0 / a.body_count));
    }
    /* 100 random directions: their mean is far shorter than one of them. */
    assert_true(cr_v3_len(mean) < 0.6);
    cr_scene_free(&a);
    cr_scene_free(&b);
}

static const char *fill_scene =
    "{\"statics\": [{\"point\": [0, 0, 0], \"normal\": [0, 0, 1]}, {\"point\": [0.9, 0, 0], \"normal\": [-1, 0, 0]}],"
    " \"bodies\": [{\"radius\": 0.2, \"position\": [0.5, 0.5, 0.5]}],"
    " \"generate\": [{\"random_fill\": {\"count\": 400, \"min\": [0, 0, -1], \"max\": [1, 1, 1], \"seed\": %d},"
    "                 \"body\": {\"radius\": 0.04, \"inertia\": \"particle\"}}]}";

static void test_random_fill_no_overlap(void **state)
{
    (void)state;
    char json[600];
    snprintf(json, sizeof json, fill_scene, 3);
    cr_scene s;
    load_ok(json, &s);
    assert_int_equal(s.body_count, 401);
    cr_vec3 *p = malloc(s.body_count * sizeof *p);
    double *r = malloc(s.body_count * sizeof *r);
    for (uint32_t i = 0; i < s.body_count; ++i) {
        p[i] = body_state(&s, i).position;
        r[i] = body_def(&s, i).radius;
    }
    for (uint32_t i = 1; i < s.body_count; ++i) {
        /* Inside the box, whole, and clear of both planes. */
        assert_true(p[i].x >= 0.04 && p[i].x <= 0.9 - 0.04);
        assert_true(p[i].y >= 0.04 && p[i].y <= 1 - 0.04);
        assert_true(p[i].z >= 0.04 && p[i].z <= 1 - 0.04);
        assert_int_equal(body_def(&s, i).inertia_kind, CR_INERTIA_PARTICLE);
    }
    /* All pairs, the slow way: the check must not share the loader's grid. */
    for (uint32_t i = 0; i < s.body_count; ++i)
        for (uint32_t j = i + 1; j < s.body_count; ++j)
            assert_true(cr_v3_len(cr_v3_sub(p[i], p[j])) >= r[i] + r[j]);
    cr_body_id a, b;
    assert_true(cr_world_max_overlap(s.world, &a, &b) <= 0.0);

    /* Seeded: the same seed gives the same bodies, another seed others. */
    cr_scene t;
    load_ok(json, &t);
    for (uint32_t i = 0; i < s.body_count; ++i) assert_vec_equal(body_state(&t, i).position, p[i]);
    cr_scene_free(&t);
    snprintf(json, sizeof json, fill_scene, 4);
    load_ok(json, &t);
    assert_false(body_state(&t, 1).position.x == p[1].x);
    cr_scene_free(&t);
    free(p);
    free(r);
    cr_scene_free(&s);
}


/* ---- surfaces (seed 004) -------------------------------------------------- */

static const cr_surface_def *surface_def(const cr_scene *s, uint32_t static_index)
{
    assert_true(static_index < s->static_count);
    assert_int_equal(s->statics[static_index].type, CR_STATIC_SURFACE);
    const cr_surface *surf = cr_world_surface(s->world, s->statics[static_index].index);
    assert_non_null(surf);
    return cr_surface_get_def(surf);
}

static const char *surfaces_scene =
    "{\"statics\": ["
    "  {\"shape\": \"plane\", \"point\": [0, 0, -5], \"normal\": [0, 0, 1]},"
    "  {\"shape\": \"surface\", \"type\": \"plane\", \"point\": [0, 0, 1], \"normal\": [0, 3, 4],"
    "   \"restitution\": 0.7, \"friction\": 0.4, \"rolling_friction\": 0.01},"
    "  {\"shape\": \"surface\", \"type\": \"hills\", \"height\": 0.5, \"min\": [-2, -1], \"max\": [3, 1.5],"
    "   \"hills\": [{\"amplitude\": 0.3, \"center\": [0.5, -0.25], \"width\": 0.6},"
    "             {\"amplitude\": -0.1, \"center\": [-1, 1], \"width\": 0.4}],"
    "   \"waves\": {\"amplitude\": 0.02, \"length\": [1.5, 2]}},"
    "  {\"shape\": \"surface\", \"type\": \"bowl\", \"center\": [10, 0, 2], \"radius\": 1.5, \"friction\": 0.2},"
    "  {\"shape\": \"surface\", \"type\": \"bspline\", \"degree\": 2, \"flip_normal\": true,"
    "   \"control_points\": [[[0, 0, 0], [0, 1, 0.1], [0, 2, 0], [0, 3, 0]],"
    "                        [[1, 0, 0.2], [1, 1, 0.3], [1, 2, 0.2], [1, 3, 0]],"
    "                        [[2, 0, 0], [2, 1, 0.1], [2, 2, 0], [2, 3, 0.5]]]},"
    "  {\"shape\": \"surface\", \"type\": \"bspline\","
    "   \"control_points\": [[[0, 0, 0], [0, 1, 0], [0, 2, 0], [0, 3, 0]], [[1, 0, 0], [1, 1, 0], [1, 2, 0], [1, 3, 0]],"
    "                        [[2, 0, 0], [2, 1, 0], [2, 2, 0], [2, 3, 0]], [[3, 0, 0], [3, 1, 0], [3, 2, 0], [3, 3, 0]]]}"
    "], \"bodies\": [{\"radius\": 0.05, \"inertia\": \"hollow\", \"inner_radius\": 0.03, \"rolling_friction\": 0.002,"
    "               \"position\": [0, 0, 30]}]}";

static void test_surface_types(void **state)
{
    (void)state;
    cr_scene s;
    load_ok(surfaces_scene, &s);
    assert_int_equal(s.static_count, 6);
    assert_int_equal(cr_world_plane_count(s.world), 1);
    assert_int_equal(cr_world_surface_count(s.world), 5);
    /* statics[i] names each entry's plane or surface, in file order. */
    assert_int_equal(s.statics[0].type, CR_STATIC_PLANE);
    assert_int_equal(s.statics[0].index, 0);
    for (uint32_t i = 1; i < 6; ++i) {
        assert_int_equal(s.statics[i].type, CR_STATIC_SURFACE);
        assert_int_equal(s.statics[i].index, i - 1);
    }

    const cr_surface_def *p = surface_def(&s, 1);
    assert_int_equal(p->type, CR_SURFACE_PLANE);
    assert_vec_equal(p->point, cr_v3(0, 0, 1));
    assert_true(fabs(p->normal.y - 0.6) < 1e-15 && fabs(p->normal.z - 0.8) < 1e-15 && p->normal.x == 0.0);
    assert_true(p->restitution == 0.7 && p->friction == 0.4 && p->rolling_friction == 0.01);

    const cr_surface_def *h = surface_def(&s, 2);
    assert_int_equal(h->type, CR_SURFACE_HILLS);
    assert_true(h->height == 0.5);
    assert_true(h->u_min == -2 && h->v_min == -1 && h->u_max == 3 && h->v_max == 1.5);
    assert_int_equal(h->hill_count, 2);
    assert_true(h->hills[0].amplitude == 0.3 && h->hills[0].x == 0.5 && h->hills[0].y == -0.25 && h->hills[0].width == 0.6);
    assert_true(h->hills[1].amplitude == -0.1 && h->hills[1].x == -1 && h->hills[1].y == 1 && h->hills[1].width == 0.4);
    assert_true(h->wave_amplitude == 0.02 && h->wave_length_x == 1.5 && h->wave_length_y == 2);
    /* Defaults of cr_default_surface_def(): the ball's coefficients decide. */
    assert_true(h->restitution == 1.0 && h->friction == 1.0 && h->rolling_friction == 0.0);
    assert_null(h->coefficients);

    const cr_surface_def *b = surface_def(&s, 3);
    assert_int_equal(b->type, CR_SURFACE_BOWL);
    assert_vec_equal(b->center, cr_v3(10, 0, 2));
    assert_true(b->radius == 1.5 && b->friction == 0.2);

    const cr_surface_def *sp = surface_def(&s, 4);
    assert_int_equal(sp->type, CR_SURFACE_BSPLINE);
    assert_int_equal(sp->degree, 2);
    assert_true(sp->flip_normal);
    /* Rows are u, columns v: point [i][j] is control_points[i * count_v + j]. */
    assert_int_equal(sp->count_u, 3);
    assert_int_equal(sp->count_v, 4);
    assert_vec_equal(sp->control_points[0 * 4 + 1], cr_v3(0, 1, 0.1));
    assert_vec_equal(sp->control_points[1 * 4 + 0], cr_v3(1, 0, 0.2));
    assert_vec_equal(sp->control_points[2 * 4 + 3], cr_v3(2, 3, 0.5));
    const cr_surface_def *sp2 = surface_def(&s, 5);
    assert_int_equal(sp2->degree, 3); /* the default */
    assert_false(sp2->flip_normal);
    assert_int_equal(sp2->count_u, 4);

    /* Bodies: a hollow ball with its inner radius and rolling friction. */
    cr_body_def d = body_def(&s, 0);
    assert_int_equal(d.inertia_kind, CR_INERTIA_HOLLOW);
    assert_true(d.inner_radius == 0.03 && d.rolling_friction == 0.002);
    cr_scene_free(&s);
}

/* A friction map is bilinear over its grid, clamped outside it, and lives as
 * long as the scene (the world keeps a pointer to it). */
static void test_friction_map(void **state)
{
    (void)state;
    cr_scene s;
    load_ok("{\"statics\": [{\"shape\": \"surface\", \"type\": \"hills\", \"min\": [0, 0], \"max\": [4, 4],"
            " \"rolling_friction\": 0.003,"
            " \"friction_map\": {\"min\": [1, 2], \"max\": [3, 4], \"friction\": [[0.1, 0.2, 0.3], [0.5, 0.6, 0.7]]}},"
            " {\"shape\": \"surface\", \"type\": \"plane\", \"friction\": 0.25,"
            " \"friction_map\": {\"min\": [0, 0], \"max\": [1, 1], \"rolling_friction\": [[0, 0.1]]}}]}",
            &s);
    const cr_surface *h = cr_world_surface(s.world, 0);
    double f, r;
    /* Rows are u, columns v: at (u1, v0) the value of row 1, column 0. */
    cr_surface_coefficients(h, 1, 2, &f, &r);
    assert_true(fabs(f - 0.1) < 1e-15 && r == 0.003);
    cr_surface_coefficients(h, 3, 2, &f, &r);
    assert_true(fabs(f - 0.5) < 1e-15);
    cr_surface_coefficients(h, 1, 3, &f, &r);
    assert_true(fabs(f - 0.2) < 1e-15);
    cr_surface_coefficients(h, 2, 3.5, &f, &r); /* halfway in u, 3/4 in v */
    assert_true(fabs(f - (0.5 * (0.25 + 0.65))) < 1e-15);
    cr_surface_coefficients(h, 0, 10, &f, &r); /* clamped to (u0, v1) */
    assert_true(fabs(f - 0.3) < 1e-15);
    cr_surface_coefficients(h, 10, 0, &f, &r); /* clamped to (u1, v0) */
    assert_true(fabs(f - 0.5) < 1e-15);
    /* One row: constant along u; friction stays the number given. */
    const cr_surface *p = cr_world_surface(s.world, 1);
    cr_surface_coefficients(p, -7, 0.25, &f, &r);
    assert_true(f == 0.25 && fabs(r - 0.025) < 1e-15);
    cr_scene_free(&s);
}

static void test_bad_surfaces(void **state)
{
    (void)state;
#define SURF(body) "{\"statics\": [{\"shape\": \"surface\", " body "}]}"
#define HILLS(rest) SURF("\"type\": \"hills\", \"min\": [-1, -1], \"max\": [1, 1]" rest)
    EXPECT_ERROR(SURF("\"type\": \"torus\""),
                 "statics[0].type: expected one of \"plane\", \"hills\", \"bowl\", \"bspline\", got \"torus\"");
    EXPECT_ERROR(SURF("\"type\": \"custom\""), "statics[0].type: a custom surface needs C callbacks", "got \"custom\"");
    EXPECT_ERROR(SURF("\"radius\": 1"), "statics[0].type: missing");
    EXPECT_ERROR("{\"statics\": [{\"shape\": \"cylinder\"}]}",
                 "statics[0].shape: expected one of \"plane\", \"surface\", got \"cylinder\"");
    EXPECT_ERROR("{\"statics\": [{\"type\": \"bowl\", \"radius\": 1}]}",
                 "statics[0].type: unknown key for a plane; a surface needs \"shape\": \"surface\"");
    EXPECT_ERROR(HILLS(", \"radius\": 1"), "statics[0].radius: unknown key (known keys here: shape, type,");
    EXPECT_ERROR(SURF("\"type\": \"hills\", \"max\": [1, 1]"), "statics[0].min: missing");
    EXPECT_ERROR(SURF("\"type\": \"hills\", \"min\": [1, -1], \"max\": [1, 1]"),
                 "statics[0]: the domain needs min < max on both axes, got min [1,-1], max [1,1]");
    EXPECT_ERROR(SURF("\"type\": \"hills\", \"min\": [1, -1, 0], \"max\": [1, 1]"),
                 "statics[0].min: expected an array of 2 numbers, got [1,-1,0]");
    EXPECT_ERROR(HILLS(", \"hills\": [{\"amplitude\": 1, \"center\": [0, 0], \"width\": 0.5},"
                       " {\"amplitude\": 1, \"center\": [0, 0], \"width\": -0.2}]"),
                 "statics[0].hills[1].width: must be > 0, got -0.2");
    EXPECT_ERROR(HILLS(", \"hills\": [{\"amplitude\": 1, \"width\": 0.5}]"), "statics[0].hills[0].center: missing");
    EXPECT_ERROR(HILLS(", \"hills\": [{\"amplitude\": 1, \"center\": [0, 1e999], \"width\": 0.5}]"),
                 "statics[0].hills[0].center[1]: must be a finite number, got inf");
    EXPECT_ERROR(HILLS(", \"waves\": {\"amplitude\": 0.1, \"length\": [1, -1]}"),
                 "statics[0].waves.length[1]: must be > 0, got -1");
    EXPECT_ERROR(HILLS(", \"waves\": {\"amplitude\": 0.1}"), "statics[0].waves.length: missing");
    EXPECT_ERROR(SURF("\"type\": \"bowl\", \"center\": [0, 0, 1], \"radius\": -1"), "statics[0].radius: must be > 0, got -1");
    EXPECT_ERROR(SURF("\"type\": \"bowl\", \"radius\": 1"), "statics[0].center: missing");
    EXPECT_ERROR(SURF("\"type\": \"plane\", \"normal\": [0, 0, 0]"), "statics[0].normal: must be non-zero and finite, got [0,0,0]");
    EXPECT_ERROR(SURF("\"type\": \"plane\", \"restitution\": 2"), "statics[0].restitution: must be in [0, 1], got 2");
    EXPECT_ERROR(SURF("\"type\": \"plane\", \"rolling_friction\": -0.1"), "statics[0].rolling_friction: must be >= 0, got -0.1");

    /* B-spline control grids: shape, ragged rows, points, degree. */
#define ROW4 "[[0,0,0],[0,1,0],[0,2,0],[0,3,0]]"
    EXPECT_ERROR(SURF("\"type\": \"bspline\""), "statics[0].control_points: missing");
    EXPECT_ERROR(SURF("\"type\": \"bspline\", \"control_points\": [[0, 0, 0], [1, 1, 1]]"),
                 "statics[0].control_points: expected a non-empty array of rows", "got [[0,0,0],[1,1,1]]");
    EXPECT_ERROR(SURF("\"type\": \"bspline\", \"control_points\": []"), "statics[0].control_points: expected", "got []");
    EXPECT_ERROR(SURF("\"type\": \"bspline\", \"control_points\": [" ROW4 "," ROW4 "," ROW4 "]"),
                 "statics[0].control_points: a degree-3 grid needs at least 4 x 4 points, got 3 x 4");
    EXPECT_ERROR(SURF("\"type\": \"bspline\", \"control_points\": [" ROW4 "," ROW4 ",[[0,0,0],[0,1,0],[0,2,0]]," ROW4 "]"),
                 "statics[0].control_points[2]: has 3 points, but row 0 has 4");
    EXPECT_ERROR(SURF("\"type\": \"bspline\", \"control_points\": [" ROW4 ",[[0,0,0],[0,1,0],[1,2],[0,3,0]]," ROW4 "," ROW4 "]"),
                 "statics[0].control_points[1][2]: expected an array of 3 numbers, got [1,2]");
    EXPECT_ERROR(SURF("\"type\": \"bspline\", \"control_points\": [" ROW4 "," ROW4 ",3," ROW4 "]"),
                 "statics[0].control_points[2]: expected an array of [x, y, z] points, got 3");
    EXPECT_ERROR(SURF("\"type\": \"bspline\", \"degree\": 7, \"control_points\": [" ROW4 "," ROW4 "," ROW4 "," ROW4 "]"),
                 "statics[0].degree: must be in [1, 5], got 7");
    EXPECT_ERROR(SURF("\"type\": \"bspline\", \"degree\": 4, \"control_points\": [" ROW4 "," ROW4 "," ROW4 "," ROW4 "]"),
                 "statics[0].control_points: a degree-4 grid needs at least 5 x 5 points, got 4 x 4");
    EXPECT_ERROR(SURF("\"type\": \"bspline\", \"degree\": 2.5, \"control_points\": [" ROW4 "," ROW4 "," ROW4 "," ROW4 "]"),
                 "statics[0].degree: expected an integer, got 2.5");
    EXPECT_ERROR(SURF("\"type\": \"bspline\", \"flip_normal\": 1, \"control_points\": [" ROW4 "," ROW4 "," ROW4 "," ROW4 "]"),
                 "statics[0].flip_normal: expected true or false, got 1");

    /* Friction maps. */
    EXPECT_ERROR(HILLS(", \"friction_map\": {\"min\": [0, 0], \"max\": [1, 1]}"),
                 "statics[0].friction_map: needs \"friction\" or \"rolling_friction\"");
    EXPECT_ERROR(HILLS(", \"friction_map\": {\"min\": [0, 0], \"max\": [1, 1], \"friction\": [[0.1, 0.2], [0.3]]}"),
                 "statics[0].friction_map.friction[1]: has 1 values, but row 0 has 2");
    EXPECT_ERROR(HILLS(", \"friction_map\": {\"min\": [0, 0], \"max\": [1, 1], \"friction\": [[0.1, -0.2]]}"),
                 "statics[0].friction_map.friction[0][1]: must be >= 0, got -0.2");
    EXPECT_ERROR(HILLS(", \"friction_map\": {\"min\": [0, 0], \"max\": [1, 1], \"friction\": 0.1}"),
                 "statics[0].friction_map.friction: expected a non-empty array of equally long rows", "got 0.1");
    EXPECT_ERROR(HILLS(", \"friction\": 0.3, \"friction_map\": {\"min\": [0, 0], \"max\": [1, 1], \"friction\": [[0.1]]}"),
                 "statics[0].friction_map.friction: given both here and as the surface's \"friction\"");
    EXPECT_ERROR(HILLS(", \"friction_map\": {\"min\": [0, 0], \"max\": [0, 1], \"friction\": [[0.1]]}"),
                 "statics[0].friction_map: the map needs min < max on both axes, got min [0,0], max [0,1]");
    EXPECT_ERROR(HILLS(", \"friction_map\": {\"max\": [1, 1], \"friction\": [[0.1]]}"), "statics[0].friction_map.min: missing");
#undef ROW4
#undef HILLS
#undef SURF
}

static void test_bad_balls(void **state)
{
    (void)state;
    EXPECT_ERROR("{\"bodies\": [{\"radius\": 0.05, \"inertia\": \"hollow\", \"inner_radius\": 0.05}]}",
                 "bodies[0].inner_radius: must be in [0, radius) = [0, 0.05), got 0.05");
    EXPECT_ERROR("{\"bodies\": [{\"radius\": 0.05, \"inertia\": \"hollow\", \"inner_radius\": 0.08}]}",
                 "bodies[0].inner_radius: must be in [0, radius) = [0, 0.05), got 0.08");
    EXPECT_ERROR("{\"bodies\": [{\"radius\": 0.05, \"inertia\": \"hollow\", \"inner_radius\": -0.01}]}",
                 "bodies[0].inner_radius: must be >= 0, got -0.01");
    EXPECT_ERROR("{\"bodies\": [{\"radius\": 0.05, \"inner_radius\": 0.02}]}",
                 "bodies[0].inner_radius: needs \"inertia\": \"hollow\", got 0.02");
    EXPECT_ERROR("{\"bodies\": [{\"radius\": 0.05, \"inertia\": 0.1, \"inner_radius\": 0.02}]}",
                 "bodies[0].inner_radius: needs \"inertia\": \"hollow\", got 0.02");
    EXPECT_ERROR("{\"bodies\": [{\"rolling_friction\": -1}]}", "bodies[0].rolling_friction: must be >= 0, got -1");
    EXPECT_ERROR("{\"generate\": [{\"lattice\": {\"count\": [2, 1, 1], \"spacing\": 1},"
                 " \"bodies\": [{\"body\": {}}, {\"weight\": 2, \"body\": {\"radius\": 0.1, \"inner_radius\": 0.05}}]}]}",
                 "generate[0].bodies[1].body.inner_radius: needs \"inertia\": \"hollow\", got 0.05");
    EXPECT_ERROR("{\"generate\": [{\"lattice\": {\"count\": [2, 1, 1], \"spacing\": 1}, \"bodies\": [{\"weight\": 0}]}]}",
                 "generate[0].bodies[0].weight: must be > 0, got 0");
    EXPECT_ERROR("{\"generate\": [{\"lattice\": {\"count\": [2, 1, 1], \"spacing\": 1}, \"bodies\": []}]}",
                 "generate[0].bodies: expected a non-empty array", "got []");
    EXPECT_ERROR("{\"generate\": [{\"lattice\": {\"count\": [2, 1, 1], \"spacing\": 1}, \"body\": {}, \"bodies\": [{}]}]}",
                 "generate[0]: expected \"body\" or \"bodies\", got both");
    EXPECT_ERROR("{\"generate\": [{\"lattice\": {\"count\": [2, 1, 1], \"spacing\": 1}, \"bodies\": [{\"wieght\": 1}]}]}",
                 "generate[0].bodies[0].wieght: unknown key");

    /* Seed 004's restriction, checked by the world when the surface is
     * added after the balls; the message names the surface and the ball. */
    EXPECT_ERROR("{\"statics\": [{\"shape\": \"plane\"}, {\"shape\": \"plane\", \"point\": [3, 0, 0], \"normal\": [-1, 0, 0]},"
                 " {\"shape\": \"surface\", \"type\": \"bowl\", \"center\": [0, 0, 1], \"radius\": 0.15}],"
                 " \"bodies\": [{\"radius\": 0.05, \"position\": [0, 0, 0.9]}, {\"radius\": 0.2, \"position\": [1, 0, 2]}]}",
                 "statics[2]: principal curvature", "is sharper than the largest ball (radius 0.2",
                 "the largest ball is bodies[1]");
    EXPECT_ERROR("{\"statics\": [{\"shape\": \"surface\", \"type\": \"hills\", \"min\": [-1, -1], \"max\": [1, 1],"
                 " \"hills\": [{\"amplitude\": -0.5, \"center\": [0, 0], \"width\": 0.1}]}],"
                 " \"generate\": [{\"lattice\": {\"count\": [1, 1, 1], \"spacing\": 1, \"origin\": [0, 0, 5]},"
                 " \"body\": {\"radius\": 0.1}}]}",
                 "statics[0]: principal curvature", "sharper than the largest ball (radius 0.1",
                 "generate[0] body 0 (id 0)");
    /* Failing after a friction map was made, before and after the world
     * was: nothing leaks (the sanitizer build checks). */
    EXPECT_ERROR("{\"statics\": [{\"shape\": \"surface\", \"type\": \"hills\", \"min\": [-1, -1], \"max\": [1, 1],"
                 " \"hills\": [{\"amplitude\": -0.5, \"center\": [0, 0], \"width\": 0.1}],"
                 " \"friction_map\": {\"min\": [0, 0], \"max\": [1, 1], \"friction\": [[0.1, 0.2]]}}],"
                 " \"bodies\": [{\"radius\": 0.1, \"position\": [0, 0, 5]}]}",
                 "statics[0]: principal curvature");
    EXPECT_ERROR("{\"statics\": [{\"shape\": \"surface\", \"type\": \"plane\","
                 " \"friction_map\": {\"min\": [0, 0], \"max\": [1, 1], \"friction\": [[0.1, 0.2]]}},"
                 " {\"shape\": \"surface\", \"type\": \"bowl\", \"center\": [0, 0, 0], \"radius\": 0}]}",
                 "statics[1].radius: must be > 0, got 0");
    /* A ball that starts behind a surface. */
    EXPECT_ERROR("{\"statics\": [{\"shape\": \"surface\", \"type\": \"bowl\", \"center\": [0, 0, 1], \"radius\": 1}],"
                 " \"bodies\": [{\"radius\": 0.1, \"position\": [0, 0, 0.05]}]}",
                 "bodies[0] is behind the surface statics[0] by 0.05 m", "allow_overlap");
}

static void test_bad_on_surface(void **state)
{
    (void)state;
#define ON(statics, spec) "{\"statics\": [" statics "], \"generate\": [{\"on_surface\": {" spec "}}]}"
#define BOWL "{\"shape\": \"surface\", \"type\": \"bowl\", \"center\": [0, 0, 1], \"radius\": 1}"
    EXPECT_ERROR(ON("{\"shape\": \"plane\"}, " BOWL, "\"surface\": 0, \"count\": 3"),
                 "generate[0].on_surface.surface: statics[0] is a plane; on_surface needs a \"shape\": \"surface\", got 0");
    EXPECT_ERROR(ON(BOWL, "\"surface\": 1, \"count\": 3"), "generate[0].on_surface.surface: must be an integer in [0, 0], got 1");
    EXPECT_ERROR("{\"generate\": [{\"on_surface\": {\"surface\": 0, \"count\": 3}}]}",
                 "generate[0].on_surface.surface: the scene has no statics, got 0");
    EXPECT_ERROR(ON(BOWL, "\"count\": 3"), "generate[0].on_surface.surface: missing");
    EXPECT_ERROR(ON(BOWL, "\"surface\": 0"), "generate[0].on_surface.count: missing");
    EXPECT_ERROR(ON(BOWL, "\"surface\": 0, \"count\": 3, \"lift\": -1"), "generate[0].on_surface.lift: must be >= 0, got -1");
    EXPECT_ERROR(ON(BOWL, "\"surface\": 0, \"count\": 3, \"min\": [-2, 0], \"max\": [0.5, 0.5]"),
                 "generate[0].on_surface: the box must lie in the surface's domain [-1, 1] x [-1, 1], got min [-2,0], max [0.5,0.5]");
    EXPECT_ERROR(ON(BOWL, "\"surface\": 0, \"count\": 3, \"min\": [0.5, 0], \"max\": [0.5, 0.5]"),
                 "generate[0].on_surface: the box needs min < max on both axes");
    EXPECT_ERROR(ON("{\"shape\": \"surface\", \"type\": \"plane\"}", "\"surface\": 0, \"count\": 3"),
                 "generate[0].on_surface.min: missing", "unbounded");
    EXPECT_ERROR(ON(BOWL, "\"surface\": 0, \"count\": 500"), "generate[0].on_surface.count: placed only",
                 "of 500 balls on statics[0]", "too crowded");
    EXPECT_ERROR("{\"statics\": [" BOWL "], \"generate\": [{\"on_surface\": {\"surface\": 0, \"count\": 3, \"roll\": true},"
                 " \"body\": {\"inertia\": \"particle\"}}]}",
                 "generate[0].on_surface.roll: a particle does not turn");
#undef BOWL
#undef ON
}

/* Every ball generated on a surface touches it: its centre is r + lift
 * from the surface along the normal, it overlaps nothing, and the weighted
 * templates give every kind. */
static void check_on_surface(const char *json, uint32_t first, uint32_t surface_static, double lift, double speed, bool roll)
{
    cr_scene s;
    load_ok(json, &s);
    assert_true(s.body_count > 0);
    const cr_surface *surf = cr_world_surface(s.world, s.statics[surface_static].index);
    uint32_t kinds[2] = {0, 0};
    cr_vec3 *p = malloc(s.body_count * sizeof *p);
    double *r = malloc(s.body_count * sizeof *r);
    for (uint32_t i = 0; i < s.body_count; ++i) {
        cr_body_def d = body_def(&s, i);
        cr_body_state st = body_state(&s, i);
        p[i] = st.position;
        r[i] = d.radius;
        if (i < first) continue; /* explicit bodies */
        double u, v;
        cr_surface_start(surf, p[i], &u, &v);
        cr_closest c = cr_surface_closest(surf, p[i], u, v, 1e-12);
        assert_true(c.converged);
        if (fabs(c.distance - (d.radius + lift)) > 1e-9 * d.radius)
            print_error("ball %u: distance %.17g, radius %.17g\n", i, c.distance, d.radius);
        assert_true(fabs(c.distance - (d.radius + lift)) <= 1e-9 * d.radius);
        /* Along the surface: the velocity has no normal component. */
        assert_true(fabs(cr_v3_dot(st.velocity, c.normal)) < 1e-12);
        assert_true(fabs(cr_v3_len(st.velocity) - speed) < 1e-12);
        if (roll) {
            cr_vec3 w = cr_v3_scale(cr_v3_cross(c.normal, st.velocity), 1.0 / d.radius);
            assert_true(cr_v3_len(cr_v3_sub(w, st.angular_velocity)) < 1e-9);
        }
        kinds[d.inertia_kind == CR_INERTIA_HOLLOW]++;
    }
    assert_true(kinds[0] > 0 && kinds[1] > 0);
    for (uint32_t i = 0; i < s.body_count; ++i)
        for (uint32_t j = i + 1; j < s.body_count; ++j) assert_true(cr_v3_len(cr_v3_sub(p[i], p[j])) >= r[i] + r[j]);
    cr_body_id a, b;
    assert_true(cr_world_max_overlap(s.world, &a, &b) <= 0.0);
    free(p);
    free(r);
    cr_scene_free(&s);
}

static const char *mixed_bodies =
    "\"bodies\": [{\"weight\": 3, \"body\": {\"radius\": 0.04, \"inertia\": \"solid\", \"friction\": 0.1}},"
    "             {\"weight\": 1, \"body\": {\"radius\": 0.06, \"inertia\": \"hollow\", \"inner_radius\": 0.05,"
    "                                     \"rolling_friction\": 0.01}}]";

static void test_on_surface(void **state)
{
    (void)state;
    char json[4096];
    /* Hills within four walls. */
    snprintf(json, sizeof json,
             "{\"statics\": [{\"shape\": \"plane\", \"point\": [-1, 0, 0], \"normal\": [1, 0, 0]},"
             " {\"shape\": \"plane\", \"point\": [1, 0, 0], \"normal\": [-1, 0, 0]},"
             " {\"shape\": \"surface\", \"type\": \"hills\", \"min\": [-1, -1], \"max\": [1, 1],"
             "  \"hills\": [{\"amplitude\": 0.2, \"center\": [0.3, -0.2], \"width\": 0.3}],"
             "  \"waves\": {\"amplitude\": 0.03, \"length\": [0.9, 1.1]}}],"
             " \"bodies\": [{\"radius\": 0.1, \"position\": [0, 0, 1]}],"
             " \"generate\": [{\"on_surface\": {\"surface\": 2, \"count\": 300, \"seed\": 9, \"speed\": 0.5, \"roll\": true}, %s}]}",
             mixed_bodies);
    check_on_surface(json, 1, 2, 0.0, 0.5, true);
    cr_scene s;
    load_ok(json, &s);
    for (uint32_t i = 1; i < s.body_count; ++i) { /* inside the walls */
        cr_body_state st = body_state(&s, i);
        double rr = body_def(&s, i).radius;
        assert_true(st.position.x >= -1 + rr && st.position.x <= 1 - rr);
    }
    /* The mix follows the weights (3 : 1) and the templates' materials. */
    uint32_t small = 0;
    for (uint32_t i = 1; i < s.body_count; ++i) {
        cr_body_def d = body_def(&s, i);
        if (d.radius == 0.04) {
            ++small;
            assert_true(d.friction == 0.1 && d.inertia_kind == CR_INERTIA_SOLID);
        } else {
            assert_true(d.radius == 0.06 && d.inner_radius == 0.05 && d.rolling_friction == 0.01);
        }
    }
    assert_true(small > 180 && small < 270);
    /* Seeded: the same scene twice gives the same balls. */
    cr_scene t;
    load_ok(json, &t);
    for (uint32_t i = 0; i < s.body_count; ++i) assert_vec_equal(body_state(&s, i).position, body_state(&t, i).position);
    cr_scene_free(&t);
    cr_scene_free(&s);

    /* Inside a bowl, lifted, not moving; a box of (u, v) = (x, y). */
    snprintf(json, sizeof json,
             "{\"statics\": [{\"shape\": \"surface\", \"type\": \"bowl\", \"center\": [0, 0, 1], \"radius\": 1}],"
             " \"generate\": [{\"on_surface\": {\"surface\": 0, \"count\": 60, \"min\": [-0.5, -0.6], \"max\": [0.7, 0.5],"
             " \"lift\": 0.01, \"seed\": 3}, %s}]}",
             mixed_bodies);
    check_on_surface(json, 0, 0, 0.01, 0.0, false);
    /* On a B-spline, u, v in [0, 1]. */
    snprintf(json, sizeof json,
             "{\"statics\": [{\"shape\": \"surface\", \"type\": \"bspline\", \"control_points\": ["
             " [[0, 0, 0], [0, 1, 0.1], [0, 2, 0], [0, 3, 0]], [[1, 0, 0.1], [1, 1, 0.3], [1, 2, 0.2], [1, 3, 0]],"
             " [[2, 0, 0], [2, 1, 0.2], [2, 2, 0.1], [2, 3, 0]], [[3, 0, 0], [3, 1, 0], [3, 2, 0], [3, 3, 0.2]]]}],"
             " \"generate\": [{\"on_surface\": {\"surface\": 0, \"count\": 100, \"seed\": 4, \"speed\": 0.2}, %s}]}",
             mixed_bodies);
    check_on_surface(json, 0, 0, 0.0, 0.2, false);
    /* On a tilted plane surface, with a box in its (u, v). */
    snprintf(json, sizeof json,
             "{\"statics\": [{\"shape\": \"surface\", \"type\": \"plane\", \"point\": [0, 0, 1], \"normal\": [0.2, 0.1, 1]}],"
             " \"generate\": [{\"on_surface\": {\"surface\": 0, \"count\": 50, \"min\": [-1, -1], \"max\": [1, 1],"
             " \"speed\": 1, \"roll\": true}, %s}]}",
             mixed_bodies);
    check_on_surface(json, 0, 0, 0.0, 1.0, true);
}

/* Weighted templates work in every generator; a single template places its
 * bodies exactly where it did before templates could be mixed. */
static void test_weighted_templates(void **state)
{
    (void)state;
    cr_scene s;
    load_ok("{\"generate\": [{\"lattice\": {\"count\": [10, 10, 1], \"spacing\": 0.2, \"seed\": 1},"
            " \"bodies\": [{\"body\": {\"radius\": 0.05}}, {\"weight\": 1, \"body\": {\"radius\": 0.08, \"inertia\": \"hollow\"}}]}]}",
            &s);
    uint32_t hollow = 0;
    for (uint32_t i = 0; i < s.body_count; ++i) hollow += body_def(&s, i).inertia_kind == CR_INERTIA_HOLLOW;
    assert_true(hollow > 25 && hollow < 75);
    cr_scene_free(&s);

    load_ok("{\"generate\": [{\"random_fill\": {\"count\": 200, \"min\": [0, 0, 0], \"max\": [2, 2, 2], \"seed\": 2},"
            " \"bodies\": [{\"weight\": 0.5, \"body\": {\"radius\": 0.05}}, {\"weight\": 0.5, \"body\": {\"radius\": 0.1}}]}]}",
            &s);
    uint32_t big = 0;
    for (uint32_t i = 0; i < s.body_count; ++i) {
        cr_body_state st = body_state(&s, i);
        double r = body_def(&s, i).radius;
        big += r == 0.1;
        /* Whole spheres in the box, each by its own radius. */
        assert_true(st.position.x >= r && st.position.x <= 2 - r && st.position.z >= r && st.position.z <= 2 - r);
    }
    assert_true(big > 60 && big < 140);
    cr_body_id a, b;
    assert_true(cr_world_max_overlap(s.world, &a, &b) <= 0.0);
    cr_scene_free(&s);

    /* "bodies" with one entry is "body". */
    char json[600], json2[600];
    snprintf(json, sizeof json, fill_scene, 3);
    snprintf(json2, sizeof json2,
             "{\"statics\": [{\"point\": [0, 0, 0], \"normal\": [0, 0, 1]}, {\"point\": [0.9, 0, 0], \"normal\": [-1, 0, 0]}],"
             " \"bodies\": [{\"radius\": 0.2, \"position\": [0.5, 0.5, 0.5]}],"
             " \"generate\": [{\"random_fill\": {\"count\": 400, \"min\": [0, 0, -1], \"max\": [1, 1, 1], \"seed\": 3},"
             "                 \"bodies\": [{\"weight\": 7, \"body\": {\"radius\": 0.04, \"inertia\": \"particle\"}}]}]}");
    cr_scene t;
    load_ok(json, &s);
    load_ok(json2, &t);
    assert_int_equal(s.body_count, t.body_count);
    for (uint32_t i = 0; i < s.body_count; ++i) assert_vec_equal(body_state(&s, i).position, body_state(&t, i).position);
    cr_scene_free(&s);
    cr_scene_free(&t);
}

/* The shipped boiling scene: 1,000 solid and hollow balls of mixed sizes on
 * hills inside four walls, every one touching the surface. */
static void test_boiling_scene(void **state)
{
    (void)state;
    cr_scene s;
    char err[512];
    int rc = cr_scene_load_file(CAROM_SOURCE_DIR "/scenes/boiling.json", &s, err, sizeof err);
    if (rc) print_error("%s\n", err);
    assert_int_equal(rc, 0);
    assert_int_equal(s.body_count, 1000);
    assert_int_equal(cr_world_surface_count(s.world), 1);
    assert_int_equal(cr_world_plane_count(s.world), 4);
    assert_int_equal(cr_world_get_def(s.world)->law, CR_LAW_ROLLING);
    const cr_surface *surf = cr_world_surface(s.world, 0);
    assert_int_equal(cr_surface_get_def(surf)->type, CR_SURFACE_HILLS);
    uint32_t hollow = 0;
    double rmin = INFINITY, rmax = 0.0;
    for (uint32_t i = 0; i < s.body_count; ++i) {
        cr_body_def d = body_def(&s, i);
        hollow += d.inertia_kind == CR_INERTIA_HOLLOW;
        rmin = fmin(rmin, d.radius);
        rmax = fmax(rmax, d.radius);
        double u, v;
        cr_vec3 p = body_state(&s, i).position;
        cr_surface_start(surf, p, &u, &v);
        assert_true(fabs(cr_surface_closest(surf, p, u, v, 1e-12).distance - d.radius) <= 1e-9 * d.radius);
    }
    assert_true(hollow > 200 && hollow < 600);
    assert_true(rmax > 1.5 * rmin);
    cr_scene_free(&s);
}

/* ---- shipped scenes --------------------------------------------------------- */

/* The embedded default is scenes/default.json, byte for byte: same bodies. */
static void test_default_scene(void **state)
{
    (void)state;
    cr_scene s, f;
    char err[512];
    int rc = cr_scene_load_default(&s, err, sizeof err);
    if (rc) print_error("%s\n", err);
    assert_int_equal(rc, 0);
    rc = cr_scene_load_file(CAROM_SOURCE_DIR "/scenes/default.json", &f, err, sizeof err);
    if (rc) print_error("%s\n", err);
    assert_int_equal(rc, 0);
    assert_true(s.body_count > 0);
    assert_int_equal(s.body_count, f.body_count);
    assert_int_equal(s.static_count, f.static_count);
    assert_int_equal(s.steps, f.steps);
    for (uint32_t i = 0; i < s.body_count; ++i) assert_vec_equal(body_state(&s, i).position, body_state(&f, i).position);
    cr_scene_free(&s);
    cr_scene_free(&f);
}

static void test_shipped_scenes(void **state)
{
    (void)state;
    static const char *const names[] = {"default", "bounce", "incline", "gas", "pit", "boiling", "bowl", "slope"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
        char path[1024], err[512];
        snprintf(path, sizeof path, "%s/scenes/%s.json", CAROM_SOURCE_DIR, names[i]);
        cr_scene s;
        int rc = cr_scene_load_file(path, &s, err, sizeof err);
        if (rc) print_error("%s\n", err);
        assert_int_equal(rc, 0);
        assert_true(s.body_count > 0);
        cr_scene_free(&s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_scene_values),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_allow_overlap),
        cmocka_unit_test(test_unknown_key),
        cmocka_unit_test(test_wrong_type),
        cmocka_unit_test(test_bad_numbers),
        cmocka_unit_test(test_zero_normal),
        cmocka_unit_test(test_non_finite),
        cmocka_unit_test(test_overlapping_start),
        cmocka_unit_test(test_unreadable_file),
        cmocka_unit_test(test_bad_generator),
        cmocka_unit_test(test_small_error_buffer),
        cmocka_unit_test(test_lattice),
        cmocka_unit_test(test_lattice_jitter_determinism),
        cmocka_unit_test(test_generator_speed),
        cmocka_unit_test(test_random_fill_no_overlap),
        cmocka_unit_test(test_surface_types),
        cmocka_unit_test(test_friction_map),
        cmocka_unit_test(test_bad_surfaces),
        cmocka_unit_test(test_bad_balls),
        cmocka_unit_test(test_bad_on_surface),
        cmocka_unit_test(test_on_surface),
        cmocka_unit_test(test_weighted_templates),
        cmocka_unit_test(test_boiling_scene),
        cmocka_unit_test(test_default_scene),
        cmocka_unit_test(test_shipped_scenes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
