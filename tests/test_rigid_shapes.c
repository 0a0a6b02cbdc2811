/* Hulls, meshes and spheres in the rigid-body pipeline (issue 5):
 * - a convex hull (a tetrahedron) and a box dropped onto a static mesh floor
 *   (triangles found through the mesh's bounding-volume hierarchy) come to
 *   rest on it like on a plane: centre heights exact to 1e-5 m, at rest;
 * - a ball lying on a box (sphere-polyhedron contact) presses with m g;
 * - a single colliding contact with "law": "stronge" gets seed 002's exact
 *   frictional impulse computed from the bodies' full inertia tensors: the
 *   world's velocity after the impact equals cr_law_stronge's to 1e-12, its
 *   angular momentum too (in direction; in size up to the free turn's
 *   spin-energy guard, within 0.1%). */
#include "rigid_helpers.h"

#define G 9.81

/* A closed 2 x 2 x 0.2 slab as a mesh (12 triangles), top face at z = 0. */
static cr_shape *slab_mesh(void)
{
    const double a = 2.0, t = 0.2;
    cr_vec3 v[8];
    for (int i = 0; i < 8; ++i) v[i] = cr_v3(i & 1 ? a : -a, i & 2 ? a : -a, i & 4 ? 0.0 : -t);
    static const uint32_t tri[36] = {0, 2, 3, 0, 3, 1, 4, 5, 7, 4, 7, 6, 0, 1, 5, 0, 5, 4,
                                     2, 6, 7, 2, 7, 3, 1, 3, 7, 1, 7, 5, 0, 4, 6, 0, 6, 2};
    cr_shape *s;
    char msg[256];
    cr_status st = cr_shape_create_mesh(v, 8, tri, 12, &s, msg, sizeof msg);
    if (st != CR_OK) print_error("%s\n", msg);
    assert_int_equal(st, CR_OK);
    return s;
}

static void test_hull_and_box_rest_on_mesh_floor(void **state)
{
    (void)state;
    cr_world *w = make_world(cr_v3(0, 0, -G), 1e-3, CR_METHOD_IMPULSE);
    cr_shape *slab = slab_mesh();
    cr_body_def d = cr_default_body_def();
    d.shape = CR_SHAPE_MESH;
    d.shape_ref = slab;
    d.type = CR_BODY_STATIC;
    d.position = cr_v3(0, 0, -0.1); /* its centroid: the top face lies at z = 0 */
    assert_int_equal(cr_world_add_body(w, &d, NULL), CR_OK);
    cr_shape_release(slab);
    /* a regular-ish tetrahedron standing on a face: its centroid is a quarter
     * of the height above that face */
    cr_vec3 pts[4] = {{0, 0, 0}, {0.3, 0, 0}, {0.15, 0.26, 0}, {0.15, 0.0866, 0.24}};
    cr_shape *tet;
    char msg[256];
    assert_int_equal(cr_shape_create_hull(pts, 4, &tet, msg, sizeof msg), CR_OK);
    d = cr_default_body_def();
    d.shape = CR_SHAPE_HULL;
    d.shape_ref = tet;
    d.density = 1000.0;
    d.friction = 0.5;
    d.restitution = 0.2;
    d.position = cr_v3(-0.8, 0.1, 0.06 + 0.05); /* 5 cm above its resting height */
    cr_body_id hull;
    assert_int_equal(cr_world_add_body(w, &d, &hull), CR_OK);
    cr_shape_release(tet);
    cr_body_id box = add_box(w, cr_v3(0.1, 0.15, 0.05), cr_v3(0.7, -0.3, 0.3), cr_q_identity(), 2.0, 0.3, 0.5);
    for (int i = 0; i < 3000; ++i) assert_int_equal(cr_world_step(w), CR_OK);
    cr_body_state sh = state_of(w, hull), sb = state_of(w, box);
    assert_near(sh.position.z, 0.06, 1e-5);
    assert_near(sb.position.z, 0.05, 1e-5);
    assert_true(cr_v3_len(sh.velocity) < 1e-6 && cr_v3_len(sb.velocity) < 1e-6);
    cr_world_destroy(w);
}

