/* The side-by-side benchmark's pyramid measurements (bench/peers/scene.c
 * pyr_max_overlap: the deepest overlap of cubes from their positions and
 * orientations, the same code for every engine) and the stability sweep's
 * matching rule (bench/peers/sweep.c). Closed-form overlaps of placed
 * cubes, invariance under a common rigid motion, and the rule case by case. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scene.h"
#include "sweep.h"
#include "test_helpers.h"

#define H (0.5 * PYR_EDGE)
#define SQRT2 1.4142135623730951
#define PI 3.14159265358979323846

/* w, x, y, z of a turn by angle a about the unit axis (x, y, z) */
static void quat_about(double *q, double a, double x, double y, double z)
{
    q[0] = cos(0.5 * a), q[1] = x * sin(0.5 * a), q[2] = y * sin(0.5 * a), q[3] = z * sin(0.5 * a);
}

static double overlap_of(int n, double *pos, double *quat)
{
    pyr_scene s = {1, n, pos};
    overlap_grid g = {0};
    double ov = pyr_max_overlap(&g, &s, pos, quat);
    overlap_grid_free(&g);
    return ov;
}

/* two axis-aligned cubes side by side, 3 mm into each other; then apart */
static void test_overlap_faces(void **state)
{
    (void)state;
    double pos[6] = {0.0, 0.0, 1.0, 2 * H - 0.003, 0.0, 1.0}, quat[8] = {1, 0, 0, 0, 1, 0, 0, 0};
    assert_near(overlap_of(2, pos, quat), 0.003, 1e-12);
    pos[3] = 2 * H + 1e-4;
    assert_true(overlap_of(2, pos, quat) == 0.0);
}

/* a cube turned 45 degrees about z, its vertical edge 3 mm into the face of
 * an axis-aligned cube: the overlap is along the face's normal */
static void test_overlap_edge_into_face(void **state)
{
    (void)state;
    double pos[6] = {0.0, 0.0, 1.0, H + H * SQRT2 - 0.003, 0.0, 1.0}, quat[8] = {1, 0, 0, 0};
    quat_about(quat + 4, PI / 4, 0, 0, 1);
    assert_near(overlap_of(2, pos, quat), 0.003, 1e-12);
}

/* edge across edge: the lower cube turned 45 degrees about y (top edge
 * along y), the upper one about x (bottom edge along x), 2 mm into each
 * other along z, which is neither cube's face normal (a cross product axis) */
static void test_overlap_edge_edge(void **state)
{
    (void)state;
    double pos[6] = {0.0, 0.0, 1.0, 0.0, 0.0, 1.0 + 2 * H * SQRT2 - 0.002}, quat[8];
    quat_about(quat, PI / 4, 0, 1, 0);
    quat_about(quat + 4, PI / 4, 1, 0, 0);
    assert_near(overlap_of(2, pos, quat), 0.002, 1e-12);
}

/* the floor: a cube on an edge (turned 45 degrees about y) 1.5 mm below
 * z = 0, and one lying flat 0.5 mm in; the deeper one counts */
static void test_overlap_floor(void **state)
{
    (void)state;
    double pos[6] = {0.0, 0.0, H * SQRT2 - 0.0015, 1.0, 0.0, H - 0.0005}, quat[8] = {0, 0, 0, 0, 1, 0, 0, 0};
    quat_about(quat, PI / 4, 0, 1, 0);
    assert_near(overlap_of(2, pos, quat), 0.0015, 1e-12);
    pos[2] = H * SQRT2 + 0.001; /* lifted: the flat cube's 0.5 mm is left */
    assert_near(overlap_of(2, pos, quat), 0.0005, 1e-12);
}

/* random pairs of cubes near each other, high above the floor: turning and
 * moving both by the same rigid motion leaves the overlap as it was; the
 * order of the two does not matter; cubes whose centres are further apart
 * than a diagonal never overlap; a quaternion given at another length is the
 * same turn */
