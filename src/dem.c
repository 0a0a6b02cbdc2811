/* CR_METHOD_DEM: soft spheres with a spring-dashpot contact law and
 * tangential history, integrated by velocity Verlet (docs/physics.md "DEM").
 *
 * The law is LAMMPS's pair gran/hooke/history (Silbert et al. 2001) and the
 * integrator LAMMPS's fix nve/sphere, term for term, so that a scene run in
 * both gives the same trajectories to rounding over a short horizon (the
 * granular chute benchmark, bench/peers):
 *
 *   step:  v += dt/2 F/m,  w += dt/2 T/I,  x += dt v     (dynamic bodies)
 *          x += dt v                                     (kinematic bodies)
 *          wrap x into the periodic box
 *          F, T = contact forces (shear history updated) + m g
 *          v += dt/2 F/m,  w += dt/2 T/I
 *
 * For a touching pair i, j with d = x_i - x_j (minimum image), r = |d|,
 * n = d / r, overlap delta = r_i + r_j - r, and relative velocity of the
 * contact point v_c = v_i - v_j + n x ... (LAMMPS's vtr):
 *
 *   F_n = (kn delta - m_eff gamma_n v_n) n,     v_n = (v_i - v_j) . n
 *   s  += v_t dt, then s -= (s . n) n           (shear history, rotated)
 *   F_t = -(kt s + m_eff gamma_t v_t);  if |F_t| > mu |F_n|, s and F_t are
 *         rescaled so that |F_t| = mu |F_n|
 *   T_i = -r_i n x F_t,  T_j = -r_j n x F_t
 *
 * With cr_hooke.model CR_DEM_HERTZ the law is LAMMPS's pair
 * gran/hertz/history: F_n and the unscaled F_t above are multiplied by
 * sqrt(delta R*), R* = r_i r_j / (r_i + r_j) (LAMMPS's polyhertz); the
 * Coulomb cap and the rescaled s are as written (in LAMMPS's rescale the
 * factor cancels).
 *
 * A kinematic body is immovable to the others (m_eff = the other's mass) and
 * feels no force: a frozen body (LAMMPS fix freeze) is a kinematic body with
 * zero velocity. Kinematic-kinematic pairs are never listed.
 *
 * Pairs come from a Verlet list with a skin, rebuilt from a cell grid when a
 * pair left out could touch (list_valid_after_move: no body moved half the
 * skin, or the box of the displacements within the skin); the list is
 * grouped by the pair's first body (sorted order, below), and each pair's
 * shear history is carried into the new list by its body pair. A pair that
 * stops touching loses its history, as in LAMMPS.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dem_internal.h"

/* Bodies from which the DEM's arrays (about 1 KB read and written a body a
 * step) are taken as not in the cache (a 32 MB L3): task_pairs then runs in
 * parts and, on one thread, finishes the bodies with their pairs. Below,
 * where the passes find their data in the cache anyway, the separate passes
 * were as fast or faster (the chute, 32,000 bodies: 2-5% slower fused; the
 * bed of bench_scaling at 11,000 and 44,000 bodies: the same). Either way
 * the same bits. */
#define DEM_LARGE 65536u

/* Data layout (docs/physics.md "DEM", "Data layout and threads"): the DEM
 * keeps its own copy of the live bodies, sorted along a Morton curve of the
 * neighbour grid's cells and re-sorted at every list build, so that a body's
 * neighbours lie near it in memory. slot[i] is the world slot of sorted body
 * i and sorted_of[slot] its sorted index. The world's arrays (x, v, w, q)
 * are written back when something reads them (cr_dem_sync, called by the
 * API's readers and by the functions that change bodies), not at every
 * step: the write-back is a scatter over the world's slots, about a tenth
 * of the chute's step. A change made through the API (cr_dem_touch) makes
 * the next step gather the bodies again.
 *
 * Forces: the half list (pair (i, j) once, i < j in sorted order, grouped by
 * i) is cut into fixed chunks of first bodies. A work item sums the pairs
 * inside it into both bodies; a pair whose second body lies in another item
 * stores its force and torque lever in pf, in the second body's row (list
 * order), which that body adds up when the step ends. No sum depends on how
 * chunks are spread over threads: 1 and N threads give the same bits.
 *
 * Passes per step: move (first half kick, drift, turn), the pairs, finish
 * (sums, second half kick); the list builds are in src/dem_list.c. */

