/* The velocity solve of a rigid-body step: seed 003's colliding contact,
 * then resting contact, each as one multiplier system with the joints. */
#include <string.h>

#include "rigid.h"
#include "soft_resist.h"

/* Rounds of colliding contact; after CR_RESTITUTION_ROUNDS the restitution
 * is taken as zero (seed 003: "not allowing epsilon to be too close to 1 ...
 * the system will eventually run out of energy"), after CR_COLLISION_ROUNDS
 * what still collides is left to the resting solve (as a plastic contact). */
#define CR_RESTITUTION_ROUNDS 4
#define CR_COLLISION_ROUNDS 16

static void load_bodies(cr_world *w)
{
    cr_rigid *r = w->rigid;
    const cr_bodies *b = &w->bodies;
    for (uint32_t i = 0; i < b->slot_count; ++i) {
        cr_lcp_body *l = &r->lb[i];
        bool live = cr_slot_alive(b, i);
        l->inv_mass = live ? b->inv_mass[i] : 0.0;
        l->inv_inertia = r->inv_inertia_world[i];
        l->v = live ? b->v[i] : cr_v3_zero();
        l->w = live ? b->w[i] : cr_v3_zero();
    }
}

static void store_bodies(cr_world *w)
{
    const cr_rigid *r = w->rigid;
    cr_bodies *b = &w->bodies;
    for (uint32_t i = 0; i < b->slot_count; ++i)
        if (cr_slot_alive(b, i) && cr_slot_dynamic(b, i)) {
            b->v[i] = r->lb[i].v;
            b->w[i] = r->lb[i].w;
        }
}

static cr_vec3 arm(const cr_world *w, uint32_t i, cr_vec3 p) { return cr_v3_sub(p, w->bodies.x[i]); }

/* Relative velocity of a over b at the contact point. */
static cr_vec3 relative_velocity(const cr_world *w, const cr_rigid_contact *c)
{
    const cr_bodies *b = &w->bodies;
    cr_vec3 v = cr_v3_add(b->v[c->a], cr_v3_cross(b->w[c->a], arm(w, c->a, c->point)));
    if (!c->is_plane) v = cr_v3_sub(v, cr_v3_add(b->v[c->b], cr_v3_cross(b->w[c->b], arm(w, c->b, c->point))));
    return v;
}

static cr_lcp_row contact_row(const cr_world *w, const cr_rigid_contact *c, cr_vec3 d, uint8_t kind, double target)
{
    cr_lcp_row row;
    memset(&row, 0, sizeof row);
    row.kind = kind;
    row.a = c->a;
    row.b = c->is_plane ? CR_LCP_FIXED : c->b;
    row.ja_lin = d;
    row.ja_ang = cr_v3_cross(arm(w, c->a, c->point), d);
    if (!c->is_plane) {
        row.jb_lin = cr_v3_neg(d);
        row.jb_ang = cr_v3_neg(cr_v3_cross(arm(w, c->b, c->point), d));
    }
    row.target = target;
    row.mu = c->friction;
    return row;
}

/* Appends the normal row and two friction rows of contact c. */
static uint32_t push_contact(cr_world *w, cr_rigid_contact *c, uint32_t n, double normal_target, bool warm)
{
    cr_lcp_row *rows = w->rigid->rows;
    rows[n] = contact_row(w, c, c->normal, CR_ROW_NORMAL, normal_target);
    rows[n + 1] = contact_row(w, c, c->t1, CR_ROW_FRICTION, 0.0);
    rows[n + 2] = contact_row(w, c, c->t2, CR_ROW_FRICTION, 0.0);
    rows[n + 1].parent = rows[n + 2].parent = n;
    rows[n].lambda = warm ? c->rest_n : 0.0;
    rows[n + 1].lambda = warm ? cr_v3_dot(c->rest_t, c->t1) : 0.0;
    rows[n + 2].lambda = warm ? cr_v3_dot(c->rest_t, c->t2) : 0.0;
    return n + 3;
}

/* The bound factor nu R* of contact c's rolling and spin resistance
 * (soft_resist.h's rule: a torque of at most (nu_a + nu_b) R* N); 0: the
 * contact has no resistance rows. */
