/* cr_box_sweep_pairs (src/box_sweep.c): every overlapping pair of boxes
 * reported exactly once, and no other pair, against a comparison of every
 * two boxes: random fields of small boxes with some tall and wide ones,
 * boxes that only touch, boxes all at one y (one strip), a subset of the
 * boxes, none and one. */
#include <stdlib.h>
#include <string.h>

#include "box_sweep.h"
#include "broad_phase.h"
#include "test_helpers.h"
#include "world_internal.h"

#define MAX_BOXES 700

typedef struct counts {
    uint32_t n;
    uint8_t seen[MAX_BOXES][MAX_BOXES];
    uint32_t calls;
} counts;

static void note(uint32_t a, uint32_t b, void *ctx)
{
    counts *c = ctx;
    assert_true(a < c->n && b < c->n && a != b);
    uint32_t i = a < b ? a : b, j = a < b ? b : a;
    if (c->seen[i][j] < 255) c->seen[i][j]++;
    c->calls++;
}

static uint64_t rng = 12345;
static double uniform(double lo, double hi)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return lo + (hi - lo) * (double)(rng >> 11) / 9007199254740992.0;
}

/* The sweep over ids[0 .. m) against every two of them. */
static void check(cr_world *w, cr_box_sweep *s, const cr_vec3 *box, const uint32_t *ids, uint32_t m, uint32_t n,
                  uint32_t *overlapping)
{
    static counts c;
    memset(&c, 0, sizeof c);
    c.n = n;
    assert_true(cr_box_sweep_pairs(w, s, box, ids, m, note, &c));
    uint32_t expect = 0;
    for (uint32_t a = 0; a < m; ++a)
        for (uint32_t b = a + 1; b < m; ++b) {
            uint32_t i = ids[a] < ids[b] ? ids[a] : ids[b], j = ids[a] < ids[b] ? ids[b] : ids[a];
            bool o = cr_box_overlap(box[2 * i], box[2 * i + 1], box[2 * j], box[2 * j + 1]);
            assert_int_equal(c.seen[i][j], o ? 1 : 0);
            expect += o;
        }
    assert_int_equal(c.calls, expect);
    *overlapping = expect;
}

static void random_field(cr_vec3 *box, uint32_t n, double side, double size, double tall_share)
{
    for (uint32_t i = 0; i < n; ++i) {
        cr_vec3 lo = cr_v3(uniform(-side, side), uniform(-side, side), uniform(-0.2, 0.2));
        cr_vec3 e = cr_v3(uniform(0.2, 1.0) * size, uniform(0.2, 1.0) * size, uniform(0.2, 1.0) * size);
        double r = uniform(0.0, 1.0);
        if (r < tall_share) e.y *= 40.0;          /* tall: over many strips */
        else if (r < 2.0 * tall_share) e.x *= 40.0; /* wide: a long sweep */
        box[2 * i] = lo;
        box[2 * i + 1] = cr_v3_add(lo, e);
    }
}

static void test_random_fields(void **state)
{
    (void)state;
    cr_world *w = make_world(cr_v3(0.0, 0.0, -9.81), 0.01, CR_METHOD_EVENT);
    cr_box_sweep s = {0};
    static cr_vec3 box[2 * MAX_BOXES];
    uint32_t ids[MAX_BOXES];
    const double tall_share[] = {0.0, 0.01, 0.05, 0.3};
    uint32_t total = 0;
    for (int round = 0; round < 40; ++round) {
        uint32_t n = 1 + (uint32_t)uniform(0.0, MAX_BOXES - 1);
        double side = uniform(1.0, 20.0), size = uniform(0.05, 1.0);
        random_field(box, n, side, size, tall_share[round % 4]);
        uint32_t o;
        for (uint32_t i = 0; i < n; ++i) ids[i] = n - 1 - i; /* any order */
        check(w, &s, box, ids, n, n, &o);
        total += o;
        /* every other box only */
        uint32_t m = 0;
        for (uint32_t i = 0; i < n; i += 2) ids[m++] = i;
        check(w, &s, box, ids, m, n, &o);
    }
    assert_true(total > 1000); /* the fields do overlap */
    cr_box_sweep_free(w, &s);
    cr_world_destroy(w);
}

/* Boxes on a lattice that touch their neighbours face to face, edge to
 * edge and corner to corner (overlap is closed), with strips' bounds among
 * their faces; then all at one y (no strip height). */
static void test_touching_and_flat(void **state)
{
    (void)state;
    cr_world *w = make_world(cr_v3(0.0, 0.0, -9.81), 0.01, CR_METHOD_EVENT);
    cr_box_sweep s = {0};
    static cr_vec3 box[2 * MAX_BOXES];
    uint32_t ids[MAX_BOXES], n = 0, o;
    for (int i = 0; i < 20; ++i)
        for (int j = 0; j < 20; ++j) {
            box[2 * n] = cr_v3(0.25 * i, 0.25 * j, 0.0);
            box[2 * n + 1] = cr_v3(0.25 * i + 0.25, 0.25 * j + 0.25, 1.0);
            ids[n] = n;
            n++;
        }
    check(w, &s, box, ids, n, n, &o);
    assert_int_equal(o, 2 * 20 * 19 + 2 * 19 * 19); /* 4 side and 4 corner neighbours, each pair once */
    for (uint32_t i = 0; i < n; ++i) box[2 * i].y = box[2 * i + 1].y = 3.0;
    check(w, &s, box, ids, n, n, &o);
    check(w, &s, box, ids, 1, n, &o);
    assert_int_equal(o, 0);
    check(w, &s, box, ids, 0, n, &o);
    assert_int_equal(o, 0);
    cr_box_sweep_free(w, &s);
    cr_world_destroy(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_fields),
        cmocka_unit_test(test_touching_and_flat),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
