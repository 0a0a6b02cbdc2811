/* carom — parametric surfaces s(u, v) (seed 004 §1, §3).
 *
 * A surface is a static whose free side is the side its normal points to;
 * balls roll, slide, lie still and land on it. Built in: a plane, "hills"
 * (a height field of Gaussian bumps and waves), a spherical bowl (the lower
 * hemisphere, balls inside) and a tensor-product B-spline; a user's own
 * surface plugs in through a callback that returns s and its first and
 * second derivatives.
 */
#ifndef CAROM_SURFACE_H
#define CAROM_SURFACE_H

#include "carom/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* s and its partial derivatives at (u, v). */
typedef struct cr_surface_eval {
    cr_vec3 s, su, sv, suu, suv, svv;
} cr_surface_eval;

typedef void cr_surface_fn(double u, double v, void *ctx, cr_surface_eval *out);
/* Optional maps of the surface's coefficients over (u, v): sliding friction
 * mu_alpha and rolling friction nu_alpha (seed 004 eq. 11, 16). */
typedef void cr_surface_coef_fn(double u, double v, void *ctx, double *friction, double *rolling_friction);

typedef enum cr_surface_type {
    CR_SURFACE_PLANE = 0,
    CR_SURFACE_HILLS,
    CR_SURFACE_BOWL,
    CR_SURFACE_BSPLINE,
    CR_SURFACE_CUSTOM
} cr_surface_type;

/* One Gaussian bump of a hills surface: amplitude A, centre (x, y), width w:
 * A exp(-((X-x)^2 + (Y-y)^2) / (2 w^2)). */
typedef struct cr_hill { double amplitude, x, y, width; } cr_hill;

typedef struct cr_surface_def {
    cr_surface_type type;
    /* plane: a point and the normal (u, v run along two tangents) */
    cr_vec3 point, normal;
    /* hills: z = height + sum of bumps + wave_amplitude sin(2 pi x / Lx) sin(2 pi y / Ly),
     * a graph over u = x, v = y in [u_min, u_max] x [v_min, v_max] */
    double height;
    const cr_hill *hills;
    uint32_t hill_count;
    double wave_amplitude, wave_length_x, wave_length_y;
    /* bowl: the lower hemisphere of the sphere (center, radius), balls inside;
     * a graph over the disk, u = x, v = y */
    cr_vec3 center;
    double radius;
    /* bspline: clamped uniform tensor-product B-spline of the given degree over
     * a control grid count_u x count_v (row-major: point [i * count_v + j]),
     * u, v in [0, 1]; the free side is that of s_u x s_v unless flip_normal */
    int degree;
    uint32_t count_u, count_v;
    const cr_vec3 *control_points;
    /* custom: the user's map over [u_min, u_max] x [v_min, v_max] */
    cr_surface_fn *eval;
    void *ctx;
    double u_min, u_max, v_min, v_max;
    bool flip_normal;
    /* material: a contact uses the product with the ball's coefficients */
    double restitution, friction, rolling_friction;
    cr_surface_coef_fn *coefficients; /* optional maps replacing friction, rolling_friction */
    void *coefficients_ctx;
    uint32_t internal_magic;
} cr_surface_def;

cr_surface_def cr_default_surface_def(void);
cr_status cr_surface_def_validate(const cr_surface_def *def, char *message, size_t message_size);

/* A surface ready for evaluation; the world holds one per surface static, and
 * one can be made on its own for the kernels below. */
typedef struct cr_surface cr_surface;
cr_status cr_surface_create(const cr_surface_def *def, cr_surface **out, char *message, size_t message_size);
void cr_surface_destroy(cr_surface *s);
const cr_surface_def *cr_surface_get_def(const cr_surface *s);

/* s, derivatives and the unit normal towards the free side at (u, v). */
void cr_surface_evaluate(const cr_surface *s, double u, double v, cr_surface_eval *out, cr_vec3 *normal);

/* Principal curvatures k1 <= k2 at (u, v), signed so that a surface bending
 * towards its free side (a valley, the bowl) has k > 0; Gaussian curvature
 * K = k1 k2. */
void cr_surface_curvature(const cr_surface *s, double u, double v, double *k1, double *k2, double *gaussian);

/* Result of the closest-point iteration. */
typedef struct cr_closest {
    double u, v;
    cr_vec3 point, normal;
    double distance; /* signed: > 0 on the free side */
    int iterations;
    bool converged;  /* Newton met the tolerance; else the fallback's answer */
    bool on_edge;    /* the nearest point is on the domain's edge and p is not
                        along its normal: p lies beside the surface, not above
                        or below it (distance is then |p - point|, >= 0) */
    /* The anchor: the last (u, v) the search evaluated the surface at. On
     * the hills Newton's last step, when it is short enough that the one
     * after it would be below the tolerance, is taken without an
     * evaluation (the surface at (u, v) by its Taylor series from the
     * anchor's); otherwise the anchor is (u, v). Warm-start the next search
     * from the anchor, not from (u, v): the search from there is the same
     * pure function of its start, and its first evaluation, at the anchor,
     * is the one already made. */
    double anchor_u, anchor_v;
} cr_closest;

/* Seed 004 §3, eq. 29-34: the closest point on the surface to p by Newton's
 * iteration A delta = b, warm-started at (u0, v0), clamped to the domain; when
 * it does not converge (A not positive definite, no progress) a damped
 * gradient fallback from a coarse search takes over. tol is on the
 * parameter step relative to the surface's size (1e-12 is a good default).
 * On the hills the last step may be taken by Taylor (see anchor_u above). */
cr_closest cr_surface_closest(const cr_surface *s, cr_vec3 p, double u0, double v0, double tol);

/* Largest principal curvature over a grid of samples (n x n) of the domain:
 * the check of seed 004's restriction that no principal curvature (towards
 * the free side) is sharper than the largest ball, k r < 1. */
double cr_surface_max_curvature(const cr_surface *s, int n, double *at_u, double *at_v);

/* The material coefficients at (u, v). */
void cr_surface_coefficients(const cr_surface *s, double u, double v, double *friction, double *rolling_friction);

/* A parameter point near p to start the iteration from (the domain's grid
 * point nearest to p). */
void cr_surface_start(const cr_surface *s, cr_vec3 p, double *u, double *v);

#ifdef __cplusplus
}
#endif
#endif
