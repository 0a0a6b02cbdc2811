#define _POSIX_C_SOURCE 200809L
/* Rigid-body scene keys (issue 5): shapes, density, orientation, static
 * bodies and joints load as written, and every mistake is refused with its
 * JSON path and value. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rigid.h"
#include "rigid_helpers.h"
#include "scene.h"
#include "scene_test_helpers.h"


static void test_rigid_keys_refused(void **state)
{
    (void)state;
    EXPECT_ERROR("{\"bodies\": [{\"shape\": \"box\"}]}", "bodies[0].half_extents: missing");
    EXPECT_ERROR("{\"bodies\": [{\"shape\": \"box\", \"half_extents\": [1, 0, 1]}]}", "bodies[0].half_extents[1]", "got 0");
    EXPECT_ERROR("{\"bodies\": [{\"shape\": \"box\", \"half_extents\": [1, 1, 1], \"radius\": 1}]}",
                 "bodies[0].radius: is for spheres");
    EXPECT_ERROR("{\"bodies\": [{\"half_extents\": [1, 1, 1]}]}", "bodies[0].half_extents: not a key of a sphere");
    EXPECT_ERROR("{\"bodies\": [{\"shape\": \"box\", \"half_extents\": [1, 1, 1], \"mass\": 1, \"density\": 2}]}",
                 "bodies[0].density: give \"mass\" or \"density\", not both");
    EXPECT_ERROR("{\"bodies\": [{\"shape\": \"hull\", \"points\": [[0,0,0],[1,0,0],[0,1,0]]}]}", "bodies[0].points");
    EXPECT_ERROR("{\"bodies\": [{\"shape\": \"hull\", \"points\": [[0,0,0],[1,0,0],[0,1,0],[1,1,0]]}]}",
                 "bodies[0].points");
    EXPECT_ERROR("{\"bodies\": [{\"shape\": \"mesh\", \"file\": \"no-such.obj\"}]}", "bodies[0].file", "no-such.obj");
    EXPECT_ERROR("{\"bodies\": [{\"orientation\": [0, 0, 0, 0]}]}", "bodies[0].orientation: must be a non-zero quaternion");
    EXPECT_ERROR("{\"bodies\": [{}], \"joints\": [{\"type\": \"ball\", \"a\": 0}]}", "joints[0].anchor: missing");
    EXPECT_ERROR("{\"bodies\": [{}], \"joints\": [{\"type\": \"ball\", \"a\": 1, \"anchor\": [0,0,0]}]}", "joints[0].a");
    EXPECT_ERROR("{\"bodies\": [{}], \"joints\": [{\"type\": \"hinge\", \"a\": 0, \"anchor\": [0,0,0]}]}",
                 "joints[0].axis: missing");
    EXPECT_ERROR("{\"bodies\": [{}], \"joints\": [{\"type\": \"spring\", \"a\": 0, \"anchor\": [0,0,0]}]}",
                 "joints[0].type", "got \"spring\"");
    EXPECT_ERROR("{\"bodies\": [{}], \"joints\": [{\"type\": \"ball\", \"a\": 0, \"anchor\": [0,0,0], \"axis\": [0,0,1]}]}",
                 "joints[0].axis: only for a hinge joint");
    EXPECT_ERROR("{\"bodies\": [{}, {}], \"joints\": [{\"type\": \"ball\", \"a\": 0, \"b\": 0, \"anchor\": [0,0,0]}]}",
                 "joints[0]", "the same body");
    EXPECT_ERROR("{\"bodies\": [{}, {}], \"joints\": [{\"type\": \"ball\", \"a\": 0, \"anchor\": [0,0,0]},"
                 " {\"type\": \"ball\", \"a\": 0, \"b\": 1, \"anchor\": [0,0,0], \"collide\": 1}]}",
                 "joints[1].collide: expected true or false", "got 1");
    EXPECT_ERROR("{\"bodies\": [{}, {}], \"joints\": [{\"type\": \"ball\", \"a\": 0, \"b\": 1, \"anchor\": [0,0,0],"
                 " \"collide\": \"false\"}]}",
                 "joints[0].collide: expected true or false", "got \"false\"");
    EXPECT_ERROR("{\"bodies\": [{\"shape\": \"box\", \"half_extents\": [1, 1, 1]}], \"method\": \"event\"}",
                 "bodies[0]", "impulse method");
    EXPECT_ERROR("{\"generate\": [{\"lattice\": {\"count\": [2, 1, 1], \"spacing\": 0.3},"
                 " \"body\": {\"shape\": \"box\"}}]}",
                 "generators place spheres");
}

static void test_rigid_scene_loads(void **state)
{
    (void)state;
    const char *json = "{\"bodies\": ["
                       " {\"shape\": \"box\", \"half_extents\": [0.5, 0.25, 0.1], \"density\": 800,"
                       "  \"orientation\": [2, 0, 0, 0], \"position\": [0, 0, 1]},"
                       " {\"shape\": \"hull\", \"points\": [[0,0,0],[1,0,0],[0,1,0],[0,0,1]], \"mass\": 3},"
                       " {\"type\": \"static\", \"velocity\": [1, 0, 0], \"position\": [5, 5, 5]}],"
                       " \"joints\": [{\"type\": \"hinge\", \"a\": 0, \"b\": 1, \"anchor\": [0, 0, 0.5], \"axis\": [0, 1, 0]},"
                       "              {\"type\": \"distance\", \"a\": 1, \"anchor\": [0.25, 0.25, 0.25], \"anchor_b\": [0, 0, 3]},"
                       "              {\"type\": \"ball\", \"a\": 1, \"b\": 0, \"anchor\": [0, 0, 0.5], \"collide\": true},"
                       "              {\"type\": \"ball\", \"a\": 1, \"b\": 0, \"anchor\": [0, 0, 0.5], \"collide\": false}]}";
    cr_scene s;
    char err[512];
    int rc = cr_scene_load_string(json, "scene.json", &s, err, sizeof err);
    if (rc) print_error("%s\n", err);
    assert_int_equal(rc, 0);
    double m;
    cr_mat3 I;
    assert_int_equal(cr_body_get_inertia(s.world, cr_world_body_at(s.world, 0), &m, &I), CR_OK);
    assert_near(m, 800.0 * 0.1, 1e-12);                                    /* 1 x 0.5 x 0.2 m at 800 kg/m^3 */
    assert_near(I.m[0][0], m / 12.0 * (0.25 + 0.04), 1e-12);                /* m/12 (b^2 + c^2) */
    cr_body_state st;
    assert_int_equal(cr_body_get_state(s.world, cr_world_body_at(s.world, 0), &st), CR_OK);
    assert_near(st.orientation.w, 1.0, 0.0);                                /* normalised on load */
    assert_int_equal(cr_body_get_state(s.world, cr_world_body_at(s.world, 2), &st), CR_OK);
    assert_near(st.velocity.x, 0.0, 0.0);                                   /* static: never moves */
    assert_int_equal(cr_world_joint_count(s.world), 4);
    /* collide: false unless given */
    const cr_rigid *r = s.world->rigid;
    assert_true(!r->joints[0].collide && !r->joints[1].collide && r->joints[2].collide && !r->joints[3].collide);
    cr_body_def d;
    assert_int_equal(cr_body_get_def(s.world, cr_world_body_at(s.world, 1), &d), CR_OK);
    assert_int_equal(d.shape, CR_SHAPE_HULL);
    assert_near(d.mass, 3.0, 0.0);
    for (int i = 0; i < 10; ++i) assert_int_equal(cr_world_step(s.world), CR_OK);
    cr_scene_free(&s);
}

