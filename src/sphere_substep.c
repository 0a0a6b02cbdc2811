/* The sub-stepped soft contact solver of a world of spheres only (world
 * option rigid_substeps = S > 0 and no box, hull or mesh; docs/physics/
 * substep.md, "Spheres"): the steps of rigid_substep.c (Box2D v3's soft
 * step: S substeps of h = dt / S, warm start, substep_iterations biased
 * passes, positions, one relax pass; Newton restitution at the end) on
 * points made for spheres.
 *
 * Why a path of its own: a sphere's contact point lies on the line of
 * centres, so both arms are parallel to the normal n (r_a = -ra n, r_b =
 * rb n). Then (r x n) = 0: the normal row moves no spin, and K of the
 * point (soft_contact.h) is diagonal in any basis (n, t, t'):
 *   k_nn = m_a^-1 + m_b^-1,   k_tt = k_nn + ra^2 I_a^-1 + rb^2 I_b^-1
 * (I^-1 scalar for a sphere). The three rows are independent: the normal
 * row, then the tangential impulse as one vector in the contact plane,
 * clamped to the friction cone |lambda_t| <= mu lambda_n (the general
 * kernel's pyramid needs two fixed friction directions; with a diagonal K
 * the cone is as cheap, and isotropic). The separation after the bodies'
 * displacements is s0 + n . (dp_a - dp_b) exactly to first order: a turn of
 * a sphere moves no point of the line of centres along n. A point is 112
 * bytes and a body 96, against 288 and 176 in the general kernel.
 *
 * Orientations: nothing here depends on them, so each sphere turns once a
 * step, by the sum of its w h over the substeps (the general kernel turns
 * it every substep, at a sine and cosine each).
 *
 * Colours and lanes (as rigid_substep.c's): the points are coloured by
 * soft_colour.h, each point a run of its own, and the passes go colour by
 * colour, a colour's points over the workers and four at a time on AVX2
 * lanes (sphere_avx2.c) or eight on AVX-512 (sphere_avx512.c), then the
 * overflow's serially: the same bits on any worker count and on any
 * lanes or plain. Once a step the points are set up
 * in colour order, four to a quad (sphere_points.h), each colour from a
 * quad's start and its last quad filled up with pads: a pass streams
 * through whole quads, and the lanes load a field of four points with one
 * load (taken through the colouring's index list, the lanes' gathers
 * missed the cache and ran no faster than the plain loop; as structures,
 * four points took 4x4 transposes). Every pass that is not coloured (the
 * bodies' load, gravity, positions and store; the contacts' pairs, set-up
 * and impulses) runs over the workers too, and restitution is a coloured
 * pass (the serial sweep's order is the colours'). */
#include <stdint.h>
#include <string.h>

#include "rigid.h"
#include "simd.h"
#include "soft_colour.h"
#include "soft_resist.h"
#include "soft_sections.h"
#include "sphere_blocks.h"
#include "sphere_points.h"

/* A work item of a coloured pass takes this many points of one colour; of
 * a pass over the bodies (the position update), this many bodies; over the
 * contacts (the points' set-up), this many contacts. Only the split over the workers
 * depends on them, never the bits. */
#define CR_SPHERE_POINT_ITEM 128
#define CR_SPHERE_BODY_ITEM 512
#define CR_SPHERE_CONTACT_ITEM 512

typedef cr_sphere_body sphere_body;
typedef cr_sphere_point sphere_point;

/* A slot of the quads that holds no point (a colour's last quad, filled
 * up: slot_contact's mark). */
#define CR_SPHERE_PAD UINT32_MAX

typedef struct cr_sphere_substep {
    sphere_body *bodies; /* one per body slot, then the world's; 64-byte aligned, in body_block */
    cr_sphere_shift *shift; /* the same bodies' displacements; 64-byte aligned, in shift_block */
    cr_vec3 *spin;       /* per slot: the turn of the step, sum of w h */
    uint32_t *pairs;     /* per contact: its point's a and b (what the colouring reads) */
    cr_sphere_quad *quads;     /* the points in colour order, each colour from a quad's start */
    cr_sphere_totals *totals;  /* the same slots' */
    uint32_t *slot_contact;    /* per slot: its contact, or CR_SPHERE_PAD */
    uint32_t *contact_slot;    /* per contact: its slot */
    uint32_t *mask;      /* per body: the colours of its points (cr_soft_colour_masked's; set by load_bodies) */
    uint8_t *bounce;     /* per item of the set-up: whether one of its points may take restitution */
    uint8_t *colour;     /* per point (cr_soft_colour_masked's scratch) */
    uint32_t *run_start, *order;
    /* The blocks (sphere_blocks.h): grid.count of them, and the points in
     * groups, group g < grid.count the points of block g, group
     * grid.count those across blocks (without blocks: every point). */
    cr_sphere_grid grid;
    cr_vec3 *bounds;     /* per work item of the bodies' load: its moving bodies' lo, hi at 2 i, 2 i + 1 */
    uint32_t *block;     /* per body: its block, or CR_SPHERE_NO_BLOCK (does not move; the world) */
    uint32_t *group;     /* per contact: its point's group */
    uint32_t *perm, *sorted_pairs; /* the points sorted by group (cr_sphere_group_places) */
    uint32_t *at;        /* per item of the contacts and group: its count, then its first place */
    uint32_t *first;     /* per group: its first place in perm (grid.count + 2 entries) */
    uint32_t *slot_first; /* per group: its first slot (grid.count + 2 entries) */
    /* per group: its colouring, and its colours' sections in slots:
     * start[c] (a multiple of 4), run_count its overflow's end (order and
     * run_start unused); each group from a quad's start */
    cr_soft_colours *colours, *slots;
    cr_sphere_resist *resist; /* per slot, where the world resists (soft_resist.h; pads and others: factor 0) */
    bool resists;
    uint32_t resist_capacity;
    void *body_block, *shift_block, *quad_block, *total_block;
    uint32_t body_capacity, spin_capacity, pair_capacity, quad_capacity, total_capacity, slot_capacity;
    uint32_t contact_slot_capacity, shift_capacity;
    uint32_t mask_capacity, colour_capacity, start_capacity, order_capacity, bounce_capacity;
    uint32_t bounds_capacity, block_capacity, group_capacity, perm_capacity, sorted_capacity, first_capacity;
    uint32_t at_capacity, slot_first_capacity;
    uint32_t colours_capacity, slots_capacity;
} cr_sphere_substep;

