/* cr_toi_quadratic_paths: the first contact of two spheres whose relative
 * position is quadratic in time (different constant accelerations), against
 * closed forms and against a dense reference on the exact distance. */
#include "test_helpers.h"

#define EPS 1e-9

typedef struct pair_path {
    cr_vec3 d0, dv, da;
    double r;
} pair_path;

static double path_gap(const pair_path *p, double s)
{
    return cr_v3_len(cr_v3_madd(cr_v3_madd(p->d0, p->dv, s), p->da, 0.5 * s * s)) - p->r;
}

static void test_head_on_closed_form(void **state)
{
    (void)state;
    /* 1 m apart, closing at 1 m/s and by 2 m/s^2 more (relative): gap
     * 1 - 0.1 - s - s^2 = 0 at s = (-1 + sqrt(4.6)) / 2; met at gap eps / 2. */
    pair_path p = {cr_v3(1, 0, 0), cr_v3(-1, 0, 0), cr_v3(-2, 0, 0), 0.1};
    double s, exact = 0.5 * (-1.0 + sqrt(4.6));
    assert_int_equal(cr_toi_quadratic_paths(p.d0, p.dv, p.da, p.r, 1.0, EPS, &s), CR_TOI_HIT);
    double g = path_gap(&p, s);
    assert_true(g >= 0.0 && g <= EPS);
    assert_true(s <= exact && exact - s < EPS); /* closing at more than 1 m/s */
    /* The same over a shorter span: no contact. */
    assert_int_equal(cr_toi_quadratic_paths(p.d0, p.dv, p.da, p.r, 0.5 * exact, EPS, &s), CR_TOI_MISS);
    /* Within eps at the start, or overlapping: a contact now. */
    p.d0 = cr_v3(0.1 + 0.5 * EPS, 0, 0);
    assert_int_equal(cr_toi_quadratic_paths(p.d0, p.dv, p.da, p.r, 1.0, EPS, &s), CR_TOI_HIT);
    assert_true(s == 0.0);
    /* Closing, braked and turning back: x(s) = 0.5 - s + s^2 along a line,
     * nearest (0.25) at s = 0.5. With r = 0.3 it touches at the smaller root
     * of s^2 - s + 0.2; with r = 0.25 it grazes at s = 0.5 (a double root:
     * a contact, met where the gap is eps / 2, before it); with the gap at
     * the graze eps / 4, a graze; 2 eps, or 0.05, no contact. */
    pair_path q = {cr_v3(0.5, 0, 0), cr_v3(-1, 0, 0), cr_v3(2, 0, 0), 0.3};
    exact = 0.5 * (1.0 - sqrt(0.2));
    assert_int_equal(cr_toi_quadratic_paths(q.d0, q.dv, q.da, q.r, 1.0, EPS, &s), CR_TOI_HIT);
    g = path_gap(&q, s);
    assert_true(g >= 0.0 && g <= EPS && s <= exact && exact - s < 2.0 * EPS);
    q.r = 0.25;
    assert_int_equal(cr_toi_quadratic_paths(q.d0, q.dv, q.da, q.r, 1.0, EPS, &s), CR_TOI_HIT);
    g = path_gap(&q, s);
    assert_true(g >= 0.0 && g <= EPS && s <= 0.5 && 0.5 - s < 1e-4); /* sqrt(eps / 2) */
    q.r = 0.25 - 2.0 * EPS;
    assert_int_equal(cr_toi_quadratic_paths(q.d0, q.dv, q.da, q.r, 1.0, EPS, &s), CR_TOI_MISS);
    q.r = 0.25 - 0.25 * EPS; /* within the tolerance, not touching: a graze, met at eps / 2 */
    assert_int_equal(cr_toi_quadratic_paths(q.d0, q.dv, q.da, q.r, 1.0, EPS, &s), CR_TOI_GRAZE);
    g = path_gap(&q, s);
    assert_true(g >= 0.25 * EPS && g <= 0.75 * EPS && s < 0.5);
    q.r = 0.2;
    assert_int_equal(cr_toi_quadratic_paths(q.d0, q.dv, q.da, q.r, 1.0, EPS, &s), CR_TOI_MISS);
}

/* The reference: the exact distance at 4096 + 1 evenly spaced times, the
 * first that touches bisected to 1e-13 of the step; where none touches,
 * the smallest gap (refined by golden section around the smallest sample)
 * into *g_min, and the first root of a dip below 0 between samples. */
#define SAMPLES 4096

static double reference(const pair_path *p, double span, double *g_min)
{
    double h = span / SAMPLES, prev = 0.0, best = INFINITY, at = 0.0;
    for (int k = 0; k <= SAMPLES; ++k) {
        double s = k == SAMPLES ? span : h * k, g = path_gap(p, s);
        if (g <= 0.0) {
            double lo = prev, hi = s;
            while (hi - lo > 1e-13 * span) {
                double mid = 0.5 * (lo + hi);
                if (path_gap(p, mid) > 0.0) lo = mid;
                else hi = mid;
            }
            *g_min = -INFINITY;
            return hi;
        }
        if (g < best) {
            best = g;
            at = s;
        }
        prev = s;
    }
    double lo = fmax(0.0, at - h), hi = fmin(span, at + h);
    for (int k = 0; k < 200; ++k) {
        double a = lo + 0.382 * (hi - lo), b = hi - 0.382 * (hi - lo);
        if (path_gap(p, a) < path_gap(p, b)) hi = b;
        else lo = a;
    }
    double s_min = 0.5 * (lo + hi);
    *g_min = fmin(best, path_gap(p, s_min));
    if (*g_min > 0.0) return INFINITY;
    /* a dip below 0 between two samples: its first root */
    lo = fmax(0.0, at - h);
    hi = s_min;
    while (hi - lo > 1e-13 * span) {
        double mid = 0.5 * (lo + hi);
        if (path_gap(p, mid) > 0.0) lo = mid;
        else hi = mid;
    }
    return hi;
}

