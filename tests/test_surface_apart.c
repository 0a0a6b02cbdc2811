/* Balls on a surface stay apart: the boiling scene (bench/boiling_scene.h,
 * which bench/boiling.c times; 100 balls here, on the hills lattice within
 * four walls, at up to 1 m/s) for one simulated second at 60 and 120 steps
 * a second, ten seeds. Position projection counts a ball on a surface
 * immovable (it would lift it and make energy), so nothing separates two
 * such balls once they overlap: the events and the resting contacts must
 * never let them in (seed 001 §3.2, seed 004's events). Each run:
 *   - no two balls bound to the surface ever overlap by more than 1 mm
 *     (1/25 of the smallest radius; at 9fbc929 they sank 0.6 to 1.9 mm into
 *     each other within the second);
 *   - the total energy never grows (what holds the balls apart does no
 *     work).
 * With max_events_per_body at 2 (test_deferred_impacts_stay_apart), the
 * same checks over four runs whose impacts go over the cap thousands of
 * times (src/events.c: still resolved).
 * And over the twenty runs, of each run's deepest overlap: the median is
 * at most 1e-6 m and the mean at most 6e-5 m (now 1.0e-8 and 1.2e-5 m; a
 * few runs still reach 0.1 mm, docs/benchmarks.md, what is left; at
 * 9fbc929 1.7e-3 and 2.6e-3 m). Figures over many runs, so that a merge
 * that moves the trajectories (the scene is chaotic) moves them little,
 * where one run's deepest can jump by decades: with main's closest point
 * at e71c4ce merged they are 5.7e-8 and 3.6e-5 m. Each of them catches
 * some of this branch's holds undone: the median a slip at rounding
 * counted as one, the sequential or Gauss-Seidel lean, every slow
 * approach resting; the mean the chord left uncut and the flying hold all
 * or none. */
#include <stdlib.h>

#include "boiling_scene.h"
#include "test_helpers.h"

#define BALLS 100

static double uniform(void *seed, double lo, double hi) { return test_rand(seed, lo, hi); }

/* The deepest overlap between two balls bound to the surface, m (0: none);
 * with flying, between a ball bound to it and a flying one instead. */
static double deepest_pair(cr_world *w, bool flying)
{
    uint32_t n = cr_world_body_capacity(w);
    double worst = 0.0;
    for (uint32_t i = 0; i < n; ++i) {
        cr_body_id a = cr_world_body_at(w, i);
        cr_ball_state sa;
        cr_static_id on;
        if (cr_body_get_ball_state(w, a, &sa, &on) != CR_OK) continue;
        cr_body_def da;
        cr_body_get_def(w, a, &da);
        cr_vec3 xa = state_of(w, a).position;
        for (uint32_t j = i + 1; j < n; ++j) {
            cr_body_id b = cr_world_body_at(w, j);
            cr_ball_state sb;
            if (cr_body_get_ball_state(w, b, &sb, &on) != CR_OK) continue;
            int fly = (sa == CR_BALL_FLYING) + (sb == CR_BALL_FLYING);
            if (flying ? fly != 1 : fly != 0) continue;
            cr_body_def db;
            cr_body_get_def(w, b, &db);
            double overlap = da.radius + db.radius - cr_v3_len(cr_v3_sub(xa, state_of(w, b).position));
            if (overlap > worst) worst = overlap;
        }
    }
    return worst;
}

/* One run's deepest overlap between balls on the surface, m, with at most
 * cap impacts per ball per step before the rest are deferred; *deferred
 * (where given): how many were. A flying ball may sink into a surface ball
 * by at most flying_limit (INFINITY: not looked at). */
static double run_capped(int hz, uint64_t seed, int cap, int balls, uint64_t *deferred_out, double flying_limit)
{
    cr_world_def d = boiling_world_def(hz);
    d.max_events_per_body = cap;
    cr_world *w = make_world_def(&d);
    uint64_t rng = seed;
    assert_int_equal(boiling_scene_add(w, balls, uniform, &rng), CR_OK);
    double deepest = 0.0, energy = cr_world_energy(w).total, scale = cr_world_energy(w).kinetic;
    uint64_t deferred = 0;
    for (int step = 0; step < hz; ++step) {
        assert_int_equal(cr_world_step(w), CR_OK);
        double overlap = deepest_pair(w, false);
        if (overlap > 1e-3)
            fail_msg("%d Hz, seed %llu: step %d: balls on the surface %.3g m into each other", hz,
                     (unsigned long long)seed, step, overlap);
        deepest = fmax(deepest, overlap);
        if (flying_limit < INFINITY && deepest_pair(w, true) > flying_limit)
            fail_msg("%d Hz, seed %llu: step %d: a flying ball %.3g m into a surface ball", hz,
                     (unsigned long long)seed, step, deepest_pair(w, true));
        deferred += cr_world_stats(w)->events_deferred;
        double now = cr_world_energy(w).total;
        if (now > energy + 1e-9 * scale) fail_msg("%d Hz: step %d: energy grew by %.3g J", hz, step, now - energy);
        energy = now;
    }
    print_message("%d Hz, seed %llu: deepest overlap on the surface %.3g m, %llu impacts deferred\n", hz,
                  (unsigned long long)seed, deepest, (unsigned long long)deferred);
    cr_world_destroy(w);
    if (deferred_out) *deferred_out = deferred;
    return deepest;
}

