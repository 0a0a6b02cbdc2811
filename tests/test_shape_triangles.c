/* cr_shape_triangles: a shape's surface as triangles for drawing. The
 * triangles close the shape: their signed volumes (divergence theorem,
 * V = 1/6 sum a . (b x c)) add up to the shape's volume, and each faces
 * outward (for these convex shapes: its normal points away from the
 * centroid, which is the shape frame's origin). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "carom/shape.h"
#include "test_helpers.h"

static double signed_volume(const cr_vec3 *t, uint32_t n)
{
    double v = 0.0;
    for (uint32_t i = 0; i < n; ++i) v += cr_v3_dot(t[3 * i], cr_v3_cross(t[3 * i + 1], t[3 * i + 2])) / 6.0;
    return v;
}

/* Every triangle non-degenerate and facing away from the origin (inside a
 * convex shape). */
static void assert_outward(const cr_vec3 *t, uint32_t n)
{
    for (uint32_t i = 0; i < n; ++i) {
        cr_vec3 a = t[3 * i], b = t[3 * i + 1], c = t[3 * i + 2];
        cr_vec3 nrm = cr_v3_cross(cr_v3_sub(b, a), cr_v3_sub(c, a));
        assert_true(cr_v3_len(nrm) > 0.0);
        cr_vec3 centre = cr_v3_scale(cr_v3_add(cr_v3_add(a, b), c), 1.0 / 3.0);
        assert_true(cr_v3_dot(nrm, centre) > 0.0);
    }
}

/* The triangles of s, asked for by size first. */
static cr_vec3 *triangles_of(const cr_shape *s, uint32_t *n)
{
    *n = cr_shape_triangles(s, NULL, 0);
    cr_vec3 *t = malloc(3 * (size_t)(*n ? *n : 1) * sizeof *t);
    assert_non_null(t);
    assert_int_equal(cr_shape_triangles(s, t, *n), *n);
    return t;
}

static void box_triangles(void **state)
{
    (void)state;
    char msg[256];
    cr_shape *s;
    cr_vec3 h = cr_v3(0.5, 0.25, 0.125);
    assert_int_equal(cr_shape_create_box(h, &s, msg, sizeof msg), CR_OK);
    uint32_t n;
    cr_vec3 *t = triangles_of(s, &n);
    assert_int_equal(n, 12);
    assert_near(signed_volume(t, n), 8.0 * h.x * h.y * h.z, 1e-12);
    assert_near(signed_volume(t, n), cr_shape_mass_properties(s)->volume, 1e-12);
    assert_outward(t, n);
    /* Every vertex is a corner of the box. */
    for (uint32_t i = 0; i < 3 * n; ++i) {
        assert_near(fabs(t[i].x), h.x, 0.0);
        assert_near(fabs(t[i].y), h.y, 0.0);
        assert_near(fabs(t[i].z), h.z, 0.0);
    }
    free(t);
    cr_shape_release(s);
}

static void too_small_writes_only_capacity(void **state)
{
    (void)state;
    char msg[256];
    cr_shape *s;
    assert_int_equal(cr_shape_create_box(cr_v3(1, 1, 1), &s, msg, sizeof msg), CR_OK);
    cr_vec3 t[3 * 5];
    for (int i = 0; i < 15; ++i) t[i] = cr_v3(7, 7, 7);
    assert_int_equal(cr_shape_triangles(s, t, 4), 12);
    assert_near(t[11].x * t[11].x, 1.0, 0.0); /* the fourth triangle is written */
    for (int i = 12; i < 15; ++i) assert_near(t[i].x, 7.0, 0.0); /* the fifth is not */
    assert_int_equal(cr_shape_triangles(s, NULL, 100), 12);
    assert_int_equal(cr_shape_triangles(NULL, t, 5), 0);
    cr_shape_release(s);
}

static void sphere_has_none(void **state)
{
    (void)state;
    char msg[256];
    cr_shape *s;
    assert_int_equal(cr_shape_create_sphere(0.3, &s, msg, sizeof msg), CR_OK);
    cr_vec3 t[3];
    assert_int_equal(cr_shape_triangles(s, t, 1), 0);
    cr_shape_release(s);
}

