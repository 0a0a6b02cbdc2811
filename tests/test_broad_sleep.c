/* Sleeping balls parked out of the per-step grid (src/broad_sleep.c): the
 * same results as one grid of every box (broad.park_off, the path before
 * parking), step by step:
 * - random scenes of spheres in an event-method world with sleep on (small,
 *   large and fast ones, one far away in some: the hashed grid), nine in
 *   ten of them asleep: after the broad phase the same pairs in the same
 *   order, the same balls woken; then the same bits over steps;
 * - the boiling scene (200 balls) settling, falling asleep, and woken by a
 *   ball rolled into it (rolled in at 5 s, the pile largely asleep by
 *   then): the same pairs in the same order and the same state hash after
 *   every step, on 1 and 3 workers; balls were parked and parked balls
 *   woken by the broad phase on the way;
 * - cr_broad_eight_sleep, the settled world's pass of eight slots at once,
 *   over random flags (mostly 1, some 0, a few other values): true only
 *   when each of the eight is a parked sleeping ball (cr_broad_sleeps) and
 *   the eight lie below the bound and the parked array's end, and then
 *   always where the flags are 0 or 1. */
#include <stdlib.h>
#include <string.h>

#include "boiling_scene.h"
#include "test_helpers.h"
#include "world_internal.h"

static double uniform(void *state, double lo, double hi)
{
    uint64_t *r = state;
    *r = *r * 6364136223846793005ull + 1442695040888963407ull;
    return lo + (hi - lo) * (double)(*r >> 11) / 9007199254740992.0;
}

static void same_pairs(const cr_world *a, const cr_world *b)
{
    assert_int_equal(a->broad.pair_count, b->broad.pair_count);
    if (a->broad.pair_count)
        assert_memory_equal(a->broad.pairs, b->broad.pairs, sizeof *a->broad.pairs * a->broad.pair_count);
}

/* Scene `round` of random spheres, nine in ten of them asleep (a ball of
 * its own island: the world parks them, being mostly asleep) but the fast
 * ones. */
static cr_world *spheres(int round, bool park_off)
{
    uint64_t seed = 1000 + (uint64_t)round;
    cr_world_def d = cr_default_world_def();
    d.dt = 0.01;
    d.method = CR_METHOD_EVENT;
    d.gravity = cr_v3(0.0, 0.0, -9.81);
    d.sleep_time = 0.5;
    d.worker_count = 1 + (uint32_t)(round % 3);
    cr_world *w = make_world_def(&d);
    w->broad.park_off = park_off;
    int n = 100 + (int)test_rand(&seed, 0, 300);
    for (int i = 0; i < n; ++i) {
        double r = round % 3 == 0 ? test_rand(&seed, 0.01, 0.3) : 0.05;
        bool fast = round % 2 == 0 && i % 13 == 0; /* odd rounds: the largest box may be a sleeping one */
        cr_vec3 v = fast ? test_rand_vec(&seed, -30, 30) : test_rand_vec(&seed, -0.005, 0.005);
        cr_vec3 x = round % 4 == 1 && i == 0 ? cr_v3(900.0, 0.0, 0.0) : test_rand_vec(&seed, -1.5, 1.5);
        add_sphere(w, x, v, r, 1.0, CR_INERTIA_SOLID, 0.5, 0.3);
    }
    cr_bodies *b = &w->bodies;
    for (uint32_t i = 0; i < b->slot_count; ++i)
        if (test_rand(&seed, 0, 1) < 0.9 && cr_v3_len(b->v[i]) < 0.01) {
            b->asleep[i] = 1;
            b->v[i] = b->w[i] = cr_v3_zero();
            b->island[i] = i;
        }
    assert_int_equal(cr_ball_sleep_rings(w), CR_OK);
    return w;
}

static void random_scenes_list_one_grids_pairs(void **state)
{
    (void)state;
    for (int round = 0; round < 24; ++round) {
        cr_world *one = spheres(round, true), *parked = spheres(round, false);
        cr_world *both[2] = {one, parked};
        for (int k = 0; k < 2; ++k) {
            cr_stage_predict(both[k]);
            assert_int_equal(cr_stage_broad_phase(both[k]), CR_OK);
        }
        assert_true(parked->broad.parked_count > 0);
        same_pairs(one, parked);
        for (uint32_t i = 0; i < one->bodies.slot_count; ++i) assert_int_equal(one->bodies.asleep[i], parked->bodies.asleep[i]);
        /* the rest of that step, and a few more */
        for (int k = 0; k < 2; ++k) {
            assert_int_equal(cr_stage_contacts(both[k]), CR_OK);
            assert_int_equal(cr_stage_events(both[k]), CR_OK);
            assert_int_equal(cr_stage_finish(both[k]), CR_OK);
        }
        assert_true(cr_world_state_hash(one) == cr_world_state_hash(parked));
        for (int s = 0; s < 5; ++s) {
            assert_int_equal(cr_world_step(one), CR_OK);
            assert_int_equal(cr_world_step(parked), CR_OK);
            same_pairs(one, parked);
            assert_true(cr_world_state_hash(one) == cr_world_state_hash(parked));
        }
        cr_world_destroy(one);
        cr_world_destroy(parked);
    }
}

