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
 * a sphere moves no point of the line of centres along n. A point is 120
 * bytes and a body 88, against 288 and 176 in the general kernel.
 *
 * Orientations: nothing here depends on them, so each sphere turns once a
 * step, by the sum of its w h over the substeps (the general kernel turns
 * it every substep, at a sine and cosine each). */
#include <string.h>

#include "rigid.h"
#include "soft_contact.h"

typedef struct sphere_body {
    cr_vec3 v, w;     /* velocity, angular velocity */
    cr_vec3 dp;       /* displacement since the step's start */
    double inv_mass;  /* 0: the solver does not move it (static, kinematic, asleep, the world) */
    double inv_inertia;
} sphere_body;

typedef struct sphere_point {
    uint32_t a, b;     /* body indices (b: the world's index for planes) */
    cr_vec3 n;         /* from b towards a */
    double ra, rb;     /* the point is at x_a - ra n and x_b + rb n */
    double mass_n;     /* 1 / k_nn */
    double mass_t;     /* 1 / k_tt */
    double s0, mu;     /* separation at zero displacement; friction */
    double lambda_n;   /* impulses of one substep (accumulated, clamped) */
    cr_vec3 lambda_t;  /* tangential, in the contact plane */
    uint32_t fixed;    /* 1: a or b cannot move: the stiffer softness */
} sphere_point;

/* What the substeps do not read: the step's totals and restitution's data. */
typedef struct sphere_total {
    double n;
    cr_vec3 t;
    double e, vn0;     /* restitution, normal velocity at the step's start */
} sphere_total;

typedef struct cr_sphere_substep {
    sphere_body *bodies; /* one per body slot, then the world's */
    cr_vec3 *spin;       /* per slot: the turn of the step, sum of w h */
    sphere_point *points;
    sphere_total *totals;
    uint32_t body_capacity, spin_capacity, point_capacity, total_capacity;
} cr_sphere_substep;

void cr_sphere_substep_free(cr_world *w)
{
    cr_sphere_substep *s = w->rigid->sphere_substep;
    if (!s) return;
    cr_free(w, s->bodies);
    cr_free(w, s->spin);
    cr_free(w, s->points);
    cr_free(w, s->totals);
    cr_free(w, s);
    w->rigid->sphere_substep = NULL;
}

static cr_sphere_substep *ensure(cr_world *w, uint32_t bodies, uint32_t points)
{
    cr_rigid *r = w->rigid;
    if (!r->sphere_substep) {
        r->sphere_substep = cr_alloc(w, sizeof *r->sphere_substep);
        if (!r->sphere_substep) return NULL;
        memset(r->sphere_substep, 0, sizeof *r->sphere_substep);
    }
    cr_sphere_substep *s = r->sphere_substep;
    if (!cr_grow(w, (void **)&s->bodies, &s->body_capacity, bodies, sizeof *s->bodies) ||
        !cr_grow(w, (void **)&s->spin, &s->spin_capacity, bodies, sizeof *s->spin) ||
        !cr_grow(w, (void **)&s->points, &s->point_capacity, points, sizeof *s->points) ||
        !cr_grow(w, (void **)&s->totals, &s->total_capacity, points, sizeof *s->totals))
        return NULL;
    return s;
}

/* As rigid_substep.c's load_bodies: a body the solver moves gets its
 * inverse mass and inertia; a kinematic one keeps its velocity; the last
 * entry is the world (planes). */
static void load_bodies(const cr_world *w, sphere_body *sb, cr_vec3 *spin)
{
    const cr_bodies *b = &w->bodies;
    uint32_t n = b->slot_count;
    for (uint32_t i = 0; i <= n; ++i) {
        sphere_body *s = &sb[i];
        memset(s, 0, sizeof *s);
        if (i < n) spin[i] = cr_v3_zero();
        if (i == n || !cr_slot_alive(b, i)) continue;
        if (cr_rigid_moves(b, i)) {
            s->inv_mass = b->inv_mass[i];
            s->inv_inertia = b->inv_inertia[i];
        }
        if (b->type[i] != CR_BODY_STATIC && !b->asleep[i]) {
            s->v = b->v[i];
            s->w = b->w[i];
        }
    }
}

/* The point's relative velocity at the contact: v_a - v_b - W x n with
 * W = ra w_a + rb w_b (w x r_a = -ra w x n, w x r_b = rb w x n). */
static inline cr_vec3 rel_vel(const sphere_body *A, const sphere_body *B, const sphere_point *p)
{
    cr_vec3 W = cr_v3_add(cr_v3_scale(A->w, p->ra), cr_v3_scale(B->w, p->rb));
    return cr_v3_sub(cr_v3_sub(A->v, B->v), cr_v3_cross(W, p->n));
}

/* Impulse dn n + dt on a at the point, minus that on b; only dt turns them:
 * r_a x P = -ra n x dt, r_b x P = rb n x dt. */
