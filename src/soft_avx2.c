/* The solve pass on AVX2 (soft_avx2.h; docs/physics/substep.md). */
#include "soft_avx2.h"

#include <stddef.h>

#include "dem_avx2.h" /* dem_transpose4; simd.h's CR_AVX2 */
#include "lanes_avx2.h"

#if CR_AVX2

/* A point's doubles from ra on: ra rb n t1 t2 (0-14), k (15-20), mass
 * (21-23), lambda (24-26), total (27-29), s0 (30), mu (31); a body's: v w
 * dp dq (0-11), inv_mass (12), inv_inertia (13-21, rows). */
_Static_assert(sizeof(cr_vec3) == 3 * sizeof(double), "cr_vec3 is three doubles");
_Static_assert(offsetof(cr_soft_point, mu) == offsetof(cr_soft_point, ra) + 31 * sizeof(double),
               "cr_soft_point's doubles from ra to mu are contiguous");
_Static_assert(offsetof(cr_soft_point, lambda) == offsetof(cr_soft_point, ra) + 24 * sizeof(double), "lambda");
_Static_assert(offsetof(cr_soft_body, inv_inertia) == 13 * sizeof(double) && sizeof(cr_soft_body) == 22 * sizeof(double),
               "cr_soft_body is 22 doubles");

/* v4 and its operations: lanes_avx2.h */

/* f[k] = double k of the four lanes' rows, for k in [4 q, 4 q + 4). */
FN void gather4(const double *const row[4], int q, __m256d *f)
{
    dem_transpose4(_mm256_loadu_pd(row[0] + q), _mm256_loadu_pd(row[1] + q), _mm256_loadu_pd(row[2] + q),
                   _mm256_loadu_pd(row[3] + q), f);
}

/* The four lanes' bodies on one side: v, w, dp, dq, inv_mass, inv_inertia. */
typedef struct side4 {
    v4 v, w, dp, dq;
    __m256d inv_mass, inertia[9];
} side4;

FN void load_side(const cr_soft_body *const b[4], side4 *s)
{
    const double *row[4] = {(const double *)b[0], (const double *)b[1], (const double *)b[2], (const double *)b[3]};
    __m256d f[24];
    for (int q = 0; q < 5; ++q) gather4(row, 4 * q, f + 4 * q);
    __m256d g[4];
    gather4(row, 18, g); /* 18-21: the inertia's last four */
    s->v = (v4){f[0], f[1], f[2]}, s->w = (v4){f[3], f[4], f[5]};
    s->dp = (v4){f[6], f[7], f[8]}, s->dq = (v4){f[9], f[10], f[11]};
    s->inv_mass = f[12];
    for (int k = 0; k < 7; ++k) s->inertia[k] = f[13 + k];
    s->inertia[7] = g[2], s->inertia[8] = g[3];
}

/* Writes the lanes' velocities back to the bodies that move. */
FN void store_side(cr_soft_body *const b[4], const side4 *s)
{
    double t[6][4];
    _mm256_storeu_pd(t[0], s->v.x), _mm256_storeu_pd(t[1], s->v.y), _mm256_storeu_pd(t[2], s->v.z);
    _mm256_storeu_pd(t[3], s->w.x), _mm256_storeu_pd(t[4], s->w.y), _mm256_storeu_pd(t[5], s->w.z);
    for (int l = 0; l < 4; ++l)
        if (b[l]->inv_mass > 0.0) {
            b[l]->v = cr_v3(t[0][l], t[1][l], t[2][l]);
            b[l]->w = cr_v3(t[3][l], t[4][l], t[5][l]);
        }
}

FN __m256d clamp(__m256d x, __m256d limit)
{
    /* x > limit ? limit : (x < -limit ? -limit : x) */
    __m256d nlimit = _mm256_xor_pd(limit, _mm256_set1_pd(-0.0));
    __m256d y = _mm256_blendv_pd(x, nlimit, _mm256_cmp_pd(x, nlimit, _CMP_LT_OQ));
    return _mm256_blendv_pd(y, limit, _mm256_cmp_pd(x, limit, _CMP_GT_OQ));
}

