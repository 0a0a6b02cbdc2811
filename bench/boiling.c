/* Boiling benchmark (issue 4): seed 004's Figure 1 scene — balls of mixed
 * sizes, solid and hollow, on a hilly surface within four walls, low
 * friction — at 1,000, 10,000 and 100,000 balls (the area grows with the
 * count). Prints simulated seconds per wall-clock second (real time is >= 1),
 * impacts per second, the mean closest-point iterations, each stage's time
 * per step, and a hash of the end state (the same bits on any thread count
 * and before and after a change that keeps them).
 *
 * usage: bench_boiling [N ...]   (default: 1000 10000 100000)
 *        CAROM_BENCH_SECONDS=S   simulated seconds per size (default 2)
 *        CAROM_BENCH_THREADS=T   cr_world_def.worker_count (default 1)
 *        CAROM_BENCH_HZ=F        steps per simulated second (default 120, the
 *                                scene's own dt; 60 is seed 004's frame step
 *                                at issue 8's 60 Hz display)
 *        CAROM_BENCH_SLEEP=S     cr_world_def.sleep_time (default 0: never;
 *                                prints the balls asleep at the end)
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_args.h"
#include "bench_run.h"
#include "boiling_scene.h"
#include "carom/carom.h"

/* seconds from an environment variable in [0, 1e6]; false: not a number */
static bool env_seconds(const char *prog, const char *name, double *out)
{
    const char *text = getenv(name);
    if (!text) return true;
    char *end;
    double v = strtod(text, &end);
    if (end == text || *end || !(v >= 0.0 && v <= 1e6)) {
        fprintf(stderr, "%s: %s must be a number in [0, 1e6], got '%s'\n", prog, name, text);
        return false;
    }
    *out = v;
    return true;
}

static double uniform(void *state, double lo, double hi)
{
    uint64_t *r = state;
    *r = *r * 6364136223846793005ull + 1442695040888963407ull;
    return lo + (hi - lo) * (double)(*r >> 11) / 9007199254740992.0;
}

static int run(int n, double seconds, uint32_t threads, int hertz, double sleep)
{
    cr_world_def wd = boiling_world_def(hertz);
    wd.sleep_time = sleep;
    wd.worker_count = threads;
    cr_world *w;
    if (cr_world_create(&wd, &w) != CR_OK) return 1;
    uint64_t rng = 99; /* each size's own scene: its hash the same whatever sizes ran before it */
    if (boiling_scene_add(w, n, uniform, &rng) != CR_OK) {
        fprintf(stderr, "%s\n", cr_world_last_error(w));
        return 1;
    }
    int steps = (int)(seconds / wd.dt + 0.5);
    uint64_t events = 0;
    double stage[CR_STAGE_COUNT] = {0};
    uint64_t groups = 0, rerun = 0;
    uint32_t largest = 0;
    double deepest = 0.0;
    cr_energy e0 = cr_world_energy(w);
    double t0 = bench_now();
    for (int k = 0; k < steps; ++k) {
        if (cr_world_step(w) != CR_OK) {
            fprintf(stderr, "step failed: %s\n", cr_world_last_error(w));
            return 1;
        }
        const cr_step_stats *st = cr_world_stats(w);
        events += st->events;
        for (int q = 0; q < CR_STAGE_COUNT; ++q) stage[q] += st->stage_seconds[q];
        groups += st->event_groups;
        rerun += st->event_groups_rerun;
        largest = st->event_group_largest > largest ? st->event_group_largest : largest;
        deepest = st->max_penetration > deepest ? st->max_penetration : deepest;
    }
    double wall = bench_now() - t0;
    const cr_step_stats *st = cr_world_stats(w);
    printf("boiling N=%-7d threads %u %d Hz sim s / wall s %7.3f  (%s real time)  steps/s %8.1f  impacts/s %10.0f  closest-point "
           "iterations %.2f\n",
           n, threads, hertz, seconds / wall, seconds / wall >= 1.0 ? "faster than" : "slower than", steps / wall, events / wall,
           st->mean_closest_iterations);
    printf("  per stage (ms/step):");
    for (int q = 0; q < CR_STAGE_COUNT; ++q) printf(" %s %.2f", cr_stage_name(q), 1e3 * stage[q] / steps);
    printf("\n");
    /* what the step rate costs in physics (to compare Hz): overlap left
     * (the balls' radii are 25-40 mm) and the total energy's change */
    cr_energy e1 = cr_world_energy(w);
    printf("  deepest overlap left %.3f mm, energy %.6g -> %.6g J (%+.3f %%)\n", 1e3 * deepest, e0.total, e1.total,
           100.0 * (e1.total - e0.total) / fabs(e0.total));
    /* the end state's bits, to compare runs */
    printf("  state hash %016llx after %d steps\n", (unsigned long long)cr_world_state_hash(w), steps);
    if (sleep > 0.0) printf("  asleep at the end: %u of %d balls (sleep_time %g s)\n", st->sleeping, n, sleep);
    if (groups)
        printf("  event groups per step %.0f, largest %u balls, run again %.1f per step\n", (double)groups / steps,
               largest, (double)rerun / steps);
    cr_world_destroy(w);
    return 0;
}

int main(int argc, char **argv)
{
    double seconds = 2.0;
    if (getenv("CAROM_BENCH_SECONDS")) {
        char *end;
        const char *text = getenv("CAROM_BENCH_SECONDS");
        seconds = strtod(text, &end);
        if (end == text || *end || !(seconds > 0.0 && seconds <= 1e6)) {
            fprintf(stderr, "%s: CAROM_BENCH_SECONDS must be a number in (0, 1e6], got '%s'\n", argv[0], text);
            return 2;
        }
    }
    int t = 1;
    if (!bench_env_int(argv[0], "CAROM_BENCH_THREADS", 1, 64, &t)) return 2;
    uint32_t threads = (uint32_t)t;
    int hertz = 120;
    if (!bench_env_int(argv[0], "CAROM_BENCH_HZ", 1, 100000, &hertz)) return 2;
    double sleep = 0.0;
    if (!env_seconds(argv[0], "CAROM_BENCH_SLEEP", &sleep)) return 2;
    if (argc > 1) {
        int n[64];
        if (!bench_sizes(argv[0], argc - 1, argv + 1, n)) {
            fprintf(stderr, "usage: %s [N ...]  (balls; CAROM_BENCH_SECONDS, CAROM_BENCH_THREADS, CAROM_BENCH_HZ, CAROM_BENCH_SLEEP)\n", argv[0]);
            return 2;
        }
        for (int i = 0; i < argc - 1; ++i)
            if (run(n[i], seconds, threads, hertz, sleep)) return 1;
        return 0;
    }
    int sizes[] = {1000, 10000, 100000};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i)
        if (run(sizes[i], seconds, threads, hertz, sleep)) return 1;
    return 0;
}
