/* The hills lattice's AVX2 path (src/surface_lattice.c, lattice_avx2) gives
 * the plain path's bits: z and its five derivatives at random points of a
 * lattice as bench_boiling's (1 m apart, width 0.3, hills and hollows, and
 * one of mixed widths and a missing bump), at points a column or row sits
 * exactly at the 8.5-width cut of, and on the cells' edges; both paths
 * taken on the same surface. And a height of -0 kept where every column
 * of the cell is cut (the lanes leave cut columns out, as the plain loop
 * does, rather than add their +0). */
#include <string.h>

#include "simd.h"
#include "surface_internal.h"
#include "test_helpers.h"

static bool same(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

static void check(cr_surface *s, double x, double y)
{
    cr_surface_eval plain, lanes;
    s->lattice_avx2 = false;
    cr_surface_eval_raw(s, x, y, &plain);
    s->lattice_avx2 = true;
    cr_surface_eval_raw(s, x, y, &lanes);
    assert_true(same(plain.s.z, lanes.s.z));
    assert_true(same(plain.su.z, lanes.su.z) && same(plain.sv.z, lanes.sv.z));
    assert_true(same(plain.suu.z, lanes.suu.z) && same(plain.suv.z, lanes.suv.z) && same(plain.svv.z, lanes.svv.z));
}

static void test_lanes_give_plain_bits(void **state)
{
    (void)state;
    if (!cr_use_avx2(false)) skip();
    enum { SIDE = 12 };
    for (int mixed = 0; mixed < 2; ++mixed) {
        cr_hill h[SIDE * SIDE];
        uint32_t n = 0;
        for (int i = 0; i < SIDE; ++i)
            for (int j = 0; j < SIDE; ++j) {
                if (mixed && i == 5 && j == 6) continue; /* a hole in the lattice: a 0 amplitude in its cells */
                double w = mixed ? (i % 3 == 0 ? 0.25 : 0.3) : 0.3;
                h[n++] = (cr_hill){(i + j) % 2 ? 0.2 : -0.12, -5.5 + i, -5.5 + j, w};
            }
        cr_surface_def d = cr_default_surface_def();
        d.type = CR_SURFACE_HILLS;
        d.u_min = d.v_min = -6.0;
        d.u_max = d.v_max = 6.0;
        d.height = 0.1;
        d.hills = h;
        d.hill_count = n;
        d.wave_amplitude = 0.03;
        d.wave_length_x = 0.9;
        d.wave_length_y = 1.1;
        cr_surface *s;
        char msg[128];
        assert_int_equal(cr_surface_create(&d, &s, msg, sizeof msg), CR_OK);
        assert_non_null(s->lattice_cols); /* the lattice path */
        uint64_t seed = 31 + (uint64_t)mixed;
        for (int c = 0; c < 100000; ++c) check(s, test_rand(&seed, -9.0, 9.0), test_rand(&seed, -9.0, 9.0));
        const double cut = 8.5 * 0.3; /* q = 72 exactly at the cut: kept; past it: cut */
        for (int k = 0; k < SIDE; ++k) {
            double c = -5.5 + k;
            check(s, c + cut, 0.37);
            check(s, c - cut, nextafter(c - cut, 0.0));
            check(s, 0.41, nextafter(c + cut, INFINITY));
        }
        for (int k = 0; k <= 64; ++k) { /* along the grid's cell edges */
            double e = s->grid_x0 + k * s->grid_cell;
            check(s, e, test_rand(&seed, -6.0, 6.0));
            check(s, test_rand(&seed, -6.0, 6.0), s->grid_y0 + k * s->grid_cell);
        }
        cr_surface_destroy(s);
    }
}

static void test_lanes_keep_negative_zero(void **state)
{
    (void)state;
    if (!cr_use_avx2(false)) skip();
    enum { SIDE = 12 };
    cr_hill h[SIDE * SIDE];
    for (int i = 0; i < SIDE; ++i)
        for (int j = 0; j < SIDE; ++j) h[i * SIDE + j] = (cr_hill){(i + j) % 2 ? 0.2 : -0.12, -5.5 + i, -5.5 + j, 0.3};
    cr_surface_def d = cr_default_surface_def();
    d.type = CR_SURFACE_HILLS;
    d.u_min = d.v_min = -9.0;
    d.u_max = d.v_max = 9.0;
    d.height = -0.0;
    d.hills = h;
    d.hill_count = SIDE * SIDE;
    cr_surface *s;
    char msg[128];
    assert_int_equal(cr_surface_create(&d, &s, msg, sizeof msg), CR_OK);
    assert_non_null(s->lattice_cols);
    /* the grid reaches past the last column's cut (8.05): cells there hold
     * columns, all cut at these x */
    double x_end = s->grid_x0 + s->grid_nx * s->grid_cell;
    assert_true(x_end > 8.3);
    uint64_t seed = 7;
    for (int c = 0; c < 1000; ++c) {
        double x = test_rand(&seed, 8.1, 8.3), y = test_rand(&seed, -6.0, 6.0);
        check(s, x, y);
        cr_surface_eval e;
        cr_surface_eval_raw(s, x, y, &e);
        assert_true(same(e.s.z, -0.0));
    }
    cr_surface_destroy(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lanes_give_plain_bits),
        cmocka_unit_test(test_lanes_keep_negative_zero),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
