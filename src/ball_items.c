/* Per-ball work of a world with parametric surfaces, spread over the
 * world's workers (cr_run_items).
 *
 * Planning a ball at the step's start (seed 004 §4: its closest point, its
 * state, the moving algorithm) and putting it back on its surface at the
 * step's end read the statics and write ball i's own state only, so the
 * balls are independent: the results are the same bits for any number of
 * workers. The one shared thing they touch is the closest-point tally (the
 * mean iterations in cr_step_stats): each worker counts into its own, added
 * to the world's after the run (whole numbers, exact in any order).
 */
#include "dem_internal.h"

/* Bodies per work item: fixed, not a function of the workers. */
#define CR_BALL_CHUNK 256u

/* The tally of the worker running on this thread; NULL outside a run. */
static _Thread_local cr_closest_tally *tally;

cr_closest_tally *cr_closest_tally_use(cr_closest_tally *t)
{
    cr_closest_tally *was = tally;
    tally = t;
    return was;
}

void cr_count_closest(cr_world *w, int iterations)
{
    if (tally) {
        tally->iterations += iterations;
        tally->calls++;
        return;
    }
    w->closest_iterations += iterations;
    w->closest_calls++;
}

/* A worker's tally alone in its cache line: every closest point adds to
 * it, and two workers' tallies side by side in one line would pass that
 * line from core to core at every count. */
typedef struct worker_tally {
    _Alignas(64) cr_closest_tally t;
} worker_tally;

typedef struct ball_run {
    cr_world *w;
    cr_ball_fn *fn;
    worker_tally tally[64]; /* one per worker: worker_count <= 64 */
} ball_run;

/* fn over slots [i0, i1) but the parked sleeping balls (cr_broad_sleeps,
 * its arrays read once here: a ball function changes neither). A settled
 * world's slots are mostly those: eight at a time are passed
 * (cr_broad_past_sleeping), so its step's five runs cost about its awake
 * balls (10,000 settled: 60 instructions a ball a step before). The same
 * fn calls in the same order: the same bits. */
static void run_range(cr_world *w, cr_ball_fn *fn, uint32_t i0, uint32_t i1)
{
    const uint8_t *asleep = w->bodies.asleep, *parked = w->broad.parked;
    uint32_t room = w->broad.parked_capacity;
    if (!w->broad.parked_count) {
        for (uint32_t i = i0; i < i1; ++i) fn(w, i);
        return;
    }
    for (uint32_t i = i0; (i = cr_broad_past_sleeping(&w->broad, asleep, i, i1)) < i1; ++i)
        if (!(i < room && parked[i] && asleep[i])) fn(w, i);
}

static void run_chunk(uint32_t start, uint32_t end, uint32_t worker, void *ctx)
{
    ball_run *r = ctx;
    uint32_t slots = r->w->bodies.slot_count;
    tally = &r->tally[worker].t;
    for (uint32_t c = start; c < end; ++c)
        run_range(r->w, r->fn, c * CR_BALL_CHUNK, cr_chunk_end(c, CR_BALL_CHUNK, slots));
    tally = NULL;
}

void cr_run_balls(cr_world *w, cr_ball_fn *fn)
{
    uint32_t slots = w->bodies.slot_count;
    /* Threads only where the work is worth it (closest points), and not
     * under the Stronge law, whose impacts count their fallbacks in the
     * world's stats. */
    uint32_t parked = w->broad.parked_count; /* parked balls cost nothing: no threads for a few others */
    bool parallel = w->surfaces.count > 0 && w->def.law != CR_LAW_STRONGE && cr_parallel(w) &&
                    (!parked || slots - parked > CR_BALL_CHUNK);
    if (!parallel) {
        run_range(w, fn, 0, slots);
        return;
    }
    ball_run r;
    r.w = w;
    r.fn = fn;
    for (int k = 0; k < 64; ++k) r.tally[k].t = (cr_closest_tally){0.0, 0};
    cr_run_items(w, run_chunk, (slots + CR_BALL_CHUNK - 1) / CR_BALL_CHUNK, &r);
    for (int k = 0; k < 64; ++k) {
        w->closest_iterations += r.tally[k].t.iterations;
        w->closest_calls += r.tally[k].t.calls;
    }
}