void cr_sphere_substep_free(cr_world *w)
{
    cr_sphere_substep *s = w->rigid->sphere_substep;
    if (!s) return;
    cr_free(w, s->body_block);
    cr_free(w, s->shift_block);
    cr_free(w, s->spin);
    cr_free(w, s->pairs);
    cr_free(w, s->quad_block);
    cr_free(w, s->total_block);
    cr_free(w, s->slot_contact);
    cr_free(w, s->contact_slot);
    cr_free(w, s->mask);
    cr_free(w, s->bounce);
    cr_free(w, s->colour);
    cr_free(w, s->run_start);
    cr_free(w, s->order);
    cr_free(w, s->bounds);
    cr_free(w, s->block);
    cr_free(w, s->group);
    cr_free(w, s->perm);
    cr_free(w, s->sorted_pairs);
    cr_free(w, s->first);
    cr_free(w, s->at);
    cr_free(w, s->slot_first);
    cr_free(w, s->colours);
    cr_free(w, s->slots);
    cr_free(w, s->resist);
    cr_free(w, s);
    w->rigid->sphere_substep = NULL;
}

/* Room for need elements of elem bytes at *aligned, 64-byte aligned within
 * the block *raw (the kernels' rows of four doubles then never straddle a
 * cache line); the contents are not kept. */
static bool grow_aligned(cr_world *w, void **raw, void **aligned, uint32_t *capacity, uint32_t need, size_t elem)
{
    if (need <= *capacity) return true;
    uint32_t cap = *capacity ? *capacity : 16;
    while (cap < need) {
        if (cap > UINT32_MAX / 2) return false;
        cap *= 2;
    }
    if ((size_t)cap > (SIZE_MAX - 64) / elem) return false;
    void *p = cr_alloc(w, (size_t)cap * elem + 64);
    if (!p) return false;
    cr_free(w, *raw);
    *raw = p;
    *aligned = (void *)(((uintptr_t)p + 63) & ~(uintptr_t)63);
    *capacity = cap;
    return true;
}

/* Slots for n points in groups: each group's colours, and its overflow,
 * filled up to a whole quad at most. */
static uint32_t slot_count_for(uint32_t points, uint32_t groups)
{
    return points + 4 * (CR_SOFT_COLOURS + 1) * groups;
}

/* The arrays sized by the bodies and the points (those sized by the
 * groups: ensure_groups). */
static cr_sphere_substep *ensure(cr_world *w, uint32_t bodies, uint32_t points)
{
    cr_rigid *r = w->rigid;
    if (!r->sphere_substep) {
        r->sphere_substep = cr_alloc(w, sizeof *r->sphere_substep);
        if (!r->sphere_substep) return NULL;
        memset(r->sphere_substep, 0, sizeof *r->sphere_substep);
    }
    cr_sphere_substep *s = r->sphere_substep;
    uint32_t items = (bodies + CR_SPHERE_BODY_ITEM - 1) / CR_SPHERE_BODY_ITEM;
    if (!grow_aligned(w, &s->body_block, (void **)&s->bodies, &s->body_capacity, bodies, sizeof *s->bodies) ||
        !grow_aligned(w, &s->shift_block, (void **)&s->shift, &s->shift_capacity, bodies, sizeof *s->shift) ||
        !cr_grow(w, (void **)&s->spin, &s->spin_capacity, bodies, sizeof *s->spin) ||
        !cr_grow(w, (void **)&s->pairs, &s->pair_capacity, 2 * points, sizeof *s->pairs) ||
        !cr_grow(w, (void **)&s->contact_slot, &s->contact_slot_capacity, points, sizeof *s->contact_slot) ||
        !cr_grow(w, (void **)&s->mask, &s->mask_capacity, bodies, sizeof *s->mask) ||
        !cr_grow(w, (void **)&s->bounce, &s->bounce_capacity, points / CR_SPHERE_CONTACT_ITEM + 1,
                 sizeof *s->bounce) ||
        !cr_grow(w, (void **)&s->colour, &s->colour_capacity, points, sizeof *s->colour) ||
        !cr_grow(w, (void **)&s->order, &s->order_capacity, points, sizeof *s->order) ||
        !cr_grow(w, (void **)&s->bounds, &s->bounds_capacity, 2 * items, sizeof *s->bounds) ||
        !cr_grow(w, (void **)&s->block, &s->block_capacity, bodies, sizeof *s->block))
        return NULL;
    return s;
}

