/* Broad phase invariant: over random scenes of spheres (small, large and
 * fast ones), the grid finds exactly the overlapping pairs brute force finds,
 * and cr_world_max_overlap agrees with the all-pairs maximum. */
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pairs_match_brute_force),
        cmocka_unit_test(test_dense_and_hashed_agree),
        cmocka_unit_test(test_max_overlap_matches_brute_force),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
