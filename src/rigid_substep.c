/* The sub-stepped soft contact solver of a rigid-body step (world option
 * rigid_substeps = S > 0; docs/physics/substep.md), after Box2D v3's soft
 * step (Catto, "Solver2D", 2024), in 3D:
 *   once    the contacts of the narrow phase (carried manifolds, found at
 *           the step's start) become points with fixed arms, effective
 *           masses and last step's impulses (per substep);
 *   S times gravity over h = dt / S; warm start; substep_iterations
 *           Gauss-Seidel passes (Box2D: one) with the soft bias from the present separation; positions and
 *           orientations over h; one relax pass without the bias;
 *   then    restitution (Newton's, on contacts that approached faster than
 *           the resting speed), and the impulses kept for the next step.
 * It stands in for seed 003's collision rounds and resting contact system
 * (rigid_solve.c) and for the motion and drift correction of
 * rigid_finish.c, whose guards (finiteness, sleeping, overlap report) still
 * run after it. Joints are not rows here: a world with joints is refused. */
#include <string.h>

#include "rigid.h"
#include "simd.h"
#include "soft_avx2.h"
#include "soft_colour.h"
#include "soft_contact.h"
#include "soft_lanes.h"
#include "soft_resist.h"
#include "soft_sections.h"

/* A work item of a coloured pass takes this many runs (manifolds) of one
 * colour; of the position update, this many bodies; of the set-up and
 * store, this many contacts or lanes' blocks. Only the split over the
 * workers depends on them, never the bits. */
#define CR_SUBSTEP_RUN_ITEM 32
#define CR_SUBSTEP_BODY_ITEM 256
#define CR_SUBSTEP_CONTACT_ITEM 512
#define CR_SUBSTEP_BLOCK_ITEM 32

typedef struct cr_substep {
    cr_soft_body *bodies;  /* one per body slot, then the world's */
    cr_soft_motion *prev;  /* the same bodies' v and w at the last substep's end (cr_soft_warm_by_body) */
    cr_soft_point *points; /* one per contact, in contact order */
    uint32_t *mask;        /* per body: the colours of its runs (cr_soft_colour's scratch) */
    uint8_t *colour;       /* per run (cr_soft_colour's scratch) */
    uint32_t *run_start, *order;
    cr_soft_colours colours;
    cr_soft_lanes lanes; /* the points on AVX2 lanes, where the solve takes them so */
    uint32_t *rest;      /* the runs the lanes do not hold (each colour's rest, the overflow) */
    uint32_t rest_count;
    uint8_t *bounce; /* per item of the points' set-up: whether one of its points may take restitution */
    cr_soft_resist *resist; /* per point, where the world resists (soft_resist.h) */
    bool resists;
    uint32_t resist_capacity;
    uint32_t body_capacity, prev_capacity, point_capacity, mask_capacity, colour_capacity, start_capacity,
        order_capacity, rest_capacity, bounce_capacity;
} cr_substep;

void cr_rigid_substep_free(cr_world *w)
{
    cr_substep *s = w->rigid->substep;
    if (!s) return;
    cr_free(w, s->bodies);
    cr_free(w, s->prev);
    cr_free(w, s->points);
    cr_free(w, s->mask);
    cr_free(w, s->colour);
    cr_free(w, s->run_start);
    cr_free(w, s->order);
    cr_free(w, s->lanes.rows_raw);
    cr_free(w, s->lanes.blocks);
    cr_free(w, s->lanes.order);
    cr_free(w, s->rest);
    cr_free(w, s->bounce);
    cr_free(w, s->resist);
    cr_free(w, s);
    w->rigid->substep = NULL;
}

uint32_t cr_rigid_substep_colours(const cr_world *w)
{
    const cr_substep *s = w->rigid ? w->rigid->substep : NULL;
    return s ? s->colours.count : 0;
}

/* The lanes' arrays for n points: at most n / 4 rows and blocks (a block
 * is four runs, a row four points), the rows 64-byte aligned in rows_raw
 * (two spare fields): a row is whole cache lines, and two workers' blocks
 * share none. */
