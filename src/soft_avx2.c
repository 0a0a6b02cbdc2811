/* The warm start and solve passes on AVX2 lanes, and the lanes' load and
 * unload (soft_avx2.h; docs/physics/substep.md, "SIMD lanes"). */
#include "soft_avx2.h"

#include <stddef.h>

#include "dem_avx2.h" /* dem_transpose4; simd.h's CR_AVX2 */
#include "lanes_avx2.h"
#include "prefetch.h"

#if CR_AVX2

/* A point's doubles from ra on: ra rb n t1 t2 (0-14), k (15-20), mass
 * (21-23), lambda (24-26), total (27-29), s0 (30), mu (31), the lanes'
 * fields 0-31 (soft_lanes.h); a body's: v w dp dq (0-11), inv_mass (12),
 * inv_inertia (13-21, rows). */
_Static_assert(sizeof(cr_vec3) == 3 * sizeof(double), "cr_vec3 is three doubles");
_Static_assert(offsetof(cr_soft_point, lambda) == offsetof(cr_soft_point, ra) + CR_LANE_LAMBDA * sizeof(double) &&
                   offsetof(cr_soft_point, total) == offsetof(cr_soft_point, ra) + CR_LANE_TOTAL * sizeof(double) &&
                   offsetof(cr_soft_point, s0) == offsetof(cr_soft_point, ra) + CR_LANE_S0 * sizeof(double) &&
                   offsetof(cr_soft_point, mu) == offsetof(cr_soft_point, ra) + CR_LANE_MU * sizeof(double) &&
                   offsetof(cr_soft_point, mass) == offsetof(cr_soft_point, ra) + CR_LANE_MASS * sizeof(double),
               "cr_soft_point's doubles from ra to mu are the lanes' fields 0-31");
_Static_assert(offsetof(cr_soft_body, inv_inertia) == 13 * sizeof(double) && sizeof(cr_soft_body) == 22 * sizeof(double),
               "cr_soft_body is 22 doubles");

/* v4 and its operations: lanes_avx2.h. The helpers below are called from
 * both passes: inlined whole (GCC otherwise kept apply and load_side out of
 * line, their vectors passed through the stack). CR_AVX2 implies GCC or
 * Clang (simd.h). */
#undef FN
#define FN static CR_AVX2_FN inline __attribute__((always_inline))

/* f[k] = double k of the four lanes' structs (bodies, or points from ra
 * on), for k in [4 q, 4 q + 4). */
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

/* Row j of block b: its fields (soft_lanes.h) */
FN double *block_row_w(cr_soft_lanes *l, const cr_soft_block *b, uint32_t j)
{
    return l->rows + (size_t)(b->row + j) * CR_LANE_FIELDS * 4;
}
FN const double *block_row(const cr_soft_lanes *l, const cr_soft_block *b, uint32_t j)
{
    return l->rows + (size_t)(b->row + j) * CR_LANE_FIELDS * 4;
}
FN __m256d field(const double *row, int f) { return _mm256_load_pd(row + 4 * f); }
FN v4 field3(const double *row, int f) { return (v4){field(row, f), field(row, f + 1), field(row, f + 2)}; }

/* The block's bodies on both sides. */
FN void load_block(cr_soft_body *bodies, const cr_soft_block *b, cr_soft_body *ba[4], cr_soft_body *bb[4], side4 *A,
                   side4 *B)
{
    for (int l = 0; l < 4; ++l) ba[l] = &bodies[b->a[l]], bb[l] = &bodies[b->b[l]];
    load_side((const cr_soft_body *const *)ba, A);
    load_side((const cr_soft_body *const *)bb, B);
}

/* A colour's blocks are consecutive in the rows, but their bodies lie
 * anywhere: those of the block this many ahead are asked for. */
#define AHEAD 2
FN void prefetch_bodies(const cr_soft_body *bodies, const cr_soft_block *b)
{
    for (int l = 0; l < 4; ++l) {
        const char *a = (const char *)&bodies[b->a[l]], *c = (const char *)&bodies[b->b[l]];
        CR_PREFETCH(a, 1), CR_PREFETCH(a + 64, 1), CR_PREFETCH(a + 128, 1);
        CR_PREFETCH(c, 1), CR_PREFETCH(c + 64, 1), CR_PREFETCH(c + 128, 1);
    }
}

