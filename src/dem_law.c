/* The DEM's contact law on the touching pairs of a work item (LAMMPS
 * PairGranHookeHistory::compute, term for term, and with cr_hooke.model
 * CR_DEM_HERTZ PairGranHertzHistory::compute: the same with both forces
 * times polyhertz = sqrt(delta R*); the equations are at the top of
 * src/dem.c and in docs/physics.md "DEM").
 *
 * In stages over blocks of DEM_LAW_BLOCK contacts: each contact's work is a
 * long chain through a square root and divisions, and short loops let the
 * processor run many contacts' chains at once. The block's numbers are kept
 * one array per component, so that the stages (geometry; normal force,
 * shear history and tangential force; Coulomb; the sums' terms) can run
 * four contacts at a time on AVX2, where the processor has it (asked at run
 * time, as src/lcp_pgs.c does). That path makes every number with the same
 * IEEE operations in the same order as the plain one (sqrt and division are
 * correctly rounded in both; no fused multiply-add: -ffp-contract=off and a
 * target without FMA), so both give the same bits; its Coulomb stage
 * computes every lane and keeps the sliding ones by masks. Only the sums
 * into the bodies stay one contact at a time: they must keep their order.
 *
 * A pair not touching has no history (shear zero, kept so by the screen). */
#include "dem_avx2.h"
#include "dem_internal.h"

#define DEM_LAW_BLOCK 32u

/* The block's numbers, one array per component. */
typedef struct law_soa {
    double dx[DEM_LAW_BLOCK], dy[DEM_LAW_BLOCK], dz[DEM_LAW_BLOCK]; /* d = x_i - x_j, minimum image */
    double ri[DEM_LAW_BLOCK], rj[DEM_LAW_BLOCK];                    /* radii */
    double r[DEM_LAW_BLOCK], rinv[DEM_LAW_BLOCK], rsqinv[DEM_LAW_BLOCK];
    double sx[DEM_LAW_BLOCK], sy[DEM_LAW_BLOCK], sz[DEM_LAW_BLOCK];    /* shear history */
    double fx[DEM_LAW_BLOCK], fy[DEM_LAW_BLOCK], fz[DEM_LAW_BLOCK];    /* tangential force */
    double vx[DEM_LAW_BLOCK], vy[DEM_LAW_BLOCK], vz[DEM_LAW_BLOCK];    /* vtr */
    double meff[DEM_LAW_BLOCK], ccel[DEM_LAW_BLOCK], shr2[DEM_LAW_BLOCK];
    /* the sums' terms: F_ij, the torque lever (d x F_t) / r, and the lever
     * times -r_i and -r_j */
    double gx[DEM_LAW_BLOCK], gy[DEM_LAW_BLOCK], gz[DEM_LAW_BLOCK], lx[DEM_LAW_BLOCK], ly[DEM_LAW_BLOCK],
        lz[DEM_LAW_BLOCK];
    double tix[DEM_LAW_BLOCK], tiy[DEM_LAW_BLOCK], tiz[DEM_LAW_BLOCK], tjx[DEM_LAW_BLOCK], tjy[DEM_LAW_BLOCK],
        tjz[DEM_LAW_BLOCK];
    cr_vec3 roll[DEM_LAW_BLOCK]; /* with rolling: the rolling torque on the first body */
} law_soa;

/* Stage 1 for contact e: geometry, the history loaded (the misses of a
 * block overlap there: touching pairs are spread thin over the list), and
 * the second body's lines that the next stages read and write asked for
 * (about a quarter of the law's time went to waiting for them; at 10^6
 * bodies, loading the second body's mass here instead of asking for its
 * line cost 15%). */
static inline void prefetch_second(const cr_dem *d, uint32_t k, uint32_t j)
{
    DEM_PREFETCH(&d->kin[j], 0);
    DEM_PREFETCH(&d->f[j], 1);
    DEM_PREFETCH(&d->t[j], 1);
    DEM_PREFETCH(&d->pf[d->rpos[k]], 1);
}

