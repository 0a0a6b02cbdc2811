/* Newton's last step by Taylor (src/surface.c: newton, taylor_graph; seed
 * 004 eq. 29-34) and the anchor that keeps the closest point pure. On the
 * hills a search whose last Newton step is short takes it
 * without evaluating there: the surface at its answer is the Taylor series
 * from the anchor, the last point evaluated exactly. Checked here:
 *  - purity: a ball's chain of searches, each warm-started from the last
 *    one's anchor, gives the same bits through its memo, through a memo
 *    cleared before each search, and without a memo (the memo holds only
 *    exact evaluations, so a search's first evaluation from it is the one
 *    a fresh search makes), the same query again included;
 *  - accuracy: the Taylor answer's point, normal and distance against the
 *    exact evaluation at its (u, v), and against an exact search's answer. */
#include <string.h>

#include "surface_internal.h"
#include "test_helpers.h"

static bool same(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }
static bool same_v(cr_vec3 a, cr_vec3 b) { return same(a.x, b.x) && same(a.y, b.y) && same(a.z, b.z); }

static void assert_same(cr_closest a, const cr_surface_eval *ea, cr_closest b, const cr_surface_eval *eb)
{
    assert_true(same(a.u, b.u) && same(a.v, b.v) && same(a.anchor_u, b.anchor_u) && same(a.anchor_v, b.anchor_v));
    assert_true(same_v(a.point, b.point) && same_v(a.normal, b.normal) && same(a.distance, b.distance));
    assert_int_equal(a.iterations, b.iterations);
    assert_int_equal(a.converged, b.converged);
    assert_int_equal(a.on_edge, b.on_edge);
    assert_true(same_v(ea->s, eb->s) && same_v(ea->su, eb->su) && same_v(ea->sv, eb->sv));
    assert_true(same_v(ea->suu, eb->suu) && same_v(ea->suv, eb->suv) && same_v(ea->svv, eb->svv));
}

/* Hills (bumps on a lattice and waves, as the boiling scene's) or the bowl,
 * over [-2, 2]^2. */
static cr_surface *make(cr_surface_type type)
{
    static cr_hill lattice[16];
    cr_surface_def d = test_boiling_hills(lattice, 4, -1.5, 2.0);
    d.type = type;
    d.center = cr_v3(0.0, 0.0, 2.5);
    d.radius = 2.5;
    cr_surface *s;
    assert_int_equal(cr_surface_create(&d, &s, NULL, 0), CR_OK);
    return s;
}

/* A point a ball's centre might be at: above the surface by up to 0.3, on
 * the bowl inside it, half the time within 0.1 to 1e-7 of its radius from
 * the rim, where its graph is singular. */
static cr_vec3 somewhere(const cr_surface *s, uint64_t *seed)
{
    double u = test_rand(seed, -1.8, 1.8), v = test_rand(seed, -1.8, 1.8);
    if (cr_surface_get_def(s)->type == CR_SURFACE_BOWL) {
        double a = test_rand(seed, 0.0, 6.283185307179586), f = test_rand(seed, 0.0, 0.9);
        if (test_rand(seed, 0.0, 1.0) < 0.5) f = 1.0 - pow(10.0, -test_rand(seed, 1.0, 7.0));
        u = 2.5 * f * cos(a);
        v = 2.5 * f * sin(a);
    }
    cr_surface_eval e;
    cr_vec3 n;
    cr_surface_evaluate(s, u, v, &e, &n);
    return cr_v3_madd(e.s, n, test_rand(seed, 0.0, 0.3));
}

static void test_anchor_warm_start_is_pure(void **state)
{
    (void)state;
    for (int k = 0; k < 2; ++k) {
        cr_surface *s = make(k ? CR_SURFACE_BOWL : CR_SURFACE_HILLS);
        uint64_t seed = 29 + (uint64_t)k;
        long taylor = 0, queries = 0;
        for (int ball = 0; ball < 40; ++ball) {
            cr_closest_memo m;
            m.surface = UINT32_MAX;
            cr_vec3 p = somewhere(s, &seed);
            double u0 = p.x, v0 = p.y;
            for (int q = 0; q < 60; ++q) {
                /* a ball's next position: mostly a short move, as a step's
                 * plan end or a landing sample, sometimes the same point */
                if (test_rand(&seed, 0.0, 1.0) < 0.9) {
                    cr_vec3 dir = test_rand_vec(&seed, -1.0, 1.0);
                    p = cr_v3_madd(p, dir, pow(10.0, test_rand(&seed, -9.0, -2.0)));
                }
                cr_surface_eval em, ec, ef, er;
                cr_closest cm = cr_surface_closest_memo(s, 0, &m, p, u0, v0, 1e-12, &em);
                cr_closest_memo cleared;
                cleared.surface = UINT32_MAX;
                cr_closest cc = cr_surface_closest_memo(s, 0, &cleared, p, u0, v0, 1e-12, &ec);
                cr_closest cf = cr_surface_closest_eval(s, p, u0, v0, 1e-12, &ef);
                cr_closest cr = cr_surface_closest_memo(s, 0, &m, p, u0, v0, 1e-12, &er); /* asked again */
                assert_same(cm, &em, cc, &ec);
                assert_same(cm, &em, cf, &ef);
                assert_same(cm, &em, cr, &er);
                taylor += !same(cm.u, cm.anchor_u) || !same(cm.v, cm.anchor_v);
                ++queries;
                u0 = cm.anchor_u; /* the next search's warm start, as the balls keep it */
                v0 = cm.anchor_v;
            }
        }
        /* the Taylor step is the hills' common ending; the bowl never
         * takes it (its series fails at the rim: taylor_surface) */
        print_message("%s: %ld of %ld searches ended by Taylor\n", k ? "bowl" : "hills", taylor, queries);
        if (k) assert_int_equal(taylor, 0);
        else assert_true(taylor > queries / 4);
        cr_surface_destroy(s);
    }
}

