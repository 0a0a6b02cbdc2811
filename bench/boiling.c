/* Boiling benchmark (issue 4): seed 004's Figure 1 scene — balls of mixed
 * sizes, solid and hollow, on a hilly surface within four walls, low
 * friction — at 1,000, 10,000 and 100,000 balls (the area grows with the
 * count). Prints simulated seconds per wall-clock second (real time is >= 1),
 * impacts per second, and the mean closest-point iterations.
 *
 * usage: bench_boiling [N ...]   (default: 1000 10000 100000)
 *        CAROM_BENCH_SECONDS=S   simulated seconds per size (default 2)
 *        CAROM_BENCH_THREADS=T   cr_world_def.worker_count (default 1)
 */
#include <stdio.h>
#include <stdlib.h>

#include "bench_args.h"
#include "bench_run.h"
#include "carom/carom.h"

static uint64_t rng = 99;
static double uniform(double lo, double hi)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return lo + (hi - lo) * (double)(rng >> 11) / 9007199254740992.0;
}

static int run(int n, double seconds, uint32_t threads)
{
    /* 1,000 balls on 3 m x 3 m as in the tests; the side grows as sqrt(n). */
    double half = 1.5 * sqrt(n / 1000.0);
    cr_world_def wd = cr_default_world_def();
    wd.dt = 1.0 / 120.0;
    wd.method = CR_METHOD_EVENT;
    wd.law = CR_LAW_ROLLING;
    wd.worker_count = threads;
    cr_world *w;
    if (cr_world_create(&wd, &w) != CR_OK) return 1;
    /* Bumps on a 1 m lattice, alternately hills and hollows, plus waves. */
    int side = (int)ceil(2.0 * half);
    cr_hill *hills = malloc(sizeof *hills * (size_t)side * (size_t)side);
    int nh = 0;
    for (int i = 0; i < side; ++i)
        for (int j = 0; j < side; ++j)
            hills[nh++] = (cr_hill){((i + j) % 2 ? 0.2 : -0.12), -half + 0.5 + i, -half + 0.5 + j, 0.3};
    cr_surface_def s = cr_default_surface_def();
    s.type = CR_SURFACE_HILLS;
    s.u_min = s.v_min = -half;
    s.u_max = s.v_max = half;
    s.hills = hills;
    s.hill_count = (uint32_t)nh;
    s.wave_amplitude = 0.03;
    s.wave_length_x = 0.9;
    s.wave_length_y = 1.1;
    s.friction = 1.0;
    s.rolling_friction = 0.001;
    if (cr_world_add_surface(w, &s, NULL) != CR_OK) {
        fprintf(stderr, "%s\n", cr_world_last_error(w));
        return 1;
    }
    free(hills);
    const cr_surface *surface = cr_world_surface(w, 0);
    cr_plane_def p = cr_default_plane_def();
    cr_vec3 pts[4] = {{-half, 0, 0}, {half, 0, 0}, {0, -half, 0}, {0, half, 0}};
    cr_vec3 nrm[4] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}};
    for (int k = 0; k < 4; ++k) {
        p.point = pts[k];
        p.normal = nrm[k];
        cr_world_add_plane(w, &p, NULL);
    }
    int grid = (int)ceil(sqrt((double)n));
    double spacing = 2.0 * half / grid;
    for (int i = 0; i < n; ++i) {
        cr_body_def d = cr_default_body_def();
        d.radius = uniform(0.025, 0.04);
        d.mass = 1000.0 * 4.18879 * d.radius * d.radius * d.radius;
        d.inertia_kind = i % 3 == 0 ? CR_INERTIA_HOLLOW : CR_INERTIA_SOLID;
        d.inner_radius = i % 3 == 0 ? 0.7 * d.radius : 0.0;
        cr_surface_eval e;
        cr_vec3 nn;
        cr_surface_evaluate(surface, -half + spacing * (i % grid + 0.5), -half + spacing * (i / grid + 0.5), &e, &nn);
        d.position = cr_v3_madd(e.s, nn, d.radius);
        d.velocity = cr_v3_reject(cr_v3(uniform(-1, 1), uniform(-1, 1), 0.0), nn);
        d.restitution = 0.9;
        d.friction = 0.05;
        d.rolling_friction = 0.001;
        if (cr_world_add_body(w, &d, NULL) != CR_OK) {
            fprintf(stderr, "%s\n", cr_world_last_error(w));
            return 1;
        }
    }
    int steps = (int)(seconds / wd.dt + 0.5);
    uint64_t events = 0;
    double t0 = bench_now();
    for (int k = 0; k < steps; ++k) {
        if (cr_world_step(w) != CR_OK) {
            fprintf(stderr, "step failed: %s\n", cr_world_last_error(w));
            return 1;
        }
        events += cr_world_stats(w)->events;
    }
    double wall = bench_now() - t0;
    const cr_step_stats *st = cr_world_stats(w);
    printf("boiling N=%-7d threads %u sim s / wall s %7.3f  (%s real time)  steps/s %8.1f  impacts/s %10.0f  closest-point "
           "iterations %.2f\n",
           n, threads, seconds / wall, seconds / wall >= 1.0 ? "faster than" : "slower than", steps / wall, events / wall,
           st->mean_closest_iterations);
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
    if (argc > 1) {
        int n[64];
        if (!bench_sizes(argv[0], argc - 1, argv + 1, n)) {
            fprintf(stderr, "usage: %s [N ...]  (balls; CAROM_BENCH_SECONDS, CAROM_BENCH_THREADS)\n", argv[0]);
            return 2;
        }
        for (int i = 0; i < argc - 1; ++i)
            if (run(n[i], seconds, threads)) return 1;
        return 0;
    }
    int sizes[] = {1000, 10000, 100000};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i)
        if (run(sizes[i], seconds, threads)) return 1;
    return 0;
}
