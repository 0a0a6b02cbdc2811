/* Polyhedral narrow phase (src/collide_poly.h, issue 5, seed 003): every
 * case checks the geometry against a closed form or an invariant. */
#include <stdlib.h>

#include "test_helpers.h"

#include "collide_poly.h"

static const double SQ2 = 1.4142135623730950488;
static const double PI = 3.14159265358979323846;

static cr_mat3 rot(cr_vec3 axis, double angle)
{
    cr_mat3 k = cr_m3_skew(cr_v3_normalize(axis));
    return cr_m3_add(cr_m3_identity(), cr_m3_add(cr_m3_scale(k, sin(angle)), cr_m3_scale(cr_m3_mul(k, k), 1.0 - cos(angle))));
}

static cr_pose pose(cr_vec3 x, cr_mat3 R)
{
    cr_pose p = {x, R};
    return p;
}

static cr_hull box(double x, double y, double z)
{
    cr_hull h;
    assert_true(cr_hull_init_box(&h, cr_v3(x, y, z)));
    return h;
}

static void assert_vec_near(cr_vec3 a, cr_vec3 e, double tol)
{
    assert_near(a.x, e.x, tol);
    assert_near(a.y, e.y, tol);
    assert_near(a.z, e.z, tol);
}

static double min_separation(const cr_manifold *m)
{
    double s = HUGE_VAL;
    for (uint32_t i = 0; i < m->count; ++i) s = fmin(s, m->p[i].separation);
    return s;
}

/* Index of the contact at point p (within tol), failing when none. */
static uint32_t find_point(const cr_manifold *m, cr_vec3 p, double tol)
{
    for (uint32_t i = 0; i < m->count; ++i)
        if (cr_v3_len(cr_v3_sub(m->p[i].point, p)) <= tol) return i;
    fail_msg("no contact at (%g, %g, %g)", p.x, p.y, p.z);
    return 0;
}

/* Box tilted by th about x over the plane z = 0: the bottom vertices are at
 * z0 - 0.25 cos th -/+ 0.5 sin th. */
static void test_box_on_plane(void **state)
{
    (void)state;
    cr_hull b = box(1.0, 0.5, 0.25);
    double th = 0.01, c = cos(th), s = sin(th);
    double z0s[3] = {0.25 * c + 0.5 * s - 0.003, 0.25 * c + 0.5 * s + 0.001, 0.5};
    for (int k = 0; k < 3; ++k) {
        cr_pose p = pose(cr_v3(0.3, -0.2, z0s[k]), rot(cr_v3(1, 0, 0), th));
        cr_manifold m;
        uint32_t n = cr_collide_hull_plane(&b, p, cr_v3(0, 0, 1), 0.0, 0.02, &m);
        if (k == 2) {
            assert_int_equal(n, 0);
            continue;
        }
        assert_int_equal(n, 4);
        for (int sx = -1; sx <= 1; sx += 2)
            for (int sy = -1; sy <= 1; sy += 2) {
                double h = z0s[k] - 0.25 * c + sy * 0.5 * s;
                cr_vec3 v = cr_v3(0.3 + sx * 1.0, -0.2 + sy * 0.5 * c + 0.25 * s, h);
                uint32_t i = find_point(&m, cr_v3(v.x, v.y, 0.5 * h), 1e-12);
                assert_near(m.p[i].separation, h, 1e-14);
                assert_vec_near(m.p[i].normal, cr_v3(0, 0, 1), 0.0);
                assert_int_equal(m.p[i].kind, CR_FEATURE_VERTEX_FACE);
            }
        /* Same box on a hull: a large box whose top face is the plane. */
        cr_hull g = box(5, 5, 1);
        cr_manifold mh;
        assert_int_equal(cr_collide_hull_hull(&b, p, &g, pose(cr_v3(0, 0, -1), cr_m3_identity()), 0.02, &mh), 4);
        for (uint32_t i = 0; i < 4; ++i) {
            uint32_t j = find_point(&m, mh.p[i].point, 1e-12);
            assert_near(mh.p[i].separation, m.p[j].separation, 1e-14);
            assert_vec_near(mh.p[i].normal, cr_v3(0, 0, 1), 1e-15);
        }
        cr_hull_free(&g);
    }
    cr_hull_free(&b);
}

/* A on B face to face, offset: the overlap rectangle x in [0.3, 1], y in
 * [-0.2, 0.8]; A's bottom at 0.49 under B's top at 0.5. */
static void test_box_on_box_offset(void **state)
{
    (void)state;
    cr_hull a = box(0.5, 0.5, 0.5), b = box(1, 1, 0.5);
    cr_manifold m;
    assert_int_equal(cr_collide_hull_hull(&a, pose(cr_v3(0.8, 0.3, 0.99), cr_m3_identity()), &b,
                                          pose(cr_v3(0, 0, 0), cr_m3_identity()), 0.0, &m),
                     4);
    double xs[2] = {0.3, 1.0}, ys[2] = {-0.2, 0.8};
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) {
            uint32_t k = find_point(&m, cr_v3(xs[i], ys[j], 0.495), 1e-12);
            assert_near(m.p[k].separation, -0.01, 1e-14);
            assert_vec_near(m.p[k].normal, cr_v3(0, 0, 1), 1e-15);
        }
    /* Ids: distinct, and the same after a small slide (same features). */
    cr_manifold m2;
    cr_collide_hull_hull(&a, pose(cr_v3(0.81, 0.29, 0.991), cr_m3_identity()), &b, pose(cr_v3(0, 0, 0), cr_m3_identity()),
                         0.0, &m2);
    assert_int_equal(m2.count, 4);
    for (uint32_t i = 0; i < 4; ++i) {
        bool same = false;
        for (uint32_t j = 0; j < 4; ++j) {
            if (j != i) assert_true(m.p[i].id != m.p[j].id);
            same = same || m.p[i].id == m2.p[j].id;
        }
        assert_true(same);
    }
    cr_hull_free(&a);
    cr_hull_free(&b);
}

