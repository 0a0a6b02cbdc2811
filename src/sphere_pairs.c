/* The sphere path's pair list with a skin; see sphere_pairs.h. */
#include "sphere_pairs.h"

#include <string.h>

#include "rigid.h"

/* The skin, in radii of the largest moving ball: how far a box may stray
 * from where the list was built before the grid is asked again. A ball at
 * rest in a pile moves its box by a few micrometres a step, one falling at
 * v by v dt (at 240 Hz, 4 mm a step at 1 m/s); a wider skin lists more
 * pairs that every step then tests. */
#define CR_SPHERE_SKIN 0.25
/* Each grown box also covers the box's free flight this many steps ahead:
 * falling balls then keep their list. */
#define CR_SPHERE_AHEAD 4.0

static const cr_vec3 empty_lo = {1.0, 0.0, 0.0}, empty_hi = {0.0, 0.0, 0.0};

static bool empty_box(cr_vec3 lo, cr_vec3 hi) { return !(lo.x <= hi.x); }

cr_sphere_pairs *cr_sphere_pairs_ensure(cr_world *w)
{
    cr_rigid *r = w->rigid;
    if (!r->sphere_pairs) {
        r->sphere_pairs = cr_alloc(w, sizeof *r->sphere_pairs);
        if (!r->sphere_pairs) return NULL;
        memset(r->sphere_pairs, 0, sizeof *r->sphere_pairs);
    }
    return r->sphere_pairs;
}

void cr_sphere_pairs_free(cr_world *w)
{
    cr_sphere_pairs *L = w->rigid ? w->rigid->sphere_pairs : NULL;
    if (!L) return;
    cr_broad_free(w, &L->grid);
    cr_free(w, L->item_first);
    cr_free(w, L->hit);
    cr_free(w, L);
    w->rigid->sphere_pairs = NULL;
}

uint64_t cr_sphere_pair_builds(const cr_world *w)
{
    return w->rigid && w->rigid->sphere_pairs ? w->rigid->sphere_pairs->builds : 0;
}

/* The list from the boxes of w->broad grown by skin: every pair of grown
 * boxes that overlap, in the grid's order (the same on any worker count). */
static bool build(cr_world *w, cr_sphere_pairs *L, uint32_t n, double skin, double rmax)
{
    const cr_broad_phase *bp = &w->broad;
    cr_broad_phase *g = &L->grid;
    L->n = 0; /* no list until this one is whole */
    if (!cr_broad_reserve(w, g, n)) return false;
    cr_vec3 pad = cr_v3(skin, skin, skin);
    const cr_bodies *b = &w->bodies;
    double T = CR_SPHERE_AHEAD * w->def.dt;
    cr_vec3 fall = cr_v3_scale(w->def.gravity, 0.5 * T * T);
    for (uint32_t i = 0; i < n; ++i) {
        if (empty_box(bp->lo[i], bp->hi[i])) {
            g->lo[i] = empty_lo, g->hi[i] = empty_hi;
            continue;
        }
        /* the box now and where free flight takes it in CR_SPHERE_AHEAD steps */
        cr_vec3 d = cr_rigid_moves(b, i) ? cr_v3_madd(fall, b->v[i], T) : cr_v3_zero();
        g->lo[i] = cr_v3_sub(cr_box_min(bp->lo[i], cr_v3_add(bp->lo[i], d)), pad);
        g->hi[i] = cr_v3_add(cr_box_max(bp->hi[i], cr_v3_add(bp->hi[i], d)), pad);
    }
    /* cr_broad_phase_boxes' hint for balls of the grown radius */
    g->size_hint = rmax > 0.0 ? 2.0 * (rmax + skin) * 1.25 : 1.0;
    if (!cr_broad_build(w, g, n)) return false;
    L->n = n;
    L->builds++;
    return true;
}

cr_status cr_sphere_broad_phase(cr_world *w, cr_body_box_fn *box)
{
    cr_bodies *b = &w->bodies;
    cr_broad_phase *bp = &w->broad;
    uint32_t n = b->slot_count;
    cr_sphere_pairs *L = cr_sphere_pairs_ensure(w);
    if (!L || !cr_broad_reserve(w, bp, n)) goto oom;
    /* the boxes, and whether each is still inside its grown box (an empty
     * slot: still empty) */
    bool keep = L->n == n && n > 0;
    const cr_vec3 *glo = L->grid.lo, *ghi = L->grid.hi;
    double rmax = 0.0;
    for (uint32_t i = 0; i < n; ++i) {
        if (!cr_slot_alive(b, i)) {
            bp->lo[i] = empty_lo, bp->hi[i] = empty_hi;
            keep = keep && empty_box(glo[i], ghi[i]);
            continue;
        }
        double r = box(w, i, &bp->lo[i], &bp->hi[i]);
        if (r > rmax) rmax = r;
        keep = keep && cr_box_inside(bp->lo[i], bp->hi[i], glo[i], ghi[i]);
    }
    bp->size_hint = rmax > 0.0 ? 2.0 * rmax * 1.25 : 1.0;
    if (!keep && !build(w, L, n, CR_SPHERE_SKIN * rmax, rmax)) goto oom;
    /* the listed pairs whose boxes overlap now, in the list's order */
    const cr_broad_pair *list = L->grid.pairs;
    uint32_t listed = L->grid.pair_count;
    if (!cr_grow(w, (void **)&bp->pairs, &bp->pair_capacity, listed, sizeof *bp->pairs)) goto oom;
    uint32_t count = 0;
    for (uint32_t k = 0; k < listed; ++k) {
        uint32_t i = list[k].a, j = list[k].b;
        if (cr_box_overlap(bp->lo[i], bp->hi[i], bp->lo[j], bp->hi[j])) bp->pairs[count++] = list[k];
    }
    bp->pair_count = count;
    w->stats.candidate_pairs = count;
    return CR_OK;
oom:
    return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "broad phase: out of memory");
}
