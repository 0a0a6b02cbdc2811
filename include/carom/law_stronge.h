/* carom — the exact frictional collision impulse of seed 002 (Mirtich's
 * impulse-based collision as corrected by Baber): the `stronge` law.
 *
 * The impulse p acting on body A (and -p on B) is found by following the
 * relative contact velocity u of A with respect to B as a function of the
 * normal impulse p_z (seed 002 §3.3, eq. 3), with Coulomb sliding friction,
 * stable or unstable sticking (§3.5-§3.9), and Stronge's energetic
 * restitution summed over every compression and decompression phase
 * (§3.4, Baber's correction: u_z may turn negative again).
 *
 * Conventions
 * - Contact frame: the normal is the last axis (+z in 3D, +y in 2D) and is the
 *   direction in which the impulse acts on A. u0 is the initial relative
 *   contact velocity of A with respect to B; u_z < 0 means approaching.
 * - K is the collision matrix: u - u0 = K p (seed 002 eq. 2).
 * - Work: W = integral of u_z dp_z, the work of the normal impulse on the
 *   relative motion (seed 002 eq. 4). work_compression W_c <= 0 is its sum over
 *   all phases with u_z < 0, work_decompression W_d >= 0 over all phases with
 *   u_z > 0; the collision ends when W_d = -e^2 W_c (Stronge's hypothesis).
 * - Functions never return a garbage impulse: on any invalid input (NaN, K not
 *   symmetric positive definite, a normal that is not a unit vector, friction
 *   < 0, restitution outside [0, 1]) they return CR_ERR_INVALID_ARGUMENT,
 *   write a message naming the culprit, and leave *out zeroed.
 * - A contact that is not approaching (u0_z >= 0) gets a zero impulse (CR_OK).
 */
#ifndef CAROM_LAW_STRONGE_H
#define CAROM_LAW_STRONGE_H

#include <stdbool.h>
#include <stddef.h>

#include "carom/collide.h"
#include "carom/math.h"
#include "carom/types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cr_sticking {
    CR_STICKING_NONE = 0, /* the tangential velocity never reached zero (or mu = 0) */
    CR_STICKING_STABLE,   /* it reached zero and friction held it there (§3.6) */
    CR_STICKING_UNSTABLE  /* it reached zero and left along the diverging ray (§3.7-§3.9) */
} cr_sticking;

typedef struct cr_stronge_result {
    cr_vec3 impulse;   /* on A: world frame in the body forms, contact frame in the
                          contact-space forms; in 2D (x, y, 0) */
    cr_vec3 u;         /* final separation velocity (= u0 + K p to the integration
                          error), contact frame
                          (normal = z in 3D; in 2D (tangent, normal, 0)) */
    cr_sticking sticking;
    double work_compression;   /* W_c <= 0, summed over all compression phases */
    double work_decompression; /* W_d >= 0, summed over all decompression phases; = -e^2 W_c */
    int steps;         /* accepted integrator steps (0 when only closed forms were used) */
} cr_stronge_result;

/* What a trace callback is told about (3D law). */
typedef enum cr_stronge_event {
    CR_STRONGE_STEP = 0,       /* an accepted integrator step */
    CR_STRONGE_DECOMPRESSION,  /* u_z rose through 0: a decompression phase begins */
    CR_STRONGE_COMPRESSION,    /* u_z fell through 0: another compression phase begins */
    CR_STRONGE_STICK,          /* u_t reached 0 (sticking, seed 002 §3.5) */
    CR_STRONGE_END             /* W_d = -e^2 W_c: the collision ends */
} cr_stronge_event;

/* Called with the impulse p so far and the velocity u, both in the contact
 * frame; for plotting u_z(p_z) (seed 002 Figure 2) and for tests. */
typedef void cr_stronge_trace_fn(cr_stronge_event event, cr_vec3 p, cr_vec3 u, void *ctx);

/* Tuning of the 3D law; cr_default_stronge_options() gives the defaults. */
typedef struct cr_stronge_options {
    double tolerance;  /* relative error tolerance of the Dormand-Prince integrator
                          (default 1e-10; must lie in [1e-14, 1e-3]) */
    int max_steps;     /* accepted + rejected steps before giving up with an error
                          (default 100000) */
    bool closed_forms; /* true (default): closed forms on rays of constant sliding;
                          false: integrate wherever the contact slides (a test aid to
                          check the integrator against the closed forms) */
    cr_stronge_trace_fn *trace; /* optional (default NULL) */
    void *trace_ctx;
} cr_stronge_options;

cr_stronge_options cr_default_stronge_options(void);

/* Contact-space form: K symmetric positive definite 3x3, u0 the initial
 * relative contact velocity, normal = +z. */
cr_status cr_law_stronge_contact(cr_mat3 K, cr_vec3 u0, double restitution, double friction,
                                 cr_stronge_result *out, char *msg, size_t msg_size);
cr_status cr_law_stronge_contact_ex(cr_mat3 K, cr_vec3 u0, double restitution, double friction,
                                    const cr_stronge_options *options, cr_stronge_result *out,
                                    char *msg, size_t msg_size);

/* Body form: n is the unit direction in which the impulse acts on A (from B
 * towards A). Either side may be immovable (inv_mass 0, inv_inertia 0). The
 * problem is rotated so that n is +z (seed 002 §3.1), solved, and the impulse
 * rotated back: out->impulse is in the world frame, out->u in the contact
 * frame R (cr_stronge_rotation(n)). Apply it with cr_contact_apply(a, b, impulse). */