static inline void geometry_one(const cr_dem *d, const dem_box *bx, uint32_t k, uint32_t i, const cr_vec3 *h,
                                law_soa *a, uint32_t e)
{
    const uint32_t j = d->nb[k];
    a->sx[e] = h->x, a->sy[e] = h->y, a->sz[e] = h->z; /* the last step's, zero for a new contact */
    const double *pi = d->xr + 4 * (size_t)i, *pj = d->xr + 4 * (size_t)j;
    const cr_vec3 del = min_image(bx, cr_v3(pi[0] - pj[0], pi[1] - pj[1], pi[2] - pj[2]));
    a->dx[e] = del.x, a->dy[e] = del.y, a->dz[e] = del.z;
    a->ri[e] = pi[3], a->rj[e] = pj[3];
    const double rsq = cr_v3_len2(del);
    a->r[e] = sqrt(rsq), a->rinv[e] = 1.0 / a->r[e], a->rsqinv[e] = 1.0 / rsq;
    prefetch_second(d, k, j);
}

/* Stage 2 for contact e: normal force, shear history, tangential force. */
static inline void normal_one(const cr_dem *d, const dem_law *law, uint32_t k, uint32_t i, law_soa *a, uint32_t e)
{
    const uint32_t j = d->nb[k];
    const dem_kin *ki = &d->kin[i], *kj = &d->kin[j];
    const cr_vec3 dl = cr_v3(a->dx[e], a->dy[e], a->dz[e]);
    const double rinv = a->rinv[e], rsqinv = a->rsqinv[e];
    const double mi = ki->mass, mj = kj->mass, both = mi * mj / (mi + mj);
    const double meff = !(ki->flags & DEM_DYN) ? mj : !(kj->flags & DEM_DYN) ? mi : both;
    const double radi = a->ri[e], radj = a->rj[e], radsum = radi + radj;
    const cr_vec3 vr = cr_v3_sub(ki->v, kj->v);
    const double vnnr = cr_v3_dot(vr, dl);
    const cr_vec3 vn = cr_v3_scale(dl, vnnr * rsqinv);
    const cr_vec3 vt = cr_v3_sub(vr, vn);
    const cr_vec3 wr = cr_v3_scale(cr_v3_add(cr_v3_scale(ki->w, radi), cr_v3_scale(kj->w, radj)), rinv);
    const double damp = meff * law->gn * vnnr * rsqinv;
    a->ccel[e] = law->kn * (radsum - a->r[e]) * rinv - damp;
    /* Hertz: LAMMPS's polyhertz = sqrt(delta R*), in its order ((delta r_i)
     * r_j) / radsum; delta >= 0 here (the screen keeps rsq < radsum^2,
     * and sqrt(fl(radsum^2)) = radsum) */
    const double ph = law->hertz ? sqrt((radsum - a->r[e]) * radi * radj / radsum) : 1.0;
    if (law->hertz) a->ccel[e] *= ph;
    /* relative tangential velocity of the contact point */
    const cr_vec3 vt_r = cr_v3(vt.x - (dl.z * wr.y - dl.y * wr.z), vt.y - (dl.x * wr.z - dl.z * wr.x),
                               vt.z - (dl.y * wr.x - dl.x * wr.y));
    cr_vec3 sh = cr_v3(a->sx[e], a->sy[e], a->sz[e]);
    if (law->update_shear) sh = cr_v3_madd(sh, vt_r, law->dt);
    a->shr2[e] = cr_v3_len2(sh); /* LAMMPS's shrmag, only ever compared with 0: its square does */
    /* rotate the shear displacement into the tangent plane */
    const double rsht = cr_v3_dot(sh, dl) * rsqinv;
    if (law->update_shear) sh = cr_v3_madd(sh, dl, -rsht);
    a->sx[e] = sh.x, a->sy[e] = sh.y, a->sz[e] = sh.z;
    a->vx[e] = vt_r.x, a->vy[e] = vt_r.y, a->vz[e] = vt_r.z;
    a->meff[e] = meff;
    /* Hooke: -1 (exact negation); Hertz: LAMMPS's -polyhertz */
    const cr_vec3 fs = cr_v3_scale(cr_v3_madd(cr_v3_scale(sh, law->kt), vt_r, meff * law->gt), -ph);
    a->fx[e] = fs.x, a->fy[e] = fs.y, a->fz[e] = fs.z;
}

/* Stage 3, contacts [e0, m): Coulomb. The shear history is rescaled with
 * the force, for the sliding contacts, listed first without branches
 * (about half of the chute's contacts slide: a branch per contact would be
 * a coin toss). */
