/* The colouring of the sub-stepped solver's points (src/soft_colour.c),
 * over random heaps: the points of random manifolds among bodies of which
 * some cannot move. Every run is a maximal stretch of points on one pair;
 * every run is in the order once; no colour holds two runs that share a
 * body that moves; each colour's runs keep contact order; a kept colour
 * has at least CR_SOFT_MIN_COLOUR runs; the overflow is whatever is left. */
#include <string.h>

#include "soft_colour.h"
#include "soft_lanes.h"
#include "test_helpers.h"

#define BODIES 400
#define MAX_POINTS 6000

/* Points of random manifolds (1 to 4 points each) between body i and a
 * neighbour within 12 slots (a heap's contacts stay local), or the world
 * (index BODIES); bodies where slot % 7 == 3 cannot move (static, asleep). */
static uint32_t random_heap(uint64_t *seed, cr_soft_body *bodies, cr_soft_point *p)
{
    memset(bodies, 0, sizeof *bodies * (BODIES + 1));
    for (uint32_t i = 0; i < BODIES; ++i) bodies[i].inv_mass = i % 7 == 3 ? 0.0 : 2.0;
    uint32_t n = 0, manifolds = (uint32_t)test_rand(seed, 300, 1400);
    for (uint32_t m = 0; m < manifolds; ++m) {
        uint32_t a = (uint32_t)test_rand(seed, 0, BODIES), b;
        if (test_rand(seed, 0, 1) < 0.1) b = BODIES;
        else {
            b = (uint32_t)(a + test_rand(seed, 1, 12)) % BODIES;
        }
        uint32_t count = (uint32_t)test_rand(seed, 1, 5);
        for (uint32_t k = 0; k < count && n < MAX_POINTS; ++k) {
            memset(&p[n], 0, sizeof p[n]);
            p[n].a = a, p[n].b = b;
            ++n;
        }
    }
    return n;
}

static void test_colours_share_no_moving_body(void **state)
{
    (void)state;
    static cr_soft_body bodies[BODIES + 1];
    static cr_soft_point p[MAX_POINTS];
    static uint32_t mask[BODIES + 1], run_start[MAX_POINTS + 1], order[MAX_POINTS], seen[BODIES + 1];
    static uint8_t colour[MAX_POINTS], used[MAX_POINTS];
    uint64_t seed = 2026;
    uint32_t most_colours = 0, overflow_total = 0;
    for (int trial = 0; trial < 200; ++trial) {
        uint32_t n = random_heap(&seed, bodies, p);
        cr_soft_colours c = {0};
        c.run_start = run_start, c.order = order;
        cr_soft_colour(bodies, BODIES + 1, p, n, mask, colour, &c);
        /* runs: maximal stretches of one pair, covering the points */
        assert_int_equal(run_start[0], 0);
        assert_int_equal(run_start[c.run_count], n);
        for (uint32_t r = 0; r < c.run_count; ++r) {
            assert_true(run_start[r] < run_start[r + 1]);
            for (uint32_t k = run_start[r] + 1; k < run_start[r + 1]; ++k)
                assert_true(p[k].a == p[k - 1].a && p[k].b == p[k - 1].b);
            if (r > 0) assert_false(p[run_start[r]].a == p[run_start[r] - 1].a && p[run_start[r]].b == p[run_start[r] - 1].b);
        }
        /* the order: each run once; colours in contact order */
        memset(used, 0, c.run_count);
        assert_true(c.count <= CR_SOFT_COLOURS);
        for (uint32_t k = 0; k <= c.count; ++k) {
            uint32_t begin = c.start[k], end = k < c.count ? c.start[k + 1] : c.run_count;
            assert_true(begin <= end);
            if (k < c.count) assert_true(end - begin >= CR_SOFT_MIN_COLOUR);
            else overflow_total += end - begin;
            memset(seen, 0, sizeof seen);
            for (uint32_t i = begin; i < end; ++i) {
                uint32_t r = order[i];
                assert_true(r < c.run_count);
                assert_int_equal(used[r], 0);
                used[r] = 1;
                if (i > begin) assert_true(order[i - 1] < r);
                if (k == c.count) continue; /* the overflow is taken serially */
                uint32_t a = p[run_start[r]].a, b = p[run_start[r]].b;
                if (bodies[a].inv_mass > 0.0) {
                    if (seen[a]) fail_msg("trial %d: colour %u holds two runs on moving body %u", trial, k, a);
                    seen[a] = 1;
                }
                if (bodies[b].inv_mass > 0.0) {
                    if (seen[b]) fail_msg("trial %d: colour %u holds two runs on moving body %u", trial, k, b);
                    seen[b] = 1;
                }
            }
        }
        for (uint32_t r = 0; r < c.run_count; ++r) assert_int_equal(used[r], 1);
        most_colours = c.count > most_colours ? c.count : most_colours;
        /* the same input, the same colouring */
        static uint32_t order2[MAX_POINTS];
        cr_soft_colours c2 = c;
        c2.order = order2;
        cr_soft_colour(bodies, BODIES + 1, p, n, mask, colour, &c2);
        assert_int_equal(c2.count, c.count);
        assert_memory_equal(order2, order, sizeof *order * c.run_count);
    }
    print_message("random heaps: up to %u colours kept, %u runs in the overflows\n", (unsigned)most_colours,
                  (unsigned)overflow_total);
    assert_true(most_colours >= 4);
    assert_true(overflow_total > 0);
}

