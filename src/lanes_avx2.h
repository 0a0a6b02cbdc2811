/* Four doubles a lane (AVX2): the scalar vector operations of
 * carom/math.h lane by lane, each the same IEEE operations in the same
 * order as its scalar twin (no fused multiply-add: simd.h), so that a
 * kernel on lanes gives the plain kernel's bits. Included by the solvers'
 * AVX2 files (soft_avx2.c, sphere_avx2.c) inside their CR_AVX2 guard. */
#ifndef CAROM_LANES_AVX2_H
#define CAROM_LANES_AVX2_H

#include "simd.h"

#if CR_AVX2
#include <immintrin.h>

#define FN static CR_AVX2_FN inline

typedef struct v4 {
    __m256d x, y, z;
} v4;

FN __m256d add(__m256d a, __m256d b) { return _mm256_add_pd(a, b); }
FN __m256d sub(__m256d a, __m256d b) { return _mm256_sub_pd(a, b); }
FN __m256d mul(__m256d a, __m256d b) { return _mm256_mul_pd(a, b); }
FN __m256d neg(__m256d a) { return _mm256_xor_pd(a, _mm256_set1_pd(-0.0)); }
FN v4 v4_add(v4 a, v4 b) { return (v4){add(a.x, b.x), add(a.y, b.y), add(a.z, b.z)}; }
FN v4 v4_sub(v4 a, v4 b) { return (v4){sub(a.x, b.x), sub(a.y, b.y), sub(a.z, b.z)}; }
/* cr_v3_cross, cr_v3_dot, cr_v3_madd, cr_v3_scale, cr_m3_mul_v lane by lane, the same order */
FN v4 v4_cross(v4 a, v4 b)
{
    return (v4){sub(mul(a.y, b.z), mul(a.z, b.y)), sub(mul(a.z, b.x), mul(a.x, b.z)), sub(mul(a.x, b.y), mul(a.y, b.x))};
}
FN __m256d v4_dot(v4 a, v4 b) { return add(add(mul(a.x, b.x), mul(a.y, b.y)), mul(a.z, b.z)); }
FN v4 v4_madd(v4 a, v4 b, __m256d s) { return (v4){add(a.x, mul(b.x, s)), add(a.y, mul(b.y, s)), add(a.z, mul(b.z, s))}; }
FN v4 v4_scale(v4 a, __m256d s) { return (v4){mul(a.x, s), mul(a.y, s), mul(a.z, s)}; }
FN v4 m3_mul(const __m256d m[9], v4 v)
{
    return (v4){add(add(mul(m[0], v.x), mul(m[1], v.y)), mul(m[2], v.z)),
                add(add(mul(m[3], v.x), mul(m[4], v.y)), mul(m[5], v.z)),
                add(add(mul(m[6], v.x), mul(m[7], v.y)), mul(m[8], v.z))};
}
/* lane by lane: b where m's lane is set, else a */
FN v4 v4_blend(v4 a, v4 b, __m256d m)
{
    return (v4){_mm256_blendv_pd(a.x, b.x, m), _mm256_blendv_pd(a.y, b.y, m), _mm256_blendv_pd(a.z, b.z, m)};
}

#endif
#endif
