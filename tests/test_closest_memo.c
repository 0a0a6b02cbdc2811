/* cr_surface_closest_memo (src/surface.c): a ball's memo of its last
 * closest point gives the very bits of a fresh search, whatever it is
 * asked: the same query again (answered without a search), a search that
 * starts at the last one's anchor (its first evaluation taken from the
 * memo), a query that differs from the last in one bit of one field (the
 * point, the start, the tolerance, -0 for +0, the surface), and fresh ones.
 * A custom surface, whose callback may change, is not memoised. */
#include <string.h>

#include "surface_internal.h"
#include "test_helpers.h"

static bool same(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }
static bool same_v(cr_vec3 a, cr_vec3 b) { return same(a.x, b.x) && same(a.y, b.y) && same(a.z, b.z); }

static void assert_same(cr_closest a, const cr_surface_eval *ea, cr_closest b, const cr_surface_eval *eb)
{
    assert_true(same(a.u, b.u) && same(a.v, b.v) && same_v(a.point, b.point) && same_v(a.normal, b.normal));
    assert_true(same(a.anchor_u, b.anchor_u) && same(a.anchor_v, b.anchor_v));
    assert_true(same(a.distance, b.distance));
    assert_int_equal(a.iterations, b.iterations);
    assert_int_equal(a.converged, b.converged);
    assert_int_equal(a.on_edge, b.on_edge);
    assert_true(same_v(ea->s, eb->s) && same_v(ea->su, eb->su) && same_v(ea->sv, eb->sv));
    assert_true(same_v(ea->suu, eb->suu) && same_v(ea->suv, eb->suv) && same_v(ea->svv, eb->svv));
}

/* One query through the memo and afresh: the same bits. */
static cr_closest ask(const cr_surface *s, uint32_t k, cr_closest_memo *m, cr_vec3 p, double u0, double v0, double tol)
{
    cr_surface_eval em, ef;
    cr_closest cm = cr_surface_closest_memo(s, k, m, p, u0, v0, tol, &em);
    cr_closest cf = cr_surface_closest_eval(s, p, u0, v0, tol, &ef);
    assert_same(cm, &em, cf, &ef);
    return cm;
}

static cr_surface *make(cr_surface_type type, const cr_hill *hills, uint32_t hill_count, const cr_vec3 *ctrl)
{
    cr_surface_def d = cr_default_surface_def();
    d.type = type;
    d.u_min = d.v_min = -2.0;
    d.u_max = d.v_max = 2.0;
    d.normal = cr_v3(0.1, -0.2, 1.0);
    d.hills = hills;
    d.hill_count = hill_count;
    d.wave_amplitude = 0.03;
    d.wave_length_x = 0.9;
    d.wave_length_y = 1.1;
    d.center = cr_v3(0.0, 0.0, 2.5);
    d.radius = 2.5;
    d.count_u = d.count_v = 6;
    d.control_points = ctrl;
    cr_surface *s;
    assert_int_equal(cr_surface_create(&d, &s, NULL, 0), CR_OK);
    return s;
}