CR_AVX2_FN void cr_soft_warm_lanes(cr_soft_body *bodies, const cr_soft_lanes *l, uint32_t begin, uint32_t end)
{
    for (uint32_t i = begin; i < end; ++i) {
        const cr_soft_block *b = &l->blocks[i];
        if (i + AHEAD < end) prefetch_bodies(bodies, b + AHEAD);
        cr_soft_body *ba[4], *bb[4];
        side4 A, B;
        load_block(bodies, b, ba, bb, &A, &B);
        const __m256d neg_imb = neg(B.inv_mass);
        for (uint32_t j = 0; j < b->len; ++j) {
            const double *row = block_row(l, b, j);
            v4 P = impulse(field3(row, CR_LANE_N), field3(row, CR_LANE_T1), field3(row, CR_LANE_T2),
                           field(row, CR_LANE_LAMBDA), field(row, CR_LANE_LAMBDA + 1), field(row, CR_LANE_LAMBDA + 2));
            apply(&A, &B, field3(row, CR_LANE_RA), field3(row, CR_LANE_RB), P, neg_imb);
        }
        store_side(ba, &A);
        store_side(bb, &B);
    }
}

CR_AVX2_FN void cr_soft_solve_lanes(cr_soft_body *bodies, cr_soft_lanes *l, uint32_t begin, uint32_t end, const cr_soft soft[2],
                         double inv_h, double push_speed, bool use_bias, bool accumulate)
{
    const __m256d zero = _mm256_setzero_pd(), one = _mm256_set1_pd(1.0), vh = _mm256_set1_pd(inv_h),
                  npush = _mm256_set1_pd(-push_speed);
    /* the softness of soft[0] and soft[1], picked per lane by the point's mask */
    const __m256d msbr0 = _mm256_set1_pd(soft[0].mass_scale * soft[0].bias_rate),
                  msbr1 = _mm256_set1_pd(soft[1].mass_scale * soft[1].bias_rate),
                  ms0 = _mm256_set1_pd(soft[0].mass_scale), ms1 = _mm256_set1_pd(soft[1].mass_scale),
                  is0 = _mm256_set1_pd(soft[0].impulse_scale), is1 = _mm256_set1_pd(soft[1].impulse_scale);
    for (uint32_t i = begin; i < end; ++i) {
        const cr_soft_block *b = &l->blocks[i];
        if (i + AHEAD < end) prefetch_bodies(bodies, b + AHEAD);
        cr_soft_body *ba[4], *bb[4];
        side4 A, B;
        load_block(bodies, b, ba, bb, &A, &B);
        const __m256d neg_imb = neg(B.inv_mass);
        for (uint32_t j = 0; j < b->len; ++j) {
            double *row = (double *)block_row(l, b, j);
            v4 ra = field3(row, CR_LANE_RA), rb = field3(row, CR_LANE_RB), n = field3(row, CR_LANE_N);
            __m256d lambda0 = field(row, CR_LANE_LAMBDA), s0 = field(row, CR_LANE_S0);
            /* separation */
            v4 da = v4_add(A.dp, v4_cross(A.dq, ra)), db = v4_add(B.dp, v4_cross(B.dq, rb));
            __m256d sep = add(s0, v4_dot(n, v4_sub(da, db)));
            /* the row's softness: speculative (apart), soft (use_bias) or rigid */
            __m256d apart = _mm256_cmp_pd(sep, zero, _CMP_GT_OQ);
            __m256d bias = zero, mass_scale = one, impulse_scale = zero;
            if (use_bias) {
                __m256d fixed = field(row, CR_LANE_FIXED);
                /* fmax(x, -v): -v where x is NaN */
                bias = _mm256_max_pd(mul(_mm256_blendv_pd(msbr0, msbr1, fixed), sep), npush);
                mass_scale = _mm256_blendv_pd(ms0, ms1, fixed);
                impulse_scale = _mm256_blendv_pd(is0, is1, fixed);
            }
            bias = _mm256_blendv_pd(bias, mul(sep, vh), apart);
            mass_scale = _mm256_blendv_pd(mass_scale, one, apart);
            impulse_scale = _mm256_blendv_pd(impulse_scale, zero, apart);
            /* the point's velocity in the rows */
            v4 t1 = field3(row, CR_LANE_T1), t2 = field3(row, CR_LANE_T2);
            v4 vrel = v4_sub(v4_add(A.v, v4_cross(A.w, ra)), v4_add(B.v, v4_cross(B.w, rb)));
            __m256d u0 = v4_dot(n, vrel), u1 = v4_dot(t1, vrel), u2 = v4_dot(t2, vrel);
            /* normal */
            __m256d next = sub(sub(lambda0, mul(field(row, CR_LANE_MASS), add(mul(mass_scale, u0), bias))),
                               mul(impulse_scale, lambda0));
            next = _mm256_blendv_pd(zero, next, _mm256_cmp_pd(next, zero, _CMP_GT_OQ));
            __m256d d0 = sub(next, lambda0);
            lambda0 = next;
            __m256d k1 = field(row, CR_LANE_K + 1), k2 = field(row, CR_LANE_K + 2), k4 = field(row, CR_LANE_K + 4);
            u0 = add(u0, mul(field(row, CR_LANE_K), d0)), u1 = add(u1, mul(k1, d0)), u2 = add(u2, mul(k2, d0));
            /* friction t1, t2 within mu lambda_n */
            __m256d limit = mul(field(row, CR_LANE_MU), lambda0);
            __m256d lambda1 = field(row, CR_LANE_LAMBDA + 1);
            next = clamp(sub(lambda1, mul(field(row, CR_LANE_MASS + 1), u1)), limit);
            __m256d d1 = sub(next, lambda1);
            lambda1 = next;
            u0 = add(u0, mul(k1, d1)), u1 = add(u1, mul(field(row, CR_LANE_K + 3), d1)), u2 = add(u2, mul(k4, d1));
            __m256d lambda2 = field(row, CR_LANE_LAMBDA + 2);
            next = clamp(sub(lambda2, mul(field(row, CR_LANE_MASS + 2), u2)), limit);
            __m256d d2 = sub(next, lambda2);
            lambda2 = next;
            _mm256_store_pd(row + 4 * CR_LANE_LAMBDA, lambda0);
            _mm256_store_pd(row + 4 * (CR_LANE_LAMBDA + 1), lambda1);
            _mm256_store_pd(row + 4 * (CR_LANE_LAMBDA + 2), lambda2);
            if (accumulate) {
                double *total = row + 4 * CR_LANE_TOTAL;
                _mm256_store_pd(total, add(_mm256_load_pd(total), lambda0));
                _mm256_store_pd(total + 4, add(_mm256_load_pd(total + 4), lambda1));
                _mm256_store_pd(total + 8, add(_mm256_load_pd(total + 8), lambda2));
            }
            apply(&A, &B, ra, rb, impulse(n, t1, t2, d0, d1, d2), neg_imb);
        }
        store_side(ba, &A);
        store_side(bb, &B);
    }
}

