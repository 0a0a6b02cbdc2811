/* The ball pit's impulse step over the workers: the broad phase's pair
 * search (cr_broad_build) and the events stage's first round (each broad
 * pair's and each body-plane pair's impact time, pushed afterwards in the
 * old order) run as work items, yet the bodies end with the same bits, and
 * the same impacts, for 1, 2 and 3 threads and for a task system that runs
 * the items backwards. */
#include <string.h>

#include "test_helpers.h"

/* 1600 balls r = 0.05 dropped from a jittered lattice into a box of five
 * planes (bench/ball_pit.c, smaller): two work items of the pair search,
 * several of the first round, and thousands of impacts while they land. */
static cr_world *pit(uint32_t workers, int *enqueued)
{
    cr_world_def d = cr_default_world_def();
    d.dt = 1.0 / 240.0;
    d.projection_passes = 4;
    test_use_tasks(&d, workers, enqueued);
    cr_world *w = make_world_def(&d);
    const double r = 0.05, spacing = 0.11, side = 1.3;
    add_plane(w, cr_v3(0, 0, 0), cr_v3(0, 0, 1));
    add_plane(w, cr_v3(0, 0, 0), cr_v3(1, 0, 0));
    add_plane(w, cr_v3(side, 0, 0), cr_v3(-1, 0, 0));
    add_plane(w, cr_v3(0, 0, 0), cr_v3(0, 1, 0));
    add_plane(w, cr_v3(0, side, 0), cr_v3(0, -1, 0));
    uint64_t seed = 17;
    int per_row = (int)(side / spacing);
    for (int i = 0; i < 1600; ++i) {
        int layer = i / (per_row * per_row), in = i % (per_row * per_row);
        cr_vec3 x = cr_v3(r + 0.005 + spacing * (in % per_row), r + 0.005 + spacing * (in / per_row),
                          r + 0.01 + spacing * layer);
        add_sphere(w, cr_v3_add(x, test_rand_vec(&seed, -0.004, 0.004)), cr_v3_zero(), r, 0.5, CR_INERTIA_SOLID, 0.5,
                   0.3);
    }
    return w;
}

static void test_same_bits_any_workers(void **state)
{
    (void)state;
    int enqueued = 0;
    cr_world *w[4] = {pit(1, NULL), pit(2, NULL), pit(3, NULL), pit(2, &enqueued)};
    uint64_t impacts[4] = {0};
    uint32_t most_pairs = 0;
    for (int s = 0; s < 150; ++s)
        for (int k = 0; k < 4; ++k) {
            assert_int_equal(cr_world_step(w[k]), CR_OK);
            impacts[k] += cr_world_stats(w[k])->events;
            uint32_t pairs = cr_world_stats(w[k])->candidate_pairs;
            most_pairs = pairs > most_pairs ? pairs : most_pairs;
        }
    print_message("pit threads: %llu impacts, up to %u broad pairs a step\n", (unsigned long long)impacts[0],
                  (unsigned)most_pairs);
    assert_true(impacts[0] > 1000);
    assert_true(most_pairs > 2 * 2048); /* the first round took several work items */
    assert_true(enqueued > 0);
    for (int k = 1; k < 4; ++k) {
        assert_true(impacts[k] == impacts[0]);
        for (uint32_t i = 0; i < cr_world_body_capacity(w[0]); ++i) {
            cr_body_state s0 = state_of(w[0], cr_world_body_at(w[0], i));
            cr_body_state sk = state_of(w[k], cr_world_body_at(w[k], i));
            if (memcmp(&s0, &sk, sizeof s0) != 0) fail_msg("ball %u differs in world %d", i, k);
        }
    }
    for (int k = 0; k < 4; ++k) cr_world_destroy(w[k]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_bits_any_workers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
