/* The rigid-body narrow phase runs as work items on the world's threads or
 * task system (src/rigid_contacts.c): the contacts, and so every later
 * stage, must not depend on how many threads ran them or in what order;
 * nor must the choice, made in the work items, to carry a resting pair's
 * manifold over from an earlier step (src/collide_carry.c). */
#include <string.h>

#include "rigid_helpers.h"

/* 150 bodies (boxes, tetrahedral hulls, spheres) tumbling into a box of
 * planes from a jittered lattice: hundreds of pairs of every kind, vertex,
 * face and edge contacts, impacts and resting piles. */
static cr_world *pile(uint32_t workers, int *enqueued)
{
    cr_world_def d = cr_default_world_def();
    d.dt = 1.0 / 120.0;
    test_use_tasks(&d, workers, enqueued);
    cr_world *w = make_world_def(&d);
    cr_vec3 normals[5] = {{0, 0, 1}, {1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}};
    cr_vec3 points[5] = {{0, 0, 0}, {-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}};
    for (int k = 0; k < 5; ++k) {
        cr_plane_def p = cr_default_plane_def();
        p.normal = normals[k];
        p.point = points[k];
        assert_int_equal(cr_world_add_plane(w, &p, NULL), CR_OK);
    }
    cr_shape *tet = NULL;
    char msg[256];
    cr_vec3 pts[4] = {{0.1, 0.1, 0.1}, {-0.1, -0.1, 0.1}, {-0.1, 0.1, -0.1}, {0.1, -0.1, -0.1}};
    assert_int_equal(cr_shape_create_hull(pts, 4, &tet, msg, sizeof msg), CR_OK);
    uint64_t s = 99;
    for (int i = 0; i < 150; ++i) {
        cr_vec3 x = cr_v3(-0.75 + 0.3 * (i % 6), -0.75 + 0.3 * (i / 6 % 6), 0.2 + 0.3 * (i / 36));
        x = cr_v3_add(x, test_rand_vec(&s, -0.05, 0.05));
        cr_quat q = axis_angle(test_rand_vec(&s, -1, 1), test_rand(&s, 0, 3));
        if (i % 3 == 0) {
            add_box(w, cr_v3(0.1, 0.07, 0.05), x, q, 1.0, 0.3, 0.5);
        } else if (i % 3 == 1) {
            cr_body_def b = cr_default_body_def();
            b.shape = CR_SHAPE_HULL;
            b.shape_ref = tet;
            b.mass = 0.5;
            b.position = x;
            b.orientation = q;
            b.friction = 0.4;
            assert_int_equal(cr_world_add_body(w, &b, NULL), CR_OK);
        } else {
            cr_body_def b = cr_default_body_def();
            b.radius = 0.08;
            b.position = x;
            b.velocity = test_rand_vec(&s, -1, 1);
            b.restitution = 0.5;
            b.friction = 0.3;
            assert_int_equal(cr_world_add_body(w, &b, NULL), CR_OK);
        }
    }
    cr_shape_release(tet);
    return w;
}

static void test_rigid_threads_bitwise(void **state)
{
    (void)state;
    int enqueued = 0;
    cr_world *w[3] = {pile(1, NULL), pile(2, NULL), pile(1, &enqueued)};
    uint32_t most = 0, carried = 0;
    for (int k = 0; k < 240; ++k)
        for (int m = 0; m < 3; ++m) {
            assert_int_equal(cr_world_step(w[m]), CR_OK);
            if (cr_world_stats(w[m])->contacts > most) most = cr_world_stats(w[m])->contacts;
            carried += cr_world_stats(w[m])->carried_contacts;
        }
    assert_true(enqueued > 0);
    assert_true(most > 300); /* many work items of 16 jobs, not one */
    assert_true(carried > 1000); /* resting pairs' manifolds carried over in the work items */
    uint32_t n = cr_world_body_capacity(w[0]);
    assert_int_equal(n, 150);
    for (uint32_t i = 0; i < n; ++i) {
        cr_body_state s0;
        assert_int_equal(cr_body_get_state(w[0], cr_world_body_at(w[0], i), &s0), CR_OK);
        for (int m = 1; m < 3; ++m) {
            cr_body_state s;
            assert_int_equal(cr_body_get_state(w[m], cr_world_body_at(w[m], i), &s), CR_OK);
            assert_memory_equal(&s.position, &s0.position, sizeof s.position);
            assert_memory_equal(&s.velocity, &s0.velocity, sizeof s.velocity);
            assert_memory_equal(&s.angular_velocity, &s0.angular_velocity, sizeof s.angular_velocity);
            assert_memory_equal(&s.orientation, &s0.orientation, sizeof s.orientation);
        }
    }
    for (int m = 0; m < 3; ++m) cr_world_destroy(w[m]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rigid_threads_bitwise),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
