/* Shapes: mass properties by volume integrals, convex hulls, meshes (their
 * validation and bounding-volume hierarchy) and the OBJ loader. Every case
 * checks a closed-form answer or an invariant. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shape_internal.h"
#include "test_helpers.h"
#include <unistd.h>

/* The unit cube's 12 triangles, vertex i having +x at bit 0, +y bit 1, +z
 * bit 2, counter-clockwise from outside (cr_hull_init_box's quads, split). */
static const uint32_t cube_tris[36] = {1, 3, 7, 1, 7, 5, 0, 4, 6, 0, 6, 2, 2, 6, 7, 2, 7, 3,
                                       0, 1, 5, 0, 5, 4, 4, 5, 7, 4, 7, 6, 0, 2, 3, 0, 3, 1};
static const uint32_t tetra_tris[12] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};

static void cube_vertices(cr_vec3 v[8], cr_vec3 corner, cr_vec3 size)
{
    for (uint32_t i = 0; i < 8; ++i)
        v[i] = cr_v3(corner.x + (i & 1u ? size.x : 0), corner.y + (i & 2u ? size.y : 0), corner.z + (i & 4u ? size.z : 0));
}

static void tetra_vertices(cr_vec3 v[4])
{
    v[0] = cr_v3(0, 0, 0), v[1] = cr_v3(1, 0, 0), v[2] = cr_v3(0, 1, 0), v[3] = cr_v3(0, 0, 1);
}

static void assert_m3_near(cr_mat3 a, cr_mat3 b, double tol)
{
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) assert_near(a.m[i][j], b.m[i][j], tol);
}

static void assert_v3_near(cr_vec3 a, cr_vec3 b, double tol)
{
    assert_near(a.x, b.x, tol);
    assert_near(a.y, b.y, tol);
    assert_near(a.z, b.z, tol);
}

/* The tetrahedron's inertia about its centroid: int x^2 = 1/60 and
 * int xy = 1/120 over the unit simplex, V = 1/6, c = (1/4, 1/4, 1/4), so
 * C_xx = 1/60 - V/16 = 1/160, C_xy = 1/120 - V/16 = -1/480, and
 * I = tr(C) 1 - C: I_xx = 2/160 = 1/80, I_xy = +1/480. */
static cr_mat3 tetra_inertia(void)
{
    cr_mat3 m = cr_m3_diag(1.0 / 80, 1.0 / 80, 1.0 / 80);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            if (i != j) m.m[i][j] = 1.0 / 480;
    return m;
}

/* Invariants of a hull built from pts (input frame; the hull is centred on
 * offset): closed, Euler characteristic 2, every face planar, strictly
 * convex and counter-clockwise about its unit outward normal, every edge
 * between two faces, every input point inside or on it. */
static void check_hull(const cr_hull *h, const cr_vec3 *pts, uint32_t n, cr_vec3 offset, double tol)
{
    assert_int_equal((int)h->vertex_count - (int)h->edge_count + (int)h->face_count, 2);
    for (uint32_t e = 0; e < h->edge_count; ++e) {
        assert_true(h->edge_faces[2 * e] < h->face_count);
        assert_true(h->edge_faces[2 * e + 1] < h->face_count);
        assert_true(h->edge_faces[2 * e] != h->edge_faces[2 * e + 1]);
    }
    uint32_t *used = calloc(h->vertex_count, sizeof *used);
    for (uint32_t f = 0; f < h->face_count; ++f) {
        const cr_hull_face *fc = &h->faces[f];
        assert_true(fc->count >= 3);
        assert_near(cr_v3_len(fc->normal), 1.0, 1e-12);
        for (uint32_t k = 0; k < fc->count; ++k) {
            cr_vec3 a = h->vertices[h->face_vertices[fc->first + k]];
            cr_vec3 b = h->vertices[h->face_vertices[fc->first + (k + 1) % fc->count]];
            cr_vec3 c = h->vertices[h->face_vertices[fc->first + (k + 2) % fc->count]];
            used[h->face_vertices[fc->first + k]]++;
            assert_near(cr_v3_dot(fc->normal, a), fc->offset, tol);
            assert_true(cr_v3_dot(cr_v3_cross(cr_v3_sub(b, a), cr_v3_sub(c, b)), fc->normal) > 0.0);
        }
        for (uint32_t i = 0; i < h->vertex_count; ++i)
            assert_true(cr_v3_dot(fc->normal, h->vertices[i]) <= fc->offset + tol);
        for (uint32_t i = 0; i < n; ++i)
            assert_true(cr_v3_dot(fc->normal, cr_v3_sub(pts[i], offset)) <= fc->offset + tol);
    }
    for (uint32_t i = 0; i < h->vertex_count; ++i) assert_true(used[i] >= 3);
    free(used);
}

