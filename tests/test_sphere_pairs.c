/* The sphere path's broad and narrow phases (src/sphere_pairs.c: the pair
 * list with a skin; src/sphere_contacts.c: the points over the workers;
 * docs/physics/substep.md, "Spheres"):
 * - every step, the pairs taken from the list are exactly the pairs of
 *   bodies whose boxes overlap, found by testing all n (n - 1) / 2 of them,
 *   in random worlds of balls of mixed sizes thrown about, with static
 *   balls, balls removed and added, and a ball moved by hand;
 * - a pile of 2,304 balls (several work items of pairs and of bodies) gives
 *   the same bits on 1, 2 and 3 workers and a task system that runs the
 *   items backwards;
 * - in that pile every list built is the same list, in the same order, on
 *   those worker counts, and exactly the pairs of overlapping grown boxes;
 * - every ball that overlaps a plane has one point on it, at its
 *   distance, on 1 and 3 workers;
 * - static and kinematic balls make no point with each other or a plane;
 * - the warm start by the list's order (the walk) gives every step the
 *   look-up's bits, through list builds, slots emptied, filled and added,
 *   a ball moved by hand and a box added and removed, on 1 and 3 workers
 *   and the backwards task system;
 * - the deepest-overlap stat is the deepest overlap of any two balls or a
 *   ball and a plane by their centres, to the bit, on 1, 2 and 3 workers;
 * - balls woken by the narrow phase make their points in that step;
 * - contacts on the sphere path carry a sphere contact's frames after a box
 *   came and went, and after a checkpoint of the box's steps. */
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

enum { PILE_SIDE = 12, PILE_LAYERS = 16, PILE_BALLS = PILE_SIDE * PILE_SIDE * PILE_LAYERS };

/* A pile of PILE_BALLS balls of 5 cm in layers over a floor in a box of
 * walls, thrown about at up to 0.5 m/s. */
static void add_pile(cr_world *w, cr_body_id *ids)
{
    enum { SIDE = PILE_SIDE };
    add_plane(w, cr_v3_zero(), cr_v3(0, 0, 1));
    add_side_walls(w, SIDE * 0.055);
    uint64_t s = 99;
    for (int i = 0; i < PILE_BALLS; ++i) {
        int layer = i / (SIDE * SIDE), in = i % (SIDE * SIDE);
        cr_vec3 x = cr_v3(0.11 * (in % SIDE - SIDE / 2 + 0.5) + test_rand(&s, -0.004, 0.004),
                          0.11 * (in / SIDE - SIDE / 2 + 0.5) + test_rand(&s, -0.004, 0.004), 0.06 + 0.105 * layer);
        ids[i] = add_sphere(w, x, test_rand_vec(&s, -0.5, 0.5), 0.05, 0.5, CR_INERTIA_SOLID, sqrt(0.5), sqrt(0.3));
    }
}

/* A pile of 2,304 balls dropped in a box (pairs and bodies in several work
 * items each): the same bits on 1, 2 and 3 workers and for a task system
 * that runs the items backwards. */
