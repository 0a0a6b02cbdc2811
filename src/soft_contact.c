/* Soft contact kernels (soft_contact.h; docs/physics/substep.md).
 *
 * The passes run over runs of points (a manifold: consecutive points on
 * the same two bodies; soft_colour.h), in the order of a list (a colour's);
 * a run keeps its two bodies' velocities in locals, written back when it
 * ends: the same numbers as loading and storing them per point, without
 * the round trips through memory. */
#include "soft_contact.h"

#include <stddef.h>

#include "prefetch.h"

/* the kernels' helpers are called several times a point: inlined whole */
#if defined(__GNUC__)
#define CR_SOFT_INLINE static inline __attribute__((always_inline))
#else
#define CR_SOFT_INLINE static inline
#endif

cr_soft cr_soft_make(double hertz, double zeta, double h)
{
    const double pi = 3.14159265358979323846;
    double omega = 2.0 * pi * hertz;
    double a1 = 2.0 * zeta + h * omega;
    double a2 = h * omega * a1;
    double a3 = 1.0 / (1.0 + a2);
    cr_soft s = {omega / a1, a2 * a3, a3};
    return s;
}

/* d_i . K d_j = (m_a + m_b) d_i . d_j + (r_a x d_i) . I_a^-1 (r_a x d_j) + (b's) */
CR_SOFT_INLINE double k_entry(double m, cr_vec3 di, cr_vec3 dj, cr_vec3 cai, cr_vec3 iaj, cr_vec3 cbi, cr_vec3 ibj)
{
    return m * cr_v3_dot(di, dj) + cr_v3_dot(cai, iaj) + cr_v3_dot(cbi, ibj);
}

void cr_soft_prepare(const cr_soft_body *bodies, cr_soft_point *p)
{
    const cr_soft_body *A = &bodies[p->a], *B = &bodies[p->b];
    /* written out row by row (no arrays indexed through tables of rows and
     * columns): GCC kept those on the stack, a third of the function's
     * samples on reloads (branch pyr14); the same products and sums */
    cr_vec3 n = p->n, t1 = p->t1, t2 = p->t2;
    cr_vec3 ca0 = cr_v3_cross(p->ra, n), ca1 = cr_v3_cross(p->ra, t1), ca2 = cr_v3_cross(p->ra, t2);
    cr_vec3 cb0 = cr_v3_cross(p->rb, n), cb1 = cr_v3_cross(p->rb, t1), cb2 = cr_v3_cross(p->rb, t2);
    cr_vec3 ia0 = cr_m3_mul_v(A->inv_inertia, ca0), ia1 = cr_m3_mul_v(A->inv_inertia, ca1),
            ia2 = cr_m3_mul_v(A->inv_inertia, ca2);
    cr_vec3 ib0 = cr_m3_mul_v(B->inv_inertia, cb0), ib1 = cr_m3_mul_v(B->inv_inertia, cb1),
            ib2 = cr_m3_mul_v(B->inv_inertia, cb2);
    double m = A->inv_mass + B->inv_mass;
    p->k[0] = k_entry(m, n, n, ca0, ia0, cb0, ib0);
    p->k[1] = k_entry(m, n, t1, ca0, ia1, cb0, ib1);
    p->k[2] = k_entry(m, n, t2, ca0, ia2, cb0, ib2);
    p->k[3] = k_entry(m, t1, t1, ca1, ia1, cb1, ib1);
    p->k[4] = k_entry(m, t1, t2, ca1, ia2, cb1, ib2);
    p->k[5] = k_entry(m, t2, t2, ca2, ia2, cb2, ib2);
    p->mass[0] = p->k[0] > 0.0 ? 1.0 / p->k[0] : 0.0;
    p->mass[1] = p->k[3] > 0.0 ? 1.0 / p->k[3] : 0.0;
    p->mass[2] = p->k[5] > 0.0 ? 1.0 / p->k[5] : 0.0;
}

/* Separation of p after its bodies' displacements (normal held fixed, the
 * rotation taken to first order). */
CR_SOFT_INLINE double separation(const cr_soft_body *bodies, const cr_soft_point *p)
{
    const cr_soft_body *A = &bodies[p->a], *B = &bodies[p->b];
    /* a point's displacement dp + dq x r: s = s0 + n . (that of a - that of b) */
    cr_vec3 da = cr_v3_add(A->dp, cr_v3_cross(A->dq, p->ra));
    cr_vec3 db = cr_v3_add(B->dp, cr_v3_cross(B->dq, p->rb));
    return p->s0 + cr_v3_dot(p->n, cr_v3_sub(da, db));
}

/* The two bodies of a run of points: their velocities in locals. */
typedef struct pair_vel {
    cr_vec3 va, wa, vb, wb;
} pair_vel;

