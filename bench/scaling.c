/* Scaling benchmark (issue 8: "time per body-step within 1.5x from 1,000 to
 * 1,000,000 spheres", "memory per sphere stated and small"): a granular bed
 * of N spheres (r = 0.05 m, 0.5 kg) packed on a simple cubic lattice, each
 * touching its six neighbours, settling under gravity in a box that is
 * periodic in x and y, ten layers deep on a floor of frozen spheres, with
 * CR_METHOD_DEM (Hooke with tangential history, kn = 2e5 N/m, dt = 1e-4 s),
 * so that the density and the contacts per sphere are the same at every N
 * and only the count changes. Prints microseconds per body-step (the time
 * inside cr_world_step over the measured steps, divided by steps x bodies),
 * its ratio to the smallest N, the same from the process's CPU time (C's
 * clock(): on a machine shared with other work the wall clock also counts
 * the time the process waited for a core, the CPU time does not), contacts
 * and listed pairs per body, the stages' wall-clock time per body-step
 * (cr_step_stats.stage_seconds: for the DEM, predict is the move, broad
 * the list builds, contacts the pairs, finish the sums and the second half
 * kick, which from 65,536 bodies on one thread run with the pairs, in the
 * contacts stage) and the memory the world holds per sphere (the process's resident
 * set after the steps minus before the world was made, over the bodies;
 * split into the world's body records, before the first step, and what the
 * method added: Linux /proc, else n/a), and a hash of the end state.
 *
 * usage: bench_scaling [N ...] [--steps K] [--threads T]
 *        (default: 1000 10000 100000 1000000, K = 200 measured steps after
 *        20 unmeasured ones, T = 1: cr_world_def.worker_count)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_run.h"
#include "carom/carom.h"

/* Resident set in bytes (Linux), or -1. */
static double resident_bytes(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return -1.0;
    char line[256];
    double kb = -1.0;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "VmRSS:", 6) == 0) kb = atof(line + 6);
    fclose(f);
    return kb < 0.0 ? -1.0 : 1024.0 * kb;
}