/* The arrays sized by the groups (the blocks' and the cross one): false
 * when out of memory. */
static bool ensure_groups(cr_world *w, cr_sphere_substep *s, uint32_t points, uint32_t groups)
{
    uint32_t slots = slot_count_for(points, groups);
    uint32_t items = points / CR_SPHERE_CONTACT_ITEM + 1;
    bool blocks = groups > 1;
    if ((uint64_t)items * groups > UINT32_MAX) return false;
    return grow_aligned(w, &s->quad_block, (void **)&s->quads, &s->quad_capacity, slots / 4, sizeof *s->quads) &&
           grow_aligned(w, &s->total_block, (void **)&s->totals, &s->total_capacity, slots / 4, sizeof *s->totals) &&
           cr_grow(w, (void **)&s->slot_contact, &s->slot_capacity, slots, sizeof *s->slot_contact) &&
           cr_grow(w, (void **)&s->run_start, &s->start_capacity, points + groups, sizeof *s->run_start) &&
           cr_grow(w, (void **)&s->colours, &s->colours_capacity, groups, sizeof *s->colours) &&
           cr_grow(w, (void **)&s->slots, &s->slots_capacity, groups, sizeof *s->slots) &&
           (!blocks || (cr_grow(w, (void **)&s->group, &s->group_capacity, points, sizeof *s->group) &&
                        cr_grow(w, (void **)&s->perm, &s->perm_capacity, points, sizeof *s->perm) &&
                        cr_grow(w, (void **)&s->sorted_pairs, &s->sorted_capacity, 2 * points,
                                sizeof *s->sorted_pairs) &&
                        cr_grow(w, (void **)&s->first, &s->first_capacity, groups + 1, sizeof *s->first) &&
                        cr_grow(w, (void **)&s->slot_first, &s->slot_first_capacity, groups + 1,
                                sizeof *s->slot_first) &&
                        cr_grow(w, (void **)&s->at, &s->at_capacity, items * groups, sizeof *s->at)));
}

/* As rigid_substep.c's load_bodies, bodies [begin, end): a body the
 * solver moves gets its inverse mass and inertia; a kinematic one keeps
 * its velocity; entry slot_count is the world (planes). Each body's
 * colouring mask too (cr_soft_colour_masked: 0, or CR_SOFT_FIXED where it
 * does not move). */
static void load_bodies(const cr_world *w, sphere_body *sb, cr_sphere_shift *shift, cr_vec3 *spin, uint32_t *mask,
                        uint32_t begin, uint32_t end)
{
    const cr_bodies *b = &w->bodies;
    uint32_t n = b->slot_count;
    for (uint32_t i = begin; i < end; ++i) {
        sphere_body *s = &sb[i];
        memset(s, 0, sizeof *s);
        memset(&shift[i], 0, sizeof shift[i]);
        if (i < n) spin[i] = cr_v3_zero();
        mask[i] = CR_SOFT_FIXED;
        if (i == n || !cr_slot_alive(b, i)) continue;
        if (cr_rigid_moves(b, i)) {
            s->inv_mass = b->inv_mass[i];
            s->inv_inertia = b->inv_inertia[i];
        }
        if (s->inv_mass > 0.0) mask[i] = 0; /* as cr_soft_colour_pairs' test */
        if (b->type[i] != CR_BODY_STATIC && !b->asleep[i]) {
            s->v = b->v[i];
            s->w = b->w[i];
        }
    }
}

/* The bounds of the moving bodies of [begin, end) (mask 0: set by
 * load_bodies) at lo, hi (lo > hi: none). */
static void moving_bounds(const cr_world *w, const uint32_t *mask, uint32_t begin, uint32_t end, cr_vec3 *lo,
                          cr_vec3 *hi)
{
    const cr_vec3 *x = w->bodies.x;
    *lo = cr_v3(INFINITY, INFINITY, INFINITY), *hi = cr_v3(-INFINITY, -INFINITY, -INFINITY);
    for (uint32_t i = begin; i < end; ++i)
        if (!mask[i]) *lo = cr_box_min(*lo, x[i]), *hi = cr_box_max(*hi, x[i]);
}

/* The blocks of bodies [begin, end): a moving one's by its position. */
static void load_blocks(const cr_world *w, const cr_sphere_substep *s, uint32_t begin, uint32_t end)
{
    const cr_vec3 *x = w->bodies.x;
    for (uint32_t i = begin; i < end; ++i)
        s->block[i] = s->mask[i] ? CR_SPHERE_NO_BLOCK : cr_sphere_block_of(&s->grid, x[i]);
}