static void coulomb_plain(const dem_law *law, law_soa *a, uint32_t e0, uint32_t m)
{
    const double mu = law->mu, kt = law->kt, gt = law->gt;
    uint32_t slide[DEM_LAW_BLOCK], ns = 0;
    double fsm2[DEM_LAW_BLOCK], fn[DEM_LAW_BLOCK];
    for (uint32_t e = e0; e < m; ++e) {
        fsm2[e] = a->fx[e] * a->fx[e] + a->fy[e] * a->fy[e] + a->fz[e] * a->fz[e];
        fn[e] = mu * fabs(a->ccel[e] * a->r[e]);
        slide[ns] = e;
        ns += fsm2[e] > fn[e] * fn[e];
    }
    for (uint32_t q = 0; q < ns; ++q) {
        const uint32_t e = slide[q];
        if (a->shr2[e] != 0.0) {
            const double qq = fn[e] / sqrt(fsm2[e]);
            /* (LAMMPS: meff gamma_t vtr / kt; zero without tangential damping) */
            const cr_vec3 vtr = cr_v3(a->vx[e], a->vy[e], a->vz[e]);
            const cr_vec3 g = gt != 0.0 && kt > 0.0 ? cr_v3_scale(vtr, a->meff[e] * gt / kt) : cr_v3_zero();
            const cr_vec3 sh = cr_v3_sub(cr_v3_scale(cr_v3_add(cr_v3(a->sx[e], a->sy[e], a->sz[e]), g), qq), g);
            a->sx[e] = sh.x, a->sy[e] = sh.y, a->sz[e] = sh.z;
            a->fx[e] *= qq, a->fy[e] *= qq, a->fz[e] *= qq;
        } else {
            a->fx[e] = a->fy[e] = a->fz[e] = 0.0;
        }
    }
}

/* Stage 4's terms for contact e: F_ij = F_t + d ccel, the lever
 * (d x F_t) / r, and the lever times -r_i, -r_j (cr_v3_madd's products). */
static inline void terms_one(law_soa *a, uint32_t e)
{
    const cr_vec3 dl = cr_v3(a->dx[e], a->dy[e], a->dz[e]), fs = cr_v3(a->fx[e], a->fy[e], a->fz[e]);
    const cr_vec3 fij = cr_v3_madd(fs, dl, a->ccel[e]), tor = cr_v3_scale(cr_v3_cross(dl, fs), a->rinv[e]);
    const cr_vec3 ti = cr_v3_scale(tor, -a->ri[e]), tj = cr_v3_scale(tor, -a->rj[e]);
    a->gx[e] = fij.x, a->gy[e] = fij.y, a->gz[e] = fij.z, a->lx[e] = tor.x, a->ly[e] = tor.y, a->lz[e] = tor.z;
    a->tix[e] = ti.x, a->tiy[e] = ti.y, a->tiz[e] = ti.z, a->tjx[e] = tj.x, a->tjy[e] = tj.y, a->tjz[e] = tj.z;
}

/* With rolling resistance, after stage 4 for contact e: the rolling
 * history advanced, F_roll (src/dem_rolling.h, LAMMPS's rolling sds with
 * n = d / r, R* = r_i r_j / (r_i + r_j), |F_n| = |ccel r| as LAMMPS's
 * Fncrit), and its torque added to both bodies' terms as LAMMPS adds
 * torroll to torquesi and takes it from torquesj. */
static inline void rolling_one(const cr_dem *d, const dem_law *law, uint32_t k, uint32_t i, cr_vec3 *xi, law_soa *a,
                               uint32_t e)
{
    const uint32_t j = d->nb[k];
    const double rinv = a->rinv[e], radi = a->ri[e], radj = a->rj[e];
    const cr_vec3 n = cr_v3(a->dx[e] * rinv, a->dy[e] * rinv, a->dz[e] * rinv);
    const double reff = radi * radj / (radi + radj);
    const cr_vec3 v = cr_dem_rolling_velocity(d->kin[i].w, d->kin[j].w, n, reff);
    const cr_vec3 fr =
        cr_dem_rolling_force(&law->roll, fabs(a->ccel[e] * a->r[e]), n, v, law->dt, law->update_shear, xi);
    const cr_vec3 tr = cr_dem_rolling_torque(n, fr, reff);
    a->roll[e] = tr;
    a->tix[e] += tr.x, a->tiy[e] += tr.y, a->tiz[e] += tr.z;
    a->tjx[e] -= tr.x, a->tjy[e] -= tr.y, a->tjz[e] -= tr.z;
}

