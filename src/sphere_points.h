/* The sphere points of the sub-stepped solver (sphere_substep.c; docs/
 * physics/substep.md, "Spheres") and the passes over them: the plain ones
 * (sphere_solve.c) and those on AVX2 lanes (sphere_avx2.c), which do the
 * same IEEE operations in the same order (no fused multiply-add), so both
 * give the same bits. The passes take a range of points [begin, end) (of
 * one colour, soft_colour.h: no two share a moving body; the points lie in
 * colour order, four to a quad, so that a pass streams through them); each
 * point is a run of its own. Internal. */
#ifndef CAROM_SPHERE_POINTS_H
#define CAROM_SPHERE_POINTS_H

#include <stdbool.h>
#include <stdint.h>

#include "soft_contact.h"

/* Two rows of four doubles (a cache line), each vector with the scalar the
 * kernels take with it: the lanes (sphere_avx2.c) load a row of four
 * bodies and transpose it, and write the rows back whole. */
typedef struct cr_sphere_body {
    cr_vec3 v;          /* velocity */
    double inv_mass;    /* 0: the solver does not move it (static, kinematic, asleep, the world) */
    cr_vec3 w;          /* angular velocity */
    double inv_inertia;
} cr_sphere_body;

/* A body's displacement since the step's start, a row of its own (the
 * solve reads it, the warm start does not; written by the positions). */
typedef struct cr_sphere_shift {
    cr_vec3 dp;
    double unused;
} cr_sphere_shift;

/* One point, as the plain kernels take it (read from its quad, below). */
typedef struct cr_sphere_point {
    uint32_t a, b;     /* body indices (b: the world's index for planes); first: soft_colour.h */
    cr_vec3 n;         /* from b towards a */
    double ra, rb;     /* the point is at x_a - ra n and x_b + rb n */
    double s0, mu;     /* separation at zero displacement; friction */
    double lambda_n;   /* impulses of one substep (accumulated, clamped) */
    cr_vec3 lambda_t;  /* tangential, in the contact plane */
    double mass_n, mass_t; /* 1 / k_nn, 1 / k_tt (cr_sphere_masses, once a step) */
} cr_sphere_point;

/* The points as the passes keep them: four to a quad, each field of the
 * four in a row (point k is lane k % 4 of quad k / 4), so that the lanes
 * (sphere_avx2.c) load a field of four points with one load, and store
 * the impulses with one store, where the points as structures took 4x4
 * transposes. 448 bytes, 112 a point (a point's side, fixed or not, is
 * read off its bodies' inverse masses). */
typedef struct cr_sphere_quad {
    /* what the warm start reads: the first five cache lines of seven */
    uint32_t a[4], b[4];
    double nx[4], ny[4], nz[4], ra[4], rb[4];
    double lambda_n[4], ltx[4], lty[4], ltz[4];
    /* and what the solve reads besides: its masses 1 / k_nn, 1 / k_tt
     * (cr_sphere_masses), made once a step by the set-up. Worked out at
     * each use instead (the quad a cache line shorter), they cost two
     * divisions a point and pass; the solve is not held up by its
     * memory (docs/benchmarks.md, pit25 and pit27). */
    double s0[4], mu[4];
    double mass_n[4], mass_t[4];
} cr_sphere_quad;

/* What the substeps do not read, four points to a quad as the points: the
 * step's totals and restitution's data. */
typedef struct cr_sphere_totals {
    double n[4], tx[4], ty[4], tz[4];
    double e[4], vn0[4]; /* restitution, normal velocity at the step's start */
} cr_sphere_totals;

static inline cr_sphere_point cr_sphere_get(const cr_sphere_quad *q, uint32_t k)
{
    const cr_sphere_quad *p = &q[k / 4];
    uint32_t l = k % 4;
    return (cr_sphere_point){p->a[l],  p->b[l],  cr_v3(p->nx[l], p->ny[l], p->nz[l]),
                             p->ra[l], p->rb[l], p->s0[l],
                             p->mu[l], p->lambda_n[l], cr_v3(p->ltx[l], p->lty[l], p->ltz[l]),
                             p->mass_n[l], p->mass_t[l]};
}

static inline void cr_sphere_set_lambdas(cr_sphere_quad *q, uint32_t k, double n, cr_vec3 t)
{
    cr_sphere_quad *p = &q[k / 4];
    uint32_t l = k % 4;
    p->lambda_n[l] = n, p->ltx[l] = t.x, p->lty[l] = t.y, p->ltz[l] = t.z;
}