/* Each contact's point's bodies (b: the world's index for a plane),
 * contacts [begin, end) (of one item); with blocks, its group, counted in
 * the item's row of at. */
static void load_pairs(const cr_world *w, cr_sphere_substep *s, uint32_t begin, uint32_t end, uint32_t *at)
{
    const cr_rigid *r = w->rigid;
    uint32_t *pairs = s->pairs, blocks = s->grid.count;
    if (blocks) memset(at, 0, (blocks + 1) * sizeof *at);
    for (uint32_t k = begin; k < end; ++k) {
        const cr_rigid_contact *c = &r->contacts[k];
        pairs[2 * k] = c->a;
        pairs[2 * k + 1] = c->is_plane ? w->bodies.slot_count : c->b;
        if (blocks) {
            s->group[k] = cr_sphere_group_of(s->block[pairs[2 * k]], s->block[pairs[2 * k + 1]], blocks);
            at[s->group[k]]++;
        }
    }
}

/* A slot that holds no point: the world on itself with no mass, arm or
 * impulse (the passes leave every body as it is), no restitution. */
static void pad_slot(cr_sphere_substep *s, uint32_t k, uint32_t world)
{
    const sphere_point pad = {world, world, cr_v3_zero(), 0.0, 0.0, 0.0, 0.0, 0.0, cr_v3_zero(), 0.0, 0.0};
    cr_sphere_totals *t = &s->totals[k / 4];
    uint32_t l = k % 4;
    t->n[l] = t->tx[l] = t->ty[l] = t->tz[l] = t->e[l] = t->vn0[l] = 0.0;
    cr_sphere_set(s->quads, k, &pad);
    s->slot_contact[k] = CR_SPHERE_PAD;
}

/* The slots of group g's colours (s->colours[g]) from slot k (a quad's
 * start): each colour's points in its order from a quad's start, its last
 * quad filled up with pads, then the overflow's; s->slots[g] the sections
 * in slots, contact_slot the inverse of slot_contact. The group's places
 * from first (perm: the contact at each place; NULL: the place is the
 * contact). Returns where the next group starts. */
static uint32_t lay_out_slots(cr_sphere_substep *s, uint32_t g, const uint32_t *perm, uint32_t first, uint32_t k,
                              uint32_t world)
{
    const cr_soft_colours *c = &s->colours[g];
    cr_soft_colours *out = &s->slots[g];
    for (uint32_t col = 0; col <= c->count; ++col) {
        uint32_t end = col < c->count ? c->start[col + 1] : c->run_count;
        out->start[col] = k;
        for (uint32_t i = c->start[col]; i < end; ++i, ++k) { /* a point is a run */
            uint32_t j = perm ? perm[first + c->order[i]] : c->order[i];
            s->slot_contact[k] = j;
            s->contact_slot[j] = k;
        }
        if (col < c->count)
            for (; k % 4; ++k) pad_slot(s, k, world);
    }
    out->count = c->count;
    out->run_count = k;
    for (; k % 4; ++k) pad_slot(s, k, world);
    return k;
}

/* The points of contacts [begin, end), each into its slot: read in
 * contact order (the contacts are large; read in colour order, they
 * missed the cache). Whether one of them may take restitution (what
 * restitution's test reads of it at the step's start: e > 0, approaching
 * faster than threshold). */
static bool prepare_points(cr_world *w, cr_sphere_substep *s, double substeps, double threshold, uint32_t begin,
                           uint32_t end)
{
    bool bounce = false;
    const cr_rigid *r = w->rigid;
    const cr_bodies *b = &w->bodies;
    const sphere_body *sb = s->bodies;
    uint32_t world = b->slot_count;
    for (uint32_t j = begin; j < end; ++j) {
        const cr_rigid_contact *c = &r->contacts[j];
        uint32_t k = s->contact_slot[j], l = k % 4;
        sphere_point p;
        p.a = c->a;
        p.b = c->is_plane ? world : c->b;
        p.n = c->normal;
        p.ra = -cr_v3_dot(cr_v3_sub(c->point, b->x[c->a]), c->normal);
        p.rb = c->is_plane ? 0.0 : cr_v3_dot(cr_v3_sub(c->point, b->x[c->b]), c->normal);
        const sphere_body *A = &sb[p.a], *B = &sb[p.b];
        p.s0 = c->separation;
        p.mu = c->friction;
        /* warm start: last step's impulses (over dt) shared out per
         * substep; the friction one in this step's contact plane */
        p.lambda_n = c->rest_n / substeps;
        p.lambda_t = cr_v3_scale(cr_v3_reject(c->rest_t, c->normal), 1.0 / substeps);
        cr_sphere_masses(A, B, p.ra, p.rb, &p.mass_n, &p.mass_t);
        cr_sphere_set(s->quads, k, &p);
        if (s->resists) {
            double spin = A->inv_inertia + B->inv_inertia;
            double factor = spin > 0.0 ? cr_resist_factor(cr_rigid_rolling_friction(b, c), p.ra, p.rb) : 0.0;
            /* warm start: last step's impulse shared out per substep */
            s->resist[k] = (cr_sphere_resist){factor > 0.0 ? cr_v3_scale(c->rest_roll, 1.0 / substeps) : cr_v3_zero(),
                                              factor, spin > 0.0 ? 1.0 / spin : 0.0};
        }
        cr_sphere_totals *t = &s->totals[k / 4];
        t->n[l] = t->tx[l] = t->ty[l] = t->tz[l] = 0.0;
        t->e[l] = c->restitution;
        t->vn0[l] = cr_v3_dot(c->normal, cr_sphere_rel_vel(A, B, &p));
        bounce |= t->e[l] != 0.0 && !(t->vn0[l] > -threshold); /* restitution's skip, negated */
    }
    return bounce;
}