static void free_arrays(cr_world *w, cr_dem *d)
{
    void *ps[] = {d->xr,    d->kin_mem, d->f,    d->t,      d->x_build,  d->q,
                  d->inv_mass, d->inv_inertia, d->slot, d->cell, d->sorted_of, d->start, d->rstart,
                  d->nb,    d->rpos, d->fb, d->prow,    d->hist, d->phist, d->rhist, d->prhist, d->pr, d->hr, d->pf, d->pk, d->pi, d->pcount, d->ck, d->ci,    d->ha,    d->hb,
                  d->hs,    d->hstart, d->scr, d->cell_start, d->rank, d->order, d->chunk_count, d->chunk_order, d->chunk_flag, d->chunk_disp, d->rev_at, d->rev_bucket,
                  d->up_start, d->up};
    for (size_t k = 0; k < sizeof ps / sizeof ps[0]; ++k) cr_free(w, ps[k]);
}

void cr_dem_free(cr_world *w)
{
    cr_dem *d = w->dem;
    if (!d) return;
    free_arrays(w, d);
    cr_free(w, d);
    w->dem = NULL;
}

void cr_dem_touch(cr_world *w)
{
    if (!w->dem) return;
    w->dem->list_valid = false;
    w->dem->forces_valid = false;
}


void cr_dem_body_removed(cr_world *w, uint32_t i)
{
    cr_dem *d = w->dem;
    if (!d) return;
    /* The slot may be reused by a new body: it must not inherit contacts. */
    if (d->list_valid || d->n) {
        uint32_t s = i < d->map_slots ? d->sorted_of[i] : UINT32_MAX;
        if (s != UINT32_MAX && s < d->n && d->start && d->chunk)
            for (uint32_t c = 0, chunks = cr_dem_chunks(d, d->n); c < chunks; ++c) {
                uint32_t base = d->start[c * d->chunk], m = 0;
                for (uint32_t e = 0; e < d->pcount[c]; ++e) {
                    uint32_t k = d->pk[base + e], a = d->pi[base + e];
                    if (a == s || d->nb[k] == s) continue;
                    if (d->prhist) d->prhist[base + m] = d->prhist[base + e];
                    d->pk[base + m] = k, d->pi[base + m] = a, d->phist[base + m++] = d->phist[base + e];
                }
                d->pcount[c] = m;
            }
    }
    cr_dem_touch(w);
}

uint32_t cr_dem_pair_count(const cr_world *w) { return w->dem ? w->dem->pair_count : 0; }
uint64_t cr_dem_build_count(const cr_world *w) { return w->dem ? w->dem->builds : 0; }

dem_box cr_dem_box_of(const cr_world *w)
{
    const cr_periodic *p = &w->def.periodic;
    dem_box b;
    b.periodic[0] = p->x, b.periodic[1] = p->y, b.periodic[2] = p->z;
    double lo[3] = {p->lo.x, p->lo.y, p->lo.z}, hi[3] = {p->hi.x, p->hi.y, p->hi.z};
    for (int k = 0; k < 3; ++k) {
        b.L[k] = b.periodic[k] ? hi[k] - lo[k] : 0.0;
        b.half[k] = 0.5 * b.L[k];
        b.lo[k] = lo[k];
    }
    return b;
}

static bool ensure(cr_world *w)
{
    if (!w->dem) {
        w->dem = cr_alloc(w, sizeof *w->dem);
        if (!w->dem) return false;
        memset(w->dem, 0, sizeof *w->dem);
        w->dem->large_from = DEM_LARGE;
        /* the def is fixed for the world's life */
        w->dem->rolling = w->def.hooke.k_roll > 0.0;
    }
    return true;
}

/* ---- work items ------------------------------------------------------- */



typedef struct step_ctx {
    cr_dem *d;
    cr_bodies *b;
    dem_box bx;
    double dt, h, lim, kn, kt, gn, gt, mu;
    dem_rolling_params roll;
    cr_vec3 g;
    bool update_shear;
    bool hertz; /* cr_hooke.model == CR_DEM_HERTZ */
    bool turn; /* cr_world_def.integrate_orientation */
    bool avx2; /* the move on AVX2 (src/dem_move.c) */
    bool fused;    /* the items in order on the caller's thread, each body item finished after its pairs */
    uint32_t part; /* first bodies per part of a pairs' item (task_pairs) */
} step_ctx;

/* ---- the step, in work items of DEM_CHUNK bodies ------------------------ */

/* Two doubles in one register (GCC's and Clang's vector extension), for
 * turn: the orientations are most of the first half step's arithmetic.
 * Other compilers take the plain path, with the same results. */
#if defined(__GNUC__) && (defined(__SSE2__) || defined(__ARM_NEON))
#define DEM_V2D 1
typedef double dem_v2d __attribute__((vector_size(16)));
#else
#define DEM_V2D 0
#endif

/* turn: cr_q_integrate without its sine and cosine for the small angles
 * of a DEM step (their Taylor series to the angle's 4th power, exact to
 * 1e-12 below 0.01 rad); orientation does not enter the law.
 *
 * turn, step 1: the small angle's cos(a/2) and sin(a/2) / |w| for the
 * angle a = |w| h; false when the angle is not small (cr_q_integrate). */
