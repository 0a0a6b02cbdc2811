/* Contact key sort invariant: over random lists of unique keys (a body's
 * contacts few or many, past the insertion sort's limit; nearly in order,
 * as contacts are made, or shuffled), cr_contact_keys_sort puts them in
 * exactly qsort's order under cr_contact_key_cmp, bit for bit, and its
 * counters delimit each body's keys. */
#include <stdlib.h>
#include <string.h>

#include "contact_keys.h"
#include "test_helpers.h"

static int pair_cmp(const void *px, const void *py)
{
    const cr_contact_key *x = px, *y = py;
    return x->pair < y->pair ? -1 : (x->pair > y->pair);
}

static void test_sort_matches_qsort(void **state)
{
    (void)state;
    uint64_t seed = 7;
    enum { MAX = 3000 };
    cr_contact_key *keys = malloc(MAX * sizeof *keys), *tmp = malloc(MAX * sizeof *tmp);
    cr_contact_key *ref = malloc(MAX * sizeof *ref);
    uint32_t *count = malloc((MAX + 1) * sizeof *count);
    assert_non_null(keys), assert_non_null(tmp), assert_non_null(ref), assert_non_null(count);
    long long_buckets = 0;
    for (int round = 0; round < 300; ++round) {
        uint32_t n = (uint32_t)(test_rand_u64(&seed) % MAX);
        /* few bodies: many keys a body (qsort's branch); many: a handful */
        uint32_t buckets = 1 + (uint32_t)(test_rand_u64(&seed) % (round % 3 == 0 ? 8 : MAX));
        uint32_t planes = 1 + (uint32_t)(test_rand_u64(&seed) % 3);
        for (uint32_t k = 0; k < n; ++k) {
            uint64_t a = test_rand_u64(&seed) % buckets, plane = test_rand_u64(&seed) % 4 == 0;
            uint64_t b = plane ? test_rand_u64(&seed) % planes : test_rand_u64(&seed) % buckets;
            uint64_t feature = test_rand_u64(&seed) % 5; /* repeats: rank's index breaks ties */
            keys[k].pair = a << 33 | plane << 32 | b;
            keys[k].rank = feature << 32 | k;
        }
        if (round % 2) /* nearly in order: by pair only, a pair's ranks as they fall */
            qsort(keys, n, sizeof *keys, pair_cmp);
        memcpy(ref, keys, n * sizeof *keys);
        qsort(ref, n, sizeof *ref, cr_contact_key_cmp);
        cr_contact_keys_sort(keys, tmp, count, n, buckets);
        assert_memory_equal(keys, ref, n * sizeof *keys);
        if (n) /* the counters delimit each body's keys */
            for (uint32_t a = 0; a < buckets; ++a) {
                uint32_t begin = a ? count[a - 1] : 0;
                assert_true(begin <= count[a] && count[a] <= n);
                for (uint32_t k = begin; k < count[a]; ++k) assert_int_equal(keys[k].pair >> 33, a);
            }
        if (n) assert_int_equal(count[buckets - 1], n);
        if (buckets <= 8 && n > 8 * 32) ++long_buckets;
    }
    assert_true(long_buckets > 10); /* the cases did reach qsort's branch */
    free(keys), free(tmp), free(ref), free(count);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sort_matches_qsort),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
