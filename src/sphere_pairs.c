/* The sphere path's pair list with a skin; see sphere_pairs.h. */
#include "sphere_pairs.h"

#include <string.h>

#include "rigid.h"
#include "soft_sections.h"

/* The skin, in radii of the largest moving ball: how far a box may stray
 * from where the list was built before the grid is asked again. A ball at
 * rest in a pile moves its box by a few micrometres a step, one falling at
 * v by v dt (at 240 Hz, 4 mm a step at 1 m/s); a wider skin lists more
 * pairs that every step then tests. */
#define CR_SPHERE_SKIN 0.25
/* Each grown box also covers the box's free flight this many steps ahead:
 * falling balls then keep their list. */
#define CR_SPHERE_AHEAD 4.0

/* Bodies, and listed pairs, a work item takes; only the split over the
 * workers depends on them, never the pairs. */
#define CR_SPHERE_BOX_ITEM 2048
#define CR_SPHERE_FILTER_ITEM 8192

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
    cr_free(w, L->hit_dist);
    cr_free(w, L->plane_hit);
    cr_free(w, L->box_rmax);
    cr_free(w, L->box_keep);
    cr_free(w, L->ball_block);
    cr_free(w, L->reach);
    cr_free(w, L->material);
    cr_free(w, L->box);
    cr_free(w, L->entry);
    cr_free(w, L->key);
    cr_free(w, L->prev_key);
    cr_free(w, L);
    w->rigid->sphere_pairs = NULL;
}

bool cr_sphere_balls_reserve(cr_world *w, cr_sphere_pairs *L, uint32_t n)
{
    if (!cr_grow(w, (void **)&L->material, &L->material_capacity, n, sizeof *L->material) ||
        !cr_grow(w, &L->ball_block, &L->ball_capacity, n + 1, sizeof *L->ball) ||
        !cr_grow(w, (void **)&L->reach, &L->reach_capacity, n, sizeof *L->reach))
        return false;
    /* the balls' entries from a 32-byte boundary (the block has one more) */
    L->ball = (cr_sphere_ball *)(((uintptr_t)L->ball_block + 31) & ~(uintptr_t)31);
    return true;
}