#if CR_AVX2
typedef struct v4 {
    __m256d x, y, z;
} v4;

/* (a.x b.x + a.y b.y) + a.z b.z, as cr_v3_dot */
static CR_AVX2_FN inline __m256d dot4(v4 a, v4 b)
{
    return _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(a.x, b.x), _mm256_mul_pd(a.y, b.y)), _mm256_mul_pd(a.z, b.z));
}

#define LD(p) _mm256_loadu_pd(p)
#define ST(p, v) _mm256_storeu_pd(p, v)

/* Stage 1 for contacts e .. e + 3: geometry_one's numbers. */
static CR_AVX2_FN void geometry_avx2(const cr_dem *d, const dem_box *bx, const uint32_t *ck, const uint32_t *ci,
                                      const cr_vec3 *hist, law_soa *a, uint32_t e)
{
    __m256d pi[4], pj[4], c[4];
    uint32_t j[4];
    for (uint32_t l = 0; l < 4; ++l) {
        const uint32_t k = ck[e + l];
        j[l] = d->nb[k];
        a->sx[e + l] = hist[e + l].x, a->sy[e + l] = hist[e + l].y, a->sz[e + l] = hist[e + l].z;
        pi[l] = LD(d->xr + 4 * (size_t)ci[e + l]), pj[l] = LD(d->xr + 4 * (size_t)j[l]);
        /* (x_i - x_j, r_i): r_j from its own transpose below */
        pi[l] = _mm256_blend_pd(_mm256_sub_pd(pi[l], pj[l]), pi[l], 8);
    }
    dem_transpose4(pi[0], pi[1], pi[2], pi[3], c);
    __m256d cj[4];
    dem_transpose4(pj[0], pj[1], pj[2], pj[3], cj);
    __m256d del[3];
    for (int ax = 0; ax < 3; ++ax) {
        const __m256d L = _mm256_set1_pd(bx->periodic[ax] ? bx->L[ax] : 0.0),
                      half = _mm256_set1_pd(bx->periodic[ax] ? bx->half[ax] : INFINITY),
                      nhalf = _mm256_set1_pd(bx->periodic[ax] ? -bx->half[ax] : -INFINITY);
        del[ax] = dem_image4(c[ax], L, half, nhalf);
    }
    ST(a->dx + e, del[0]), ST(a->dy + e, del[1]), ST(a->dz + e, del[2]);
    ST(a->ri + e, c[3]), ST(a->rj + e, cj[3]);
    const v4 dl = {del[0], del[1], del[2]};
    const __m256d rsq = dot4(dl, dl), r = _mm256_sqrt_pd(rsq), one = _mm256_set1_pd(1.0);
    ST(a->r + e, r), ST(a->rinv + e, _mm256_div_pd(one, r)), ST(a->rsqinv + e, _mm256_div_pd(one, rsq));
    for (uint32_t l = 0; l < 4; ++l) prefetch_second(d, ck[e + l], j[l]);
}

/* A body's v, w, mass and DEM_DYN (all bits set where the flag is) from its
 * kin line, for four bodies. */
static CR_AVX2_FN inline void kin4(const dem_kin *k0, const dem_kin *k1, const dem_kin *k2, const dem_kin *k3, v4 *v,
                                    v4 *w, __m256d *m, __m256d *dyn)
{
    __m256d c[4], u[4];
    dem_transpose4(LD(&k0->v.x), LD(&k1->v.x), LD(&k2->v.x), LD(&k3->v.x), c); /* vx vy vz wx */
    dem_transpose4(LD(&k0->w.y), LD(&k1->w.y), LD(&k2->w.y), LD(&k3->w.y), u); /* wy wz mass flags */
    v->x = c[0], v->y = c[1], v->z = c[2], w->x = c[3], w->y = u[0], w->z = u[1], *m = u[2];
    /* flags is the lowest byte of the last 8 */
    const __m256i bit = _mm256_set1_epi64x(DEM_DYN);
    *dyn = _mm256_castsi256_pd(_mm256_cmpeq_epi64(_mm256_and_si256(_mm256_castpd_si256(u[3]), bit), bit));
}

