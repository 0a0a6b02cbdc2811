/* cr_sincos (src/sincos_table.c, the hills' waves): against libm's sin and
 * cos within 2 ulps of 1 over random angles at several scales, on both
 * sides of the table's seams (the angles k 2 pi / 64 +- pi / 64) and past
 * the 1e5 where it hands over to libm; and sin^2 + cos^2 = 1 there. */
#include <math.h>

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

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_against_libm)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
