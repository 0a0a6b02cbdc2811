/* The sphere points' warm start and solve pass on AVX-512 lanes
 * (sphere_points.h; docs/physics/substep.md, "Spheres"): sphere_lanes.h's
 * kernels on eight lanes, two quads of one colour at a time (a field's
 * row of the eight points is the two quads' rows side by side), the
 * bodies' rows gathered by an 8x4 transpose and scattered back by its
 * inverse. Half the instructions a point of the four-lane path, and no
 * spills (32 registers). The same IEEE operations in the same order as the
 * plain kernels (no fused multiply-add: simd.h), so every path gives the
 * same bits. */
#include "sphere_points.h"

#include <stddef.h>

#include "simd.h"

#if CR_AVX2 /* GCC or Clang on x86-64: a function may target AVX-512 */
#include <immintrin.h>

#define CR_AVX512_FN __attribute__((target("avx512f")))
#define FN static CR_AVX512_FN inline
#define LANES_FN FN __attribute__((always_inline))

_Static_assert(sizeof(cr_sphere_body) == 8 * sizeof(double) && sizeof(cr_sphere_shift) == 4 * sizeof(double),
               "a body is two rows of four doubles, a shift one (sphere_avx2.c)");

typedef __m512d vd;
typedef __mmask8 vmask;
typedef struct vv {
    __m512d x, y, z;
} vv;

FN __m512d add(__m512d a, __m512d b) { return _mm512_add_pd(a, b); }
FN __m512d sub(__m512d a, __m512d b) { return _mm512_sub_pd(a, b); }
FN __m512d mul(__m512d a, __m512d b) { return _mm512_mul_pd(a, b); }
FN __m512d vdiv(__m512d a, __m512d b) { return _mm512_div_pd(a, b); }
FN __m512d vsqrt(__m512d a) { return _mm512_sqrt_pd(a); }
/* as _mm256_max_pd: b where either is NaN */
FN __m512d vmax(__m512d a, __m512d b) { return _mm512_max_pd(a, b); }
FN __m512d set1(double x) { return _mm512_set1_pd(x); }
FN __m512d zero(void) { return _mm512_setzero_pd(); }
/* the sign flipped (not 0 - a: -0 for 0), in AVX-512F's integer xor */
FN __m512d neg(__m512d a)
{
    return _mm512_castsi512_pd(_mm512_xor_si512(_mm512_castpd_si512(a), _mm512_set1_epi64(INT64_MIN)));
}
FN __mmask8 gt(__m512d a, __m512d b) { return _mm512_cmp_pd_mask(a, b, _CMP_GT_OQ); }
FN __mmask8 eq(__m512d a, __m512d b) { return _mm512_cmp_pd_mask(a, b, _CMP_EQ_OQ); }
FN __mmask8 mask_or(__mmask8 a, __mmask8 b) { return (__mmask8)(a | b); }
FN __m512d blend(__m512d a, __m512d b, __mmask8 m) { return _mm512_mask_blend_pd(m, a, b); }
/* lanes_avx2.h's v4 operations on eight lanes, the same order */
FN vv vv_add(vv a, vv b) { return (vv){add(a.x, b.x), add(a.y, b.y), add(a.z, b.z)}; }
FN vv vv_sub(vv a, vv b) { return (vv){sub(a.x, b.x), sub(a.y, b.y), sub(a.z, b.z)}; }
FN vv vv_cross(vv a, vv b)
{
    return (vv){sub(mul(a.y, b.z), mul(a.z, b.y)), sub(mul(a.z, b.x), mul(a.x, b.z)), sub(mul(a.x, b.y), mul(a.y, b.x))};
}
FN __m512d vv_dot(vv a, vv b) { return add(add(mul(a.x, b.x), mul(a.y, b.y)), mul(a.z, b.z)); }
FN vv vv_madd(vv a, vv b, __m512d s) { return (vv){add(a.x, mul(b.x, s)), add(a.y, mul(b.y, s)), add(a.z, mul(b.z, s))}; }
FN vv vv_scale(vv a, __m512d s) { return (vv){mul(a.x, s), mul(a.y, s), mul(a.z, s)}; }
FN vv vv_blend(vv a, vv b, __mmask8 m) { return (vv){blend(a.x, b.x, m), blend(a.y, b.y, m), blend(a.z, b.z, m)}; }

/* Two rows of four side by side: lanes 0-3 from lo, 4-7 from hi. */
LANES_FN __m512d join(const double *lo, const double *hi)
{
    return _mm512_insertf64x4(_mm512_castpd256_pd512(_mm256_loadu_pd(lo)), _mm256_loadu_pd(hi), 1);
}
/* A field of the two quads at q: lanes 0-3 quad q[0]'s, 4-7 q[1]'s. */
#define FIELD(q, f) join((q)[0].f, (q)[1].f)
#define STORE(q, f, x) store_halves((q)[0].f, (q)[1].f, (x))
LANES_FN void store_halves(double *lo, double *hi, __m512d x)
{
    _mm256_storeu_pd(lo, _mm512_castpd512_pd256(x));
    _mm256_storeu_pd(hi, _mm512_extractf64x4_pd(x, 1));
}