/* Stage 2 for contacts e .. e + 3: normal_one's numbers. */
static CR_AVX2_FN void normal_avx2(const cr_dem *d, const dem_law *law, const uint32_t *ck, const uint32_t *ci,
                                    law_soa *a, uint32_t e)
{
    const dem_kin *kin = d->kin;
    const uint32_t *nb = d->nb;
    v4 vi, wi, vj, wj;
    __m256d mi, mj, dyni, dynj;
    kin4(&kin[ci[e]], &kin[ci[e + 1]], &kin[ci[e + 2]], &kin[ci[e + 3]], &vi, &wi, &mi, &dyni);
    kin4(&kin[nb[ck[e]]], &kin[nb[ck[e + 1]]], &kin[nb[ck[e + 2]]], &kin[nb[ck[e + 3]]], &vj, &wj, &mj, &dynj);
    const v4 dl = {LD(a->dx + e), LD(a->dy + e), LD(a->dz + e)};
    const __m256d rinv = LD(a->rinv + e), rsqinv = LD(a->rsqinv + e), radi = LD(a->ri + e), radj = LD(a->rj + e);
    const __m256d both = _mm256_div_pd(_mm256_mul_pd(mi, mj), _mm256_add_pd(mi, mj));
    /* !dyn_i ? m_j : !dyn_j ? m_i : both */
    const __m256d meff = _mm256_blendv_pd(mj, _mm256_blendv_pd(mi, both, dynj), dyni);
    const __m256d radsum = _mm256_add_pd(radi, radj);
    const v4 vr = {_mm256_sub_pd(vi.x, vj.x), _mm256_sub_pd(vi.y, vj.y), _mm256_sub_pd(vi.z, vj.z)};
    const __m256d vnnr = dot4(vr, dl), vs = _mm256_mul_pd(vnnr, rsqinv);
    const v4 vt = {_mm256_sub_pd(vr.x, _mm256_mul_pd(dl.x, vs)), _mm256_sub_pd(vr.y, _mm256_mul_pd(dl.y, vs)),
                   _mm256_sub_pd(vr.z, _mm256_mul_pd(dl.z, vs))};
    const v4 wr = {_mm256_mul_pd(_mm256_add_pd(_mm256_mul_pd(wi.x, radi), _mm256_mul_pd(wj.x, radj)), rinv),
                   _mm256_mul_pd(_mm256_add_pd(_mm256_mul_pd(wi.y, radi), _mm256_mul_pd(wj.y, radj)), rinv),
                   _mm256_mul_pd(_mm256_add_pd(_mm256_mul_pd(wi.z, radi), _mm256_mul_pd(wj.z, radj)), rinv)};
    const __m256d damp = _mm256_mul_pd(_mm256_mul_pd(_mm256_mul_pd(meff, _mm256_set1_pd(law->gn)), vnnr), rsqinv);
    const __m256d r = LD(a->r + e), delta = _mm256_sub_pd(radsum, r);
    const __m256d ccel = _mm256_sub_pd(_mm256_mul_pd(_mm256_mul_pd(_mm256_set1_pd(law->kn), delta), rinv), damp);
    /* normal_one's ph: 1 (Hooke) or sqrt(((delta r_i) r_j) / radsum) */
    const __m256d ph = law->hertz
                           ? _mm256_sqrt_pd(_mm256_div_pd(_mm256_mul_pd(_mm256_mul_pd(delta, radi), radj), radsum))
                           : _mm256_set1_pd(1.0);
    ST(a->ccel + e, law->hertz ? _mm256_mul_pd(ccel, ph) : ccel);
    const v4 vtr = {_mm256_sub_pd(vt.x, _mm256_sub_pd(_mm256_mul_pd(dl.z, wr.y), _mm256_mul_pd(dl.y, wr.z))),
                    _mm256_sub_pd(vt.y, _mm256_sub_pd(_mm256_mul_pd(dl.x, wr.z), _mm256_mul_pd(dl.z, wr.x))),
                    _mm256_sub_pd(vt.z, _mm256_sub_pd(_mm256_mul_pd(dl.y, wr.x), _mm256_mul_pd(dl.x, wr.y)))};
    v4 sh = {LD(a->sx + e), LD(a->sy + e), LD(a->sz + e)};
    if (law->update_shear) {
        const __m256d dt = _mm256_set1_pd(law->dt);
        sh.x = _mm256_add_pd(sh.x, _mm256_mul_pd(vtr.x, dt)), sh.y = _mm256_add_pd(sh.y, _mm256_mul_pd(vtr.y, dt));
        sh.z = _mm256_add_pd(sh.z, _mm256_mul_pd(vtr.z, dt));
    }
    ST(a->shr2 + e, dot4(sh, sh));
    if (law->update_shear) {
        /* sh + dl (-rsht): the negation is exact */
        const __m256d nr = _mm256_xor_pd(_mm256_mul_pd(dot4(sh, dl), rsqinv), _mm256_set1_pd(-0.0));
        sh.x = _mm256_add_pd(sh.x, _mm256_mul_pd(dl.x, nr)), sh.y = _mm256_add_pd(sh.y, _mm256_mul_pd(dl.y, nr));
        sh.z = _mm256_add_pd(sh.z, _mm256_mul_pd(dl.z, nr));
    }
    ST(a->sx + e, sh.x), ST(a->sy + e, sh.y), ST(a->sz + e, sh.z);
    ST(a->vx + e, vtr.x), ST(a->vy + e, vtr.y), ST(a->vz + e, vtr.z);
    ST(a->meff + e, meff);
    const __m256d kt = _mm256_set1_pd(law->kt), mg = _mm256_mul_pd(meff, _mm256_set1_pd(law->gt)),
                  nph = _mm256_xor_pd(ph, _mm256_set1_pd(-0.0)); /* -ph, exact */
    ST(a->fx + e, _mm256_mul_pd(_mm256_add_pd(_mm256_mul_pd(sh.x, kt), _mm256_mul_pd(vtr.x, mg)), nph));
    ST(a->fy + e, _mm256_mul_pd(_mm256_add_pd(_mm256_mul_pd(sh.y, kt), _mm256_mul_pd(vtr.y, mg)), nph));
    ST(a->fz + e, _mm256_mul_pd(_mm256_add_pd(_mm256_mul_pd(sh.z, kt), _mm256_mul_pd(vtr.z, mg)), nph));
}