/* The four lanes' points of row j: doubles from ra on. */
FN void row_points(const cr_soft_point *p, const cr_soft_block *b, uint32_t j, double *pt[4])
{
    for (int ln = 0; ln < 4; ++ln) pt[ln] = (double *)&p[b->first[ln] + j].ra.x;
}

/* k_entry of cr_soft_prepare: m d_i . d_j + (r_a x d_i) . I_a^-1 (r_a x d_j) + (b's) */
FN __m256d k_entry(__m256d m, v4 di, v4 dj, v4 cai, v4 iaj, v4 cbi, v4 ibj)
{
    return add(add(mul(m, v4_dot(di, dj)), v4_dot(cai, iaj)), v4_dot(cbi, ibj));
}

/* 1 / k where k > 0, else 0 */
FN __m256d inverse(__m256d k)
{
    __m256d zero = _mm256_setzero_pd();
    return _mm256_blendv_pd(zero, _mm256_div_pd(_mm256_set1_pd(1.0), k), _mm256_cmp_pd(k, zero, _CMP_GT_OQ));
}

/* cr_soft_prepare on the row's lanes: K and the effective masses (fields
 * 15-23) from the arms and axes and the bodies A, B. */
FN void prepare_row(double *row, const side4 *A, const side4 *B)
{
    v4 ra = field3(row, CR_LANE_RA), rb = field3(row, CR_LANE_RB);
    v4 n = field3(row, CR_LANE_N), t1 = field3(row, CR_LANE_T1), t2 = field3(row, CR_LANE_T2);
    v4 ca0 = v4_cross(ra, n), ca1 = v4_cross(ra, t1), ca2 = v4_cross(ra, t2);
    v4 cb0 = v4_cross(rb, n), cb1 = v4_cross(rb, t1), cb2 = v4_cross(rb, t2);
    v4 ia0 = m3_mul(A->inertia, ca0), ia1 = m3_mul(A->inertia, ca1), ia2 = m3_mul(A->inertia, ca2);
    v4 ib0 = m3_mul(B->inertia, cb0), ib1 = m3_mul(B->inertia, cb1), ib2 = m3_mul(B->inertia, cb2);
    __m256d m = add(A->inv_mass, B->inv_mass);
    __m256d k[6] = {k_entry(m, n, n, ca0, ia0, cb0, ib0),     k_entry(m, n, t1, ca0, ia1, cb0, ib1),
                    k_entry(m, n, t2, ca0, ia2, cb0, ib2),    k_entry(m, t1, t1, ca1, ia1, cb1, ib1),
                    k_entry(m, t1, t2, ca1, ia2, cb1, ib2),   k_entry(m, t2, t2, ca2, ia2, cb2, ib2)};
    for (int r = 0; r < 6; ++r) _mm256_store_pd(row + 4 * (CR_LANE_K + r), k[r]);
    _mm256_store_pd(row + 4 * CR_LANE_MASS, inverse(k[0]));
    _mm256_store_pd(row + 4 * (CR_LANE_MASS + 1), inverse(k[3]));
    _mm256_store_pd(row + 4 * (CR_LANE_MASS + 2), inverse(k[5]));
}