/* point_impulse: n d0 + (t1 d1 + t2 d2) */
FN v4 impulse(v4 n, v4 t1, v4 t2, __m256d d0, __m256d d1, __m256d d2)
{
    return v4_add(v4_scale(n, d0), v4_add(v4_scale(t1, d1), v4_scale(t2, d2)));
}

/* apply: impulse P on a at the point, -P on b (neg_imb: -b's inverse mass) */
FN void apply(side4 *A, side4 *B, v4 ra, v4 rb, v4 P, __m256d neg_imb)
{
    A->v = v4_madd(A->v, P, A->inv_mass);
    A->w = v4_add(A->w, m3_mul(A->inertia, v4_cross(ra, P)));
    B->v = v4_madd(B->v, P, neg_imb);
    B->w = v4_sub(B->w, m3_mul(B->inertia, v4_cross(rb, P)));
}

/* Four runs of len points each, run l's first point at c[l]. */
static CR_AVX2_FN void solve_block(cr_soft_body *bodies, cr_soft_point *const c[4], uint32_t len, const cr_soft soft[2],
                                    double inv_h, double push_speed, bool use_bias, bool accumulate)
{
    cr_soft_body *ba[4], *bb[4];
    for (int l = 0; l < 4; ++l) ba[l] = &bodies[c[l]->a], bb[l] = &bodies[c[l]->b];
    side4 A, B;
    load_side((const cr_soft_body *const *)ba, &A);
    load_side((const cr_soft_body *const *)bb, &B);
    const __m256d zero = _mm256_setzero_pd(), one = _mm256_set1_pd(1.0), vh = _mm256_set1_pd(inv_h),
                  npush = _mm256_set1_pd(-push_speed);
    const __m256d neg_imb = _mm256_xor_pd(B.inv_mass, _mm256_set1_pd(-0.0));
    for (uint32_t j = 0; j < len; ++j) {
        cr_soft_point *pt[4] = {c[0] + j, c[1] + j, c[2] + j, c[3] + j};
        const double *row[4] = {&pt[0]->ra.x, &pt[1]->ra.x, &pt[2]->ra.x, &pt[3]->ra.x};
        __m256d f[32];
        for (int q = 0; q < 8; ++q) gather4(row, 4 * q, f + 4 * q);
        v4 ra = {f[0], f[1], f[2]}, rb = {f[3], f[4], f[5]}, n = {f[6], f[7], f[8]}, t1 = {f[9], f[10], f[11]},
           t2 = {f[12], f[13], f[14]};
        const __m256d *k = f + 15, *mass = f + 21;
        __m256d lambda0 = f[24], lambda1 = f[25], lambda2 = f[26], s0 = f[30], mu = f[31];
        /* separation */
        v4 da = v4_add(A.dp, v4_cross(A.dq, ra)), db = v4_add(B.dp, v4_cross(B.dq, rb));
        __m256d sep = add(s0, v4_dot(n, v4_sub(da, db)));
        /* the row's softness: speculative (apart), soft (use_bias) or rigid */
        double msbr[4], ms[4], is[4];
        for (int l = 0; l < 4; ++l) {
            const cr_soft *sf = &soft[pt[l]->fixed];
            msbr[l] = sf->mass_scale * sf->bias_rate, ms[l] = sf->mass_scale, is[l] = sf->impulse_scale;
        }
        __m256d apart = _mm256_cmp_pd(sep, zero, _CMP_GT_OQ);
        __m256d bias = zero, mass_scale = one, impulse_scale = zero;
        if (use_bias) {
            bias = _mm256_max_pd(mul(_mm256_loadu_pd(msbr), sep), npush); /* fmax(x, -v): -v where x is NaN */
            mass_scale = _mm256_loadu_pd(ms);
            impulse_scale = _mm256_loadu_pd(is);
        }
        bias = _mm256_blendv_pd(bias, mul(sep, vh), apart);
        mass_scale = _mm256_blendv_pd(mass_scale, one, apart);
        impulse_scale = _mm256_blendv_pd(impulse_scale, zero, apart);
        /* the point's velocity in the rows */
        v4 vrel = v4_sub(v4_add(A.v, v4_cross(A.w, ra)), v4_add(B.v, v4_cross(B.w, rb)));
        __m256d u0 = v4_dot(n, vrel), u1 = v4_dot(t1, vrel), u2 = v4_dot(t2, vrel);
        /* normal */
        __m256d next = sub(sub(lambda0, mul(mass[0], add(mul(mass_scale, u0), bias))), mul(impulse_scale, lambda0));
        next = _mm256_blendv_pd(zero, next, _mm256_cmp_pd(next, zero, _CMP_GT_OQ));
        __m256d d0 = sub(next, lambda0);
        lambda0 = next;
        u0 = add(u0, mul(k[0], d0)), u1 = add(u1, mul(k[1], d0)), u2 = add(u2, mul(k[2], d0));
        /* friction t1, t2 within mu lambda_n */
        __m256d limit = mul(mu, lambda0);
        next = clamp(sub(lambda1, mul(mass[1], u1)), limit);
        __m256d d1 = sub(next, lambda1);
        lambda1 = next;
        u0 = add(u0, mul(k[1], d1)), u1 = add(u1, mul(k[3], d1)), u2 = add(u2, mul(k[4], d1));
        next = clamp(sub(lambda2, mul(mass[2], u2)), limit);
        __m256d d2 = sub(next, lambda2);
        lambda2 = next;
        double l0[4], l1[4], l2[4];
        _mm256_storeu_pd(l0, lambda0), _mm256_storeu_pd(l1, lambda1), _mm256_storeu_pd(l2, lambda2);
        for (int l = 0; l < 4; ++l) {
            pt[l]->lambda[0] = l0[l], pt[l]->lambda[1] = l1[l], pt[l]->lambda[2] = l2[l];
            if (accumulate) pt[l]->total[0] += l0[l], pt[l]->total[1] += l1[l], pt[l]->total[2] += l2[l];
        }
        apply(&A, &B, ra, rb, impulse(n, t1, t2, d0, d1, d2), neg_imb);
    }
    store_side(ba, &A);
    store_side(bb, &B);
}