/* As cr_soft_restitution: vn' = -e vn0 on points that approached faster
 * than threshold at the step's start and took impulse; slots [begin, end)
 * of one colour, in order. The serial sweep in slot (colour) order is the
 * Gauss-Seidel order; a colour's points share no moving body, so its
 * slots split over the workers give the same bits (as the solve passes). */
static void restitution(sphere_body *sb, cr_sphere_quad *q, cr_sphere_totals *st, uint32_t begin, uint32_t end,
                        double threshold)
{
    for (uint32_t k = begin; k < end; ++k) {
        cr_sphere_totals *t = &st[k / 4];
        uint32_t l = k % 4;
        if (t->e[l] == 0.0 || t->vn0[l] > -threshold || t->n[l] == 0.0) continue; /* pads: e = 0 */
        sphere_point p = cr_sphere_get(q, k);
        sphere_body *A = &sb[p.a], *B = &sb[p.b];
        double vn = cr_v3_dot(p.n, cr_v3_sub(A->v, B->v));
        double next = fmax(p.lambda_n - p.mass_n * (vn + t->e[l] * t->vn0[l]), 0.0);
        double d = next - p.lambda_n;
        q[k / 4].lambda_n[l] = next;
        t->n[l] += d;
        /* normal impulse d on a at the point, minus that on b (no turn:
         * the normal row moves no spin); a body that cannot move is not
         * written (points of one colour on several workers may share it) */
        cr_vec3 P = cr_v3_scale(p.n, d);
        if (A->inv_mass > 0.0) A->v = cr_v3_madd(A->v, P, A->inv_mass);
        if (B->inv_mass > 0.0) B->v = cr_v3_madd(B->v, P, -B->inv_mass);
    }
}

static void integrate_velocities(const cr_world *w, sphere_body *sb, double h, uint32_t begin, uint32_t end)
{
    cr_vec3 dv = cr_v3_scale(w->def.gravity, h);
    for (uint32_t i = begin; i < end; ++i)
        if (sb[i].inv_mass > 0.0) sb[i].v = cr_v3_add(sb[i].v, dv);
}

/* Positions over h, each body's displacement since the step's start, and
 * its turn (applied once, at the step's end). */
static void integrate_positions(cr_world *w, const sphere_body *sb, cr_sphere_shift *shift, cr_vec3 *spin, double h,
                                uint32_t begin, uint32_t end)
{
    cr_bodies *b = &w->bodies;
    for (uint32_t i = begin; i < end; ++i) {
        if (!cr_slot_alive(b, i) || b->type[i] == CR_BODY_STATIC || b->asleep[i]) continue;
        const sphere_body *s = &sb[i];
        b->x[i] = cr_v3_madd(b->x[i], s->v, h);
        shift[i].dp = cr_v3_madd(shift[i].dp, s->v, h);
        spin[i] = cr_v3_madd(spin[i], s->w, h);
    }
}

/* The velocities and turns of bodies [begin, end). */
static void store_bodies(cr_world *w, const cr_sphere_substep *s, uint32_t begin, uint32_t end)
{
    cr_bodies *b = &w->bodies;
    const sphere_body *sb = s->bodies;
    for (uint32_t i = begin; i < end; ++i) {
        if (!cr_slot_alive(b, i) || b->type[i] == CR_BODY_STATIC || b->asleep[i]) continue;
        b->q[i] = cr_q_integrate(b->q[i], s->spin[i], 1.0);
        if (sb[i].inv_mass > 0.0) b->v[i] = sb[i].v, b->w[i] = sb[i].w;
    }
}

/* The impulses of contacts [begin, end), from their slots. */
static void store_contacts(cr_world *w, const cr_sphere_substep *s, double substeps, uint32_t begin, uint32_t end)
{
    cr_rigid *r = w->rigid;
    for (uint32_t j = begin; j < end; ++j) {
        cr_rigid_contact *c = &r->contacts[j];
        uint32_t k = s->contact_slot[j], l = k % 4;
        const sphere_point p = cr_sphere_get(s->quads, k);
        const cr_sphere_totals *t = &s->totals[k / 4];
        c->rest_n = p.lambda_n * substeps;
        c->rest_t = cr_v3_scale(p.lambda_t, substeps);
        c->jn = t->n[l];
        c->jt = cr_v3(t->tx[l], t->ty[l], t->tz[l]);
        if (s->resists) c->rest_roll = cr_v3_scale(s->resist[k].lambda, substeps);
    }
}