static void test_mass_cube_off_origin(void **state)
{
    (void)state;
    cr_vec3 v[8];
    cube_vertices(v, cr_v3(3, -2, 5), cr_v3(1, 1, 1));
    cr_mass_properties m;
    cr_mass_from_triangles(v, cube_tris, 12, &m);
    assert_near(m.volume, 1.0, 1e-12);
    assert_v3_near(m.centroid, cr_v3(3.5, -1.5, 5.5), 1e-12);
    assert_m3_near(m.inertia_unit, cr_m3_diag(1.0 / 6, 1.0 / 6, 1.0 / 6), 1e-12);

    /* Far from the origin the cancellation would lose everything without
     * the reference point: a cube at 1e6 still gives 1e-9 accuracy. */
    cube_vertices(v, cr_v3(1e6, -2e6, 3e6), cr_v3(1, 2, 3));
    cr_mass_from_triangles(v, cube_tris, 12, &m);
    assert_near(m.volume, 6.0, 1e-9);
    assert_m3_near(m.inertia_unit, cr_m3_diag(6.0 * 13 / 12, 6.0 * 10 / 12, 6.0 * 5 / 12), 1e-8);
}

static void test_mass_tetrahedron(void **state)
{
    (void)state;
    cr_vec3 v[4];
    tetra_vertices(v);
    cr_mass_properties m;
    cr_mass_from_triangles(v, tetra_tris, 4, &m);
    assert_near(m.volume, 1.0 / 6, 1e-12);
    assert_v3_near(m.centroid, cr_v3(0.25, 0.25, 0.25), 1e-12);
    assert_m3_near(m.inertia_unit, tetra_inertia(), 1e-12);

    cr_shape *s = NULL;
    char msg[256];
    assert_int_equal(cr_shape_create_hull(v, 4, &s, msg, sizeof msg), CR_OK);
    assert_int_equal(cr_shape_get_type(s), CR_SHAPE_HULL);
    const cr_mass_properties *hm = cr_shape_mass_properties(s);
    assert_near(hm->volume, 1.0 / 6, 1e-12);
    assert_v3_near(hm->centroid, cr_v3(0.25, 0.25, 0.25), 1e-12);
    assert_v3_near(cr_shape_offset(s), cr_v3(0.25, 0.25, 0.25), 1e-12);
    assert_m3_near(hm->inertia_unit, tetra_inertia(), 1e-12);
    assert_int_equal(s->hull.vertex_count, 4);
    assert_int_equal(s->hull.face_count, 4);
    assert_int_equal(s->hull.edge_count, 6);
    assert_near(cr_shape_bounding_radius(s), sqrt(0.75 * 0.75 + 2 * 0.0625), 1e-12);
    /* the inner ball about the centroid: the slanted face x + y + z = 1 is
     * nearest, (1 - 3/4) / sqrt 3 (the axis faces are 1/4 away) */
    assert_near(cr_shape_inner_radius(s), 0.25 / sqrt(3.0), 1e-12);
    check_hull(&s->hull, v, 4, cr_shape_offset(s), 1e-12);
    cr_shape_release(s);
}