/* A long along x, B long along y, each turned 45° about its long axis: A's
 * lowest edge (along x) crosses B's top edge (along y) at gap g. */
static void test_edge_cross(void **state)
{
    (void)state;
    cr_hull a = box(2, 0.5, 0.5), b = box(0.5, 2, 0.5);
    double gaps[3] = {-0.02, 0.0, 0.01};
    for (int k = 0; k < 3; ++k) {
        double g = gaps[k];
        cr_pose pa = pose(cr_v3(0.1, -0.2, SQ2 + g), rot(cr_v3(1, 0, 0), PI / 4));
        cr_pose pb = pose(cr_v3(0.1, -0.2, 0), rot(cr_v3(0, 1, 0), PI / 4));
        cr_manifold m;
        assert_int_equal(cr_collide_hull_hull(&a, pa, &b, pb, 0.05, &m), 1);
        assert_int_equal(m.p[0].kind, CR_FEATURE_EDGE_EDGE);
        assert_near(m.p[0].separation, g, 1e-12);
        assert_vec_near(m.p[0].normal, cr_v3(0, 0, 1), 1e-12); /* x cross y, from B up to A */
        assert_vec_near(m.p[0].point, cr_v3(0.1, -0.2, 0.5 * SQ2 + 0.5 * g), 1e-12);
        assert_near(cr_hull_separation(&a, pa, &b, pb), g, 1e-12);
        assert_int_equal(cr_collide_hull_hull(&a, pa, &b, pb, g - 1e-3, &m), 0);
    }
    cr_hull_free(&a);
    cr_hull_free(&b);
}

/* Both boxes turned 45° about x: A's lowest edge lies on B's top edge, both
 * along x; A shifted by 0.6 so that they share x in [-0.4, 1]. */
static void test_parallel_edges(void **state)
{
    (void)state;
    cr_hull a = box(1, 0.5, 0.5), b = box(1, 0.5, 0.5);
    double gaps[3] = {0.01, 0.0, -0.01};
    for (int k = 0; k < 3; ++k) {
        double g = gaps[k];
        cr_pose pa = pose(cr_v3(0.6, 0, SQ2 + g), rot(cr_v3(1, 0, 0), PI / 4));
        cr_pose pb = pose(cr_v3(0, 0, 0), rot(cr_v3(1, 0, 0), PI / 4));
        cr_manifold m;
        assert_int_equal(cr_collide_hull_hull(&a, pa, &b, pb, 0.05, &m), 2);
        for (int e = 0; e < 2; ++e) {
            uint32_t i = find_point(&m, cr_v3(e ? 1.0 : -0.4, 0, 0.5 * SQ2 + 0.5 * g), 1e-12);
            assert_int_equal(m.p[i].kind, CR_FEATURE_EDGE_EDGE);
            if (g > 0) { /* apart: the line between the edges, the true gap */
                assert_near(m.p[i].separation, g, 1e-12);
                assert_vec_near(m.p[i].normal, cr_v3(0, 0, 1), 1e-12);
            } else { /* touching or overlapping: the face axis, its penetration */
                assert_near(m.p[i].separation, g / SQ2, 1e-12);
                assert_near(m.p[i].normal.z, 1.0 / SQ2, 1e-12);
                assert_near(fabs(m.p[i].normal.y), 1.0 / SQ2, 1e-12);
            }
        }
        assert_true(m.p[0].id != m.p[1].id);
    }
    cr_hull_free(&a);
    cr_hull_free(&b);
}

/* ---- random boxes against exact distances ---- */

static cr_mat3 random_rotation(uint64_t *s)
{
    cr_vec3 axis = test_rand_vec(s, -1, 1);
    if (cr_v3_len(axis) < 1e-3) axis = cr_v3(0, 0, 1);
    return rot(axis, test_rand(s, -PI, PI));
}

static double point_box_distance(cr_vec3 p, cr_pose pb, cr_vec3 h)
{
    cr_vec3 q = cr_pose_local_point(pb, p);
    cr_vec3 d = cr_v3(fmax(fabs(q.x) - h.x, 0), fmax(fabs(q.y) - h.y, 0), fmax(fabs(q.z) - h.z, 0));
    return cr_v3_len(d);
}

static bool strictly_inside(cr_vec3 p, cr_pose pb, cr_vec3 h)
{
    cr_vec3 q = cr_pose_local_point(pb, p);
    return fabs(q.x) < h.x - 1e-6 && fabs(q.y) < h.y - 1e-6 && fabs(q.z) < h.z - 1e-6;
}