/* Each run takes the lowest colour that no earlier run on one of its
 * moving bodies took (Box2D's greedy rule), in contact order; colours of
 * fewer than CR_SOFT_MIN_COLOUR runs and runs that found none free go to
 * the overflow: against a plain count over the same random heaps, as
 * manifolds (cr_soft_colour), each point a run (cr_soft_colour_pairs), and
 * with the masks set by the caller (cr_soft_colour_masked, the sphere
 * solver's), which must give the same colouring; and with a smaller
 * smallest colour, 8 (cr_soft_colour_min, the sphere solver's blocks). */
static void section_of_runs(const cr_soft_colours *c, uint32_t *section)
{
    for (uint32_t k = 0; k <= c->count; ++k) {
        uint32_t end = k < c->count ? c->start[k + 1] : c->run_count;
        for (uint32_t i = c->start[k]; i < end; ++i) section[c->order[i]] = k;
    }
}

static void test_greedy_lowest_free_colour(void **state)
{
    (void)state;
    static cr_soft_body bodies[BODIES + 1];
    static cr_soft_point p[MAX_POINTS];
    static uint32_t mask[BODIES + 1], run_start[MAX_POINTS + 1], order[MAX_POINTS], section[MAX_POINTS];
    static uint32_t first[MAX_POINTS], expected[MAX_POINTS], taken[BODIES + 1][CR_SOFT_COLOURS];
    static uint8_t colour[MAX_POINTS];
    uint64_t seed = 4242;
    uint32_t overflowed = 0, small_kept = 0;
    for (int trial = 0; trial < 100; ++trial) {
        uint32_t n = random_heap(&seed, bodies, p);
        for (int kind = 0; kind < 4; ++kind) {
            bool manifolds = kind == 0;
            uint32_t min_runs = kind == 3 ? 8 : CR_SOFT_MIN_COLOUR;
            /* the reference: the runs, each one's greedy colour by a scan */
            uint32_t runs = 0, size[CR_SOFT_COLOURS + 1] = {0};
            memset(taken, 0, sizeof taken);
            for (uint32_t k = 0; k < n; ++k) {
                if (manifolds && k > 0 && p[k].a == p[k - 1].a && p[k].b == p[k - 1].b) continue;
                uint32_t g = 0, ab[2] = {p[k].a, p[k].b};
                while (g < CR_SOFT_COLOURS && ((bodies[ab[0]].inv_mass > 0.0 && taken[ab[0]][g]) ||
                                               (bodies[ab[1]].inv_mass > 0.0 && taken[ab[1]][g])))
                    ++g;
                if (g < CR_SOFT_COLOURS) taken[ab[0]][g] = taken[ab[1]][g] = 1;
                first[runs] = k;
                expected[runs++] = g;
                size[g]++;
            }
            uint32_t kept = 0, renumber[CR_SOFT_COLOURS + 1];
            for (uint32_t g = 0; g < CR_SOFT_COLOURS; ++g)
                renumber[g] = size[g] >= min_runs ? kept++ : UINT32_MAX;
            for (uint32_t g = 0; g <= CR_SOFT_COLOURS; ++g)
                if (g == CR_SOFT_COLOURS || renumber[g] == UINT32_MAX) renumber[g] = kept;
            cr_soft_colours c = {0};
            c.run_start = run_start, c.order = order;
            if (kind == 0) cr_soft_colour(bodies, BODIES + 1, p, n, mask, colour, &c);
            else if (kind == 1)
                cr_soft_colour_pairs(&bodies->inv_mass, sizeof *bodies, BODIES + 1, p, sizeof *p, n, false, mask,
                                     colour, &c);
            else {
                for (uint32_t i = 0; i <= BODIES; ++i) mask[i] = bodies[i].inv_mass > 0.0 ? 0u : CR_SOFT_FIXED;
                if (kind == 2) cr_soft_colour_masked(p, sizeof *p, n, false, mask, colour, &c);
                else cr_soft_colour_min(p, sizeof *p, n, false, min_runs, mask, colour, &c);
            }
            assert_int_equal(c.run_count, runs);
            assert_int_equal(c.count, kept);
            for (uint32_t g = 0; kind == 3 && g < CR_SOFT_COLOURS; ++g)
                small_kept += size[g] >= 8 && size[g] < CR_SOFT_MIN_COLOUR;
            section_of_runs(&c, section);
            for (uint32_t r = 0; r < runs; ++r) {
                assert_int_equal(run_start[r], first[r]);
                if (section[r] != renumber[expected[r]])
                    fail_msg("trial %d, kind %d: run %u in section %u, greedy colour %u (section %u)", trial, kind, r,
                             section[r], expected[r], renumber[expected[r]]);
                overflowed += section[r] == kept;
            }
        }
    }
    print_message("random heaps: %u runs in the overflows, %u colours of 8 to 63 runs kept\n", (unsigned)overflowed,
                  (unsigned)small_kept);
    assert_true(overflowed > 0);
    assert_true(small_kept > 0); /* the smaller smallest colour kept some */
}