static bool ensure_lanes(cr_world *w, cr_soft_lanes *l, uint32_t points)
{
    typedef struct quad {
        double d[4];
    } quad;
    uint32_t rows = points / 4;
    if (!cr_grow(w, &l->rows_raw, &l->quad_capacity, rows * CR_LANE_FIELDS + 2, sizeof(quad)) ||
        !cr_grow(w, (void **)&l->blocks, &l->block_capacity, rows + 1, sizeof *l->blocks) ||
        !cr_grow(w, (void **)&l->order, &l->order_capacity, points, sizeof *l->order))
        return false;
    uintptr_t at = (uintptr_t)l->rows_raw;
    l->rows = (double *)(void *)((at + 63) & ~(uintptr_t)63);
    return true;
}

static cr_substep *ensure(cr_world *w, uint32_t bodies, uint32_t points, bool lanes, bool resists)
{
    cr_rigid *r = w->rigid;
    if (!r->substep) {
        r->substep = cr_alloc(w, sizeof *r->substep);
        if (!r->substep) return NULL;
        memset(r->substep, 0, sizeof *r->substep);
    }
    cr_substep *s = r->substep;
    if (!cr_grow(w, (void **)&s->bodies, &s->body_capacity, bodies, sizeof *s->bodies) ||
        !cr_grow(w, (void **)&s->prev, &s->prev_capacity, bodies, sizeof *s->prev) ||
        !cr_grow(w, (void **)&s->points, &s->point_capacity, points, sizeof *s->points) ||
        !cr_grow(w, (void **)&s->mask, &s->mask_capacity, bodies, sizeof *s->mask) ||
        !cr_grow(w, (void **)&s->colour, &s->colour_capacity, points, sizeof *s->colour) ||
        !cr_grow(w, (void **)&s->run_start, &s->start_capacity, points + 1, sizeof *s->run_start) ||
        !cr_grow(w, (void **)&s->order, &s->order_capacity, points, sizeof *s->order) ||
        !cr_grow(w, (void **)&s->bounce, &s->bounce_capacity, points / CR_SUBSTEP_CONTACT_ITEM + 1, 1) ||
        (resists && !cr_grow(w, (void **)&s->resist, &s->resist_capacity, points, sizeof *s->resist)) ||
        (lanes && (!ensure_lanes(w, &s->lanes, points) ||
                   !cr_grow(w, (void **)&s->rest, &s->rest_capacity, points, sizeof *s->rest))))
        return NULL;
    s->colours.run_start = s->run_start;
    s->colours.order = s->order;
    s->resists = resists;
    return s;
}

/* Bodies that the solver moves get their inverse mass and world inertia; a
 * static, kinematic or sleeping body is immovable (a kinematic one keeps
 * its velocity); the last entry is the world (planes). */
static void load_bodies(const cr_world *w, cr_soft_body *sb)
{
    const cr_bodies *b = &w->bodies;
    uint32_t n = b->slot_count;
    for (uint32_t i = 0; i <= n; ++i) {
        cr_soft_body *s = &sb[i];
        memset(s, 0, sizeof *s);
        if (i == n || !cr_slot_alive(b, i)) continue;
        bool moves = cr_rigid_moves(b, i);
        if (moves) {
            s->inv_mass = b->inv_mass[i];
            s->inv_inertia = w->rigid->inv_inertia_world[i];
        }
        if (b->type[i] != CR_BODY_STATIC && !b->asleep[i]) {
            s->v = b->v[i];
            s->w = b->w[i];
        }
    }
}

/* The points of contacts [begin, end); with_k: their K and effective
 * masses too (cr_soft_prepare), else left to prepare_rest and the lanes'
 * load; resist: their resistance rows (the lanes' plan reads them). Returns whether one of
 * them may take restitution (cr_soft_restitution skips every point but
 * those). */
