/* Time of impact: seed 004 eq. 47 and its degenerate cases, the quadratic
 * plane gap, seed 001 bisection and conservative advancement. */
#include "test_helpers.h"

static void test_eq47_head_on(void **state)
{
    (void)state;
    double x;
    /* Centres 10 apart, closing by 20 over the step, r = 2: touch at x = 8/20. */
    assert_int_equal(cr_toi_sphere_sphere(cr_v3(0, 0, 0), cr_v3(10, 0, 0), cr_v3(10, 0, 0), cr_v3(-10, 0, 0), 2.0, 0.0, &x),
                     CR_TOI_HIT);
    assert_near(x, 0.4, 1e-15);
}

static void test_eq47_random_against_distance(void **state)
{
    (void)state;
    uint64_t s = 3;
    int hits = 0;
    for (int i = 0; i < 10000; ++i) {
        cr_vec3 p1 = test_rand_vec(&s, -1, 1), p2 = test_rand_vec(&s, -1, 1);
        cr_vec3 d1 = test_rand_vec(&s, -3, 3), d2 = test_rand_vec(&s, -3, 3);
        double r = test_rand(&s, 0.05, 1.0), x;
        if (cr_v3_len(cr_v3_sub(p1, p2)) <= r) continue;
        cr_toi_result res = cr_toi_sphere_sphere(p1, d1, p2, d2, r, 0.0, &x);
        /* Brute force: the distance along the step on a fine grid. */
        double first = -1.0;
        for (int k = 0; k <= 4000; ++k) {
            double t = k / 4000.0;
            if (cr_v3_len(cr_v3_sub(cr_v3_madd(p1, d1, t), cr_v3_madd(p2, d2, t))) <= r) {
                first = t;
                break;
            }
        }
        if (res == CR_TOI_HIT) {
            ++hits;
            double dist = cr_v3_len(cr_v3_sub(cr_v3_madd(p1, d1, x), cr_v3_madd(p2, d2, x)));
            assert_near(dist, r, 1e-12);
            if (first >= 0.0) assert_true(x <= first + 1e-12);
        } else {
            assert_true(first < 0.0 || first > 1.0 - 1e-3); /* a miss really misses (up to grid resolution) */
        }
    }
    assert_true(hits > 500); /* enough real impacts to mean something */
}

static void test_eq47_degenerate(void **state)
{
    (void)state;
    double x = -1;
    /* No real root: passing by. */
    assert_int_equal(cr_toi_sphere_sphere(cr_v3(0, 0, 0), cr_v3(1, 0, 0), cr_v3(0, 5, 0), cr_v3(-1, 0, 0), 1.0, 0.0, &x),
                     CR_TOI_MISS);
    /* Equal step vectors: parallel, never an impact even while touching. */
    assert_int_equal(cr_toi_sphere_sphere(cr_v3(0, 0, 0), cr_v3(1, 1, 0), cr_v3(2, 0, 0), cr_v3(1, 1, 0), 2.0, 0.0, &x),
                     CR_TOI_PARALLEL);
    /* Overlapping and approaching: an impact at once; separating: none. */
    assert_int_equal(cr_toi_sphere_sphere(cr_v3(0, 0, 0), cr_v3(1, 0, 0), cr_v3(1.5, 0, 0), cr_v3(0, 0, 0), 2.0, 0.25, &x),
                     CR_TOI_HIT);
    assert_near(x, 0.25, 0.0);
    assert_int_equal(cr_toi_sphere_sphere(cr_v3(0, 0, 0), cr_v3(-1, 0, 0), cr_v3(1.5, 0, 0), cr_v3(0, 0, 0), 2.0, 0.0, &x),
                     CR_TOI_MISS);
    /* Root beyond the step. */
    assert_int_equal(cr_toi_sphere_sphere(cr_v3(0, 0, 0), cr_v3(1, 0, 0), cr_v3(10, 0, 0), cr_v3(0, 0, 0), 1.0, 0.0, &x),
                     CR_TOI_MISS);
}

