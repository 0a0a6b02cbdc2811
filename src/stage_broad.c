/* Stage 2, broad phase: each body's box over the whole step, then the grid. */
#include "dem_internal.h"
#include "rigid.h"
#include "world_internal.h"

/* The boxes of slots [i0, i1) but the parked ones' (broad_sleep.c: kept);
 * returns the largest size the box function gave (0 for none). */
static double boxes_of(cr_world *w, cr_body_box_fn *box, uint32_t i0, uint32_t i1)
{
    const cr_bodies *b = &w->bodies;
    cr_broad_phase *bp = &w->broad;
    double rmax = 0.0;
    for (uint32_t i = i0; i < i1; ++i) {
        if (cr_broad_is_parked(bp, i)) continue;
        if (!cr_slot_alive(b, i)) {
            bp->lo[i] = cr_v3(1.0, 0.0, 0.0); /* empty box: skipped */
            bp->hi[i] = cr_v3(0.0, 0.0, 0.0);
            continue;
        }
        double r = box(w, i, &bp->lo[i], &bp->hi[i]);
        if (r > rmax) rmax = r;
    }
    return rmax;
}

/* Bodies per work item of the boxes: fixed, not a function of the workers. */
#define CR_BOX_CHUNK 4096u

typedef struct box_run {
    cr_world *w;
    cr_body_box_fn *box;
    double rmax[64]; /* each worker's largest: a maximum is the same for any split */
} box_run;

static void box_items(uint32_t start, uint32_t end, uint32_t worker, void *ctx)
{
    box_run *r = ctx;
    uint32_t n = r->w->bodies.slot_count;
    for (uint32_t c = start; c < end; ++c) {
        uint32_t i1 = cr_chunk_end(c, CR_BOX_CHUNK, n);
        double m = boxes_of(r->w, r->box, c * CR_BOX_CHUNK, i1);
        if (m > r->rmax[worker]) r->rmax[worker] = m;
    }
}

/* The boxes, the grid and its pairs; sleeping balls parked (broad_sleep.c)
 * when park. */
static cr_status boxes_and_grid(cr_world *w, cr_body_box_fn *box, bool park)
{
    cr_bodies *b = &w->bodies;
    cr_broad_phase *bp = &w->broad;
    uint32_t n = b->slot_count;
    if (!cr_broad_reserve(w, bp, n)) return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "broad phase: out of memory");
    if (!park) cr_broad_unpark_all(bp);
    else if (!cr_broad_park(w, bp, box)) return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "broad phase: out of memory");
    double rmax = bp->parked_count ? bp->parked_rmax : 0.0;
    if (cr_parallel(w) && n > CR_BOX_CHUNK) { /* each body's box on its own (the box functions are pure) */
        box_run r = {w, box, {0.0}};
        cr_run_items(w, box_items, (n + CR_BOX_CHUNK - 1) / CR_BOX_CHUNK, &r);
        for (uint32_t k = 0; k < 64; ++k)
            if (r.rmax[k] > rmax) rmax = r.rmax[k];
    } else {
        double m = boxes_of(w, box, 0, n);
        rmax = m > rmax ? m : rmax;
    }
    bp->size_hint = rmax > 0.0 ? 2.0 * rmax * 1.25 : 1.0;
    if (!cr_broad_build(w, bp, n)) return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "broad phase: out of memory");
    w->stats.candidate_pairs = bp->pair_count;
    return CR_OK;
}

cr_status cr_broad_phase_boxes(cr_world *w, cr_body_box_fn *box) { return boxes_and_grid(w, box, false); }

/* Skin of the impulse method's boxes, in radii: the contact solve changes
 * the plans of resting bodies by far less (resting speeds, about 2 |g| dt^2
 * a step), so their new paths stay inside the boxes the pairs were found
 * with and the events stage need not ask the grid again for them. */
#define CR_BROAD_SKIN 0.05

