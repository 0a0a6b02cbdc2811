/* The sphere points' warm start and solve pass on AVX2 lanes
 * (sphere_points.h; docs/physics/substep.md, "Spheres"): a quad of one
 * colour at a time, each lane one point and its two bodies, the points'
 * fields loaded a row of four at a time, the bodies' rows gathered by 4x4
 * transposes and their velocities scattered back. Every lane does the
 * plain kernels' IEEE operations in the same order (no fused multiply-add:
 * simd.h), so both give the same bits. */
#include "sphere_points.h"

#include <stddef.h>

#include "dem_avx2.h" /* dem_transpose4; simd.h's CR_AVX2 */
#include "lanes_avx2.h"

#if CR_AVX2

/* A body's rows: v and inv_mass, w and inv_inertia; its shift's: dp
 * (sphere_points.h). */
_Static_assert(sizeof(cr_vec3) == 3 * sizeof(double), "cr_vec3 is three doubles");
_Static_assert(offsetof(cr_sphere_body, inv_mass) == 3 * sizeof(double) &&
                   offsetof(cr_sphere_body, w) == 4 * sizeof(double) &&
                   offsetof(cr_sphere_body, inv_inertia) == 7 * sizeof(double) &&
                   sizeof(cr_sphere_body) == 8 * sizeof(double),
               "cr_sphere_body is two rows of four doubles");
_Static_assert(sizeof(cr_sphere_shift) == 4 * sizeof(double), "cr_sphere_shift is a row of four doubles");

/* v4 and its operations: lanes_avx2.h. The bodies' loads and stores are
 * inlined by force (GCC kept load_side a call: 9 % of the pit's samples). */
#define FN_INLINE FN __attribute__((always_inline))

FN __m256d load(const double *p) { return _mm256_loadu_pd(p); }

/* The four lanes' bodies on one side. */
typedef struct side4 {
    v4 v, w;
    __m256d inv_mass, inv_inertia;
} side4;

/* Row q (doubles 4 q to 4 q + 3) of the four lanes' rows, transposed. */
FN_INLINE void load_row(const double *const row[4], int q, __m256d f[4])
{
    dem_transpose4(load(row[0] + 4 * q), load(row[1] + 4 * q), load(row[2] + 4 * q), load(row[3] + 4 * q), f);
}

FN_INLINE void load_side(const cr_sphere_body *sb, const uint32_t idx[4], side4 *s)
{
    const double *row[4] = {&sb[idx[0]].v.x, &sb[idx[1]].v.x, &sb[idx[2]].v.x, &sb[idx[3]].v.x};
    __m256d f[4], g[4];
    load_row(row, 0, f);
    load_row(row, 1, g);
    s->v = (v4){f[0], f[1], f[2]}, s->inv_mass = f[3];
    s->w = (v4){g[0], g[1], g[2]}, s->inv_inertia = g[3];
}

/* The four lanes' dp_a - dp_b: each lane's rows subtracted, then
 * transposed (the same differences as the two sides' rows transposed and
 * subtracted, one transpose fewer). */
FN_INLINE v4 load_shift_diff(const cr_sphere_shift *sh, const uint32_t a[4], const uint32_t b[4])
{
    __m256d f[4];
    dem_transpose4(sub(load(&sh[a[0]].dp.x), load(&sh[b[0]].dp.x)), sub(load(&sh[a[1]].dp.x), load(&sh[b[1]].dp.x)),
                   sub(load(&sh[a[2]].dp.x), load(&sh[b[2]].dp.x)), sub(load(&sh[a[3]].dp.x), load(&sh[b[3]].dp.x)), f);
    return (v4){f[0], f[1], f[2]};
}

/* Writes the lanes' v and w rows back (transposed) to the bodies that
 * move; a body that does not is only read (one colour's points share no
 * moving body, but may share one that does not): its rows go to scratch. */
FN_INLINE void store_lane(cr_sphere_body *b, bool moves, double *scratch, __m256d v, __m256d w)
{
    double *d = moves ? &b->v.x : scratch;
    _mm256_storeu_pd(d, v);
    _mm256_storeu_pd(d + 4, w);
}

FN_INLINE void store_side(cr_sphere_body *sb, const uint32_t idx[4], const side4 *s)
{
    __m256d v[4], w[4];
    dem_transpose4(s->v.x, s->v.y, s->v.z, s->inv_mass, v);
    dem_transpose4(s->w.x, s->w.y, s->w.z, s->inv_inertia, w);
    int moves = _mm256_movemask_pd(_mm256_cmp_pd(s->inv_mass, _mm256_setzero_pd(), _CMP_GT_OQ));
    double scratch[8];
    /* lane by lane, written out: as a loop, GCC kept v and w on the stack */
    store_lane(&sb[idx[0]], moves & 1, scratch, v[0], w[0]);
    store_lane(&sb[idx[1]], moves & 2, scratch, v[1], w[1]);
    store_lane(&sb[idx[2]], moves & 4, scratch, v[2], w[2]);
    store_lane(&sb[idx[3]], moves & 8, scratch, v[3], w[3]);
}

/* cr_sphere_solve's apply on the lanes: P = dt + n dn on a, -P on b; n x
 * dt turns them. */