static void test_memo_gives_fresh_bits(void **state)
{
    (void)state;
    cr_hill lattice[16];
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) lattice[i * 4 + j] = (cr_hill){(i + j) % 2 ? 0.2 : -0.12, -1.5 + i, -1.5 + j, 0.3};
    cr_vec3 ctrl[36];
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 6; ++j) ctrl[i * 6 + j] = cr_v3(-1.0 + 0.4 * i, -1.0 + 0.4 * j, 0.2 * sin(1.7 * i) * cos(j));
    cr_surface *surfaces[5] = {make(CR_SURFACE_PLANE, NULL, 0, ctrl), make(CR_SURFACE_HILLS, lattice, 16, ctrl),
                               make(CR_SURFACE_HILLS, lattice, 3, ctrl), make(CR_SURFACE_BOWL, NULL, 0, ctrl),
                               make(CR_SURFACE_BSPLINE, NULL, 0, ctrl)};
    uint64_t seed = 17;
    long repeats = 0, restarts = 0;
    for (uint32_t k = 0; k < 5; ++k) {
        const cr_surface *s = surfaces[k];
        bool unit = k == 4; /* the B-spline's parameters are in [0, 1] */
        cr_closest_memo m;
        m.surface = UINT32_MAX;
        cr_closest last = {0};
        cr_vec3 p = cr_v3(0.1, 0.2, 0.5);
        double u0 = unit ? 0.5 : 0.0, v0 = unit ? 0.5 : 0.0, tol = 1e-12;
        for (int q = 0; q < 1200; ++q) {
            int kind = (int)test_rand(&seed, 0.0, 8.0);
            switch (kind) {
            case 0: ++repeats; break; /* the same query again */
            case 1: /* a nearby point from the last search's anchor, as a ball's next plan */
                p = cr_v3_add(p, test_rand_vec(&seed, -0.02, 0.02));
                u0 = last.anchor_u;
                v0 = last.anchor_v;
                ++restarts;
                break;
            case 2: p.z = nextafter(p.z, INFINITY); break; /* one bit of the point */
            case 3: u0 = nextafter(u0, -INFINITY); break;  /* one bit of the start */
            case 4: tol = tol == 1e-12 ? 1e-9 : 1e-12; break;
            case 5: u0 = u0 == 0.0 ? -u0 : 0.0; break; /* +0 and -0 */
            case 6: { /* a new query on another surface first, then on this one */
                cr_surface_eval e;
                p.x = nextafter(p.x, INFINITY);
                cr_surface_closest_memo(surfaces[(k + 1) % 5], (k + 1) % 5, &m, p, u0, v0, tol, &e);
                break;
            }
            default: /* a fresh query, some outside the domain */
                p = test_rand_vec(&seed, -2.5, 2.5);
                p.z = test_rand(&seed, -0.3, 1.0);
                if (unit) p = cr_v3(test_rand(&seed, -1.2, 1.2), test_rand(&seed, -1.2, 1.2), test_rand(&seed, -0.3, 0.8));
                u0 = unit ? test_rand(&seed, -0.1, 1.1) : test_rand(&seed, -2.2, 2.2);
                v0 = unit ? test_rand(&seed, -0.1, 1.1) : test_rand(&seed, -2.2, 2.2);
            }
            last = ask(s, k, &m, p, u0, v0, tol);
        }
    }
    assert_true(repeats > 500 && restarts > 500);
    for (int k = 0; k < 5; ++k) cr_surface_destroy(surfaces[k]);
}

/* A custom surface's callback may read what changes (here a height): the
 * memo must not answer for it. */
static void lifted(double u, double v, void *ctx, cr_surface_eval *o)
{
    double h = *(const double *)ctx;
    o->s = cr_v3(u, v, h + 0.1 * u * v);
    o->su = cr_v3(1, 0, 0.1 * v);
    o->sv = cr_v3(0, 1, 0.1 * u);
    o->suu = o->svv = cr_v3_zero();
    o->suv = cr_v3(0, 0, 0.1);
}

static void test_custom_not_memoised(void **state)
{
    (void)state;
    double height = 0.0;
    cr_surface_def d = cr_default_surface_def();
    d.type = CR_SURFACE_CUSTOM;
    d.eval = lifted;
    d.ctx = &height;
    cr_surface *s;
    assert_int_equal(cr_surface_create(&d, &s, NULL, 0), CR_OK);
    cr_closest_memo m;
    m.surface = UINT32_MAX;
    cr_surface_eval e;
    cr_closest a = cr_surface_closest_memo(s, 0, &m, cr_v3(0.2, 0.3, 1.0), 0.0, 0.0, 1e-12, &e);
    height = 0.5;
    cr_closest b = cr_surface_closest_memo(s, 0, &m, cr_v3(0.2, 0.3, 1.0), 0.0, 0.0, 1e-12, &e);
    assert_near(a.point.z - b.point.z, -0.5, 1e-3);
    cr_surface_destroy(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_memo_gives_fresh_bits),
        cmocka_unit_test(test_custom_not_memoised),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
