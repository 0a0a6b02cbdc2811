/* Stage 3, contacts: resting contacts solved at velocity level.
 *
 * Impulse method only. Every pair whose gap at the start of the step is
 * within the contact margin is a contact. Seed 000 b.2 sorts contacts into
 * impacting, resting and separating; the impacting ones (approaching faster
 * than the resting speed) are impacts, resolved exactly at their time by the
 * events stage with the impact law. The resting ones are solved here
 * together, since bodies in a pile touch several others at once: projected
 * Gauss-Seidel over all contacts with accumulated impulses,
 *   normal:   v_n' >= 0 for touching contacts (e = 0: seed 001 §3.2's
 *             f_c = -n.F_ext over the step, released when it would pull:
 *             the accumulated impulse is clamped at zero); a contact still
 *             apart by a gap g may close it: v_n' >= -g/dt;
 *   friction: the impulse that stops sliding, clamped to mu j (seed 000 c.4
 *             clip; seed 001 static friction up to mu f_c, kinetic at mu f_c).
 * One pass over a single touching contact is cr_law_newton with e = 0 (to
 * rounding: the solver multiplies by 1/k_nn). A column of n bodies needs of order n^2 passes from a cold start,
 * so, as in Box2D and Bullet, contacts that persist from the last step start
 * from last step's impulses (warm starting): a resting pile converges over
 * steps instead of sinking. The passes run over compact rows of the
 * resting contacts, interleaved so that the processor can overlap rows of
 * different bodies (cr_stage_contacts).
 */
#include <stdlib.h>
#include <string.h>

#include "insertion_sort.h"
#include "prefetch.h"
#include "world_internal.h"

/* Contacts are keyed by (a, kind, b); sorted, so matching is a merge. */
static int contact_key_cmp(const void *x, const void *y)
{
    const cr_contact *p = x, *q = y;
    if (p->a != q->a) return p->a < q->a ? -1 : 1;
    if (p->is_plane != q->is_plane) return p->is_plane ? 1 : -1;
    if (p->b != q->b) return p->b < q->b ? -1 : 1;
    return 0;
}

CR_DEFINE_INSERTION_SORT(insertion_sort, cr_contact, contact_key_cmp)

/* Sorts the pair contacts: the broad phase lists pairs by their first body
 * (grid pairs; large boxes' pairs come last), so the list is mostly in
 * order and an insertion sort only orders each body's few partners. The
 * keys are unique, so any sort gives the same order. */
static void sort_pair_contacts(cr_contact *c, uint32_t n)
{
    for (uint32_t k = 1; k < n; ++k)
        if (c[k].a < c[k - 1].a) {
            qsort(c, n, sizeof *c, contact_key_cmp);
            return;
        }
    insertion_sort(c, n);
}

/* Merges the sorted plane contacts (in the scratch list) into the sorted
 * pair contacts, from the back, in place. */
static void merge_plane_contacts(cr_world *w, uint32_t np, uint32_t nq)
{
    cr_contact *c = w->contacts, *q = w->plane_contacts;
    uint32_t out = np + nq;
    while (nq > 0) {
        if (np > 0 && contact_key_cmp(&c[np - 1], &q[nq - 1]) > 0)
            c[--out] = c[--np];
        else
            c[--out] = q[--nq];
    }
}

/* Relative velocity of the contact point, a with respect to b. For spheres
 * the contact offsets are -r_a n and +r_b n, so
 * u = v_a - v_b - (r_a w_a + r_b w_b) x n. */
static cr_vec3 contact_velocity(const cr_world *w, const cr_contact *c)
{
    const cr_bodies *b = &w->bodies;
    cr_vec3 v = b->v[c->a], spin = cr_v3_scale(b->w[c->a], c->ra);
    if (!c->is_plane) {
        v = cr_v3_sub(v, b->v[c->b]);
        spin = cr_v3_madd(spin, b->w[c->b], c->rb);
    }
    return cr_v3_sub(v, cr_v3_cross(spin, c->n));
}

/* Applies impulse p to a and -p to b. Both spins change by -(n x p) scaled
 * by r/I: r_a x p = -r_a n x p, and r_b x (-p) = -r_b n x p. */
static void apply_impulse(cr_world *w, const cr_contact *c, cr_vec3 p, bool tangential)
{
    cr_bodies *b = &w->bodies;
    b->v[c->a] = cr_v3_madd(b->v[c->a], p, c->ima);
    cr_vec3 nxp = tangential ? cr_v3_cross(c->n, p) : cr_v3_zero();
    if (tangential) b->w[c->a] = cr_v3_madd(b->w[c->a], nxp, -c->iia * c->ra);
    if (c->is_plane) return;
    b->v[c->b] = cr_v3_madd(b->v[c->b], p, -c->imb);
    if (tangential) b->w[c->b] = cr_v3_madd(b->w[c->b], nxp, -c->iib * c->rb);
}