static void test_ball_on_box(void **state)
{
    (void)state;
    const double dt = 1e-3, m = 0.7;
    cr_world *w = make_world(cr_v3(0, 0, -G), dt, CR_METHOD_IMPULSE);
    add_plane(w, cr_v3_zero(), cr_v3(0, 0, 1));
    cr_body_id box = add_box(w, cr_v3(0.2, 0.2, 0.1), cr_v3(0, 0, 0.1), cr_q_identity(), 5.0, 0.0, 0.5);
    cr_body_id ball = add_sphere(w, cr_v3(0.05, 0, 0.25), cr_v3_zero(), 0.05, m, CR_INERTIA_SOLID, 0.0, 0.5);
    for (int i = 0; i < 2000; ++i) assert_int_equal(cr_world_step(w), CR_OK);
    assert_near(state_of(w, ball).position.z, 0.25, 1e-6);
    assert_near(state_of(w, box).position.z, 0.1, 1e-6);
    double on_ball = 0.0;
    for (uint32_t k = 0; k < cr_world_contact_count(w); ++k) {
        cr_contact_report c;
        assert_int_equal(cr_world_get_contact(w, k, &c), CR_OK);
        if (c.a.index == ball.index || c.b.index == ball.index) on_ball += c.normal_impulse;
    }
    assert_near(on_ball / dt, m * G, 1e-9 * m * G);
    cr_world_destroy(w);
}

static void test_single_impact_uses_stronge(void **state)
{
    (void)state;
    cr_world_def def = cr_default_world_def();
    def.gravity = cr_v3_zero();
    def.law = CR_LAW_STRONGE;
    cr_world *w = make_world_def(&def);
    add_plane(w, cr_v3_zero(), cr_v3(0, 0, 1));
    /* a long box turned so that one corner is lowest, touching the floor */
    cr_vec3 h = cr_v3(0.3, 0.1, 0.05);
    cr_quat q = cr_q_mul(axis_angle(cr_v3(1, 0, 0), 0.3), axis_angle(cr_v3(0, 1, 0), 0.4));
    cr_mat3 R = cr_q_to_m3(q);
    double lowest = INFINITY;
    cr_vec3 corner = cr_v3_zero();
    for (int i = 0; i < 8; ++i) {
        cr_vec3 c = cr_m3_mul_v(R, cr_v3(i & 1 ? h.x : -h.x, i & 2 ? h.y : -h.y, i & 4 ? h.z : -h.z));
        if (c.z < lowest) lowest = c.z, corner = c;
    }
    cr_vec3 x = cr_v3(0, 0, -lowest);
    cr_body_id box = add_box(w, h, x, q, 2.0, 0.6, 0.4);
    cr_body_state s = state_of(w, box);
    s.velocity = cr_v3(0.5, -0.2, -2.0);
    s.angular_velocity = cr_v3(1.0, 3.0, -0.5);
    assert_int_equal(cr_body_set_state(w, box, &s), CR_OK);
    /* the law on its own, from the same state */
    double m;
    cr_mat3 I;
    assert_int_equal(cr_body_get_inertia(w, box, &m, &I), CR_OK);
    bool ok;
    cr_contact_side a = {1.0 / m, cr_m3_inverse(I, &ok), corner, s.velocity, s.angular_velocity};
    cr_contact_side b = cr_contact_side_immovable();
    cr_stronge_result res;
    assert_int_equal(cr_law_stronge(&a, &b, cr_v3(0, 0, 1), 0.6 * 1.0, 0.4 * 1.0, &res, NULL, 0), CR_OK);
    cr_vec3 v_expect = cr_v3_madd(s.velocity, res.impulse, 1.0 / m);
    cr_vec3 w_expect = cr_v3_add(s.angular_velocity, cr_m3_mul_v(a.inv_inertia, cr_v3_cross(corner, res.impulse)));
    assert_int_equal(cr_world_step(w), CR_OK);
    cr_body_state after = state_of(w, box);
    assert_true(cr_v3_len(cr_v3_sub(after.velocity, v_expect)) < 1e-12 * (1.0 + cr_v3_len(v_expect)));
    /* the step then turns the body: its angular momentum is what is kept */
    cr_mat3 I1;
    assert_int_equal(cr_body_get_inertia(w, box, NULL, &I1), CR_OK);
    cr_vec3 L_expect = cr_m3_mul_v(I, w_expect), L_after = cr_m3_mul_v(I1, after.angular_velocity);
    /* kept, up to the spin-energy guard of the free turn (which may only
     * scale it down a little: its direction stays) */
    double k = cr_v3_dot(L_after, L_expect) / cr_v3_len2(L_expect);
    assert_true(k <= 1.0 + 1e-12 && k > 0.999);
    assert_true(cr_v3_len(cr_v3_cross(L_after, L_expect)) < 1e-12 * cr_v3_len2(L_expect));
    cr_world_destroy(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hull_and_box_rest_on_mesh_floor),
        cmocka_unit_test(test_ball_on_box),
        cmocka_unit_test(test_single_impact_uses_stronge),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