static inline void cr_sphere_set(cr_sphere_quad *q, uint32_t k, const cr_sphere_point *s)
{
    cr_sphere_quad *p = &q[k / 4];
    uint32_t l = k % 4;
    p->a[l] = s->a, p->b[l] = s->b;
    p->nx[l] = s->n.x, p->ny[l] = s->n.y, p->nz[l] = s->n.z;
    p->ra[l] = s->ra, p->rb[l] = s->rb;
    p->s0[l] = s->s0, p->mu[l] = s->mu;
    p->mass_n[l] = s->mass_n, p->mass_t[l] = s->mass_t;
    cr_sphere_set_lambdas(q, k, s->lambda_n, s->lambda_t);
}

/* A slot's rolling and spin resistance row (soft_resist.h), where the
 * world resists: one per slot, a pad's factor 0. */
typedef struct cr_sphere_resist {
    cr_vec3 lambda; /* angular impulse of one substep on a (accumulated, clamped) */
    double factor;  /* nu R*: the bound per unit normal impulse; 0: none */
    double mass;    /* 1 / (I_a^-1 + I_b^-1) */
} cr_sphere_resist;

/* A solve pass's settings: the soft bias (use_bias) or rigid (relax);
 * totals: the relax pass, which adds each point's final lambdas to them
 * (point k's: lane k % 4 of totals[k / 4]). */
typedef struct cr_sphere_pass {
    const cr_sphere_shift *shift; /* per body */
    cr_soft soft[2];
    double inv_h;
    bool use_bias;
    cr_sphere_totals *totals;
} cr_sphere_pass;

/* The point's masses, 1 / k_nn and 1 / k_tt (0 where k is 0): K's diagonal
 * (sphere_substep.c's head), made by the step's set-up (the bodies' masses
 * do not change within a step). */
static inline void cr_sphere_masses(const cr_sphere_body *A, const cr_sphere_body *B, double ra, double rb,
                                    double *mass_n, double *mass_t)
{
    double kn = A->inv_mass + B->inv_mass;
    double kt = kn + ra * ra * A->inv_inertia + rb * rb * B->inv_inertia;
    *mass_n = kn > 0.0 ? 1.0 / kn : 0.0;
    *mass_t = kt > 0.0 ? 1.0 / kt : 0.0;
}

/* The point's relative velocity at the contact: v_a - v_b - W x n with
 * W = ra w_a + rb w_b (w x r_a = -ra w x n, w x r_b = rb w x n). */
static inline cr_vec3 cr_sphere_rel_vel(const cr_sphere_body *A, const cr_sphere_body *B, const cr_sphere_point *p)
{
    cr_vec3 W = cr_v3_add(cr_v3_scale(A->w, p->ra), cr_v3_scale(B->w, p->rb));
    return cr_v3_sub(cr_v3_sub(A->v, B->v), cr_v3_cross(W, p->n));
}

/* Applies the impulses lambda of points [begin, end) to their bodies (the
 * warm start of a substep). */
void cr_sphere_warm_start(cr_sphere_body *sb, const cr_sphere_quad *q, uint32_t begin, uint32_t end);
/* One Gauss-Seidel pass over points [begin, end). */
void cr_sphere_solve(cr_sphere_body *sb, cr_sphere_quad *q, uint32_t begin, uint32_t end, const cr_sphere_pass *pass);
/* The resistance rows of slots [begin, end), after their points' own
 * pass over the same slots: warm, their impulses applied (the warm
 * start's); else one Gauss-Seidel update each (a solve or relax pass's). */
void cr_sphere_resist_pass(cr_sphere_body *sb, const cr_sphere_quad *q, cr_sphere_resist *r, uint32_t begin,
                           uint32_t end, bool warm);
/* The same two, a quad at a time on AVX2 lanes (points outside whole
 * quads plain); the points must share no moving body. Only where
 * cr_use_avx2 (simd.h); elsewhere they are the plain ones. */
void cr_sphere_warm_start_avx2(cr_sphere_body *sb, const cr_sphere_quad *q, uint32_t begin, uint32_t end);
void cr_sphere_solve_avx2(cr_sphere_body *sb, cr_sphere_quad *q, uint32_t begin, uint32_t end,
                          const cr_sphere_pass *pass);
/* And two quads at a time on AVX-512 lanes (sphere_avx512.c; a quad left
 * over on AVX2 lanes): only where cr_use_avx2 and cr_sphere_lanes8 (the
 * processor has AVX-512F); elsewhere they are the plain ones. */
bool cr_sphere_lanes8(void);
void cr_sphere_warm_start_avx512(cr_sphere_body *sb, const cr_sphere_quad *q, uint32_t begin, uint32_t end);
void cr_sphere_solve_avx512(cr_sphere_body *sb, cr_sphere_quad *q, uint32_t begin, uint32_t end,
                            const cr_sphere_pass *pass);

#endif