static inline void apply(sphere_body *A, sphere_body *B, const sphere_point *p, double dn, cr_vec3 dt)
{
    cr_vec3 P = cr_v3_madd(dt, p->n, dn), nt = cr_v3_cross(p->n, dt);
    A->v = cr_v3_madd(A->v, P, A->inv_mass);
    B->v = cr_v3_madd(B->v, P, -B->inv_mass);
    A->w = cr_v3_madd(A->w, nt, -p->ra * A->inv_inertia);
    B->w = cr_v3_madd(B->w, nt, -p->rb * B->inv_inertia);
}

static void prepare_points(cr_world *w, const sphere_body *sb, sphere_point *sp, sphere_total *st, double substeps)
{
    const cr_rigid *r = w->rigid;
    const cr_bodies *b = &w->bodies;
    uint32_t world = b->slot_count;
    for (uint32_t k = 0; k < r->contact_count; ++k) {
        const cr_rigid_contact *c = &r->contacts[k];
        sphere_point *p = &sp[k];
        p->a = c->a;
        p->b = c->is_plane ? world : c->b;
        p->n = c->normal;
        p->ra = -cr_v3_dot(cr_v3_sub(c->point, b->x[c->a]), c->normal);
        p->rb = c->is_plane ? 0.0 : cr_v3_dot(cr_v3_sub(c->point, b->x[c->b]), c->normal);
        const sphere_body *A = &sb[p->a], *B = &sb[p->b];
        double kn = A->inv_mass + B->inv_mass;
        double kt = kn + p->ra * p->ra * A->inv_inertia + p->rb * p->rb * B->inv_inertia;
        p->mass_n = kn > 0.0 ? 1.0 / kn : 0.0;
        p->mass_t = kt > 0.0 ? 1.0 / kt : 0.0;
        p->fixed = A->inv_mass == 0.0 || B->inv_mass == 0.0;
        p->s0 = c->separation;
        p->mu = c->friction;
        /* warm start: last step's impulses (over dt) shared out per substep;
         * the friction one in this step's contact plane */
        p->lambda_n = c->rest_n / substeps;
        p->lambda_t = cr_v3_scale(cr_v3_reject(c->rest_t, c->normal), 1.0 / substeps);
        sphere_total *t = &st[k];
        t->n = 0.0;
        t->t = cr_v3_zero();
        t->e = c->restitution;
        t->vn0 = cr_v3_dot(c->normal, rel_vel(A, B, p));
    }
}

static void warm_start(sphere_body *sb, const sphere_point *sp, uint32_t n)
{
    for (uint32_t k = 0; k < n; ++k) {
        const sphere_point *p = &sp[k];
        apply(&sb[p->a], &sb[p->b], p, p->lambda_n, p->lambda_t);
    }
}

/* One Gauss-Seidel pass, as cr_soft_solve's (soft_contact.h) with K
 * diagonal: the normal row with the soft bias (use_bias) or rigid (relax),
 * speculative while apart; then the tangential impulse in the cone.
 * totals: the relax pass, which adds each point's final lambdas to them. */
static void solve_pass(sphere_body *sb, sphere_point *sp, uint32_t n, const cr_soft soft[2], double inv_h,
                       bool use_bias, sphere_total *totals)
{
    for (uint32_t k = 0; k < n; ++k) {
        sphere_point *p = &sp[k];
        sphere_body *A = &sb[p->a], *B = &sb[p->b];
        double sep = p->s0 + cr_v3_dot(p->n, cr_v3_sub(A->dp, B->dp));
        double bias = 0.0, mass_scale = 1.0, impulse_scale = 0.0;
        if (sep > 0.0) {
            bias = sep * inv_h; /* speculative: close the gap within h, no more */
        } else if (use_bias) {
            const cr_soft *sf = &soft[p->fixed];
            bias = sf->mass_scale * sf->bias_rate * sep;
            bias = bias > -CR_SOFT_PUSH_SPEED ? bias : -CR_SOFT_PUSH_SPEED; /* fmax, without the call */
            mass_scale = sf->mass_scale;
            impulse_scale = sf->impulse_scale;
        }
        cr_vec3 vrel = rel_vel(A, B, p);
        double un = cr_v3_dot(p->n, vrel);
        double next = p->lambda_n - p->mass_n * (mass_scale * un + bias) - impulse_scale * p->lambda_n;
        next = next > 0.0 ? next : 0.0;
        double dn = next - p->lambda_n;
        p->lambda_n = next;
        /* K diagonal: the normal impulse leaves the tangential velocity */
        cr_vec3 ut = cr_v3_madd(vrel, p->n, -un);
        cr_vec3 lt = cr_v3_madd(p->lambda_t, ut, -p->mass_t);
        double limit = p->mu * next, l2 = cr_v3_len2(lt);
        if (l2 > limit * limit) lt = cr_v3_scale(lt, limit > 0.0 ? limit / sqrt(l2) : 0.0);
        cr_vec3 dt = cr_v3_sub(lt, p->lambda_t);
        p->lambda_t = lt;
        if (totals) {
            totals[k].n += next;
            totals[k].t = cr_v3_add(totals[k].t, lt);
        }
        apply(A, B, p, dn, dt);
    }
}