/* Eight rows of four doubles (row[i]: lane i's), transposed: c[j] holds
 * double j of every row. The rows go in as pairs (0, 2), (1, 3), (4, 6),
 * (5, 7), so that the unpacks and one 128-bit shuffle each leave the lanes
 * in order. */
LANES_FN void transpose8x4(const __m512d r02, const __m512d r13, const __m512d r46, const __m512d r57, __m512d c[4])
{
    const __m512d lo_a = _mm512_unpacklo_pd(r02, r13), hi_a = _mm512_unpackhi_pd(r02, r13);
    const __m512d lo_b = _mm512_unpacklo_pd(r46, r57), hi_b = _mm512_unpackhi_pd(r46, r57);
    c[0] = _mm512_shuffle_f64x2(lo_a, lo_b, 0x88), c[2] = _mm512_shuffle_f64x2(lo_a, lo_b, 0xdd);
    c[1] = _mm512_shuffle_f64x2(hi_a, hi_b, 0x88), c[3] = _mm512_shuffle_f64x2(hi_a, hi_b, 0xdd);
}

/* The eight lanes' body indices on side a (side_b 0) or b. */
LANES_FN void side_index(const cr_sphere_quad *q, int side_b, uint32_t idx[8])
{
    for (int l = 0; l < 4; ++l) {
        idx[l] = side_b ? q[0].b[l] : q[0].a[l];
        idx[4 + l] = side_b ? q[1].b[l] : q[1].a[l];
    }
}

typedef struct side {
    vv v, w;
    __m512d inv_mass, inv_inertia;
} side;

LANES_FN void load_side(const cr_sphere_body *sb, const cr_sphere_quad *q, int side_b, side *s)
{
    uint32_t i[8];
    side_index(q, side_b, i);
    __m512d f[4], g[4];
    transpose8x4(join(&sb[i[0]].v.x, &sb[i[2]].v.x), join(&sb[i[1]].v.x, &sb[i[3]].v.x),
                 join(&sb[i[4]].v.x, &sb[i[6]].v.x), join(&sb[i[5]].v.x, &sb[i[7]].v.x), f);
    transpose8x4(join(&sb[i[0]].w.x, &sb[i[2]].w.x), join(&sb[i[1]].w.x, &sb[i[3]].w.x),
                 join(&sb[i[4]].w.x, &sb[i[6]].w.x), join(&sb[i[5]].w.x, &sb[i[7]].w.x), g);
    s->v = (vv){f[0], f[1], f[2]}, s->inv_mass = f[3];
    s->w = (vv){g[0], g[1], g[2]}, s->inv_inertia = g[3];
}

/* The eight lanes' dp_a - dp_b: each lane's rows subtracted, then
 * transposed (as sphere_avx2.c's). */
LANES_FN vv load_shift_diff(const cr_sphere_shift *sh, const cr_sphere_quad *q)
{
    uint32_t a[8], b[8];
    side_index(q, 0, a);
    side_index(q, 1, b);
    __m512d f[4];
    transpose8x4(sub(join(&sh[a[0]].dp.x, &sh[a[2]].dp.x), join(&sh[b[0]].dp.x, &sh[b[2]].dp.x)),
                 sub(join(&sh[a[1]].dp.x, &sh[a[3]].dp.x), join(&sh[b[1]].dp.x, &sh[b[3]].dp.x)),
                 sub(join(&sh[a[4]].dp.x, &sh[a[6]].dp.x), join(&sh[b[4]].dp.x, &sh[b[6]].dp.x)),
                 sub(join(&sh[a[5]].dp.x, &sh[a[7]].dp.x), join(&sh[b[5]].dp.x, &sh[b[7]].dp.x)), f);
    return (vv){f[0], f[1], f[2]};
}

/* transpose8x4's inverse for two of the rows: the rows of lanes l and
 * l + 2 (l = 0, 1, 4, 5) from the unpacked pairs lo (x, y) and hi (z, w)
 * of lanes of l's parity, at 128-bit lane l / 2 (0 or 2). */
LANES_FN __m512d rows_of(__m512d xy, __m512d zw, int half)
{
    const __m512i first = _mm512_set_epi64(11, 10, 3, 2, 9, 8, 1, 0), second = _mm512_set_epi64(15, 14, 7, 6, 13, 12, 5, 4);
    return _mm512_permutex2var_pd(xy, half ? second : first, zw);
}

/* Writes a lane's v and w rows back to its body where it moves; a body
 * that does not is only read (one colour's points share no moving body,
 * but may share one that does not): its rows go to scratch. */
LANES_FN void store_lane(cr_sphere_body *b, int moves, double *scratch, __m256d v, __m256d w)
{
    double *d = moves ? &b->v.x : scratch;
    _mm256_storeu_pd(d, v);
    _mm256_storeu_pd(d + 4, w);
}