/* Carries last step's impulses to the contacts that persist, and applies
 * them. Friction is projected onto the new tangent plane. */
static void warm_start(cr_world *w)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < w->contact_count; ++i) {
        cr_contact *c = &w->contacts[i];
        while (k < w->prev_count && contact_key_cmp(&w->prev_contacts[k], c) < 0) ++k;
        if (k == w->prev_count) break;
        const cr_contact *old = &w->prev_contacts[k];
        if (contact_key_cmp(old, c) != 0 || c->vn0 < -w->resting_speed) continue;
        c->jn = old->jn;
        c->jt = cr_v3_reject(old->jt, c->n);
        double jt_len = cr_v3_len(c->jt), limit = c->friction * c->jn;
        if (jt_len > limit) c->jt = cr_v3_scale(c->jt, limit / jt_len);
        apply_impulse(w, c, cr_v3_add(cr_v3_scale(c->n, c->jn), c->jt), true);
    }
}

/* Caches the bodies' figures and the effective inverse masses of a sphere
 * contact: along n the offsets are parallel to n, so rotation does not
 * enter; across n it adds r^2 / I. */
static void set_masses(const cr_world *w, cr_contact *c)
{
    const cr_bodies *b = &w->bodies;
    c->ra = b->radius[c->a];
    c->ima = b->inv_mass[c->a];
    c->iia = b->inv_inertia[c->a];
    c->rb = c->imb = c->iib = 0.0;
    if (!c->is_plane) {
        c->rb = b->radius[c->b];
        c->imb = b->inv_mass[c->b];
        c->iib = b->inv_inertia[c->b];
    }
    c->knn = c->ima + c->imb;
    c->ktt = c->knn + c->ra * c->ra * c->iia + c->rb * c->rb * c->iib;
}

/* This step's contacts, sorted by key. */
static cr_status find_contacts(cr_world *w)
{
    cr_bodies *b = &w->bodies;
    uint32_t np = 0, nq = 0;
    w->contact_count = 0;
    for (uint32_t k = 0; k < w->broad.pair_count; ++k) {
        uint32_t i = w->broad.pairs[k].a, j = w->broad.pairs[k].b;
        if (!cr_slot_dynamic(b, i) && !cr_slot_dynamic(b, j)) continue;
        /* most candidates are apart: screened on the squared distance,
         * with room for rounding, before the exact test below */
        double reach = b->radius[i] + b->radius[j] + cr_contact_margin(w, b->radius[i] + b->radius[j]);
        if (cr_v3_len2(cr_v3_sub(b->x[i], b->x[j])) > reach * reach * (1.0 + 1e-9)) continue;
        cr_contact c = {0};
        c.a = i;
        c.b = j;
        c.gap = -cr_overlap_sphere_sphere(b->x[i], b->radius[i], b->x[j], b->radius[j], &c.n);
        if (c.gap > cr_contact_margin(w, b->radius[i] + b->radius[j])) continue;
        c.restitution = b->restitution[i] * b->restitution[j];
        c.friction = b->friction[i] * b->friction[j];
        if (!cr_grow(w, (void **)&w->contacts, &w->contact_capacity, np + 1, sizeof *w->contacts)) goto oom;
        w->contacts[np++] = c;
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
            c.gap = -cr_penetration_sphere_plane(b->x[i], b->radius[i], pl->point, pl->normal);
            if (c.gap > cr_contact_margin(w, 2.0 * b->radius[i])) continue;
            c.restitution = b->restitution[i] * pl->restitution;
            c.friction = b->friction[i] * pl->friction;
            if (!cr_grow(w, (void **)&w->plane_contacts, &w->plane_contact_capacity, nq + 1, sizeof *w->plane_contacts))
                goto oom;
            w->plane_contacts[nq++] = c;
        }
    }
    if (!cr_grow(w, (void **)&w->contacts, &w->contact_capacity, np + nq, sizeof *w->contacts)) goto oom;
    sort_pair_contacts(w->contacts, np);
    merge_plane_contacts(w, np, nq);
    w->contact_count = np + nq;
    return CR_OK;
oom:
    return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "contacts: out of memory");
}

/* Interleaved runs of rows in a pass (see cr_stage_contacts). */
#define CR_ROW_STRIDE 8
/* Prefetch distances in the passes, in rows of the same run: row
 * k + CR_ROW_AHEAD (taken CR_ROW_AHEAD turns of the stride after row k),
 * and the bodies of row k + CR_BODY_AHEAD (that row is by then in cache,
 * fetched CR_ROW_AHEAD - CR_BODY_AHEAD turns before). From about
 * 10^5 balls the rows (96 bytes each, several per ball) outgrow the last
 * level cache and every pass waited on memory for each row and its
 * bodies: eight interleaved runs that the hardware prefetcher does not
 * follow, and bodies picked by a list. */