static CR_AVX2_FN void stages12_avx2(const cr_dem *d, const dem_box *bx, const dem_law *law, const uint32_t *ck,
                                      const uint32_t *ci, const cr_vec3 *hist, law_soa *a, uint32_t m)
{
    uint32_t e = 0;
    for (; e + 4 <= m; e += 4) geometry_avx2(d, bx, ck, ci, hist, a, e);
    for (; e < m; ++e) geometry_one(d, bx, ck[e], ci[e], &hist[e], a, e);
    for (e = 0; e + 4 <= m; e += 4) normal_avx2(d, law, ck, ci, a, e);
    for (; e < m; ++e) normal_one(d, law, ck[e], ci[e], a, e);
}
/* Stage 3 for contacts e .. e + 3: coulomb_plain's numbers, every lane
 * computed and the results kept by masks (sliding, and shear not zero). */
static CR_AVX2_FN void coulomb_avx2(const dem_law *law, law_soa *a, uint32_t e)
{
    const v4 fs = {LD(a->fx + e), LD(a->fy + e), LD(a->fz + e)};
    const __m256d fsm2 = dot4(fs, fs),
                  fn = _mm256_mul_pd(_mm256_set1_pd(law->mu),
                                     _mm256_andnot_pd(_mm256_set1_pd(-0.0), _mm256_mul_pd(LD(a->ccel + e), LD(a->r + e))));
    const __m256d slide = _mm256_cmp_pd(fsm2, _mm256_mul_pd(fn, fn), _CMP_GT_OQ);
    if (_mm256_movemask_pd(slide) == 0) return;
    /* shr2 != 0, true for NaN as in C */
    const __m256d moving = _mm256_and_pd(slide, _mm256_cmp_pd(LD(a->shr2 + e), _mm256_setzero_pd(), _CMP_NEQ_UQ)),
                  stuck = _mm256_andnot_pd(moving, slide);
    const __m256d qq = _mm256_div_pd(fn, _mm256_sqrt_pd(fsm2));
    v4 g = {_mm256_setzero_pd(), _mm256_setzero_pd(), _mm256_setzero_pd()};
    if (law->gt != 0.0 && law->kt > 0.0) {
        const __m256d gm =
            _mm256_div_pd(_mm256_mul_pd(LD(a->meff + e), _mm256_set1_pd(law->gt)), _mm256_set1_pd(law->kt));
        g.x = _mm256_mul_pd(LD(a->vx + e), gm), g.y = _mm256_mul_pd(LD(a->vy + e), gm);
        g.z = _mm256_mul_pd(LD(a->vz + e), gm);
    }
    double *sc[3] = {a->sx + e, a->sy + e, a->sz + e}, *fc[3] = {a->fx + e, a->fy + e, a->fz + e};
    const __m256d gc[3] = {g.x, g.y, g.z}, zero = _mm256_setzero_pd();
    for (int c = 0; c < 3; ++c) {
        const __m256d sv = LD(sc[c]), fv = LD(fc[c]);
        const __m256d s2 = _mm256_sub_pd(_mm256_mul_pd(_mm256_add_pd(sv, gc[c]), qq), gc[c]);
        ST(sc[c], _mm256_blendv_pd(sv, s2, moving));
        ST(fc[c], _mm256_blendv_pd(_mm256_blendv_pd(fv, _mm256_mul_pd(fv, qq), moving), zero, stuck));
    }
}

