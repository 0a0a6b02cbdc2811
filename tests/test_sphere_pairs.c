/* The sphere path's broad and narrow phases (src/sphere_pairs.c: the pair
 * list with a skin; src/sphere_contacts.c: the points over the workers;
 * docs/physics/substep.md, "Spheres"):
 * - every step, the pairs taken from the list are exactly the pairs of
 *   bodies whose boxes overlap, found by testing all n (n - 1) / 2 of them,
 *   in random worlds of balls of mixed sizes thrown about, with static
 *   balls, balls removed and added, and a ball moved by hand;
 * - a pile of 2,304 balls (several work items of pairs and of bodies) gives
 *   the same bits on 1, 2 and 3 workers and a task system that runs the
 *   items backwards. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rigid.h"
#include "rigid_helpers.h"
#include "sphere_pairs.h"

static int pair_order(const void *x, const void *y)
{
    const cr_broad_pair *p = x, *q = y;
    if (p->a != q->a) return p->a < q->a ? -1 : 1;
    return p->b < q->b ? -1 : p->b > q->b;
}

static bool empty_box(cr_vec3 lo, cr_vec3 hi) { return !(lo.x <= hi.x); }

/* The step's pairs (w->broad), sorted, against every pair of overlapping
 * boxes of the step (w->broad.lo, hi) found by brute force; returns how
 * many there are. */
static uint32_t check_pairs(cr_world *w, cr_broad_pair *found, cr_broad_pair *all, uint32_t room)
{
    const cr_broad_phase *bp = &w->broad;
    uint32_t n = w->bodies.slot_count, count = 0;
    for (uint32_t i = 0; i < n; ++i)
        for (uint32_t j = i + 1; j < n; ++j) {
            if (empty_box(bp->lo[i], bp->hi[i]) || empty_box(bp->lo[j], bp->hi[j]) ||
                !cr_box_overlap(bp->lo[i], bp->hi[i], bp->lo[j], bp->hi[j]))
                continue;
            assert_true(count < room);
            all[count++] = (cr_broad_pair){i, j};
        }
    assert_int_equal(bp->pair_count, count);
    memcpy(found, bp->pairs, sizeof *found * count);
    qsort(found, count, sizeof *found, pair_order);
    for (uint32_t k = 0; k < count; ++k) {
        assert_int_equal(found[k].a, all[k].a);
        assert_int_equal(found[k].b, all[k].b);
    }
    return count;
}

/* Random worlds: balls of radius 5 to 60 mm (and a static one of 0.45 m:
 * a box larger than the grid's cells) in a box of five planes, some static,
 * thrown at up to 3 m/s; along the run balls are removed and added (slots
 * emptied, filled again and added) and one is moved by hand. Every step the
 * pairs are the brute force's; the list is built again on fewer than half
 * the steps, and after the jump. */
static void test_listed_pairs_are_the_overlapping_boxes(void **state)
{
    (void)state;
    enum { BALLS = 220, STEPS = 240, ROOM = 40000 };
    static cr_broad_pair found[ROOM], all[ROOM];
    for (uint64_t seed = 1; seed <= 3; ++seed) {
        cr_world_def def = substep_world_def(4, 120.0);
        cr_world *w = make_world_def(&def);
        add_plane(w, cr_v3_zero(), cr_v3(0, 0, 1));
        add_side_walls(w, 0.6);
        uint64_t s = seed * 7919;
        cr_body_id ids[BALLS + 40];
        uint32_t live = 0;
        cr_body_def d = cr_default_body_def();
        for (int i = 0; i < BALLS; ++i) {
            d.type = i % 17 == 3 || i == 5 ? CR_BODY_STATIC : CR_BODY_DYNAMIC;
            d.radius = i == 5 ? 0.45 : test_rand(&s, 0.005, 0.06);
            d.mass = 4.0 * d.radius * d.radius * d.radius * 1000.0;
            d.position = cr_v3(test_rand(&s, -0.5, 0.5), test_rand(&s, -0.5, 0.5), test_rand(&s, 0.1, 1.5));
            d.velocity = d.type == CR_BODY_STATIC ? cr_v3_zero() : test_rand_vec(&s, -3.0, 3.0);
            assert_int_equal(cr_world_add_body(w, &d, &ids[live++]), CR_OK);
        }
        uint64_t builds_before_jump = 0, most = 0, total = 0, large = 0;
        for (int step = 0; step < STEPS; ++step) {
            if (step == 60) /* slots emptied */
                for (uint32_t k = 10; k < 30; k += 3) assert_int_equal(cr_world_remove_body(w, ids[k]), CR_OK);
            if (step == 90 || step == 150) /* slots filled again, then added */
                for (int k = 0; k < 20; ++k) {
                    d.type = CR_BODY_DYNAMIC;
                    d.radius = test_rand(&s, 0.005, 0.06);
                    d.position = cr_v3(test_rand(&s, -0.5, 0.5), test_rand(&s, -0.5, 0.5), test_rand(&s, 0.5, 1.5));
                    d.velocity = test_rand_vec(&s, -1.0, 1.0);
                    assert_int_equal(cr_world_add_body(w, &d, &ids[live]), CR_OK);
                    live += live < BALLS + 39;
                }
            if (step == 200) { /* a ball moved by hand across the box */
                builds_before_jump = cr_sphere_pair_builds(w);
                cr_body_state b = state_of(w, ids[0]);
                b.position = cr_v3(-b.position.x, -b.position.y, 1.0);
                assert_int_equal(cr_body_set_state(w, ids[0], &b), CR_OK);
            }
            assert_int_equal(cr_world_step(w), CR_OK);
            uint32_t count = check_pairs(w, found, all, ROOM);
            large += w->rigid->sphere_pairs->grid.large_count;
            most = count > most ? count : most;
            total += count;
            if (step == 200) assert_true(cr_sphere_pair_builds(w) > builds_before_jump);
        }
        uint64_t builds = cr_sphere_pair_builds(w);
        printf("seed %llu: %llu pairs a step on average (up to %llu), the list built %llu times in %d steps\n",
               (unsigned long long)seed, (unsigned long long)(total / STEPS), (unsigned long long)most,
               (unsigned long long)builds, STEPS);
        assert_true(most > 100);
        assert_true(large > 0); /* the static ball's box was on the grid's list of large ones */
        assert_true(builds >= 4 && builds < STEPS / 2);
        cr_world_destroy(w);
    }
}