static inline bool turn_series(cr_vec3 w, double h, double *c, double *s)
{
    const double a2 = cr_v3_len2(w) * h * h;
    *c = 1.0 + a2 * (-1.0 / 8.0 + a2 * (1.0 / 384.0)), *s = h * (0.5 + a2 * (-1.0 / 48.0 + a2 * (1.0 / 3840.0)));
    return a2 < 1e-4;
}

/* turn, step 2: r = d q, d = (c, w s), and |r|^2. */
static inline cr_quat turn_product(cr_quat q, cr_vec3 w, double c, double s, double *l2)
{
    cr_quat r;
#if DEM_V2D
    /* cr_q_mul(d, q) in pairs of lanes (r.w, r.x) and (r.y, r.z): each lane
     * adds the same products in the same order as cr_q_mul (a - b c is
     * a + b (-c) to the bit), so both paths agree */
    const dem_v2d q0 = {q.w, q.x}, q1 = {q.y, q.z}, q0s = {q.x, q.w}, q1s = {q.z, q.y};
    const dem_v2d mp = {-1.0, 1.0}, pm = {1.0, -1.0}, dx = {w.x * s, w.x * s}, dy = {w.y * s, w.y * s},
                  dz = {w.z * s, w.z * s}, dc = {c, c};
    dem_v2d p = dc * q0, u = dc * q1;
    p = p + dx * (q0s * mp), u = u + dx * (q1s * mp);
    p = p + dy * (q1 * mp), u = u + dy * (q0 * pm);
    p = p + dz * (-q1s), u = u + dz * q0s;
    const dem_v2d pp = p * p, uu = u * u;
    *l2 = ((pp[0] + pp[1]) + uu[0]) + uu[1];
    r.w = p[0], r.x = p[1], r.y = u[0], r.z = u[1];
#else
    const cr_quat d = {c, w.x * s, w.y * s, w.z * s};
    r = cr_q_mul(d, q);
    *l2 = r.w * r.w + r.x * r.x + r.y * r.y + r.z * r.z;
#endif
    return r;
}

/* turn, step 3: |d| = 1 to the series' error and |q| = 1: one Newton step
 * of 1 / sqrt about 1 renormalises to rounding without a square root. */
static inline cr_quat turn_normalise(cr_quat r, double l2)
{
    double il;
    if (fabs(l2 - 1.0) < 1e-6) {
        il = 1.5 - 0.5 * l2;
    } else {
        if (!(l2 > 0.0 && isfinite(l2))) return cr_q_identity();
        il = 1.0 / sqrt(l2);
    }
    r.w *= il, r.x *= il, r.y *= il, r.z *= il;
    return r;
}

static void finish_item(const step_ctx *cx, uint32_t b);

/* The law on every listed pair whose first body is in the work item (LAMMPS
 * PairGranHookeHistory::compute): screen, history, law; the forces summed
 * into both bodies inside the item, into the second body's pf row across
 * items.
 *
 * In a world of DEM_LARGE bodies or more, an item runs in parts of
 * DEM_CHUNK first bodies (cx->part; else in one), each part's screen,
 * history and law in turn, so that a part's pairs, contacts and bodies are
 * still in the cache from one to the next: at 10^6 bodies an item of 4,096
 * bodies touched more than the L2 cache holds between its screen and its
 * law. The parts keep list order, so the law's sums are the same. With
 * cx->fused (forces: such a world, the items in order on one thread) each
 * body item is also finished right after its part: its bodies then have
 * every force (pairs inside the item summed, rows from earlier items
 * written), and the finish finds their f, t and kin lines in the cache
 * instead of reading them from memory in a pass of its own. */
/* A pf row of a pair that stopped touching back to zero (and its rolling
 * torque). */
static inline void zero_row(dem_pf *pf, cr_vec3 *pr, uint32_t row, dem_pf zero)
{
    pf[row] = zero;
    if (pr) pr[row] = cr_v3_zero();
}