static bool prepare_points(cr_world *w, const cr_soft_body *sb, cr_soft_point *sp, cr_soft_resist *resist,
                           double substeps, bool with_k, uint32_t begin, uint32_t end)
{
    cr_rigid *r = w->rigid;
    const cr_bodies *b = &w->bodies;
    uint32_t world = b->slot_count;
    bool bounce = false;
    for (uint32_t k = begin; k < end; ++k) {
        cr_rigid_contact *c = &r->contacts[k];
        cr_soft_point *p = &sp[k];
        /* every member set, no memset first (it took a string instruction
         * and wrote the point twice); k and mass: cr_soft_prepare's, or
         * the lanes' */
        p->a = c->a;
        p->b = c->is_plane ? world : c->b;
        p->ra = cr_v3_sub(c->point, b->x[c->a]);
        p->rb = c->is_plane ? cr_v3_zero() : cr_v3_sub(c->point, b->x[c->b]);
        const cr_soft_body *A = &sb[p->a], *B = &sb[p->b];
        cr_vec3 vrel = cr_v3_sub(cr_v3_add(A->v, cr_v3_cross(A->w, p->ra)), cr_v3_add(B->v, cr_v3_cross(B->w, p->rb)));
        cr_rigid_friction_axes(c, vrel);
        p->n = c->normal;
        p->t1 = c->t1;
        p->t2 = c->t2;
        p->fixed = A->inv_mass == 0.0 || B->inv_mass == 0.0;
        p->s0 = c->separation;
        p->mu = c->friction;
        p->e = c->restitution;
        p->vn0 = cr_v3_dot(c->normal, vrel);
        p->total[0] = p->total[1] = p->total[2] = 0.0;
        /* warm start: last step's impulses (over dt) shared out per substep */
        p->lambda[0] = c->rest_n / substeps;
        p->lambda[1] = cr_v3_dot(c->rest_t, c->t1) / substeps;
        p->lambda[2] = cr_v3_dot(c->rest_t, c->t2) / substeps;
        if (with_k) cr_soft_prepare(sb, p);
        if (resist)
            cr_soft_resist_prepare(sb, p, cr_rigid_rolling_friction(b, c), cr_v3_scale(c->rest_roll, 1.0 / substeps),
                                   &resist[k]);
        bounce |= !(p->e == 0.0 || p->vn0 > -w->resting_speed);
    }
    return bounce;
}

/* The runs that the lanes do not hold, into s->rest: each colour's rest
 * and the overflow. */
static void list_rest(cr_substep *s)
{
    const cr_soft_colours *c = &s->colours;
    const cr_soft_lanes *l = &s->lanes;
    uint32_t n = 0;
    for (uint32_t k = 0; k <= c->count; ++k) {
        uint32_t begin = k < c->count ? cr_soft_lanes_rest(l, c, k) : c->start[k];
        uint32_t end = k < c->count ? c->start[k + 1] : c->run_count;
        for (uint32_t e = begin; e < end; ++e) s->rest[n++] = l->order[e];
    }
    s->rest_count = n;
}

/* cr_soft_prepare for the points of the runs that the lanes do not hold
 * (list_rest's). */
static void prepare_rest(const cr_soft_body *sb, cr_soft_point *sp, const cr_substep *s)
{
    for (uint32_t e = 0; e < s->rest_count; ++e)
        for (uint32_t i = s->run_start[s->rest[e]]; i < s->run_start[s->rest[e] + 1]; ++i) cr_soft_prepare(sb, &sp[i]);
}

/* Gravity over h for every body the solver moves, its velocities kept in
 * prev first (cr_soft_warm_by_body's v_end of the substep before): the
 * first substep's. */
static void integrate_velocities(const cr_world *w, cr_soft_body *sb, cr_soft_motion *prev, double h)
{
    const cr_bodies *b = &w->bodies;
    for (uint32_t i = 0; i < b->slot_count; ++i)
        if (sb[i].inv_mass > 0.0) {
            prev[i] = (cr_soft_motion){sb[i].v, sb[i].w};
            sb[i].v = cr_v3_madd(sb[i].v, w->def.gravity, h);
        }
}

/* Gravity and the warm start of a later substep, by the bodies. */
static void warm_by_bodies(const cr_world *w, cr_soft_body *sb, cr_soft_motion *prev)
{
    for (uint32_t i = 0; i < w->bodies.slot_count; ++i)
        if (sb[i].inv_mass > 0.0) cr_soft_warm_by_body(&sb[i].v, &sb[i].w, &prev[i]);
}

/* A pass over the workers: a coloured pass of the substeps (its colour's
 * runs), their position update, or the step's set-up (the points, the
 * lanes' load) and end (the lanes' unload, the contacts' impulses). */
typedef enum pass_kind {
    PASS_WARM_START,
    PASS_SOLVE,
    PASS_RELAX,
    PASS_POSITIONS,
    PASS_PREPARE,
    PASS_LOAD,
    PASS_UNLOAD,
    PASS_STORE,
    PASS_STORE_LANES
} pass_kind;

typedef struct pass {
    cr_world *w;
    cr_substep *s;
    pass_kind kind;
    cr_soft_section sec; /* the colour's runs: order[sec.begin, sec.begin + sec.count) */
    cr_soft soft[2];
    double h, inv_h, substeps;
    bool with_k; /* PASS_PREPARE: cr_soft_prepare on every point (no lanes) */
} pass;