static double segment_distance(cr_vec3 p0, cr_vec3 p1, cr_vec3 q0, cr_vec3 q1)
{
    /* Fine sampling of one segment against the exact closest point on the
     * other line segment (clamped projection) is an upper bound; the exact
     * minimum comes from Ericson's clamped solution below. */
    cr_vec3 d1 = cr_v3_sub(p1, p0), d2 = cr_v3_sub(q1, q0), r = cr_v3_sub(p0, q0);
    double a = cr_v3_dot(d1, d1), e = cr_v3_dot(d2, d2), f = cr_v3_dot(d2, r), c = cr_v3_dot(d1, r);
    double b = cr_v3_dot(d1, d2), den = a * e - b * b;
    double s = den > 1e-14 ? fmin(1, fmax(0, (b * f - c * e) / den)) : 0.0, t = (b * s + f) / e;
    if (t < 0) {
        t = 0;
        s = fmin(1, fmax(0, -c / a));
    } else if (t > 1) {
        t = 1;
        s = fmin(1, fmax(0, (b - c) / a));
    }
    return cr_v3_len(cr_v3_sub(cr_v3_madd(p0, d1, s), cr_v3_madd(q0, d2, t)));
}

/* Exact distance of two disjoint convex polyhedra: the least of the vertex
 * to body and edge to edge distances. */
static double box_distance(const cr_hull *a, cr_pose pa, cr_vec3 ha, const cr_hull *b, cr_pose pb, cr_vec3 hb)
{
    double d = HUGE_VAL;
    for (uint32_t i = 0; i < 8; ++i) {
        d = fmin(d, point_box_distance(cr_pose_point(pa, a->vertices[i]), pb, hb));
        d = fmin(d, point_box_distance(cr_pose_point(pb, b->vertices[i]), pa, ha));
    }
    for (uint32_t i = 0; i < a->edge_count; ++i)
        for (uint32_t j = 0; j < b->edge_count; ++j)
            d = fmin(d, segment_distance(cr_pose_point(pa, a->vertices[a->edges[2 * i]]),
                                         cr_pose_point(pa, a->vertices[a->edges[2 * i + 1]]),
                                         cr_pose_point(pb, b->vertices[b->edges[2 * j]]),
                                         cr_pose_point(pb, b->vertices[b->edges[2 * j + 1]])));
    return d;
}

static void test_random_boxes(void **state)
{
    (void)state;
    uint64_t s = 20240605;
    int apart = 0, overlapping = 0, swapped = 0;
    for (int it = 0; it < 2000; ++it) {
        cr_vec3 ha = test_rand_vec(&s, 0.2, 1.0), hb = test_rand_vec(&s, 0.2, 1.0);
        cr_hull a = box(ha.x, ha.y, ha.z), b = box(hb.x, hb.y, hb.z);
        cr_pose pa = pose(test_rand_vec(&s, -1.2, 1.2), random_rotation(&s));
        cr_pose pb = pose(test_rand_vec(&s, -1.2, 1.2), random_rotation(&s));
        double d = cr_hull_separation(&a, pa, &b, pb);
        assert_near(cr_hull_separation(&b, pb, &a, pa), d, 1e-12);
        bool deep = false;
        for (uint32_t i = 0; i < 8; ++i)
            deep = deep || strictly_inside(cr_pose_point(pa, a.vertices[i]), pb, hb) ||
                   strictly_inside(cr_pose_point(pb, b.vertices[i]), pa, ha);
        if (d > 0) {
            ++apart;
            assert_false(deep);
            double exact = box_distance(&a, pa, ha, &b, pb, hb);
            if (!(d <= exact + 1e-12)) fail_msg("case %d: SAT %.17g > distance %.17g", it, d, exact);
        }
        cr_manifold m, m2;
        cr_collide_hull_hull(&a, pa, &b, pb, 0.0, &m);
        cr_collide_hull_hull(&b, pb, &a, pa, 0.0, &m2);
        if (deep) {
            ++overlapping;
            assert_true(m.count >= 1);
            assert_true(min_separation(&m) < 0.0);
        }
        for (uint32_t i = 0; i < m.count; ++i) {
            assert_near(cr_v3_len(m.p[i].normal), 1.0, 1e-12);
            assert_true(cr_v3_dot(m.p[i].normal, cr_v3_sub(pa.x, pb.x)) >= -1e-9);
            assert_true(m.p[i].separation <= 1e-12);
            /* no deeper than the SAT depth, but for the bias towards face axes */
            assert_true(m.p[i].separation >= d - 1e-3 * fmin(cr_v3_len(ha), cr_v3_len(hb)) - 1e-9);
        }
        /* With a margin: nothing beyond it, nothing deeper than the SAT allows. */
        cr_manifold mm;
        cr_collide_hull_hull(&a, pa, &b, pb, 0.1, &mm);
        if (d <= 0.1 - 1e-9 && deep) assert_true(mm.count >= 1);
        for (uint32_t i = 0; i < mm.count; ++i) {
            assert_true(mm.p[i].separation <= 0.1);
            assert_true(mm.p[i].separation >= d - 1e-3 * fmin(cr_v3_len(ha), cr_v3_len(hb)) - 1e-9);
        }
        /* Swapping A and B flips the normal where the best axis is clear. */
        cr_sat q, qc;
        cr_sat_query(&a, pa, &b, pb, HUGE_VAL, &q);
        /* With a cutoff the query only stops early on pairs apart by more
         * than it: below it, every axis comes out the same. */
        cr_sat_query(&a, pa, &b, pb, 0.1, &qc);
        if (fmax(q.face_a, fmax(q.face_b, q.edge)) <= 0.1) {
            assert_true(qc.face_a == q.face_a && qc.face_b == q.face_b && qc.edge == q.edge);
            assert_true(qc.fa == q.fa && qc.fb == q.fb && qc.ea == q.ea && qc.eb == q.eb);
        } else {
            assert_true(fmax(qc.face_a, fmax(qc.face_b, qc.edge)) > 0.1);
        }
        double v[3] = {q.face_a, q.face_b, q.edge}, top = fmax(v[0], fmax(v[1], v[2])), second = -HUGE_VAL;
        for (int k = 0; k < 3; ++k)
            if (v[k] != top) second = fmax(second, v[k]);
        if (m.count > 0 && top - second > 0.01) {
            ++swapped;
            assert_int_equal(m2.count, m.count);
            assert_near(min_separation(&m2), min_separation(&m), 1e-9);
            assert_vec_near(m2.p[0].normal, cr_v3_neg(m.p[0].normal), 1e-9);
        }
        cr_hull_free(&a);
        cr_hull_free(&b);
    }
    assert_true(apart > 200);
    assert_true(overlapping > 200);
    assert_true(swapped > 200);
}