static void task_pairs(uint32_t c0, uint32_t c1, uint32_t worker, void *arg)
{
    (void)worker;
    const step_ctx *cx = arg;
    cr_dem *d = cx->d;
    /* everything in locals: the compiler cannot tell that the stores do not
     * change the fields read through d or cx */
    const dem_box box = cx->bx, *bx = &box;
    const double *xr = d->xr;
    const uint32_t *nb = d->nb, *start = d->start;
    cr_vec3 *f = d->f, *t = d->t;
    dem_pf *pf = d->pf;
    cr_vec3 *pr = d->pr;
    uint32_t *chunk_count = d->chunk_count;
    uint32_t *d_ck = d->ck, *d_ci = d->ci;
    const uint32_t *rpos = d->rpos;
    const dem_pf zero_pf = {{0, 0, 0}, {0, 0, 0}};
    const dem_law law = {.kn = cx->kn,
                         .kt = cx->kt,
                         .gn = cx->gn,
                         .gt = cx->gt,
                         .mu = cx->mu,
                         .dt = cx->dt,
                         .update_shear = cx->update_shear,
                         .hertz = cx->hertz,
                         .rolling = d->rolling,
                         .roll = cx->roll,
                         .portable = d->portable};

    for (uint32_t it = c0; it < c1; ++it) {
        const uint32_t c = cx->fused ? it : d->chunk_order[it];
        uint32_t i0, i1;
        cr_dem_chunk_bodies(d, c, &i0, &i1);
        /* bodies of the item: their sums start here (pairs of the item
         * only; task_sum adds those from other items) */
        memset(f + i0, 0, sizeof *f * (i1 - i0));
        memset(t + i0, 0, sizeof *t * (i1 - i0));
        /* the touching pairs go to the item's part of ck from its start */
        const uint32_t base = start[i0], *pkc = d->pk + base, np = d->pcount[c];
        const cr_vec3 *ph = d->phist + base, *prh = d->rolling ? d->prhist + base : NULL;
        uint32_t a = 0, contacts = 0;
        for (uint32_t s0 = i0; s0 < i1; s0 += cx->part) {
            const uint32_t s1 = s0 + cx->part < i1 ? s0 + cx->part : i1;
            uint32_t *ck = d_ck + base + contacts, *ci = d_ci + base + contacts;
            const uint32_t m = cr_dem_screen(xr, d->fb, nb, start[s0], start[s1], bx, d->portable, ck, ci);
            /* history: the last step's contacts merged in (both lists in
             * list order); a contact that ended loses its history and its
             * force (its pf row: no other pair writes it) */
            cr_vec3 *hist = d->hist + base + contacts, *rhist = d->rolling ? d->rhist + base + contacts : NULL;
            for (uint32_t e = 0; e < m; ++e) {
                const uint32_t k = ck[e];
                /* the second body's kin line for the law, which starts after
                 * this loop: its own prefetch (a block ahead) was too late for
                 * a line from memory */
                DEM_PREFETCH(&d->kin[nb[k]], 0);
                for (; a < np && pkc[a] < k; ++a) zero_row(pf, pr, rpos[pkc[a]], zero_pf);
                if (a < np && pkc[a] == k) {
                    if (rhist) rhist[e] = prh[a];
                    hist[e] = ph[a++];
                } else {
                    if (rhist) rhist[e] = cr_v3_zero();
                    hist[e] = cr_v3_zero();
                }
            }
            /* the law on the touching pairs, in list order */
            cr_dem_law(d, bx, &law, ck, ci, hist, rhist, m, i1);
            contacts += m;
            if (cx->fused)
                for (uint32_t b = s0 / DEM_CHUNK; b * DEM_CHUNK < s1; ++b) finish_item(cx, b);
        }
        for (; a < np; ++a) zero_row(pf, pr, rpos[pkc[a]], zero_pf);
        chunk_count[c] = contacts;
    }
}

/* ---- the passes over the bodies ---------------------------------------- *
 *
 * In short loops over blocks of DEM_BLOCK bodies: a body's work is one long
 * chain of dependent operations, and short loops let the processor overlap
 * many bodies, while the block's data stays in the L1 cache between them. */

#define DEM_BLOCK 32u

/* Each body's force and torque: its pairs as first body (and as second
 * inside its work item), summed by task_pairs, then those where it is second
 * to a body of an earlier item, in list order, then gravity. */
static void sum_block(const step_ctx *cx, uint32_t i0, uint32_t i1)
{
    cr_dem *d = cx->d;
    const dem_pf *pf = d->pf;
    const uint32_t *prow = d->prow;
    const double *xr = d->xr;
    const dem_kin *kin = d->kin;
    cr_vec3 *fo = d->f, *to = d->t;
    const cr_vec3 g = cx->g;
    /* the block's rows in one loop (each body's in list order): a loop per
     * body would be short, its end a mispredicted branch; entries of pairs
     * not touching are zero, adding them changes no bit */
    for (uint32_t e = d->rstart[i0], e1 = d->rstart[i1]; e < e1; ++e) {
        const uint32_t j = prow[e];
        fo[j] = cr_v3_sub(fo[j], pf[e].f), to[j] = cr_v3_madd(to[j], pf[e].t, -xr[4 * (size_t)j + 3]);
    }
    /* rolling: the second bodies' rolling torques (-T_roll), in the same order */
    if (d->pr)
        for (uint32_t e = d->rstart[i0], e1 = d->rstart[i1]; e < e1; ++e) to[prow[e]] = cr_v3_sub(to[prow[e]], d->pr[e]);
    for (uint32_t i = i0; i < i1; ++i)
        if (kin[i].flags & DEM_DYN) fo[i] = cr_v3_madd(fo[i], g, kin[i].mass);
}