static void test_hull_box_with_interior_points(void **state)
{
    (void)state;
    cr_vec3 h = cr_v3(0.5, 1.25, 2.0), centre = cr_v3(-7, 4, 2);
    cr_vec3 pts[8 + 200];
    uint64_t seed = 11;
    for (uint32_t i = 0; i < 200; ++i) { /* interior points, some on the faces, listed first */
        cr_vec3 u = test_rand_vec(&seed, -1, 1);
        if (i % 5 == 0) u.x = 1.0;
        if (i % 7 == 0) u.y = -1.0, u.z = 1.0; /* on an edge */
        pts[i] = cr_v3(centre.x + h.x * u.x, centre.y + h.y * u.y, centre.z + h.z * u.z);
    }
    for (uint32_t i = 0; i < 8; ++i)
        pts[200 + i] = cr_v3(centre.x + (i & 1u ? h.x : -h.x), centre.y + (i & 2u ? h.y : -h.y),
                             centre.z + (i & 4u ? h.z : -h.z));
    pts[3] = pts[205]; /* a duplicate */
    cr_shape *s = NULL, *box = NULL;
    char msg[256];
    assert_int_equal(cr_shape_create_hull(pts, 208, &s, msg, sizeof msg), CR_OK);
    assert_int_equal(cr_shape_create_box(h, &box, msg, sizeof msg), CR_OK);
    assert_int_equal(s->hull.vertex_count, 8);
    assert_int_equal(s->hull.face_count, 6);
    assert_int_equal(s->hull.edge_count, 12);
    for (uint32_t f = 0; f < 6; ++f) assert_int_equal(s->hull.faces[f].count, 4);
    const cr_mass_properties *m = cr_shape_mass_properties(s);
    assert_near(m->volume, 8 * h.x * h.y * h.z, 1e-12);
    assert_v3_near(m->centroid, centre, 1e-12);
    assert_m3_near(m->inertia_unit, cr_shape_mass_properties(box)->inertia_unit, 1e-12);
    assert_near(cr_shape_bounding_radius(s), cr_v3_len(h), 1e-12);
    assert_near(cr_shape_inner_radius(s), h.x, 1e-12); /* the least half extent */
    assert_near(cr_shape_inner_radius(box), h.x, 1e-12);
    check_hull(&s->hull, pts, 208, cr_shape_offset(s), 1e-12);
    cr_shape_release(s);
    cr_shape_release(box);
}

static void test_hull_random_clouds(void **state)
{
    (void)state;
    uint64_t seed = 5;
    cr_vec3 pts[50];
    for (int c = 0; c < 200; ++c) {
        cr_vec3 centre = test_rand_vec(&seed, -100, 100);
        double scale = exp(test_rand(&seed, -5, 5));
        for (int i = 0; i < 50; ++i) pts[i] = cr_v3_madd(centre, test_rand_vec(&seed, -1, 1), scale);
        if (c % 4 == 1) /* snapped to a grid: many coplanar and duplicate points */
            for (int i = 0; i < 50; ++i) {
                cr_vec3 u = test_rand_vec(&seed, -1, 1);
                pts[i] = cr_v3_madd(centre, cr_v3(round(2 * u.x), round(2 * u.y), round(2 * u.z)), scale);
            }
        cr_shape *s = NULL;
        char msg[256];
        assert_int_equal(cr_shape_create_hull(pts, 50, &s, msg, sizeof msg), CR_OK);
        check_hull(&s->hull, pts, 50, cr_shape_offset(s), 1e-9 * scale);
        /* The hull of the hull's own vertices is the same solid. */
        cr_mass_properties m;
        assert_true(cr_mass_from_hull(&s->hull, &m));
        assert_near(m.volume, s->mass.volume, 1e-12 * s->mass.volume);
        assert_v3_near(m.centroid, cr_v3_zero(), 1e-12 * scale);
        cr_shape_release(s);
    }
}

