/* The DEM's AVX2 lane helpers (src/dem_screen.c, src/dem_law.c,
 * src/dem_move.c); the build guard and the run-time question are
 * src/simd.h's. Every lane does the same IEEE operation in the same order
 * as the plain loops. Internal. */
#ifndef CAROM_DEM_AVX2_H
#define CAROM_DEM_AVX2_H

#include "simd.h"

#if CR_AVX2
/* image_axis (dem_internal.h) on four lanes: d > half ? d - L : d < -half ?
 * d + L : d, both tests on d (at most one holds). A lane of an axis that is
 * not periodic has half = +inf: neither test holds and d is kept. */
static CR_AVX2_FN inline __m256d dem_image4(__m256d d, __m256d L, __m256d half, __m256d nhalf)
{
    const __m256d gt = _mm256_cmp_pd(d, half, _CMP_GT_OQ), lt = _mm256_cmp_pd(d, nhalf, _CMP_LT_OQ);
    return _mm256_blendv_pd(_mm256_blendv_pd(d, _mm256_add_pd(d, L), lt), _mm256_sub_pd(d, L), gt);
}

/* Four rows of four doubles, transposed: c[k] holds column k. */
static CR_AVX2_FN inline void dem_transpose4(__m256d r0, __m256d r1, __m256d r2, __m256d r3, __m256d c[4])
{
    const __m256d a01 = _mm256_unpacklo_pd(r0, r1), b01 = _mm256_unpackhi_pd(r0, r1), a23 = _mm256_unpacklo_pd(r2, r3),
                  b23 = _mm256_unpackhi_pd(r2, r3);
    c[0] = _mm256_permute2f128_pd(a01, a23, 0x20), c[1] = _mm256_permute2f128_pd(b01, b23, 0x20);
    c[2] = _mm256_permute2f128_pd(a01, a23, 0x31), c[3] = _mm256_permute2f128_pd(b01, b23, 0x31);
}
#endif

#endif