static double resist_factor(const cr_world *w, const cr_rigid_contact *c)
{
    double nu = cr_rigid_rolling_friction(&w->bodies, c);
    if (!(nu > 0.0)) return 0.0;
    double ra = -cr_v3_dot(arm(w, c->a, c->point), c->normal);
    double rb = c->is_plane ? 0.0 : cr_v3_dot(arm(w, c->b, c->point), c->normal);
    return cr_resist_factor(nu, ra, rb);
}

/* Appends contact c's resistance rows after its own (its normal row at
 * normal): three friction rows on the bodies' relative turn, about n, t1
 * and t2, each bounded by factor times the normal multiplier (the
 * solver's pyramid, as the contact's friction), warm-started by last
 * step's impulse (rest_roll, as the sub-stepped solver keeps it). */
static uint32_t push_resistance(cr_world *w, const cr_rigid_contact *c, uint32_t normal, uint32_t n, double factor)
{
    const cr_vec3 axis[3] = {c->normal, c->t1, c->t2};
    for (int k = 0; k < 3; ++k) {
        cr_lcp_row *row = &w->rigid->rows[n + k];
        memset(row, 0, sizeof *row);
        row->kind = CR_ROW_FRICTION;
        row->a = c->a;
        row->b = c->is_plane ? CR_LCP_FIXED : c->b;
        row->ja_ang = axis[k];
        if (!c->is_plane) row->jb_ang = cr_v3_neg(axis[k]);
        row->mu = factor;
        row->parent = normal;
        row->lambda = cr_v3_dot(c->rest_roll, axis[k]);
    }
    return n + 3;
}

static uint32_t joint_rows_total(const cr_world *w)
{
    uint32_t n = 0;
    for (uint32_t k = 0; k < w->rigid->joint_count; ++k)
        if (w->rigid->joints[k].generation & 1u) n += cr_joint_row_count(&w->rigid->joints[k]);
    return n;
}

static double kinetic_total(const cr_world *w)
{
    double e = 0.0;
    for (uint32_t i = 0; i < w->bodies.slot_count; ++i)
        if (cr_slot_alive(&w->bodies, i) && cr_slot_dynamic(&w->bodies, i)) e += cr_body_kinetic(w, i);
    return e;
}

/* Solves rows into the solver's copy of the velocities (r->lb); the caller
 * stores them back when it keeps the result. */
static cr_status lcp(cr_world *w, uint32_t rows)
{
    cr_rigid *r = w->rigid;
    cr_lcp_options opt = cr_rigid_lcp_options(w);
    load_bodies(w);
    cr_lcp_stats st;
    cr_status s = cr_lcp_solve(r->rows, rows, r->lb, w->bodies.slot_count, &opt, r->ws, &st);
    cr_rigid_count_fallbacks(w, &st);
    if (s == CR_ERR_OUT_OF_MEMORY) return cr_fail(w, s, "rigid contact solve: out of memory");
    if (s != CR_OK) {
        w->failed = true;
        return cr_fail(w, s, "rigid contact solve: non-finite multipliers at step %llu; the world stopped",
                       (unsigned long long)w->steps + 1);
    }
    return CR_OK;
}

static double kinetic_solved(const cr_world *w)
{
    double e = 0.0;
    for (uint32_t i = 0; i < w->bodies.slot_count; ++i)
        if (cr_slot_alive(&w->bodies, i) && cr_slot_dynamic(&w->bodies, i))
            e += cr_body_kinetic_of(w, i, w->rigid->lb[i].v, w->rigid->lb[i].w);
    return e;
}

/* Adds a contact's multipliers (normal row and its two friction rows) to
 * the impulses the step reports. */
static void record(cr_rigid_contact *c, const cr_lcp_row *row)
{
    c->jn += row[0].lambda;
    c->jt = cr_v3_add(c->jt, cr_v3_add(cr_v3_scale(c->t1, row[1].lambda), cr_v3_scale(c->t2, row[2].lambda)));
}

/* A single colliding contact and no joint on its bodies: the world's impact
 * law (seed 002's exact frictional impulse with "law": "stronge"). */