LANES_FN void store_side(cr_sphere_body *sb, const cr_sphere_quad *q, int side_b, const side *s)
{
    uint32_t i[8];
    side_index(q, side_b, i);
    /* unpacked: (x, y) and (z, m) of the even lanes, of the odd ones */
    const __m512d vxy_e = _mm512_unpacklo_pd(s->v.x, s->v.y), vxy_o = _mm512_unpackhi_pd(s->v.x, s->v.y);
    const __m512d vzm_e = _mm512_unpacklo_pd(s->v.z, s->inv_mass), vzm_o = _mm512_unpackhi_pd(s->v.z, s->inv_mass);
    const __m512d wxy_e = _mm512_unpacklo_pd(s->w.x, s->w.y), wxy_o = _mm512_unpackhi_pd(s->w.x, s->w.y);
    const __m512d wzi_e = _mm512_unpacklo_pd(s->w.z, s->inv_inertia),
                  wzi_o = _mm512_unpackhi_pd(s->w.z, s->inv_inertia);
    /* the rows of lanes (0, 2), (4, 6), (1, 3), (5, 7), two to a register */
    const __m512d v02 = rows_of(vxy_e, vzm_e, 0), v46 = rows_of(vxy_e, vzm_e, 1);
    const __m512d v13 = rows_of(vxy_o, vzm_o, 0), v57 = rows_of(vxy_o, vzm_o, 1);
    const __m512d w02 = rows_of(wxy_e, wzi_e, 0), w46 = rows_of(wxy_e, wzi_e, 1);
    const __m512d w13 = rows_of(wxy_o, wzi_o, 0), w57 = rows_of(wxy_o, wzi_o, 1);
    int moves = gt(s->inv_mass, zero());
    double scratch[8];
    /* lane by lane, written out (as sphere_avx2.c's) */
    store_lane(&sb[i[0]], moves & 1, scratch, _mm512_castpd512_pd256(v02), _mm512_castpd512_pd256(w02));
    store_lane(&sb[i[1]], moves & 2, scratch, _mm512_castpd512_pd256(v13), _mm512_castpd512_pd256(w13));
    store_lane(&sb[i[2]], moves & 4, scratch, _mm512_extractf64x4_pd(v02, 1), _mm512_extractf64x4_pd(w02, 1));
    store_lane(&sb[i[3]], moves & 8, scratch, _mm512_extractf64x4_pd(v13, 1), _mm512_extractf64x4_pd(w13, 1));
    store_lane(&sb[i[4]], moves & 16, scratch, _mm512_castpd512_pd256(v46), _mm512_castpd512_pd256(w46));
    store_lane(&sb[i[5]], moves & 32, scratch, _mm512_castpd512_pd256(v57), _mm512_castpd512_pd256(w57));
    store_lane(&sb[i[6]], moves & 64, scratch, _mm512_extractf64x4_pd(v46, 1), _mm512_extractf64x4_pd(w46, 1));
    store_lane(&sb[i[7]], moves & 128, scratch, _mm512_extractf64x4_pd(v57, 1), _mm512_extractf64x4_pd(w57, 1));
}

#include "sphere_lanes.h"

bool cr_sphere_lanes8(void) { return __builtin_cpu_supports("avx512f"); }

/* Points outside whole pairs of quads: the four-lane path (a quad) and the
 * plain one. */
CR_AVX512_FN void cr_sphere_warm_start_avx512(cr_sphere_body *sb, const cr_sphere_quad *q, uint32_t begin,
                                              uint32_t end)
{
    uint32_t k = begin;
    for (; k < end && k % 4; ++k) cr_sphere_warm_start(sb, q, k, k + 1);
    for (; k + 8 <= end; k += 8) lanes_warm(sb, &q[k / 4]);
    cr_sphere_warm_start_avx2(sb, q, k, end);
}

CR_AVX512_FN void cr_sphere_solve_avx512(cr_sphere_body *sb, cr_sphere_quad *q, uint32_t begin, uint32_t end,
                                         const cr_sphere_pass *pass)
{
    uint32_t k = begin;
    for (; k < end && k % 4; ++k) cr_sphere_solve(sb, q, k, k + 1, pass);
    for (; k + 8 <= end; k += 8) lanes_solve(sb, &q[k / 4], pass->totals ? &pass->totals[k / 4] : NULL, pass);
    cr_sphere_solve_avx2(sb, q, k, end, pass);
}

#else

bool cr_sphere_lanes8(void) { return false; }

void cr_sphere_warm_start_avx512(cr_sphere_body *sb, const cr_sphere_quad *q, uint32_t begin, uint32_t end)
{
    cr_sphere_warm_start(sb, q, begin, end);
}

void cr_sphere_solve_avx512(cr_sphere_body *sb, cr_sphere_quad *q, uint32_t begin, uint32_t end,
                            const cr_sphere_pass *pass)
{
    cr_sphere_solve(sb, q, begin, end, pass);
}

#endif
