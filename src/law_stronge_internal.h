/* Internal pieces of the seed 002 law shared by src/law_stronge*.c. */
#ifndef CAROM_LAW_STRONGE_INTERNAL_H
#define CAROM_LAW_STRONGE_INTERNAL_H

#include <stdarg.h>

#include "carom/law_stronge.h"

/* One 3D collision in contact space (normal = +z), fixed for its duration. */
typedef struct stronge_problem {
    cr_mat3 K, Kinv;
    cr_vec3 u0;
    double e, mu;
    double v_scale;   /* |u0| */
    double p_small;   /* a small impulse: |u0_z| / K33, less than the normal impulse needs */
    double w_small;   /* v_scale * p_small */
    double stick_tol; /* |u_t| at or below which sliding has stopped (§3.5) */
    double u_noise;   /* rounding level of u */
    int nall;         /* rays of constant sliding (§3.8), computed once */
    double all_rays[4];
    int nrays;        /* those that attract the direction of u_t (used with closed forms) */
    double ray[4];    /* their angles (Appendix C: trajectories converge to them) */
    double ray_rate[4]; /* f'(theta) < 0 of eq. 7 there: the rate of attraction */
    cr_stronge_options opt;
} stronge_problem;

/* The progress of the collision. u = u0 + K p, but u is carried along with p
 * rather than computed from it: for an ill-conditioned K, K p cancels
 * (|K| |p| >> |u - u0|) and would lose about log10 cond(K) digits of u. */
typedef struct stronge_state {
    cr_vec3 p;          /* impulse on A so far */
    cr_vec3 u;          /* relative contact velocity so far */
    double wc, wd;      /* W_c <= 0 and W_d >= 0 so far (§3.4) */
    bool done;          /* W_d = -e^2 W_c reached in a decompression phase */
    cr_sticking sticking;
    int steps;
    int ray;            /* index into problem.ray that u_t has converged to, or -1 */
} stronge_state;

static inline void stronge_trace(const stronge_problem *pb, cr_stronge_event ev, cr_vec3 p, cr_vec3 u)
{
    if (pb->opt.trace) pb->opt.trace(ev, p, u, pb->opt.trace_ctx);
}

/* law_stronge_phase.c: move along a ray on which du/dp_z = k is constant and
 * dp/dp_z = q (q.z = 1, k = K q), for at most dpz_max (INFINITY: until the
 * end), splitting the work into compression and decompression and stopping at
 * W_d = -e^2 W_c (closed forms of seed 002 §3.6 eq. 6 and §3.9 eq. 8). */
cr_status stronge_ray_advance(const stronge_problem *pb, stronge_state *s, cr_vec3 q, cr_vec3 k,
                              double dpz_max, char *msg, size_t msg_size);

/* law_stronge.c: K^-1 of a symmetric positive definite K through its
 * Cholesky factor (backward stable; the adjugate formula cancels
 * catastrophically when two eigenvalues are small). False if K is not
 * numerically positive definite. */
bool stronge_spd_inverse(cr_mat3 K, cr_mat3 *Kinv);

/* law_stronge_sticking.c: resolve sticking at u_t = 0 (§3.5-§3.9). */
/* Eq. 7 at angle theta: the rate d theta / d sigma of the direction of u_t,
 * with d sigma = dp_z / |u_t|; its derivative in *deriv (< 0: attracting). */
double stronge_ray_eq(cr_mat3 K, double mu, double theta, double *deriv);
cr_status stronge_resolve_sticking(const stronge_problem *pb, stronge_state *s, char *msg,
                                   size_t msg_size);

/* law_stronge_integrate.c: Dormand-Prince integration of eq. 3 until the
 * collision ends (s->done), sliding stops (|u_t| <= stick_tol) or the
 * direction of u_t is within the tolerance of an attracting ray (s->ray). */
cr_status stronge_integrate(const stronge_problem *pb, stronge_state *s, char *msg,
                            size_t msg_size);

/* Writes a message if msg is non-null (snprintf semantics). */
void stronge_msg(char *msg, size_t msg_size, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* law_stronge.c, the checks that open every entry point (3D and 2D): the
 * message cleared and out zeroed (sticking CR_STICKING_NONE), or an error
 * when out is NULL; e in [0, 1] and mu finite and >= 0. */
cr_status stronge_start(cr_stronge_result *out, char *msg, size_t msg_size);
cr_status stronge_check_coefficients(double e, double mu, char *msg, size_t msg_size);
/* The first checks of a contact side (3D and 2D), side name: given, and
 * its inv_mass finite and >= 0 (not read when the side is missing). */
cr_status stronge_check_side_mass(const char *name, bool given, double inv_mass, char *msg, size_t msg_size);

#endif