#define CR_ROW_AHEAD 8
#define CR_BODY_AHEAD 4

/* The rows the Gauss-Seidel passes run over: the resting contacts only
 * (impacts are events), with what a pass needs and nothing else, so that
 * the passes stream through memory. */
static bool solved(const cr_world *w, const cr_contact *c)
{
    return c->knn > 0.0 && c->vn0 >= -w->resting_speed; /* impacts are events */
}

static cr_status build_rows(cr_world *w)
{
    if (!cr_grow(w, (void **)&w->rows, &w->row_capacity, w->contact_count, sizeof *w->rows))
        return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "contacts: out of memory");
    uint32_t n = 0;
    for (uint32_t k = 0; k < w->contact_count; ++k) {
        const cr_contact *c = &w->contacts[k];
        if (!solved(w, c)) continue;
        cr_contact_row *r = &w->rows[n++];
        r->n = c->n;
        r->target = c->gap > 0.0 ? -c->gap / w->def.dt : 0.0;
        r->inv_knn = 1.0 / c->knn;
        /* no friction row: mu <= 0 or no tangential mobility */
        r->neg_inv_ktt = c->friction <= 0.0 || !(c->ktt > 0.0) ? 0.0 : -1.0 / c->ktt;
        r->mu = c->friction;
        r->jn = c->jn;
        r->jt = c->jt;
        r->a = c->a;
        r->b = c->is_plane ? w->bodies.slot_count : c->b; /* the ground: still, immovable */
    }
    w->row_count = n;
    return CR_OK;
}

/* One Gauss-Seidel update of a row (seed 000 appendix B with seed 001
 * §3.2's resting contact, see the header). u, the contact point's relative
 * velocity, is v_a - v_b - (r_a w_a + r_b w_b) x n for spheres. A plane is
 * the ground body: velocity 0, and 1/m = r = 0 keep it so, without a branch. */
static inline void solve_row(cr_solver_body *restrict sb, cr_contact_row *restrict r)
{
    cr_solver_body *A = &sb[r->a], *B = &sb[r->b];
    cr_vec3 va = cr_v3_sub(A->v, B->v);
    cr_vec3 spin = cr_v3_madd(cr_v3_scale(A->w, A->r), B->w, B->r);
    cr_vec3 u = cr_v3_sub(va, cr_v3_cross(spin, r->n));
    double vn = cr_v3_dot(r->n, u);
    double jn = r->jn + (r->target - vn) * r->inv_knn;
    if (jn < 0.0) jn = 0.0;
    cr_vec3 p = cr_v3_scale(r->n, jn - r->jn);
    r->jn = jn;
    A->v = cr_v3_madd(A->v, p, A->im);
    B->v = cr_v3_madd(B->v, p, -B->im);

    if (r->neg_inv_ktt == 0.0) return;
    /* A normal impulse does not change a sphere contact's sliding velocity,
     * so the slip is u's tangential part from before it. */
    cr_vec3 jt = cr_v3_madd(r->jt, cr_v3_reject(u, r->n), r->neg_inv_ktt);
    double jt_len2 = cr_v3_len2(jt), limit = r->mu * r->jn;
    if (jt_len2 > limit * limit) jt = cr_v3_scale(jt, limit / sqrt(jt_len2));
    cr_vec3 djt = cr_v3_sub(jt, r->jt);
    r->jt = jt;
    /* r_a x p = -r_a n x p and r_b x (-p) = -r_b n x p */
    cr_vec3 nxp = cr_v3_cross(r->n, djt);
    A->v = cr_v3_madd(A->v, djt, A->im);
    A->w = cr_v3_madd(A->w, nxp, A->spin);
    B->v = cr_v3_madd(B->v, djt, -B->im);
    B->w = cr_v3_madd(B->w, nxp, B->spin);
}

/* The solver changed velocities: the bodies it touched move by a new plan,
 * and their boxes grow where the new path leaves them. */