/* Half kick by the forces in f, t (LAMMPS fix nve/sphere). */
static void kick_block(const step_ctx *cx, uint32_t i0, uint32_t i1)
{
    cr_dem *d = cx->d;
    const double h = cx->h, *inv_mass = d->inv_mass, *inv_inertia = d->inv_inertia;
    const cr_vec3 *f = d->f, *t = d->t;
    dem_kin *kin = d->kin;
    for (uint32_t i = i0; i < i1; ++i)
        if (kin[i].flags & DEM_DYN) {
            kin[i].v = cr_v3_madd(kin[i].v, f[i], h * inv_mass[i]);
            kin[i].w = cr_v3_madd(kin[i].w, t[i], h * inv_inertia[i]);
        }
}

/* True when a number of the step's state is not finite (a sum of them all
 * is not). */
static bool finite_block(const step_ctx *cx, uint32_t i0, uint32_t i1)
{
    const cr_dem *d = cx->d;
    const double *xr = d->xr;
    const dem_kin *kin = d->kin;
    /* 0 unless a number is not finite: each body's numbers summed, times
     * 0, its bits ORed in (no chain of adds from body to body, which set
     * the pace of this loop) */
    uint64_t bits = 0;
    for (uint32_t i = i0; i < i1; ++i) {
        const double *x = xr + 4 * (size_t)i;
        const cr_vec3 vi = kin[i].v, wi = kin[i].w;
        const double z = 0.0 * (((x[0] + x[1]) + (x[2] + vi.x)) + ((vi.y + vi.z) + (wi.x + wi.y)) + wi.z);
        uint64_t u;
        memcpy(&u, &z, sizeof u);
        bits |= u << 1; /* without the sign bit: +0 and -0 are 0 */
    }
    return bits != 0;
}

/* Drift and wrap; true when a body has moved past half the skin since the
 * list build. disp (lo x, y, z, hi x, y, z) grows to hold the block's
 * displacements since the build (list_valid_after_move). */
static bool drift_block(const step_ctx *cx, uint32_t i0, uint32_t i1, double disp[6])
{
    cr_dem *d = cx->d;
    const dem_box box = cx->bx;
    const double dt = cx->dt, lim = cx->lim;
    double *xr = d->xr;
    const dem_kin *kin = d->kin;
    const cr_vec3 *x_build = d->x_build;
    /* wrap3's test that a centre is inside the box, for the three axes at
     * once (an axis that is not periodic takes every number but NaN): one
     * well-predicted branch a body instead of a loop over the axes */
    double lo[3], hi[3];
    for (int k = 0; k < 3; ++k) {
        lo[k] = box.periodic[k] ? box.lo[k] : -INFINITY;
        hi[k] = box.periodic[k] ? box.lo[k] + box.L[k] : INFINITY;
    }
    bool far = false;
    double lx = disp[0], ly = disp[1], lz = disp[2], hx = disp[3], hy = disp[4], hz = disp[5];
    for (uint32_t i = i0; i < i1; ++i) {
        double *x = xr + 4 * (size_t)i;
        const cr_vec3 vi = kin[i].v, xb = x_build[i];
        x[0] += vi.x * dt, x[1] += vi.y * dt, x[2] += vi.z * dt;
        const bool inside = (x[0] >= lo[0]) & (x[0] < hi[0]) & (x[1] >= lo[1]) & (x[1] < hi[1]) & (x[2] >= lo[2]) &
                            (x[2] < hi[2]);
        if (!inside) wrap3(&box, x);
        const cr_vec3 u = min_image(&box, cr_v3(x[0] - xb.x, x[1] - xb.y, x[2] - xb.z));
        far |= cr_v3_len2(u) > lim;
        lx = u.x < lx ? u.x : lx, ly = u.y < ly ? u.y : ly, lz = u.z < lz ? u.z : lz;
        hx = u.x > hx ? u.x : hx, hy = u.y > hy ? u.y : hy, hz = u.z > hz ? u.z : hz;
    }
    disp[0] = lx, disp[1] = ly, disp[2] = lz, disp[3] = hx, disp[4] = hy, disp[5] = hz;
    return far;
}

