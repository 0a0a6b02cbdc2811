/* Stage 5, finish: every body to the end of the step, position projection
 * (seed 000 c.5-c.6, eq. 5.27/5.28 with k_p; projection.c), and the
 * finiteness check. */
#include "dem_internal.h"
#include "item_max.h"
#include "world_internal.h"

/* The deepest overlap among broad pairs [k0, k1) and the dynamic bodies'
 * plane penetrations of slots [i0, i1), from 0. */
static double deepest(const cr_world *w, uint32_t k0, uint32_t k1, uint32_t i0, uint32_t i1)
{
    const cr_bodies *b = &w->bodies;
    double worst = 0.0;
    for (uint32_t k = k0; k < k1; ++k) {
        uint32_t i = w->broad.pairs[k].a, j = w->broad.pairs[k].b;
        double reach = b->radius[i] + b->radius[j];
        /* apart (with room for rounding): nothing to add */
        if (cr_v3_len2(cr_v3_sub(b->x[i], b->x[j])) > reach * reach * (1.0 + 1e-9)) continue;
        worst = fmax(worst, cr_overlap_sphere_sphere(b->x[i], b->radius[i], b->x[j], b->radius[j], NULL));
    }
    for (uint32_t i = i0; i < i1; ++i) {
        if (!cr_slot_alive(b, i) || !cr_slot_dynamic(b, i)) continue;
        /* a parked sleeping ball: as deep as when it was parked */
        double d = cr_broad_sleeps(&w->broad, i, b->asleep[i]) ? w->broad.parked_depth[i] : cr_ball_plane_depth(w, i);
        worst = d > worst ? d : worst;
    }
    return worst;
}

/* Pairs, or bodies, per work item of the deepest overlap: fixed, not a
 * function of the workers. */
#define CR_DEEPEST_CHUNK 4096u

typedef struct deepest_run {
    const cr_world *w;
    uint32_t pair_items;   /* items [0, pair_items) take pairs, the rest bodies */
} deepest_run;

/* Work item c's deepest: a chunk of the broad pairs, or of the bodies
 * against the planes. */
static double deepest_item(const void *ctx, uint32_t c)
{
    const deepest_run *r = ctx;
    uint32_t pairs = r->w->broad.pair_count, slots = r->w->bodies.slot_count;
    if (c < r->pair_items) {
        uint32_t k1 = cr_chunk_end(c, CR_DEEPEST_CHUNK, pairs);
        return deepest(r->w, c * CR_DEEPEST_CHUNK, k1, 0, 0);
    }
    uint32_t b = c - r->pair_items;
    return deepest(r->w, 0, 0, b * CR_DEEPEST_CHUNK, cr_chunk_end(b, CR_DEEPEST_CHUNK, slots));
}

/* The step's deepest overlap (the max_penetration stat): on the caller
 * when small, else over the workers (item_max.h: the same maximum for any
 * split). */
double cr_max_penetration(cr_world *w)
{
    uint32_t pairs = w->broad.pair_count, slots = w->bodies.slot_count;
    if (!cr_parallel(w) || pairs + slots <= 2 * CR_DEEPEST_CHUNK) return deepest(w, 0, pairs, 0, slots);
    deepest_run r = {w, (pairs + CR_DEEPEST_CHUNK - 1) / CR_DEEPEST_CHUNK};
    return cr_max_over_items(w, r.pair_items + (slots + CR_DEEPEST_CHUNK - 1) / CR_DEEPEST_CHUNK, deepest_item, &r);
}

/* What of live body i is not finite, NULL for nothing; a parked sleeping
 * ball has not moved since it was checked. */
static const char *nonfinite(const cr_world *w, uint32_t i)
{
    const cr_bodies *b = &w->bodies;
    if (!cr_slot_alive(b, i) || cr_broad_sleeps(&w->broad, i, b->asleep[i])) return NULL;
    return !cr_v3_isfinite(b->x[i])   ? "position"
           : !cr_v3_isfinite(b->v[i]) ? "velocity"
           : !cr_v3_isfinite(b->w[i]) ? "angular velocity"
                                      : NULL;
}

cr_status cr_check_finite(cr_world *w, const char *hint)
{
    for (uint32_t i = 0; i < w->bodies.slot_count; ++i) {
        const char *what = nonfinite(w, i);
        if (what) {
            w->failed = true;
            return cr_fail(w, CR_ERR_NON_FINITE, "body %u: non-finite %s at step %llu (t = %.17g); the world stopped%s",
                           i, what, (unsigned long long)w->steps + 1, w->time + w->def.dt, hint);
        }
    }
    return CR_OK;
}

/* Bodies per work item of the finiteness test: fixed, not a function of
 * the workers. */
#define CR_FINITE_CHUNK 4096u