/* A tetrahedron point-down into a box: one vertex/face contact. */
/* Carried contacts (src/collide_carry.c): a box resting on another, slightly
 * tilted and offset (clipped face contacts); the manifold made at one pose
 * and carried to a pose within the tolerance eps (eps r in position, about
 * eps in angle) agrees with the one found afresh there, feature by feature:
 * points within 2 eps r, separations within 2 eps r (tilt + eps) (a point
 * that slid by up to about eps r over a face tilted by tilt + eps). Unmoved, the
 * two agree to rounding. */
static void test_carried_manifold(void **state)
{
    (void)state;
    uint64_t s = 20261125;
    const double eps = 1e-3, tilt = 0.02;
    int matched = 0;
    double worst_point = 0.0, worst_sep = 0.0;
    for (int it = 0; it < 500; ++it) {
        cr_vec3 ha = test_rand_vec(&s, 0.2, 0.6), hb = test_rand_vec(&s, 0.3, 1.0);
        cr_hull a = box(ha.x, ha.y, ha.z), b = box(hb.x, hb.y, hb.z);
        double r = fmin(cr_v3_len(ha), cr_v3_len(hb));
        cr_pose pb = pose(test_rand_vec(&s, -1.0, 1.0), random_rotation(&s));
        cr_vec3 offset = cr_v3(test_rand(&s, -hb.x, hb.x), test_rand(&s, -hb.y, hb.y), hb.z + ha.z + test_rand(&s, -0.01, 0.005));
        cr_mat3 Rrel = rot(test_rand_vec(&s, -1.0, 1.0), test_rand(&s, 0.0, tilt));
        cr_pose pa = pose(cr_pose_point(pb, offset), cr_m3_mul(pb.R, Rrel));
        double margin = 0.02 * r;
        cr_manifold m0;
        if (cr_collide_hull_hull(&a, pa, &b, pb, margin, &m0) == 0) {
            cr_hull_free(&a);
            cr_hull_free(&b);
            continue;
        }
        cr_vec3 la[CR_MANIFOLD_MAX], lb[CR_MANIFOLD_MAX], nb[CR_MANIFOLD_MAX];
        for (uint32_t k = 0; k < m0.count; ++k) {
            cr_carry_frames(&pa, &pb, &m0.p[k], &la[k], &lb[k], &nb[k]);
            cr_vec3 point, normal;
            double sep = cr_carry_point(pa, &pb, la[k], lb[k], nb[k], &point, &normal);
            assert_near(sep, m0.p[k].separation, 1e-12);
            assert_vec_near(point, m0.p[k].point, 1e-12);
            assert_vec_near(normal, m0.p[k].normal, 1e-12);
        }
        /* a motion of A relative to B within the tolerance */
        cr_vec3 dx = cr_v3_scale(cr_v3_normalize(test_rand_vec(&s, -1.0, 1.0)), test_rand(&s, 0.0, 0.99 * eps * r));
        cr_mat3 dR = rot(test_rand_vec(&s, -1.0, 1.0), test_rand(&s, 0.0, 0.99 * eps));
        cr_pose pa1 = pose(cr_v3_add(pa.x, cr_m3_mul_v(pb.R, dx)), cr_m3_mul(dR, pa.R));
        cr_manifold m1;
        cr_collide_hull_hull(&a, pa1, &b, pb, margin, &m1);
        for (uint32_t i = 0; i < m1.count; ++i)
            for (uint32_t k = 0; k < m0.count; ++k) {
                if (m0.p[k].id != m1.p[i].id) continue;
                cr_vec3 point, normal;
                double sep = cr_carry_point(pa1, &pb, la[k], lb[k], nb[k], &point, &normal);
                worst_point = fmax(worst_point, cr_v3_len(cr_v3_sub(point, m1.p[i].point)) / (eps * r));
                worst_sep = fmax(worst_sep, fabs(sep - m1.p[i].separation) / (eps * r * (tilt + eps)));
                ++matched;
            }
        cr_hull_free(&a);
        cr_hull_free(&b);
    }
    assert_true(matched > 1000);
    assert_true(worst_point <= 2.0);
    assert_true(worst_sep <= 2.0);
    print_message("carried contacts: %d matched, worst point %.3g eps r, worst separation %.3g eps r (tilt + eps)\n",
                  matched, worst_point, worst_sep);
}

