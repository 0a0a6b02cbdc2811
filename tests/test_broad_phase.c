/* Broad phase invariant: over random scenes of spheres (small, large and
 * fast ones), the grid finds exactly the overlapping pairs brute force finds,
 * a query finds exactly the boxes brute force finds, and
 * cr_world_max_overlap agrees with the all-pairs maximum; over the
 * workers (1, 2, 3 threads, a task system that runs the items backwards) it
 * takes the same boxes and lists the same pairs in the same order; the
 * overflow list is indexed again by its rule. */
#include <stdlib.h>
#include <string.h>

#include "test_helpers.h"
#include "world_internal.h"

static void test_pairs_match_brute_force(void **state)
{
    (void)state;
    uint64_t seed = 99;
    for (int round = 0; round < 40; ++round) {
        cr_world *w = make_world(cr_v3_zero(), 0.01, CR_METHOD_IMPULSE);
        int n = 50 + (int)test_rand(&seed, 0, 400);
        for (int i = 0; i < n; ++i) {
            double r = round % 3 == 0 ? test_rand(&seed, 0.01, 0.5) : 0.05;
            cr_vec3 v = i % 17 == 0 ? test_rand_vec(&seed, -300, 300) : test_rand_vec(&seed, -1, 1);
            add_sphere(w, test_rand_vec(&seed, -2, 2), v, r, 1.0, CR_INERTIA_SOLID, 0.5, 0.3);
        }
        if (round % 5 == 0) /* a few removed bodies leave empty slots */
            for (int i = 0; i < n; i += 7) assert_int_equal(cr_world_remove_body(w, cr_world_body_at(w, i)), CR_OK);
        cr_stage_predict(w);
        assert_int_equal(cr_stage_broad_phase(w), CR_OK);
        const cr_broad_phase *bp = &w->broad;
        /* Brute force over the same boxes. */
        long expected = 0;
        for (uint32_t i = 0; i < (uint32_t)n; ++i)
            for (uint32_t j = i + 1; j < (uint32_t)n; ++j)
                if (cr_slot_alive(&w->bodies, i) && cr_slot_alive(&w->bodies, j) &&
                    cr_box_overlap(bp->lo[i], bp->hi[i], bp->lo[j], bp->hi[j])) {
                    ++expected;
                    bool found = false;
                    for (uint32_t k = 0; k < bp->pair_count && !found; ++k)
                        found = bp->pairs[k].a == i && bp->pairs[k].b == j;
                    assert_true(found);
                }
        assert_int_equal(bp->pair_count, expected); /* and nothing twice */
        cr_world_destroy(w);
    }
}

/* The dense grid (cells of the occupied box) and the hashed one (taken when
 * one far body spreads the cells too thin) list the same pairs in the same
 * order: the physics does not depend on which one ran. */
static void test_dense_and_hashed_agree(void **state)
{
    (void)state;
    uint64_t seed = 7;
    for (int round = 0; round < 10; ++round) {
        cr_world *w = make_world(cr_v3_zero(), 0.01, CR_METHOD_IMPULSE);
        int n = 200 + (int)test_rand(&seed, 0, 400);
        for (int i = 0; i < n; ++i)
            add_sphere(w, test_rand_vec(&seed, -0.6, 0.6), test_rand_vec(&seed, -1, 1), 0.05, 1.0, CR_INERTIA_SOLID, 0.5,
                       0.3);
        cr_stage_predict(w);
        assert_int_equal(cr_stage_broad_phase(w), CR_OK);
        assert_true(w->broad.dense);
        uint32_t count = w->broad.pair_count;
        cr_broad_pair *dense = malloc(sizeof *dense * (count + 1));
        memcpy(dense, w->broad.pairs, sizeof *dense * count);
        add_sphere(w, cr_v3(1e4, -1e4, 1e4), cr_v3_zero(), 0.05, 1.0, CR_INERTIA_SOLID, 0.5, 0.3);
        cr_stage_predict(w);
        assert_int_equal(cr_stage_broad_phase(w), CR_OK);
        assert_false(w->broad.dense);
        assert_int_equal(w->broad.pair_count, count);
        for (uint32_t k = 0; k < count; ++k) {
            assert_int_equal(w->broad.pairs[k].a, dense[k].a);
            assert_int_equal(w->broad.pairs[k].b, dense[k].b);
        }
        free(dense);
        cr_world_destroy(w);
    }
}