static void test_hull_sphere_points(void **state)
{
    (void)state;
    enum { N = 2000 };
    static cr_vec3 pts[N];
    const double r = 2.0, pi = 3.14159265358979323846;
    /* Fibonacci sphere: nearly uniform, every point a hull vertex. */
    for (int i = 0; i < N; ++i) {
        double z = 1.0 - (2.0 * i + 1.0) / N, rho = sqrt(1.0 - z * z), phi = i * pi * (3.0 - sqrt(5.0));
        pts[i] = cr_v3(r * rho * cos(phi), r * rho * sin(phi), r * z);
    }
    cr_shape *s = NULL;
    char msg[256];
    assert_int_equal(cr_shape_create_hull(pts, N, &s, msg, sizeof msg), CR_OK);
    check_hull(&s->hull, pts, N, cr_shape_offset(s), 1e-10);
    assert_int_equal(s->hull.vertex_count, N);
    /* An inscribed polyhedron: the volume is below the ball's, and with
     * about 2N triangles of area 4 pi r^2 / 2N the gap (sagitta ~ area / (2 pi
     * r) per unit area) is O(1/N): 4 pi r^2 * 2 r / N bounds it generously. */
    double ball = 4.0 / 3.0 * pi * r * r * r, v = s->mass.volume;
    assert_true(v < ball);
    assert_true(ball - v < 4 * pi * r * r * 2 * r / N);
    assert_true(ball - v > 0.1 * (4 * pi * r * r * r / N)); /* and not trivially close */
    cr_shape_release(s);
}

static void test_hull_errors(void **state)
{
    (void)state;
    cr_vec3 pts[6] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}, {2, 2, 0}, {0, 0, 1}};
    cr_shape *s = (cr_shape *)1;
    char msg[256];
    assert_int_equal(cr_shape_create_hull(pts, 3, &s, msg, sizeof msg), CR_ERR_INVALID_ARGUMENT);
    assert_null(s);
    assert_non_null(strstr(msg, "at least 4"));
    assert_int_equal(cr_shape_create_hull(pts, 5, &s, msg, sizeof msg), CR_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(msg, "coplanar"));
    cr_vec3 line[5] = {{0, 0, 0}, {1, 1, 1}, {2, 2, 2}, {3, 3, 3}, {0.5, 0.5, 0.5}};
    assert_int_equal(cr_shape_create_hull(line, 5, &s, msg, sizeof msg), CR_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(msg, "collinear"));
    cr_vec3 same[4] = {{1, 2, 3}, {1, 2, 3}, {1, 2, 3}, {1, 2, 3}};
    assert_int_equal(cr_shape_create_hull(same, 4, &s, msg, sizeof msg), CR_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(msg, "coincide"));
    pts[4].y = NAN;
    assert_int_equal(cr_shape_create_hull(pts, 6, &s, msg, sizeof msg), CR_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(msg, "point 4"));
    /* Nearly coplanar: within the relative tolerance. */
    cr_vec3 flat[4] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0.3, 0.3, 1e-13}};
    assert_int_equal(cr_shape_create_hull(flat, 4, &s, msg, sizeof msg), CR_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(msg, "coplanar"));
}

static void test_mesh_cube(void **state)
{
    (void)state;
    cr_vec3 v[8];
    cube_vertices(v, cr_v3(3, -2, 5), cr_v3(1, 1, 1));
    cr_shape *s = NULL;
    char msg[256];
    assert_int_equal(cr_shape_create_mesh(v, 8, cube_tris, 12, &s, msg, sizeof msg), CR_OK);
    assert_int_equal(cr_shape_get_type(s), CR_SHAPE_MESH);
    const cr_mass_properties *m = cr_shape_mass_properties(s);
    assert_near(m->volume, 1.0, 1e-12);
    assert_v3_near(m->centroid, cr_v3(3.5, -1.5, 5.5), 1e-12);
    assert_v3_near(cr_shape_offset(s), cr_v3(3.5, -1.5, 5.5), 1e-12);
    assert_m3_near(m->inertia_unit, cr_m3_diag(1.0 / 6, 1.0 / 6, 1.0 / 6), 1e-12);
    assert_near(cr_shape_bounding_radius(s), sqrt(0.75), 1e-12);
    assert_near(cr_shape_inner_radius(s), 0.5, 1e-12);
    /* Centred, with unit normals along the axes. */
    for (uint32_t i = 0; i < 8; ++i) assert_near(cr_v3_len(s->mesh.vertices[i]), sqrt(0.75), 1e-12);
    for (uint32_t t = 0; t < 12; ++t) {
        cr_vec3 n = s->mesh.normals[t];
        assert_near(fabs(n.x) + fabs(n.y) + fabs(n.z), 1.0, 1e-12);
        assert_near(cr_v3_dot(n, s->mesh.vertices[cube_tris[3 * t]]), 0.5, 1e-12);
    }
    /* Its hull: the box's 6 quads. */
    assert_int_equal(s->hull.vertex_count, 8);
    assert_int_equal(s->hull.face_count, 6);
    assert_int_equal(s->hull.edge_count, 12);
    check_hull(&s->hull, v, 8, cr_shape_offset(s), 1e-12);
    cr_shape_release(s);

    tetra_vertices(v);
    assert_int_equal(cr_shape_create_mesh(v, 4, tetra_tris, 4, &s, msg, sizeof msg), CR_OK);
    assert_near(s->mass.volume, 1.0 / 6, 1e-12);
    assert_m3_near(s->mass.inertia_unit, tetra_inertia(), 1e-12);
    cr_shape_release(s);
}