#define BALLS 200
#define HZ 60

static cr_world *pile(uint32_t workers, bool park_off)
{
    cr_world_def wd = boiling_world_def(HZ);
    wd.worker_count = workers;
    wd.sleep_time = 0.5;
    cr_world *w = make_world_def(&wd);
    w->broad.park_off = park_off;
    uint64_t rng = 99;
    assert_int_equal(boiling_scene_add(w, BALLS, uniform, &rng), CR_OK);
    return w;
}

/* A ball rolled at 1 m/s from beside the pile towards its middle. */
static void roll_in(cr_world *w)
{
    double half = boiling_half(BALLS), r = 0.03;
    const cr_surface *s = cr_world_surface(w, 0);
    cr_surface_eval ev;
    cr_vec3 n;
    cr_surface_evaluate(s, -half + 3.0 * r, 0.0, &ev, &n);
    cr_body_def d = cr_default_body_def();
    d.radius = r;
    d.mass = 0.1;
    d.position = cr_v3_madd(ev.s, n, r + 0.2);
    d.velocity = cr_v3(1.0, 0.0, 0.0);
    assert_int_equal(cr_world_add_body(w, &d, NULL), CR_OK);
}

static void pile_wakes_as_one_grid(void **state)
{
    (void)state;
    for (uint32_t workers = 1; workers <= 3; workers += 2) {
        cr_world *one = pile(workers, true), *parked = pile(workers, false);
        uint32_t most_parked = 0, woke = 0, sleeping = 0;
        for (int k = 0; k < 7 * HZ; ++k) {
            if (k == 5 * HZ) {
                roll_in(one);
                roll_in(parked);
            }
            assert_int_equal(cr_world_step(one), CR_OK);
            assert_int_equal(cr_world_step(parked), CR_OK);
            same_pairs(one, parked);
            assert_true(cr_world_state_hash(one) == cr_world_state_hash(parked));
            uint32_t p = parked->broad.parked_count, now = cr_world_stats(parked)->sleeping;
            most_parked = p > most_parked ? p : most_parked;
            woke += now < sleeping; /* parked balls woke */
            sleeping = now;
        }
        assert_true(most_parked >= BALLS / 2);
        assert_true(woke > 0);
        cr_world_destroy(one);
        cr_world_destroy(parked);
    }
}

static void eight_sleep_is_eight_sleeping_slots(void **state)
{
    (void)state;
    enum { N = 64 };
    uint8_t parked[N], asleep[N];
    uint64_t rng = 5;
    int passed = 0;
    for (int round = 0; round < 20000; ++round) {
        bool binary = round % 2 == 0;
        for (int k = 0; k < N; ++k) {
            double u = uniform(&rng, 0.0, 1.0), v = uniform(&rng, 0.0, 1.0);
            parked[k] = u < 0.97 ? 1 : u < 0.99 || binary ? 0 : 2;
            asleep[k] = v < 0.97 ? 1 : v < 0.99 || binary ? 0 : 255;
        }
        cr_broad_phase bp;
        memset(&bp, 0, sizeof bp);
        bp.parked = parked;
        bp.parked_capacity = (uint32_t)uniform(&rng, 40.0, N + 1.0);
        bp.parked_count = round % 7 ? 1u : 0u;
        uint32_t i = (uint32_t)uniform(&rng, 0.0, 60.0), end = (uint32_t)uniform(&rng, 0.0, N + 1.0);
        bool all = i + 8u <= end && i + 8u <= bp.parked_capacity;
        for (uint32_t k = i; all && k < i + 8u; ++k) all = cr_broad_sleeps(&bp, k, asleep[k]);
        bool eight = cr_broad_eight_sleep(&bp, asleep, i, end);
        if (eight) assert_true(all);
        if (binary) assert_int_equal(eight, all);
        passed += eight;
    }
    assert_true(passed > 1000); /* the eight were passed often */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(random_scenes_list_one_grids_pairs),
        cmocka_unit_test(pile_wakes_as_one_grid),
        cmocka_unit_test(eight_sleep_is_eight_sleeping_slots),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