void cr_body_path_box(const cr_world *w, uint32_t i, cr_vec3 *lo, cr_vec3 *hi)
{
    const cr_bodies *b = &w->bodies;
    double dt = w->def.dt, r = b->radius[i], h = dt - b->t_local[i];
    cr_vec3 x0 = b->x[i], x1 = cr_body_position_at(w, i, dt);
    double pad = r + cr_touch_margin(r) + 0.125 * cr_v3_len(b->acc[i]) * h * h;
    if (b->surface[i] != CR_NO_SURFACE) pad += 1e-3 * r; /* the chord cuts the curved path a little */
    *lo = cr_v3_sub(cr_box_min(x0, x1), cr_v3(pad, pad, pad));
    *hi = cr_v3_add(cr_box_max(x0, x1), cr_v3(pad, pad, pad));
}

/* The path from x(0) to x(dt); a parabola strays from its chord by at most
 * |a| dt^2 / 8. */
static double sphere_box(const cr_world *w, uint32_t i, cr_vec3 *lo, cr_vec3 *hi)
{
    const cr_bodies *b = &w->bodies;
    double dt = w->def.dt;
    cr_vec3 x0 = b->x[i], x1 = cr_body_position_at(w, i, dt);
    double r = b->radius[i];
    double pad = r + cr_touch_margin(r) + 0.125 * cr_v3_len(b->acc[i]) * dt * dt;
    if (w->def.method == CR_METHOD_IMPULSE) pad += CR_BROAD_SKIN * r;
    cr_vec3 padv = cr_v3(pad, pad, pad);
    *lo = cr_v3_sub(cr_box_min(x0, x1), padv);
    *hi = cr_v3_add(cr_box_max(x0, x1), padv);
    return r;
}

cr_status cr_stage_broad_phase(cr_world *w)
{
    bool sleep = cr_balls_sleep(w);
    cr_status s = boxes_and_grid(w, sphere_box, sleep && !w->broad.park_off);
    return s == CR_OK && sleep ? cr_ball_sleep_broad(w) : s;
}

double cr_world_max_overlap(cr_world *w, cr_body_id *a, cr_body_id *b)
{
    cr_body_id none = {0, 0};
    if (a) *a = none;
    if (b) *b = none;
    /* It rebuilds the grid the events of a step are using. */
    if (w->in_callback) {
        cr_fail(w, CR_ERR_REENTRANT, "cr_world_max_overlap: called from a world callback");
        return NAN;
    }
    /* polyhedra are not their bounding spheres: the last step's contacts */
    if (cr_world_is_rigid(w)) return cr_rigid_max_overlap(w, a, b);
    cr_dem_sync(w);
    cr_bodies *bs = &w->bodies;
    cr_broad_phase *bp = &w->broad;
    double worst = 0.0;
    if (!cr_broad_reserve(w, bp, bs->slot_count)) return NAN;
    cr_broad_unpark_all(bp); /* every box below; the next step parks them again */
    double rmax = 0.0;
    for (uint32_t i = 0; i < bs->slot_count; ++i) {
        if (!cr_slot_alive(bs, i)) {
            bp->lo[i] = cr_v3(1.0, 0.0, 0.0);
            bp->hi[i] = cr_v3(0.0, 0.0, 0.0);
            continue;
        }
        double r = bs->radius[i];
        bp->lo[i] = cr_v3_sub(bs->x[i], cr_v3(r, r, r));
        bp->hi[i] = cr_v3_add(bs->x[i], cr_v3(r, r, r));
        if (r > rmax) rmax = r;
        for (uint32_t k = 0; k < w->planes.count; ++k) {
            double pen = cr_penetration_sphere_plane(bs->x[i], r, w->planes.def[k].point, w->planes.def[k].normal);
            if (pen > worst) {
                worst = pen;
                if (a) *a = cr_world_body_at(w, i);
                if (b) *b = none;
            }
        }
    }
    bp->size_hint = rmax > 0.0 ? 2.0 * rmax : 1.0;
    if (!cr_broad_build(w, bp, bs->slot_count)) return NAN;
    for (uint32_t k = 0; k < bp->pair_count; ++k) {
        uint32_t i = bp->pairs[k].a, j = bp->pairs[k].b;
        double ov = cr_overlap_sphere_sphere(bs->x[i], bs->radius[i], bs->x[j], bs->radius[j], NULL);
        if (ov > worst) {
            worst = ov;
            if (a) *a = cr_world_body_at(w, i);
            if (b) *b = cr_world_body_at(w, j);
        }
    }
    return worst;
}