static cr_vec3 unit(uint64_t *seed)
{
    for (;;) {
        cr_vec3 v = test_rand_vec(seed, -1, 1);
        double l = cr_v3_len(v);
        if (l > 0.1 && l <= 1.0) return cr_v3_scale(v, 1.0 / l);
    }
}

/* A random pair over a step of 1/60 s: kinds 0-1 random (balls within a
 * few radii, up to 5 m/s), 2 head-on, 3-4 a graze or near-graze built
 * around its closest approach (gap there within +-30 eps, or within +-1e-5
 * m), 5 a far miss; accelerations tiny (1e-9), ordinary (30) or large
 * (3e4 m/s^2). */
static pair_path random_pair(uint64_t *seed, double span)
{
    pair_path p;
    p.r = test_rand(seed, 0.005, 0.1);
    int kind = (int)(test_rand_u64(seed) % 6), scale = (int)(test_rand_u64(seed) % 3);
    double amax = scale == 0 ? 1e-9 : scale == 1 ? 30.0 : 3e4;
    p.da = cr_v3_scale(test_rand_vec(seed, -1, 1), amax);
    if (kind <= 1) {
        p.d0 = cr_v3_scale(unit(seed), p.r * test_rand(seed, 1.0, 1.3));
        p.dv = test_rand_vec(seed, -5, 5);
    } else if (kind == 2) {
        cr_vec3 n = unit(seed);
        p.d0 = cr_v3_scale(n, p.r * test_rand(seed, 1.0, 2.0));
        p.dv = cr_v3_scale(n, -test_rand(seed, 0.01, 10.0) * p.r / span);
    } else if (kind <= 4) {
        /* d(s) = pc + vc (s - sc) + da (s - sc)^2 / 2 with vc normal to pc:
         * a closest approach at sc where the gap curves up. */
        double sc = test_rand(seed, 0.0, span), gc = kind == 3 ? test_rand(seed, -30, 30) * EPS : test_rand(seed, -1e-5, 1e-5);
        cr_vec3 n = unit(seed), t = cr_v3_cross(n, unit(seed));
        double tl = cr_v3_len(t);
        if (tl == 0.0) t = cr_v3(n.y, -n.x, 0); /* never at these odds; keeps it defined */
        else t = cr_v3_scale(t, 1.0 / tl);
        cr_vec3 pc = cr_v3_scale(n, p.r + gc), vc = cr_v3_scale(t, test_rand(seed, 0.05, 5.0));
        /* keep the gap's curvature there positive: |vc|^2 + pc.da > 0 */
        double along = cr_v3_dot(pc, p.da), need = cr_v3_dot(vc, vc);
        if (along < -0.5 * need) p.da = cr_v3_madd(p.da, n, (-0.5 * need - along) / cr_v3_len(pc));
        p.d0 = cr_v3_madd(cr_v3_madd(pc, vc, -sc), p.da, 0.5 * sc * sc);
        p.dv = cr_v3_madd(vc, p.da, -sc);
    } else {
        p.d0 = cr_v3_scale(unit(seed), p.r * test_rand(seed, 1.5, 4.0));
        p.dv = test_rand_vec(seed, -0.5, 0.5);
    }
    return p;
}

static void test_random_against_dense_reference(void **state)
{
    (void)state;
    const double span = 1.0 / 60.0;
    uint64_t seed = 11;
    int hits = 0, misses = 0, grazes = 0, near = 0;
    for (int i = 0; i < 20000; ++i) {
        pair_path p = random_pair(&seed, span);
        if (path_gap(&p, 0.0) <= EPS) continue; /* the callers' touching case */
        double s = -1.0, g_min;
        cr_toi_result res = cr_toi_quadratic_paths(p.d0, p.dv, p.da, p.r, span, EPS, &s);
        double t_ref = reference(&p, span, &g_min), g = res == CR_TOI_MISS ? NAN : path_gap(&p, s);
        if (res == CR_TOI_HIT) {
            /* a contact where the reference finds one: at most its first
             * contact, on its legal side (the gap there within the
             * tolerance, not below 0) */
            if (!(t_ref < INFINITY && s >= 0.0 && s <= t_ref && g >= 0.0 && g <= EPS))
                fail_msg("pair %d: hit at s = %.17g, gap %.3g; reference %.17g (min gap %.3g)", i, s, g, t_ref, g_min);
            ++hits;
        } else if (res == CR_TOI_GRAZE) {
            /* no contact, the gap within eps / 2 (rounding: 1e-15 m) */
            if (!(t_ref == INFINITY && g_min <= 0.5 * EPS + 1e-15 && s >= 0.0 && s <= span && g >= 0.0 && g <= EPS))
                fail_msg("pair %d: graze at s = %.17g, gap %.3g; reference %.17g (min gap %.3g)", i, s, g, t_ref, g_min);
            ++grazes;
        } else {
            /* a miss only where the reference finds the gap above eps / 2 */
            if (!(res == CR_TOI_MISS && t_ref == INFINITY && g_min > 0.5 * EPS - 1e-15))
                fail_msg("pair %d: result %d; reference contact at %.17g (min gap %.3g)", i, (int)res, t_ref, g_min);
            ++misses;
            if (g_min <= 30.0 * EPS) ++near;
        }
    }
    print_message("hits %d, grazes %d, misses %d (%d by at most 30 eps)\n", hits, grazes, misses, near);
    assert_true(hits > 3000 && misses > 3000 && near > 100 && grazes > 20);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_head_on_closed_form),
        cmocka_unit_test(test_random_against_dense_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