/* Positions and orientations over h (the orientation by the exact turn at
 * constant w), and each body's displacement since the step's start: bodies
 * [begin, end). */
static void integrate_positions(cr_world *w, cr_soft_body *sb, double h, uint32_t begin, uint32_t end)
{
    cr_bodies *b = &w->bodies;
    for (uint32_t i = begin; i < end; ++i) {
        if (!cr_slot_alive(b, i) || b->type[i] == CR_BODY_STATIC || b->asleep[i]) continue;
        cr_soft_body *s = &sb[i];
        b->x[i] = cr_v3_madd(b->x[i], s->v, h);
        b->q[i] = cr_q_integrate(b->q[i], s->w, h);
        s->dp = cr_v3_madd(s->dp, s->v, h);
        s->dq = cr_v3_madd(s->dq, s->w, h);
    }
}

static void store_contacts(cr_world *w, const cr_substep *s, double substeps, uint32_t begin, uint32_t end);
static void store_block(cr_world *w, const cr_soft_lanes *l, uint32_t i, double substeps);

/* Work items [start, end) of a pass: runs of the colour, bodies, contacts
 * or blocks. */
static void pass_items(uint32_t start, uint32_t end, uint32_t worker, void *ctx)
{
    (void)worker;
    const pass *p = ctx;
    cr_substep *s = p->s;
    uint32_t b, e, nc = p->w->rigid->contact_count, nblocks = s->lanes.block_start[s->lanes.colours];
    uint32_t block_items = (nblocks + CR_SUBSTEP_BLOCK_ITEM - 1) / CR_SUBSTEP_BLOCK_ITEM;
    switch (p->kind) {
    case PASS_POSITIONS:
        cr_soft_item_range(start, end, CR_SUBSTEP_BODY_ITEM, p->w->bodies.slot_count, &b, &e);
        integrate_positions(p->w, s->bodies, p->h, b, e);
        return;
    case PASS_PREPARE:
        cr_soft_item_range(start, end, CR_SUBSTEP_CONTACT_ITEM, nc, &b, &e);
        s->bounce[start] =
            prepare_points(p->w, s->bodies, s->points, s->resists ? s->resist : NULL, p->substeps, p->with_k, b, e);
        return;
    case PASS_LOAD:
        cr_soft_item_range(start, end, CR_SUBSTEP_BLOCK_ITEM, nblocks, &b, &e);
        cr_soft_lanes_load(&s->lanes, s->bodies, s->points, b, e);
        return;
    case PASS_UNLOAD:
        cr_soft_item_range(start, end, CR_SUBSTEP_BLOCK_ITEM, nblocks, &b, &e);
        cr_soft_lanes_unload(&s->lanes, s->points, b, e);
        return;
    case PASS_STORE:
        cr_soft_item_range(start, end, CR_SUBSTEP_CONTACT_ITEM, nc, &b, &e);
        store_contacts(p->w, s, p->substeps, b, e);
        return;
    case PASS_STORE_LANES:
        /* items of blocks (from their rows), then items of the rest's runs
         * (from the packed points) */
        cr_soft_item_range(start, end < block_items ? end : block_items, CR_SUBSTEP_BLOCK_ITEM, nblocks, &b, &e);
        for (uint32_t i = b; i < e; ++i) store_block(p->w, &s->lanes, i, p->substeps);
        cr_soft_item_range(start > block_items ? start - block_items : 0, end > block_items ? end - block_items : 0,
                   CR_SUBSTEP_RUN_ITEM, s->rest_count, &b, &e);
        for (uint32_t i = b; i < e; ++i)
            store_contacts(p->w, s, p->substeps, s->run_start[s->rest[i]], s->run_start[s->rest[i] + 1]);
        return;
    default:
        break;
    }
    uint32_t first = start * CR_SUBSTEP_RUN_ITEM, last = end * CR_SUBSTEP_RUN_ITEM;
    if (last > p->sec.count) last = p->sec.count;
    const uint32_t *order = s->colours.order;
    if (p->sec.lanes) {
        /* the colour's entries in the lanes' order: its blocks' runs (four
         * a block; an item's 32 entries start on a block), then the rest */
        const cr_soft_lanes *l = &s->lanes;
        uint32_t k = 0;
        while (s->colours.start[k] != p->sec.begin) ++k;
        uint32_t rest = cr_soft_lanes_rest(l, &s->colours, k) - p->sec.begin;
        uint32_t b0 = l->block_start[k] + first / 4, b1 = l->block_start[k] + (last < rest ? last : rest) / 4;
        if (p->kind == PASS_WARM_START) cr_soft_warm_lanes(s->bodies, l, b0, b1);
        else
            cr_soft_solve_lanes(s->bodies, &s->lanes, b0, b1, p->soft, p->inv_h, CR_SOFT_PUSH_SPEED,
                                p->kind == PASS_SOLVE, p->kind == PASS_RELAX);
        order = l->order;
        if (first < rest) first = rest;
        if (first >= last) return;
    }
    const uint32_t *runs = order + p->sec.begin + first;
    if (p->kind == PASS_WARM_START)
        cr_soft_warm_start(s->bodies, s->points, s->run_start, runs, last - first);
    else
        cr_soft_solve(s->bodies, s->points, s->run_start, runs, last - first, p->soft, p->inv_h, CR_SOFT_PUSH_SPEED,
                      p->kind == PASS_SOLVE, p->kind == PASS_RELAX);
    /* a colour's runs share no moving body: their resistance rows after
     * them are as safe on the workers */
    if (s->resists)
        cr_soft_resist_pass(s->bodies, s->points, s->resist, s->run_start, runs, last - first,
                            p->kind == PASS_WARM_START);
}