/* Pairs kept apart (src/collide_apart.c): two boxes a query found apart
 * (gap: that face axis's separation, a lower bound of the exact distance),
 * then A moved in B's frame by a random motion. Whatever the motion, the
 * exact distance now is at least gap minus cr_apart_motion; and where that
 * exceeds the margin (the narrow phase would skip the pair), a fresh query
 * finds the pair apart too. */
static cr_quat random_quat(uint64_t *s)
{
    cr_quat q = {test_rand(s, -1, 1), test_rand(s, -1, 1), test_rand(s, -1, 1), test_rand(s, -1, 1)};
    return cr_q_normalize(q);
}

static void test_kept_apart(void **state)
{
    (void)state;
    uint64_t s = 20261126;
    int found = 0, skipped = 0;
    double tightest = HUGE_VAL;
    for (int it = 0; it < 4000; ++it) {
        cr_vec3 ha = test_rand_vec(&s, 0.2, 1.0), hb = test_rand_vec(&s, 0.2, 1.0);
        cr_hull a = box(ha.x, ha.y, ha.z), b = box(hb.x, hb.y, hb.z);
        cr_quat qa = random_quat(&s), qb = random_quat(&s);
        cr_vec3 xa = test_rand_vec(&s, -2.0, 2.0), xb = test_rand_vec(&s, -2.0, 2.0);
        double margin = test_rand(&s, 0.0, 0.2);
        cr_manifold m;
        double gap;
        cr_pose pa = pose(xa, cr_q_to_m3(qa)), pb = pose(xb, cr_q_to_m3(qb));
        cr_collide_hull_hull_gap(&a, pa, &b, pb, margin, &m, &gap);
        if (gap > -HUGE_VAL) {
            ++found;
            assert_int_equal(m.count, 0);
            assert_true(gap > margin);
            assert_true(gap <= box_distance(&a, pa, ha, &b, pb, hb) + 1e-12);
            /* A's pose in B's frame, as the narrow phase takes it */
            cr_vec3 x0 = cr_pose_local_point(pb, xa);
            cr_quat q0 = cr_q_mul((cr_quat){qb.w, -qb.x, -qb.y, -qb.z}, qa);
            /* a random motion of both, small or large */
            double size = test_rand(&s, 0.0, 1.0) < 0.5 ? 0.02 : 0.5;
            cr_vec3 xa1 = cr_v3_add(xa, test_rand_vec(&s, -size, size)), xb1 = cr_v3_add(xb, test_rand_vec(&s, -size, size));
            cr_quat qa1 = cr_q_integrate(qa, test_rand_vec(&s, -size, size), 1.0);
            cr_quat qb1 = cr_q_integrate(qb, test_rand_vec(&s, -size, size), 1.0);
            cr_pose pa1 = pose(xa1, cr_q_to_m3(qa1)), pb1 = pose(xb1, cr_q_to_m3(qb1));
            cr_vec3 x1 = cr_pose_local_point(pb1, xa1);
            cr_quat q1 = cr_q_mul((cr_quat){qb1.w, -qb1.x, -qb1.y, -qb1.z}, qa1);
            double bound = gap - cr_apart_motion(x0, q0, x1, q1, cr_hull_radius(&a));
            double exact = box_distance(&a, pa1, ha, &b, pb1, hb);
            if (!(bound <= exact + 1e-12)) fail_msg("case %d: bound %.17g > distance %.17g", it, bound, exact);
            tightest = fmin(tightest, exact - bound);
            if (bound > margin) {
                ++skipped;
                cr_manifold m1;
                double gap1;
                assert_int_equal(cr_collide_hull_hull_gap(&a, pa1, &b, pb1, margin, &m1, &gap1), 0);
            }
        }
        cr_hull_free(&a);
        cr_hull_free(&b);
    }
    assert_true(found > 1000);
    assert_true(skipped > 300);
    /* closed forms: a turn by theta about an axis through A's origin moves a
     * point at radius r across that axis by the chord 2 r sin(theta / 2); a
     * shift moves every point by its length */
    for (int it = 0; it < 200; ++it) {
        cr_quat q0 = random_quat(&s);
        cr_vec3 axis = cr_v3_normalize(test_rand_vec(&s, -1, 1)), x0 = test_rand_vec(&s, -1, 1);
        double theta = test_rand(&s, 0.0, PI), r = test_rand(&s, 0.1, 2.0);
        cr_quat turn = {cos(0.5 * theta), sin(0.5 * theta) * axis.x, sin(0.5 * theta) * axis.y, sin(0.5 * theta) * axis.z};
        assert_near(cr_apart_motion(x0, q0, x0, cr_q_mul(q0, turn), r), 2.0 * r * sin(0.5 * theta), 1e-12);
        cr_vec3 shift = test_rand_vec(&s, -1, 1);
        assert_near(cr_apart_motion(x0, q0, cr_v3_add(x0, shift), q0, r), cr_v3_len(shift), 1e-12);
    }
    print_message("kept apart: %d found apart, %d skippable after the motion, tightest slack %.3g\n", found, skipped,
                  tightest);
}