/* A pass of the step over the workers: over the bodies, the contacts, or
 * a colour's points (a coloured pass). */
typedef enum pass_kind {
    /* over the bodies (items of CR_SPHERE_BODY_ITEM) */
    PASS_LOAD_BODIES, PASS_BLOCKS, PASS_GRAVITY, PASS_POSITIONS, PASS_STORE_BODIES,
    /* over the contacts (items of CR_SPHERE_CONTACT_ITEM) */
    PASS_CONTACTS, PASS_PAIRS = PASS_CONTACTS, PASS_SCATTER, PASS_PREPARE, PASS_STORE_CONTACTS,
    /* coloured, over a colour's points (items of CR_SPHERE_POINT_ITEM),
     * or over the blocks (an item a block) */
    PASS_WARM_START, PASS_SOLVE, PASS_RESTITUTION
} pass_kind;

typedef struct pass {
    cr_world *w;
    cr_sphere_substep *s;
    pass_kind kind;
    cr_soft_section sec; /* the colour's slots: [sec.begin, sec.begin + sec.count) */
    cr_sphere_pass solve;
    double h, substeps;
    bool avx2;   /* the colours' points on lanes (not the overflows') */
    bool lanes8; /* a colour's points on AVX-512 lanes, two quads at a time (sec.lanes: on lanes) */
} pass;

/* Slots [first, last) of one colour (lanes: on the lanes) or of an
 * overflow, in the coloured pass p->kind. */
static void points_pass(const pass *p, uint32_t first, uint32_t last, bool lanes)
{
    cr_sphere_substep *s = p->s;
    if (p->kind == PASS_RESTITUTION)
        restitution(s->bodies, s->quads, s->totals, first, last, p->w->resting_speed);
    else if (p->kind == PASS_WARM_START)
        (!lanes      ? cr_sphere_warm_start
         : p->lanes8 ? cr_sphere_warm_start_avx512
                     : cr_sphere_warm_start_avx2)(s->bodies, s->quads, first, last);
    else
        (!lanes      ? cr_sphere_solve
         : p->lanes8 ? cr_sphere_solve_avx512
                     : cr_sphere_solve_avx2)(s->bodies, s->quads, first, last, &p->solve);
    /* a colour's points share no moving body: the rows of the same slots
     * after them are as safe on the workers */
    if (s->resists && p->kind != PASS_RESTITUTION)
        cr_sphere_resist_pass(s->bodies, s->quads, s->resist, first, last, p->kind == PASS_WARM_START);
}

/* Work items [start, end) of a pass: bodies, contacts, or points of the
 * colour. */
static void pass_items(uint32_t start, uint32_t end, uint32_t worker, void *ctx)
{
    (void)worker;
    const pass *p = ctx;
    cr_sphere_substep *s = p->s;
    if (p->kind < PASS_CONTACTS) {
        uint32_t n = p->w->bodies.slot_count, first = start * CR_SPHERE_BODY_ITEM, last = end * CR_SPHERE_BODY_ITEM;
        if (last > n) last = n;
        switch (p->kind) {
        case PASS_LOAD_BODIES:
            load_bodies(p->w, s->bodies, s->shift, s->spin, s->mask, first, last);
            for (uint32_t item = start; item < end; ++item) {
                uint32_t i0, i1;
                cr_soft_item_range(item, item + 1, CR_SPHERE_BODY_ITEM, n, &i0, &i1);
                moving_bounds(p->w, s->mask, i0, i1, &s->bounds[2 * item], &s->bounds[2 * item + 1]);
            }
            break;
        case PASS_BLOCKS: load_blocks(p->w, s, first, last); break;
        case PASS_GRAVITY: integrate_velocities(p->w, s->bodies, p->h, first, last); break;
        case PASS_POSITIONS: integrate_positions(p->w, s->bodies, s->shift, s->spin, p->h, first, last); break;
        default: store_bodies(p->w, s, first, last); break;
        }
        return;
    }
    if (p->kind < PASS_WARM_START) {
        uint32_t n = p->w->rigid->contact_count, first = start * CR_SPHERE_CONTACT_ITEM,
                 last = end * CR_SPHERE_CONTACT_ITEM;
        if (last > n) last = n;
        uint32_t groups = s->grid.count + 1;
        if (p->kind == PASS_PAIRS || p->kind == PASS_SCATTER) { /* an item at a time: its row of at */
            for (uint32_t item = start; item < end; ++item) {
                uint32_t i0, i1;
                cr_soft_item_range(item, item + 1, CR_SPHERE_CONTACT_ITEM, n, &i0, &i1);
                uint32_t *at = groups > 1 ? s->at + (size_t)item * groups : NULL;
                if (p->kind == PASS_PAIRS) load_pairs(p->w, s, i0, i1, at);
                else cr_sphere_scatter_groups(s->pairs, s->group, i0, i1, at, s->perm, s->sorted_pairs);
            }
        } else if (p->kind == PASS_PREPARE) {
            bool bounce = prepare_points(p->w, s, p->substeps, p->w->resting_speed, first, last);
            for (uint32_t item = start; item < end; ++item) s->bounce[item] = bounce;
        }
        else store_contacts(p->w, s, p->substeps, first, last);
        return;
    }
    uint32_t first = start * CR_SPHERE_POINT_ITEM, last = end * CR_SPHERE_POINT_ITEM;
    if (last > p->sec.count) last = p->sec.count;
    points_pass(p, first + p->sec.begin, last + p->sec.begin, p->sec.lanes);
}