static void test_overlap_invariants(void **state)
{
    (void)state;
    uint64_t rng = 42;
    int overlapping = 0;
    for (int t = 0; t < 2000; ++t) {
        double pos[6], quat[8], moved[6], turned[8], swapped_p[6], swapped_q[8];
        for (int k = 0; k < 2; ++k) {
            cr_vec3 ax = test_rand_vec(&rng, -1, 1);
            double l = sqrt(ax.x * ax.x + ax.y * ax.y + ax.z * ax.z) + 1e-12;
            quat_about(quat + 4 * k, test_rand(&rng, 0, 2 * PI), ax.x / l, ax.y / l, ax.z / l);
        }
        cr_vec3 a = test_rand_vec(&rng, -0.05, 0.05);
        double p0[3] = {1.0, 1.0, 2.0}, p1[3] = {1.0 + PYR_EDGE * 1.2 * (t % 2 ? 1 : 0.8), 1.0, 2.0};
        memcpy(pos, p0, sizeof p0);
        for (int k = 0; k < 3; ++k) pos[3 + k] = p1[k] + (&a.x)[k];
        double ov = overlap_of(2, pos, quat);
        if (ov > 0) ++overlapping;
        /* a common rigid motion: turn by r about the first centre, then lift by 0.5 m */
        double r[4], rm[9];
        cr_vec3 ax = test_rand_vec(&rng, -1, 1);
        double l = sqrt(ax.x * ax.x + ax.y * ax.y + ax.z * ax.z) + 1e-12;
        quat_about(r, test_rand(&rng, 0, 2 * PI), ax.x / l, ax.y / l, ax.z / l);
        cr_quat rq = {r[0], r[1], r[2], r[3]};
        cr_mat3 m3 = cr_q_to_m3(rq);
        for (int c = 0; c < 3; ++c) /* column c: where the motion takes axis c */
            rm[3 * c] = m3.m[0][c], rm[3 * c + 1] = m3.m[1][c], rm[3 * c + 2] = m3.m[2][c];
        for (int k = 0; k < 2; ++k) {
            double d[3] = {pos[3 * k] - p0[0], pos[3 * k + 1] - p0[1], pos[3 * k + 2] - p0[2]};
            for (int c = 0; c < 3; ++c)
                moved[3 * k + c] = p0[c] + (c == 2 ? 0.5 : 0.0) + rm[c] * d[0] + rm[3 + c] * d[1] + rm[6 + c] * d[2];
            cr_quat q = {quat[4 * k], quat[4 * k + 1], quat[4 * k + 2], quat[4 * k + 3]}, m = cr_q_mul(rq, q);
            turned[4 * k] = 3.0 * m.w, turned[4 * k + 1] = 3.0 * m.x, turned[4 * k + 2] = 3.0 * m.y,
                      turned[4 * k + 3] = 3.0 * m.z;
        }
        /* 1 nm: rounding of the moved poses, grown by the normalisation of
         * nearly parallel edges' cross products (|e x f| down to 1e-6) */
        assert_near(overlap_of(2, moved, turned), ov, 1e-9);
        memcpy(swapped_p, pos + 3, 3 * sizeof(double)), memcpy(swapped_p + 3, pos, 3 * sizeof(double));
        memcpy(swapped_q, quat + 4, 4 * sizeof(double)), memcpy(swapped_q + 4, quat, 4 * sizeof(double));
        assert_near(overlap_of(2, swapped_p, swapped_q), ov, 1e-15);
        /* an overlap is never more than the cubes' diagonal (the sum of their
         * circumradii) less their distance: 0 when further apart */
        double dx = pos[3] - pos[0], dy = pos[4] - pos[1], dz = pos[5] - pos[2];
        assert_true(ov <= fmax(0.0, sqrt(3.0) * PYR_EDGE - sqrt(dx * dx + dy * dy + dz * dz)) + 1e-12);
    }
    assert_true(overlapping > 200 && overlapping < 1800); /* both kinds of case were met */
}

static void test_stability_rule(void **state)
{
    (void)state;
    const pyr_stability b = {1, 0, 0.002, 0.010, 0.05};
    pyr_stability a = {1, 0, 0.002, 0.010, 0.05};
    assert_true(pyr_as_stable(&a, &b)); /* equal counts */
    a.overlap = 0.0021;
    assert_false(pyr_as_stable(&a, &b));
    a.overlap = 0.001, a.drift = 0.011;
    assert_false(pyr_as_stable(&a, &b));
    a.drift = 0.001, a.ke = 0.06;
    assert_false(pyr_as_stable(&a, &b));
    a.ke = 0.01, a.lost = 1;
    assert_false(pyr_as_stable(&a, &b));
    a.lost = 0, a.complete = 0;
    assert_false(pyr_as_stable(&a, &b));
    a.complete = 1;
    assert_true(pyr_as_stable(&a, &b));
    pyr_stability c = b;
    c.complete = 0; /* nothing matches a capped run */
    assert_false(pyr_as_stable(&a, &c));
    /* at rest: energies below PYR_KE_AT_REST are not told apart */
    pyr_stability still = {1, 0, 0.001, 0.001, 1e-9}, stiller = still;
    still.ke = 0.5 * PYR_KE_AT_REST;
    assert_true(pyr_as_stable(&still, &stiller));
    still.ke = 2.0 * PYR_KE_AT_REST;
    assert_false(pyr_as_stable(&still, &stiller));
    a.overlap = NAN;
    assert_false(pyr_as_stable(&a, &b));
}

static void test_fewest(void **state)
{
    (void)state;
    /* in increasing iterations: worse, just right, better */
    const pyr_stability runs[3] = {{1, 0, 0.004, 0.020, 0.1}, {1, 0, 0.002, 0.009, 0.01}, {1, 0, 0.001, 0.001, 0.0}};
    const pyr_stability ref = {1, 0, 0.002, 0.010, 0.05}, hard = {1, 0, 0.0005, 0.010, 0.05};
    assert_int_equal(pyr_fewest_as_stable(runs, 3, &ref), 1);
    assert_int_equal(pyr_fewest_as_stable(runs, 3, &runs[0]), 0);
    assert_int_equal(pyr_fewest_as_stable(runs, 3, &hard), -1);
    assert_int_equal(pyr_fewest_as_stable(runs, 0, &ref), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_overlap_faces),     cmocka_unit_test(test_overlap_edge_into_face),
        cmocka_unit_test(test_overlap_edge_edge), cmocka_unit_test(test_overlap_floor),
        cmocka_unit_test(test_overlap_invariants), cmocka_unit_test(test_stability_rule),
        cmocka_unit_test(test_fewest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
