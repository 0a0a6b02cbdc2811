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

/* Loading json fails, and the message holds every one of the fragments
 * (the JSON path and the offending value). */
static void expect_error(const char *json, const char *const *fragments)
{
    cr_scene s;
    char err[512] = "";
    int rc = cr_scene_load_string(json, "scene.json", &s, err, sizeof err);
    if (rc == 0) print_error("loaded, expected an error: %s\n", json);
    assert_int_equal(rc, -1);
    assert_null(s.world);
    assert_true(strncmp(err, "scene.json: ", 12) == 0);
    for (; *fragments; ++fragments) {
        if (strstr(err, *fragments) == NULL) print_error("message '%s' lacks '%s'\n", err, *fragments);
        assert_non_null(strstr(err, *fragments));
    }
}

#define EXPECT_ERROR(json, ...) expect_error(json, (const char *const[]){__VA_ARGS__, NULL})

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
    "  \"resting_speed\": 0.01, \"solver_iterations\": 7, \"max_events_per_body\": 9,\n"
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
    assert_int_equal(wd->max_events_per_body, 9);

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
    EXPECT_ERROR("{\"method\": \"euler\"}", "method: expected one of \"impulse\", \"event\", got \"euler\"");
    EXPECT_ERROR("{\"law\": 1}", "law: expected one of", "got 1");
    EXPECT_ERROR("{\"bodies\": [{\"shape\": \"box\"}]}", "bodies[0].shape: expected one of \"sphere\", got \"box\"");
    EXPECT_ERROR("{\"bodies\": [{\"inertia\": \"cube\"}]}", "bodies[0].inertia:", "got \"cube\"");
    EXPECT_ERROR("{\"bodies\": [{\"type\": \"static\"}]}", "bodies[0].type:", "got \"static\"");
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
    EXPECT_ERROR("{\"generate\": [{}]}", "generate[0]: expected exactly one of \"lattice\" or \"random_fill\", got neither");
    EXPECT_ERROR("{\"generate\": [{\"lattice\": {\"count\": [1, 1, 1], \"spacing\": 1},"
                 " \"random_fill\": {\"count\": 1, \"min\": [0, 0, 0], \"max\": [1, 1, 1]}}]}",
                 "generate[0]: expected exactly one", "got both");
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
    static const char *const names[] = {"default", "bounce", "incline", "gas", "pit"};
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
        cmocka_unit_test(test_default_scene),
        cmocka_unit_test(test_shipped_scenes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