static void test_max_overlap_matches_brute_force(void **state)
{
    (void)state;
    uint64_t seed = 5;
    for (int round = 0; round < 20; ++round) {
        cr_world *w = make_world(cr_v3_zero(), 0.01, CR_METHOD_IMPULSE);
        int n = 300;
        for (int i = 0; i < n; ++i)
            add_sphere(w, test_rand_vec(&seed, -1, 1), cr_v3_zero(), test_rand(&seed, 0.01, 0.1), 1.0,
                       CR_INERTIA_SOLID, 0.5, 0.3);
        double worst = 0.0;
        for (int i = 0; i < n; ++i)
            for (int j = i + 1; j < n; ++j) {
                cr_body_state a = state_of(w, cr_world_body_at(w, i)), b = state_of(w, cr_world_body_at(w, j));
                cr_body_def da, db;
                cr_body_get_def(w, cr_world_body_at(w, i), &da);
                cr_body_get_def(w, cr_world_body_at(w, j), &db);
                worst = fmax(worst, cr_overlap_sphere_sphere(a.position, da.radius, b.position, db.radius, NULL));
            }
        assert_near(cr_world_max_overlap(w, NULL, NULL), worst, 0.0);
        cr_world_destroy(w);
    }
}

/* The boxes over the workers (cr_broad_phase_boxes, items of 4,096 bodies,
 * each worker's largest radius) are the same bits, and the pair search
 * over them (cr_broad_build: work items of 1024
 * bodies, their lists joined in order) lists the same pairs in the same
 * order as one pass, with 2 and 3 threads and with a task system that runs
 * the items backwards, dense and hashed, on the first build (each item's
 * room too small: searched again) and on the next ones (room learnt).
 * From 4,096 bodies the index's per-box passes run over the workers too
 * (index_boxes: each box's state and cell, the cells' range, the large
 * boxes, three fast bodies in different items, listed in slot order). */
static void test_threads_list_the_same_pairs(void **state)
{
    (void)state;
    uint64_t seed = 21;
    for (int round = 0; round < 4; ++round) {
        /* from round 2 over 4,096 bodies: the boxes, too, over the workers */
        int n = (round < 2 ? 2500 : 4200) + (int)test_rand(&seed, 0, 2000);
        uint64_t start = seed;
        cr_world *w[4];
        int enqueued = 0;
        for (int k = 0; k < 4; ++k) {
            cr_world_def d = cr_default_world_def();
            d.gravity = cr_v3_zero();
            d.dt = 0.01;
            test_use_tasks(&d, k < 3 ? (uint32_t)k + 1 : 2, k == 3 ? &enqueued : NULL);
            w[k] = make_world_def(&d);
            seed = start;
            for (int i = 0; i < n; ++i) {
                cr_vec3 x = test_rand_vec(&seed, -0.6, 0.6), v = test_rand_vec(&seed, -1, 1);
                /* from round 2 three fast ones in different items: large boxes, listed in slot order */
                if (round >= 2 && (i == 5 || i == 4100 || i == n - 2)) v = cr_v3(150.0, 0.0, 0.0);
                add_sphere(w[k], x, v, i == n - 1 ? 0.07 : 0.05, 1.0, CR_INERTIA_SOLID, 0.5, 0.3); /* the largest last */
            }
            if (round % 2) /* a far body: the hashed grid */
                add_sphere(w[k], cr_v3(1e4, -1e4, 1e4), cr_v3_zero(), 0.05, 1.0, CR_INERTIA_SOLID, 0.5, 0.3);
        }
        for (int build = 0; build < 3; ++build) {
            for (int k = 0; k < 4; ++k) {
                if (build == 2) /* denser: more pairs than the rooms learnt */
                    for (uint32_t i = 0; i < (uint32_t)n; ++i) {
                        cr_body_state st = state_of(w[k], cr_world_body_at(w[k], i));
                        st.position = cr_v3_scale(st.position, 0.8);
                        assert_int_equal(cr_body_set_state(w[k], cr_world_body_at(w[k], i), &st), CR_OK);
                    }
                cr_stage_predict(w[k]);
                assert_int_equal(cr_stage_broad_phase(w[k]), CR_OK);
                assert_true(w[k]->broad.dense == !(round % 2));
            }
            const cr_broad_phase *b0 = &w[0]->broad;
            assert_true(b0->pair_count > 3 * 1024); /* rooms of 64 a work item overflow at first */
            for (int k = 1; k < 4; ++k) {
                assert_memory_equal(w[k]->broad.lo, b0->lo, sizeof *b0->lo * b0->n);
                assert_memory_equal(w[k]->broad.hi, b0->hi, sizeof *b0->hi * b0->n);
                assert_memory_equal(&w[k]->broad.size_hint, &b0->size_hint, sizeof b0->size_hint);
                assert_int_equal(w[k]->broad.pair_count, b0->pair_count);
                assert_memory_equal(w[k]->broad.pairs, b0->pairs, sizeof *b0->pairs * b0->pair_count);
                assert_memory_equal(w[k]->broad.state, b0->state, sizeof *b0->state * b0->n);
                assert_int_equal(w[k]->broad.large_count, b0->large_count);
                assert_memory_equal(w[k]->broad.large, b0->large, sizeof *b0->large * b0->large_count);
            }
            assert_int_equal(b0->large_count, round >= 2 ? 3 : 0);
        }
        assert_true(enqueued >= 3); /* the task system ran the search */
        for (int k = 0; k < 4; ++k) cr_world_destroy(w[k]);
    }
}

