/* The DEM's screen (docs/physics.md "DEM"): which listed pairs touch this
 * step. A pure function of the centres and the list; the law then runs on
 * the pairs it keeps.
 *
 * Pair k = (fb[k], nb[k]) touches when |d|^2 < (r_i + r_j)^2, d = x_i - x_j
 * at the minimum image (image_axis), |d|^2 = (dx dx + dy dy) + dz dz
 * (cr_v3_len2). The chute screens about 111,000 listed pairs a step for
 * about 15,000 contacts (its list holds every pair within r_i + r_j + skin).
 *
 * Two paths give the same pairs: the plain loop, and on x86-64 processors
 * with AVX2 (asked at run time, as src/lcp_pgs.c does) four pairs at a time.
 * The AVX2 path computes every difference, image, square and sum with the
 * same IEEE operations in the same order as the plain one (no fused
 * multiply-add: -ffp-contract=off, and the target is AVX2 without FMA), so
 * each |d|^2 and (r_i + r_j)^2 is the same number and so is each decision.
 * The plain loop's minimum image is a branch per periodic axis, which cost
 * the screen about a third of its time (perf annotate, the chute). */
#include "dem_avx2.h"
#include "dem_internal.h"

/* The second body's line is asked for this many pairs ahead: its order is
 * not one the hardware follows, and at 10^5-10^6 bodies about half the
 * bodies are first reached as a second body from hundreds of bodies back,
 * a line from memory; 16 pairs (a few bodies) ahead was enough for a line
 * from the L3 cache only. bench_scaling, CPU time at 10^6 bodies, 16 -> 96:
 * 0.0795 -> 0.0762 us a body-step (best of 3, alternated, load 11); the
 * same at 10^3 and on the chute. */
#define DEM_SCREEN_AHEAD 96u

/* One pair: written at ck[c], ci[c] whether it touches or not (without a
 * branch); the count grows when it does. */
static inline uint32_t screen_one(const double *xr, const dem_box *bx, uint32_t i, uint32_t j, uint32_t k,
                                  uint32_t c, uint32_t *ck, uint32_t *ci)
{
    const double *pi = xr + 4 * (size_t)i, *pj = xr + 4 * (size_t)j;
    const cr_vec3 del = min_image(bx, cr_v3(pi[0] - pj[0], pi[1] - pj[1], pi[2] - pj[2]));
    const double radsum = pi[3] + pj[3];
    ck[c] = k, ci[c] = i;
    return c + (cr_v3_len2(del) < radsum * radsum);
}

static uint32_t screen_plain(const double *xr, const uint32_t *fb, const uint32_t *nb, uint32_t k0, uint32_t k1,
                             const dem_box *bxp, uint32_t *ck, uint32_t *ci)
{
    /* a local copy: the compiler cannot tell that the stores to ck and ci
     * leave the box as it was */
    const dem_box box = *bxp, *bx = &box;
    uint32_t c = 0;
    for (uint32_t k = k0; k < k1; ++k) {
        /* the second body DEM_SCREEN_AHEAD pairs on */
        DEM_PREFETCH(xr + 4 * (size_t)nb[k + DEM_SCREEN_AHEAD < k1 ? k + DEM_SCREEN_AHEAD : k], 0);
        c = screen_one(xr, bx, fb[k], nb[k], k, c, ck, ci);
    }
    return c;
}

#if CR_AVX2
static CR_AVX2_FN inline __m256d pair4(const double *xr, uint32_t i, uint32_t j)
{
    const __m256d pi = _mm256_loadu_pd(xr + 4 * (size_t)i), pj = _mm256_loadu_pd(xr + 4 * (size_t)j);
    return _mm256_blend_pd(_mm256_sub_pd(pi, pj), _mm256_add_pd(pi, pj), 8);
}

/* pz: z is periodic (a constant in each copy below: the chute's box is
 * not periodic in z, and its image there would be six operations of about
 * sixty for nothing) */
