/* The first half of the DEM's step on AVX2 (LAMMPS fix nve/sphere's
 * initial_integrate, docs/physics.md "DEM"): half kick, drift, wrap and the
 * displacements since the list build, for a block of bodies, as
 * kick_block and drift_block in src/dem.c do them one body at a time.
 *
 * The plain loops spent their time on the chains of comparisons (the box
 * test, the minimum image, the box of the displacements: perf annotate,
 * the chute), not on memory. Here a body's x, y, z, r and its v (with
 * omega_x) are one register each, the kick is two products and two sums,
 * and four bodies' displacements are transposed to take their squares and
 * the box's minima and maxima a lane per body. Every number of the state is
 * the same IEEE operation as in the plain loops (no fused multiply-add), so
 * both give the same bits. The box of the displacements is a minimum and a
 * maximum over the bodies: taken four lanes at a time it is the same
 * number, but for the sign of a zero, which the rebuild test's squared
 * widths do not see; a NaN is skipped by both, as `u < lo ? u : lo` does. */
#include "dem_avx2.h"
#include "dem_internal.h"

#if CR_AVX2
/* (x, y, z, 0) of a cr_vec3, without reading past it (vmaskmovpd, the
 * masked load, was a third of this pass's time on AMD's Zen 4) */
static CR_AVX2_FN inline __m256d load3(const cr_vec3 *p)
{
    return _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(&p->x)), _mm_load_sd(&p->z), 1);
}

/* Kick and drift of body i; its displacement u since the build (lane 3: 0).
 * False when its centre left the box (the caller wraps it). */
static CR_AVX2_FN inline bool kick_drift(cr_dem *d, uint32_t i, __m256d hv, __m256d dtv, __m256d lo, __m256d hi,
                                           __m256d *x)
{
    dem_kin *k = &d->kin[i];
    const __m256d v = _mm256_load_pd(&k->v.x); /* vx vy vz wx */
    const __m128d w = _mm_load_pd(&k->w.y);    /* wy wz */
    const __m256d f = load3(&d->f[i]), t = load3(&d->t[i]);
    /* h / m and h / I, as kick_block's h * inv_mass[i] */
    const __m256d s = _mm256_mul_pd(hv, _mm256_set1_pd(d->inv_mass[i])),
                  si = _mm256_mul_pd(hv, _mm256_set1_pd(d->inv_inertia[i]));
    const __m256d ft = _mm256_blend_pd(f, _mm256_permute4x64_pd(t, 0x00), 8), sc = _mm256_blend_pd(s, si, 8);
    const __m256d dyn = _mm256_castsi256_pd(_mm256_set1_epi64x(-(int64_t)(k->flags & DEM_DYN)));
    const __m256d v2 = _mm256_blendv_pd(v, _mm256_add_pd(v, _mm256_mul_pd(ft, sc)), dyn);
    const __m128d w2 = _mm_blendv_pd(
        w, _mm_add_pd(w, _mm_mul_pd(_mm256_castpd256_pd128(_mm256_permute4x64_pd(t, 0x09)), _mm256_castpd256_pd128(si))),
        _mm256_castpd256_pd128(dyn));
    _mm256_store_pd(&k->v.x, v2);
    _mm_store_pd(&k->w.y, w2);
    /* x + v dt, the radius kept */
    double *xr = d->xr + 4 * (size_t)i;
    const __m256d x0 = _mm256_loadu_pd(xr);
    *x = _mm256_blend_pd(_mm256_add_pd(x0, _mm256_mul_pd(v2, dtv)), x0, 8);
    _mm256_storeu_pd(xr, *x);
    return _mm256_movemask_pd(_mm256_and_pd(_mm256_cmp_pd(*x, lo, _CMP_GE_OQ), _mm256_cmp_pd(*x, hi, _CMP_LT_OQ))) == 15;
}

