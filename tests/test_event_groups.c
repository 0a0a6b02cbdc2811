/* The event method's loop in independent groups over the workers
 * (src/event_groups.c): the boiling scene (bench/boiling_scene.h, which
 * bench/boiling.c times; smaller here: the
 * hills lattice within four walls, balls of mixed sizes at up to 1 m/s)
 * ends every step with the same bits, the same impacts and the same
 * closest-point count as the one time-ordered loop (a world with an impact
 * callback, which takes the loop: its calls come in time order) for 1
 * worker (the groups run in turn), 2 and 3 workers, and a task system that
 * runs the items backwards. Groups that
 * meet each other within a step are run again: the test asks that some
 * were, so that putting bodies back is checked too. The contacts stage's
 * leaning balls (rolling_rest.c: the touching pairs and the new plans over
 * the workers) are covered by the same comparison. */
#include <math.h>
#include <string.h>

#include "boiling_scene.h"
#include "event_run.h"
#include "surface_internal.h"
#include "test_helpers.h"

#define BALLS 1500

static double uniform(void *seed, double lo, double hi) { return test_rand(seed, lo, hi); }

static void count_impact(const cr_impact *im, void *ctx)
{
    (void)im;
    ++*(uint64_t *)ctx;
}

/* impacts: where given, counted by an impact callback (the one loop) */
static cr_world *boiling_sleep(uint32_t workers, int *enqueued, uint64_t *impacts, int balls, double hz, double sleep)
{
    cr_world_def d = boiling_world_def(hz);
    d.sleep_time = sleep;
    test_use_tasks(&d, workers, enqueued);
    if (impacts) {
        d.on_impact = count_impact;
        d.callback_ctx = impacts;
    }
    cr_world *w = make_world_def(&d);
    uint64_t seed = 99;
    assert_int_equal(boiling_scene_add(w, balls, uniform, &seed), CR_OK);
    return w;
}

static cr_world *boiling(uint32_t workers, int *enqueued, uint64_t *impacts)
{
    return boiling_sleep(workers, enqueued, impacts, BALLS, 120.0, 0.0);
}

/* Every ball of world k as in world 0, else the test fails naming it. */
static void assert_same_balls(cr_world **w, int k, int step)
{
    for (uint32_t i = 0; i < cr_world_body_capacity(w[0]); ++i) {
        cr_body_state a = state_of(w[0], cr_world_body_at(w[0], i));
        cr_body_state b = state_of(w[k], cr_world_body_at(w[k], i));
        if (memcmp(&a, &b, sizeof a) != 0) fail_msg("step %d: ball %u differs in world %d", step, i, k);
    }
}

static void test_same_bits_any_workers(void **state)
{
    (void)state;
    int enqueued = 0;
    uint64_t called = 0;
    cr_world *w[5] = {boiling(1, NULL, &called), boiling(1, NULL, NULL), boiling(2, NULL, NULL), boiling(3, NULL, NULL),
                      boiling(2, &enqueued, NULL)};
    uint64_t impacts = 0, groups = 0, rerun = 0, most_pairs = 0;
    for (int step = 0; step < 60; ++step) {
        for (int k = 0; k < 5; ++k) assert_int_equal(cr_world_step(w[k]), CR_OK);
        const cr_step_stats *s0 = cr_world_stats(w[0]);
        impacts += s0->events;
        assert_int_equal(called, impacts); /* every impact reported, in the one loop */
        if (s0->candidate_pairs > most_pairs) most_pairs = s0->candidate_pairs;
        assert_int_equal(s0->event_groups, 0); /* a callback: the one loop */
        for (int k = 1; k < 5; ++k) {
            const cr_step_stats *sk = cr_world_stats(w[k]);
            if (sk->events != s0->events || sk->events_deferred != s0->events_deferred ||
                sk->mean_closest_iterations != s0->mean_closest_iterations)
                fail_msg("step %d: world %d counts %u impacts, 1 worker %u", step, k, sk->events, s0->events);
            groups += sk->event_groups;
            rerun += sk->event_groups_rerun;
            assert_same_balls(w, k, step);
        }
    }
    print_message("event groups: %llu impacts, %llu groups with events, %llu run again, up to %llu broad pairs\n",
                  (unsigned long long)impacts, (unsigned long long)groups / 4, (unsigned long long)rerun / 4,
                  (unsigned long long)most_pairs);
    assert_true(impacts > 1000);
    assert_true(groups > 4 * 60 * 20); /* many groups a step */
    assert_true(rerun > 0);            /* and some met another */
    assert_true(enqueued > 0);
    assert_true(most_pairs > 1024); /* the contacts stage's touching test over the workers
                                           (rolling_rest.c: items of 1,024 broad pairs) */
    for (int k = 0; k < 5; ++k) cr_world_destroy(w[k]);
}