CR_AVX2_FN void cr_soft_lanes_load(cr_soft_lanes *l, cr_soft_body *bodies, const cr_soft_point *p, uint32_t begin,
                                   uint32_t end)
{
    for (uint32_t i = begin; i < end; ++i) {
        const cr_soft_block *b = &l->blocks[i];
        cr_soft_body *ba[4], *bb[4];
        side4 A, B;
        load_block(bodies, b, ba, bb, &A, &B);
        for (uint32_t j = 0; j < b->len; ++j) {
            double *pt[4], *row = block_row_w(l, b, j);
            row_points(p, b, j, pt);
            /* the packed point's doubles but K and the masses (0-15,
             * 24-31; field 15, k_nn, is overwritten) */
            for (int q = 0; q < CR_LANE_FIXED; q += 4) {
                if (q == 16 || q == 20) continue;
                __m256d f[4];
                gather4((const double *const *)pt, q, f);
                for (int r = 0; r < 4; ++r) _mm256_store_pd(row + 4 * (q + r), f[r]);
            }
            prepare_row(row, &A, &B);
            for (int ln = 0; ln < 4; ++ln) row[4 * CR_LANE_FIXED + ln] = p[b->first[ln] + j].fixed ? -0.0 : 0.0;
        }
    }
}

CR_AVX2_FN void cr_soft_lanes_unload(const cr_soft_lanes *l, cr_soft_point *p, uint32_t begin, uint32_t end)
{
    for (uint32_t i = begin; i < end; ++i) {
        const cr_soft_block *b = &l->blocks[i];
        for (uint32_t j = 0; j < b->len; ++j) {
            double *pt[4];
            const double *row = block_row(l, b, j);
            row_points(p, b, j, pt);
            /* fields 20-31: the masses (restitution reads mass[0]), the
             * lambdas and totals, and k_22, s0 and mu as they were; the
             * packed point's other entries of K stay unset (nothing reads
             * them after the substeps) */
            for (int q = CR_LANE_K + 5; q < CR_LANE_FIXED; q += 4) {
                __m256d f[4];
                dem_transpose4(field(row, q), field(row, q + 1), field(row, q + 2), field(row, q + 3), f);
                for (int ln = 0; ln < 4; ++ln) _mm256_storeu_pd(pt[ln] + q, f[ln]);
            }
        }
    }
}

#else

void cr_soft_lanes_load(cr_soft_lanes *l, cr_soft_body *bodies, const cr_soft_point *p, uint32_t begin, uint32_t end)
{
    (void)l, (void)bodies, (void)p, (void)begin, (void)end;
}

void cr_soft_lanes_unload(const cr_soft_lanes *l, cr_soft_point *p, uint32_t begin, uint32_t end)
{
    (void)l, (void)p, (void)begin, (void)end;
}

void cr_soft_warm_lanes(cr_soft_body *bodies, const cr_soft_lanes *l, uint32_t begin, uint32_t end)
{
    (void)bodies, (void)l, (void)begin, (void)end;
}

void cr_soft_solve_lanes(cr_soft_body *bodies, cr_soft_lanes *l, uint32_t begin, uint32_t end, const cr_soft soft[2],
                         double inv_h, double push_speed, bool use_bias, bool accumulate)
{
    (void)bodies, (void)l, (void)begin, (void)end, (void)soft, (void)inv_h, (void)push_speed, (void)use_bias,
        (void)accumulate;
}

#endif
