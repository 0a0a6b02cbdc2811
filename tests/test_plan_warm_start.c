/* A ball's plan on a surface leaves its warm start (bodies.su, sv) where
 * its memo's surface is (src/rolling.c plan_surface; src/surface.c
 * cr_surface_closest_memo): the memo holds the evaluation at the last
 * search's anchor, and a search that starts there takes Newton's first
 * step from it without evaluating the surface. The plan's last search is
 * its chord's end (s1, or keep_off's after it); a plan again at an event
 * on that chord (an impact, or the state change at its end) starts from
 * the warm start. When that was the chord's start (st's anchor, no longer
 * in the memo), each such plan cost one evaluation more: in the boiling
 * scene 3 evaluations where it now takes 2 (docs/benchmarks.md, "guess").
 *
 * The scene (bench/boiling_scene.h; 400 balls on the hills lattice, 60 Hz,
 * three seeds): after each of 20 steps every ball bound to the surface is
 * planned for the next step (cr_body_plan from its start, as the predict
 * stage does, and as the events do from a time inside it), and a
 * ball still bound to it must have its warm start on its memo's anchor,
 * to the bit. */
#include <string.h>

#include "boiling_scene.h"
#include "test_helpers.h"
#include "surface_internal.h"
#include "world_internal.h"

#define BALLS 400

static double uniform(void *seed, double lo, double hi) { return test_rand(seed, lo, hi); }

static bool same(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

static void test_plan_leaves_warm_start_on_memo(void **state)
{
    (void)state;
    for (uint64_t s = 1; s <= 3; ++s) {
        cr_world_def d = boiling_world_def(60.0);
        cr_world *w = make_world_def(&d);
        uint64_t seed = 2000 + s;
        assert_int_equal(boiling_scene_add(w, BALLS, uniform, &seed), CR_OK);
        long planned = 0;
        for (int k = 0; k < 20; ++k) {
            assert_int_equal(cr_world_step(w), CR_OK);
            cr_bodies *b = &w->bodies;
            for (uint32_t i = 0; i < b->slot_count; ++i) {
                if (!cr_slot_alive(b, i) || b->surface[i] == CR_NO_SURFACE) continue;
                b->t_local[i] = 0.0; /* the next step's start, as cr_body_predict sets it */
                cr_body_plan(w, i);
                if (b->surface[i] == CR_NO_SURFACE) continue; /* it took off: no search to come */
                const cr_closest_memo *m = &w->closest_memo[i];
                if (!(m->surface == b->surface[i] && same(b->su[i], m->u) && same(b->sv[i], m->v)))
                    fail_msg("seed %llu step %d ball %u: warm start (%.17g, %.17g), memo (%.17g, %.17g) on %u",
                             (unsigned long long)s, k, i, b->su[i], b->sv[i], m->u, m->v, m->surface);
                ++planned;
            }
        }
        print_message("seed %llu: %ld plans checked\n", (unsigned long long)s, planned);
        assert_true(planned > 20 * BALLS / 2);
        cr_world_destroy(w);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plan_leaves_warm_start_on_memo),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