static double run(int hz, uint64_t seed)
{
    return run_capped(hz, seed, cr_default_world_def().max_events_per_body, BALLS, NULL, INFINITY);
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void test_balls_on_a_surface_stay_apart(void **state)
{
    (void)state;
    double deepest[20];
    for (uint64_t seed = 1; seed <= 10; ++seed) {
        deepest[2 * (seed - 1)] = run(60, seed);
        deepest[2 * (seed - 1) + 1] = run(120, seed);
    }
    qsort(deepest, 20, sizeof *deepest, by_value);
    double median = 0.5 * (deepest[9] + deepest[10]);
    double mean = 0.0;
    for (int k = 0; k < 20; ++k) mean += deepest[k] / 20.0;
    print_message("runs' deepest overlaps: median %.3g m, mean %.3g m, worst %.3g m\n", median, mean, deepest[19]);
    assert_true(median <= 1e-6);
    assert_true(mean <= 6e-5);
}

/* Impacts over max_events_per_body (inelastic collapse) still stop their
 * pair: with the cap at 2 many steps of each run go over it, and each run
 * must still hold every pair of surface balls within 1 mm and never grow
 * the energy (run_capped's checks). When an impact over the cap was
 * skipped, the pair kept closing for the rest of the step and projection,
 * which holds balls on a surface, never separated them (at 61c63a5: 2.2 mm
 * in step 2 of seed 1; resolved but not predicted again right at the cap,
 * 3.2 mm in step 13; at twice the cap 1.2 mm in step 43). */
static void test_deferred_impacts_stay_apart(void **state)
{
    (void)state;
    uint64_t deferred = 0;
    for (uint64_t seed = 1; seed <= 4; ++seed) {
        uint64_t d = 0;
        run_capped(60, seed, 2, BALLS, &d, INFINITY);
        deferred += d;
    }
    assert_true(deferred > 100); /* the cap was reached, often */
}

/* A crowd: 1,000 balls of the same scene, four seeds, where chains of
 * three balls form (one pushed by a faster one into a third it leans on).
 * Each run: no two surface balls more than 1 mm into each other, no flying
 * ball 0.5 mm into a surface ball, the energy never grown (run_capped). At df8cb7f seed 4 reached 2.7 mm in
 * step 26 and seed 5 1.2 mm in step 39; now 0.09, 0.29, 0.002 and 0.25 mm.
 * Three ways the events and the resting contacts disagreed, each caught:
 *   - a touching pair closing at rounding counted an impact, again and
 *     again at one instant, until the ball passed CR_EVENTS_HARD times the
 *     cap and was no longer predicted (pair_event.h; undone: seed 4 2.7 mm,
 *     seed 5 1.0 mm);
 *   - a slow approach counted resting (cr_pair_rests) where the plan had
 *     not held it (lean_on measures it in the tangent plane: 0.3274 against
 *     0.3267 m/s), so it ran in with neither impact nor hold; cr_rest_holds
 *     reads the plan's held mask (undone: seed 5 1.4 mm);
 *   - the chord held out of a neighbour whose approach the plan did not
 *     hold (judged after lean, on the velocity lean left): the ball's
 *     velocity ran on into it, its path did not, and the ball behind ran
 *     into its path with no impact; keep_off reads the mask too (undone:
 *     seeds 11 and 14 1.1 mm);
 *   - a surface ball hit into the balls it leans on, planned flying and
 *     its velocity held (cr_rest_hold_flying), while the flying ball that
 *     hit it came on: two flying balls, counted resting for projection to
 *     part, but the first landed again and projection held it (0.8 mm of
 *     seeds 5 and 16 and 1.3 mm at 10,000 balls); a flying ball that leans
 *     on something is held as a surface ball is (cr_pair_rests). Here no
 *     flying ball may sink 0.5 mm into a surface ball. */
static void test_crowded_balls_stay_apart(void **state)
{
    (void)state;
    const uint64_t seeds[] = {4, 5, 11, 14, 16};
    for (int k = 0; k < 5; ++k) run_capped(60, seeds[k], cr_default_world_def().max_events_per_body, 1000, NULL, 5e-4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_balls_on_a_surface_stay_apart),
        cmocka_unit_test(test_deferred_impacts_stay_apart),
        cmocka_unit_test(test_crowded_balls_stay_apart),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