CR_SOFT_INLINE pair_vel pair_load(const cr_soft_body *bodies, const cr_soft_point *c)
{
    pair_vel s = {bodies[c->a].v, bodies[c->a].w, bodies[c->b].v, bodies[c->b].w};
    return s;
}

/* Writes the run's velocities back to the bodies that move. A body that
 * cannot move (inv_mass 0) kept its velocity (every term on it is scaled by
 * zero) and is not written: the runs of one colour, on several threads, may
 * share it (soft_colour.h). */
CR_SOFT_INLINE void pair_store(const pair_vel *s, cr_soft_body *bodies, const cr_soft_point *c)
{
    cr_soft_body *A = &bodies[c->a], *B = &bodies[c->b];
    if (A->inv_mass > 0.0) A->v = s->va, A->w = s->wa;
    if (B->inv_mass > 0.0) B->v = s->vb, B->w = s->wb;
}

/* A colour's runs lie apart in the points (and their bodies in the bodies):
 * the loads the hardware cannot guess, asked for one run ahead. */
#define CR_SOFT_AHEAD 2
CR_SOFT_INLINE void run_prefetch(const cr_soft_body *bodies, const cr_soft_point *p, const uint32_t *run_start,
                                 const uint32_t *runs, uint32_t i, uint32_t count)
{
    if (!runs || i + CR_SOFT_AHEAD >= count) return;
    uint32_t r = runs[i + CR_SOFT_AHEAD];
    const char *first = (const char *)&p[run_start[r]], *last = (const char *)&p[run_start[r + 1]];
    for (const char *at = first; at < last; at += 64) CR_PREFETCH(at, 1);
    const cr_soft_point *c = &p[run_start[r]];
    CR_PREFETCH(&bodies[c->a], 1);
    CR_PREFETCH((const char *)&bodies[c->a] + 64, 1);
    CR_PREFETCH((const char *)&bodies[c->a] + 128, 1);
}

/* The points of run i of a list: run runs[i] (i itself where runs is NULL). */
CR_SOFT_INLINE void run_points(const uint32_t *run_start, const uint32_t *runs, uint32_t i, uint32_t *begin,
                               uint32_t *end)
{
    uint32_t r = runs ? runs[i] : i;
    *begin = run_start[r], *end = run_start[r + 1];
}

CR_SOFT_INLINE cr_vec3 rel_vel(const pair_vel *s, const cr_soft_point *c)
{
    return cr_v3_sub(cr_v3_add(s->va, cr_v3_cross(s->wa, c->ra)), cr_v3_add(s->vb, cr_v3_cross(s->wb, c->rb)));
}

/* Impulse P on a at the point, -P on b. A body of zero inverse mass (the
 * world, a kinematic or sleeping body) keeps its velocity: every term on it
 * is scaled by zero. */
CR_SOFT_INLINE void apply(pair_vel *s, const cr_soft_body *bodies, const cr_soft_point *c, cr_vec3 P)
{
    const cr_soft_body *A = &bodies[c->a], *B = &bodies[c->b];
    s->va = cr_v3_madd(s->va, P, A->inv_mass);
    s->wa = cr_v3_add(s->wa, cr_m3_mul_v(A->inv_inertia, cr_v3_cross(c->ra, P)));
    s->vb = cr_v3_madd(s->vb, P, -B->inv_mass);
    s->wb = cr_v3_sub(s->wb, cr_m3_mul_v(B->inv_inertia, cr_v3_cross(c->rb, P)));
}

CR_SOFT_INLINE cr_vec3 point_impulse(const cr_soft_point *c, const double d[3])
{
    return cr_v3_add(cr_v3_scale(c->n, d[0]), cr_v3_add(cr_v3_scale(c->t1, d[1]), cr_v3_scale(c->t2, d[2])));
}

void cr_soft_warm_start(cr_soft_body *bodies, cr_soft_point *p, const uint32_t *run_start, const uint32_t *runs,
                        uint32_t count)
{
    for (uint32_t i = 0; i < count; ++i) {
        uint32_t begin, end;
        run_points(run_start, runs, i, &begin, &end);
        run_prefetch(bodies, p, run_start, runs, i, count);
        pair_vel s = pair_load(bodies, &p[begin]);
        for (uint32_t k = begin; k < end; ++k) apply(&s, bodies, &p[k], point_impulse(&p[k], p[k].lambda));
        pair_store(&s, bodies, &p[begin]);
    }
}

/* The point's row velocities u (n, t1, t2) after impulse change d on row r:
 * u += K e_r d. */
CR_SOFT_INLINE void row_moved(const cr_soft_point *c, double u[3], int r, double d)
{
    static const int col[3][3] = {{0, 1, 2}, {1, 3, 4}, {2, 4, 5}};
    for (int i = 0; i < 3; ++i) u[i] += c->k[col[r][i]] * d;
}

