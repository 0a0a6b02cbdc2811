/* The sphere points of the sub-stepped solver (sphere_substep.c; docs/
 * physics/substep.md, "Spheres") and the passes over them: the plain ones
 * (sphere_solve.c) and the solve on AVX2 lanes (sphere_avx2.c), which does
 * the same IEEE operations in the same order (no fused multiply-add), so
 * both give the same bits. The passes take a range of points [begin, end)
 * (of one colour, soft_colour.h: no two share a moving body; the points lie
 * in colour order, so that a pass streams through them); each point is a
 * run of its own. Internal. */
#ifndef CAROM_SPHERE_POINTS_H
#define CAROM_SPHERE_POINTS_H

#include <stdbool.h>
#include <stdint.h>

#include "soft_contact.h"

typedef struct cr_sphere_body {
    cr_vec3 v, w;     /* velocity, angular velocity */
    cr_vec3 dp;       /* displacement since the step's start */
    double inv_mass;  /* 0: the solver does not move it (static, kinematic, asleep, the world) */
    double inv_inertia;
} cr_sphere_body;

typedef struct cr_sphere_point {
    uint32_t a, b;     /* body indices (b: the world's index for planes); first: soft_colour.h */
    cr_vec3 n;         /* from b towards a */
    double ra, rb;     /* the point is at x_a - ra n and x_b + rb n */
    double mass_n;     /* 1 / k_nn */
    double mass_t;     /* 1 / k_tt */
    double s0, mu;     /* separation at zero displacement; friction */
    double lambda_n;   /* impulses of one substep (accumulated, clamped) */
    cr_vec3 lambda_t;  /* tangential, in the contact plane */
    uint32_t fixed;    /* 1: a or b cannot move: the stiffer softness */
} cr_sphere_point;

/* What the substeps do not read: the step's totals and restitution's data. */
typedef struct cr_sphere_total {
    double n;
    cr_vec3 t;
    double e, vn0;     /* restitution, normal velocity at the step's start */
} cr_sphere_total;

/* A solve pass's settings: the soft bias (use_bias) or rigid (relax);
 * totals: the relax pass, which adds each point's final lambdas to them
 * (totals[k] is point k's). */
typedef struct cr_sphere_pass {
    cr_soft soft[2];
    double inv_h;
    bool use_bias;
    cr_sphere_total *totals;
} cr_sphere_pass;

/* The point's relative velocity at the contact: v_a - v_b - W x n with
 * W = ra w_a + rb w_b (w x r_a = -ra w x n, w x r_b = rb w x n). */
static inline cr_vec3 cr_sphere_rel_vel(const cr_sphere_body *A, const cr_sphere_body *B, const cr_sphere_point *p)
{
    cr_vec3 W = cr_v3_add(cr_v3_scale(A->w, p->ra), cr_v3_scale(B->w, p->rb));
    return cr_v3_sub(cr_v3_sub(A->v, B->v), cr_v3_cross(W, p->n));
}

/* Applies the impulses lambda of points [begin, end) to their bodies (the
 * warm start of a substep). */
void cr_sphere_warm_start(cr_sphere_body *sb, const cr_sphere_point *sp, uint32_t begin, uint32_t end);
/* One Gauss-Seidel pass over points [begin, end). */
void cr_sphere_solve(cr_sphere_body *sb, cr_sphere_point *sp, uint32_t begin, uint32_t end,
                     const cr_sphere_pass *pass);
/* The same, four points at a time on AVX2 lanes (the rest plain); the
 * points must share no moving body. Only where cr_use_avx2 (simd.h);
 * elsewhere it is cr_sphere_solve. */
void cr_sphere_solve_avx2(cr_sphere_body *sb, cr_sphere_point *sp, uint32_t begin, uint32_t end,
                          const cr_sphere_pass *pass);

#endif