/* A grid query (cr_broad_query: the events stage's, after every impact)
 * lists exactly the bodies whose boxes overlap the query box, each once,
 * but the one left out, as brute force does: over dense and hashed grids,
 * query boxes of every size, some reaching past the grid's edges or
 * wholly outside it, and bodies grown out of their cells (the overflow
 * list) on the way. */
static void test_query_matches_brute_force(void **state)
{
    (void)state;
    uint64_t seed = 31;
    for (int round = 0; round < 12; ++round) {
        cr_world *w = make_world(cr_v3_zero(), 0.01, CR_METHOD_IMPULSE);
        int n = 300 + (int)test_rand(&seed, 0, 500);
        for (int i = 0; i < n; ++i)
            add_sphere(w, test_rand_vec(&seed, -0.8, 0.8), test_rand_vec(&seed, -1, 1), 0.05, 1.0, CR_INERTIA_SOLID,
                       0.5, 0.3);
        if (round % 3 == 2) /* a far body: the hashed grid */
            add_sphere(w, cr_v3(1e4, -1e4, 1e4), cr_v3_zero(), 0.05, 1.0, CR_INERTIA_SOLID, 0.5, 0.3);
        cr_stage_predict(w);
        assert_int_equal(cr_stage_broad_phase(w), CR_OK);
        cr_broad_phase *bp = &w->broad;
        assert_true(bp->dense == (round % 3 != 2));
        uint32_t slots = w->bodies.slot_count;
        for (int q = 0; q < 300; ++q) {
            if (q % 10 == 0) { /* a body's box grows: it may leave its cell */
                uint32_t i = (uint32_t)test_rand(&seed, 0, slots - 1);
                cr_vec3 d = test_rand_vec(&seed, -0.2, 0.2);
                assert_true(cr_broad_extend(w, bp, i, cr_v3_add(bp->lo[i], d), cr_v3_add(bp->hi[i], d)));
            }
            cr_vec3 c = test_rand_vec(&seed, -1.2, 1.2);
            double e = q % 50 == 0 ? 40.0 : test_rand(&seed, 0.0, q % 4 ? 0.2 : 1.0);
            cr_vec3 lo = cr_v3_sub(c, cr_v3(e, test_rand(&seed, 0.0, e), e)), hi = cr_v3_add(c, cr_v3(e, e, e));
            uint32_t skip = (uint32_t)test_rand(&seed, 0, slots - 1);
            uint32_t k = cr_broad_query(w, bp, lo, hi, skip, &w->query, &w->query_capacity, w->bodies.visit,
                                        ++w->visit_mark);
            uint32_t expected = 0;
            for (uint32_t j = 0; j < slots; ++j) {
                if (j == skip || !cr_box_overlap(lo, hi, bp->lo[j], bp->hi[j])) continue;
                ++expected;
                uint32_t found = 0;
                for (uint32_t m = 0; m < k; ++m) found += w->query[m] == j;
                assert_int_equal(found, 1);
            }
            assert_int_equal(k, expected);
        }
        cr_world_destroy(w);
    }
}