static void expect_mesh_error(const cr_vec3 *v, uint32_t nv, const uint32_t *idx, uint32_t n, const char *a,
                              const char *b)
{
    cr_shape *s = (cr_shape *)1;
    char msg[256] = "";
    assert_int_equal(cr_shape_create_mesh(v, nv, idx, n, &s, msg, sizeof msg), CR_ERR_INVALID_ARGUMENT);
    assert_null(s);
    if (!strstr(msg, a) || !strstr(msg, b)) fail_msg("message '%s' lacks '%s' or '%s'", msg, a, b);
}

/* Two unit cubes 4 m apart as one closed mesh: its centroid lies between
 * them, outside the solid (winding number 0), so no ball about it is
 * inside: the inner radius is 0, though the nearest triangle planes are
 * 2 m from it. A cube's own is 0.5 (test_mesh_cube). */
static void test_mesh_inner_radius_outside(void **state)
{
    (void)state;
    cr_vec3 v[16];
    uint32_t tris[72];
    cube_vertices(v, cr_v3(-3, 0, 0), cr_v3(1, 1, 1));
    cube_vertices(v + 8, cr_v3(2, 0, 0), cr_v3(1, 1, 1));
    for (uint32_t k = 0; k < 36; ++k) tris[k] = cube_tris[k], tris[36 + k] = cube_tris[k] + 8;
    cr_shape *s = NULL;
    char msg[256];
    assert_int_equal(cr_shape_create_mesh(v, 16, tris, 24, &s, msg, sizeof msg), CR_OK);
    assert_v3_near(cr_shape_offset(s), cr_v3(0, 0.5, 0.5), 1e-12);
    assert_near(cr_shape_inner_radius(s), 0.0, 0.0);
    cr_shape_release(s);
}

static void test_mesh_errors(void **state)
{
    (void)state;
    cr_vec3 v[8];
    cube_vertices(v, cr_v3(0, 0, 0), cr_v3(1, 1, 1));
    uint32_t idx[36];
    /* Open: the last triangle (0, 3, 1) missing. */
    expect_mesh_error(v, 8, cube_tris, 11, "edge (", "not closed");
    /* One flipped triangle: each of its edges is walked twice the same way. */
    memcpy(idx, cube_tris, sizeof idx);
    idx[3 * 5 + 1] = cube_tris[3 * 5 + 2], idx[3 * 5 + 2] = cube_tris[3 * 5 + 1];
    expect_mesh_error(v, 8, idx, 12, "triangles 5 and", "one of them is flipped");
    /* Index out of range. */
    memcpy(idx, cube_tris, sizeof idx);
    idx[3 * 7 + 2] = 8;
    expect_mesh_error(v, 8, idx, 12, "triangle 7", "index 8 out of range");
    /* Degenerate triangles: a repeated index, and three collinear points. */
    memcpy(idx, cube_tris, sizeof idx);
    idx[3 * 2 + 1] = idx[3 * 2];
    expect_mesh_error(v, 8, idx, 12, "triangle 2", "degenerate");
    cr_vec3 w[8];
    memcpy(w, v, sizeof w);
    w[7] = cr_v3_sub(cr_v3_scale(w[3], 2.0), w[1]); /* triangle 0 is (1, 3, 7): now collinear */
    expect_mesh_error(w, 8, cube_tris, 12, "triangle 0", "zero area");
    /* A non-finite vertex. */
    memcpy(w, v, sizeof w);
    w[6].z = INFINITY;
    expect_mesh_error(w, 8, cube_tris, 12, "vertex 6", "not finite");
    /* Every triangle inward: closed and consistent, but negative volume. */
    for (int t = 0; t < 12; ++t)
        idx[3 * t] = cube_tris[3 * t], idx[3 * t + 1] = cube_tris[3 * t + 2], idx[3 * t + 2] = cube_tris[3 * t + 1];
    expect_mesh_error(v, 8, idx, 12, "volume -1", "inward");
    /* Two tetrahedra sharing only the edge (0, 1): four triangles on it. */
    cr_vec3 two[6] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {0, -1, 0}, {0, 0, -1}};
    uint32_t two_tris[24] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3, 0, 4, 1, 0, 1, 5, 0, 5, 4, 1, 4, 5};
    for (int k = 12; k < 24; k += 3) { /* the second tetrahedron is the first mirrored: reverse its triangles */
        uint32_t t = two_tris[k + 1];
        two_tris[k + 1] = two_tris[k + 2], two_tris[k + 2] = t;
    }
    expect_mesh_error(two, 6, two_tris, 8, "edge (0, 1) is shared by 4 triangles", "not a manifold");
    /* Too few triangles to close anything. */
    expect_mesh_error(v, 8, cube_tris, 3, "at least 4 triangles", "got 3");
}

