/* sin and cos of one angle together, for the hills' waves (surface_builtin.c):
 * a table of sin and cos at the 64 angles k 2 pi / 64 and angle addition,
 *
 *   sin(t_k + d) = sin t_k + (sin t_k (cos d - 1) + cos t_k sin d),
 *   cos(t_k + d) = cos t_k + (cos t_k (cos d - 1) - sin t_k sin d),
 *
 * with t_k the table angle nearest t, so |d| <= pi / 64, where Taylor's
 * series to d^7 (sin) and d^8 (cos) leave out terms below 5e-18 (the next
 * ones: d^9 / 9! <= 4.5e-18, d^10 / 10! <= 2e-20). t - k 2 pi / 64 is
 * computed with 2 pi / 64 split in three (Cody and Waite): the first two
 * parts have 33 bits, so k times them is exact for |k| < 2^20 and the
 * subtractions cancel exactly. The table entries and the final additions
 * each round once: within 1.1e-16 of libm's sin and cos over 2e7 random
 * angles (tests/test_sincos_table.c allows 2.3e-16), against libm's
 * sincos, which checks and reduces for any argument (about 20 ns here, a
 * third of a hills evaluation).
 * Beyond |t| = 1e5 (k past 2^20) it is libm's sin and cos.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "sincos_table.h"
#include "simd.h"

#if defined(__SSE2__) /* x86-64's baseline: two doubles a vector, no target attribute */
#include <emmintrin.h>
#endif

/* The method's constants, one set for the scalar and the two-lane paths
 * (the same bits): the table's reach, 64 / (2 pi), the rounding shift
 * (|t inv| < 2^51: adding 1.5 2^52 leaves no fraction), 2 pi / 64 in three
 * parts (Cody and Waite), and the Taylor coefficients of sin d - d and
 * cos d - 1. */
#define SINCOS_REACH 1e5
static const double sc_inv = 10.185916357881302, sc_shift = 0x1.8p52;
static const double sc_p1 = 0x1.921fb544p-4, sc_p2 = 0x1.0b4611a6p-38, sc_p3 = 0x1.3198a2e037073p-73;
static const double sc_s3 = -1.0 / 6, sc_s5 = 1.0 / 120, sc_s7 = -1.0 / 5040;
static const double sc_c2 = -0.5, sc_c4 = 1.0 / 24, sc_c6 = -1.0 / 720, sc_c8 = 1.0 / 40320;

/* sin and cos of k 2 pi / 64, rounded to nearest (mpmath, 200 bits). */
static const double table[64][2] = {
    {0.0, 1.0},
    {0.0980171403295606, 0.9951847266721969},
    {0.19509032201612828, 0.9807852804032304},
    {0.2902846772544624, 0.9569403357322088},
    {0.3826834323650898, 0.9238795325112867},
    {0.47139673682599764, 0.881921264348355},
    {0.5555702330196022, 0.8314696123025452},
    {0.6343932841636455, 0.773010453362737},
    {0.7071067811865476, 0.7071067811865476},
    {0.773010453362737, 0.6343932841636455},
    {0.8314696123025452, 0.5555702330196022},
    {0.881921264348355, 0.47139673682599764},
    {0.9238795325112867, 0.3826834323650898},
    {0.9569403357322088, 0.2902846772544624},
    {0.9807852804032304, 0.19509032201612828},
    {0.9951847266721969, 0.0980171403295606},
    {1.0, 0.0},
    {0.9951847266721969, -0.0980171403295606},
    {0.9807852804032304, -0.19509032201612828},
    {0.9569403357322088, -0.2902846772544624},
    {0.9238795325112867, -0.3826834323650898},
    {0.881921264348355, -0.47139673682599764},
    {0.8314696123025452, -0.5555702330196022},
    {0.773010453362737, -0.6343932841636455},
    {0.7071067811865476, -0.7071067811865476},
    {0.6343932841636455, -0.773010453362737},
    {0.5555702330196022, -0.8314696123025452},
    {0.47139673682599764, -0.881921264348355},
    {0.3826834323650898, -0.9238795325112867},
    {0.2902846772544624, -0.9569403357322088},
    {0.19509032201612828, -0.9807852804032304},
    {0.0980171403295606, -0.9951847266721969},
    {0.0, -1.0},
    {-0.0980171403295606, -0.9951847266721969},
    {-0.19509032201612828, -0.9807852804032304},
    {-0.2902846772544624, -0.9569403357322088},
    {-0.3826834323650898, -0.9238795325112867},
    {-0.47139673682599764, -0.881921264348355},
    {-0.5555702330196022, -0.8314696123025452},
    {-0.6343932841636455, -0.773010453362737},
    {-0.7071067811865476, -0.7071067811865476},
    {-0.773010453362737, -0.6343932841636455},
    {-0.8314696123025452, -0.5555702330196022},
    {-0.881921264348355, -0.47139673682599764},
    {-0.9238795325112867, -0.3826834323650898},
    {-0.9569403357322088, -0.2902846772544624},
    {-0.9807852804032304, -0.19509032201612828},
    {-0.9951847266721969, -0.0980171403295606},
    {-1.0, 0.0},
    {-0.9951847266721969, 0.0980171403295606},
    {-0.9807852804032304, 0.19509032201612828},
    {-0.9569403357322088, 0.2902846772544624},
    {-0.9238795325112867, 0.3826834323650898},
    {-0.881921264348355, 0.47139673682599764},
    {-0.8314696123025452, 0.5555702330196022},
    {-0.773010453362737, 0.6343932841636455},
    {-0.7071067811865476, 0.7071067811865476},
    {-0.6343932841636455, 0.773010453362737},
    {-0.5555702330196022, 0.8314696123025452},
    {-0.47139673682599764, 0.881921264348355},
    {-0.3826834323650898, 0.9238795325112867},
    {-0.2902846772544624, 0.9569403357322088},
    {-0.19509032201612828, 0.9807852804032304},
    {-0.0980171403295606, 0.9951847266721969},
};

