/* The DEM's screen (src/dem_screen.c): of the listed pairs, those whose
 * spheres overlap at the minimum image, in list order. Both of its paths
 * (the plain loop and, where the processor has it, AVX2) against a
 * reference that tries every image of the second body, on random beds in
 * boxes periodic on none, some or all axes, over list ranges of every
 * length modulo 4 (the AVX2 path takes four pairs at a time); and the edge
 * cases: a pair exactly touching (not an overlap), a centre not finite. */
#include <math.h>
#include <string.h>

#include "dem_internal.h"
#include "test_helpers.h"

enum { N = 160, PAIRS = N * (N - 1) / 2 };

typedef struct bed {
    double xr[4 * N];
    uint32_t fb[PAIRS], nb[PAIRS], pairs;
    dem_box bx;
} bed;

static dem_box box(bool px, bool py, bool pz, double L)
{
    dem_box b;
    const bool p[3] = {px, py, pz};
    for (int k = 0; k < 3; ++k) {
        b.periodic[k] = p[k];
        b.L[k] = p[k] ? L : 0.0;
        b.half[k] = 0.5 * b.L[k];
        b.lo[k] = -1.0;
    }
    return b;
}

/* Centres in [lo, lo + L) (wrapped, as the DEM keeps them), radii 0.3 to
 * 0.7 in a box of 5: many pairs touch, many across the box's faces. Every
 * pair (i, j), i < j, grouped by i as the half list is. */
static void random_bed(bed *b, uint64_t *seed, dem_box bx)
{
    b->bx = bx;
    for (int i = 0; i < N; ++i) {
        for (int k = 0; k < 3; ++k) b->xr[4 * i + k] = -1.0 + test_rand(seed, 0.0, 5.0);
        b->xr[4 * i + 3] = test_rand(seed, 0.3, 0.7);
    }
    b->pairs = 0;
    for (uint32_t i = 0; i < N; ++i)
        for (uint32_t j = i + 1; j < N; ++j) b->fb[b->pairs] = i, b->nb[b->pairs++] = j;
}

/* The reference: the smallest squared distance over the images of x_j (one
 * period either way on a periodic axis), summed as cr_v3_len2 does. */
static bool touches(const bed *b, uint32_t i, uint32_t j)
{
    const double *pi = b->xr + 4 * i, *pj = b->xr + 4 * j;
    double best[3];
    for (int k = 0; k < 3; ++k) {
        const double d = pi[k] - pj[k];
        best[k] = d;
        if (b->bx.periodic[k]) {
            const double up = d - b->bx.L[k], down = d + b->bx.L[k];
            if (fabs(up) < fabs(best[k])) best[k] = up;
            if (fabs(down) < fabs(best[k])) best[k] = down;
        }
    }
    const double rs = pi[3] + pj[3];
    return best[0] * best[0] + best[1] * best[1] + best[2] * best[2] < rs * rs;
}

static uint32_t ck[PAIRS], ci[PAIRS];

/* Both paths over [k0, k1) against the reference, pair for pair. */
static uint32_t check_range(const bed *b, uint32_t k0, uint32_t k1)
{
    uint32_t want = 0;
    for (uint32_t k = k0; k < k1; ++k) want += touches(b, b->fb[k], b->nb[k]);
    for (int portable = 0; portable < 2; ++portable) {
        memset(ck, 0xff, sizeof ck);
        memset(ci, 0xff, sizeof ci);
        const uint32_t got = cr_dem_screen(b->xr, b->fb, b->nb, k0, k1, &b->bx, portable, ck, ci);
        assert_int_equal(got, want);
        uint32_t c = 0;
        for (uint32_t k = k0; k < k1; ++k)
            if (touches(b, b->fb[k], b->nb[k])) {
                assert_int_equal(ck[c], k);
                assert_int_equal(ci[c], b->fb[k]);
                ++c;
            }
        /* nothing written past the range's room */
        for (uint32_t e = k1 - k0; e < PAIRS; ++e) assert_int_equal(ck[e], UINT32_MAX);
    }
    return want;
}

static void test_screen_random_beds(void **state)
{
    (void)state;
    static bed b;
    uint64_t seed = 7;
    const bool axes[4][3] = {{true, true, false}, {true, true, true}, {false, false, false}, {false, true, false}};
    for (int a = 0; a < 4; ++a)
        for (int rep = 0; rep < 3; ++rep) {
            random_bed(&b, &seed, box(axes[a][0], axes[a][1], axes[a][2], 5.0));
            const uint32_t hits = check_range(&b, 0, b.pairs);
            /* the beds are dense enough to test something, and sparse
             * enough that most listed pairs do not touch */
            assert_true(hits > b.pairs / 50 && hits < b.pairs / 2);
            /* ranges of every length modulo 4 from every offset modulo 4 */
            for (uint32_t k0 = 0; k0 < 8; ++k0)
                for (uint32_t len = 0; len < 40; ++len) check_range(&b, 100 * k0 + k0, 100 * k0 + k0 + len);
        }
}

/* Pairs placed by hand: exactly touching (|d| = r_i + r_j, not an overlap),
 * just overlapping, across the periodic face, and a centre not finite (no
 * contact, whatever its partner). */
static void test_screen_edges(void **state)
{
    (void)state;
    static bed b;
    memset(&b, 0, sizeof b);
    b.bx = box(true, false, false, 10.0);
    const double c[][4] = {
        {1.0, 1.0, 1.0, 0.5},      {2.0, 1.0, 1.0, 0.5},       /* |d| = 1 = r_i + r_j: not touching */
        {1.0, 3.0, 1.0, 0.5},      {1.0, 3.0, 1.999, 0.5},     /* touching */
        {-0.9, 5.0, 1.0, 0.25},    {8.6, 5.0, 1.0, 0.3},       /* 0.5 apart across the face at x = -1 | 9, radii 0.55 */
        {-0.9, 7.0, 1.0, 0.25},    {8.5, 7.0, 1.0, 0.3},       /* 0.6 apart across it, radii 0.55: apart */
        {NAN, 1.0, 1.0, 0.5},      {1.0, 1.0, 1.0, 0.5},       /* not finite */
        {1.0, 1.0, 1.0, INFINITY}, {1.0, 1.0, 1.0, INFINITY},  /* a radius not finite: d2 = 0 < inf */
    };
    const bool want[] = {false, true, true, false, false, true};
    const uint32_t n = sizeof c / sizeof c[0];
    for (uint32_t i = 0; i < n; ++i) memcpy(b.xr + 4 * i, c[i], sizeof c[i]);
    for (uint32_t p = 0; p < n / 2; ++p) b.fb[p] = 2 * p, b.nb[p] = 2 * p + 1;
    b.pairs = n / 2;
    for (int portable = 0; portable < 2; ++portable) {
        const uint32_t got = cr_dem_screen(b.xr, b.fb, b.nb, 0, b.pairs, &b.bx, portable, ck, ci);
        uint32_t e = 0;
        for (uint32_t p = 0; p < b.pairs; ++p)
            if (want[p]) assert_int_equal(ck[e++], p);
        assert_int_equal(got, e);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_screen_random_beds),
        cmocka_unit_test(test_screen_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
