/* Event queue invariant: over random cases of interleaved pushes and pops,
 * with many equal times (ties broken by slot, kind, second index), the queue
 * pops exactly what a plain array reference pops: the least event under
 * cr_event_before, found by a linear scan. Events equal on (t, a, kind, b)
 * differ only in their stamps, and either may come first (event_queue.c:
 * at most one of them is current), so the reference then accepts any one of
 * them; everything else must match bit for bit. */
#include <stdlib.h>
#include <string.h>

#include "test_helpers.h"
#include "world_internal.h"

static bool same_key(const cr_event *x, const cr_event *y)
{
    return !cr_event_before(x, y) && !cr_event_before(y, x);
}

static cr_event random_event(uint64_t *seed, int round)
{
    cr_event e;
    memset(&e, 0, sizeof e);
    /* Few distinct times (and few slots) in most rounds: many ties. */
    uint64_t times = round % 4 == 0 ? 1000000 : (uint64_t)(1 + round % 7);
    e.t = (double)(test_rand_u64(seed) % times) / (double)times;
    uint32_t slots = round % 3 == 0 ? 1000u : 3u + (uint32_t)(round % 5);
    e.a = (uint32_t)(test_rand_u64(seed) % slots);
    e.b = (uint32_t)(test_rand_u64(seed) % slots);
    e.kind = (uint32_t)(test_rand_u64(seed) % 4);
    e.stamp_a = (uint32_t)(test_rand_u64(seed) % 3);
    e.stamp_b = (uint32_t)(test_rand_u64(seed) % 3);
    return e;
}

/* Removes and returns the least event of the reference under
 * cr_event_before (a linear scan: the plain sorted order). */
static cr_event ref_pop_least(cr_event *ref, uint32_t *n, const cr_event *want)
{
    uint32_t best = 0;
    for (uint32_t k = 1; k < *n; ++k)
        if (cr_event_before(&ref[k], &ref[best])) best = k;
    /* Among the events equal on the key, take the one the queue gave. */
    uint32_t pick = best;
    for (uint32_t k = 0; k < *n; ++k)
        if (same_key(&ref[k], &ref[best]) && memcmp(&ref[k], want, sizeof *want) == 0) pick = k;
    cr_event e = ref[pick];
    ref[pick] = ref[--*n];
    return e;
}

static void test_pops_match_sorted_reference(void **state)
{
    (void)state;
    uint64_t seed = 2026;
    cr_world *w = make_world(cr_v3_zero(), 0.01, CR_METHOD_IMPULSE);
    cr_event_queue q = {0};
    uint32_t cap = 4096;
    cr_event *ref = malloc(sizeof *ref * cap);
    assert_non_null(ref);
    long popped = 0;
    for (int round = 0; round < 300; ++round) {
        uint32_t n = 0;
        cr_event_clear(&q);
        int ops = 1 + (int)(test_rand_u64(&seed) % 3000);
        /* Push-heavy, pop-heavy and balanced phases, then drain. */
        double push_share = round % 3 == 0 ? 0.8 : round % 3 == 1 ? 0.5 : 0.65;
        for (int op = 0; op < ops; ++op) {
            if (n < cap && test_rand(&seed, 0.0, 1.0) < push_share) {
                cr_event e = random_event(&seed, round);
                assert_true(cr_event_push(w, &q, &e));
                ref[n++] = e;
            } else {
                cr_event got;
                bool any = cr_event_pop(&q, &got);
                assert_int_equal(any, n > 0);
                if (!any) continue;
                cr_event want = ref_pop_least(ref, &n, &got);
                assert_memory_equal(&got, &want, sizeof got);
                ++popped;
            }
            assert_int_equal(q.count, n);
        }
        cr_event got, prev;
        bool first = true;
        while (cr_event_pop(&q, &got)) {
            cr_event want = ref_pop_least(ref, &n, &got);
            assert_memory_equal(&got, &want, sizeof got);
            if (!first) assert_false(cr_event_before(&got, &prev)); /* never earlier than the last */
            prev = got;
            first = false;
            ++popped;
        }
        assert_int_equal(n, 0);
    }
    assert_true(popped > 100000); /* the cases did exercise the queue */
    cr_event_free(w, &q);
    free(ref);
    cr_world_destroy(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pops_match_sorted_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
