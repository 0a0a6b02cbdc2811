/* The landing check (cr_toi_hermite, as events.c's landing_time calls it:
 * one sample after the step's start, values and slopes) against a dense
 * reference, on random flights over the boiling scene's hills and over the
 * bowl: every landing the reference finds is found, at the same contact,
 * and none where the reference has none. */
#include <math.h>
#include <stdio.h>

#include "test_helpers.h"

#define EPS 1e-9          /* cr_world_def.toi_tolerance's default */
#define DENSE 256         /* the reference's samples per step */
#define STEP (1.0 / 120.0) /* the boiling scene's dt */

typedef struct flight {
    const cr_surface *s;
    cr_vec3 x, v, a;
    double r, u, v_param;
    int evaluations;
} flight;

static cr_vec3 flight_at(const flight *f, double t)
{
    return cr_v3_madd(cr_v3_madd(f->x, f->v, t), f->a, 0.5 * t * t);
}

/* The ball's gap to the surface at t (warm-started from the last closest
 * point, as the world's check is) and its slope n . v(t). */
static double flight_gap(double t, void *ctx, double *slope)
{
    flight *f = ctx;
    cr_closest c = cr_surface_closest(f->s, flight_at(f, t), f->u, f->v_param, 1e-12);
    f->u = c.u;
    f->v_param = c.v;
    ++f->evaluations;
    *slope = cr_v3_dot(c.normal, cr_v3_madd(f->v, f->a, t));
    return c.distance - f->r;
}

/* The dense reference: the first of DENSE samples at or below zero, then
 * bisection of its interval to 1e-14 s. Returns the contact time or -1;
 * *deepest: the least gap over the samples. */
static double reference(flight *f, double *deepest)
{
    double s, before = 0.0;
    *deepest = INFINITY;
    for (int k = 1; k <= DENSE; ++k) {
        double t = STEP * k / DENSE, g = flight_gap(t, f, &s);
        if (g < *deepest) *deepest = g;
        if (g <= 0.0) {
            while (t - before > 1e-14) {
                double mid = 0.5 * (before + t);
                if (flight_gap(mid, f, &s) <= 0.0) t = mid;
                else before = mid;
            }
            return t;
        }
        before = t;
    }
    return -1.0;
}

typedef struct tally {
    int flights, landings, grazes, evaluations;
} tally;

/* One random flight over (u, v) on s, up to 3 m/s along the surface,
 * under gravity: either from a gap of up to 5 cm at -2..1 m/s along the
 * normal, or (half of them) one that touches the surface tangentially
 * 1e-6..1e-4 deep within the step: the grazes, in and out again over a
 * hill's crest. */
static void fly(const cr_surface *s, uint64_t *rng, double u, double v, tally *n)
{
    cr_surface_eval e;
    cr_vec3 nrm, g = cr_v3(0, 0, -9.81);
    cr_surface_evaluate(s, u, v, &e, &nrm);
    bool graze = test_rand(rng, 0.0, 1.0) < 0.5;
    double r = test_rand(rng, 0.025, 0.04);
    cr_vec3 along = cr_v3_reject(test_rand_vec(rng, -3.0, 3.0), nrm), x, vel;
    if (graze) {
        double tc = test_rand(rng, 0.05, 0.95) * STEP, depth = test_rand(rng, 1e-6, 1e-4);
        vel = cr_v3_madd(along, g, -tc); /* along at tc */
        x = cr_v3_madd(cr_v3_madd(cr_v3_madd(e.s, nrm, r - depth), vel, -tc), g, -0.5 * tc * tc);
    } else {
        double gap = test_rand(rng, 0.0, 0.05);
        x = cr_v3_madd(e.s, nrm, r + gap);
        vel = cr_v3_madd(along, nrm, test_rand(rng, -2.0, 1.0));
    }
    flight f = {s, x, vel, g, r, u, v, 0};
    double s0, g0 = flight_gap(0.0, &f, &s0);
    if (!(g0 > 0.0)) return;
    flight ref = f;
    double deepest, t_ref = reference(&ref, &deepest);
    f.evaluations = 0;
    double t;
    cr_toi_result res = cr_toi_hermite(flight_gap, &f, 0.0, g0, s0, STEP, 1, EPS, &t);
    ++n->flights;
    n->evaluations += f.evaluations + 1; /* and the gap at the start */
    if (t_ref < 0.0) {
        if (res == CR_TOI_HIT) fprintf(stderr, "false landing at %.17g, reference least gap %.3g\n", t, deepest);
        assert_int_equal(res, CR_TOI_MISS);
        return;
    }
    ++n->landings;
    double s_end, g_end = flight_gap(STEP, &ref, &s_end);
    if (g_end > 0.0) ++n->grazes; /* in and out again within the step */
    if (res != CR_TOI_HIT) fprintf(stderr, "missed landing at %.17g (least gap %.3g, end gap %.3g)\n", t_ref, deepest, g_end);
    assert_int_equal(res, CR_TOI_HIT);
    /* The same contact: the gap there within the tolerance (seed 001's
     * stopping rule), so the time within the tolerance over the gap's
     * slope there of the reference's. */
    double s_t, g_t = flight_gap(t, &ref, &s_t), s_ref;
    flight_gap(t_ref, &ref, &s_ref);
    double off = 2.0 * EPS / fmax(fabs(s_ref), 1e-9) + 1e-13;
    if (!(g_t <= EPS && g_t > -EPS && fabs(t - t_ref) <= off))
        fprintf(stderr, "landing at %.17g gap %.3g, reference %.17g slope %.3g\n", t, g_t, t_ref, s_ref);
    assert_true(g_t <= EPS && g_t > -EPS);
    assert_true(fabs(t - t_ref) <= off);
}

static void check_surface(const cr_surface_def *def, double lo, double hi, uint64_t seed, int count, int min_grazes,
                          const char *name)
{
    cr_surface *s;
    assert_int_equal(cr_surface_create(def, &s, NULL, 0), CR_OK);
    uint64_t rng = seed;
    tally n = {0};
    for (int i = 0; i < count; ++i) {
        double u = test_rand(&rng, lo, hi), v = test_rand(&rng, lo, hi);
        fly(s, &rng, u, v, &n);
    }
    printf("%s: %d flights, %d landings (%d grazes in and out), %.2f searches per flight\n", name, n.flights,
           n.landings, n.grazes, (double)n.evaluations / n.flights);
    /* enough of each kind to mean something */
    assert_true(n.landings > count / 20);
    assert_true(n.grazes >= min_grazes);
    cr_surface_destroy(s);
}

static void test_landings_over_hills(void **state)
{
    (void)state;
    cr_hill hills[9];
    cr_surface_def d = test_boiling_hills(hills, 3, -1.0, 1.5);
    check_surface(&d, -1.3, 1.3, 11, 20000, 100, "hills");
}

static void test_landings_in_bowl(void **state)
{
    (void)state;
    cr_surface_def d = cr_default_surface_def();
    d.type = CR_SURFACE_BOWL;
    d.center = cr_v3(0, 0, 1);
    d.radius = 1.0;
    /* inside a bowl a path under gravity that touches does not leave
     * again within a step: no grazes in and out */
    check_surface(&d, -0.6, 0.6, 12, 20000, 0, "bowl");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_landings_over_hills),
        cmocka_unit_test(test_landings_in_bowl),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