/* With sleep on (ball_sleep.c), the same: sleeping balls met by an impact
 * wake inside a group's run, and the islands they touch at gap 0 wake in
 * a cascade, each a group of its own that the run meets in turn; such a
 * cluster met so many groups that its run on a worker ran out of room
 * (its reads), and was then run at once on the calling thread from where
 * it stopped, not from the step's start: 700 balls, 60 Hz, sleep 0.1 s
 * parted from the loop at step 163 on 970a2b3. The scene sleeps and wakes
 * within the steps (asked below). */
static void test_same_bits_waking(void **state)
{
    (void)state;
    uint64_t called = 0;
    cr_world *w[4] = {boiling_sleep(1, NULL, &called, 700, 60.0, 0.1), boiling_sleep(1, NULL, NULL, 700, 60.0, 0.1),
                      boiling_sleep(2, NULL, NULL, 700, 60.0, 0.1), boiling_sleep(3, NULL, NULL, 700, 60.0, 0.1)};
    uint32_t most_asleep = 0, woken = 0;
    for (int step = 0; step < 300; ++step) {
        uint32_t was = cr_world_stats(w[0])->sleeping;
        for (int k = 0; k < 4; ++k) assert_int_equal(cr_world_step(w[k]), CR_OK);
        const cr_step_stats *s0 = cr_world_stats(w[0]);
        if (s0->sleeping > most_asleep) most_asleep = s0->sleeping;
        if (s0->sleeping < was) woken += was - s0->sleeping;
        for (int k = 1; k < 4; ++k) {
            const cr_step_stats *sk = cr_world_stats(w[k]);
            if (sk->events != s0->events || sk->sleeping != s0->sleeping)
                fail_msg("step %d: world %d counts %u impacts, %u asleep; the loop %u, %u", step, k, sk->events, sk->sleeping,
                         s0->events, s0->sleeping);
            assert_same_balls(w, k, step);
        }
    }
    print_message("event groups, sleep on: up to %u asleep, %u woken\n", most_asleep, woken);
    assert_true(most_asleep > 100);
    assert_true(woken > 50);
    for (int k = 0; k < 4; ++k) cr_world_destroy(w[k]);
}

/* A raft of 10 x 10 balls at rest on a flat surface, 0.1 mm apart in
 * hexagonal rows, falls asleep, each ball an island of its own; a ball
 * rolled in at 0.5 m/s meets it, and the balls it pushes meet the next in a
 * cascade within the step, each sleeping ball a group without events of
 * its own. The one run (its group the only one with events) takes each
 * group it meets as its own: no other run read it. Its reads list notes
 * each group once (room for every slot), and its queue's room (1,024
 * events at least) is far over what the raft's 25 impacts of the step
 * push: so no group is run again, in any step with one group with events.
 * On c05d3ec the reads list filled (a note per read, 35 groups run again
 * in the cascade's step). The same bits as the one loop every step, on 1,
 * 2 and 3 workers. */