static void test_tetrahedron_vertex(void **state)
{
    (void)state;
    cr_vec3 v[4] = {{0, 0, -0.5}, {1, 0, 0.5}, {-0.5, 0.866, 0.5}, {-0.5, -0.866, 0.5}};
    cr_hull_face f[4];
    uint32_t fv[12] = {0, 2, 1, 0, 3, 2, 0, 1, 3, 1, 2, 3};
    for (uint32_t k = 0; k < 4; ++k) {
        cr_vec3 p0 = v[fv[3 * k]], p1 = v[fv[3 * k + 1]], p2 = v[fv[3 * k + 2]];
        f[k].first = 3 * k;
        f[k].count = 3;
        f[k].normal = cr_v3_normalize(cr_v3_cross(cr_v3_sub(p1, p0), cr_v3_sub(p2, p0)));
        f[k].offset = cr_v3_dot(f[k].normal, p0);
        assert_true(f[k].offset > 0); /* outward */
    }
    cr_hull t = {4, 4, 0, v, f, fv, NULL, NULL};
    assert_true(cr_hull_build_edges(&t));
    assert_int_equal(t.edge_count, 6);
    cr_hull b = box(2, 2, 0.5);
    cr_manifold m;
    cr_pose pt = pose(cr_v3(0.2, 0.1, 0.5 + 0.5 - 0.03), cr_m3_identity());
    assert_int_equal(cr_collide_hull_hull(&t, pt, &b, pose(cr_v3(0, 0, 0), cr_m3_identity()), 0.0, &m), 1);
    assert_int_equal(m.p[0].kind, CR_FEATURE_VERTEX_FACE);
    assert_near(m.p[0].separation, -0.03, 1e-14);
    assert_vec_near(m.p[0].point, cr_v3(0.2, 0.1, 0.485), 1e-14);
    assert_vec_near(m.p[0].normal, cr_v3(0, 0, 1), 1e-15);
    /* Swapped: a vertex of B on a face of A. */
    assert_int_equal(cr_collide_hull_hull(&b, pose(cr_v3(0, 0, 0), cr_m3_identity()), &t, pt, 0.0, &m), 1);
    assert_int_equal(m.p[0].kind, CR_FEATURE_FACE_VERTEX);
    assert_vec_near(m.p[0].normal, cr_v3(0, 0, -1), 1e-15);
    free(t.edges);
    free(t.edge_faces);
    cr_hull_free(&b);
}

/* Sphere near a face, an edge and a vertex of a turned box, and inside. */
static void test_hull_sphere(void **state)
{
    (void)state;
    cr_hull b = box(1, 0.5, 0.25);
    cr_pose p = pose(cr_v3(0.4, -1, 2), rot(cr_v3(1, 2, 3), 0.7));
    struct {
        cr_vec3 local;
        double dist;
        cr_vec3 closest;
    } cases[4] = {{{0.2, 0.1, 0.55}, 0.3, {0.2, 0.1, 0.25}},
                  {{1.2, 0.1, 0.45}, sqrt(0.08), {1, 0.1, 0.25}},
                  {{1.1, 0.6, 0.35}, sqrt(0.03), {1, 0.5, 0.25}},
                  {{0.9, 0, 0}, -0.1, {1, 0, 0}}};
    double r = 0.2;
    for (int k = 0; k < 4; ++k) {
        cr_vec3 c = cr_pose_point(p, cases[k].local), on = cr_pose_point(p, cases[k].closest);
        cr_manifold m;
        assert_int_equal(cr_collide_hull_sphere(&b, p, c, r, 1.0, &m), 1);
        assert_near(m.p[0].separation, cases[k].dist - r, 1e-14);
        cr_vec3 n = cr_v3_scale(cr_v3_sub(on, c), 1.0 / cases[k].dist); /* sphere towards box */
        assert_vec_near(m.p[0].normal, n, 1e-12);
        assert_vec_near(m.p[0].point, cr_v3_scale(cr_v3_add(on, cr_v3_madd(c, n, r)), 0.5), 1e-12);
        assert_int_equal(cr_collide_hull_sphere(&b, p, c, r, cases[k].dist - r - 1e-9, &m), 0);
    }
    cr_manifold m;
    assert_int_equal(cr_collide_sphere_sphere(cr_v3(0, 0, 1), 0.5, cr_v3(0, 0, 0), 0.6, 0.0, &m), 1);
    assert_near(m.p[0].separation, -0.1, 1e-15);
    assert_vec_near(m.p[0].point, cr_v3(0, 0, 0.55), 1e-15);
    assert_int_equal(cr_collide_sphere_plane(cr_v3(1, 2, 0.4), 0.5, cr_v3(0, 0, 1), 0.0, 0.0, &m), 1);
    assert_near(m.p[0].separation, -0.1, 1e-15);
    assert_vec_near(m.p[0].point, cr_v3(1, 2, -0.05), 1e-15);
    cr_hull_free(&b);
}

/* A mesh with a one-leaf BVH (the real builder's trees are walked the same way). */
typedef struct test_mesh {
    cr_mesh m;
    cr_vec3 v[8], n[12];
    uint32_t t[36], order[12];
    cr_bvh_node node;
} test_mesh;