/* A closed triangulated unit sphere about centre: the hull of a Fibonacci
 * point set with its faces fanned. */
static cr_shape *sphere_mesh(uint32_t n, cr_vec3 centre)
{
    cr_vec3 *p = malloc(sizeof *p * n);
    for (uint32_t i = 0; i < n; ++i) {
        double z = 1.0 - (2.0 * i + 1.0) / n, rho = sqrt(1.0 - z * z), phi = i * 3.14159265358979323846 * (3.0 - sqrt(5.0));
        p[i] = cr_v3(rho * cos(phi), rho * sin(phi), z);
    }
    cr_hull h;
    char msg[256];
    assert_int_equal(cr_hull_build(&h, p, n, msg, sizeof msg), CR_OK);
    uint32_t nt = 0;
    for (uint32_t f = 0; f < h.face_count; ++f) nt += h.faces[f].count - 2;
    uint32_t *idx = malloc(sizeof *idx * 3 * nt), k = 0;
    for (uint32_t f = 0; f < h.face_count; ++f)
        for (uint32_t i = 1; i + 1 < h.faces[f].count; ++i) {
            idx[k++] = h.face_vertices[h.faces[f].first];
            idx[k++] = h.face_vertices[h.faces[f].first + i];
            idx[k++] = h.face_vertices[h.faces[f].first + i + 1];
        }
    for (uint32_t i = 0; i < h.vertex_count; ++i) h.vertices[i] = cr_v3_add(h.vertices[i], centre);
    cr_shape *s = NULL;
    assert_int_equal(cr_shape_create_mesh(h.vertices, h.vertex_count, idx, nt, &s, msg, sizeof msg), CR_OK);
    cr_hull_free(&h);
    free(idx);
    free(p);
    return s;
}

typedef struct hits {
    uint32_t *count;
} hits;

static void mark(void *user, uint32_t t) { ((hits *)user)->count[t]++; }

