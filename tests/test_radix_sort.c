/* cr_radix_sort (src/radix_sort.c) and cr_radix_key_of_double: the key's
 * unsigned order is the doubles' order (-0 just before +0), and the sort
 * gives the order of a comparison sort by (key, first position), so it is
 * sorted and stable: random doubles of every sign and magnitude with many
 * repeated, subnormals, zeros and infinities; keys that differ in one byte
 * only (one pass), all equal (no pass), none and one. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "radix_sort.h"
#include "test_helpers.h"

#define MAX_ITEMS 5000

static uint64_t rng = 987654321;
static uint64_t next(void)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return rng;
}

/* A double of any sign and magnitude: a few special values, numbers near
 * 1, or random bits (NaN drawn again). */
static double any_double(void)
{
    uint64_t r = next() >> 61;
    if (r < 2) {
        const double special[] = {0.0, -0.0, INFINITY, -INFINITY, 5e-324, -5e-324, 1.0, -1.0};
        return special[(next() >> 33) % 8];
    }
    if (r < 5)
        return ldexp((double)(next() >> 11) / 9007199254740992.0, (int)((next() >> 33) % 40) - 20) *
               ((next() >> 63) ? -1.0 : 1.0);
    for (;;) {
        union {
            uint64_t u;
            double d;
        } b = {next()};
        if (!isnan(b.d)) return b.d;
    }
}

/* One of repeats[] a quarter of the time: many equal keys. */
static double draw(const double *repeats, uint32_t repeat_count)
{
    return next() >> 62 ? any_double() : repeats[(next() >> 33) % repeat_count];
}

static int by_key_then_value(const void *p, const void *q)
{
    const cr_radix_item *a = p, *b = q;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    return (a->value > b->value) - (a->value < b->value);
}

/* Sorts a copy of items[0 .. n) (values: their positions) and compares it
 * with qsort by (key, position), and the keys' order with the doubles'. */
static void check(const double *x, uint32_t n)
{
    static cr_radix_item a[MAX_ITEMS], tmp[MAX_ITEMS], expect[MAX_ITEMS];
    for (uint32_t k = 0; k < n; ++k) a[k] = expect[k] = (cr_radix_item){cr_radix_key_of_double(x[k]), k};
    qsort(expect, n, sizeof *expect, by_key_then_value);
    const cr_radix_item *got = cr_radix_sort(a, tmp, n);
    assert_true(got == a || got == tmp);
    for (uint32_t k = 0; k < n; ++k) {
        assert_true(got[k].key == expect[k].key);
        assert_int_equal(got[k].value, expect[k].value);
        if (k > 0) { /* the doubles in order; -0 before +0 */
            double p = x[got[k - 1].value], q = x[got[k].value];
            assert_true(p <= q);
            if (p == 0.0 && q == 0.0) assert_false(signbit(q) && !signbit(p));
        }
    }
}

static void test_random_doubles(void **state)
{
    (void)state;
    static double x[MAX_ITEMS];
    double repeats[16];
    for (int round = 0; round < 60; ++round) {
        uint32_t repeat_count = 1 + (uint32_t)(next() >> 60);
        for (uint32_t k = 0; k < repeat_count; ++k) repeats[k] = any_double();
        uint32_t n = (uint32_t)((next() >> 33) % MAX_ITEMS);
        for (uint32_t k = 0; k < n; ++k) x[k] = draw(repeats, repeat_count);
        check(x, n);
    }
}

static void test_few_bytes_differ(void **state)
{
    (void)state;
    static double x[MAX_ITEMS];
    /* one byte differs: one pass */
    for (uint32_t k = 0; k < 1000; ++k) {
        union {
            uint64_t u;
            double d;
        } b = {0x4010000000000000ull | ((next() >> 56) << 16)};
        x[k] = b.d;
    }
    check(x, 1000);
    /* all equal: no pass, the input order kept */
    for (uint32_t k = 0; k < 1000; ++k) x[k] = -3.25;
    check(x, 1000);
    /* a field's lower x, as the box sweep gives them */
    for (uint32_t k = 0; k < MAX_ITEMS; ++k) x[k] = -20.0 + 40.0 * (double)(next() >> 11) / 9007199254740992.0;
    check(x, MAX_ITEMS);
    check(x, 1);
    check(x, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_doubles),
        cmocka_unit_test(test_few_bytes_differ),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