static void finish_mesh(test_mesh *tm, uint32_t nv, uint32_t nt)
{
    tm->m.vertex_count = nv;
    tm->m.triangle_count = nt;
    tm->m.node_count = 1;
    tm->m.vertices = tm->v;
    tm->m.triangles = tm->t;
    tm->m.normals = tm->n;
    tm->m.nodes = &tm->node;
    tm->m.order = tm->order;
    tm->node.lo = cr_v3(HUGE_VAL, HUGE_VAL, HUGE_VAL);
    tm->node.hi = cr_v3_neg(tm->node.lo);
    for (uint32_t i = 0; i < nv; ++i) {
        tm->node.lo = cr_v3_min(tm->node.lo, tm->v[i]);
        tm->node.hi = cr_v3_max(tm->node.hi, tm->v[i]);
    }
    tm->node.first = 0;
    tm->node.count = nt;
    for (uint32_t k = 0; k < nt; ++k) {
        cr_vec3 a = tm->v[tm->t[3 * k]], b = tm->v[tm->t[3 * k + 1]], c = tm->v[tm->t[3 * k + 2]];
        tm->n[k] = cr_v3_normalize(cr_v3_cross(cr_v3_sub(b, a), cr_v3_sub(c, a)));
        tm->order[k] = k;
    }
}

static void ground(test_mesh *tm)
{
    static const uint32_t t[6] = {0, 1, 2, 0, 2, 3};
    tm->v[0] = cr_v3(-5, -5, 0);
    tm->v[1] = cr_v3(5, -5, 0);
    tm->v[2] = cr_v3(5, 5, 0);
    tm->v[3] = cr_v3(-5, 5, 0);
    for (int k = 0; k < 6; ++k) tm->t[k] = t[k];
    finish_mesh(tm, 4, 2);
}

static void cube_mesh(test_mesh *tm, double h)
{
    /* vertex i: +x bit 0, +y bit 1, +z bit 2; two triangles per box face */
    static const uint32_t quads[6][4] = {{1, 3, 7, 5}, {0, 4, 6, 2}, {2, 6, 7, 3}, {0, 1, 5, 4}, {4, 5, 7, 6}, {0, 2, 3, 1}};
    for (uint32_t i = 0; i < 8; ++i) tm->v[i] = cr_v3(i & 1u ? h : -h, i & 2u ? h : -h, i & 4u ? h : -h);
    for (int f = 0; f < 6; ++f) {
        uint32_t *t = &tm->t[6 * f];
        t[0] = quads[f][0], t[1] = quads[f][1], t[2] = quads[f][2];
        t[3] = quads[f][0], t[4] = quads[f][2], t[5] = quads[f][3];
    }
    finish_mesh(tm, 8, 12);
}

/* The tilted box of test_box_on_plane on a two-triangle ground and on a cube
 * mesh: the plane's contacts (normal reversed: B is the box now), and every
 * other contact on the box's bottom face. */
static void test_mesh_box(void **state)
{
    (void)state;
    cr_hull b = box(1.0, 0.5, 0.25);
    double th = 0.01, z0 = 0.25 * cos(th) + 0.5 * sin(th) - 0.003;
    cr_pose pb = pose(cr_v3(0.3, -0.2, z0), rot(cr_v3(1, 0, 0), th));
    cr_manifold mp;
    assert_int_equal(cr_collide_hull_plane(&b, pb, cr_v3(0, 0, 1), 0.0, 0.02, &mp), 4);
    test_mesh meshes[2];
    ground(&meshes[0]);
    cube_mesh(&meshes[1], 2.0);
    cr_pose placements[2] = {pose(cr_v3(0, 0, 0), cr_m3_identity()), pose(cr_v3(0, 0, -2), cr_m3_identity())};
    for (int k = 0; k < 2; ++k) {
        cr_manifold m;
        uint32_t n = cr_collide_mesh_hull(&meshes[k].m, placements[k], &b, pb, 0.02, &m);
        assert_true(n >= 4);
        for (uint32_t i = 0; i < 4; ++i) {
            uint32_t j = find_point(&m, mp.p[i].point, 1e-12);
            assert_near(m.p[j].separation, mp.p[i].separation, 1e-14);
        }
        cr_vec3 nb = cr_pose_dir(pb, cr_v3(0, 0, -1)), c0 = cr_pose_point(pb, cr_v3(0, 0, -0.25));
        for (uint32_t i = 0; i < n; ++i) {
            assert_vec_near(m.p[i].normal, cr_v3(0, 0, -1), 1e-15);
            /* on the bottom face: 2 z = its height there */
            cr_vec3 on_box = cr_v3(m.p[i].point.x, m.p[i].point.y, 2.0 * m.p[i].point.z);
            assert_near(cr_v3_dot(nb, cr_v3_sub(on_box, c0)), 0.0, 1e-12);
            assert_near(m.p[i].separation, on_box.z, 1e-12);
        }
        /* Raised beyond the margin: nothing. */
        cr_pose up = pb;
        up.x.z += 0.1;
        assert_int_equal(cr_collide_mesh_hull(&meshes[k].m, placements[k], &b, up, 0.02, &m), 0);
    }
    cr_hull_free(&b);
}