/* Blocks [start, end) of a coloured pass, each on its own: its colours one
 * after the other, then its overflow, on this worker (a block's points
 * share no moving body with another block's). */
static void block_items(uint32_t start, uint32_t end, uint32_t worker, void *ctx)
{
    (void)worker;
    const pass *p = ctx;
    for (uint32_t g = start; g < end; ++g) {
        const cr_soft_colours *c = &p->s->slots[g];
        for (uint32_t col = 0; col <= c->count; ++col)
            points_pass(p, c->start[col], col < c->count ? c->start[col + 1] : c->run_count,
                        p->avx2 && col < c->count);
    }
}

/* A coloured pass of kind: the blocks' points, the blocks at once, then
 * the points across them (every point without blocks) colour by colour
 * (soft_sections.h). The Gauss-Seidel order is the blocks' and then the
 * cross group's colours'. */
static void coloured_pass(pass *p, pass_kind kind)
{
    p->kind = kind;
    uint32_t blocks = p->s->grid.count;
    cr_soft_run(p->w, block_items, blocks, p);
    cr_soft_coloured_pass(p->w, &p->s->slots[blocks], CR_SPHERE_POINT_ITEM, p->avx2, &p->sec, pass_items, p);
}

/* A pass over the bodies or the contacts (not coloured: each item writes
 * its own), on the workers. */
static void run_pass(pass *p, pass_kind kind)
{
    uint32_t n = kind < PASS_CONTACTS ? p->w->bodies.slot_count : p->w->rigid->contact_count;
    uint32_t size = kind < PASS_CONTACTS ? CR_SPHERE_BODY_ITEM : CR_SPHERE_CONTACT_ITEM;
    p->kind = kind;
    cr_soft_run(p->w, pass_items, (n + size - 1) / size, p);
}

/* The blocks' grid, from the moving bodies' bounds (the load's items'). */
static void make_grid(const cr_world *w, cr_sphere_substep *s)
{
    uint32_t n = w->bodies.slot_count, items = (n + CR_SPHERE_BODY_ITEM - 1) / CR_SPHERE_BODY_ITEM;
    cr_vec3 lo = cr_v3(INFINITY, INFINITY, INFINITY), hi = cr_v3(-INFINITY, -INFINITY, -INFINITY);
    for (uint32_t item = 0; item < items; ++item)
        lo = cr_box_min(lo, s->bounds[2 * item]), hi = cr_box_max(hi, s->bounds[2 * item + 1]);
    uint32_t per_block = w->rigid->sphere_block_bodies ? w->rigid->sphere_block_bodies : CR_SPHERE_BLOCK_BODIES;
    s->grid = cr_sphere_grid_make(lo, hi, n, per_block);
}

/* Blocks [start, end)'s points coloured, each block's on its own (its
 * moving bodies are no other block's: the same colours at once). */
static void colour_items(uint32_t start, uint32_t end, uint32_t worker, void *ctx)
{
    (void)worker;
    cr_sphere_substep *s = ((const pass *)ctx)->s;
    for (uint32_t g = start; g < end; ++g)
        cr_sphere_colour_group(s->sorted_pairs, s->first, g, CR_SPHERE_BLOCK_MIN_COLOUR, s->mask, s->colour,
                               s->run_start, s->order, s->colours);
}

/* Groups [start, end) laid out in slots, each from its first slot (its
 * own slots, quads and contacts: at once). */
static void lay_out_items(uint32_t start, uint32_t end, uint32_t worker, void *ctx)
{
    (void)worker;
    const pass *p = ctx;
    cr_sphere_substep *s = p->s;
    for (uint32_t g = start; g < end; ++g)
        lay_out_slots(s, g, s->perm, s->first[g], s->slot_first[g], p->w->bodies.slot_count);
}

/* The slots group g's colours take, each colour's and the overflow's
 * filled up to a whole quad (lay_out_slots). */
static uint32_t group_slots(const cr_soft_colours *c)
{
    uint32_t n = 0;
    for (uint32_t col = 0; col <= c->count; ++col)
        n += ((col < c->count ? c->start[col + 1] : c->run_count) - c->start[col] + 3) / 4 * 4;
    return n;
}

/* The points coloured and laid out in slots: without blocks all in one
 * group, in contact order; with blocks sorted into groups (the counts of
 * PASS_PAIRS' items, then PASS_SCATTER), the cross group coloured first
 * (on the masks load_bodies set), its bodies' masks cleared, then the
 * blocks' at once; the slots block after block, then the cross group's,
 * laid out at once from each group's first slot. */