/* A coloured pass of kind (soft_sections.h). */
static void coloured_pass(pass *p, pass_kind kind, bool avx2)
{
    p->kind = kind;
    cr_soft_coloured_pass(p->w, &p->s->colours, CR_SUBSTEP_RUN_ITEM, avx2, &p->sec, pass_items, p);
}

/* A set-up or end pass of kind over n things in items of size. */
static void setup_pass(pass *p, pass_kind kind, uint32_t n, uint32_t size)
{
    p->kind = kind;
    cr_soft_run(p->w, pass_items, (n + size - 1) / size, p);
}

static void store_bodies(cr_world *w, const cr_soft_body *sb)
{
    cr_bodies *b = &w->bodies;
    for (uint32_t i = 0; i < b->slot_count; ++i)
        if (sb[i].inv_mass > 0.0) b->v[i] = sb[i].v, b->w[i] = sb[i].w;
}

/* A contact's impulses kept for the next step's warm start and reported,
 * from its point's axes (the contact's own copied: the contact's lines are
 * then only written), last substep's lambdas and the totals. */
static void store_point(cr_rigid_contact *c, cr_vec3 t1, cr_vec3 t2, const double lambda[3], const double total[3],
                        double substeps)
{
    c->rest_n = lambda[0] * substeps;
    c->rest_t = cr_v3_scale(cr_v3_add(cr_v3_scale(t1, lambda[1]), cr_v3_scale(t2, lambda[2])), substeps);
    c->jn = total[0];
    c->jt = cr_v3_add(cr_v3_scale(t1, total[1]), cr_v3_scale(t2, total[2]));
}

/* store_point for contacts [begin, end) from their packed points. */
static void store_contacts(cr_world *w, const cr_substep *s, double substeps, uint32_t begin, uint32_t end)
{
    cr_rigid *r = w->rigid;
    const cr_soft_point *sp = s->points;
    for (uint32_t k = begin; k < end; ++k) {
        store_point(&r->contacts[k], sp[k].t1, sp[k].t2, sp[k].lambda, sp[k].total, substeps);
        /* the lanes' store (store_block) meets no point that resists: the
         * plan leaves their runs to the plain kernel */
        if (s->resists) r->contacts[k].rest_roll = cr_v3_scale(s->resist[k].lambda, substeps);
    }
}

/* store_point for the contacts of the lanes' block i, from its rows. */
static void store_block(cr_world *w, const cr_soft_lanes *l, uint32_t i, double substeps)
{
    const cr_soft_block *b = &l->blocks[i];
    for (uint32_t j = 0; j < b->len; ++j) {
        const double *row = l->rows + (size_t)(b->row + j) * CR_LANE_FIELDS * 4;
        for (uint32_t ln = 0; ln < 4; ++ln) {
            const double *f = row + ln; /* field q of the lane: f[4 q] */
            double lambda[3] = {f[4 * CR_LANE_LAMBDA], f[4 * (CR_LANE_LAMBDA + 1)], f[4 * (CR_LANE_LAMBDA + 2)]};
            double total[3] = {f[4 * CR_LANE_TOTAL], f[4 * (CR_LANE_TOTAL + 1)], f[4 * (CR_LANE_TOTAL + 2)]};
            cr_vec3 t1 = cr_v3(f[4 * CR_LANE_T1], f[4 * (CR_LANE_T1 + 1)], f[4 * (CR_LANE_T1 + 2)]);
            cr_vec3 t2 = cr_v3(f[4 * CR_LANE_T2], f[4 * (CR_LANE_T2 + 1)], f[4 * (CR_LANE_T2 + 2)]);
            store_point(&w->rigid->contacts[b->first[ln] + j], t1, t2, lambda, total, substeps);
        }
    }
}