static void turn_block(const step_ctx *cx, uint32_t i0, uint32_t i1)
{
    cr_dem *d = cx->d;
    const double dt = cx->dt;
    const dem_kin *kin = d->kin;
    cr_quat *q = d->q;
    /* in the three steps of turn, each over the block (a body's turn is
     * one long chain) */
    double c[DEM_BLOCK], s[DEM_BLOCK], l2[DEM_BLOCK];
    cr_quat r[DEM_BLOCK];
    uint8_t kind[DEM_BLOCK]; /* 0: no turn, 1: the series, 2: cr_q_integrate */
    const uint32_t m = i1 - i0;
    for (uint32_t e = 0; e < m; ++e) {
        const bool small = turn_series(kin[i0 + e].w, dt, &c[e], &s[e]);
        kind[e] = (uint8_t)(kin[i0 + e].flags & DEM_ROT ? (small ? 1 : 2) : 0);
    }
    for (uint32_t e = 0; e < m; ++e)
        if (kind[e] == 1) r[e] = turn_product(q[i0 + e], kin[i0 + e].w, c[e], s[e], &l2[e]);
    for (uint32_t e = 0; e < m; ++e) {
        if (kind[e] == 1) q[i0 + e] = turn_normalise(r[e], l2[e]);
        if (kind[e] == 2) q[i0 + e] = cr_q_integrate(q[i0 + e], kin[i0 + e].w, dt);
    }
}

/* The first half of a step (LAMMPS fix nve/sphere's initial_integrate):
 * half kick, drift, turn and wrap. The turn only when the world asks for
 * orientations: nothing in the law reads them (LAMMPS's nve/sphere with
 * atom_style sphere keeps none), and on a flow the turn is about a tenth of
 * the step. */
static bool advance_block(const step_ctx *cx, uint32_t i0, uint32_t i1, double disp[6])
{
    bool far;
    if (cx->avx2) {
        far = cr_dem_advance_avx2(cx->d, &cx->bx, cx->h, cx->dt, cx->lim, i0, i1, disp);
    } else {
        kick_block(cx, i0, i1);
        far = drift_block(cx, i0, i1, disp);
    }
    if (cx->turn) turn_block(cx, i0, i1);
    return far;
}

/* The forces of the set-up (no kick). */
static void task_sum(uint32_t c0, uint32_t c1, uint32_t worker, void *arg)
{
    (void)worker;
    const step_ctx *cx = arg;
    const cr_dem *d = cx->d;
    for (uint32_t c = c0; c < c1; ++c) {
        uint32_t i0, i1;
        cr_dem_item_bodies(d, c, &i0, &i1);
        sum_block(cx, i0, i1);
    }
}

/* The first half of the step: half kick, drift, turn, wrap; flags the
 * items where a body moved past half the skin and keeps the box of each
 * item's displacements since the build (list_valid_after_move). */
static void task_move(uint32_t c0, uint32_t c1, uint32_t worker, void *arg)
{
    (void)worker;
    const step_ctx *cx = arg;
    const cr_dem *d = cx->d;
    for (uint32_t c = c0; c < c1; ++c) {
        uint32_t i0, i1;
        cr_dem_item_bodies(d, c, &i0, &i1);
        bool far = false;
        double *disp = d->chunk_disp + 6 * (size_t)c;
        disp[0] = disp[1] = disp[2] = INFINITY, disp[3] = disp[4] = disp[5] = -INFINITY;
        for (uint32_t j0 = i0; j0 < i1; j0 += DEM_BLOCK)
            far |= advance_block(cx, j0, j0 + DEM_BLOCK < i1 ? j0 + DEM_BLOCK : i1, disp);
        d->chunk_flag[c] = far ? DEM_FAR : 0;
    }
}

/* True while the list holds every pair that can touch (docs/physics.md
 * "DEM"). A pair left out was r >= r_i + r_j + skin apart at the build; it
 * has come closer by at most |u_i - u_j|, u the displacements since the
 * build, so it cannot touch while |u_i - u_j| <= skin for every pair. Two
 * bounds of that: 2 max |u| (LAMMPS's check, neigh_modify check yes: no
 * body has moved past half the skin), and the diagonal of the box holding
 * every u, since |u_i - u_j|^2 = sum over axes of (u_ik - u_jk)^2 <= sum
 * of the box's widths squared. The second is the lazier one when the
 * bodies move together: in the chute's flow, bodies drift downhill at up to
 * 15 while the base stays, so the box is about half of 2 max |u| and the
 * list is rebuilt half as often. Either bound keeps every pair that can
 * touch: both are exact, only the moment of the rebuild changes. */
static bool list_valid_after_move(const cr_dem *d)
{
    bool far = false;
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t c = 0, items = cr_dem_body_items(d); c < items; ++c) {
        far |= (d->chunk_flag[c] & DEM_FAR) != 0;
        const double *disp = d->chunk_disp + 6 * (size_t)c;
        for (int k = 0; k < 3; ++k) lo[k] = fmin(lo[k], disp[k]), hi[k] = fmax(hi[k], disp[3 + k]);
    }
    if (!far) return true;
    double diag2 = 0.0;
    for (int k = 0; k < 3; ++k) diag2 += (hi[k] - lo[k]) * (hi[k] - lo[k]);
    return diag2 <= d->skin * d->skin;
}