/* The search without Taylor's step, written out (seed 004 eq. 31-34 with
 * an exact evaluation at every iterate, stopping where the next step would
 * move the point by at most tol size): the closest point before the step
 * was taken by Taylor. The normal at the answer in *n. */
static cr_vec3 exact_search(const cr_surface *s, cr_vec3 p, double u, double v, double tol, int extra, cr_vec3 *n)
{
    for (int it = 0; it < 64; ++it) {
        cr_surface_eval e;
        cr_surface_evaluate(s, u, v, &e, n);
        cr_vec3 d = cr_v3_sub(e.s, p);
        double a11 = cr_v3_dot(d, e.suu) + cr_v3_dot(e.su, e.su), a12 = cr_v3_dot(d, e.suv) + cr_v3_dot(e.su, e.sv);
        double a22 = cr_v3_dot(d, e.svv) + cr_v3_dot(e.sv, e.sv);
        double b1 = -cr_v3_dot(d, e.su), b2 = -cr_v3_dot(d, e.sv), det = a11 * a22 - a12 * a12;
        double du = (a22 * b1 - a12 * b2) / det, dv = (a11 * b2 - a12 * b1) / det;
        if (cr_v3_len(cr_v3_madd(cr_v3_scale(e.su, du), e.sv, dv)) <= tol * s->size && extra-- == 0) return e.s;
        u += du;
        v += dv;
    }
    fail_msg("the exact search did not settle");
    return cr_v3_zero();
}

static void test_taylor_answer_is_exact(void **state)
{
    (void)state;
    for (int k = 0; k < 2; ++k) {
        cr_surface *s = make(k ? CR_SURFACE_BOWL : CR_SURFACE_HILLS);
        uint64_t seed = 41 + (uint64_t)k;
        long taylor = 0;
        double worst_point = 0.0, worst_normal = 0.0, worst_search = 0.0, worst_search_n = 0.0;
        double worst_true_n = 0.0, worst_exact_true_n = 0.0;
        for (int q = 0; q < 20000; ++q) {
            cr_vec3 p = somewhere(s, &seed);
            /* started near the answer, as a ball's warm start: Newton's
             * last steps */
            double u0 = p.x + test_rand(&seed, -0.05, 0.05), v0 = p.y + test_rand(&seed, -0.05, 0.05);
            cr_surface_eval e;
            cr_closest c = cr_surface_closest_eval(s, p, u0, v0, 1e-12, &e);
            if (same(c.u, c.anchor_u) && same(c.v, c.anchor_v)) continue;
            assert_true(c.converged); /* (a Taylor step ends a converged search) */
            ++taylor;
            cr_surface_eval x;
            cr_vec3 n;
            cr_surface_evaluate(s, c.u, c.v, &x, &n);
            double size = s->size;
            /* s and the distance to rounding: the series' error is
             * |step|^3 |z'''|, the step at most sqrt(tol size / 4) */
            assert_true(cr_v3_len(cr_v3_sub(c.point, x.s)) <= 1e-15 * size);
            assert_true(fabs(c.distance - cr_v3_dot(cr_v3_sub(p, x.s), n)) <= 1e-15 * size);
            /* the normal's, |step|^2 |z'''|, is the tolerance's own order */
            double dn = cr_v3_len(cr_v3_sub(c.normal, n));
            assert_true(dn <= 1e-11);
            /* against the search without Taylor's step from the same start,
             * and the closest point to rounding (three steps more) */
            cr_vec3 ne, nt;
            cr_vec3 pe = exact_search(s, p, u0, v0, 1e-12, 0, &ne);
            exact_search(s, p, u0, v0, 1e-12, 3, &nt);
            assert_true(cr_v3_len(cr_v3_sub(c.point, pe)) <= 1e-12 * size);
            double search_n = cr_v3_len(cr_v3_sub(c.normal, ne)), true_n = cr_v3_len(cr_v3_sub(c.normal, nt));
            double exact_true_n = cr_v3_len(cr_v3_sub(ne, nt));
            assert_true(true_n <= 1e-11);
            worst_point = fmax(worst_point, cr_v3_len(cr_v3_sub(c.point, x.s)) / size);
            worst_normal = fmax(worst_normal, dn);
            worst_search = fmax(worst_search, cr_v3_len(cr_v3_sub(c.point, pe)) / size);
            worst_search_n = fmax(worst_search_n, search_n);
            worst_true_n = fmax(worst_true_n, true_n);
            worst_exact_true_n = fmax(worst_exact_true_n, exact_true_n);
        }
        print_message("%s: %ld Taylor answers; worst: point %.3g of the size from the exact s there, normal %.3g; "
                      "from the search without Taylor: point %.3g of the size, normal %.3g; normals from the "
                      "true one: Taylor %.3g, without Taylor %.3g\n",
                      k ? "bowl" : "hills", taylor, worst_point, worst_normal, worst_search, worst_search_n,
                      worst_true_n, worst_exact_true_n);
        /* no worse than the search without it by more than a factor 2 */
        assert_true(worst_true_n <= 2.0 * worst_exact_true_n + 1e-15);
        if (k) assert_int_equal(taylor, 0); /* the bowl: never, up to its rim */
        if (!k) assert_true(taylor > 1000);
        cr_surface_destroy(s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_anchor_warm_start_is_pure),
        cmocka_unit_test(test_taylor_answer_is_exact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
