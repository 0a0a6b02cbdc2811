/* Soft contact rows of the sub-stepped solver (docs/physics/substep.md):
 * the kernels over packed contact points and bodies, pure functions of
 * their arguments. Internal. */
#ifndef CAROM_SOFT_CONTACT_H
#define CAROM_SOFT_CONTACT_H

#include <stdbool.h>
#include <stdint.h>

#include "carom/math.h"

/* A soft constraint's coefficients for one substep h (Catto, "Solver2D",
 * 2024; Box2D v3's b2MakeSoft): the implicit spring-damper of frequency
 * hertz and damping ratio zeta, written as a bias on the velocity row.
 *   omega = 2 pi hertz, a1 = 2 zeta + h omega, a2 = h omega a1,
 *   bias_rate = omega / a1, mass_scale = a2 / (1 + a2),
 *   impulse_scale = 1 / (1 + a2). */
typedef struct cr_soft {
    double bias_rate, mass_scale, impulse_scale;
} cr_soft;

cr_soft cr_soft_make(double hertz, double zeta, double h);

/* The soft bias pushes overlap out no faster than this (m/s; Box2D v3's
 * b2_contactPushMaxVelocity / contactSpeed, 3 m/s): a deep overlap comes
 * apart without launching the bodies. */
#define CR_SOFT_PUSH_SPEED 3.0

/* A step's two softnesses at substep h: soft[0] between two bodies that
 * move, soft[1] against one that cannot, twice as stiff. Box2D v3: a
 * contact no stiffer than a quarter of the substep rate (the implicit
 * spring stays accurate). */
static inline void cr_soft_contact_softness(double hertz, double zeta, double h, cr_soft soft[2])
{
    hertz = fmin(hertz, 0.25 * (1.0 / h));
    soft[0] = cr_soft_make(hertz, zeta, h);
    soft[1] = cr_soft_make(2.0 * hertz, zeta, h);
}

/* A body as the substeps see it: velocity, and displacement and rotation
 * (small-angle vector) since the step's start. The world is a body of zero
 * inverse mass that never moves. */
typedef struct cr_soft_body {
    cr_vec3 v, w;
    cr_vec3 dp, dq;
    double inv_mass;
    cr_mat3 inv_inertia; /* world frame, at the step's start */
} cr_soft_body;

/* A body's velocities at the end of the last substep (cr_soft_warm_by_body). */
typedef struct cr_soft_motion {
    cr_vec3 v, w;
} cr_soft_motion;

/* Gravity and the warm start of a substep after a step's first, by the
 * body instead of its points (rigid_substep.c). Within a step
 * a point's arms, directions, masses and the bodies' world inertias are
 * fixed, and every velocity change of a substep k is gravity or a pass's
 * impulse change (the clamped lambda minus the old, applied as it is
 * made), so the contacts' share of the substep is M^-1 J^T lambda_k,
 * lambda_k the points' impulses at its end (the warm start applied
 * lambda_(k-1), the passes the rest):
 *   v_end(k) = v_end(k-1) + g h + M^-1 J^T lambda_k.
 * Substep k + 1's gravity and warm start (lambda_k again) then give
 *   v_end(k) + g h + M^-1 J^T lambda_k = 2 v_end(k) - v_end(k-1):
 * a body's two velocities, no point read (the same for w; gravity
 * cancels). Exact in real numbers; rounded, it differs from the points'
 * sums by roundings of |v|, and it restarts every step from the points'
 * own warm start (the first substep's), so nothing builds up. prev holds
 * v_end(k-1) on entry, v_end(k) on return. For a body the solver moves.
 * The sphere path (sphere_substep.c) keeps its points' warm start: there
 * the pass costs little more than bringing each block's points and bodies
 * into the core's cache, which its solve pass then pays for instead (pit
 * 27,000, branch pit28: the warm start's samples went, the solve's and
 * the body pass's grew by as many; docs/benchmarks.md). */
static inline void cr_soft_warm_by_body(cr_vec3 *v, cr_vec3 *w, cr_soft_motion *prev)
{
    cr_soft_motion end = {*v, *w};
    *v = cr_v3_sub(cr_v3_scale(end.v, 2.0), prev->v);
    *w = cr_v3_sub(cr_v3_scale(end.w, 2.0), prev->w);
    *prev = end;
}

/* A contact point: three rows (normal n from b towards a, friction t1, t2)
 * with the arms fixed at detection. The point's relative velocity moves by
 * K P under an impulse P at the point, K = (m_a + m_b) 1 - [r_a] I_a^-1 [r_a]
 * - [r_b] I_b^-1 [r_b] ([r] the cross-product matrix); k holds K in the
 * rows' basis, so that the three rows are taken one after the other (Gauss-
 * Seidel) on the point's velocity alone, and the bodies are touched once. */
typedef struct cr_soft_point {
    uint32_t a, b;       /* body indices (b: the world's index for planes) */
    uint32_t fixed;      /* 1: b (or a) cannot move: the stiffer softness */
    cr_vec3 ra, rb;      /* arms from each body's centre, world */
    cr_vec3 n, t1, t2;
    double k[6];         /* K in (n, t1, t2): k_nn, k_n1, k_n2, k_11, k_12, k_22 */
    double mass[3];      /* effective masses 1 / (J M^-1 J^T) = 1 / k_rr of n, t1, t2 */
    double lambda[3];    /* impulses of one substep (accumulated, clamped) */
    double total[3];     /* impulses summed over the step (cr_soft_solve's accumulate pass) */
    double s0;           /* separation at zero displacement */
    double mu, e, vn0;   /* friction, restitution, normal velocity at the step's start */
} cr_soft_point;

/* K and the effective masses of p's rows from its bodies' inverse masses. */
void cr_soft_prepare(const cr_soft_body *bodies, cr_soft_point *p);
/* The passes take runs of points (a manifold: consecutive points on the
 * same two bodies): run r is p[run_start[r] .. run_start[r + 1]); a list
 * names count runs, runs[i] for i < count (a colour's, soft_colour.h). */

/* Applies the impulses lambda of the listed runs' points to their bodies:
 * the warm start of a substep. */
void cr_soft_warm_start(cr_soft_body *bodies, cr_soft_point *p, const uint32_t *run_start, const uint32_t *runs,
                        uint32_t count);
/* One Gauss-Seidel pass over the listed runs in order (their points in
 * order, rows n, t1, t2 of each). use_bias: the soft push-out of overlap
 * (soft[p.fixed]'s coefficients, the bias no faster than push_speed);
 * without it (relax) rows are rigid. Apart points may close their gap
 * within h but not pass it (speculative) either way. accumulate: the
 * substep's last pass; each point's lambda, final once the pass has taken
 * the point, is added to its total, so that the totals are the step's
 * impulses (the warm start's and the passes' increments of each substep sum
 * to its final lambda) without another pass over the points. A body of zero
 * inverse mass is read, never written. */
void cr_soft_solve(cr_soft_body *bodies, cr_soft_point *p, const uint32_t *run_start, const uint32_t *runs,
                   uint32_t count, const cr_soft soft[2], double inv_h, double push_speed, bool use_bias,
                   bool accumulate);
/* Newton restitution on points that approached faster than threshold at
 * the step's start and took impulse: vn' = -e vn0; runs 0 .. count - 1 in
 * order. */
void cr_soft_restitution(cr_soft_body *bodies, cr_soft_point *p, const uint32_t *run_start, uint32_t count,
                         double threshold);

#endif