static void test_same_bits_for_any_worker_count(void **state)
{
    (void)state;
    enum { WORLDS = 4, BALLS = PILE_BALLS, STEPS = 60 };
    static cr_body_state end[WORLDS][BALLS];
    const uint32_t workers[WORLDS] = {1, 2, 3, 2};
    int enqueued = 0;
    uint32_t contacts[WORLDS] = {0};
    for (int k = 0; k < WORLDS; ++k) {
        cr_world_def def = substep_world_def(4, 120.0);
        test_use_tasks(&def, workers[k], k == 3 ? &enqueued : NULL);
        cr_world *w = make_world_def(&def);
        cr_body_id ids[BALLS];
        add_pile(w, ids);
        for (int step = 0; step < STEPS; ++step) {
            assert_int_equal(cr_world_step(w), CR_OK);
            contacts[k] += cr_world_contact_count(w);
            /* the step's deepest overlap, taken over the workers in items of
             * contacts (rigid_finish.c), is the serial scan's to the bit */
            double deepest = w->stats.max_penetration, serial = cr_rigid_max_overlap(w, NULL, NULL);
            assert_memory_equal(&deepest, &serial, sizeof deepest);
        }
        if (k == 0) {
            printf("pile of %d: %u contacts and %u pairs at the end\n", BALLS, cr_world_contact_count(w),
                   w->broad.pair_count);
            assert_true(w->broad.pair_count > 3 * 2048);     /* several work items of pairs */
            assert_true(cr_world_contact_count(w) > 4096);     /* ... and of contacts for the deepest overlap */
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

/* The pile's list builds (cr_broad_build over the grown boxes: the grid's
 * search in work items of 1,024 bodies, joined in order; its dense rows
 * that fit the room without a branch, the others with one): on 2 and 3
 * workers and the backwards task system every step's list is world 0's
 * (1 worker, one pass) to the bit, and each list built is exactly the
 * pairs of overlapping grown boxes that brute force finds. */
static void test_rebuilt_list_is_the_same_on_any_worker_count(void **state)
{
    (void)state;
    enum { WORLDS = 4, STEPS = 40, ROOM = 60000 };
    static cr_broad_pair found[ROOM], all[ROOM];
    const uint32_t workers[WORLDS] = {1, 2, 3, 2};
    int enqueued = 0;
    cr_world *w[WORLDS];
    static cr_body_id ids[PILE_BALLS];
    for (int k = 0; k < WORLDS; ++k) {
        cr_world_def def = substep_world_def(4, 120.0);
        test_use_tasks(&def, workers[k], k == 3 ? &enqueued : NULL);
        w[k] = make_world_def(&def);
        add_pile(w[k], ids);
    }
    uint64_t builds = 0, checked = 0;
    for (int step = 0; step < STEPS; ++step) {
        for (int k = 0; k < WORLDS; ++k) assert_int_equal(cr_world_step(w[k]), CR_OK);
        const cr_sphere_pairs *L = w[0]->rigid->sphere_pairs;
        const cr_broad_phase *g = &L->grid;
        for (int k = 1; k < WORLDS; ++k) {
            const cr_sphere_pairs *M = w[k]->rigid->sphere_pairs;
            assert_int_equal(M->builds, L->builds);
            assert_int_equal(M->grid.pair_count, g->pair_count);
            assert_memory_equal(M->grid.pairs, g->pairs, sizeof *g->pairs * g->pair_count);
        }
        if (L->builds == builds) continue;
        builds = L->builds;
        /* the list just built against brute force over its grown boxes */
        uint32_t n = L->n, count = 0;
        for (uint32_t i = 0; i < n; ++i)
            for (uint32_t j = i + 1; j < n; ++j)
                if (!empty_box(g->lo[i], g->hi[i]) && !empty_box(g->lo[j], g->hi[j]) &&
                    cr_box_overlap(g->lo[i], g->hi[i], g->lo[j], g->hi[j])) {
                    assert_true(count < ROOM);
                    all[count++] = (cr_broad_pair){i, j};
                }
        assert_int_equal(g->pair_count, count);
        memcpy(found, g->pairs, sizeof *found * count);
        qsort(found, count, sizeof *found, pair_order);
        assert_memory_equal(found, all, sizeof *found * count);
        ++checked;
    }
    printf("pile of %d: %llu lists built and checked in %d steps, %u pairs on the last\n", PILE_BALLS,
           (unsigned long long)checked, STEPS, w[0]->rigid->sphere_pairs->grid.pair_count);
    assert_true(checked >= 3);                                      /* the first and rebuilds */
    assert_true(w[0]->rigid->sphere_pairs->grid.pair_count > 3 * 1024); /* several items of the search */
    assert_true(enqueued > 0);
    for (int k = 0; k < WORLDS; ++k) cr_world_destroy(w[k]);
}

/* A world sub-stepped 4 times at 120 Hz on workers, in a box of five
 * planes: the floor z = 0 and the walls at +-half as add_side_walls makes
 * them (pp, pn: their points and normals, in that order). */
static cr_world *box_of_planes(uint32_t workers, double half, cr_vec3 pp[5], cr_vec3 pn[5])
{
    const cr_vec3 point[5] = {{0, 0, 0}, {-half, 0, 0}, {half, 0, 0}, {0, -half, 0}, {0, half, 0}};
    const cr_vec3 normal[5] = {{0, 0, 1}, {1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}};
    memcpy(pp, point, sizeof point);
    memcpy(pn, normal, sizeof normal);
    cr_world_def def = substep_world_def(4, 120.0);
    test_use_tasks(&def, workers, NULL);
    cr_world *w = make_world_def(&def);
    add_plane(w, pp[0], pn[0]);
    add_side_walls(w, half); /* planes 1 to 4, as pp and pn */
    return w;
}

/* A ball's height above plane k of box_of_planes less its radius r. */
static double above_plane(const cr_vec3 *pp, const cr_vec3 *pn, int k, cr_vec3 x, double r)
{
    return cr_v3_dot(pn[k], x) - cr_v3_dot(pn[k], pp[k]) - r;
}

/* The points of balls on planes (branch pit13: the narrow phase's first
 * pass lists the (ball, plane) pairs with a point, the second writes just
 * those): 1,500 balls thrown about a box of five planes (two work items of
 * bodies), on 1 and 3 workers. Every step each (ball, plane) has at most
 * one point; its separation is the ball's distance to the plane at the
 * step's start less its radius, along the plane's normal; and every awake
 * ball that overlapped a plane at the step's start has its point. */
static void test_plane_points_are_the_overlapping_balls(void **state)
{
    (void)state;
    enum { BALLS = 1500, PLANES = 5, STEPS = 20 };
    const double half = 0.6, r = 0.05;
    cr_vec3 pp[PLANES], pn[PLANES];
    static cr_vec3 x0[BALLS];
    static bool awake[BALLS];
    static int seen[BALLS][PLANES];
    const uint32_t workers[2] = {1, 3};
    for (int run = 0; run < 2; ++run) {
        cr_world *w = box_of_planes(workers[run], half, pp, pn);
        uint64_t s = 7;
        cr_body_id ids[BALLS];
        for (int i = 0; i < BALLS; ++i) {
            cr_vec3 x = cr_v3(test_rand(&s, -half + 0.02, half - 0.02), test_rand(&s, -half + 0.02, half - 0.02),
                              test_rand(&s, 0.02, 1.5));
            ids[i] = add_sphere(w, x, test_rand_vec(&s, -1.0, 1.0), r, 0.5, CR_INERTIA_SOLID, sqrt(0.5), sqrt(0.3));
            assert_int_equal(ids[i].index, (uint32_t)i);
        }
        int overlapping = 0;
        for (int step = 0; step < STEPS; ++step) {
            for (int i = 0; i < BALLS; ++i) {
                x0[i] = state_of(w, ids[i]).position;
                awake[i] = !cr_body_is_asleep(w, ids[i]);
            }
            assert_int_equal(cr_world_step(w), CR_OK);
            memset(seen, 0, sizeof seen);
            for (uint32_t c = 0; c < cr_world_contact_count(w); ++c) {
                cr_contact_report rep;
                assert_int_equal(cr_world_get_contact(w, c, &rep), CR_OK);
                if (rep.static_id.generation == 0) continue; /* two balls: no static */
                assert_int_equal(rep.static_id.type, CR_STATIC_PLANE);
                uint32_t i = rep.a.index, k = rep.static_id.index;
                assert_true(i < BALLS && k < PLANES);
                double gap = above_plane(pp, pn, (int)k, x0[i], r);
                assert_true(fabs(rep.separation - gap) <= 1e-12);
                assert_memory_equal(&rep.normal, &pn[k], sizeof(cr_vec3));
                ++seen[i][k];
            }
            for (int i = 0; i < BALLS; ++i)
                for (int k = 0; k < PLANES; ++k) {
                    assert_true(seen[i][k] <= 1);
                    if (awake[i] && above_plane(pp, pn, k, x0[i], r) < 0.0) {
                        assert_int_equal(seen[i][k], 1);
                        ++overlapping;
                    }
                }
        }
        if (run == 0) printf("balls on planes: %d overlapping (ball, plane) pairs over %d steps\n", overlapping, STEPS);
        assert_true(overlapping > 100);
        cr_world_destroy(w);
    }
}

/* Only a ball that moves makes points (the narrow phase's entry keeps
 * whether it does as its radius's sign): two static balls that overlap each
 * other and the floor, a kinematic one touching the floor, and a dynamic
 * ball resting on the first static one give the one point of that pair,
 * between those two, at its closed-form separation. */
static void test_only_moving_balls_make_points(void **state)
{
    (void)state;
    const double r = 0.05, gap = -0.001;
    cr_world_def def = substep_world_def(4, 120.0);
    cr_world *w = make_world_def(&def);
    add_plane(w, cr_v3_zero(), cr_v3(0, 0, 1));
    cr_body_def d = cr_default_body_def();
    d.radius = r;
    d.mass = 1.0;
    d.type = CR_BODY_STATIC;
    cr_body_id a, b, k, c;
    d.position = cr_v3(0, 0, r - 0.002);
    assert_int_equal(cr_world_add_body(w, &d, &a), CR_OK);
    d.position = cr_v3(1.8 * r, 0, r - 0.002);
    assert_int_equal(cr_world_add_body(w, &d, &b), CR_OK);
    d.type = CR_BODY_KINEMATIC;
    d.position = cr_v3(-5.0 * r, 0, r - 0.002);
    assert_int_equal(cr_world_add_body(w, &d, &k), CR_OK);
    d.type = CR_BODY_DYNAMIC;
    d.position = cr_v3(0, 0, 3.0 * r - 0.002 + gap);
    assert_int_equal(cr_world_add_body(w, &d, &c), CR_OK);
    assert_true(cr_rigid_sphere_path(w));
    assert_int_equal(cr_world_step(w), CR_OK);
    assert_int_equal(cr_world_contact_count(w), 1);
    cr_contact_report rep;
    assert_int_equal(cr_world_get_contact(w, 0, &rep), CR_OK);
    assert_int_equal(rep.static_id.generation, 0);
    assert_true((rep.a.index == a.index && rep.b.index == c.index) ||
                (rep.a.index == c.index && rep.b.index == a.index));
    assert_true(fabs(rep.separation - gap) <= 1e-12);
    cr_world_destroy(w);
}

/* One world of the walk test below: 1,400 balls (two work items of bodies
 * on the planes, several of pairs) thrown into a box of five planes;
 * by_keys: every step's warm start by the look-up. Returns the steps that
 * took the walk (the list the same as the last step's, nothing removed). */
static int run_warm_world(cr_world_def def, bool by_keys, cr_body_state *end, uint32_t *contacts, double *impulse)
{
    enum { BALLS = 1400, STEPS = 120 };
    cr_world *w = make_world_def(&def);
    add_plane(w, cr_v3_zero(), cr_v3(0, 0, 1));
    add_side_walls(w, 0.4);
    uint64_t s = 4242;
    cr_body_id ids[BALLS + 10];
    cr_body_def d = cr_default_body_def();
    for (int i = 0; i < BALLS; ++i) {
        d.type = i % 23 == 7 ? CR_BODY_STATIC : CR_BODY_DYNAMIC;
        d.radius = test_rand(&s, 0.01, 0.03);
        d.mass = 4.0 * d.radius * d.radius * d.radius * 1000.0;
        d.position = cr_v3(test_rand(&s, -0.38, 0.38), test_rand(&s, -0.38, 0.38), test_rand(&s, 0.02, 0.6));
        d.velocity = d.type == CR_BODY_STATIC ? cr_v3_zero() : test_rand_vec(&s, -0.3, 0.3);
        d.restitution = sqrt(0.5), d.friction = sqrt(0.3);
        assert_int_equal(cr_world_add_body(w, &d, &ids[i]), CR_OK);
    }
    cr_body_id box = {0, 0};
    *contacts = 0, *impulse = 0.0;
    for (int step = 0; step < STEPS; ++step) {
        if (step == 1) w->rigid->sphere_pairs->warm_by_keys = by_keys; /* made by the first step */
        if (step == 40) /* slots emptied */
            for (int k = 100; k < 160; k += 7) assert_int_equal(cr_world_remove_body(w, ids[k]), CR_OK);
        if (step == 50) /* filled again, and added */
            for (int k = 0; k < 12; ++k) {
                d.type = CR_BODY_DYNAMIC;
                d.radius = 0.02, d.mass = 0.032;
                d.position = cr_v3(test_rand(&s, -0.3, 0.3), test_rand(&s, -0.3, 0.3), 0.7);
                d.velocity = cr_v3_zero();
                assert_int_equal(cr_world_add_body(w, &d, &ids[BALLS - 1]), CR_OK);
            }
        if (step == 70) { /* a ball moved by hand */
            cr_body_state b = state_of(w, ids[3]);
            b.position = cr_v3(-b.position.x, -b.position.y, 0.65);
            assert_int_equal(cr_body_set_state(w, ids[3], &b), CR_OK);
        }
        if (step == 85) box = add_box(w, cr_v3(0.03, 0.03, 0.03), cr_v3(0, 0, 0.9), cr_q_identity(), 0.2, 0.5, 0.5);
        if (step == 90) assert_int_equal(cr_world_remove_body(w, box), CR_OK); /* spheres only again */
        assert_int_equal(cr_world_step(w), CR_OK);
        *contacts += cr_world_contact_count(w);
        for (uint32_t k = 0; k < cr_world_contact_count(w); ++k) {
            cr_contact_report rep;
            assert_int_equal(cr_world_get_contact(w, k, &rep), CR_OK);
            *impulse += rep.normal_impulse;
        }
    }
    for (int i = 0; i < BALLS; ++i) end[i] = cr_body_is_valid(w, ids[i]) ? state_of(w, ids[i]) : (cr_body_state){0};
    int walked = (int)w->rigid->sphere_pairs->walks;
    cr_world_destroy(w);
    return walked;
}

/* The warm start by the list's order (sphere_contacts.c's walk) against
 * the look-up of every contact among the last step's sorted keys: the same
 * bits, every contact's impulse and every ball's end state, on 1 and 3
 * workers and the backwards task system; most steps take the walk. */
static void test_warm_start_walk_is_the_look_up(void **state)
{
    (void)state;
    enum { BALLS = 1400, RUNS = 4 };
    static cr_body_state end[RUNS][BALLS];
    const uint32_t workers[RUNS] = {1, 1, 3, 2};
    uint32_t contacts[RUNS];
    double impulse[RUNS];
    int enqueued = 0, walked = 0;
    for (int k = 0; k < RUNS; ++k) {
        cr_world_def def = substep_world_def(4, 120.0);
        test_use_tasks(&def, workers[k], k == 3 ? &enqueued : NULL);
        int wk = run_warm_world(def, k == 0, end[k], &contacts[k], &impulse[k]);
        if (k == 1) walked = wk;
    }
    printf("warm start: %u contacts in all, the walk on %d of 120 steps\n", contacts[0], walked);
    assert_true(walked > 30);
    assert_true(enqueued > 0);
    for (int k = 1; k < RUNS; ++k) {
        assert_int_equal(contacts[k], contacts[0]);
        assert_memory_equal(&impulse[k], &impulse[0], sizeof impulse[0]);
        for (int i = 0; i < BALLS; ++i) {
            assert_memory_equal(&end[0][i].position, &end[k][i].position, sizeof(cr_vec3));
            assert_memory_equal(&end[0][i].velocity, &end[k][i].velocity, sizeof(cr_vec3));
            assert_memory_equal(&end[0][i].angular_velocity, &end[k][i].angular_velocity, sizeof(cr_vec3));
        }
    }
}

/* The sphere path's deepest-overlap stat (rigid_finish.c: by the balls'
 * centres, in the one run over the workers that also checks finiteness):
 * every step it is, to the bit, the deepest overlap at the step's end of
 * any two balls (|x_a - x_b| - r_a - r_b) or of a ball and a plane, found
 * by testing them all. 1,440 spinning balls of mixed sizes packed in a box
 * of five planes, neighbours, walls and floor overlapping at first
 * (two work items of contacts), on 1, 2 and 3 workers; and still after a
 * box comes into the world (cr_world_max_overlap on the last step's
 * contacts, which carry no frames). The general path's measure, the
 * surface points carried in the bodies' frames, turns with a spinning ball
 * off the line of centres and is not it. */
static void test_deepest_overlap_is_the_centres(void **state)
{
    (void)state;
    enum { SIDE = 12, LAYERS = 10, BALLS = SIDE * SIDE * LAYERS, PLANES = 5, STEPS = 30 };
    const double half = 0.5 * SIDE * 0.0495 - 0.002;
    cr_vec3 pp[PLANES], pn[PLANES];
    static double radius[BALLS];
    static cr_vec3 x[BALLS];
    const uint32_t workers[3] = {1, 2, 3};
    for (int run = 0; run < 3; ++run) {
        cr_world *w = box_of_planes(workers[run], half, pp, pn);
        uint64_t s = 31;
        cr_body_id ids[BALLS];
        cr_body_def d = cr_default_body_def();
        for (int i = 0; i < BALLS; ++i) {
            int layer = i / (SIDE * SIDE), in = i % (SIDE * SIDE);
            d.radius = radius[i] = test_rand(&s, 0.0235, 0.0255);
            d.mass = 4.0 * d.radius * d.radius * d.radius * 1000.0;
            d.position = cr_v3(0.0495 * (in % SIDE - SIDE / 2 + 0.5), 0.0495 * (in / SIDE - SIDE / 2 + 0.5),
                               0.023 + 0.0495 * layer);
            d.velocity = test_rand_vec(&s, -0.2, 0.2);
            d.angular_velocity = test_rand_vec(&s, -30.0, 30.0);
            d.restitution = sqrt(0.5), d.friction = sqrt(0.5);
            assert_int_equal(cr_world_add_body(w, &d, &ids[i]), CR_OK);
        }
        int overlapping = 0, on_planes = 0, on_walls = 0;
        uint32_t most = 0;
        double deepest = 0.0;
        for (int step = 0; step < STEPS; ++step) {
            assert_int_equal(cr_world_step(w), CR_OK);
            most = cr_world_contact_count(w) > most ? cr_world_contact_count(w) : most;
            for (int i = 0; i < BALLS; ++i) x[i] = state_of(w, ids[i]).position;
            deepest = 0.0;
            int plane = -1;
            for (int i = 0; i < BALLS; ++i) {
                for (int j = i + 1; j < BALLS; ++j) {
                    double depth = -(cr_v3_len(cr_v3_sub(x[i], x[j])) - radius[i] - radius[j]);
                    if (depth > deepest) deepest = depth, plane = -1;
                }
                for (int k = 0; k < PLANES; ++k) {
                    double depth = -above_plane(pp, pn, k, x[i], radius[i]);
                    if (depth > deepest) deepest = depth, plane = k;
                }
            }
            double stat = cr_world_stats(w)->max_penetration, serial = cr_rigid_max_overlap(w, NULL, NULL);
            assert_memory_equal(&stat, &deepest, sizeof stat);
            assert_memory_equal(&serial, &deepest, sizeof serial);
            overlapping += deepest > 0.0;
            on_planes += deepest > 0.0 && plane >= 0;
            on_walls += deepest > 0.0 && plane > 0;
        }
        if (run == 0)
            printf("deepest overlap by the centres: %d of %d steps overlapping, %d of them on a plane (%d on a "
                   "wall), up to %u contacts\n",
                   overlapping, STEPS, on_planes, on_walls, most);
        assert_true(overlapping > STEPS / 2);
        assert_true(on_walls > 0 && on_planes < overlapping); /* a wall, and two balls, the deepest */
        assert_true(most > 4096);                              /* two items of contacts */
        add_box(w, cr_v3(0.03, 0.03, 0.03), cr_v3(0, 0, 2.0), cr_q_identity(), 0.2, 0.5, 0.5);
        assert_false(cr_rigid_sphere_path(w));
        double after = cr_world_max_overlap(w, NULL, NULL);
        assert_memory_equal(&after, &deepest, sizeof after);
        cr_world_destroy(w);
    }
}

/* Contacts [0, n) carry a sphere contact's frames: la, lb, nb, t1, t2 and
 * ref_x zero, ref_q the identity (what the frames read as on the sphere
 * path, which writes them once per slot: cr_rigid's contacts_lean). */
static void assert_sphere_frames(const cr_rigid_contact *c, uint32_t n)
{
    const cr_vec3 zero = cr_v3_zero();
    const cr_quat one = cr_q_identity();
    for (uint32_t k = 0; k < n; ++k) {
        const cr_vec3 v[6] = {c[k].la, c[k].lb, c[k].nb, c[k].t1, c[k].t2, c[k].ref_x};
        for (int f = 0; f < 6; ++f) assert_memory_equal(&v[f], &zero, sizeof zero);
        assert_memory_equal(&c[k].ref_q, &one, sizeof one);
    }
}

/* The sphere path leaves a contact's frames unwritten where its slot
 * already holds a sphere contact's (sphere_contacts.c, lean_frames): 400
 * balls piled in a box of five planes; a box dropped among them (the
 * general narrow phase, which writes real frames into both contact
 * arrays over four steps), then removed, and every step after, on the
 * sphere path again, every contact has a sphere contact's frames. The
 * same after a checkpoint taken with the box there, loaded, and the box
 * removed (the restored contacts' frames are the box steps'). On 1 and 3
 * workers. */
static void test_sphere_contacts_frames_after_a_box(void **state)
{
    (void)state;
    enum { SIDE = 10, LAYERS = 4, BALLS = SIDE * SIDE * LAYERS };
    const double half = 0.5 * SIDE * 0.0495 - 0.002;
    cr_vec3 pp[5], pn[5];
    const uint32_t workers[2] = {1, 3};
    for (int run = 0; run < 4; ++run) {
        cr_world *w = box_of_planes(workers[run % 2], half, pp, pn);
        cr_body_def d = cr_default_body_def();
        for (int i = 0; i < BALLS; ++i) {
            int layer = i / (SIDE * SIDE), in = i % (SIDE * SIDE);
            d.radius = 0.024;
            d.mass = 0.05;
            d.position = cr_v3(0.0495 * (in % SIDE - SIDE / 2 + 0.5), 0.0495 * (in / SIDE - SIDE / 2 + 0.5),
                               0.024 + 0.0495 * layer);
            assert_int_equal(cr_world_add_body(w, &d, NULL), CR_OK);
        }
        for (int step = 0; step < 3; ++step) assert_int_equal(cr_world_step(w), CR_OK);
        uint32_t sphere_contacts = w->rigid->contact_count;
        cr_body_id box = add_box(w, cr_v3(0.06, 0.06, 0.06), cr_v3(0, 0, 0.26), cr_q_identity(), 0.5, 0.3, 0.5);
        for (int step = 0; step < 4; ++step) assert_int_equal(cr_world_step(w), CR_OK);
        assert_false(cr_rigid_sphere_path(w));
        uint32_t framed = 0; /* the box steps' contacts with a frame */
        for (uint32_t k = 0; k < w->rigid->contact_count; ++k) framed += w->rigid->contacts[k].nb.z != 0.0;
        assert_true(framed > sphere_contacts / 2);
        if (run >= 2) { /* through a checkpoint of the box steps */
            unsigned char *data = NULL;
            size_t size = 0;
            char msg[256];
            assert_int_equal(cr_world_save_buffer(w, NULL, 0, &data, &size, msg, sizeof msg), CR_OK);
            cr_world_destroy(w);
            cr_world_def def = substep_world_def(4, 120.0);
            test_use_tasks(&def, workers[run % 2], NULL);
            assert_int_equal(cr_world_load_buffer(data, size, &def, &w, NULL, NULL, msg, sizeof msg), CR_OK);
            free(data);
        }
        assert_int_equal(cr_world_remove_body(w, box), CR_OK);
        assert_true(cr_rigid_sphere_path(w));
        for (int step = 0; step < 6; ++step) {
            assert_int_equal(cr_world_step(w), CR_OK);
            assert_true(w->rigid->contact_count > sphere_contacts / 2);
            assert_sphere_frames(w->rigid->contacts, w->rigid->contact_count);
        }
        cr_world_destroy(w);
    }
}

/* Balls woken in the narrow phase make their points that step (the
 * entries the broad phase's pass made of them, asleep, are made again
 * when the world sleeps: sphere_contacts.c's body_items): two balls
 * resting side by side on the floor fall asleep as one island; a third,
 * rolled at one of them, wakes both in the step its box first meets it,
 * and that step has the sleepers' points with each other and the floor,
 * as the step before had none. */
static void test_woken_balls_make_points(void **state)
{
    (void)state;
    const double r = 0.05;
    cr_world_def def = substep_world_def(4, 120.0);
    def.sleep_time = 0.2;
    cr_world *w = make_world_def(&def);
    add_plane(w, cr_v3_zero(), cr_v3(0, 0, 1));
    cr_body_id a = add_sphere(w, cr_v3(0, 0, r), cr_v3_zero(), r, 1.0, CR_INERTIA_SOLID, 0.5, 0.5);
    cr_body_id b = add_sphere(w, cr_v3(2.0 * r - 0.0005, 0, r), cr_v3_zero(), r, 1.0, CR_INERTIA_SOLID, 0.5, 0.5);
    int step = 0;
    for (; step < 400 && !(cr_body_is_asleep(w, a) && cr_body_is_asleep(w, b)); ++step)
        assert_int_equal(cr_world_step(w), CR_OK);
    assert_true(cr_body_is_asleep(w, a) && cr_body_is_asleep(w, b));
    assert_int_equal(cr_world_step(w), CR_OK);
    assert_int_equal(cr_world_contact_count(w), 0); /* asleep: no points */
    cr_body_id c = add_sphere(w, cr_v3(-1.0, 0, r), cr_v3(2.0, 0, 0), r, 1.0, CR_INERTIA_SOLID, 0.5, 0.5);
    int woke = -1;
    for (int k = 0; k < 200 && woke < 0; ++k) {
        assert_int_equal(cr_world_step(w), CR_OK);
        if (!cr_body_is_asleep(w, a)) woke = k;
    }
    assert_true(woke > 0);
    int pair = 0, floor_a = 0, floor_b = 0;
    for (uint32_t k = 0; k < cr_world_contact_count(w); ++k) {
        cr_contact_report rep;
        assert_int_equal(cr_world_get_contact(w, k, &rep), CR_OK);
        bool plane = rep.static_id.generation != 0;
        pair += !plane && ((rep.a.index == a.index && rep.b.index == b.index) ||
                           (rep.a.index == b.index && rep.b.index == a.index));
        floor_a += plane && rep.a.index == a.index;
        floor_b += plane && rep.a.index == b.index;
    }
    assert_int_equal(pair, 1);
    assert_int_equal(floor_a, 1);
    assert_int_equal(floor_b, 1);
    (void)c;
    cr_world_destroy(w);
}

/* The finish's finiteness check, over the workers with the poses
 * (rigid_finish.c): 5,000 balls (three items of bodies), two of them put
 * where one more step overflows; on 1, 2 and 3 workers the step fails and
 * names the first of them, as the serial check did. */
static void test_non_finite_names_the_first_body_on_any_worker_count(void **state)
{
    (void)state;
    enum { BALLS = 5000 };
    const uint32_t workers[3] = {1, 2, 3};
    for (int k = 0; k < 3; ++k) {
        cr_world_def def = substep_world_def(4, 120.0);
        test_use_tasks(&def, workers[k], NULL);
        cr_world *w = make_world_def(&def);
        add_plane(w, cr_v3_zero(), cr_v3(0, 0, 1));
        cr_body_id ids[BALLS];
        for (int i = 0; i < BALLS; ++i)
            ids[i] = add_sphere(w, cr_v3(0.3 * (i % 70), 0.3 * (i / 70), 0.2), cr_v3_zero(), 0.1, 1.0, CR_INERTIA_SOLID,
                                0.5, 0.3);
        assert_int_equal(cr_world_step(w), CR_OK);
        /* finite now, beyond the largest double (1.7977e308) after 1e308 m/s for a step */
        const int bad[2] = {4321, 2345};
        for (int j = 0; j < 2; ++j) {
            cr_body_state b = state_of(w, ids[bad[j]]);
            b.position = cr_v3(1.797e308, 0, 1);
            b.velocity = cr_v3(1e308, 0, 0);
            assert_int_equal(cr_body_set_state(w, ids[bad[j]], &b), CR_OK);
        }
        assert_int_equal(cr_world_step(w), CR_ERR_NON_FINITE);
        const char *msg = cr_world_last_error(w);
        if (!strstr(msg, "body 2345:")) fail_msg("%u workers: the message does not name body 2345: '%s'", workers[k], msg);
        cr_world_destroy(w);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_listed_pairs_are_the_overlapping_boxes),
        cmocka_unit_test(test_same_bits_for_any_worker_count),
        cmocka_unit_test(test_rebuilt_list_is_the_same_on_any_worker_count),
        cmocka_unit_test(test_plane_points_are_the_overlapping_balls),
        cmocka_unit_test(test_only_moving_balls_make_points),
        cmocka_unit_test(test_warm_start_walk_is_the_look_up),
        cmocka_unit_test(test_non_finite_names_the_first_body_on_any_worker_count),
        cmocka_unit_test(test_deepest_overlap_is_the_centres),
        cmocka_unit_test(test_woken_balls_make_points),
        cmocka_unit_test(test_sphere_contacts_frames_after_a_box),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