static void test_mesh_sphere(void **state)
{
    (void)state;
    test_mesh g;
    ground(&g);
    cr_manifold m;
    cr_pose p = pose(cr_v3(0, 0, 0), cr_m3_identity());
    /* Over the shared diagonal: one contact, not one per triangle. */
    assert_int_equal(cr_collide_mesh_sphere(&g.m, p, cr_v3(0.3, 0.3, 0.45), 0.5, 0.0, &m), 1);
    assert_near(m.p[0].separation, -0.05, 1e-15);
    assert_vec_near(m.p[0].normal, cr_v3(0, 0, -1), 1e-14);
    assert_vec_near(m.p[0].point, cr_v3(0.3, 0.3, -0.025), 1e-14);
    /* Off the ground's corner: the distance to the vertex. */
    assert_int_equal(cr_collide_mesh_sphere(&g.m, p, cr_v3(5.3, 5.4, 0), 0.4, 0.2, &m), 1);
    assert_near(m.p[0].separation, 0.1, 1e-14);
    /* Centre under the ground, still inside the face region: pushed up. */
    assert_int_equal(cr_collide_mesh_sphere(&g.m, p, cr_v3(1, 0.5, -0.1), 0.5, 0.0, &m), 1);
    assert_near(m.p[0].separation, -0.6, 1e-15);
    assert_int_equal(cr_collide_mesh_sphere(&g.m, p, cr_v3(1, 1, 0.6), 0.5, 0.0, &m), 0);
}

/* ---- time of impact ---- */

static void test_toi_fast_box(void **state)
{
    (void)state;
    cr_hull wall = box(1, 1, 0.005), a = box(0.1, 0.1, 0.1);
    cr_pose pw = pose(cr_v3(0, 0, 0), cr_m3_identity()), pa = pose(cr_v3(0.2, 0.3, 5), cr_m3_identity());
    cr_vec3 zero = cr_v3_zero();
    double tol = 1e-6, exact = (5 - 0.1 - 0.005) / 1000.0;
    double t = cr_toi_hulls(&a, pa, cr_v3(0, 0, -1000), zero, &wall, pw, zero, zero, 0.01, tol);
    assert_true(t <= exact);
    assert_true(t >= exact - tol / 1000.0 - 1e-15);
    /* Moving apart, or too slow to arrive within the step: no hit. */
    assert_true(cr_toi_hulls(&a, pa, cr_v3(0, 0, 1000), zero, &wall, pw, zero, zero, 0.01, tol) >= 0.01);
    assert_true(cr_toi_hulls(&a, pa, cr_v3(0, 0, -400), zero, &wall, pw, zero, zero, 0.01, tol) >= 0.01);
    /* The wall moving instead. */
    t = cr_toi_hulls(&a, pa, zero, zero, &wall, pw, zero, zero, 0.01, tol);
    assert_true(t >= 0.01);
    t = cr_toi_hulls(&wall, pw, cr_v3(0, 0, 1000), zero, &a, pa, zero, zero, 0.01, tol);
    assert_true(t <= exact && t >= exact - tol / 1000.0 - 1e-15);
    /* Spinning while falling: never late, separation within tolerance there. */
    cr_vec3 w = cr_v3(30, 50, 0);
    t = cr_toi_hulls(&a, pa, cr_v3(0, 0, -1000), w, &wall, pw, zero, zero, 0.01, tol);
    assert_true(t < 0.01);
    cr_mat3 Rt = rot(w, cr_v3_len(w) * t);
    assert_true(cr_hull_separation(&a, pose(cr_v3(0.2, 0.3, 5 - 1000 * t), Rt), &wall, pw) <= tol);
    for (int k = 0; k <= 1000; ++k) { /* no contact before t */
        double s = t * k / 1000.0;
        cr_pose ps = pose(cr_v3(0.2, 0.3, 5 - 1000 * s), rot(w, cr_v3_len(w) * s));
        assert_true(box_distance(&a, ps, cr_v3(0.1, 0.1, 0.1), &wall, pw, cr_v3(1, 1, 0.005)) > 0.0);
    }
    /* Against a plane: the lowest vertex reaches z = 0 at (5 - 0.1) / 1000. */
    t = cr_toi_hull_plane(&a, pa, cr_v3(0, 0, -1000), zero, cr_v3(0, 0, 1), 0.0, 0.01, tol);
    assert_true(t <= 4.9e-3 + 1e-15 && t >= 4.9e-3 - tol / 1000.0 - 1e-15);
    assert_true(cr_toi_hull_plane(&a, pa, cr_v3(0, 0, 1000), zero, cr_v3(0, 0, 1), 0.0, 0.01, tol) >= 0.01);
    cr_hull_free(&wall);
    cr_hull_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_box_on_plane),     cmocka_unit_test(test_box_on_box_offset),
        cmocka_unit_test(test_edge_cross),       cmocka_unit_test(test_parallel_edges),
        cmocka_unit_test(test_random_boxes),     cmocka_unit_test(test_tetrahedron_vertex),
        cmocka_unit_test(test_hull_sphere),      cmocka_unit_test(test_mesh_box),
        cmocka_unit_test(test_mesh_sphere),      cmocka_unit_test(test_toi_fast_box),
        cmocka_unit_test(test_carried_manifold), cmocka_unit_test(test_kept_apart),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