static CR_AVX2_FN inline __attribute__((always_inline)) uint32_t screen4(const double *xr, const uint32_t *fb, const uint32_t *nb, uint32_t k0,
                                           uint32_t k1, const dem_box *bx, uint32_t *ck, uint32_t *ci, bool pz)
{
    __m256d L[3], half[3], nhalf[3];
    for (int a = 0; a < 3; ++a) {
        L[a] = _mm256_set1_pd(bx->periodic[a] ? bx->L[a] : 0.0);
        half[a] = _mm256_set1_pd(bx->periodic[a] ? bx->half[a] : INFINITY);
        nhalf[a] = _mm256_set1_pd(bx->periodic[a] ? -bx->half[a] : -INFINITY);
    }
    /* the touching lanes first: for each 4-bit mask of hits, the lanes'
     * indices packed into bytes */
    static const uint32_t pack[16] = {0x03020100, 0x03020100, 0x03020001, 0x03020100, 0x03010002, 0x03010200,
                                      0x03000201, 0x03020100, 0x02010003, 0x02010300, 0x02000301, 0x02030100,
                                      0x01000302, 0x01030200, 0x00030201, 0x03020100};
    const __m128i lane = _mm_setr_epi32(0, 1, 2, 3);
    uint32_t c = 0, k = k0;
    for (; k + 4 <= k1; k += 4) {
        const uint32_t ahead = k + DEM_SCREEN_AHEAD + 3 < k1 ? k + DEM_SCREEN_AHEAD : k;
        DEM_PREFETCH(xr + 4 * (size_t)nb[ahead], 0), DEM_PREFETCH(xr + 4 * (size_t)nb[ahead + 1], 0);
        DEM_PREFETCH(xr + 4 * (size_t)nb[ahead + 2], 0), DEM_PREFETCH(xr + 4 * (size_t)nb[ahead + 3], 0);
        /* each pair's (x_i - x_j, r_i + r_j): a body's x, y, z, r are
         * one 32-byte load */
        const __m256d v0 = pair4(xr, fb[k], nb[k]), v1 = pair4(xr, fb[k + 1], nb[k + 1]),
                      v2 = pair4(xr, fb[k + 2], nb[k + 2]), v3 = pair4(xr, fb[k + 3], nb[k + 3]);
        /* transposed: a register per axis, a lane per pair */
        __m256d col[4];
        dem_transpose4(v0, v1, v2, v3, col);
        const __m256d dx = dem_image4(col[0], L[0], half[0], nhalf[0]), dy = dem_image4(col[1], L[1], half[1], nhalf[1]),
                      dz = pz ? dem_image4(col[2], L[2], half[2], nhalf[2]) : col[2], rs = col[3];
        const __m256d d2 =
            _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(dx, dx), _mm256_mul_pd(dy, dy)), _mm256_mul_pd(dz, dz));
        const unsigned hit = (unsigned)_mm256_movemask_pd(_mm256_cmp_pd(d2, _mm256_mul_pd(rs, rs), _CMP_LT_OQ));
        /* the touching pairs' k and first bodies to ck[c], ci[c] on: four
         * lanes written, the count grown by the hits (the lanes after them
         * are written over by the next four, or lie within the item's part
         * of ck, which has room for every pair) */
        const __m128i sel = _mm_cvtepu8_epi32(_mm_cvtsi32_si128((int)pack[hit]));
        const __m128i kv = _mm_add_epi32(_mm_set1_epi32((int)k), lane),
                      iv = _mm_loadu_si128((const __m128i *)(const void *)(fb + k));
        _mm_storeu_si128((__m128i *)(void *)(ck + c),
                         _mm_castps_si128(_mm_permutevar_ps(_mm_castsi128_ps(kv), sel)));
        _mm_storeu_si128((__m128i *)(void *)(ci + c),
                         _mm_castps_si128(_mm_permutevar_ps(_mm_castsi128_ps(iv), sel)));
        c += (uint32_t)__builtin_popcount(hit);
    }
    for (; k < k1; ++k) c = screen_one(xr, bx, fb[k], nb[k], k, c, ck, ci);
    return c;
}
static CR_AVX2_FN uint32_t screen_avx2(const double *xr, const uint32_t *fb, const uint32_t *nb, uint32_t k0,
                                        uint32_t k1, const dem_box *bx, uint32_t *ck, uint32_t *ci)
{
    return bx->periodic[2] ? screen4(xr, fb, nb, k0, k1, bx, ck, ci, true)
                           : screen4(xr, fb, nb, k0, k1, bx, ck, ci, false);
}
#endif

uint32_t cr_dem_screen(const double *xr, const uint32_t *fb, const uint32_t *nb, uint32_t k0, uint32_t k1,
                       const dem_box *bx, bool portable, uint32_t *ck, uint32_t *ci)
{
#if CR_AVX2
    if (cr_use_avx2(portable)) return screen_avx2(xr, fb, nb, k0, k1, bx, ck, ci);
#else
    (void)portable;
#endif
    return screen_plain(xr, fb, nb, k0, k1, bx, ck, ci);
}
