/* Shared helpers of the seed 002 (stronge law) tests: tolerances, a
 * deterministic generator, random bodies and the physical invariants. */
#ifndef CAROM_TEST_LAW_STRONGE_UTIL_H
#define CAROM_TEST_LAW_STRONGE_UTIL_H

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "carom/carom.h"

#define ST_PI 3.14159265358979323846

#define assert_close(actual, expected, tol)                                                                  \
    do {                                                                                                     \
        double a_ = (actual), e_ = (expected), t_ = (tol);                                                   \
        if (!(fabs(a_ - e_) <= t_))                                                                          \
            fail_msg("%s = %.17g, expected %.17g within %.3g (off by %.3g)", #actual, a_, e_, t_,           \
                     fabs(a_ - e_));                                                                         \
    } while (0)

#define assert_vec_close(actual, expected, tol)                                                              \
    do {                                                                                                     \
        cr_vec3 av_ = (actual), ev_ = (expected);                                                            \
        double t_ = (tol), d_ = cr_v3_len(cr_v3_sub(av_, ev_));                                              \
        if (!(d_ <= t_))                                                                                     \
            fail_msg("%s = (%.17g, %.17g, %.17g), expected (%.17g, %.17g, %.17g) within %.3g (off by %.3g)", \
                     #actual, av_.x, av_.y, av_.z, ev_.x, ev_.y, ev_.z, t_, d_);                             \
    } while (0)

/* splitmix64: the same cases on every machine. */
typedef struct st_rng { uint64_t s; } st_rng;

static inline uint64_t st_next(st_rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
/* Uniform in [0, 1). */
static inline double st_uniform(st_rng *r) { return (double)(st_next(r) >> 11) * 0x1.0p-53; }
static inline double st_range(st_rng *r, double lo, double hi) { return lo + (hi - lo) * st_uniform(r); }
/* Standard normal (Box-Muller). */
static inline double st_normal(st_rng *r)
{
    double u = st_uniform(r), v = st_uniform(r);
    return sqrt(-2.0 * log(1.0 - u)) * cos(2.0 * ST_PI * v);
}
static inline cr_vec3 st_vec(st_rng *r, double scale)
{
    return cr_v3(scale * st_normal(r), scale * st_normal(r), scale * st_normal(r));
}
static inline cr_vec3 st_unit(st_rng *r)
{
    for (;;) {
        cr_vec3 v = st_vec(r, 1.0);
        double l = cr_v3_len(v);
        if (l > 1e-3) return cr_v3_scale(v, 1.0 / l);
    }
}
/* A random rotation (from a random unit quaternion). */
static inline cr_mat3 st_rotation(st_rng *r)
{
    cr_quat q = {st_normal(r), st_normal(r), st_normal(r), st_normal(r)};
    return cr_q_to_m3(cr_q_normalize(q));
}
/* A random symmetric positive definite matrix A A^T + eps 1, scaled. */
static inline cr_mat3 st_spd(st_rng *r, double scale)
{
    cr_mat3 A;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) A.m[i][j] = st_normal(r);
    cr_mat3 K = cr_m3_mul(A, cr_m3_transpose(A));
    for (int i = 0; i < 3; ++i) K.m[i][i] += 0.02;
    return cr_m3_scale(K, scale);
}

/* A random rigid body: a box of random sides and density, turned at
 * random, so that its world inertia tensor is physical. */
typedef struct st_body {
    double mass;
    cr_mat3 inertia; /* world frame */
    cr_contact_side side;
} st_body;

static inline st_body st_random_body(st_rng *r)
{
    st_body b;
    double sx = exp(st_range(r, -1.5, 1.0)), sy = exp(st_range(r, -1.5, 1.0)), sz = exp(st_range(r, -1.5, 1.0));
    b.mass = exp(st_range(r, -2.0, 2.5));
    double k = b.mass / 12.0;
    cr_mat3 I0 = cr_m3_diag(k * (sy * sy + sz * sz), k * (sx * sx + sz * sz), k * (sx * sx + sy * sy));
    cr_mat3 Q = st_rotation(r);
    b.inertia = cr_m3_mul(cr_m3_mul(Q, I0), cr_m3_transpose(Q));
    cr_mat3 I0i = cr_m3_diag(1.0 / I0.m[0][0], 1.0 / I0.m[1][1], 1.0 / I0.m[2][2]);
    b.side.inv_mass = 1.0 / b.mass;
    b.side.inv_inertia = cr_m3_mul(cr_m3_mul(Q, I0i), cr_m3_transpose(Q));
    double rs = 0.5 * sqrt(sx * sx + sy * sy + sz * sz);
    b.side.r = cr_v3_scale(st_unit(r), rs * st_range(r, 0.2, 1.0));
    b.side.v = st_vec(r, exp(st_range(r, -1.0, 1.5)));
    b.side.w = st_vec(r, exp(st_range(r, -1.0, 1.5)));
    return b;
}

static inline double st_kinetic(double m, cr_mat3 I, cr_vec3 v, cr_vec3 w)
{
    return 0.5 * m * cr_v3_dot(v, v) + 0.5 * cr_v3_dot(w, cr_m3_mul_v(I, w));
}

#endif