/* Whether runs i .. i + 3 of the list have as many points (len). */
static bool same_length(const uint32_t *run_start, const uint32_t *runs, uint32_t i, uint32_t *len)
{
    *len = run_start[runs[i] + 1] - run_start[runs[i]];
    for (uint32_t l = 1; l < 4; ++l)
        if (run_start[runs[i + l] + 1] - run_start[runs[i + l]] != *len) return false;
    return true;
}

void cr_soft_solve_avx2(cr_soft_body *bodies, cr_soft_point *p, const uint32_t *run_start, const uint32_t *runs,
                        uint32_t count, const cr_soft soft[2], double inv_h, double push_speed, bool use_bias,
                        bool accumulate)
{
    uint32_t i = 0, len;
    for (; i + 4 <= count; i += 4) {
        if (!same_length(run_start, runs, i, &len)) {
            cr_soft_solve(bodies, p, run_start, runs + i, 4, soft, inv_h, push_speed, use_bias, accumulate);
            continue;
        }
        cr_soft_point *c[4] = {&p[run_start[runs[i]]], &p[run_start[runs[i + 1]]], &p[run_start[runs[i + 2]]],
                               &p[run_start[runs[i + 3]]]};
        solve_block(bodies, c, len, soft, inv_h, push_speed, use_bias, accumulate);
    }
    if (i < count) cr_soft_solve(bodies, p, run_start, runs + i, count - i, soft, inv_h, push_speed, use_bias, accumulate);
}

#else

void cr_soft_solve_avx2(cr_soft_body *bodies, cr_soft_point *p, const uint32_t *run_start, const uint32_t *runs,
                        uint32_t count, const cr_soft soft[2], double inv_h, double push_speed, bool use_bias,
                        bool accumulate)
{
    cr_soft_solve(bodies, p, run_start, runs, count, soft, inv_h, push_speed, use_bias, accumulate);
}

#endif