CR_AVX2_FN bool cr_dem_advance_avx2(cr_dem *d, const dem_box *bx, double h, double dt, double lim, uint32_t i0,
                                     uint32_t i1, double disp[6])
{
    const __m256d hv = _mm256_set1_pd(h), dtv = _mm256_set1_pd(dt), limv = _mm256_set1_pd(lim);
    double lo[4], hi[4], L[4], half[4], nhalf[4];
    for (int k = 0; k < 3; ++k) {
        /* an axis that is not periodic takes every number but NaN */
        lo[k] = bx->periodic[k] ? bx->lo[k] : -INFINITY;
        hi[k] = bx->periodic[k] ? bx->lo[k] + bx->L[k] : INFINITY;
        L[k] = bx->periodic[k] ? bx->L[k] : 0.0;
        half[k] = bx->periodic[k] ? bx->half[k] : INFINITY;
        nhalf[k] = -half[k];
    }
    lo[3] = -INFINITY, hi[3] = INFINITY, L[3] = 0.0, half[3] = INFINITY, nhalf[3] = -INFINITY;
    const __m256d lov = _mm256_loadu_pd(lo), hiv = _mm256_loadu_pd(hi), Lv = _mm256_loadu_pd(L),
                  halfv = _mm256_loadu_pd(half), nhalfv = _mm256_loadu_pd(nhalf);
    /* the box of the displacements, a lane per body; the minima as
     * `u < lo ? u : lo` (_mm256_min_pd(u, lo)) */
    __m256d bl[3], bh[3];
    for (int k = 0; k < 3; ++k) bl[k] = _mm256_set1_pd(disp[k]), bh[k] = _mm256_set1_pd(disp[3 + k]);
    __m256d far = _mm256_setzero_pd();
    for (uint32_t i = i0; i < i1; i += 4) {
        __m256d u[4];
        for (uint32_t l = 0; l < 4; ++l) {
            const uint32_t b = i + l < i1 ? i + l : i; /* a short last group repeats its first body's u */
            __m256d x;
            if (b == i + l) {
                if (!kick_drift(d, b, hv, dtv, lov, hiv, &x)) {
                    double y[4];
                    _mm256_storeu_pd(y, x);
                    wrap3(bx, y);
                    _mm256_storeu_pd(d->xr + 4 * (size_t)b, _mm256_loadu_pd(y));
                    x = _mm256_loadu_pd(y);
                }
            } else {
                x = _mm256_loadu_pd(d->xr + 4 * (size_t)b);
            }
            u[l] = dem_image4(_mm256_sub_pd(x, load3(&d->x_build[b])), Lv, halfv, nhalfv);
        }
        /* transposed: a register per axis, a lane per body */
        __m256d col[4];
        dem_transpose4(u[0], u[1], u[2], u[3], col);
        const __m256d ux = col[0], uy = col[1], uz = col[2];
        const __m256d u2 = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(ux, ux), _mm256_mul_pd(uy, uy)),
                                         _mm256_mul_pd(uz, uz));
        far = _mm256_or_pd(far, _mm256_cmp_pd(u2, limv, _CMP_GT_OQ));
        bl[0] = _mm256_min_pd(ux, bl[0]), bl[1] = _mm256_min_pd(uy, bl[1]), bl[2] = _mm256_min_pd(uz, bl[2]);
        bh[0] = _mm256_max_pd(ux, bh[0]), bh[1] = _mm256_max_pd(uy, bh[1]), bh[2] = _mm256_max_pd(uz, bh[2]);
    }
    for (int k = 0; k < 3; ++k) {
        double l4[4], h4[4];
        _mm256_storeu_pd(l4, bl[k]), _mm256_storeu_pd(h4, bh[k]);
        for (int l = 0; l < 4; ++l) {
            disp[k] = l4[l] < disp[k] ? l4[l] : disp[k];
            disp[3 + k] = h4[l] > disp[3 + k] ? h4[l] : disp[3 + k];
        }
    }
    return _mm256_movemask_pd(far) != 0;
}
#else
bool cr_dem_advance_avx2(cr_dem *d, const dem_box *bx, double h, double dt, double lim, uint32_t i0, uint32_t i1,
                         double disp[6])
{
    (void)d, (void)bx, (void)h, (void)dt, (void)lim, (void)i0, (void)i1, (void)disp;
    return false; /* never called: cr_dem_has_avx2 is false */
}
#endif

bool cr_dem_has_avx2(const cr_dem *d)
{
    return cr_use_avx2(d->portable);
}
