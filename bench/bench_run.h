/* What the bench programs time and total: the wall clock (bench/ball_pit.c,
 * boiling.c, pyramid.c, scaling.c, soak.c), and a run of steps with the
 * world's per-step figures summed (bench/ball_pit.c, bench/pyramid.c). */
#ifndef CAROM_BENCH_RUN_H
#define CAROM_BENCH_RUN_H

#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "carom/carom.h"

/* Wall-clock seconds (TIME_UTC: C11, no POSIX). */
static inline double bench_now(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The figures of a run of steps: seconds per stage and the deepest
 * penetration over the steps, the step totals of contacts, impacts (events)
 * and carried contacts, and the wall-clock seconds of the whole run. */
typedef struct bench_totals {
    double stage[CR_STAGE_COUNT], max_pen, wall;
    uint64_t contacts, events, carried;
} bench_totals;

/* Steps w steps times into *t (zeroed first); false, with the world's
 * message on stderr, when a step fails. */
static inline int bench_steps(cr_world *w, int steps, bench_totals *t)
{
    *t = (bench_totals){{0}, 0.0, 0.0, 0, 0, 0};
    double t0 = bench_now();
    for (int s = 0; s < steps; ++s) {
        if (cr_world_step(w) != CR_OK) {
            fprintf(stderr, "step failed: %s\n", cr_world_last_error(w));
            return 0;
        }
        const cr_step_stats *st = cr_world_stats(w);
        for (int k = 0; k < CR_STAGE_COUNT; ++k) t->stage[k] += st->stage_seconds[k];
        if (st->max_penetration > t->max_pen) t->max_pen = st->max_penetration;
        t->contacts += st->contacts;
        t->events += st->events;
        t->carried += st->carried_contacts;
    }
    t->wall = bench_now() - t0;
    return 1;
}

/* The line "  per stage (ms/step): NAME MS ..." of a run of steps. */
static inline void bench_print_stages(const bench_totals *t, int steps)
{
    printf("  per stage (ms/step):");
    for (int k = 0; k < CR_STAGE_COUNT; ++k) printf(" %s %.3f", cr_stage_name(k), 1e3 * t->stage[k] / steps);
    printf("\n");
}

#endif
