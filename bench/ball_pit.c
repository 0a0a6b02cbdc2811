/* Ball pit benchmark (issue 2): N spheres r = 0.05, mass 0.5, e = 0.5,
 * mu = 0.3, dropped from a jittered lattice into a square box sized for about
 * ten settled layers, dt = 1/240, 2 simulated seconds. Prints steps/s,
 * contacts/s, impacts, the maximum penetration, balls lost from the box and
 * per-stage time.
 *
 * usage: bench_ball_pit [-p PASSES] [-s] [-n STEPS] [N ...]   (default: 1000 8000 27000)
 *   -p PASSES  the world's projection_passes (default 1, seed 000's single
 *              pass; more take overlaps of the pile out, docs/physics.md)
 *   -s         projection_shock: the extra passes propagate shocks from the
 *              ground up (docs/physics.md, step 5)
 *   -n STEPS   steps to run (default 480, 2 simulated seconds; fewer stop
 *              during the landing: for short profiling runs at large N)
 * environment: CAROM_BENCH_THREADS=T   cr_world_def.worker_count (default 1)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_args.h"
#include "bench_run.h"
#include "carom/carom.h"

static uint64_t rng = 12345;
static double jitter(double a)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return a * ((double)(rng >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

static int passes = 1;
static bool shock = false;
static int steps = 480;
static uint32_t threads = 1;

static int run(int n)
{
    const double r = 0.05, spacing = 0.11;
    double side = sqrt(n / 10.0) * 2.0 * r; /* ten square-packed layers */
    int per_row = (int)(side / spacing);
    if (per_row < 1) per_row = 1;
    cr_world_def def = cr_default_world_def();
    def.dt = 1.0 / 240.0;
    def.projection_passes = passes;
    def.projection_shock = shock;
    def.worker_count = threads;
    cr_world *w;
    if (cr_world_create(&def, &w) != CR_OK) return 1;
    cr_plane_def p = cr_default_plane_def();
    cr_vec3 pts[5] = {{0, 0, 0}, {0, 0, 0}, {side, 0, 0}, {0, 0, 0}, {0, side, 0}};
    cr_vec3 nrm[5] = {{0, 0, 1}, {1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}};
    for (int k = 0; k < 5; ++k) {
        p.point = pts[k];
        p.normal = nrm[k];
        cr_world_add_plane(w, &p, NULL);
    }
    cr_body_def d = cr_default_body_def();
    d.radius = r;
    d.mass = 0.5;
    d.restitution = 0.5;
    d.friction = 0.3;
    for (int i = 0; i < n; ++i) {
        int layer = i / (per_row * per_row), in = i % (per_row * per_row);
        d.position = cr_v3(r + 0.005 + spacing * (in % per_row) + jitter(0.004),
                           r + 0.005 + spacing * (in / per_row) + jitter(0.004), r + 0.01 + spacing * layer);
        if (cr_world_add_body(w, &d, NULL) != CR_OK) return 1;
    }
    bench_totals t;
    if (!bench_steps(w, steps, &t)) return 1;
    /* a ball is lost when its centre left the box (walls are planes) */
    int lost = 0;
    for (uint32_t i = 0; i < cr_world_body_capacity(w); ++i) {
        cr_body_state st;
        if (cr_body_get_state(w, cr_world_body_at(w, i), &st) != CR_OK) continue;
        cr_vec3 x = st.position;
        if (!(x.x > 0.0 && x.x < side && x.y > 0.0 && x.y < side && x.z > 0.0)) ++lost;
    }
    printf("ball_pit N=%-6d passes %d%s steps/s %9.1f  contacts/s %11.0f  impacts %8llu  max_penetration %.3g m (%.2f%% of r)  lost %d\n", n, passes,
           shock ? " shock" : "", steps / t.wall, t.contacts / t.wall, (unsigned long long)t.events, t.max_pen, 100.0 * t.max_pen / r, lost);
    bench_print_stages(&t, steps);
    cr_world_destroy(w);
    return 0;
}

static void usage(const char *prog)
{
    fprintf(stderr,
            "usage: %s [-p PASSES] [-n STEPS] [-s] [N ...]\n"
            "  the impulse ball pit at N balls (default 1000 8000 27000); -p projection passes, -n steps\n"
            "  (default 480), -s shock propagation; CAROM_BENCH_THREADS: worker threads\n",
            prog);
}

int main(int argc, char **argv)
{
    int sizes[] = {1000, 8000, 27000};
    int t = 1;
    if (!bench_env_int(argv[0], "CAROM_BENCH_THREADS", 1, 64, &t)) return 2;
    threads = (uint32_t)t;
    int first = 1;
    for (;;) {
        if (argc > first + 1 && strcmp(argv[first], "-p") == 0) {
            if (!bench_int(argv[0], "-p PASSES", argv[first + 1], 1, 1000, &passes)) return 2;
            first += 2;
        } else if (argc > first + 1 && strcmp(argv[first], "-n") == 0) {
            if (!bench_int(argv[0], "-n STEPS", argv[first + 1], 1, 100000000, &steps)) return 2;
            first += 2;
        } else if (argc > first && strcmp(argv[first], "-s") == 0) {
            shock = true;
            first += 1;
        } else
            break;
    }
    if (argc > first) {
        int n[64];
        if (!bench_sizes(argv[0], argc - first, argv + first, n)) {
            usage(argv[0]);
            return 2;
        }
        for (int i = 0; i < argc - first; ++i)
            if (run(n[i])) return 1;
        return 0;
    }
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i)
        if (run(sizes[i])) return 1;
    return 0;
}