/* Stage 4's terms for contacts e .. e + 3 (terms_one). */
static CR_AVX2_FN void terms_avx2(law_soa *a, uint32_t e)
{
    const v4 dl = {LD(a->dx + e), LD(a->dy + e), LD(a->dz + e)}, fs = {LD(a->fx + e), LD(a->fy + e), LD(a->fz + e)};
    const __m256d cc = LD(a->ccel + e), rinv = LD(a->rinv + e), neg = _mm256_set1_pd(-0.0);
    const __m256d nri = _mm256_xor_pd(LD(a->ri + e), neg), nrj = _mm256_xor_pd(LD(a->rj + e), neg);
    ST(a->gx + e, _mm256_add_pd(fs.x, _mm256_mul_pd(dl.x, cc)));
    ST(a->gy + e, _mm256_add_pd(fs.y, _mm256_mul_pd(dl.y, cc)));
    ST(a->gz + e, _mm256_add_pd(fs.z, _mm256_mul_pd(dl.z, cc)));
    const __m256d tx = _mm256_mul_pd(_mm256_sub_pd(_mm256_mul_pd(dl.y, fs.z), _mm256_mul_pd(dl.z, fs.y)), rinv),
                  ty = _mm256_mul_pd(_mm256_sub_pd(_mm256_mul_pd(dl.z, fs.x), _mm256_mul_pd(dl.x, fs.z)), rinv),
                  tz = _mm256_mul_pd(_mm256_sub_pd(_mm256_mul_pd(dl.x, fs.y), _mm256_mul_pd(dl.y, fs.x)), rinv);
    ST(a->lx + e, tx), ST(a->ly + e, ty), ST(a->lz + e, tz);
    ST(a->tix + e, _mm256_mul_pd(tx, nri)), ST(a->tiy + e, _mm256_mul_pd(ty, nri)), ST(a->tiz + e, _mm256_mul_pd(tz, nri));
    ST(a->tjx + e, _mm256_mul_pd(tx, nrj)), ST(a->tjy + e, _mm256_mul_pd(ty, nrj)), ST(a->tjz + e, _mm256_mul_pd(tz, nrj));
}

static CR_AVX2_FN void stages34_avx2(const dem_law *law, law_soa *a, uint32_t m)
{
    uint32_t e = 0;
    for (; e + 4 <= m; e += 4) coulomb_avx2(law, a, e);
    coulomb_plain(law, a, e, m);
    for (e = 0; e + 4 <= m; e += 4) terms_avx2(a, e);
    for (; e < m; ++e) terms_one(a, e);
}
#undef LD
#undef ST
#endif

/* a where the mask is all ones, else b, without a branch (the compilers
 * make one of a ?: here) */