static void hull_triangles(void **state)
{
    (void)state;
    char msg[256];
    /* Random points in a squashed ball: a hull with many polygon faces,
     * plus an octahedron's corners (quads would be merged when coplanar). */
    enum { N = 120 };
    cr_vec3 pts[N];
    uint32_t seed = 12345;
    for (int i = 0; i < N; ++i) {
        double c[3];
        for (int k = 0; k < 3; ++k) {
            seed = seed * 1664525u + 1013904223u;
            c[k] = (seed >> 8) / 16777216.0 * 2.0 - 1.0;
        }
        pts[i] = cr_v3(1.0 + 0.8 * c[0], -2.0 + 0.5 * c[1], 0.5 + 0.3 * c[2]);
    }
    cr_shape *s;
    assert_int_equal(cr_shape_create_hull(pts, N, &s, msg, sizeof msg), CR_OK);
    uint32_t n;
    cr_vec3 *t = triangles_of(s, &n);
    assert_true(n >= 4);
    double v = cr_shape_mass_properties(s)->volume;
    assert_near(signed_volume(t, n), v, 1e-12 * (1.0 + v));
    assert_outward(t, n);
    free(t);
    cr_shape_release(s);

    /* A cube given by its corners and face centres: quads fanned. */
    cr_vec3 cube[14];
    for (uint32_t i = 0; i < 8; ++i) cube[i] = cr_v3(i & 1u ? 2 : 0, i & 2u ? 2 : 0, i & 4u ? 2 : 0);
    for (int k = 0; k < 6; ++k) {
        double c[3] = {1, 1, 1};
        c[k / 2] = k % 2 ? 2 : 0;
        cube[8 + k] = cr_v3(c[0], c[1], c[2]);
    }
    assert_int_equal(cr_shape_create_hull(cube, 14, &s, msg, sizeof msg), CR_OK);
    t = triangles_of(s, &n);
    assert_near(signed_volume(t, n), 8.0, 1e-12);
    assert_near(signed_volume(t, n), cr_shape_mass_properties(s)->volume, 1e-12);
    assert_outward(t, n);
    free(t);
    cr_shape_release(s);
}

static void mesh_triangles(void **state)
{
    (void)state;
    char msg[256];
    /* An octahedron with its corners off the axes' origin: 8 triangles,
     * V = 4/3 a b c. */
    const double a = 0.7, b = 0.4, c = 1.1;
    cr_vec3 v[6] = {cr_v3(3 + a, 1, -2), cr_v3(3 - a, 1, -2), cr_v3(3, 1 + b, -2),
                    cr_v3(3, 1 - b, -2), cr_v3(3, 1, -2 + c), cr_v3(3, 1, -2 - c)};
    const uint32_t idx[24] = {0, 2, 4, 2, 1, 4, 1, 3, 4, 3, 0, 4, 2, 0, 5, 1, 2, 5, 3, 1, 5, 0, 3, 5};
    cr_shape *s;
    assert_int_equal(cr_shape_create_mesh(v, 6, idx, 8, &s, msg, sizeof msg), CR_OK);
    uint32_t n;
    cr_vec3 *t = triangles_of(s, &n);
    assert_int_equal(n, 8);
    assert_near(signed_volume(t, n), 4.0 / 3.0 * a * b * c, 1e-12);
    assert_near(signed_volume(t, n), cr_shape_mass_properties(s)->volume, 1e-12);
    assert_outward(t, n);
    /* In the shape frame: the input moved by the offset (the centroid). */
    cr_vec3 off = cr_shape_offset(s);
    assert_near(t[0].x + off.x, v[idx[0]].x, 1e-12);
    assert_near(t[0].z + off.z, v[idx[0]].z, 1e-12);
    free(t);
    cr_shape_release(s);

    /* The OBJ mesh of the scenes: its volume likewise. */
    assert_int_equal(cr_shape_load_obj(CAROM_SOURCE_DIR "/scenes/meshes/gem.obj", &s, msg, sizeof msg), CR_OK);
    t = triangles_of(s, &n);
    double vol = cr_shape_mass_properties(s)->volume;
    assert_near(signed_volume(t, n), vol, 1e-12 * (1.0 + vol));
    free(t);
    cr_shape_release(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(box_triangles),  cmocka_unit_test(too_small_writes_only_capacity),
        cmocka_unit_test(sphere_has_none), cmocka_unit_test(hull_triangles),
        cmocka_unit_test(mesh_triangles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