/* The end of the step (LAMMPS fix nve/sphere's final_integrate): the
 * forces and the second half kick; flags a number not finite. The world's
 * slots are written by task_store, in slot order: written here, in sorted
 * order, they would be scattered writes, which cost more than task_store's
 * scattered reads. */
static void finish_item(const step_ctx *cx, uint32_t b)
{
    cr_dem *d = cx->d;
    uint32_t i0, i1;
    cr_dem_item_bodies(d, b, &i0, &i1);
    bool bad = false;
    for (uint32_t j0 = i0; j0 < i1; j0 += DEM_BLOCK) {
        const uint32_t j1 = j0 + DEM_BLOCK < i1 ? j0 + DEM_BLOCK : i1;
        sum_block(cx, j0, j1);
        kick_block(cx, j0, j1);
        bad |= finite_block(cx, j0, j1);
    }
    d->chunk_flag[b] = bad ? DEM_BAD : 0;
}

static void task_finish(uint32_t c0, uint32_t c1, uint32_t worker, void *arg)
{
    (void)worker;
    for (uint32_t c = c0; c < c1; ++c) finish_item(arg, c);
}

/* Write the DEM's x, v, w, q back to the world's slots, in slot order
 * (scattered reads cost less than scattered writes). */
static void store_slots(const cr_dem *d, const cr_bodies *b, uint32_t s0, uint32_t s1)
{
    for (uint32_t s = s0; s < s1 && s < d->map_slots; ++s) {
        uint32_t i = d->sorted_of[s];
        if (i == UINT32_MAX) continue;
        b->x[s] = cr_v3(d->xr[4 * i], d->xr[4 * i + 1], d->xr[4 * i + 2]);
        b->v[s] = d->kin[i].v, b->w[s] = d->kin[i].w, b->q[s] = d->q[i];
    }
}

static void task_store(uint32_t c0, uint32_t c1, uint32_t worker, void *arg)
{
    (void)worker;
    const step_ctx *cx = arg;
    store_slots(cx->d, cx->b, c0 * cx->d->chunk, c1 * cx->d->chunk);
}

void cr_dem_sync(const cr_world *w)
{
    cr_dem *d = w->dem;
    if (!d || !d->world_stale) return;
    d->world_stale = false;
    store_slots(d, &w->bodies, 0, d->map_slots);
}

/* The pairs' items, costliest first (the threads take them in this
 * order): the items differ (the chute's top item has half the listed pairs
 * of the others and a twentieth of their contacts), and a pass whose last
 * item is a large one leaves the other threads idle meanwhile. The cost:
 * the listed pairs (the screen) and the last step's contacts (the law, about
 * 15 times a listed pair's time). Each item writes only its own data, so the
 * order changes no result. */
static void order_items(cr_dem *d, uint32_t chunks)
{
    uint32_t *ord = d->chunk_order;
    uint64_t cost[64];
    const bool small = chunks <= 64;
    for (uint32_t c = 0; c < chunks; ++c) {
        ord[c] = c;
        if (!small) continue;
        uint32_t i0, i1;
        cr_dem_chunk_bodies(d, c, &i0, &i1);
        cost[c] = (uint64_t)(d->start[i1] - d->start[i0]) + 15u * (uint64_t)d->pcount[c];
    }
    if (!small) return; /* many items: the last is a small part of the pass */
    for (uint32_t a = 1; a < chunks; ++a)
        for (uint32_t b = a; b > 0 && cost[ord[b - 1]] < cost[ord[b]]; --b) {
            const uint32_t u = ord[b];
            ord[b] = ord[b - 1], ord[b - 1] = u;
        }
}

/* The pair forces; with sum, each body's total (set-up: no kick). With
 * finish, the end of the step too, in the same pass as the pairs
 * (task_pairs, cx->fused), when the items run on the caller's thread; true
 * then, false when task_finish is left to run (the same operations on each
 * body in the same order either way: the same bits). */
static bool forces(cr_world *w, step_ctx *cx, bool sum, bool finish)
{
    cr_dem *d = w->dem;
    uint32_t chunks = cr_dem_chunks(d, d->n);
    const bool large = d->n >= d->large_from;
    cx->part = large ? DEM_CHUNK : d->chunk;
    cx->fused = finish && large && cr_runs_on_caller(w, chunks);
    if (cx->fused) {
        task_pairs(0, chunks, 0, cx);
    } else {
        order_items(d, chunks);
        cr_run_items(w, task_pairs, chunks, cx);
    }
    uint32_t contacts = 0;
    for (uint32_t c = 0; c < chunks; ++c) contacts += d->pcount[c] = d->chunk_count[c];
    /* this step's contacts are the next one's last */
    uint32_t *u = d->ck;
    d->ck = d->pk, d->pk = u;
    u = d->ci, d->ci = d->pi, d->pi = u;
    cr_vec3 *h = d->hist;
    d->hist = d->phist, d->phist = h;
    h = d->rhist, d->rhist = d->prhist, d->prhist = h;
    w->stats.contacts = contacts;
    if (sum) cr_run_items(w, task_sum, cr_dem_body_items(d), cx);
    return cx->fused;
}