static void test_bvh(void **state)
{
    (void)state;
    cr_shape *s = sphere_mesh(600, cr_v3(10, -20, 30));
    const cr_mesh *m = &s->mesh;
    assert_true(m->triangle_count > 1000);
    assert_v3_near(cr_shape_offset(s), cr_v3(10, -20, 30), 1e-5); /* nearly symmetric */
    /* Structure: every triangle in exactly one leaf of at most 4; a node's
     * box holds its children's. */
    uint32_t *seen = calloc(m->triangle_count, sizeof *seen);
    for (uint32_t i = 0; i < m->node_count; ++i) {
        const cr_bvh_node *nd = &m->nodes[i];
        if (nd->count) {
            assert_true(nd->count <= 4);
            for (uint32_t k = 0; k < nd->count; ++k) seen[m->order[nd->first + k]]++;
        } else {
            assert_true(nd->first + 1 < m->node_count);
            for (uint32_t c = nd->first; c < nd->first + 2; ++c) {
                assert_true(m->nodes[c].lo.x >= nd->lo.x && m->nodes[c].hi.x <= nd->hi.x);
                assert_true(m->nodes[c].lo.y >= nd->lo.y && m->nodes[c].hi.y <= nd->hi.y);
                assert_true(m->nodes[c].lo.z >= nd->lo.z && m->nodes[c].hi.z <= nd->hi.z);
            }
        }
    }
    for (uint32_t t = 0; t < m->triangle_count; ++t) assert_int_equal(seen[t], 1);
    /* Queries against brute force over every triangle's box. */
    uint64_t seed = 17;
    hits h = {seen};
    long found = 0;
    for (int q = 0; q < 2000; ++q) {
        cr_vec3 c = test_rand_vec(&seed, -1.2, 1.2), e = test_rand_vec(&seed, 0, q % 10 == 0 ? 1.0 : 0.2);
        cr_vec3 lo = cr_v3_sub(c, e), hi = cr_v3_add(c, e);
        memset(seen, 0, sizeof *seen * m->triangle_count);
        cr_bvh_query(m, lo, hi, mark, &h);
        for (uint32_t t = 0; t < m->triangle_count; ++t) {
            cr_vec3 a = m->vertices[m->triangles[3 * t]], b = m->vertices[m->triangles[3 * t + 1]],
                    d = m->vertices[m->triangles[3 * t + 2]];
            cr_vec3 tlo = cr_v3_min(cr_v3_min(a, b), d), thi = cr_v3_max(cr_v3_max(a, b), d);
            bool expect = tlo.x <= hi.x && lo.x <= thi.x && tlo.y <= hi.y && lo.y <= thi.y && tlo.z <= hi.z &&
                          lo.z <= thi.z;
            assert_int_equal(seen[t], expect ? 1 : 0);
            found += expect;
        }
    }
    assert_true(found > 10000); /* the boxes do hit the surface */
    free(seen);
    /* The mesh's hull is the sphere's hull again, centred the same way. */
    assert_true(s->hull.vertex_count == 600);
    assert_near(s->hull.faces[0].offset, cr_v3_dot(s->hull.faces[0].normal, s->hull.vertices[s->hull.face_vertices[s->hull.faces[0].first]]), 1e-12);
    cr_shape_release(s);
}

static char tmpdir[64];

static int make_tmpdir(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/carom-test-shape-XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int remove_tmpdir(void **state)
{
    (void)state;
    return rmdir(tmpdir);
}

/* Writes text to tmpdir/name and loads it. */
static cr_status load_text(const char *name, const char *text, cr_shape **s, char *msg, size_t size)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    cr_status st = cr_shape_load_obj(path, s, msg, size);
    remove(path);
    return st;
}

static void expect_obj_error(const char *text, const char *a, const char *b)
{
    cr_shape *s = (cr_shape *)1;
    char msg[512] = "";
    assert_int_equal(load_text("bad.obj", text, &s, msg, sizeof msg), CR_ERR_INVALID_ARGUMENT);
    assert_null(s);
    if (!strstr(msg, a) || !strstr(msg, b) || !strstr(msg, "bad.obj")) fail_msg("message '%s' lacks '%s' or '%s'", msg, a, b);
}

static const char cube_obj[] = "# a unit cube, quads\r\n"
                               "mtllib cube.mtl\n"
                               "o cube\n"
                               "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nv 0 0 1\nv 1 0 1\nv 0 1 1\nv 1 1 1 1.0\n"
                               "vt 0 0\nvt 1 0\nvt 1 1\nvn 1 0 0\n\n"
                               "g sides\ns off\nusemtl steel\n"
                               "f 2/1/1 4/2/1 8/3/1 6/1/1\n"
                               "f 1//1 5//1 7//1 3//1\n"
                               "f 3/1 7/2 8/3 4/1\n"
                               "\tf 1 2 6 5   \n"
                               "f 5 6 8 7\n"
                               "f 1 3 4 2";