void cr_sphere_fill_ball(const cr_bodies *bs, cr_sphere_pairs *L, uint32_t i)
{
    L->material[i] = (cr_sphere_material){bs->restitution[i], bs->friction[i]};
    cr_sphere_ball *b = &L->ball[i];
    b->x = bs->x[i];
    b->radius = cr_rigid_moves(bs, i) ? bs->radius[i] : -bs->radius[i];
    L->reach[i] = cr_v3_len(bs->v[i]) + cr_v3_len(bs->w[i]) * bs->radius[i];
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

/* A step's work over the workers: items of bodies (the boxes) or of
 * listed pairs (the filter). */
typedef struct broad_run {
    cr_world *w;
    cr_sphere_pairs *L;
    cr_body_box_fn *box;
    double *rmax;   /* per item of bodies: its largest radius */
    uint8_t *keep;  /* ... and whether its boxes stay inside their grown ones */
    uint32_t *kept; /* per item of pairs: how many pairs it kept, at its own pairs' place */
} broad_run;

/* Items of bodies: each body's box, and whether it is still inside its
 * grown box (an empty slot: still empty); and the narrow phase's entries
 * of each live ball, while its arrays are read here anyway (one pass over
 * the bodies, and one run over the workers, fewer a step: before, the
 * narrow phase made them in a pass of its own). */
static void box_items(uint32_t start, uint32_t end, uint32_t worker, void *ctx)
{
    (void)worker;
    const broad_run *t = ctx;
    cr_world *w = t->w;
    const cr_bodies *b = &w->bodies;
    cr_broad_phase *bp = &w->broad;
    const cr_vec3 *glo = t->L->grid.lo, *ghi = t->L->grid.hi;
    cr_vec3 *copy = t->L->box;
    bool listed = t->L->n == b->slot_count;
    for (uint32_t item = start; item < end; ++item) {
        uint32_t i1 = (item + 1) * CR_SPHERE_BOX_ITEM < b->slot_count ? (item + 1) * CR_SPHERE_BOX_ITEM : b->slot_count;
        double rmax = 0.0;
        bool keep = listed;
        for (uint32_t i = item * CR_SPHERE_BOX_ITEM; i < i1; ++i) {
            if (!cr_slot_alive(b, i)) {
                bp->lo[i] = copy[2 * i] = empty_lo, bp->hi[i] = copy[2 * i + 1] = empty_hi;
                keep = keep && empty_box(glo[i], ghi[i]);
                continue;
            }
            double r = t->box(w, i, &bp->lo[i], &bp->hi[i]);
            cr_sphere_fill_ball(b, t->L, i);
            if (r > rmax) rmax = r;
            copy[2 * i] = bp->lo[i], copy[2 * i + 1] = bp->hi[i];
            keep = keep && cr_box_inside(bp->lo[i], bp->hi[i], glo[i], ghi[i]);
        }
        t->rmax[item] = rmax;
        t->keep[item] = keep;
    }
}

/* Items of listed pairs: those whose boxes overlap now, in the list's
 * order, from the item's first pair's place on. */
static void filter_items(uint32_t start, uint32_t end, uint32_t worker, void *ctx)
{
    (void)worker;
    const broad_run *t = ctx;
    cr_broad_phase *bp = &t->w->broad;
    const cr_broad_pair *list = t->L->grid.pairs;
    const cr_vec3 *box = t->L->box;
    for (uint32_t item = start; item < end; ++item) {
        uint32_t k0 = item * CR_SPHERE_FILTER_ITEM, k1 = k0 + CR_SPHERE_FILTER_ITEM, count = 0;
        if (k1 > t->L->grid.pair_count) k1 = t->L->grid.pair_count;
        cr_broad_pair *out = bp->pairs + k0;
        uint32_t *entry = t->L->entry + k0;
        for (uint32_t k = k0; k < k1; ++k) {
            uint32_t i = list[k].a, j = list[k].b;
            /* written always, kept when the boxes overlap: half the listed
             * pairs do, at random, too often for a branch to guess */
            const cr_vec3 *p = box + 2 * i, *q = box + 2 * j;
            out[count] = list[k];
            entry[count] = k;
            count += (p[0].x <= q[1].x) & (q[0].x <= p[1].x) & (p[0].y <= q[1].y) & (q[0].y <= p[1].y) &
                     (p[0].z <= q[1].z) & (q[0].z <= p[1].z);
        }
        t->kept[item] = count;
    }
}

cr_status cr_sphere_broad_phase(cr_world *w, cr_body_box_fn *box)
{
    cr_broad_phase *bp = &w->broad;
    uint32_t n = w->bodies.slot_count;
    cr_sphere_pairs *L = cr_sphere_pairs_ensure(w);
    uint32_t boxes = (n + CR_SPHERE_BOX_ITEM - 1) / CR_SPHERE_BOX_ITEM;
    if (!L || !cr_broad_reserve(w, bp, n) ||
        !cr_grow(w, (void **)&L->box_rmax, &L->box_capacity, boxes + 1, sizeof *L->box_rmax) ||
        !cr_grow(w, (void **)&L->box_keep, &L->keep_capacity, boxes + 1, sizeof *L->box_keep) ||
        !cr_grow(w, (void **)&L->box, &L->box_copy_capacity, 2 * n + 2, sizeof *L->box) ||
        !cr_sphere_balls_reserve(w, L, n))
        goto oom;
    broad_run t = {w, L, box, L->box_rmax, L->box_keep, NULL};
    cr_soft_run(w, box_items, boxes, &t);
    L->balls_step = w->steps + 1;
    double rmax = 0.0;
    bool keep = n > 0;
    for (uint32_t k = 0; k < boxes; ++k) {
        rmax = t.rmax[k] > rmax ? t.rmax[k] : rmax;
        keep = keep && t.keep[k];
    }
    bp->size_hint = rmax > 0.0 ? 2.0 * rmax * 1.25 : 1.0;
    if (!keep && !build(w, L, n, CR_SPHERE_SKIN * rmax, rmax)) goto oom;
    /* the listed pairs whose boxes overlap now: each item's, then joined
     * in the items' order (the list's) */
    uint32_t listed = L->grid.pair_count, filters = (listed + CR_SPHERE_FILTER_ITEM - 1) / CR_SPHERE_FILTER_ITEM;
    if (!cr_grow(w, (void **)&bp->pairs, &bp->pair_capacity, listed, sizeof *bp->pairs) ||
        !cr_grow(w, (void **)&L->entry, &L->entry_capacity, listed + 1, sizeof *L->entry) ||
        !cr_grow(w, (void **)&L->item_first, &L->item_capacity, filters + 1, sizeof *L->item_first))
        goto oom;
    t.kept = L->item_first;
    cr_soft_run(w, filter_items, filters, &t);
    uint32_t count = 0;
    for (uint32_t k = 0; k < filters; ++k) {
        if (count < k * CR_SPHERE_FILTER_ITEM) {
            memmove(bp->pairs + count, bp->pairs + k * CR_SPHERE_FILTER_ITEM, sizeof *bp->pairs * t.kept[k]);
            memmove(L->entry + count, L->entry + k * CR_SPHERE_FILTER_ITEM, sizeof *L->entry * t.kept[k]);
        }
        count += t.kept[k];
    }
    bp->pair_count = count;
    w->stats.candidate_pairs = count;
    return CR_OK;
oom:
    return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "broad phase: out of memory");
}