static double now_seconds(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static step_ctx ctx_of(cr_world *w)
{
    const cr_hooke *hk = &w->def.hooke;
    step_ctx cx = {.d = w->dem,
                   .b = &w->bodies,
                   .bx = cr_dem_box_of(w),
                   .dt = w->def.dt,
                   .h = 0.5 * w->def.dt,
                   .kn = hk->kn,
                   .kt = hk->kt,
                   .gn = hk->gamma_n,
                   .gt = hk->gamma_t,
                   .mu = hk->mu,
                   .roll = {hk->k_roll, hk->gamma_roll, hk->mu_roll},
                   .hertz = hk->model == CR_DEM_HERTZ,
                   .g = w->def.gravity,
                   .turn = w->def.integrate_orientation,
                   .avx2 = cr_dem_has_avx2(w->dem)};
    return cx;
}

/* The set-up, when a change from outside asks for it: the forces of the
 * current state, history not advanced (LAMMPS's set-up before a run). */
static cr_status setup_if_needed(cr_world *w, step_ctx *cx)
{
    cr_dem *d = w->dem;
    if (d->forces_valid && d->list_valid) return CR_OK;
    cr_dem_sync(w); /* a no-op: whatever changed a body has synced first */
    cr_status s = cr_dem_build(w, &cx->bx);
    if (s != CR_OK) return s;
    cx->update_shear = false;
    forces(w, cx, true, false);
    d->forces_valid = true;
    return CR_OK;
}

cr_status cr_dem_prepare(cr_world *w)
{
    if (!ensure(w)) return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "dem: out of memory");
    step_ctx cx = ctx_of(w);
    return setup_if_needed(w, &cx);
}

cr_status cr_dem_step(cr_world *w)
{
    if (!ensure(w)) return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "dem: out of memory");
    cr_dem *d = w->dem;
    step_ctx cx = ctx_of(w);
    double t0 = now_seconds(), t1, setup;
    cr_status s;
    /* the set-up, if cr_world_prepare has not done it (timed with the list
     * builds) */
    if ((s = setup_if_needed(w, &cx)) != CR_OK) return s;
    t1 = now_seconds();
    setup = t1 - t0;
    t0 = t1;
    cx.lim = 0.25 * d->skin * d->skin;
    cr_run_items(w, task_move, cr_dem_body_items(d), &cx);
    const bool rebuild = !list_valid_after_move(d);
    t1 = now_seconds();
    w->stats.stage_seconds[CR_STAGE_PREDICT] = t1 - t0;
    t0 = t1;
    if (rebuild) {
        /* the build gathers the bodies from the world's slots */
        cr_run_items(w, task_store, cr_dem_chunks(d, d->map_slots), &cx);
        d->world_stale = false;
        if ((s = cr_dem_build(w, &cx.bx)) != CR_OK) return s;
    }
    w->stats.candidate_pairs = d->pair_count;
    t1 = now_seconds();
    w->stats.stage_seconds[CR_STAGE_BROAD_PHASE] = t1 - t0 + setup;
    t0 = t1;
    cx.update_shear = true;
    /* the pairs, and the end of the step with them on one thread (the
     * contacts stage's time holds the finish's then) */
    const bool finished = forces(w, &cx, false, true);
    t1 = now_seconds();
    w->stats.stage_seconds[CR_STAGE_CONTACTS] = t1 - t0;
    t0 = t1;
    const uint32_t items = cr_dem_body_items(d);
    if (!finished) cr_run_items(w, task_finish, items, &cx);
    bool bad = false;
    for (uint32_t c = 0; c < items; ++c) bad |= (d->chunk_flag[c] & DEM_BAD) != 0;
    d->world_stale = true;
    if (bad) {
        /* cr_check_finite reads the world's slots */
        cr_run_items(w, task_store, cr_dem_chunks(d, d->map_slots), &cx);
        d->world_stale = false;
    }
    if (bad && (s = cr_check_finite(w, " (method dem: is dt small against sqrt(m / kn)?)")) != CR_OK) return s;
    w->stats.stage_seconds[CR_STAGE_FINISH] = now_seconds() - t0;
    w->steps++;
    w->time = w->time_base + (double)(w->steps - w->steps_base) * cx.dt;
    return CR_OK;
}