void cr_sincos(double t, double *s, double *c)
{
    if (!(fabs(t) <= SINCOS_REACH)) { /* and NaN */
        *s = sin(t);
        *c = cos(t);
        return;
    }
    double k = (t * sc_inv + sc_shift) - sc_shift; /* t / (2 pi / 64) to the nearest integer */
    double d = ((t - k * sc_p1) - k * sc_p2) - k * sc_p3, d2 = d * d;
    const double *e = table[(int64_t)k & 63];
    double sd = d + d * d2 * (sc_s3 + d2 * (sc_s5 + d2 * sc_s7));
    double cm = d2 * (sc_c2 + d2 * (sc_c4 + d2 * (sc_c6 + d2 * sc_c8))); /* cos d - 1 */
    *s = e[0] + (e[0] * cm + e[1] * sd);
    *c = e[1] + (e[1] * cm - e[0] * sd);
}

/* cr_sincos2 on the two lanes, once for the baseline target and once for
 * AVX2 (cr_sincos2_avx2: the same operations, VEX-encoded, its constants
 * broadcast from memory in one instruction where SSE2 takes two); false,
 * nothing done, where the angles need libm's. */
static inline bool sincos2_lanes(double tx, double ty, double s[2], double c[2])
{
#if defined(__SSE2__)
    if (fabs(tx) <= SINCOS_REACH && fabs(ty) <= SINCOS_REACH) {
        /* cr_sincos's operations, in its order, on the two lanes: the same
         * bits (no fused multiply-add: SSE2 has none) */
        const __m128d inv = _mm_set1_pd(sc_inv), shift = _mm_set1_pd(sc_shift);
        const __m128d p1 = _mm_set1_pd(sc_p1), p2 = _mm_set1_pd(sc_p2), p3 = _mm_set1_pd(sc_p3);
        __m128d t = _mm_set_pd(ty, tx);
        __m128d k = _mm_sub_pd(_mm_add_pd(_mm_mul_pd(t, inv), shift), shift);
        __m128d d = _mm_sub_pd(_mm_sub_pd(_mm_sub_pd(t, _mm_mul_pd(k, p1)), _mm_mul_pd(k, p2)), _mm_mul_pd(k, p3));
        __m128d d2 = _mm_mul_pd(d, d);
        /* k is a whole number below 2^21 in size: its int32 has the same low six bits as its int64 */
        __m128i ki = _mm_cvttpd_epi32(k);
        int k0 = _mm_cvtsi128_si32(ki), k1 = _mm_cvtsi128_si32(_mm_shuffle_epi32(ki, 1));
        __m128d e0 = _mm_loadu_pd(table[k0 & 63]), e1 = _mm_loadu_pd(table[k1 & 63]);
        __m128d es = _mm_unpacklo_pd(e0, e1), ec = _mm_unpackhi_pd(e0, e1); /* sin t_k, cos t_k */
        __m128d sp = _mm_add_pd(_mm_set1_pd(sc_s5), _mm_mul_pd(d2, _mm_set1_pd(sc_s7)));
        sp = _mm_add_pd(_mm_set1_pd(sc_s3), _mm_mul_pd(d2, sp));
        __m128d sd = _mm_add_pd(d, _mm_mul_pd(_mm_mul_pd(d, d2), sp));
        __m128d cp = _mm_add_pd(_mm_set1_pd(sc_c6), _mm_mul_pd(d2, _mm_set1_pd(sc_c8)));
        cp = _mm_add_pd(_mm_set1_pd(sc_c4), _mm_mul_pd(d2, cp));
        cp = _mm_add_pd(_mm_set1_pd(sc_c2), _mm_mul_pd(d2, cp));
        __m128d cm = _mm_mul_pd(d2, cp);
        _mm_storeu_pd(s, _mm_add_pd(es, _mm_add_pd(_mm_mul_pd(es, cm), _mm_mul_pd(ec, sd))));
        _mm_storeu_pd(c, _mm_add_pd(ec, _mm_sub_pd(_mm_mul_pd(ec, cm), _mm_mul_pd(es, sd))));
        return true;
    }
#else
    (void)tx, (void)ty, (void)s, (void)c;
#endif
    return false;
}

void cr_sincos2(double tx, double ty, double s[2], double c[2])
{
    if (sincos2_lanes(tx, ty, s, c)) return;
    cr_sincos(tx, &s[0], &c[0]);
    cr_sincos(ty, &s[1], &c[1]);
}

#if CR_AVX2
/* (the rare angles past the table's reach by a jump to cr_sincos2: no
 * frame to keep arguments across calls here) */
CR_AVX2_FN void cr_sincos2_avx2(double tx, double ty, double s[2], double c[2])
{
    if (!sincos2_lanes(tx, ty, s, c)) cr_sincos2(tx, ty, s, c);
}
#endif