cr_status cr_law_stronge(const cr_contact_side *a, const cr_contact_side *b, cr_vec3 n,
                         double restitution, double friction, cr_stronge_result *out, char *msg,
                         size_t msg_size);
cr_status cr_law_stronge_ex(const cr_contact_side *a, const cr_contact_side *b, cr_vec3 n,
                            double restitution, double friction, const cr_stronge_options *options,
                            cr_stronge_result *out, char *msg, size_t msg_size);

/* The rotation R of seed 002 §3.1 / Appendix A with R n = (0, 0, 1) for a unit
 * n, including n at or near -z (where the seed's axis f x z vanishes). The
 * contact frame's tangent axes are R's first two rows. */
cr_mat3 cr_stronge_rotation(cr_vec3 n);

/* ---- pieces of the 3D law, public so that they can be tested and reused --- */

/* Seed 002 §3.5: sticking at u_x = u_y = 0 is stable when
 * (K^-1)_13^2 + (K^-1)_23^2 <= mu^2 (K^-1)_33^2. K must be SPD. */
bool cr_stronge_sticking_is_stable(cr_mat3 K, double friction);

/* Seed 002 §3.8: the angles (radians, in [0, 2 pi), ascending) of the rays of
 * constant sliding, i.e. the roots of eq. 7, found as the real roots of the
 * quartic in p = tan(theta/2) (closed form) plus theta = pi when a_4 = 0, each
 * polished by Newton's method on eq. 7. Returns their number (0..4; every
 * angle when eq. 7 vanishes identically is reported as 0 rays). */
int cr_stronge_sliding_rays(cr_mat3 K, double friction, double theta[4]);

/* Seed 002 §3.8: the divergence test -mu K11 c^2 - mu K22 s^2 - 2 mu K12 s c
 * + K13 c + K23 s at angle theta (> 0: the ray, if it is one, is diverging). */
double cr_stronge_ray_divergence(cr_mat3 K, double friction, double theta);

/* Seed 002 §3.8/§3.10: the unique diverging ray of unstable sticking, as an
 * angle in [0, 2 pi). Uses the quartic; falls back to the equivalent
 * one-dimensional problem of §3.10 (|N_lambda^-1 (K13, K23)| = 1, a unique
 * lambda > 0, by bisection) if rounding hides the root. Returns
 * CR_ERR_INVALID_ARGUMENT when sticking is stable (there is no diverging ray). */
cr_status cr_stronge_diverging_ray(cr_mat3 K, double friction, double *psi);

/* Real roots of a[4] x^4 + a[3] x^3 + a[2] x^2 + a[1] x + a[0] = 0 in closed
 * form (Ferrari, with the cubic by Cardano/Viete; lower degrees when leading
 * coefficients vanish), each polished by Newton's method, ascending. Returns
 * their number; a polynomial that is identically zero returns 0. */
int cr_quartic_real_roots(const double a[5], double roots[4]);

/* ---- 2D (seed 002 §5) ------------------------------------------------------ */

/* 2D contact-space form (seed 002 §5.2, closed form, no integration loop):
 * K symmetric positive definite 2x2, u0 = (tangent x, normal y). Impulse and u
 * are (x, y, 0) in the contact frame; steps is 0. */
cr_status cr_law_stronge_2d(const double K[2][2], const double u0[2], double restitution,
                            double friction, cr_stronge_result *out, char *msg, size_t msg_size);

/* One side of a 2D contact: bodies move in the xy-plane and turn about z,
 * w > 0 anticlockwise (seed 002 §5.1). */
typedef struct cr_contact_side_2d {
    double inv_mass;    /* 0: immovable */
    double inv_inertia; /* 1 / moment of inertia about the centre of mass; 0: no rotation */
    double r[2];        /* contact point minus centre of mass */
    double v[2];        /* centre velocity */
    double w;           /* angular velocity */
} cr_contact_side_2d;

cr_contact_side_2d cr_contact_side_2d_immovable(void);

/* Seed 002 §5.2 step 2: K = (1/m_a + 1/m_b) 1 + (1/I_a) [[ry^2, -rx ry], [-rx ry, rx^2]]_a + (same)_b. */
void cr_collision_matrix_2d(const cr_contact_side_2d *a, const cr_contact_side_2d *b, double K[2][2]);

/* Contact point velocity v + w (-r_y, r_x). */
void cr_contact_point_velocity_2d(const cr_contact_side_2d *s, double u[2]);

/* Applies impulse p to a and -p to b (seed 002 §5.2 step 9). */
void cr_contact_apply_2d(cr_contact_side_2d *a, cr_contact_side_2d *b, const double p[2]);

/* 2D body form: n is the unit direction (in the plane) in which the impulse
 * acts on A. out->impulse is in the world frame (x, y, 0); out->u in the
 * contact frame (tangent, normal, 0), the tangent being (n_y, -n_x). */
cr_status cr_law_stronge_2d_body(const cr_contact_side_2d *a, const cr_contact_side_2d *b,
                                 const double n[2], double restitution, double friction,
                                 cr_stronge_result *out, char *msg, size_t msg_size);

#ifdef __cplusplus
}
#endif
#endif
