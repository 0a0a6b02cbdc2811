/* cr_sincos (src/sincos_table.c, the hills' waves): against libm's sin and
 * cos within 2 ulps of 1 over random angles at several scales, on both
 * sides of the table's seams (the angles k 2 pi / 64 +- pi / 64) and past
 * the 1e5 where it hands over to libm; and sin^2 + cos^2 = 1 there.
 * cr_sincos2 (and cr_sincos2_avx2, where the processor has AVX2): cr_sincos's
 * very bits for each of its two angles. */
#include <math.h>
#include <string.h>

#include "simd.h"
#include "sincos_table.h"
#include "test_helpers.h"

static void check(double t)
{
    double s, c;
    cr_sincos(t, &s, &c);
    assert_true(fabs(s - sin(t)) <= 2.3e-16);
    assert_true(fabs(c - cos(t)) <= 2.3e-16);
    assert_true(fabs(s * s + c * c - 1.0) <= 6e-16);
}

static void test_against_libm(void **state)
{
    (void)state;
    uint64_t seed = 11;
    const double scales[] = {1e-300, 1e-8, 0.05, 1.0, 7.0, 100.0, 1e4, 99999.0, 1e6};
    for (size_t k = 0; k < sizeof scales / sizeof scales[0]; ++k)
        for (int i = 0; i < 200000; ++i) check(test_rand(&seed, -scales[k], scales[k]));
    for (int k = -640; k <= 640; ++k) { /* the seams between the table's angles */
        double seam = (k + 0.5) * 6.283185307179586 / 64.0;
        for (int j = -4; j <= 4; ++j) check(seam + j * 1e-15 * (1.0 + fabs(seam)));
    }
    check(0.0);
    check(-0.0);
    check(1e5);
    check(-1e5);
    double s, c;
    cr_sincos(NAN, &s, &c);
    assert_true(isnan(s) && isnan(c));
}

static bool same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

static void check_pair(double tx, double ty)
{
    double s[2], c[2], sx, cx, sy, cy;
    cr_sincos2(tx, ty, s, c);
    cr_sincos(tx, &sx, &cx);
    cr_sincos(ty, &sy, &cy);
    assert_true(same_bits(s[0], sx) && same_bits(c[0], cx));
    assert_true(same_bits(s[1], sy) && same_bits(c[1], cy));
#if CR_AVX2
    if (cr_use_avx2(false)) {
        cr_sincos2_avx2(tx, ty, s, c);
        assert_true(same_bits(s[0], sx) && same_bits(c[0], cx));
        assert_true(same_bits(s[1], sy) && same_bits(c[1], cy));
    }
#endif
}

static void test_two_lanes(void **state)
{
    (void)state;
    uint64_t seed = 23;
    const double scales[] = {1e-300, 1e-8, 0.05, 1.0, 7.0, 100.0, 1e4, 99999.0, 1e6};
    const size_t n = sizeof scales / sizeof scales[0];
    for (size_t a = 0; a < n; ++a)
        for (size_t b = 0; b < n; ++b)
            for (int i = 0; i < 20000; ++i)
                check_pair(test_rand(&seed, -scales[a], scales[a]), test_rand(&seed, -scales[b], scales[b]));
    for (int k = -640; k <= 640; ++k) { /* the seams, one lane each, and both */
        double seam = (k + 0.5) * 6.283185307179586 / 64.0;
        for (int j = -4; j <= 4; ++j) {
            double t = seam + j * 1e-15 * (1.0 + fabs(seam));
            check_pair(t, 0.3);
            check_pair(-1.7, t);
            check_pair(t, -t);
        }
    }
    const double edge[] = {0.0, -0.0, 1e5, -1e5, nextafter(1e5, INFINITY), 3.0};
    for (size_t a = 0; a < 6; ++a)
        for (size_t b = 0; b < 6; ++b) check_pair(edge[a], edge[b]);
    check_pair(NAN, 0.5);
    check_pair(0.5, NAN);
    double s[2], c[2];
    cr_sincos2(0.5, NAN, s, c);
    assert_true(isnan(s[1]) && isnan(c[1]) && !isnan(s[0]) && !isnan(c[0]));
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_against_libm), cmocka_unit_test(test_two_lanes)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
