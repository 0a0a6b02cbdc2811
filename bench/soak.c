/* Soak benchmark (issue 7): scenes for many steps — by default the embedded
 * default scene (2,016 balls falling into a box), scenes/boiling.json (seed
 * 004 Figure 1, 1,000 balls on hills) and an elastic gas (300 balls, e = 1,
 * no friction, no gravity, in a closed box: test_hostile's case, here for
 * the full 10^6 steps), each for 10^6 steps — printing at intervals the
 * memory (resident set and its peak, from /proc/self/status), the energy
 * against the start, how many bodies left the statics (a centre more than
 * its radius behind a plane or a surface) and the deepest a ball dips into
 * one. At the end: whether memory stayed flat after the first interval, the
 * largest energy ratio, and the escapes.
 *
 * usage: bench_soak [default|boiling|gas|SCENE.json ...]   (default: all three)
 *        CAROM_SOAK_STEPS=N            steps per scene (default 1000000)
 *        CAROM_SOAK_REPORTS=K          report lines per scene (default 10)
 * Exit status 1 when a step fails, a body escapes, or the energy exceeds the
 * start by more than 1e-6 of it (none of these scenes has a source of energy).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_run.h"
#include "scene.h"

#ifndef CAROM_SOURCE_DIR
#define CAROM_SOURCE_DIR "."
#endif

/* VmRSS and VmHWM (peak) in kB; -1 where /proc is missing. */
static void memory_kb(long *rss, long *peak)
{
    *rss = *peak = -1;
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return;
    char line[256];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "VmRSS:", 6) == 0) *rss = strtol(line + 6, NULL, 10);
        if (strncmp(line, "VmHWM:", 6) == 0) *peak = strtol(line + 6, NULL, 10);
    }
    fclose(f);
}

/* Bodies whose centre lies more than its radius behind a plane or a surface
 * (escaped), and the deepest overlap of any ball with a static, r - distance
 * (> 0: the ball dips in by that much; < 0: every ball is clear of every
 * static by at least that much). */
static void containment(const cr_scene *s, uint32_t *escaped, double *deepest)
{
    cr_world *w = s->world;
    *escaped = 0;
    *deepest = -INFINITY;
    uint32_t cap = cr_world_body_capacity(w);
    for (uint32_t i = 0; i < cap; ++i) {
        cr_body_id id = cr_world_body_at(w, i);
        if (id.generation == 0) continue;
        cr_body_state st;
        cr_body_def d;
        cr_body_get_state(w, id, &st);
        cr_body_get_def(w, id, &d);
        double worst = -INFINITY; /* penetration r - distance into any static */
        for (uint32_t k = 0; k < s->static_count; ++k) {
            double pen;
            if (s->statics[k].type == CR_STATIC_PLANE) {
                cr_plane_def p;
                cr_plane_get_def(w, s->statics[k], &p);
                pen = cr_penetration_sphere_plane(st.position, d.radius, p.point, p.normal);
            } else {
                const cr_surface *sf = cr_world_surface(w, s->statics[k].index);
                double u, v;
                cr_surface_start(sf, st.position, &u, &v);
                cr_closest c = cr_surface_closest(sf, st.position, u, v, 1e-12);
                if (c.on_edge) continue; /* beside the surface, not behind it */
                pen = d.radius - c.distance;
            }
            if (pen > worst) worst = pen;
        }
        if (worst > 2.0 * d.radius) ++*escaped; /* the centre is more than r behind */
        if (worst > *deepest) *deepest = worst;
    }
}