/* The AVX2 lanes' plan (src/soft_lanes.c) over the same random heaps: each
 * kept colour's entries are the colour's runs regrouped (the same runs);
 * its blocks come first, four runs of one length each (the block's len),
 * naming their runs' first points and bodies, their rows consecutive from
 * 0; what is left of a colour holds fewer than four runs of any length;
 * the overflow keeps its order. */
static void test_lanes_plan(void **state)
{
    (void)state;
    static cr_soft_body bodies[BODIES + 1];
    static cr_soft_point p[MAX_POINTS];
    static uint32_t mask[BODIES + 1], run_start[MAX_POINTS + 1], order[MAX_POINTS], lanes_order[MAX_POINTS];
    static uint8_t colour[MAX_POINTS], in_colour[MAX_POINTS];
    static cr_soft_block blocks[MAX_POINTS / 4 + 1];
    uint64_t seed = 77;
    uint32_t total_blocks = 0;
    for (int trial = 0; trial < 200; ++trial) {
        uint32_t n = random_heap(&seed, bodies, p);
        cr_soft_colours c = {0};
        c.run_start = run_start, c.order = order;
        cr_soft_colour(bodies, BODIES + 1, p, n, mask, colour, &c);
        cr_soft_lanes l = {0};
        l.blocks = blocks, l.order = lanes_order;
        cr_soft_lanes_plan(&l, p, &c, NULL);
        assert_int_equal(l.colours, c.count);
        uint32_t row = 0, nblocks = 0;
        for (uint32_t k = 0; k < c.count; ++k) {
            uint32_t begin = c.start[k], end = c.start[k + 1];
            memset(in_colour, 0, c.run_count);
            for (uint32_t i = begin; i < end; ++i) in_colour[order[i]] = 1;
            for (uint32_t i = begin; i < end; ++i) {
                assert_int_equal(in_colour[lanes_order[i]], 1);
                in_colour[lanes_order[i]] = 2; /* each once */
            }
            assert_int_equal(l.block_start[k], nblocks);
            uint32_t rest = cr_soft_lanes_rest(&l, &c, k);
            assert_true(rest <= end);
            for (uint32_t i = l.block_start[k]; i < l.block_start[k + 1]; ++i) {
                const cr_soft_block *b = &blocks[i];
                assert_int_equal(b->row, row);
                row += b->len;
                for (int ln = 0; ln < 4; ++ln) {
                    uint32_t r = lanes_order[begin + 4 * (i - l.block_start[k]) + (uint32_t)ln];
                    assert_int_equal(run_start[r + 1] - run_start[r], b->len);
                    assert_int_equal(b->first[ln], run_start[r]);
                    assert_int_equal(b->a[ln], p[run_start[r]].a);
                    assert_int_equal(b->b[ln], p[run_start[r]].b);
                }
            }
            uint32_t left[9] = {0};
            for (uint32_t i = rest; i < end; ++i) {
                uint32_t len = run_start[lanes_order[i] + 1] - run_start[lanes_order[i]];
                if (len <= 8) left[len]++;
            }
            for (int len = 1; len <= 8; ++len) assert_true(left[len] < 4);
            nblocks = l.block_start[k + 1];
            total_blocks += l.block_start[k + 1] - l.block_start[k];
        }
        assert_int_equal(l.block_start[c.count], nblocks);
        assert_memory_equal(lanes_order + c.start[c.count], order + c.start[c.count],
                            sizeof *order * (c.run_count - c.start[c.count]));
    }
    print_message("random heaps: %u blocks of four runs\n", (unsigned)total_blocks);
    assert_true(total_blocks > 1000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_colours_share_no_moving_body),
        cmocka_unit_test(test_greedy_lowest_free_colour),
        cmocka_unit_test(test_lanes_plan),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