/* The sub-stepped solver's keys reach the world; bad values and joints
 * with it are refused naming the key (or joints) and the value. */
static void test_substep_keys(void **state)
{
    (void)state;
    const char *json = "{\"rigid_substeps\": 4, \"substep_iterations\": 2, \"contact_hertz\": 90,"
                       " \"contact_damping_ratio\": 5, \"statics\": [{\"shape\": \"plane\"}],"
                       " \"bodies\": [{\"shape\": \"box\", \"half_extents\": [0.05, 0.05, 0.05],"
                       "  \"position\": [0, 0, 0.05], \"mass\": 0.5}]}";
    cr_scene s;
    char err[512];
    int rc = cr_scene_load_string(json, "scene.json", &s, err, sizeof err);
    if (rc) print_error("%s\n", err);
    assert_int_equal(rc, 0);
    const cr_world_def *wd = cr_world_get_def(s.world);
    assert_int_equal(wd->rigid_substeps, 4);
    assert_int_equal(wd->substep_iterations, 2);
    assert_true(wd->contact_hertz == 90.0 && wd->contact_damping_ratio == 5.0);
    for (int i = 0; i < 10; ++i) assert_int_equal(cr_world_step(s.world), CR_OK);
    cr_scene_free(&s);
    EXPECT_ERROR("{\"rigid_substeps\": 65}", "rigid_substeps: must be an integer in [0, 64], got 65");
    EXPECT_ERROR("{\"rigid_substeps\": 1.5}", "rigid_substeps", "1.5");
    EXPECT_ERROR("{\"substep_iterations\": 0}", "substep_iterations: must be an integer in [1, 1000], got 0");
    EXPECT_ERROR("{\"contact_hertz\": 0}", "contact_hertz: must be > 0, got 0");
    EXPECT_ERROR("{\"contact_damping_ratio\": -1}", "contact_damping_ratio: must be >= 0, got -1");
    EXPECT_ERROR("{\"rigid_substeps\": 4, \"bodies\": [{\"shape\": \"box\", \"half_extents\": [1, 1, 1]}],"
                 " \"joints\": [{\"type\": \"ball\", \"a\": 0, \"anchor\": [0, 0, 2]}]}",
                 "joints: rigid_substeps 4: the sub-stepped contact solver takes no joints (this scene has 1)");
    /* spheres only now go through it too, so a surface is refused where it is */
    EXPECT_ERROR("{\"rigid_substeps\": 4, \"statics\": [{\"shape\": \"plane\"}, {\"shape\": \"surface\", \"type\": \"bowl\","
                 " \"center\": [0, 0, 2], \"radius\": 1.5}], \"bodies\": [{\"position\": [0, 0, 1]}]}",
                 "statics[1]: cr_world_add_surface: rigid_substeps 4: the sub-stepped contact solver takes no parametric "
                 "surfaces");
}