static int soak(const char *label, cr_scene *s, uint64_t steps, int reports)
{
    cr_world *w = s->world;
    const double dt = cr_world_get_def(w)->dt;
    cr_energy e0 = cr_world_energy(w);
    long rss, peak, peak_first = -1;
    /* Restart the peak for this scene (Linux: "5" resets VmHWM to VmRSS). */
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (f) {
        fputs("5", f);
        fclose(f);
    }
    memory_kb(&rss, &peak);
    printf("\n%s: %u bodies, %u statics, dt %g s, %llu steps (%.0f s simulated)\n", label, s->body_count,
           s->static_count, dt, (unsigned long long)steps, steps * dt);
    printf("%10s %9s %9s %8s %15s %12s %9s %9s %7s %10s\n", "step", "sim s", "wall s", "steps/s", "E/E0",
           "kinetic J", "RSS kB", "peak kB", "escaped", "deepest m");
    uint32_t escaped = 0;
    double deepest;
    containment(s, &escaped, &deepest);
    printf("%10d %9.1f %9.1f %8s %15.12f %12.6g %9ld %9ld %7u %10.3g\n", 0, 0.0, 0.0, "-", 1.0, e0.kinetic, rss, peak,
           escaped, deepest);
    double max_ratio = 1.0, max_deepest = deepest;
    uint32_t max_escaped = escaped;
    double t0 = bench_now(), last = t0;
    uint64_t every = steps / (uint64_t)reports ? steps / (uint64_t)reports : 1, last_step = 0;
    for (uint64_t k = 1; k <= steps; ++k) {
        if (cr_world_step(w) != CR_OK) {
            printf("%s: step %llu failed: %s\n", label, (unsigned long long)k, cr_world_last_error(w));
            return 1;
        }
        /* The energy at every 100th step: its maximum, not only at reports. */
        if (k % 100 == 0 || k % every == 0 || k == steps) {
            double ratio = cr_world_energy(w).total / e0.total;
            if (ratio > max_ratio) max_ratio = ratio;
        }
        if (k % every == 0 || k == steps) {
            cr_energy e = cr_world_energy(w);
            memory_kb(&rss, &peak);
            if (peak_first < 0) peak_first = peak;
            containment(s, &escaped, &deepest);
            if (escaped > max_escaped) max_escaped = escaped;
            if (deepest > max_deepest) max_deepest = deepest;
            double t = bench_now();
            printf("%10llu %9.1f %9.1f %8.0f %15.12f %12.6g %9ld %9ld %7u %10.3g\n", (unsigned long long)k, k * dt,
                   t - t0, (k - last_step) / (t - last), e.total / e0.total, e.kinetic, rss, peak, escaped, deepest);
            fflush(stdout);
            last = t;
            last_step = k;
        }
    }
    double wall = bench_now() - t0;
    memory_kb(&rss, &peak);
    bool energy_ok = max_ratio <= 1.0 + 1e-6;
    printf("%s: %llu steps in %.0f s (%.0f steps/s); peak RSS %ld kB after the first interval, %ld kB at the end "
           "(%+ld kB); largest E/E0 - 1: %+.3g (%s); escaped bodies %u at most; deepest into a static %.3g m\n",
           label, (unsigned long long)steps, wall, steps / wall, peak_first, peak, peak - peak_first, max_ratio - 1.0,
           energy_ok ? "bounded" : "GREW", max_escaped, max_deepest);
    return energy_ok && max_escaped == 0 ? 0 : 1;
}

/* The elastic gas: 300 frictionless balls at 1 m/s in a closed 1 m box. */
static const char gas_scene[] =
    "{\"gravity\": [0, 0, 0], \"dt\": 0.01, \"method\": \"event\","
    " \"statics\": [{\"point\": [-0.5, 0, 0], \"normal\": [1, 0, 0], \"friction\": 0},"
    "  {\"point\": [0.5, 0, 0], \"normal\": [-1, 0, 0], \"friction\": 0},"
    "  {\"point\": [0, -0.5, 0], \"normal\": [0, 1, 0], \"friction\": 0},"
    "  {\"point\": [0, 0.5, 0], \"normal\": [0, -1, 0], \"friction\": 0},"
    "  {\"point\": [0, 0, -0.5], \"normal\": [0, 0, 1], \"friction\": 0},"
    "  {\"point\": [0, 0, 0.5], \"normal\": [0, 0, -1], \"friction\": 0}],"
    " \"generate\": [{\"random_fill\": {\"count\": 300, \"min\": [-0.5, -0.5, -0.5], \"max\": [0.5, 0.5, 0.5],"
    "  \"speed\": 1, \"seed\": 11}, \"body\": {\"radius\": 0.02, \"inertia\": \"particle\", \"restitution\": 1,"
    "  \"friction\": 0}}]}";

static int load(const char *name, cr_scene *s, char *err, size_t err_size, const char **label)
{
    *label = name;
    if (strcmp(name, "default") == 0) {
        *label = "scenes/default.json (embedded)";
        return cr_scene_load_default(s, err, err_size);
    }
    if (strcmp(name, "boiling") == 0) {
        *label = "scenes/boiling.json";
        return cr_scene_load_file(CAROM_SOURCE_DIR "/scenes/boiling.json", s, err, err_size);
    }
    if (strcmp(name, "gas") == 0) {
        *label = "elastic gas (300 balls, e = 1, no gravity; built in)";
        return cr_scene_load_string(gas_scene, "gas", s, err, err_size);
    }
    return cr_scene_load_file(name, s, err, err_size);
}

int main(int argc, char **argv)
{
    const char *env = getenv("CAROM_SOAK_STEPS");
    uint64_t steps = env ? strtoull(env, NULL, 10) : 1000000u;
    env = getenv("CAROM_SOAK_REPORTS");
    int reports = env ? atoi(env) : 10;
    if (steps == 0 || reports < 1) {
        fprintf(stderr, "bench_soak: CAROM_SOAK_STEPS and CAROM_SOAK_REPORTS must be >= 1\n");
        return 2;
    }
    const char *defaults[] = {"default", "boiling", "gas"};
    int n = argc > 1 ? argc - 1 : 3;
    int status = 0;
    for (int i = 0; i < n; ++i) {
        cr_scene s;
        char err[512];
        const char *label;
        if (load(argc > 1 ? argv[i + 1] : defaults[i], &s, err, sizeof err, &label)) {
            fprintf(stderr, "bench_soak: %s\n", err);
            return 2;
        }
        status |= soak(label, &s, steps, reports);
        cr_scene_free(&s);
    }
    return status;
}