static void test_quadratic(void **state)
{
    (void)state;
    double t;
    /* Falling from gap 1 at rest under g = 9.81: t = sqrt(2/g). */
    assert_int_equal(cr_toi_quadratic(1.0, 0.0, -0.5 * 9.81, 0.0, 1.0, &t), CR_TOI_HIT);
    assert_near(t, sqrt(2.0 / 9.81), 1e-14);
    /* Thrown up from gap 1: lands later than the rise. */
    assert_int_equal(cr_toi_quadratic(1.0, 5.0, -0.5 * 9.81, 0.0, 10.0, &t), CR_TOI_HIT);
    assert_near(1.0 + 5.0 * t - 0.5 * 9.81 * t * t, 0.0, 1e-12);
    assert_true(t > 1.0);
    /* Not reached within the interval; moving away; grazing from above. */
    assert_int_equal(cr_toi_quadratic(1.0, -1.0, 0.0, 0.0, 0.5, &t), CR_TOI_MISS);
    assert_int_equal(cr_toi_quadratic(1.0, 1.0, 0.0, 0.0, 5.0, &t), CR_TOI_MISS);
    assert_int_equal(cr_toi_quadratic(1.0, -2.0, 1.0, 0.0, 5.0, &t), CR_TOI_MISS);
    /* Behind the plane and driving in: at once. */
    assert_int_equal(cr_toi_quadratic(-0.5, -1.0, 0.0, 0.0, 1.0, &t), CR_TOI_HIT);
    assert_near(t, 0.0, 0.0);
}

typedef struct fall { double h, g; } fall;
static double fall_gap(double t, void *ctx)
{
    const fall *f = ctx;
    return f->h - 0.5 * f->g * t * t;
}

/* Seed 001 §3.3: bisection stops within eps of the surface. */
static void test_bisection(void **state)
{
    (void)state;
    fall f = {1.0, 9.81};
    for (double eps = 1e-3; eps >= 1e-12; eps *= 1e-3) {
        double t;
        int halvings = cr_toi_bisect(fall_gap, &f, 0.0, 1.0, eps, &t);
        assert_true(fabs(fall_gap(t, &f)) <= eps);
        assert_true(halvings > 0 && halvings < 100);
        assert_near(t, sqrt(2.0 / 9.81), 2.0 * eps / sqrt(2.0 * 9.81));
    }
}

/* cr_toi_refine: the same stopping rule as bisection (legal end, gap within
 * eps), in far fewer evaluations on smooth gaps; random falls with a ripple
 * (the root checked against the exact fall's where the ripple is 0). */
typedef struct ripple { double h, v, g, amp, omega; } ripple;
static double ripple_gap(double t, void *ctx)
{
    const ripple *r = ctx;
    return r->h - r->v * t - 0.5 * r->g * t * t + r->amp * sin(r->omega * t);
}

