/* Stage 3, contacts: touching contacts solved at velocity level.
 *
 * Impulse method only. Every pair that touches at the start of the step
 * (overlap, or a gap below the touch margin) is a contact. Seed 000
 * appendix B resolves each impacting contact with one velocity jolt; bodies
 * in a pile touch several others at once, so the same law is applied as
 * projected Gauss-Seidel over all contacts with accumulated impulses:
 *   normal:   target v_n' = -e v_n0 for an impact (v_n0 < -resting speed,
 *             seed 000 b.2 / c.2), v_n' = 0 for resting contact, which over
 *             the step is seed 001 §3.2's f_c = -n.F_ext (released when it
 *             would pull: the accumulated impulse is clamped at zero);
 *   friction: the impulse that stops sliding, clamped to mu j (seed 000 c.4
 *             clip; seed 001 static friction up to mu f_c, kinetic at mu f_c).
 * One pass over a single contact is exactly cr_law_newton.
 */
#include "world_internal.h"

static bool add_contact(cr_world *w, const cr_contact *c)
{
    if (!cr_grow(w, (void **)&w->contacts, &w->contact_capacity, w->contact_count + 1, sizeof *w->contacts))
        return false;
    w->contacts[w->contact_count++] = *c;
    return true;
}

/* Relative velocity of the contact point, a with respect to b. */
static cr_vec3 contact_velocity(const cr_world *w, const cr_contact *c)
{
    const cr_bodies *b = &w->bodies;
    cr_vec3 ua = cr_v3_add(b->v[c->a], cr_v3_cross(b->w[c->a], cr_v3_scale(c->n, -b->radius[c->a])));
    if (c->is_plane) return ua;
    cr_vec3 ub = cr_v3_add(b->v[c->b], cr_v3_cross(b->w[c->b], cr_v3_scale(c->n, b->radius[c->b])));
    return cr_v3_sub(ua, ub);
}

static void apply_impulse(cr_world *w, const cr_contact *c, cr_vec3 p)
{
    cr_bodies *b = &w->bodies;
    b->v[c->a] = cr_v3_madd(b->v[c->a], p, b->inv_mass[c->a]);
    b->w[c->a] = cr_v3_madd(b->w[c->a], cr_v3_cross(cr_v3_scale(c->n, -b->radius[c->a]), p), b->inv_inertia[c->a]);
    if (c->is_plane) return;
    b->v[c->b] = cr_v3_madd(b->v[c->b], p, -b->inv_mass[c->b]);
    b->w[c->b] = cr_v3_madd(b->w[c->b], cr_v3_cross(cr_v3_scale(c->n, b->radius[c->b]), p), -b->inv_inertia[c->b]);
}

/* Effective inverse masses of a sphere contact: along n the offsets are
 * parallel to n, so rotation does not enter; across n it adds r^2 / I. */
static void set_masses(const cr_world *w, cr_contact *c)
{
    const cr_bodies *b = &w->bodies;
    double ra = b->radius[c->a];
    c->knn = b->inv_mass[c->a];
    c->ktt = b->inv_mass[c->a] + ra * ra * b->inv_inertia[c->a];
    if (!c->is_plane) {
        double rb = b->radius[c->b];
        c->knn += b->inv_mass[c->b];
        c->ktt += b->inv_mass[c->b] + rb * rb * b->inv_inertia[c->b];
    }
}