static cr_status replan_contacted(cr_world *w)
{
    cr_bodies *b = &w->bodies;
    double dt = w->def.dt;
    for (uint32_t k = 0; k < w->contact_count; ++k) {
        const cr_contact *c = &w->contacts[k];
        for (int side = 0; side < (c->is_plane ? 1 : 2); ++side) {
            uint32_t i = side ? c->b : c->a;
            if (b->replanned[i] || !cr_slot_dynamic(b, i)) continue;
            cr_body_plan(w, i);
            /* still inside the box its pairs were found with: nothing new
             * to ask the grid (cr_stage_events) */
            cr_vec3 lo, hi;
            cr_body_path_box(w, i, &lo, &hi);
            if (cr_box_inside(lo, hi, w->broad.lo[i], w->broad.hi[i])) {
                b->replanned[i] = 2;
                continue;
            }
            b->replanned[i] = 1;
            cr_vec3 x0 = b->x[i], x1 = cr_body_position_at(w, i, dt);
            double pad = b->radius[i] * (1.0 + 1e-3) + 0.125 * cr_v3_len(b->acc[i]) * dt * dt;
            if (!cr_broad_extend(w, &w->broad, i, cr_v3_sub(cr_v3_min(x0, x1), cr_v3(pad, pad, pad)),
                                 cr_v3_add(cr_v3_max(x0, x1), cr_v3(pad, pad, pad))))
                return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "contacts: out of memory");
        }
    }
    return CR_OK;
}

cr_status cr_stage_contacts(cr_world *w)
{
    if (w->def.method != CR_METHOD_IMPULSE) return cr_surface_resting_contacts(w);
    cr_status s = find_contacts(w);
    if (s != CR_OK) return s;
    for (uint32_t k = 0; k < w->contact_count; ++k) {
        cr_contact *c = &w->contacts[k];
        set_masses(w, c);
        c->vn0 = cr_v3_dot(c->n, contact_velocity(w, c));
    }
    warm_start(w);
    s = build_rows(w);
    if (s != CR_OK) return s;
    /* each body's velocities and figures together, and the ground body
     * after the slots: still, with 1/m = r = 0 */
    const cr_bodies *bs = &w->bodies;
    uint32_t nb = bs->slot_count;
    if (!cr_grow(w, (void **)&w->solver_bodies, &w->solver_capacity, nb + 1, sizeof *w->solver_bodies))
        return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "contacts: out of memory");
    cr_solver_body *sb = w->solver_bodies;
    for (uint32_t i = 0; i < nb; ++i) {
        sb[i].v = bs->v[i];
        sb[i].w = bs->w[i];
        sb[i].r = bs->radius[i];
        sb[i].im = bs->inv_mass[i];
        sb[i].spin = -bs->inv_inertia[i] * bs->radius[i]; /* spin change per unit n x p */
    }
    memset(&sb[nb], 0, sizeof sb[nb]);
    /* Rows sorted by body follow one another through the same body's
     * velocity, a chain of dependent arithmetic; taken with a stride
     * (rows k, k + per, k + 2 per, ... then k + 1, ...) neighbours in the
     * pass touch different bodies and the processor overlaps them. Still
     * Gauss-Seidel, in a fixed order: the same bits on every run. */
    uint32_t nr = w->row_count, per = (nr + CR_ROW_STRIDE - 1) / CR_ROW_STRIDE;
    for (int it = 0; it < w->def.solver_iterations; ++it)
        for (uint32_t q = 0; q < per; ++q)
            for (uint32_t k = q; k < nr; k += per) {
                if (k + CR_ROW_AHEAD < nr) {
                    const char *row = (const char *)&w->rows[k + CR_ROW_AHEAD];
                    CR_PREFETCH(row, 1);
                    CR_PREFETCH(row + sizeof *w->rows - 1, 1);
                }
                if (k + CR_BODY_AHEAD < nr) {
                    const cr_contact_row *r = &w->rows[k + CR_BODY_AHEAD];
                    CR_PREFETCH(&sb[r->a], 1);
                    CR_PREFETCH(&sb[r->b], 1);
                }
                solve_row(sb, &w->rows[k]);
            }
    for (uint32_t i = 0; i < nb; ++i) {
        w->bodies.v[i] = sb[i].v;
        w->bodies.w[i] = sb[i].w;
    }
    for (uint32_t k = 0, r = 0; k < w->contact_count; ++k) {
        cr_contact *c = &w->contacts[k];
        if (!solved(w, c)) continue;
        c->jn = w->rows[r].jn;
        c->jt = w->rows[r].jt;
        ++r;
    }
    w->stats.contacts = w->contact_count;
    s = replan_contacted(w);
    if (s != CR_OK) return s;
    /* Keep this step's contacts for the next one's warm start. */
    cr_contact *tmp = w->prev_contacts;
    uint32_t tmp_cap = w->prev_capacity;
    w->prev_contacts = w->contacts;
    w->prev_capacity = w->contact_capacity;
    w->prev_count = w->contact_count;
    w->contacts = tmp;
    w->contact_capacity = tmp_cap;
    w->contact_count = 0;
    return cr_surface_resting_contacts(w);
}