static void raft_ball(cr_world *w, cr_vec3 x, cr_vec3 v)
{
    cr_body_def d = cr_default_body_def();
    d.radius = 0.02;
    d.mass = 0.03;
    d.restitution = 0.9;
    d.position = x;
    d.velocity = v;
    assert_int_equal(cr_world_add_body(w, &d, NULL), CR_OK);
}

static cr_world *raft(uint32_t workers, uint64_t *impacts)
{
    cr_world_def d = cr_default_world_def();
    d.method = CR_METHOD_EVENT;
    d.dt = 1.0 / 60.0;
    d.gravity = cr_v3(0, 0, -9.81);
    d.law = CR_LAW_ROLLING;
    d.sleep_time = 0.1;
    test_use_tasks(&d, workers, NULL);
    if (impacts) {
        d.on_impact = count_impact;
        d.callback_ctx = impacts;
    }
    cr_world *w = make_world_def(&d);
    add_flat_surface(w);
    const double r = 0.02, gap = 1e-4;
    for (int i = 0; i < 10; ++i)
        for (int j = 0; j < 10; ++j)
            raft_ball(w, cr_v3((2 * r + gap) * j + (i % 2) * (r + gap / 2), sqrt(3.0) * (r + gap / 2) * i, r), cr_v3_zero());
    raft_ball(w, cr_v3(-0.3, sqrt(3.0) * r * 5, r), cr_v3(0.5, 0, 0)); /* 0.4 mm off row 5's line: it spreads */
    return w;
}

static void test_sleeping_raft_taken_whole(void **state)
{
    (void)state;
    uint64_t called = 0;
    cr_world *w[4] = {raft(1, &called), raft(1, NULL), raft(2, NULL), raft(3, NULL)};
    uint32_t cascade = 0, single = 0;
    for (int step = 0; step < 60; ++step) {
        uint32_t was = cr_world_stats(w[0])->sleeping;
        for (int k = 0; k < 4; ++k) assert_int_equal(cr_world_step(w[k]), CR_OK);
        const cr_step_stats *s0 = cr_world_stats(w[0]);
        if (was >= 90 && s0->events >= 20) cascade++;
        for (int k = 1; k < 4; ++k) {
            const cr_step_stats *sk = cr_world_stats(w[k]);
            if (sk->events != s0->events || sk->sleeping != s0->sleeping || cr_world_state_hash(w[k]) != cr_world_state_hash(w[0]))
                fail_msg("step %d: world %d differs from the one loop's (%u impacts, %u asleep; the loop %u, %u)", step, k,
                         sk->events, sk->sleeping, s0->events, s0->sleeping);
            if (sk->event_groups == 1) {
                single++;
                if (sk->event_groups_rerun)
                    fail_msg("step %d: world %d ran %u groups again, its one group with events alone", step, k,
                             sk->event_groups_rerun);
            }
        }
    }
    print_message("sleeping raft: %u cascade steps, %u steps of one group with events\n", cascade, single / 3);
    assert_int_equal(cascade, 1); /* the raft, asleep, met within one step */
    assert_true(single >= 3 * 8);
    for (int k = 0; k < 4; ++k) cr_world_destroy(w[k]);
}

/* Near the boiling scene's collapse (3,000 balls at 60 Hz, 1.5 s) groups
 * meet each other often: a run that meets a body of a group whose run is
 * done and never changed it reads it and goes on (event_groups.c), and
 * reruns with that group should it run again; a run that meets a body of
 * a group without events that no other run read takes that group as its
 * own. The same bits as the one loop every step, on 1 and 2 workers, with
 * such reads and takes. */