cr_status cr_rigid_substep_solve(cr_world *w)
{
    cr_rigid *r = w->rigid;
    uint32_t nb = w->bodies.slot_count, nc = r->contact_count;
    bool resists = cr_world_resists(w), avx2 = cr_use_avx2(r->substep_portable);
    cr_substep *s = ensure(w, nb + 1, nc, avx2, resists);
    if (!s) return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "rigid sub-stepped solve: out of memory");
    double S = (double)w->def.rigid_substeps, h = w->def.dt / S, inv_h = 1.0 / h;
    cr_soft soft[2];
    cr_soft_contact_softness(w->def.contact_hertz, w->def.contact_damping_ratio, h, soft);
    load_bodies(w, s->bodies);
    pass p = {w, s, PASS_PREPARE, {0, 0, false}, {soft[0], soft[1]}, h, inv_h, S, !avx2};
    uint32_t contact_items = (nc + CR_SUBSTEP_CONTACT_ITEM - 1) / CR_SUBSTEP_CONTACT_ITEM;
    memset(s->bounce, 0, contact_items);
    setup_pass(&p, PASS_PREPARE, nc, CR_SUBSTEP_CONTACT_ITEM);
    bool bounce = false;
    for (uint32_t i = 0; i < contact_items; ++i) bounce |= s->bounce[i] != 0;
    cr_soft_colour(s->bodies, nb + 1, s->points, nc, s->mask, s->colour, &s->colours);
    s->lanes.colours = 0; /* no blocks unless planned */
    uint32_t blocks = 0;
    if (avx2) {
        cr_soft_lanes_plan(&s->lanes, s->points, &s->colours, resists ? s->resist : NULL);
        blocks = s->lanes.block_start[s->lanes.colours];
        setup_pass(&p, PASS_LOAD, blocks, CR_SUBSTEP_BLOCK_ITEM);
        list_rest(s);
        prepare_rest(s->bodies, s->points, s);
    }
    uint32_t body_items = (nb + CR_SUBSTEP_BODY_ITEM - 1) / CR_SUBSTEP_BODY_ITEM;
    for (int i = 0; i < w->def.rigid_substeps; ++i) {
        if (i == 0) {
            integrate_velocities(w, s->bodies, s->prev, h);
            coloured_pass(&p, PASS_WARM_START, avx2); /* last step's impulses, by the points */
        } else {
            warm_by_bodies(w, s->bodies, s->prev); /* gravity and the warm start, by the bodies */
        }
        for (int k = 0; k < w->def.substep_iterations; ++k) coloured_pass(&p, PASS_SOLVE, avx2);
        p.kind = PASS_POSITIONS;
        cr_soft_run(w, pass_items, body_items, &p);
        /* the relax pass ends the substep: it adds the lambdas to the totals */
        coloured_pass(&p, PASS_RELAX, avx2);
    }
    if (!bounce && avx2) {
        /* no point may take restitution (it would skip them all): the
         * blocks' contacts are stored from the rows, no unload */
        store_bodies(w, s->bodies);
        p.kind = PASS_STORE_LANES;
        uint32_t items = (blocks + CR_SUBSTEP_BLOCK_ITEM - 1) / CR_SUBSTEP_BLOCK_ITEM +
                         (s->rest_count + CR_SUBSTEP_RUN_ITEM - 1) / CR_SUBSTEP_RUN_ITEM;
        cr_soft_run(w, pass_items, items, &p);
        return CR_OK;
    }
    if (avx2) setup_pass(&p, PASS_UNLOAD, blocks, CR_SUBSTEP_BLOCK_ITEM);
    if (bounce) cr_soft_restitution(s->bodies, s->points, s->run_start, s->colours.run_count, w->resting_speed);
    store_bodies(w, s->bodies);
    setup_pass(&p, PASS_STORE, nc, CR_SUBSTEP_CONTACT_ITEM);
    return CR_OK;
}