static bool single_impact(cr_world *w, cr_rigid_contact *c, double e)
{
    if (w->def.law != CR_LAW_STRONGE || joint_rows_total(w) > 0) return false;
    cr_bodies *b = &w->bodies;
    const cr_rigid *r = w->rigid;
    cr_contact_side sa = {b->inv_mass[c->a], r->inv_inertia_world[c->a], arm(w, c->a, c->point), b->v[c->a], b->w[c->a]};
    cr_contact_side sb = cr_contact_side_immovable();
    if (!c->is_plane)
        sb = (cr_contact_side){b->inv_mass[c->b], r->inv_inertia_world[c->b], arm(w, c->b, c->point), b->v[c->b], b->w[c->b]};
    cr_vec3 p = cr_world_impact_impulse(w, &sa, &sb, c->normal, e, c->friction);
    b->v[c->a] = cr_v3_madd(b->v[c->a], p, sa.inv_mass);
    b->w[c->a] = cr_v3_add(b->w[c->a], cr_m3_mul_v(sa.inv_inertia, cr_v3_cross(sa.r, p)));
    if (!c->is_plane && cr_slot_dynamic(b, c->b)) {
        b->v[c->b] = cr_v3_madd(b->v[c->b], p, -sb.inv_mass);
        b->w[c->b] = cr_v3_sub(b->w[c->b], cr_m3_mul_v(sb.inv_inertia, cr_v3_cross(sb.r, p)));
    }
    c->jn += cr_v3_dot(p, c->normal);
    c->jt = cr_v3_add(c->jt, cr_v3_reject(p, c->normal));
    return true;
}

/* Seed 003, colliding contact: contacts that touch (or meet within the
 * step) and approach faster than the resting speed get c-dot' = -e c-dot in
 * one system with the joints (c-dot' = 0); then the contacts that now
 * collide are taken in the next round. */
static cr_status collide(cr_world *w)
{
    cr_rigid *r = w->rigid;
    double dt = w->def.dt;
    uint32_t jrows = joint_rows_total(w);
    uint32_t cap = r->colliding_capacity;
    if (!cr_grow(w, (void **)&r->colliding, &cap, r->contact_count, sizeof *r->colliding) ||
        !cr_grow(w, (void **)&r->in_round, &r->colliding_capacity, r->contact_count, sizeof *r->in_round))
        return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "rigid collisions: out of memory");
    bool together = w->def.collision_order == CR_ORDER_SIMULTANEOUS;
    for (uint32_t round = 0; round < CR_COLLISION_ROUNDS; ++round) {
        uint32_t count = 0, impacts = 0;
        for (uint32_t k = 0; k < r->contact_count; ++k) {
            cr_rigid_contact *c = &r->contacts[k];
            double vn = cr_v3_dot(c->normal, relative_velocity(w, c));
            bool meets = c->separation + fmin(vn, 0.0) * dt <= 0.0;
            bool colliding = vn < -w->resting_speed && meets;
            impacts += colliding;
            /* simultaneous: touching contacts that are not separating join */
            if (colliding || (together && meets && vn <= w->resting_speed)) r->colliding[count++] = k;
        }
        if (impacts == 0) break;
        w->stats.events += impacts;
        w->stats.events += count;
        bool elastic = round < CR_RESTITUTION_ROUNDS;
        if (count == 1 && single_impact(w, &r->contacts[r->colliding[0]], elastic ? r->contacts[r->colliding[0]].restitution : 0.0))
            continue;
        if (!cr_rigid_reserve_rows(w, jrows + 3 * count))
            return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "rigid collisions: out of memory");
        for (int attempt = 0; attempt < 2; ++attempt) {
            /* Newton's restitution over several contacts at once can make
             * energy; a round that would is taken again as plastic (e = 0),
             * whose impulses only take it */
            bool use_e = elastic && attempt == 0;
            uint32_t n = cr_joint_rows(w, r->rows, false);
            for (uint32_t q = 0; q < n; ++q) r->rows[q].lambda = 0.0;
            for (uint32_t q = 0; q < count; ++q) {
                cr_rigid_contact *c = &r->contacts[r->colliding[q]];
                cr_vec3 vrel = relative_velocity(w, c);
                double vn = cr_v3_dot(c->normal, vrel);
                cr_rigid_friction_axes(c, vrel);
                double target = use_e && vn < -w->resting_speed ? -c->restitution * vn : 0.0;
                n = push_contact(w, c, n, target, false);
            }
            double before = kinetic_total(w);
            cr_status s = lcp(w, n);
            if (s != CR_OK) return s;
            if (use_e && kinetic_solved(w) > before * (1.0 + 1e-12)) continue;
            store_bodies(w);
            for (uint32_t q = 0; q < count; ++q)
                record(&r->contacts[r->colliding[q]], &r->rows[jrows + 3 * q]);
            break;
        }
    }
    return CR_OK;
}