static void test_reads_done_groups(void **state)
{
    (void)state;
    enum { N = 3000, STEPS = 90 };
    cr_world *w[3];
    uint64_t called = 0;
    for (int k = 0; k < 3; ++k) {
        cr_world_def d = boiling_world_def(60.0);
        test_use_tasks(&d, k ? (uint32_t)k : 1, NULL);
        if (!k) {
            d.on_impact = count_impact;
            d.callback_ctx = &called;
        }
        w[k] = make_world_def(&d);
        uint64_t seed = 5;
        assert_int_equal(boiling_scene_add(w[k], N, uniform, &seed), CR_OK);
    }
    uint64_t reads = 0, taken = 0, rerun = 0;
    for (int step = 0; step < STEPS; ++step) {
        for (int k = 0; k < 3; ++k) assert_int_equal(cr_world_step(w[k]), CR_OK);
        uint64_t h0 = cr_world_state_hash(w[0]);
        for (int k = 1; k < 3; ++k) {
            if (cr_world_state_hash(w[k]) != h0 || cr_world_stats(w[k])->events != cr_world_stats(w[0])->events)
                fail_msg("step %d: %d workers' world differs from the one loop's", step, k);
            uint32_t r, t;
            cr_event_groups_counts(w[k], &r, &t);
            reads += r;
            taken += t;
            rerun += cr_world_stats(w[k])->event_groups_rerun;
        }
    }
    print_message("reads of done groups' bodies %llu, groups without events taken %llu, groups run again %llu\n",
                  (unsigned long long)reads, (unsigned long long)taken, (unsigned long long)rerun);
    assert_true(reads > 50);
    assert_true(taken > 50);
    assert_true(rerun > 100);
    for (int k = 0; k < 3; ++k) cr_world_destroy(w[k]);
}

/* A body put back (a group run again) is its kept state to the bit, its
 * closest-point memo included: the run again finds the memo its first run
 * found, not the discarded run's last search (a cache miss each). */
static void test_put_back_restores_memo(void **state)
{
    (void)state;
    cr_world_def d = boiling_world_def(120.0);
    cr_world *w = make_world_def(&d);
    uint64_t seed = 7;
    assert_int_equal(boiling_scene_add(w, 200, uniform, &seed), CR_OK);
    assert_int_equal(cr_world_step(w), CR_OK);
    assert_true(cr_world_stats(w)->event_groups > 0);
    assert_int_equal(cr_world_stats(w)->event_groups_rerun, 0); /* nothing kept but by an impact */
    uint32_t checked = 0;
    for (uint32_t i = 0; i < w->bodies.slot_count && i < w->closest_memo_capacity; ++i) {
        if (!cr_slot_alive(&w->bodies, i) || w->bodies.events[i] || w->closest_memo[i].surface == UINT32_MAX) continue;
        cr_body_state was = state_of(w, cr_world_body_at(w, i));
        cr_closest_memo memo = w->closest_memo[i];
        cr_group_keep(w, NULL, i);
        /* the run moves it and searches anew */
        w->bodies.x[i].x += 0.01;
        double su = w->bodies.su[i];
        w->bodies.su[i] += 0.5;
        w->closest_memo[i].query.p.z += 0.01;
        w->closest_memo[i].u += 0.1;
        w->closest_memo[i].graph[2] += 0.1;
        w->closest_memo[i].iterations = 9;
        cr_group_put_back(w, i);
        cr_body_state now = state_of(w, cr_world_body_at(w, i));
        if (memcmp(&was, &now, sizeof was) != 0 || memcmp(&su, &w->bodies.su[i], sizeof su) != 0)
            fail_msg("ball %u: its state not put back", i);
        if (memcmp(&memo.query, &w->closest_memo[i].query, sizeof memo.query) != 0 ||
            memcmp(&memo.u, &w->closest_memo[i].u, sizeof memo.u) != 0 ||
            memcmp(memo.graph, w->closest_memo[i].graph, sizeof memo.graph) != 0 ||
            memo.iterations != w->closest_memo[i].iterations)
            fail_msg("ball %u: its memo not put back", i);
        checked++;
    }
    assert_true(checked > 20);
    cr_world_destroy(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_bits_any_workers),
        cmocka_unit_test(test_same_bits_waking),
        cmocka_unit_test(test_put_back_restores_memo),
        cmocka_unit_test(test_reads_done_groups),
        cmocka_unit_test(test_sleeping_raft_taken_whole),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