/* As cr_soft_restitution: vn' = -e vn0 on points that approached faster
 * than threshold at the step's start and took impulse. */
static void restitution(sphere_body *sb, sphere_point *sp, sphere_total *st, uint32_t n, double threshold)
{
    for (uint32_t k = 0; k < n; ++k) {
        sphere_point *p = &sp[k];
        sphere_total *t = &st[k];
        if (t->e == 0.0 || t->vn0 > -threshold || t->n == 0.0) continue;
        sphere_body *A = &sb[p->a], *B = &sb[p->b];
        double vn = cr_v3_dot(p->n, cr_v3_sub(A->v, B->v));
        double next = fmax(p->lambda_n - p->mass_n * (vn + t->e * t->vn0), 0.0);
        double d = next - p->lambda_n;
        p->lambda_n = next;
        t->n += d;
        apply(A, B, p, d, cr_v3_zero());
    }
}

static void integrate_velocities(const cr_world *w, sphere_body *sb, uint32_t n, double h)
{
    cr_vec3 dv = cr_v3_scale(w->def.gravity, h);
    for (uint32_t i = 0; i < n; ++i)
        if (sb[i].inv_mass > 0.0) sb[i].v = cr_v3_add(sb[i].v, dv);
}

/* Positions over h, each body's displacement since the step's start, and
 * its turn (applied once, at the step's end). */
static void integrate_positions(cr_world *w, sphere_body *sb, cr_vec3 *spin, double h)
{
    cr_bodies *b = &w->bodies;
    for (uint32_t i = 0; i < b->slot_count; ++i) {
        if (!cr_slot_alive(b, i) || b->type[i] == CR_BODY_STATIC || b->asleep[i]) continue;
        sphere_body *s = &sb[i];
        b->x[i] = cr_v3_madd(b->x[i], s->v, h);
        s->dp = cr_v3_madd(s->dp, s->v, h);
        spin[i] = cr_v3_madd(spin[i], s->w, h);
    }
}

static void store(cr_world *w, const sphere_body *sb, const cr_vec3 *spin, const sphere_point *sp,
                  const sphere_total *st, double substeps)
{
    cr_rigid *r = w->rigid;
    cr_bodies *b = &w->bodies;
    for (uint32_t i = 0; i < b->slot_count; ++i) {
        if (!cr_slot_alive(b, i) || b->type[i] == CR_BODY_STATIC || b->asleep[i]) continue;
        b->q[i] = cr_q_integrate(b->q[i], spin[i], 1.0);
        if (sb[i].inv_mass > 0.0) b->v[i] = sb[i].v, b->w[i] = sb[i].w;
    }
    for (uint32_t k = 0; k < r->contact_count; ++k) {
        cr_rigid_contact *c = &r->contacts[k];
        const sphere_point *p = &sp[k];
        c->rest_n = p->lambda_n * substeps;
        c->rest_t = cr_v3_scale(p->lambda_t, substeps);
        c->jn = st[k].n;
        c->jt = st[k].t;
    }
}

cr_status cr_sphere_substep_solve(cr_world *w)
{
    cr_rigid *r = w->rigid;
    if (r->joint_live > 0)
        return cr_fail(w, CR_ERR_INVALID_ARGUMENT,
                       "rigid_substeps %d: the sub-stepped contact solver takes no joints (this world has %u); "
                       "use rigid_substeps 0",
                       w->def.rigid_substeps, r->joint_live);
    uint32_t nb = w->bodies.slot_count, nc = r->contact_count;
    cr_sphere_substep *s = ensure(w, nb + 1, nc);
    if (!s) return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "sphere sub-stepped solve: out of memory");
    double S = (double)w->def.rigid_substeps, h = w->def.dt / S, inv_h = 1.0 / h;
    cr_soft soft[2];
    cr_soft_contact_softness(w->def.contact_hertz, w->def.contact_damping_ratio, h, soft);
    load_bodies(w, s->bodies, s->spin);
    prepare_points(w, s->bodies, s->points, s->totals, S);
    for (int i = 0; i < w->def.rigid_substeps; ++i) {
        integrate_velocities(w, s->bodies, nb, h);
        warm_start(s->bodies, s->points, nc);
        for (int k = 0; k < w->def.substep_iterations; ++k)
            solve_pass(s->bodies, s->points, nc, soft, inv_h, true, NULL);
        integrate_positions(w, s->bodies, s->spin, h);
        solve_pass(s->bodies, s->points, nc, soft, inv_h, false, s->totals);
    }
    restitution(s->bodies, s->points, s->totals, nc, w->resting_speed);
    store(w, s->bodies, s->spin, s->points, s->totals, S);
    return CR_OK;
}