static cr_status find_contacts(cr_world *w)
{
    cr_bodies *b = &w->bodies;
    w->contact_count = 0;
    for (uint32_t k = 0; k < w->broad.pair_count; ++k) {
        uint32_t i = w->broad.pairs[k].a, j = w->broad.pairs[k].b;
        if (!cr_slot_dynamic(b, i) && !cr_slot_dynamic(b, j)) continue;
        cr_contact c = {0};
        c.a = i;
        c.b = j;
        c.overlap = cr_overlap_sphere_sphere(b->x[i], b->radius[i], b->x[j], b->radius[j], &c.n);
        if (-c.overlap > cr_touch_margin(b->radius[i] + b->radius[j])) continue;
        c.restitution = b->restitution[i] * b->restitution[j];
        c.friction = b->friction[i] * b->friction[j];
        if (!add_contact(w, &c)) return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "contacts: out of memory");
    }
    for (uint32_t i = 0; i < b->slot_count; ++i) {
        if (!cr_slot_alive(b, i) || !cr_slot_dynamic(b, i)) continue;
        for (uint32_t k = 0; k < w->planes.count; ++k) {
            const cr_plane_def *pl = &w->planes.def[k];
            cr_contact c = {0};
            c.a = i;
            c.b = k;
            c.is_plane = true;
            c.n = pl->normal;
            c.overlap = cr_penetration_sphere_plane(b->x[i], b->radius[i], pl->point, pl->normal);
            if (-c.overlap > cr_touch_margin(b->radius[i])) continue;
            c.restitution = b->restitution[i] * pl->restitution;
            c.friction = b->friction[i] * pl->friction;
            if (!add_contact(w, &c)) return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "contacts: out of memory");
        }
    }
    return CR_OK;
}

static void solve_contact(cr_world *w, cr_contact *c)
{
    if (!(c->knn > 0.0)) return;
    double vn = cr_v3_dot(c->n, contact_velocity(w, c));
    double target = c->vn0 < -w->resting_speed ? -c->restitution * c->vn0 : 0.0;
    double jn = fmax(c->jn + (target - vn) / c->knn, 0.0);
    double djn = jn - c->jn;
    c->jn = jn;
    apply_impulse(w, c, cr_v3_scale(c->n, djn));

    if (c->friction <= 0.0 || !(c->ktt > 0.0)) return;
    cr_vec3 ut = cr_v3_reject(contact_velocity(w, c), c->n);
    cr_vec3 jt = cr_v3_madd(c->jt, ut, -1.0 / c->ktt);
    double jt_len = cr_v3_len(jt), limit = c->friction * c->jn;
    if (jt_len > limit) jt = cr_v3_scale(jt, limit / jt_len);
    cr_vec3 djt = cr_v3_sub(jt, c->jt);
    c->jt = jt;
    apply_impulse(w, c, djt);
}

static void report_impacts(cr_world *w)
{
    if (!w->def.on_impact) return;
    for (uint32_t k = 0; k < w->contact_count; ++k) {
        const cr_contact *c = &w->contacts[k];
        if (!(c->vn0 < -w->resting_speed)) continue;
        cr_impact im = {0};
        im.time = w->time;
        im.a = cr_world_body_at(w, c->a);
        if (c->is_plane) {
            im.static_id.index = c->b;
            im.static_id.generation = w->planes.generation[c->b];
        } else {
            im.b = cr_world_body_at(w, c->b);
            im.vb_after = w->bodies.v[c->b];
        }
        im.normal = c->n;
        im.impulse = cr_v3_add(cr_v3_scale(c->n, c->jn), c->jt);
        im.va_after = w->bodies.v[c->a];
        im.normal_speed = c->vn0;
        /* In a multi-contact solve the "before" velocities are not a
         * property of one contact; they are left zero here. */
        w->in_callback = true;
        w->def.on_impact(&im, w->def.callback_ctx);
        w->in_callback = false;
    }
}

cr_status cr_stage_contacts(cr_world *w)
{
    if (w->def.method != CR_METHOD_IMPULSE) return CR_OK;
    cr_status s = find_contacts(w);
    if (s != CR_OK) return s;
    for (uint32_t k = 0; k < w->contact_count; ++k) {
        cr_contact *c = &w->contacts[k];
        set_masses(w, c);
        c->vn0 = cr_v3_dot(c->n, contact_velocity(w, c));
    }
    for (int it = 0; it < w->def.solver_iterations; ++it)
        for (uint32_t k = 0; k < w->contact_count; ++k) solve_contact(w, &w->contacts[k]);
    w->stats.contacts = w->contact_count;
    report_impacts(w);
    return CR_OK;
}