/* A friction row: accumulated impulse clamped to [-mu lambda_n, mu lambda_n]
 * (carom's friction pyramid, as the PGS solver's). */
CR_SOFT_INLINE double friction_row(cr_soft_point *c, double u[3], int r)
{
    double limit = c->mu * c->lambda[0];
    double next = c->lambda[r] - c->mass[r] * u[r];
    next = next > limit ? limit : (next < -limit ? -limit : next);
    double d = next - c->lambda[r];
    c->lambda[r] = next;
    row_moved(c, u, r, d);
    return d;
}

/* One pass over the points in contact order, each point's three rows in
 * turn (normal, t1, t2) on the point's velocity through K, its bodies
 * moved once. (Box2D takes a manifold's normal rows first, then their
 * friction rows: the same on a straight stack of 10 cubes, to 0.1 mm, at
 * twice the body updates.) */
/* Point c's three rows (one pass), its bodies' velocities in s. */
CR_SOFT_INLINE void solve_point(pair_vel *s, const cr_soft_body *bodies, cr_soft_point *c, const cr_soft soft[2],
                                double inv_h, double push_speed, bool use_bias, bool accumulate)
{
    double sep = separation(bodies, c);
    double bias = 0.0, mass_scale = 1.0, impulse_scale = 0.0;
    if (sep > 0.0) {
        bias = sep * inv_h; /* speculative: close the gap within h, no more */
    } else if (use_bias) {
        const cr_soft *sf = &soft[c->fixed];
        bias = fmax(sf->mass_scale * sf->bias_rate * sep, -push_speed);
        mass_scale = sf->mass_scale;
        impulse_scale = sf->impulse_scale;
    }
    cr_vec3 vrel = rel_vel(s, c);
    double u[3] = {cr_v3_dot(c->n, vrel), cr_v3_dot(c->t1, vrel), cr_v3_dot(c->t2, vrel)};
    double d[3];
    double next = c->lambda[0] - c->mass[0] * (mass_scale * u[0] + bias) - impulse_scale * c->lambda[0];
    next = next > 0.0 ? next : 0.0;
    d[0] = next - c->lambda[0];
    c->lambda[0] = next;
    row_moved(c, u, 0, d[0]);
    d[1] = friction_row(c, u, 1);
    d[2] = friction_row(c, u, 2);
    if (accumulate)
        for (int r = 0; r < 3; ++r) c->total[r] += c->lambda[r];
    apply(s, bodies, c, point_impulse(c, d));
}

/* One pass over the runs of the list, each run's points in contact order,
 * each point's three rows in turn (normal, t1, t2) on the point's velocity
 * through K, its bodies moved once. (Box2D takes a manifold's normal rows
 * first, then their friction rows: the same on a straight stack of 10
 * cubes, to 0.1 mm, at twice the body updates.) */
void cr_soft_solve(cr_soft_body *bodies, cr_soft_point *p, const uint32_t *run_start, const uint32_t *runs,
                   uint32_t count, const cr_soft soft[2], double inv_h, double push_speed, bool use_bias,
                   bool accumulate)
{
    for (uint32_t i = 0; i < count; ++i) {
        uint32_t begin, end;
        run_points(run_start, runs, i, &begin, &end);
        run_prefetch(bodies, p, run_start, runs, i, count);
        pair_vel s = pair_load(bodies, &p[begin]);
        for (uint32_t k = begin; k < end; ++k)
            solve_point(&s, bodies, &p[k], soft, inv_h, push_speed, use_bias, accumulate);
        pair_store(&s, bodies, &p[begin]);
    }
}

void cr_soft_restitution(cr_soft_body *bodies, cr_soft_point *p, const uint32_t *run_start, uint32_t count,
                         double threshold)
{
    for (uint32_t i = 0; i < count; ++i) {
        uint32_t begin, end;
        run_points(run_start, NULL, i, &begin, &end);
        pair_vel s = pair_load(bodies, &p[begin]);
        for (uint32_t k = begin; k < end; ++k) {
            cr_soft_point *c = &p[k];
            if (c->e == 0.0 || c->vn0 > -threshold || c->total[0] == 0.0) continue;
            double vn = cr_v3_dot(c->n, rel_vel(&s, c));
            double next = fmax(c->lambda[0] - c->mass[0] * (vn + c->e * c->vn0), 0.0);
            double d = next - c->lambda[0];
            c->lambda[0] = next;
            c->total[0] += d;
            apply(&s, bodies, c, cr_v3_scale(c->n, d));
        }
        pair_store(&s, bodies, &p[begin]);
    }
}