static void test_obj(void **state)
{
    (void)state;
    cr_shape *s = NULL;
    char msg[512];
    assert_int_equal(load_text("cube.obj", cube_obj, &s, msg, sizeof msg), CR_OK);
    assert_int_equal(s->mesh.triangle_count, 12);
    assert_near(s->mass.volume, 1.0, 1e-12);
    assert_v3_near(s->mass.centroid, cr_v3(0.5, 0.5, 0.5), 1e-12);
    assert_m3_near(s->mass.inertia_unit, cr_m3_diag(1.0 / 6, 1.0 / 6, 1.0 / 6), 1e-12);
    assert_int_equal(s->hull.face_count, 6);
    cr_shape_release(s);

    /* Negative indices count back from the last vertex so far; a long
     * comment and a long padded line are read whole. */
    size_t big = 200000;
    char *text = malloc(2 * big + 256);
    char *p = text;
    *p++ = '#';
    memset(p, 'x', big), p += big;
    p += sprintf(p, "\nv 0 0 0\nv 1 0 0\nv 0 1 0\nv");
    memset(p, ' ', big), p += big;
    p += sprintf(p, "0 0 1\nf -4 -2 -3\nf -4 -3 -1\nf -4 -1 -2\nf -3 -2 -1\n");
    assert_int_equal(load_text("tetra.obj", text, &s, msg, sizeof msg), CR_OK);
    free(text);
    assert_near(s->mass.volume, 1.0 / 6, 1e-12);
    assert_m3_near(s->mass.inertia_unit, tetra_inertia(), 1e-12);
    cr_shape_release(s);

    /* The shipped samples. */
    assert_int_equal(cr_shape_load_obj(CAROM_SOURCE_DIR "/scenes/meshes/cube.obj", &s, msg, sizeof msg), CR_OK);
    assert_near(s->mass.volume, 1.0, 1e-12);
    assert_int_equal(s->hull.face_count, 6);
    cr_shape_release(s);
    assert_int_equal(cr_shape_load_obj(CAROM_SOURCE_DIR "/scenes/meshes/gem.obj", &s, msg, sizeof msg), CR_OK);
    assert_true(s->mass.volume > 0.0);
    check_hull(&s->hull, s->mesh.vertices, s->mesh.vertex_count, cr_v3_zero(), 1e-12);
    cr_shape_release(s);
}

static void test_obj_errors(void **state)
{
    (void)state;
    expect_obj_error("v 0 0 0\n# fine\nv 1 2 abc\n", ":3:", "bad number 'abc'");
    expect_obj_error("v 0 0 0\nv 1 0 0\nv 0 1 0\n\nf 1 2 9\n", ":5:", "index 9 out of range");
    expect_obj_error("v 0 0 0\nv 1 0 0\nf 1 -3 2\n", ":3:", "index -3 out of range");
    expect_obj_error("v 0 0 0\nf 0 1 1\n", ":2:", "index 0 out of range");
    expect_obj_error("v 0 0 0\nv 1 0 0\nf 1 2\n", ":3:", "at least 3 vertices, got 2");
    expect_obj_error("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 x3\n", ":4:", "bad vertex index 'x3'");
    /* A well-formed file of an open mesh: the mesh's own error. */
    expect_obj_error("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\nf 2 3 4\n", "edge (",
                     "triangles");
    cr_shape *s = (cr_shape *)1;
    char msg[512];
    assert_int_equal(cr_shape_load_obj("/nonexistent/dir/missing.obj", &s, msg, sizeof msg), CR_ERR_INVALID_ARGUMENT);
    assert_null(s);
    assert_non_null(strstr(msg, "/nonexistent/dir/missing.obj"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mass_cube_off_origin),
        cmocka_unit_test(test_mass_tetrahedron),
        cmocka_unit_test(test_hull_box_with_interior_points),
        cmocka_unit_test(test_hull_random_clouds),
        cmocka_unit_test(test_hull_sphere_points),
        cmocka_unit_test(test_hull_errors),
        cmocka_unit_test(test_mesh_cube),
        cmocka_unit_test(test_mesh_inner_radius_outside),
        cmocka_unit_test(test_mesh_errors),
        cmocka_unit_test(test_bvh),
        cmocka_unit_test(test_obj),
        cmocka_unit_test(test_obj_errors),
    };
    return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