static inline cr_vec3 *pick(uintptr_t mask, cr_vec3 *a, cr_vec3 *b)
{
    return (cr_vec3 *)(((uintptr_t)a & mask) | ((uintptr_t)b & ~mask));
}

/* One block, contacts ck[0 .. m) with first bodies ci and history hist
 * (rhist: the rolling history, with rolling only); i1: the end of the work
 * item's bodies. Rolling worlds take the plain path: the rolling stage is
 * one contact at a time (its share is measured in docs/benchmarks.md). */
static void law_block(cr_dem *d, const dem_box *bx, const dem_law *law, bool avx2, const uint32_t *ck,
                      const uint32_t *ci, cr_vec3 *hist, cr_vec3 *rhist, uint32_t m, uint32_t i1)
{
    law_soa a;
#if CR_AVX2
    if (avx2 && !law->rolling) {
        stages12_avx2(d, bx, law, ck, ci, hist, &a, m);
        stages34_avx2(law, &a, m);
    } else
#endif
    {
        (void)avx2;
        for (uint32_t e = 0; e < m; ++e) geometry_one(d, bx, ck[e], ci[e], &hist[e], &a, e);
        for (uint32_t e = 0; e < m; ++e) normal_one(d, law, ck[e], ci[e], &a, e);
        coulomb_plain(law, &a, 0, m);
        for (uint32_t e = 0; e < m; ++e) terms_one(&a, e);
        if (law->rolling)
            for (uint32_t e = 0; e < m; ++e) rolling_one(d, law, ck[e], ci[e], &rhist[e], &a, e);
    }
    /* the history kept, the forces summed (in list order) */
    const uint32_t *nb = d->nb, *rpos = d->rpos;
    cr_vec3 *f = d->f, *t = d->t;
    dem_pf *pf = d->pf, spare = {{0, 0, 0}, {0, 0, 0}};
    for (uint32_t e = 0; e < m; ++e) {
        const uint32_t k = ck[e], i = ci[e], j = nb[k];
        hist[e] = cr_v3(a.sx[e], a.sy[e], a.sz[e]);
        const cr_vec3 fij = cr_v3(a.gx[e], a.gy[e], a.gz[e]), tor = cr_v3(a.lx[e], a.ly[e], a.lz[e]);
        f[i] = cr_v3_add(f[i], fij), t[i] = cr_v3_add(t[i], cr_v3(a.tix[e], a.tiy[e], a.tiz[e]));
        /* Newton's third law inside the item, else the second body's pf
         * row; both written, one of them into a local that nobody reads:
         * whether a pair crosses items is a coin toss for the predictor */
        const uintptr_t in = (uintptr_t)0 - (uintptr_t)(j < i1);
        cr_vec3 *fj = pick(in, &f[j], &spare.f), *tj = pick(in, &t[j], &spare.t);
        dem_pf *row = (dem_pf *)(((uintptr_t)&spare & in) | ((uintptr_t)&pf[rpos[k]] & ~in));
        *fj = cr_v3_sub(*fj, fij), *tj = cr_v3_add(*tj, cr_v3(a.tjx[e], a.tjy[e], a.tjz[e]));
        row->f = fij, row->t = tor;
    }
    /* rolling: the second body's rolling torque where its pf row is read */
    if (law->rolling) {
        cr_vec3 *pr = d->pr, spare_r;
        for (uint32_t e = 0; e < m; ++e) {
            const uint32_t k = ck[e];
            const uintptr_t in = (uintptr_t)0 - (uintptr_t)(nb[k] < i1);
            *pick(in, &spare_r, &pr[rpos[k]]) = a.roll[e];
        }
    }
}

void cr_dem_law(cr_dem *d, const dem_box *bx, const dem_law *law, const uint32_t *ck, const uint32_t *ci,
                cr_vec3 *hist, cr_vec3 *rhist, uint32_t contacts, uint32_t i1)
{
    const bool avx2 = cr_use_avx2(law->portable);
    for (uint32_t e0 = 0; e0 < contacts; e0 += DEM_LAW_BLOCK)
        law_block(d, bx, law, avx2, ck + e0, ci + e0, hist + e0, rhist ? rhist + e0 : NULL,
                  e0 + DEM_LAW_BLOCK < contacts ? DEM_LAW_BLOCK : contacts - e0, i1);
}