/* A mesh file is found next to the scene file, whatever the working folder. */
static void test_mesh_relative_to_scene_file(void **state)
{
    (void)state;
    char dir[] = "/tmp/carom-scene-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256], obj[256];
    snprintf(obj, sizeof obj, "%s/cube.obj", dir);
    FILE *f = fopen(obj, "w");
    assert_non_null(f);
    fputs("v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n"
          "f 1 4 3 2\nf 5 6 7 8\nf 1 2 6 5\nf 3 4 8 7\nf 2 3 7 6\nf 1 5 8 4\n",
          f);
    fclose(f);
    snprintf(path, sizeof path, "%s/scene.json", dir);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("{\"bodies\": [{\"shape\": \"mesh\", \"file\": \"cube.obj\", \"density\": 2, \"type\": \"static\"}]}", f);
    fclose(f);
    cr_scene s;
    char err[512];
    int rc = cr_scene_load_file(path, &s, err, sizeof err);
    if (rc) print_error("%s\n", err);
    assert_int_equal(rc, 0);
    double m;
    assert_int_equal(cr_body_get_inertia(s.world, cr_world_body_at(s.world, 0), &m, NULL), CR_OK);
    assert_near(m, 2.0, 1e-12); /* unit cube at density 2 */
    cr_scene_free(&s);
    remove(obj);
    remove(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rigid_keys_refused),
        cmocka_unit_test(test_rigid_scene_loads),
        cmocka_unit_test(test_substep_keys),
        cmocka_unit_test(test_mesh_relative_to_scene_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
