/* The sphere points' solve pass on AVX2 lanes (sphere_points.h; docs/
 * physics/substep.md, "Spheres"): four points of one colour at a time,
 * each lane one point and its two bodies, gathered and scattered around
 * it. Every lane does cr_sphere_solve's IEEE operations in the same order
 * (no fused multiply-add: simd.h), so both give the same bits. */
#include "sphere_points.h"

#include <stddef.h>

#include "dem_avx2.h" /* dem_transpose4; simd.h's CR_AVX2 */
#include "lanes_avx2.h"

#if CR_AVX2

/* A point's doubles from n on: n (0-2), ra, rb, mass_n, mass_t, s0, mu
 * (3-8), lambda_n (9), lambda_t (10-12); a body's: v w dp (0-8),
 * inv_mass (9), inv_inertia (10). */
_Static_assert(sizeof(cr_vec3) == 3 * sizeof(double), "cr_vec3 is three doubles");
_Static_assert(offsetof(cr_sphere_point, lambda_t) == offsetof(cr_sphere_point, n) + 10 * sizeof(double) &&
                   offsetof(cr_sphere_point, fixed) == offsetof(cr_sphere_point, n) + 13 * sizeof(double),
               "cr_sphere_point's doubles from n to lambda_t are contiguous");
_Static_assert(offsetof(cr_sphere_body, inv_inertia) == 10 * sizeof(double) &&
                   sizeof(cr_sphere_body) == 11 * sizeof(double),
               "cr_sphere_body is 11 doubles");

/* v4 and its operations: lanes_avx2.h */

/* f[k] = double q + k of the four lanes' rows, k < 4. */
FN void gather4(const double *const row[4], int q, __m256d *f)
{
    dem_transpose4(_mm256_loadu_pd(row[0] + q), _mm256_loadu_pd(row[1] + q), _mm256_loadu_pd(row[2] + q),
                   _mm256_loadu_pd(row[3] + q), f);
}

/* The four lanes' bodies on one side. */
typedef struct side4 {
    v4 v, w, dp;
    __m256d inv_mass, inv_inertia;
} side4;

FN void load_side(cr_sphere_body *const b[4], side4 *s)
{
    const double *row[4] = {&b[0]->v.x, &b[1]->v.x, &b[2]->v.x, &b[3]->v.x};
    __m256d f[8], g[4];
    gather4(row, 0, f);
    gather4(row, 4, f + 4);
    gather4(row, 7, g); /* 7-10: within the body (the world's is the array's last) */
    s->v = (v4){f[0], f[1], f[2]}, s->w = (v4){f[3], f[4], f[5]}, s->dp = (v4){f[6], f[7], g[1]};
    s->inv_mass = g[2], s->inv_inertia = g[3];
}

/* Writes the lanes' velocities back to the bodies that move (one colour's
 * points share no moving body; the others are only read). */
FN void store_side(cr_sphere_body *const b[4], const side4 *s)
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