/* Resting contact (seed 003 with Coulomb friction): gravity's impulse over
 * the step, then every contact and joint in one system. A contact still
 * apart may close its gap within the step but not pass it (speculative).
 * A contact with rolling resistance (resist_factor > 0) has its three rows
 * after its own three; the colliding rounds take none (an impact is an
 * impulse law at the point). */
static cr_status rest(cr_world *w)
{
    cr_rigid *r = w->rigid;
    cr_bodies *b = &w->bodies;
    double dt = w->def.dt;
    for (uint32_t i = 0; i < b->slot_count; ++i)
        if (cr_slot_alive(b, i) && cr_rigid_moves(b, i)) b->v[i] = cr_v3_madd(b->v[i], w->def.gravity, dt);
    uint32_t jrows = joint_rows_total(w);
    bool resists = cr_world_resists(w);
    if (!cr_rigid_reserve_rows(w, jrows + (resists ? 6 : 3) * r->contact_count))
        return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "rigid contact solve: out of memory");
    uint32_t n = cr_joint_rows(w, r->rows, false);
    for (uint32_t k = 0; k < r->contact_count; ++k) {
        cr_rigid_contact *c = &r->contacts[k];
        cr_rigid_friction_axes(c, relative_velocity(w, c));
        uint32_t normal = n;
        n = push_contact(w, c, n, c->separation > 0.0 ? -c->separation / dt : 0.0, true);
        double factor = resists ? resist_factor(w, c) : 0.0;
        if (factor > 0.0) n = push_resistance(w, c, normal, n, factor);
    }
    if (n == 0) return CR_OK;
    cr_status s = lcp(w, n);
    if (s != CR_OK) return s;
    store_bodies(w);
    cr_joint_store(w, r->rows);
    for (uint32_t k = 0, at = jrows; k < r->contact_count; ++k, at += 3) {
        cr_rigid_contact *c = &r->contacts[k];
        const cr_lcp_row *row = &r->rows[at];
        c->rest_n = row[0].lambda;
        c->rest_t = cr_v3_add(cr_v3_scale(c->t1, row[1].lambda), cr_v3_scale(c->t2, row[2].lambda));
        record(c, row);
        c->rest_roll = cr_v3_zero();
        /* resistance rows follow their contact's three as friction rows;
         * the next contact starts with its normal row */
        if (at + 3 < n && row[3].kind == CR_ROW_FRICTION) {
            at += 3;
            c->rest_roll = cr_v3_add(cr_v3_add(cr_v3_scale(c->normal, row[3].lambda), cr_v3_scale(c->t1, row[4].lambda)),
                                     cr_v3_scale(c->t2, row[5].lambda));
        }
    }
    return CR_OK;
}

cr_status cr_rigid_solve(cr_world *w)
{
    if (w->def.rigid_substeps > 0) {
        /* the sub-stepped solver (rigid_substep.c; spheres only: its sphere
         * points, sphere_substep.c) has no joint rows */
        if (w->rigid->joint_live > 0)
            return cr_fail(w, CR_ERR_INVALID_ARGUMENT,
                           "rigid_substeps %d: the sub-stepped contact solver takes no joints (this world has %u); "
                           "use rigid_substeps 0",
                           w->def.rigid_substeps, w->rigid->joint_live);
        return cr_rigid_sphere_path(w) ? cr_sphere_substep_solve(w) : cr_rigid_substep_solve(w);
    }
    cr_status s = collide(w);
    return s != CR_OK ? s : rest(w);
}