static void colour_points(pass *p)
{
    cr_sphere_substep *s = p->s;
    uint32_t nc = p->w->rigid->contact_count, world = p->w->bodies.slot_count, blocks = s->grid.count;
    if (!blocks) {
        s->colours[0].run_start = s->run_start, s->colours[0].order = s->order;
        cr_soft_colour_masked(s->pairs, 2 * sizeof *s->pairs, nc, false, s->mask, s->colour, &s->colours[0]);
        lay_out_slots(s, 0, NULL, 0, 0, world);
        return;
    }
    cr_sphere_group_places(s->at, (nc + CR_SPHERE_CONTACT_ITEM - 1) / CR_SPHERE_CONTACT_ITEM, blocks + 1, s->first);
    run_pass(p, PASS_SCATTER);
    cr_sphere_colour_group(s->sorted_pairs, s->first, blocks, CR_SOFT_MIN_COLOUR, s->mask, s->colour, s->run_start,
                           s->order, s->colours);
    cr_sphere_clear_masks(s->sorted_pairs, s->first[blocks], nc, s->mask);
    cr_soft_run(p->w, colour_items, blocks, p);
    s->slot_first[0] = 0;
    for (uint32_t g = 0; g <= blocks; ++g) s->slot_first[g + 1] = s->slot_first[g] + group_slots(&s->colours[g]);
    cr_soft_run(p->w, lay_out_items, blocks + 1, p);
}

cr_status cr_sphere_substep_solve(cr_world *w)
{
    cr_rigid *r = w->rigid;
    uint32_t nb = w->bodies.slot_count, nc = r->contact_count;
    cr_sphere_substep *s = ensure(w, nb + 1, nc);
    if (!s) return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "sphere sub-stepped solve: out of memory");
    double S = (double)w->def.rigid_substeps, h = w->def.dt / S, inv_h = 1.0 / h;
    cr_soft soft[2];
    cr_soft_contact_softness(w->def.contact_hertz, w->def.contact_damping_ratio, h, soft);
    bool avx2 = cr_use_avx2(r->substep_portable);
    pass p = {w, s, PASS_LOAD_BODIES, {0, 0, false}, {s->shift, {soft[0], soft[1]}, inv_h, true, NULL}, h, S,
              avx2, avx2 && !r->substep_lanes4 && cr_sphere_lanes8()};
    run_pass(&p, PASS_LOAD_BODIES);
    load_bodies(w, s->bodies, s->shift, s->spin, s->mask, nb, nb + 1); /* the world's */
    make_grid(w, s);
    if (!ensure_groups(w, s, nc, s->grid.count + 1)) {
        s->grid.count = 0;
        return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "sphere sub-stepped solve: out of memory");
    }
    s->resists = cr_world_resists(w);
    if (s->resists) {
        uint32_t slots = slot_count_for(nc, s->grid.count + 1);
        if (!cr_grow(w, (void **)&s->resist, &s->resist_capacity, slots, sizeof *s->resist))
            return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "sphere sub-stepped solve: out of memory");
        memset(s->resist, 0, (size_t)slots * sizeof *s->resist); /* the pads' */
    }
    s->block[nb] = CR_SPHERE_NO_BLOCK;
    if (s->grid.count) run_pass(&p, PASS_BLOCKS);
    run_pass(&p, PASS_PAIRS);
    colour_points(&p);
    run_pass(&p, PASS_PREPARE);
    for (int i = 0; i < w->def.rigid_substeps; ++i) {
        run_pass(&p, PASS_GRAVITY);
        coloured_pass(&p, PASS_WARM_START);
        p.solve.use_bias = true, p.solve.totals = NULL;
        for (int k = 0; k < w->def.substep_iterations; ++k) coloured_pass(&p, PASS_SOLVE);
        run_pass(&p, PASS_POSITIONS);
        /* the relax pass ends the substep: it adds the lambdas to the totals */
        p.solve.use_bias = false, p.solve.totals = s->totals;
        coloured_pass(&p, PASS_SOLVE);
    }
    /* restitution, unless no point may take it (at rest, most steps) */
    uint8_t bounce = 0;
    for (uint32_t item = 0; item < (nc + CR_SPHERE_CONTACT_ITEM - 1) / CR_SPHERE_CONTACT_ITEM; ++item)
        bounce |= s->bounce[item];
    if (bounce) coloured_pass(&p, PASS_RESTITUTION);
    run_pass(&p, PASS_STORE_BODIES);
    run_pass(&p, PASS_STORE_CONTACTS);
    return CR_OK;
}

uint32_t cr_sphere_substep_colours(const cr_world *w)
{
    const cr_sphere_substep *s = w->rigid ? w->rigid->sphere_substep : NULL;
    uint32_t most = 0;
    for (uint32_t g = 0; s && s->colours && g <= s->grid.count; ++g)
        most = s->colours[g].count > most ? s->colours[g].count : most;
    return most;
}

uint32_t cr_sphere_substep_blocks(const cr_world *w)
{
    const cr_sphere_substep *s = w->rigid ? w->rigid->sphere_substep : NULL;
    return s ? s->grid.count : 0;
}