/* cr_sphere_solve's point on four lanes: points k .. k + 3. */
static CR_AVX2_FN void solve4(cr_sphere_body *sb, cr_sphere_point *sp, uint32_t k, const cr_sphere_pass *pass)
{
    cr_sphere_point *const p[4] = {sp + k, sp + k + 1, sp + k + 2, sp + k + 3};
    cr_sphere_body *ba[4], *bb[4];
    for (int l = 0; l < 4; ++l) ba[l] = &sb[p[l]->a], bb[l] = &sb[p[l]->b];
    side4 A, B;
    load_side(ba, &A);
    load_side(bb, &B);
    const double *row[4] = {&p[0]->n.x, &p[1]->n.x, &p[2]->n.x, &p[3]->n.x};
    __m256d f[8], g[4];
    gather4(row, 0, f);
    gather4(row, 4, f + 4);
    gather4(row, 9, g);
    v4 n = {f[0], f[1], f[2]};
    __m256d ra = f[3], rb = f[4], mass_n = f[5], mass_t = f[6], s0 = f[7];
    __m256d mu = _mm256_setr_pd(p[0]->mu, p[1]->mu, p[2]->mu, p[3]->mu);
    __m256d lambda_n = g[0];
    v4 lambda_t = {g[1], g[2], g[3]};
    const __m256d zero = _mm256_setzero_pd(), one = _mm256_set1_pd(1.0);
    /* separation */
    __m256d sep = add(s0, v4_dot(n, v4_sub(A.dp, B.dp)));
    /* the row's softness: speculative (apart), soft (use_bias) or rigid */
    __m256d apart = _mm256_cmp_pd(sep, zero, _CMP_GT_OQ);
    __m256d bias = zero, mass_scale = one, impulse_scale = zero;
    if (pass->use_bias) {
        /* soft[fixed] by a blend (four stores and a load of the lanes'
         * values stalled on the store forwarding) */
        const cr_soft *s0f = &pass->soft[0], *s1f = &pass->soft[1];
        __m256d fixed = _mm256_castsi256_pd(_mm256_cmpgt_epi64(
            _mm256_setr_epi64x(p[0]->fixed, p[1]->fixed, p[2]->fixed, p[3]->fixed), _mm256_setzero_si256()));
        __m256d msbr = _mm256_blendv_pd(_mm256_set1_pd(s0f->mass_scale * s0f->bias_rate),
                                        _mm256_set1_pd(s1f->mass_scale * s1f->bias_rate), fixed);
        /* max(x, -v): -v where x is NaN, as the plain x > -v ? x : -v */
        bias = _mm256_max_pd(mul(msbr, sep), _mm256_set1_pd(-CR_SOFT_PUSH_SPEED));
        mass_scale = _mm256_blendv_pd(_mm256_set1_pd(s0f->mass_scale), _mm256_set1_pd(s1f->mass_scale), fixed);
        impulse_scale =
            _mm256_blendv_pd(_mm256_set1_pd(s0f->impulse_scale), _mm256_set1_pd(s1f->impulse_scale), fixed);
    }
    bias = _mm256_blendv_pd(bias, mul(sep, _mm256_set1_pd(pass->inv_h)), apart);
    mass_scale = _mm256_blendv_pd(mass_scale, one, apart);
    impulse_scale = _mm256_blendv_pd(impulse_scale, zero, apart);
    /* relative velocity: v_a - v_b - (ra w_a + rb w_b) x n */
    v4 W = v4_add(v4_scale(A.w, ra), v4_scale(B.w, rb));
    v4 vrel = v4_sub(v4_sub(A.v, B.v), v4_cross(W, n));
    __m256d un = v4_dot(n, vrel);
    __m256d next = sub(sub(lambda_n, mul(mass_n, add(mul(mass_scale, un), bias))), mul(impulse_scale, lambda_n));
    next = _mm256_blendv_pd(zero, next, _mm256_cmp_pd(next, zero, _CMP_GT_OQ));
    __m256d dn = sub(next, lambda_n);
    /* the tangential impulse in the cone */
    v4 ut = v4_madd(vrel, n, neg(un));
    v4 lt = v4_madd(lambda_t, ut, neg(mass_t));
    __m256d limit = mul(mu, next), l2 = v4_dot(lt, lt);
    __m256d over = _mm256_cmp_pd(l2, mul(limit, limit), _CMP_GT_OQ);
    if (_mm256_movemask_pd(over)) { /* the square root and division only where a lane slides */
        __m256d scale =
            _mm256_blendv_pd(zero, _mm256_div_pd(limit, _mm256_sqrt_pd(l2)), _mm256_cmp_pd(limit, zero, _CMP_GT_OQ));
        lt = v4_blend(lt, v4_scale(lt, scale), over);
    }
    v4 dt = v4_sub(lt, lambda_t);
    double ln[4], lx[4], ly[4], lz[4];
    _mm256_storeu_pd(ln, next), _mm256_storeu_pd(lx, lt.x), _mm256_storeu_pd(ly, lt.y), _mm256_storeu_pd(lz, lt.z);
    for (int l = 0; l < 4; ++l) {
        cr_vec3 t = cr_v3(lx[l], ly[l], lz[l]);
        p[l]->lambda_n = ln[l];
        p[l]->lambda_t = t;
        if (pass->totals) {
            pass->totals[k + l].n += ln[l];
            pass->totals[k + l].t = cr_v3_add(pass->totals[k + l].t, t);
        }
    }
    /* apply: P = dt + n dn on a, -P on b; n x dt turns them */
    v4 P = v4_madd(dt, n, dn), nt = v4_cross(n, dt);
    A.v = v4_madd(A.v, P, A.inv_mass);
    B.v = v4_madd(B.v, P, neg(B.inv_mass));
    A.w = v4_madd(A.w, nt, mul(neg(ra), A.inv_inertia));
    B.w = v4_madd(B.w, nt, mul(neg(rb), B.inv_inertia));
    store_side(ba, &A);
    store_side(bb, &B);
}

void cr_sphere_solve_avx2(cr_sphere_body *sb, cr_sphere_point *sp, uint32_t begin, uint32_t end,
                          const cr_sphere_pass *pass)
{
    uint32_t k = begin;
    for (; k + 4 <= end; k += 4) solve4(sb, sp, k, pass);
    if (k < end) cr_sphere_solve(sb, sp, k, end, pass);
}

#else

void cr_sphere_solve_avx2(cr_sphere_body *sb, cr_sphere_point *sp, uint32_t begin, uint32_t end,
                          const cr_sphere_pass *pass)
{
    cr_sphere_solve(sb, sp, begin, end, pass);
}

#endif