/* The overflow list's rule, seen from outside: cr_broad_extend indexes the
 * grid again exactly when a body has just gone on a list of over 64 that is
 * longer than n/32 or that the queries since the last index have scanned
 * more than CR_BROAD_REINDEX_WORK n entries of (the one loop queries once
 * after each extend: the work is the list's length at each extend). Here
 * few bodies leave their cells, so the scans' rule fires long before n/32;
 * the queries after each index still find exactly the overlapping boxes. */
static void test_overflow_scans_bounded(void **state)
{
    (void)state;
    uint64_t seed = 77;
    cr_world *w = make_world(cr_v3_zero(), 0.01, CR_METHOD_IMPULSE);
    for (int i = 0; i < 4000; ++i) {
        cr_vec3 x = test_rand_vec(&seed, -1.6, 1.6);
        x.z *= 0.1;
        add_sphere(w, x, cr_v3_zero(), 0.02, 1.0, CR_INERTIA_SOLID, 0.5, 0.3);
    }
    cr_stage_predict(w);
    assert_int_equal(cr_stage_broad_phase(w), CR_OK);
    cr_broad_phase *bp = &w->broad;
    uint32_t slots = w->bodies.slot_count, n = bp->n;
    uint64_t work = 0, limit = (uint64_t)CR_BROAD_REINDEX_WORK * n;
    int by_work = 0;
    for (int op = 0; op < 12000; ++op) {
        uint32_t i = (uint32_t)test_rand(&seed, 0, slots - 1);
        /* one in 40 moves 0.3 along x (out of its cell), the rest stay */
        cr_vec3 d = op % 40 == 0 ? cr_v3(-0.3, 0.0, 0.0) : cr_v3_zero();
        uint32_t before = bp->overflow_count;
        work += before;
        assert_true(cr_broad_extend(w, bp, i, cr_v3_add(bp->lo[i], d), cr_v3_add(bp->hi[i], d)));
        uint32_t after = bp->overflow_count;
        bool fires = before + 1 > 64 && (before + 1 > n / 32 || work > limit);
        if (after < before) { /* indexed: only when the rule says, after a push */
            assert_true(fires);
            by_work += before + 1 <= n / 32;
            work = 0;
            assert_int_equal(after, 0);
        } else if (after == before + 1) { /* pushed and kept: the rule said no */
            assert_false(fires);
        }
        if (op % 20 != 0) continue;
        cr_vec3 lo = cr_v3_sub(bp->lo[i], cr_v3(0.05, 0.05, 0.05)), hi = cr_v3_add(bp->hi[i], cr_v3(0.05, 0.05, 0.05));
        uint32_t k = cr_broad_query(w, bp, lo, hi, i, &w->query, &w->query_capacity, w->bodies.visit, ++w->visit_mark);
        uint32_t expected = 0;
        for (uint32_t j = 0; j < slots; ++j) {
            if (j == i || !cr_box_overlap(lo, hi, bp->lo[j], bp->hi[j])) continue;
            ++expected;
            uint32_t found = 0;
            for (uint32_t m = 0; m < k; ++m) found += w->query[m] == j;
            assert_int_equal(found, 1);
        }
        assert_int_equal(k, expected);
    }
    assert_true(by_work >= 2); /* the scans' rule fired, before n/32 */
    cr_world_destroy(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pairs_match_brute_force),
        cmocka_unit_test(test_dense_and_hashed_agree),
        cmocka_unit_test(test_max_overlap_matches_brute_force),
        cmocka_unit_test(test_threads_list_the_same_pairs),
        cmocka_unit_test(test_query_matches_brute_force),
        cmocka_unit_test(test_overflow_scans_bounded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