static void test_refine(void **state)
{
    (void)state;
    fall f = {1.0, 9.81};
    for (double eps = 1e-3; eps >= 1e-12; eps *= 1e-3) {
        double t, t1 = 1.0;
        int evaluations = cr_toi_refine(fall_gap, &f, 0.0, fall_gap(0.0, &f), t1, fall_gap(t1, &f), eps, &t);
        assert_true(fabs(fall_gap(t, &f)) <= eps);
        assert_near(t, sqrt(2.0 / 9.81), 2.0 * eps / sqrt(2.0 * 9.81));
        assert_true(evaluations > 0 && evaluations <= 12); /* bisection: up to 40 */
    }
    uint64_t seed = 7;
    for (int c = 0; c < 2000; ++c) {
        ripple r; /* sequenced: an initializer list's order is unspecified */
        r.h = test_rand(&seed, 1e-4, 1.0);
        r.v = test_rand(&seed, 0.0, 5.0);
        r.g = test_rand(&seed, 0.0, 20.0);
        r.amp = c % 2 ? test_rand(&seed, 0.0, 1e-3) : 0.0;
        r.omega = test_rand(&seed, 1.0, 50.0);
        double t1 = 1.0, eps = c % 3 ? 1e-9 : 1e-12, t;
        if (ripple_gap(t1, &r) > 0.0) continue;
        int evaluations = cr_toi_refine(ripple_gap, &r, 0.0, ripple_gap(0.0, &r), t1, ripple_gap(t1, &r), eps, &t);
        double gt = ripple_gap(t, &r);
        assert_true(gt > -eps);          /* never past the contact by more than eps */
        assert_true(t >= 0.0 && t < t1);
        assert_true(evaluations <= 80);
        /* Within eps of the surface, or the bracket at double resolution. */
        double next = nextafter(t, t1);
        assert_true(gt <= eps || ripple_gap(next, &r) <= -eps || next >= t1);
        if (r.amp == 0.0) { /* the fall's root, h - v t - g t^2 / 2 = 0 */
            double root = 2.0 * r.h / (r.v + sqrt(r.v * r.v + 2.0 * r.g * r.h));
            assert_near(t, root, 2.0 * eps / (r.v + r.g * root) + 1e-15);
        }
    }
}

/* cr_toi_sampled finds a fall's contact (the closed-form root within the
 * tolerance) or none where the fall does not reach the surface within the
 * interval; cr_toi_sampled_from, given the gap at t0, gives the very same
 * time (the events stage passes the gap it has just taken). */
static void test_sampled(void **state)
{
    (void)state;
    uint64_t seed = 13;
    int hits = 0, misses = 0;
    for (int c = 0; c < 2000; ++c) {
        ripple r;
        r.h = test_rand(&seed, 1e-4, 1.0);
        r.v = test_rand(&seed, -1.0, 5.0);
        r.g = test_rand(&seed, 0.0, 20.0);
        r.amp = 0.0;
        r.omega = 1.0;
        double t1 = test_rand(&seed, 0.01, 1.0), eps = 1e-9, t = -1.0, tf = -2.0;
        cr_toi_result res = cr_toi_sampled(ripple_gap, &r, 0.0, t1, 4, eps, &t);
        cr_toi_result rf = cr_toi_sampled_from(ripple_gap, &r, 0.0, ripple_gap(0.0, &r), t1, 4, eps, &tf);
        assert_int_equal(res, rf);
        double disc = r.v * r.v + 2.0 * r.g * r.h;
        double root = r.g > 0.0 || r.v > 0.0 ? 2.0 * r.h / (r.v + sqrt(disc)) : INFINITY;
        if (res == CR_TOI_HIT) {
            assert_true(t == tf);
            assert_near(t, root, 2.0 * eps / sqrt(disc) + 1e-15); /* the slope at the root: sqrt(disc) */
            ++hits;
        } else {
            assert_true(!(root <= t1 * (1.0 - 1e-9))); /* it does not reach the surface */
            ++misses;
        }
    }
    assert_true(hits > 100 && misses > 100);
}

static void test_conservative_advancement(void **state)
{
    (void)state;
    fall f = {1.0, 9.81};
    double t;
    /* |g'| <= g t1 on [0, 1]. */
    assert_int_equal(cr_toi_conservative(fall_gap, &f, 0.0, 1.0, 9.81, 1e-10, &t), CR_TOI_HIT);
    assert_near(t, sqrt(2.0 / 9.81), 1e-9);
    assert_int_equal(cr_toi_conservative(fall_gap, &f, 0.0, 0.4, 9.81 * 0.4, 1e-10, &t), CR_TOI_MISS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_eq47_head_on),     cmocka_unit_test(test_eq47_random_against_distance),
        cmocka_unit_test(test_eq47_degenerate),  cmocka_unit_test(test_quadratic),
        cmocka_unit_test(test_bisection),        cmocka_unit_test(test_refine),
        cmocka_unit_test(test_sampled),
        cmocka_unit_test(test_conservative_advancement),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