FN_INLINE void apply4(side4 *A, side4 *B, v4 n, __m256d ra, __m256d rb, __m256d dn, v4 dt)
{
    v4 P = v4_madd(dt, n, dn), nt = v4_cross(n, dt);
    A->v = v4_madd(A->v, P, A->inv_mass);
    B->v = v4_madd(B->v, P, neg(B->inv_mass));
    A->w = v4_madd(A->w, nt, mul(neg(ra), A->inv_inertia));
    B->w = v4_madd(B->w, nt, mul(neg(rb), B->inv_inertia));
}

/* cr_sphere_warm_start's points on four lanes: quad q. */
FN_INLINE void warm4(cr_sphere_body *sb, const cr_sphere_quad *q)
{
    side4 A, B;
    load_side(sb, q->a, &A);
    load_side(sb, q->b, &B);
    v4 n = {load(q->nx), load(q->ny), load(q->nz)}, lt = {load(q->ltx), load(q->lty), load(q->ltz)};
    apply4(&A, &B, n, load(q->ra), load(q->rb), load(q->lambda_n), lt);
    store_side(sb, q->a, &A);
    store_side(sb, q->b, &B);
}

/* cr_sphere_solve's point on four lanes: quad q, the totals' tq (relax). */
FN_INLINE void solve4(cr_sphere_body *sb, cr_sphere_quad *q, cr_sphere_totals *tq, const cr_sphere_pass *pass)
{
    v4 n = {load(q->nx), load(q->ny), load(q->nz)};
    const __m256d zero = _mm256_setzero_pd(), one = _mm256_set1_pd(1.0);
    /* separation */
    __m256d sep = add(load(q->s0), v4_dot(n, load_shift_diff(pass->shift, q->a, q->b)));
    side4 A, B;
    load_side(sb, q->a, &A);
    load_side(sb, q->b, &B);
    __m256d ra = load(q->ra), rb = load(q->rb), mass_n = load(q->mass_n), mass_t = load(q->mass_t);
    __m256d mu = load(q->mu), lambda_n = load(q->lambda_n);
    v4 lambda_t = {load(q->ltx), load(q->lty), load(q->ltz)};
    /* the row's softness: speculative (apart), soft (use_bias) or rigid */
    __m256d apart = _mm256_cmp_pd(sep, zero, _CMP_GT_OQ);
    __m256d bias = zero, mass_scale = one, impulse_scale = zero;
    if (pass->use_bias) {
        /* soft[fixed] by a blend; fixed where a side cannot move */
        const cr_soft *s0f = &pass->soft[0], *s1f = &pass->soft[1];
        __m256d fixed = _mm256_or_pd(_mm256_cmp_pd(A.inv_mass, zero, _CMP_EQ_OQ),
                                     _mm256_cmp_pd(B.inv_mass, zero, _CMP_EQ_OQ));
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
    /* without a branch on whether a lane slides (a test of the lanes
     * taken or not at random in the pit cost more than the square root and
     * division: pit12); lanes that do not keep lt */
    __m256d scale =
        _mm256_blendv_pd(zero, _mm256_div_pd(limit, _mm256_sqrt_pd(l2)), _mm256_cmp_pd(limit, zero, _CMP_GT_OQ));
    lt = v4_blend(lt, v4_scale(lt, scale), over);
    v4 dt = v4_sub(lt, lambda_t);
    _mm256_storeu_pd(q->lambda_n, next);
    _mm256_storeu_pd(q->ltx, lt.x), _mm256_storeu_pd(q->lty, lt.y), _mm256_storeu_pd(q->ltz, lt.z);
    if (tq) {
        _mm256_storeu_pd(tq->n, add(load(tq->n), next));
        _mm256_storeu_pd(tq->tx, add(load(tq->tx), lt.x));
        _mm256_storeu_pd(tq->ty, add(load(tq->ty), lt.y));
        _mm256_storeu_pd(tq->tz, add(load(tq->tz), lt.z));
    }
    apply4(&A, &B, n, ra, rb, dn, dt);
    store_side(sb, q->a, &A);
    store_side(sb, q->b, &B);
}

CR_AVX2_FN void cr_sphere_warm_start_avx2(cr_sphere_body *sb, const cr_sphere_quad *q, uint32_t begin, uint32_t end)
{
    uint32_t k = begin;
    for (; k < end && k % 4; ++k) cr_sphere_warm_start(sb, q, k, k + 1);
    for (; k + 4 <= end; k += 4) warm4(sb, &q[k / 4]);
    cr_sphere_warm_start(sb, q, k, end);
}

CR_AVX2_FN void cr_sphere_solve_avx2(cr_sphere_body *sb, cr_sphere_quad *q, uint32_t begin, uint32_t end,
                                     const cr_sphere_pass *pass)
{
    uint32_t k = begin;
    for (; k < end && k % 4; ++k) cr_sphere_solve(sb, q, k, k + 1, pass);
    for (; k + 4 <= end; k += 4) solve4(sb, &q[k / 4], pass->totals ? &pass->totals[k / 4] : NULL, pass);
    cr_sphere_solve(sb, q, k, end, pass);
}

#else

void cr_sphere_warm_start_avx2(cr_sphere_body *sb, const cr_sphere_quad *q, uint32_t begin, uint32_t end)
{
    cr_sphere_warm_start(sb, q, begin, end);
}

void cr_sphere_solve_avx2(cr_sphere_body *sb, cr_sphere_quad *q, uint32_t begin, uint32_t end,
                          const cr_sphere_pass *pass)
{
    cr_sphere_solve(sb, q, begin, end, pass);
}

#endif
