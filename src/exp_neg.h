/* exp(x) for x in [-708, 0], the hills lattice's factors (surface_lattice.c):
 * the same IEEE operations in a plain function and on AVX2 lanes, so both
 * give the same bits, within 1 ulp of libm's exp (tests/test_exp_neg.c).
 * libm's exp takes a call, an errno wrapper and its own checks per value;
 * here four values go through the same few multiply-adds together.
 *
 * The method (Tang's table-driven exp): x = k ln2 / 64 + r with k the
 * integer nearest x 64 / ln2, |r| <= ln2 / 128, so that
 *
 *   exp(x) = 2^m 2^(j / 64) exp(r),  k = 64 m + j,  0 <= j < 64,
 *
 * 2^(j/64) from a table as hi + lo (exp_table.c), exp(r) - 1 by Taylor's
 * series to r^6 (the next term, r^7 / 7! <= 2.6e-20, is below a thousandth
 * of an ulp of 1), and the result hi + (lo + hi p) scaled by 2^m exactly.
 * r = (x - k L1) - k L2 with ln2 / 64 = L1 + L2 (Cody and Waite): L1 has
 * 32 bits, so k L1 is exact for |k| < 2^21 and x - k L1 is exact (Sterbenz:
 * both within ln2/128 of each other, their bits within the 53). The final
 * rounding and the table's leave the result within about 0.51 ulp of exp;
 * libm's is within its own half ulp, so the two differ by at most one ulp.
 * Internal. */
#ifndef CAROM_EXP_NEG_H
#define CAROM_EXP_NEG_H

#include <stdint.h>
#include <string.h>

#include "simd.h"

extern const double cr_exp_table[64][2];

#define CR_EXP_INV_LN2_64 0x1.71547652b82fep+6 /* 64 / ln 2 */
#define CR_EXP_L1 0x1.62e42fee00000p-7       /* ln 2 / 64, its first 32 bits */
#define CR_EXP_L2 0x1.a39ef35793c76p-39      /* the rest */
#define CR_EXP_SHIFT 0x1.8p52                /* adding it rounds to an integer */

/* exp(r) - 1 for |r| <= ln2 / 128, Horner. */
#define CR_EXP_POLY(r, r2, MUL, ADD, C)                                                                              \
    ADD(r, MUL(r2, ADD(C(0.5), MUL(r, ADD(C(1.0 / 6), MUL(r, ADD(C(1.0 / 24), MUL(r, ADD(C(1.0 / 120), MUL(r, C(1.0 / 720)))))))))))

static inline double cr_exp_mul(double a, double b) { return a * b; }
static inline double cr_exp_add(double a, double b) { return a + b; }
static inline double cr_exp_c(double a) { return a; }

static inline double cr_exp_neg(double x)
{
    double big = x * CR_EXP_INV_LN2_64 + CR_EXP_SHIFT, kd = big - CR_EXP_SHIFT;
    uint64_t bits, shift_bits;
    double shift = CR_EXP_SHIFT;
    memcpy(&bits, &big, sizeof bits);
    memcpy(&shift_bits, &shift, sizeof shift_bits);
    uint64_t k = bits - shift_bits, j = k & 63; /* k mod 2^64 */
    uint64_t scale_bits = ((k - j) << 46) + ((uint64_t)1023 << 52); /* 2^m, m = (k - j) / 64 */
    double scale;
    memcpy(&scale, &scale_bits, sizeof scale);
    double r = (x - kd * CR_EXP_L1) - kd * CR_EXP_L2, r2 = r * r;
    double p = CR_EXP_POLY(r, r2, cr_exp_mul, cr_exp_add, cr_exp_c);
    double hi = cr_exp_table[j][0], lo = cr_exp_table[j][1];
    return scale * (hi + (lo + hi * p));
}

#if CR_AVX2
/* cr_exp_neg on four lanes: the same operations, lane by lane. */
CR_AVX2_FN static inline __m256d cr_exp_neg4(__m256d x)
{
    const __m256d shift = _mm256_set1_pd(CR_EXP_SHIFT);
    __m256d big = _mm256_add_pd(_mm256_mul_pd(x, _mm256_set1_pd(CR_EXP_INV_LN2_64)), shift);
    __m256d kd = _mm256_sub_pd(big, shift);
    __m256i k = _mm256_sub_epi64(_mm256_castpd_si256(big), _mm256_castpd_si256(shift));
    __m256i j = _mm256_and_si256(k, _mm256_set1_epi64x(63));
    __m256i scale_bits = _mm256_add_epi64(_mm256_slli_epi64(_mm256_sub_epi64(k, j), 46),
                                          _mm256_set1_epi64x((long long)((uint64_t)1023 << 52)));
    __m256d r = _mm256_sub_pd(_mm256_sub_pd(x, _mm256_mul_pd(kd, _mm256_set1_pd(CR_EXP_L1))),
                              _mm256_mul_pd(kd, _mm256_set1_pd(CR_EXP_L2)));
    __m256d r2 = _mm256_mul_pd(r, r);
    __m256d p = CR_EXP_POLY(r, r2, _mm256_mul_pd, _mm256_add_pd, _mm256_set1_pd);
    __m256i j2 = _mm256_slli_epi64(j, 1); /* the table's rows are pairs */
    __m256d hi = _mm256_i64gather_pd(&cr_exp_table[0][0], j2, 8);
    __m256d lo = _mm256_i64gather_pd(&cr_exp_table[0][1], j2, 8);
    return _mm256_mul_pd(_mm256_castsi256_pd(scale_bits), _mm256_add_pd(hi, _mm256_add_pd(lo, _mm256_mul_pd(hi, p))));
}
#endif

#endif