/* A pile of 2,304 balls dropped in a box (pairs and bodies in several work
 * items each): the same bits on 1, 2 and 3 workers and for a task system
 * that runs the items backwards. */
static void test_same_bits_for_any_worker_count(void **state)
{
    (void)state;
    enum { WORLDS = 4, SIDE = 12, LAYERS = 16, BALLS = SIDE * SIDE * LAYERS, STEPS = 60 };
    static cr_body_state end[WORLDS][BALLS];
    const uint32_t workers[WORLDS] = {1, 2, 3, 2};
    int enqueued = 0;
    uint32_t contacts[WORLDS] = {0};
    for (int k = 0; k < WORLDS; ++k) {
        cr_world_def def = substep_world_def(4, 120.0);
        test_use_tasks(&def, workers[k], k == 3 ? &enqueued : NULL);
        cr_world *w = make_world_def(&def);
        add_plane(w, cr_v3_zero(), cr_v3(0, 0, 1));
        add_side_walls(w, SIDE * 0.055);
        uint64_t s = 99;
        cr_body_id ids[BALLS];
        for (int i = 0; i < BALLS; ++i) {
            int layer = i / (SIDE * SIDE), in = i % (SIDE * SIDE);
            cr_vec3 x = cr_v3(0.11 * (in % SIDE - SIDE / 2 + 0.5) + test_rand(&s, -0.004, 0.004),
                              0.11 * (in / SIDE - SIDE / 2 + 0.5) + test_rand(&s, -0.004, 0.004), 0.06 + 0.105 * layer);
            ids[i] = add_sphere(w, x, test_rand_vec(&s, -0.5, 0.5), 0.05, 0.5, CR_INERTIA_SOLID, sqrt(0.5), sqrt(0.3));
        }
        for (int step = 0; step < STEPS; ++step) {
            assert_int_equal(cr_world_step(w), CR_OK);
            contacts[k] += cr_world_contact_count(w);
        }
        if (k == 0) {
            printf("pile of %d: %u contacts and %u pairs at the end\n", BALLS, cr_world_contact_count(w),
                   w->broad.pair_count);
            assert_true(w->broad.pair_count > 3 * 2048); /* several work items of pairs */
        }
        for (int i = 0; i < BALLS; ++i) end[k][i] = state_of(w, ids[i]);
        cr_world_destroy(w);
    }
    assert_true(enqueued > 0);
    for (int k = 1; k < WORLDS; ++k) {
        assert_int_equal(contacts[k], contacts[0]);
        for (int i = 0; i < BALLS; ++i) {
            assert_memory_equal(&end[0][i].position, &end[k][i].position, sizeof(cr_vec3));
            assert_memory_equal(&end[0][i].velocity, &end[k][i].velocity, sizeof(cr_vec3));
            assert_memory_equal(&end[0][i].angular_velocity, &end[k][i].angular_velocity, sizeof(cr_vec3));
            assert_memory_equal(&end[0][i].orientation, &end[k][i].orientation, sizeof(cr_quat));
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_listed_pairs_are_the_overlapping_boxes),
        cmocka_unit_test(test_same_bits_for_any_worker_count),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