static uint64_t rng = 2026;
static double jitter(double a)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return a * ((double)(rng >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

static int run(int n, int steps, int threads, double *first_us, double *first_cpu)
{
    const double r = 0.05, m = 0.5, spacing = 2.0 * r * (1.0 - 1e-4); /* touching */
    int side = (int)ceil(sqrt(n / 10.0)); /* columns per row: about ten layers */
    double box = side * spacing;
    double rss0 = resident_bytes();
    cr_world_def def = cr_default_world_def();
    def.method = CR_METHOD_DEM;
    def.dt = 1e-4;
    def.hooke.kn = 2e5;
    def.hooke.kt = 2.0 / 7.0 * 2e5;
    def.hooke.gamma_n = 50.0;
    def.hooke.mu = 0.5;
    def.periodic.x = def.periodic.y = true;
    def.periodic.lo = cr_v3(0, 0, -1);
    def.periodic.hi = cr_v3(box, box, 1.0 + spacing * (n / (side * side) + 2));
    def.worker_count = (uint32_t)threads;
    char why[256];
    if (cr_world_def_validate(&def, why, sizeof why) != CR_OK) {
        fprintf(stderr, "bench_scaling: %s\n", why);
        return 2;
    }
    cr_world *w;
    if (cr_world_create(&def, &w) != CR_OK) return 1;
    cr_body_def d = cr_default_body_def();
    d.radius = r;
    d.mass = m;
    d.inertia_kind = CR_INERTIA_SOLID;
    /* the floor: frozen spheres on a square lattice */
    d.type = CR_BODY_KINEMATIC;
    for (int i = 0; i < side; ++i)
        for (int j = 0; j < side; ++j) {
            d.position = cr_v3((i + 0.5) * spacing, (j + 0.5) * spacing, 0.0);
            if (cr_world_add_body(w, &d, NULL) != CR_OK) return 1;
        }
    d.type = CR_BODY_DYNAMIC;
    for (int k = 0; k < n; ++k) {
        int i = k % side, j = k / side % side, layer = k / (side * side);
        d.position = cr_v3((i + 0.5) * spacing, (j + 0.5) * spacing, (layer + 1) * spacing);
        d.velocity = cr_v3(jitter(0.01), jitter(0.01), jitter(0.01));
        if (cr_world_add_body(w, &d, NULL) != CR_OK) {
            fprintf(stderr, "bench_scaling: %s\n", cr_world_last_error(w));
            return 1;
        }
    }
    const double rss_bodies = resident_bytes(); /* the world's body records, before the DEM's arrays */
    double stepping = 0.0, cpu = 0.0, contacts = 0.0, listed = 0.0, stage[CR_STAGE_COUNT] = {0};
    for (int s = 0; s < 20 + steps; ++s) {
        const double t0 = bench_now();
        const clock_t c0 = clock();
        if (cr_world_step(w) != CR_OK) {
            fprintf(stderr, "bench_scaling: %s\n", cr_world_last_error(w));
            return 1;
        }
        if (s < 20) continue;
        cpu += (double)(clock() - c0) / CLOCKS_PER_SEC;
        stepping += bench_now() - t0;
        const cr_step_stats *st = cr_world_stats(w);
        contacts += st->contacts;
        listed += st->candidate_pairs;
        for (int k = 0; k < CR_STAGE_COUNT; ++k) stage[k] += st->stage_seconds[k];
    }
    double rss1 = resident_bytes();
    uint32_t bodies = (uint32_t)(n + side * side);
    const double per = 1e6 / ((double)steps * bodies), us = stepping * per, cpu_us = cpu * per;
    if (*first_us <= 0.0) *first_us = us, *first_cpu = cpu_us;
    char mem[64] = "n/a";
    if (rss0 >= 0.0 && rss1 >= 0.0)
        snprintf(mem, sizeof mem, "%.0f B (bodies %.0f, dem %.0f)", (rss1 - rss0) / bodies, (rss_bodies - rss0) / bodies,
                 (rss1 - rss_bodies) / bodies);
    printf("scaling N=%-8d bodies=%-8u threads %d  steps/s %9.2f  us/body-step %7.4f  (x%.2f of the first)  "
           "cpu us/body-step %7.4f  (x%.2f)  contacts/body %.2f  listed/body %.2f  memory/sphere %s\n",
           n, bodies, threads, steps / stepping, us, us / *first_us, cpu_us, cpu_us / *first_cpu,
           contacts / steps / bodies, listed / steps / bodies, mem);
    printf("  stages (wall us/body-step):");
    for (int k = 0; k < CR_STAGE_COUNT; ++k)
        if (stage[k] > 0.0) printf(" %s %.4f", cr_stage_name(k), stage[k] * per);
    printf("\n");
    /* the end state's bits, to compare runs: the same on any thread count */
    printf("  state hash %016llx after %d steps\n", (unsigned long long)cr_world_state_hash(w), 20 + steps);
    cr_world_destroy(w);
    return 0;
}

int main(int argc, char **argv)
{
    int sizes[16], count = 0, steps = 200, threads = 1;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--steps") == 0 && i + 1 < argc) steps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) threads = atoi(argv[++i]);
        else if (count < 16) sizes[count++] = atoi(argv[i]);
    }
    if (count == 0) {
        int def[4] = {1000, 10000, 100000, 1000000};
        memcpy(sizes, def, sizeof def);
        count = 4;
    }
    if (steps < 1) {
        fprintf(stderr, "bench_scaling: --steps must be >= 1, got %d\n", steps);
        return 2;
    }
    double first = 0.0, first_cpu = 0.0;
    for (int i = 0; i < count; ++i) {
        if (sizes[i] < 10) {
            fprintf(stderr, "bench_scaling: N must be >= 10, got %d\n", sizes[i]);
            return 2;
        }
        int rc = run(sizes[i], steps, threads, &first, &first_cpu);
        if (rc) return rc;
    }
    return 0;
}