/* Work item c: 1 when one of its bodies is not finite, else 0. */
static double nonfinite_item(const void *ctx, uint32_t c)
{
    const cr_world *w = ctx;
    uint32_t slots = w->bodies.slot_count, i1 = cr_chunk_end(c, CR_FINITE_CHUNK, slots);
    /* a parked sleeping ball has not moved since it was checked */
    for (uint32_t i = c * CR_FINITE_CHUNK; (i = cr_broad_past_sleeping(&w->broad, w->bodies.asleep, i, i1)) < i1; ++i)
        if (nonfinite(w, i)) return 1.0;
    return 0.0;
}

/* cr_check_finite with the test over the workers (item_max.h): the
 * caller's pass over every body, and the error naming the first one that
 * is not finite, only when one is. */
static cr_status check_finite_spread(cr_world *w)
{
    uint32_t items = (w->bodies.slot_count + CR_FINITE_CHUNK - 1) / CR_FINITE_CHUNK;
    return cr_max_over_items(w, items, nonfinite_item, w) > 0.0 ? cr_check_finite(w, "") : CR_OK;
}

/* Ball i's part of seed 004 §4's energy control: what it owes after
 * paying its own gain out of its kinetic energy, and the kinetic energy it
 * kept. */
struct cr_energy_share {
    double owed, kinetic;
};

/* The balls the energy control acts on (asleep: no energy to cap). */
static bool capped(const cr_bodies *b, uint32_t i)
{
    return cr_slot_alive(b, i) && cr_slot_dynamic(b, i) && !b->asleep[i];
}

/* Ball i back above its surface (cr_ball_keep_above), then its own part
 * of the energy control into cap_share. Both read and write ball i only, so
 * the balls run over the workers (cr_run_balls) in one pass, and its cap
 * right after its own guard is the same as after every ball's. */
static void settle_one(cr_world *w, uint32_t i)
{
    cr_ball_keep_above(w, i);
    cr_bodies *b = &w->bodies;
    if (!capped(b, i)) return;
    w->cap_share[i].owed = cr_body_cap_energy(w, i, b->energy_before[i]);
    w->cap_share[i].kinetic = cr_body_kinetic(w, i);
}

/* Seed 004 §4's energy control through the end-of-step position
 * corrections in a world with surfaces: what a ball gained is taken out of
 * its own kinetic energy (settle_one); what a ball lying (almost) still
 * cannot pay is taken from all of them in proportion, so the corrections
 * never make energy. The shares are summed in slot order: the same sums
 * for any number of workers. */
static cr_status settle_surface_balls(cr_world *w)
{
    cr_bodies *b = &w->bodies;
    if (!cr_grow(w, (void **)&w->cap_share, &w->cap_share_capacity, b->slot_count, sizeof *w->cap_share))
        return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "finish: out of memory");
    cr_run_balls(w, settle_one);
    double owed = 0.0, kinetic = 0.0;
    for (uint32_t i = 0; i < b->slot_count; ++i)
        if (capped(b, i)) {
            owed += w->cap_share[i].owed;
            kinetic += w->cap_share[i].kinetic;
        }
    if (!(owed > 0.0)) return CR_OK;
    double k = kinetic > owed ? sqrt((kinetic - owed) / kinetic) : 0.0;
    for (uint32_t i = 0; i < b->slot_count; ++i)
        if (capped(b, i)) cr_body_scale_kinetic(w, i, k);
    return CR_OK;
}

/* Body i to the end of the step. In a world with surfaces, seed 004 §4's
 * energy control holds through the end of the step: the last stretch of
 * each plan and the position corrections below may move balls, never give
 * them energy (energy_before). It reads the statics and writes body i
 * only: over the workers (cr_run_balls). */
static void advance_one(cr_world *w, uint32_t i)
{
    cr_bodies *b = &w->bodies;
    if (!cr_slot_alive(b, i) || b->asleep[i]) return; /* asleep: it stays */
    if (w->surfaces.count > 0 && cr_slot_dynamic(b, i)) {
        b->energy_before[i] = cr_body_energy(w, i);
        b->x_before[i] = b->x[i]; /* projection's back_off */
    }
    cr_body_advance(w, i, w->def.dt);
}

cr_status cr_stage_finish(cr_world *w)
{
    bool surfaces = w->surfaces.count > 0;
    cr_run_balls(w, advance_one);
    cr_status s = cr_project_positions(w);
    if (s != CR_OK) return s;
    if (surfaces && (s = settle_surface_balls(w)) != CR_OK) return s;
    s = check_finite_spread(w);
    if (s != CR_OK) return s;
    if (cr_balls_sleep(w) && (s = cr_ball_update_sleep(w)) != CR_OK) return s;
    w->stats.max_penetration = cr_max_penetration(w);
    w->steps++;
    w->time = w->time_base + (double)(w->steps - w->steps_base) * w->def.dt;
    return CR_OK;
}
