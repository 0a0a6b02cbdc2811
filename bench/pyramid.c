/* Box pyramid benchmark (issue 5): pyramids of unit boxes (half extent 0.5,
 * mass 1, mu = 0.6, e = 0) with 10, 20 and 50 rows (55, 210, 1,275 boxes)
 * on a plane, at 60 Hz for 5 simulated seconds. Prints steps/s, the deepest
 * penetration, how far the top box moved, and per-stage time.
 *
 * usage: bench_pyramid [ROWS ...] [--seconds S] [--sleep T] [--pgs N] [--threads W]
 *        (default: 10 20 50, S = 5, T = 0: no sleeping; T > 0: islands still
 *        for T seconds sleep, def.sleep_time; N: def.pgs_iterations, default
 *        carom's 50; W: def.worker_count, default 1)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_run.h"
#include "carom/carom.h"

typedef struct settings {
    double seconds, sleep_time;
    int pgs, threads;
} settings;

static int run(int rows, const settings *set)
{
    const double h = 0.5, gap = 0.05, seconds = set->seconds;
    cr_world_def def = cr_default_world_def();
    def.dt = 1.0 / 60.0;
    def.sleep_time = set->sleep_time;
    if (set->pgs > 0) def.pgs_iterations = set->pgs;
    def.worker_count = (uint32_t)set->threads;
    char why[256];
    if (cr_world_def_validate(&def, why, sizeof why) != CR_OK) {
        fprintf(stderr, "bench_pyramid: %s\n", why);
        return 2;
    }
    cr_world *w;
    if (cr_world_create(&def, &w) != CR_OK) return 1;
    cr_plane_def p = cr_default_plane_def();
    cr_world_add_plane(w, &p, NULL);
    cr_shape *box;
    char msg[256];
    if (cr_shape_create_box(cr_v3(h, h, h), &box, msg, sizeof msg) != CR_OK) return 1;
    cr_body_def d = cr_default_body_def();
    d.shape = CR_SHAPE_BOX;
    d.shape_ref = box;
    d.mass = 1.0;
    d.friction = 0.6;
    d.restitution = 0.0;
    cr_body_id top = {0, 0};
    int n = 0;
    for (int k = 0; k < rows; ++k)
        for (int i = 0; i < rows - k; ++i) {
            d.position = cr_v3((2 * h + gap) * (i + 0.5 * k), 0.0, h + 2 * h * k);
            if (cr_world_add_body(w, &d, &top) != CR_OK) return 1;
            ++n;
        }
    cr_shape_release(box);
    cr_body_state s0;
    cr_body_get_state(w, top, &s0);
    int steps = (int)(seconds / def.dt + 0.5);
    bench_totals t;
    if (!bench_steps(w, steps, &t)) return 1;
    cr_body_state s1;
    cr_body_get_state(w, top, &s1);
    printf("pyramid rows=%-3d boxes=%-5d steps/s %9.1f  contacts/step %7.0f  max_penetration %.3g m  top moved %.3g m  "
           "asleep at the end %u\n",
           rows, n, steps / t.wall, (double)t.contacts / steps, t.max_pen,
           cr_v3_len(cr_v3_sub(s1.position, s0.position)), cr_world_stats(w)->sleeping);
    printf("  carried over (contacts/step): %.0f\n", (double)t.carried / steps);
    bench_print_stages(&t, steps);
    cr_world_destroy(w);
    return 0;
}

int main(int argc, char **argv)
{
    int rows[16], count = 0;
    settings set = {5.0, 0.0, 0, 1};
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc) set.seconds = atof(argv[++i]);
        else if (strcmp(argv[i], "--sleep") == 0 && i + 1 < argc) set.sleep_time = atof(argv[++i]);
        else if (strcmp(argv[i], "--pgs") == 0 && i + 1 < argc) set.pgs = atoi(argv[++i]);
        else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) set.threads = atoi(argv[++i]);
        else if (count < 16) rows[count++] = atoi(argv[i]);
    }
    if (count == 0) {
        rows[0] = 10;
        rows[1] = 20;
        rows[2] = 50;
        count = 3;
    }
    for (int i = 0; i < count; ++i) {
        if (rows[i] < 1) {
            fprintf(stderr, "bench_pyramid: rows must be >= 1, got %d\n", rows[i]);
            return 2;
        }
        if (run(rows[i], &set)) return 1;
    }
    return 0;
}
