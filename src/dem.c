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
 * A kinematic body is immovable to the others (m_eff = the other's mass) and
 * feels no force: a frozen body (LAMMPS fix freeze) is a kinematic body with
 * zero velocity. Kinematic-kinematic pairs are never listed.
 *
 * Pairs come from a Verlet list with a skin, rebuilt from a cell grid when a
 * body has moved more than half the skin since the last build; the list is
 * grouped by the pair's first body (sorted order, below), and each pair's
 * shear history is carried into the new list by its body pair. A pair that
 * stops touching loses its history, as in LAMMPS.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dem_internal.h"

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
 * (sums, second half kick), store (the world's slots). */

/* Bodies per work item: from DEM_CHUNK up to 8 DEM_CHUNK, for 16 items or
 * more (a pair whose bodies lie in two items costs a row in pf and a read
 * more). It depends on the number of bodies only: not on the threads. */
#define DEM_CHUNK 512u

typedef struct dem_pf {
    cr_vec3 f, t;
} dem_pf;

struct cr_dem {
    /* sorted bodies */
    uint32_t n, cap;
    double *xr;              /* x, y, z, radius */
    cr_vec3 *v, *w, *f, *t, *x_build;
    cr_quat *q;
    double *mass, *inv_mass, *inv_inertia;
    uint8_t *flags;          /* DEM_DYN, DEM_ROT */
    uint32_t *slot, *cell;   /* cell: the Morton rank of the body's grid cell */
    uint32_t *sorted_of, map_cap; /* by world slot; UINT32_MAX: not in the DEM */
    uint32_t map_slots;
    double skin;
    /* half list: pairs (i, nb[k]) for k in [start[i], start[i + 1]) */
    uint32_t *start, *rstart, start_cap; /* rstart: each body's entries in pf, as second body */
    uint32_t *nb, *rpos;     /* rpos: the pair's entry in pf (the sink entry for a pair inside a work item) */
    uint32_t *fb;            /* the pair's first body: the screen runs over the pairs in one loop */
    uint32_t *prow;          /* the second body of each row of pf, for the same reason */
    /* contacts, each work item's from its start[i0]: this step's (ck, ci:
     * pair and first body, hist: shear history, in list order) and the
     * last step's (pk, pi, phist; pcount per item), swapped after the
     * forces. A pair's history is found by merging the two lists. */
    cr_vec3 *hist, *phist;
    uint32_t *pk, *pi, *pcount;
    dem_pf *pf;              /* of the pairs across work items, by second body: force on the first body and
                              * torque lever (d x F_t) / r; zero unless the pair touches */
    uint32_t pf_sink;        /* the entry written by pairs inside a work item */
    uint32_t *ck, *ci;
    uint32_t pair_count, pair_cap;
    /* history kept across a build, by world slots */
    uint32_t *ha, *hb, hcount, hcap;
    cr_vec3 *hs;
    uint32_t *hstart, hstart_cap;
    /* grid */
    uint32_t *cell_start, cell_cap;
    uint32_t *rank, rank_cap;   /* Morton rank of each linear cell */
    int32_t rank_dims[3];
    /* for each cell (by rank), the ranks r' >= its own of the 27 cells
     * around it, in the stencil's order: the others hold only bodies
     * before the cell's in sorted order, never a pair of the half list */
    uint32_t *up_start, up_start_cap, *up, up_cap;
    uint32_t *order;           /* live slots (scratch of a build) */
    uint32_t *scr, scr_cap, per_body; /* neighbours found by the work items (scratch of a build) */
    /* per chunk results */
    uint32_t *chunk_count, chunk_cap;
    uint8_t *chunk_flag;
    uint32_t chunk; /* bodies per work item, set by the build */
    bool list_valid, forces_valid;
    bool world_stale; /* the world's x, v, w, q lag the sorted arrays (cr_dem_sync) */
    cr_dem_pool *pool;
};

enum { DEM_DYN = 1, DEM_ROT = 2 };
enum { DEM_FAR = 1, DEM_BAD = 2 }; /* chunk_flag: a body moved past half the skin; a number not finite */

static void free_arrays(cr_world *w, cr_dem *d)
{
    void *ps[] = {d->xr,    d->v,     d->w,     d->f,    d->t,      d->x_build,  d->q,     d->mass,
                  d->inv_mass, d->inv_inertia, d->flags, d->slot, d->cell, d->sorted_of, d->start, d->rstart,
                  d->nb,    d->rpos, d->fb, d->prow,    d->hist, d->phist, d->pf, d->pk, d->pi, d->pcount, d->ck, d->ci,    d->ha,    d->hb,
                  d->hs,    d->hstart, d->scr, d->cell_start, d->rank, d->order, d->chunk_count, d->chunk_flag,
                  d->up_start, d->up};
    for (size_t k = 0; k < sizeof ps / sizeof ps[0]; ++k) cr_free(w, ps[k]);
}

void cr_dem_free(cr_world *w)
{
    cr_dem *d = w->dem;
    if (!d) return;
    cr_dem_pool_destroy(w, d->pool);
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

static uint32_t chunk_count_of(const cr_dem *d, uint32_t n) { return (n + d->chunk - 1) / d->chunk; }

void cr_dem_body_removed(cr_world *w, uint32_t i)
{
    cr_dem *d = w->dem;
    if (!d) return;
    /* The slot may be reused by a new body: it must not inherit contacts. */
    if (d->list_valid || d->n) {
        uint32_t s = i < d->map_slots ? d->sorted_of[i] : UINT32_MAX;
        if (s != UINT32_MAX && s < d->n && d->start && d->chunk)
            for (uint32_t c = 0, chunks = chunk_count_of(d, d->n); c < chunks; ++c) {
                uint32_t base = d->start[c * d->chunk], m = 0;
                for (uint32_t e = 0; e < d->pcount[c]; ++e) {
                    uint32_t k = d->pk[base + e], a = d->pi[base + e];
                    if (a == s || d->nb[k] == s) continue;
                    d->pk[base + m] = k, d->pi[base + m] = a, d->phist[base + m++] = d->phist[base + e];
                }
                d->pcount[c] = m;
            }
    }
    cr_dem_touch(w);
}

uint32_t cr_dem_pair_count(const cr_world *w) { return w->dem ? w->dem->pair_count : 0; }

/* Minimum-image geometry of the world: L and 1/L per periodic axis, 0 else. */
typedef struct dem_box {
    double L[3], half[3], lo[3];
    bool periodic[3];
} dem_box;

static dem_box box_of(const cr_world *w)
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

/* Centres are kept wrapped into [lo, lo + L), so a difference lies in
 * (-L, L) and one period at most brings it to the minimum image: the same
 * numbers as d - L rint(d / L), without the rounding. */
static inline double image_axis(double d, double L, double half)
{
    return d > half ? d - L : d < -half ? d + L : d;
}

static inline cr_vec3 min_image(const dem_box *b, cr_vec3 d)
{
    if (b->periodic[0]) d.x = image_axis(d.x, b->L[0], b->half[0]);
    if (b->periodic[1]) d.y = image_axis(d.y, b->L[1], b->half[1]);
    if (b->periodic[2]) d.z = image_axis(d.z, b->L[2], b->half[2]);
    return d;
}

static inline double wrap_axis(double x, double lo, double L)
{
    if (x >= lo && x < lo + L) return x;
    x -= L * floor((x - lo) / L);
    /* rounding can leave x == lo + L */
    return x >= lo + L ? lo : x;
}

static inline void wrap3(const dem_box *bx, double *x)
{
    for (int k = 0; k < 3; ++k)
        if (bx->periodic[k]) x[k] = wrap_axis(x[k], bx->lo[k], bx->L[k]);
}

/* Grow p from old to new elements (contents kept). */
static bool regrow(cr_world *w, void **p, uint32_t old, uint32_t cap, size_t elem)
{
    void *np = cr_alloc(w, (size_t)cap * elem);
    if (!np) return false;
    if (*p) {
        memcpy(np, *p, (size_t)old * elem);
        cr_free(w, *p);
    }
    *p = np;
    return true;
}

static uint32_t cap_for(uint32_t need)
{
    uint64_t c = 16;
    while (c < need) c *= 2;
    return c > UINT32_MAX ? UINT32_MAX : (uint32_t)c;
}

static bool ensure(cr_world *w)
{
    if (!w->dem) {
        w->dem = cr_alloc(w, sizeof *w->dem);
        if (!w->dem) return false;
        memset(w->dem, 0, sizeof *w->dem);
    }
    return true;
}

static bool reserve_bodies(cr_world *w, cr_dem *d, uint32_t n, uint32_t slots)
{
    if (n + 1 > d->cap) {
        uint32_t c = cap_for(n + 1), o = d->cap;
        if (!regrow(w, (void **)&d->xr, 4 * o, 4 * c, sizeof(double)) || !regrow(w, (void **)&d->v, o, c, sizeof(cr_vec3)) ||
            !regrow(w, (void **)&d->w, o, c, sizeof(cr_vec3)) || !regrow(w, (void **)&d->f, o, c, sizeof(cr_vec3)) ||
            !regrow(w, (void **)&d->t, o, c, sizeof(cr_vec3)) || !regrow(w, (void **)&d->x_build, o, c, sizeof(cr_vec3)) ||
            !regrow(w, (void **)&d->q, o, c, sizeof(cr_quat)) || !regrow(w, (void **)&d->mass, o, c, sizeof(double)) ||
            !regrow(w, (void **)&d->inv_mass, o, c, sizeof(double)) ||
            !regrow(w, (void **)&d->inv_inertia, o, c, sizeof(double)) || !regrow(w, (void **)&d->flags, o, c, 1) ||
            !regrow(w, (void **)&d->slot, o, c, sizeof(uint32_t)) || !regrow(w, (void **)&d->cell, o, c, sizeof(uint32_t)) ||
            !regrow(w, (void **)&d->order, o, c, sizeof(uint32_t)) || !regrow(w, (void **)&d->start, o, c, sizeof(uint32_t)) ||
            !regrow(w, (void **)&d->rstart, o, c, sizeof(uint32_t)))
            return false;
        d->cap = c;
    }
    if (slots + 1 > d->map_cap) {
        uint32_t c = cap_for(slots + 1);
        if (!regrow(w, (void **)&d->sorted_of, d->map_cap, c, sizeof(uint32_t))) return false;
        d->map_cap = c;
    }
    uint32_t chunks = (n + DEM_CHUNK - 1) / DEM_CHUNK + 1;
    if (chunks > d->chunk_cap) {
        uint32_t c = cap_for(chunks);
        if (!regrow(w, (void **)&d->chunk_count, d->chunk_cap, c, sizeof(uint32_t)) ||
            !regrow(w, (void **)&d->chunk_flag, d->chunk_cap, c, 1) ||
            !regrow(w, (void **)&d->pcount, d->chunk_cap, c, sizeof(uint32_t)))
            return false;
        d->chunk_cap = c;
    }
    return true;
}

static bool reserve_pairs(cr_world *w, cr_dem *d, uint32_t need)
{
    if (need <= d->pair_cap) return true;
    uint32_t c = cap_for(need), o = d->pair_cap;
    if (!regrow(w, (void **)&d->nb, o, c, sizeof(uint32_t)) || !regrow(w, (void **)&d->rpos, o, c, sizeof(uint32_t)) ||
        !regrow(w, (void **)&d->fb, o, c, sizeof(uint32_t)) || !regrow(w, (void **)&d->prow, o, c, sizeof(uint32_t)) ||
        !regrow(w, (void **)&d->hist, o, c, sizeof(cr_vec3)) || !regrow(w, (void **)&d->phist, o, c, sizeof(cr_vec3)) ||
        !regrow(w, (void **)&d->pf, o, c, sizeof(dem_pf)) || !regrow(w, (void **)&d->pk, o, c, sizeof(uint32_t)) ||
        !regrow(w, (void **)&d->pi, o, c, sizeof(uint32_t)) || !regrow(w, (void **)&d->ck, o, c, sizeof(uint32_t)) ||
        !regrow(w, (void **)&d->ci, o, c, sizeof(uint32_t)))
        return false;
    d->pair_cap = c;
    return true;
}

/* ---- work items ------------------------------------------------------- */


static void run_items(cr_world *w, cr_task_fn *fn, uint32_t items, void *ctx)
{
    if (items == 0) return;
    const cr_world_def *def = &w->def;
    if (def->enqueue_task && def->finish_task && items > 1) {
        void *task = def->enqueue_task(fn, items, 1, ctx, def->user_task_context);
        if (task) def->finish_task(task, def->user_task_context);
        return;
    }
    if (def->worker_count > 1 && items > 1) {
        cr_dem *d = w->dem;
        if (!d->pool) d->pool = cr_dem_pool_create(w, def->worker_count);
        if (d->pool) {
            cr_dem_pool_run(d->pool, fn, items, ctx);
            return;
        }
    }
    fn(0, items, 0, ctx);
}

typedef struct step_ctx {
    cr_dem *d;
    cr_bodies *b;
    dem_box bx;
    double dt, h, lim, kn, kt, gn, gt, mu;
    cr_vec3 g;
    bool update_shear;
} step_ctx;

/* ---- sort and list ---------------------------------------------------- */

static inline uint32_t spread3(uint32_t v)
{
    v &= 0x3ffu;
    v = (v | (v << 16)) & 0x030000ffu;
    v = (v | (v << 8)) & 0x0300f00fu;
    v = (v | (v << 4)) & 0x030c30c3u;
    v = (v | (v << 2)) & 0x09249249u;
    return v;
}

/* rank[c]: position of linear cell c along the Morton curve of the grid
 * (codes of 30 bits: three stable passes of a radix sort by 10 bits, linear
 * in the cells where qsort took most of the first build). */
static bool morton_ranks(cr_world *w, cr_dem *d, const int32_t dims[3], uint32_t cells, const bool periodic[3])
{
    if (d->rank && d->rank_dims[0] == dims[0] && d->rank_dims[1] == dims[1] && d->rank_dims[2] == dims[2]) return true;
    if (!cr_grow(w, (void **)&d->rank, &d->rank_cap, cells, sizeof *d->rank)) return false;
    uint64_t *key = cr_alloc(w, sizeof *key * 2 * (size_t)cells);
    uint32_t *count = cr_alloc(w, sizeof *count * 1024);
    if (!key || !count) {
        cr_free(w, key), cr_free(w, count);
        return false;
    }
    uint64_t *tmp = key + cells;
    for (uint32_t c = 0; c < cells; ++c) {
        uint32_t x = c % (uint32_t)dims[0], y = c / (uint32_t)dims[0] % (uint32_t)dims[1],
                 z = c / ((uint32_t)dims[0] * (uint32_t)dims[1]);
        uint64_t m = spread3(x) | (spread3(y) << 1) | ((uint64_t)spread3(z) << 2);
        key[c] = (m << 32) | c;
    }
    for (int pass = 0; pass < 3; ++pass) {
        const int shift = 32 + 10 * pass;
        memset(count, 0, sizeof *count * 1024);
        for (uint32_t c = 0; c < cells; ++c) count[(key[c] >> shift) & 1023u]++;
        for (uint32_t b = 0, sum = 0; b < 1024; ++b) {
            uint32_t k = count[b];
            count[b] = sum, sum += k;
        }
        for (uint32_t c = 0; c < cells; ++c) tmp[count[(key[c] >> shift) & 1023u]++] = key[c];
        uint64_t *t = key;
        key = tmp, tmp = t;
    }
    /* three passes: the sorted keys are in the second half */
    for (uint32_t r = 0; r < cells; ++r) d->rank[(uint32_t)key[r]] = r;
    cr_free(w, count);
    /* the upper stencils (the grid has 3 cells or more along a periodic
     * axis: no cell is its own neighbour twice) */
    if (!cr_grow(w, (void **)&d->up_start, &d->up_start_cap, cells + 1, sizeof *d->up_start) ||
        !cr_grow(w, (void **)&d->up, &d->up_cap, 27 * cells, sizeof *d->up)) {
        cr_free(w, key < tmp ? key : tmp);
        return false;
    }
    uint32_t u = 0;
    for (uint32_t r = 0; r < cells; ++r) {
        const uint32_t c = (uint32_t)key[r];
        const int32_t cx = (int32_t)(c % (uint32_t)dims[0]), cy = (int32_t)(c / (uint32_t)dims[0] % (uint32_t)dims[1]),
                      cz = (int32_t)(c / ((uint32_t)dims[0] * (uint32_t)dims[1]));
        d->up_start[r] = u;
        for (int dz = -1; dz <= 1; ++dz) {
            int32_t z = cz + dz;
            if (z < 0 || z >= dims[2]) {
                if (!periodic[2]) continue;
                z = (z + dims[2]) % dims[2];
            }
            for (int dy = -1; dy <= 1; ++dy) {
                int32_t y = cy + dy;
                if (y < 0 || y >= dims[1]) {
                    if (!periodic[1]) continue;
                    y = (y + dims[1]) % dims[1];
                }
                for (int dx = -1; dx <= 1; ++dx) {
                    int32_t x = cx + dx;
                    if (x < 0 || x >= dims[0]) {
                        if (!periodic[0]) continue;
                        x = (x + dims[0]) % dims[0];
                    }
                    const uint32_t q = d->rank[((uint32_t)z * (uint32_t)dims[1] + (uint32_t)y) * (uint32_t)dims[0] + (uint32_t)x];
                    if (q >= r) d->up[u++] = q;
                }
            }
        }
    }
    d->up_start[cells] = u;
    cr_free(w, key < tmp ? key : tmp);
    memcpy(d->rank_dims, dims, sizeof d->rank_dims);
    return true;
}

/* Keep the touching pairs' history by world slots before a build. */
static bool save_history(cr_world *w, cr_dem *d)
{
    d->hcount = 0;
    if (!d->start || !d->n) return true;
    uint32_t m = 0;
    const uint32_t chunks = chunk_count_of(d, d->n);
    for (uint32_t c = 0; c < chunks; ++c) m += d->pcount[c];
    if (m > d->hcap) {
        uint32_t c = cap_for(m);
        if (!regrow(w, (void **)&d->ha, 0, c, sizeof(uint32_t)) || !regrow(w, (void **)&d->hb, 0, c, sizeof(uint32_t)) ||
            !regrow(w, (void **)&d->hs, 0, c, sizeof(cr_vec3)))
            return false;
        d->hcap = c;
    }
    for (uint32_t c = 0; c < chunks; ++c) {
        const uint32_t base = d->start[c * d->chunk];
        for (uint32_t e = base; e < base + d->pcount[c]; ++e) {
            d->ha[d->hcount] = d->slot[d->pi[e]];
            d->hb[d->hcount] = d->slot[d->nb[d->pk[e]]];
            d->hs[d->hcount++] = d->phist[e];
        }
    }
    return true;
}

typedef struct list_ctx {
    cr_dem *d;
    const dem_box *bx;
    double skin;
    bool brute;
    uint32_t *scr, room;
} list_ctx;

/* The listed neighbours j > i of the first bodies of each work item, into
 * the item's room of the scratch array; start[i] gets the count of body i,
 * chunk_count the item's (more than the room: the item must run again). */
static void task_list(uint32_t c0, uint32_t c1, uint32_t worker, void *arg)
{
    (void)worker;
    const list_ctx *L = arg;
    cr_dem *d = L->d;
    const dem_box *bx = L->bx;
    const double *xr = d->xr;
    const uint8_t *fl = d->flags;
    const uint32_t *up_start = d->up_start, *up = d->up, *cell_start = d->cell_start;
    const double skin = L->skin;
    const uint32_t n = d->n;
    const uint32_t ch = d->chunk;
    for (uint32_t c = c0; c < c1; ++c) {
        uint32_t i0 = c * ch, i1 = i0 + ch < n ? i0 + ch : n;
        /* room + 1 entries: the last takes the pairs past the room */
        uint32_t *out = L->scr + (size_t)c * (L->room + 1), room = L->room, m = 0;
        uint32_t rs0[27], rs1[27], nr = 0, prev_cell = UINT32_MAX;
        /* the candidates of the cell's stencil in one array when no cell
         * holds more than 4 bodies (a cell holds about one: a loop per
         * cell would end in a mispredicted branch at each) */
        uint32_t cand[27 * 4], nc = 0;
        bool flat = false;
        for (uint32_t i = i0; i < i1; ++i) {
            uint32_t m0 = m;
            const double xi = xr[4 * i], yi = xr[4 * i + 1], zi = xr[4 * i + 2], ri = xr[4 * i + 3];
            const uint32_t dyn_i = fl[i] & DEM_DYN;
/* without branches on the outcome (a fifth of the candidates are listed);
 * after: pairs j > i only */
#define DEM_TRY(j, after)                                                                                   \
    do {                                                                                                    \
        const double *pj = xr + 4 * (size_t)(j);                                                            \
        const double cut = ri + pj[3] + skin;                                                               \
        const uint32_t near = cr_v3_len2(min_image(bx, cr_v3(xi - pj[0], yi - pj[1], zi - pj[2]))) < cut * cut; \
        out[m < room ? m : room] = (j);                                                                     \
        m += near & (after) & (dyn_i | (fl[j] & DEM_DYN)); /* kinematic pairs are not listed */             \
    } while (0)
            if (L->brute) {
                for (uint32_t j = i + 1; j < n; ++j) DEM_TRY(j, 1u);
                d->start[i] = m - m0;
                continue;
            }
            /* the ranges of sorted bodies in the cells of the upper stencil
             * of i's cell, kept while the next bodies share the cell */
            uint32_t ci = d->cell[i];
            if (ci != prev_cell) {
                prev_cell = ci, nr = 0, nc = 0;
                uint32_t most = 0;
                for (uint32_t u = up_start[ci]; u < up_start[ci + 1]; ++u) {
                    const uint32_t r = up[u], s0 = cell_start[r], len = cell_start[r + 1] - s0;
                    rs0[nr] = s0, rs1[nr] = s0 + len, nr += len != 0;
                    cand[nc] = s0, cand[nc + 1] = s0 + 1, cand[nc + 2] = s0 + 2, cand[nc + 3] = s0 + 3;
                    nc += len < 4 ? len : 4;
                    most = len > most ? len : most;
                }
                flat = most <= 4;
            }
            if (flat) {
                for (uint32_t e = 0; e < nc; ++e) DEM_TRY(cand[e], (uint32_t)(cand[e] > i));
            } else {
                for (uint32_t e = 0; e < nr; ++e)
                    for (uint32_t j = rs0[e] > i + 1 ? rs0[e] : i + 1; j < rs1[e]; ++j) DEM_TRY(j, 1u);
            }
#undef DEM_TRY
            d->start[i] = m - m0;
        }
        d->chunk_count[c] = m;
    }
}

/* Gather the world's live bodies in Morton order of their grid cells, build
 * the half list and its reverse index, and carry the saved history over. */
static cr_status build(cr_world *w, const dem_box *bx)
{
    cr_dem *d = w->dem;
    cr_bodies *b = &w->bodies;
    uint32_t slots = b->slot_count;
    if (!save_history(w, d)) return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "dem: out of memory");
    uint32_t n = 0;
    double rmax = 0.0;
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t i = 0; i < slots; ++i) {
        if (!cr_slot_alive(b, i)) continue;
        ++n;
        double x[3] = {b->x[i].x, b->x[i].y, b->x[i].z};
        wrap3(bx, x);
        b->x[i] = cr_v3(x[0], x[1], x[2]);
        if (b->radius[i] > rmax) rmax = b->radius[i];
        for (int k = 0; k < 3; ++k) lo[k] = fmin(lo[k], x[k]), hi[k] = fmax(hi[k], x[k]);
    }
    if (!reserve_bodies(w, d, n, slots)) return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "dem: out of memory");
    /* LAMMPS's chute: skin 0.1 for diameter 1 */
    double skin = 0.1 * 2.0 * rmax, cell = 2.0 * rmax + skin;
    d->skin = skin;
    int32_t dims[3] = {1, 1, 1};
    double inv_cell[3] = {0, 0, 0}, origin[3] = {0, 0, 0};
    bool brute = n == 0 || !(cell > 0.0);
    uint64_t total = 1;
    for (int k = 0; k < 3 && !brute; ++k) {
        if (bx->periodic[k]) {
            double nc = floor(bx->L[k] / cell);
            if (nc < 3.0) brute = true;
            dims[k] = nc > 1024.0 ? 1024 : (int32_t)(nc < 1.0 ? 1.0 : nc);
            origin[k] = bx->lo[k];
            inv_cell[k] = dims[k] / bx->L[k];
        } else {
            double ext = hi[k] > lo[k] ? hi[k] - lo[k] : 0.0;
            double nc = floor(ext / cell) + 1.0;
            dims[k] = nc > 1024.0 ? 1024 : (int32_t)nc;
            origin[k] = lo[k];
            inv_cell[k] = 1.0 / fmax(cell, ext / dims[k]); /* clamped grids widen their cells */
        }
        total *= (uint64_t)dims[k];
    }
    if (!brute && total > 16u * (uint64_t)n + 4096u) brute = true; /* a sparse, spread-out world */
    uint32_t cells = brute ? 1 : (uint32_t)total;
    if (!cr_grow(w, (void **)&d->cell_start, &d->cell_cap, cells + 1, sizeof *d->cell_start) ||
        (!brute && !morton_ranks(w, d, dims, cells, bx->periodic)))
        return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "dem: out of memory");
    /* counting sort of the slots by cell rank (slot order inside a cell) */
    memset(d->cell_start, 0, sizeof *d->cell_start * (cells + 1));
    uint32_t m = 0;
    for (uint32_t i = 0; i < slots; ++i) {
        if (!cr_slot_alive(b, i)) continue;
        uint32_t r = 0;
        if (!brute) {
            const double x[3] = {b->x[i].x, b->x[i].y, b->x[i].z};
            int32_t c[3];
            for (int k = 0; k < 3; ++k) {
                double fl = floor((x[k] - origin[k]) * inv_cell[k]);
                c[k] = fl < 0.0 ? 0 : fl >= dims[k] ? dims[k] - 1 : (int32_t)fl;
            }
            r = d->rank[((uint32_t)c[2] * (uint32_t)dims[1] + (uint32_t)c[1]) * (uint32_t)dims[0] + (uint32_t)c[0]];
        }
        d->cell[m] = r; /* by live-body count for now */
        d->order[m++] = i;
        d->cell_start[r + 1]++;
    }
    for (uint32_t c = 0; c < cells; ++c) d->cell_start[c + 1] += d->cell_start[c];
    for (uint32_t i = 0; i < slots; ++i) d->sorted_of[i] = UINT32_MAX;
    /* the slots in cell order: slot[] */
    for (uint32_t a = 0; a < n; ++a) d->slot[d->cell_start[d->cell[a]]++] = d->order[a];
    for (uint32_t c = cells; c > 0; --c) d->cell_start[c] = d->cell_start[c - 1];
    d->cell_start[0] = 0;
    d->n = n;
    d->map_slots = slots;
    for (uint32_t s = 0; s < n; ++s) {
        uint32_t i = d->slot[s];
        d->sorted_of[i] = s;
        d->xr[4 * s] = b->x[i].x, d->xr[4 * s + 1] = b->x[i].y, d->xr[4 * s + 2] = b->x[i].z;
        d->xr[4 * s + 3] = b->radius[i];
        d->x_build[s] = b->x[i];
        d->v[s] = b->v[i], d->w[s] = b->w[i], d->q[s] = b->q[i];
        d->mass[s] = b->mass[i], d->inv_mass[s] = b->inv_mass[i], d->inv_inertia[s] = b->inv_inertia[i];
        bool dyn = cr_slot_dynamic(b, i);
        d->flags[s] = (uint8_t)((dyn ? DEM_DYN : 0) | (dyn && b->inv_inertia[i] > 0.0 ? DEM_ROT : 0));
    }
    /* each sorted body's cell (rank) */
    for (uint32_t r = 0; r < cells; ++r)
        for (uint32_t s = d->cell_start[r]; s < d->cell_start[r + 1]; ++s) d->cell[s] = r;

    d->chunk = DEM_CHUNK;
    while (d->chunk < 8 * DEM_CHUNK && (uint64_t)d->chunk * 16 < n) d->chunk *= 2;
    /* the half list, in sorted order, one work item per d->chunk first
     * bodies, each into its own room in a scratch array, then joined */
    list_ctx L = {d, bx, skin, brute, NULL, 0};
    uint32_t chunks = chunk_count_of(d, n);
    for (;;) {
        uint64_t per = d->per_body ? d->per_body : 16u;
        uint64_t room = per * d->chunk + 256u, need = (room + 1) * chunks;
        if (need > UINT32_MAX / 2) return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "dem: out of memory");
        if (!cr_grow(w, (void **)&d->scr, &d->scr_cap, (uint32_t)need + 1, sizeof *d->scr))
            return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "dem: out of memory");
        L.scr = d->scr, L.room = (uint32_t)room;
        run_items(w, task_list, chunks, &L);
        bool over = false;
        for (uint32_t c = 0; c < chunks; ++c) over |= d->chunk_count[c] > room;
        if (!over) break;
        d->per_body = (uint32_t)(2 * per); /* a denser world than the last: again with more room */
    }
    uint32_t listed = 0, most = 0;
    const uint32_t ch = d->chunk;
    for (uint32_t c = 0; c < chunks; ++c) {
        listed += d->chunk_count[c];
        uint32_t i0 = c * ch, i1 = i0 + ch < n ? i0 + ch : n;
        uint32_t per = (d->chunk_count[c] + (i1 - i0) - 1) / (i1 - i0);
        if (per > most) most = per;
    }
    if (!reserve_pairs(w, d, listed + 1)) return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "dem: out of memory");
    d->pair_count = 0;
    for (uint32_t c = 0; c < chunks; ++c) {
        memcpy(d->nb + d->pair_count, d->scr + (size_t)c * (L.room + 1), sizeof *d->nb * d->chunk_count[c]);
        d->pair_count += d->chunk_count[c];
    }
    /* start[i] held the count of body i */
    for (uint32_t i = 0, k = 0; i < n; ++i) {
        uint32_t cnt = d->start[i];
        d->start[i] = k;
        k += cnt;
    }
    d->start[n] = d->pair_count;
    for (uint32_t i = 0; i < n; ++i)
        for (uint32_t k = d->start[i]; k < d->start[i + 1]; ++k) d->fb[k] = i;
    /* room for the next build: this one's densest item, with a margin */
    d->per_body = most + most / 2 + 4;
    if (!reserve_pairs(w, d, d->pair_count + 1)) return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "dem: out of memory");
    /* reverse index: for each body, the pairs where it is second and the
     * first body lies in another work item, in list order: their entries in
     * pf, so that the body reads its own in a row */
    memset(d->rstart, 0, sizeof *d->rstart * (n + 1));
    for (uint32_t i = 0; i < n; ++i) {
        uint32_t end = (i / d->chunk + 1) * d->chunk;
        for (uint32_t k = d->start[i]; k < d->start[i + 1]; ++k)
            if (d->nb[k] >= end) d->rstart[d->nb[k] + 1]++;
    }
    for (uint32_t i = 0; i < n; ++i) d->rstart[i + 1] += d->rstart[i];
    for (uint32_t i = 0; i < n; ++i) {
        uint32_t end = (i / d->chunk + 1) * d->chunk;
        for (uint32_t k = d->start[i]; k < d->start[i + 1]; ++k) {
            if (d->nb[k] >= end) d->prow[d->rstart[d->nb[k]]] = d->nb[k];
            d->rpos[k] = d->nb[k] >= end ? d->rstart[d->nb[k]]++ : d->rstart[n];
        }
    }
    d->pf_sink = d->rstart[n];
    memset(d->pf, 0, sizeof *d->pf * (d->pf_sink + 1));
    for (uint32_t i = n; i > 0; --i) d->rstart[i] = d->rstart[i - 1];
    d->rstart[0] = 0;
    /* history: the saved pairs by their first body in the new order */
    memset(d->pcount, 0, sizeof *d->pcount * chunk_count_of(d, n));
    if (d->hcount) {
        if (!cr_grow(w, (void **)&d->hstart, &d->hstart_cap, n + 1, sizeof *d->hstart))
            return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "dem: out of memory");
        uint32_t *hs = d->hstart;
        memset(hs, 0, sizeof *hs * (n + 1));
        uint32_t kept = 0;
        for (uint32_t e = 0; e < d->hcount; ++e) {
            uint32_t a = d->ha[e] < slots ? d->sorted_of[d->ha[e]] : UINT32_MAX;
            uint32_t c = d->hb[e] < slots ? d->sorted_of[d->hb[e]] : UINT32_MAX;
            if (a == UINT32_MAX || c == UINT32_MAX) {
                d->ha[e] = UINT32_MAX;
                continue;
            }
            /* s belongs to d = x_first - x_second: a pair whose order
             * flipped in the new sort keeps -s */
            if (a > c) d->hs[e] = cr_v3_scale(d->hs[e], -1.0);
            d->ha[e] = a < c ? a : c, d->hb[e] = a < c ? c : a;
            hs[d->ha[e] + 1]++;
            ++kept;
        }
        if (kept) {
            for (uint32_t i = 0; i < n; ++i) hs[i + 1] += hs[i];
            /* the entries grouped by their lower index */
            uint32_t *idx = cr_alloc(w, sizeof *idx * kept);
            if (!idx) return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "dem: out of memory");
            for (uint32_t e = 0; e < d->hcount; ++e)
                if (d->ha[e] != UINT32_MAX) idx[hs[d->ha[e]]++] = e;
            for (uint32_t i = n; i > 0; --i) hs[i] = hs[i - 1];
            hs[0] = 0;
            /* the last step's contacts of each work item, in list order
             * (zero history is no history) */
            for (uint32_t i = 0; i < n; ++i) {
                if (hs[i] == hs[i + 1]) continue;
                const uint32_t c = i / d->chunk, base = d->start[c * d->chunk];
                for (uint32_t k = d->start[i]; k < d->start[i + 1]; ++k)
                    for (uint32_t e = hs[i]; e < hs[i + 1]; ++e)
                        if (d->hb[idx[e]] == d->nb[k]) {
                            cr_vec3 s = d->hs[idx[e]];
                            if (s.x != 0.0 || s.y != 0.0 || s.z != 0.0) {
                                const uint32_t at = base + d->pcount[c]++;
                                d->pk[at] = k, d->pi[at] = i, d->phist[at] = s;
                            }
                            break;
                        }
            }
            cr_free(w, idx);
        }
    }
    d->hcount = 0;
    d->list_valid = true;
    return CR_OK;
}

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

/* The law on the touching pairs ck[e0..e1) (LAMMPS
 * PairGranHookeHistory::compute, term for term), in stages over the block:
 * each contact's work is a long chain through square roots and divisions,
 * and short loops let the processor run many contacts' chains at once. A
 * pair not touching has no history (shear zero, kept so by the screen). */
#define DEM_LAW_BLOCK 32u

static void law_block(const step_ctx *cx, const uint32_t *ck, const uint32_t *ci, cr_vec3 *hist, uint32_t e0,
                      uint32_t e1, uint32_t i1)
{
    cr_dem *d = cx->d;
    const dem_box box = cx->bx, *bx = &box;
    const double kn = cx->kn, kt = cx->kt, gn = cx->gn, gt = cx->gt, mu = cx->mu, dt = cx->dt;
    const bool update_shear = cx->update_shear;
    const double *xr = d->xr, *mass = d->mass;
    const uint32_t *nb = d->nb, *rpos = d->rpos;
    const cr_vec3 *v = d->v, *wv = d->w;
    const uint8_t *flags = d->flags;
    cr_vec3 *f = d->f, *t = d->t;
    dem_pf *pf = d->pf;
    const uint32_t m = e1 - e0;
    cr_vec3 del[DEM_LAW_BLOCK], s[DEM_LAW_BLOCK], fs[DEM_LAW_BLOCK], vtr[DEM_LAW_BLOCK];
    double r[DEM_LAW_BLOCK], rinv[DEM_LAW_BLOCK], rsqinv[DEM_LAW_BLOCK], meff[DEM_LAW_BLOCK], ccel[DEM_LAW_BLOCK],
        shr2[DEM_LAW_BLOCK];
    /* geometry and effective mass: the square root and divisions; the
     * history is loaded here, where the misses of a block overlap (touching
     * pairs are spread thin over the list) */
    for (uint32_t e = 0; e < m; ++e) {
        const uint32_t k = ck[e0 + e], i = ci[e0 + e], j = nb[k];
        s[e] = hist[e0 + e]; /* the last step's, zero for a new contact */
        const double *pi = xr + 4 * (size_t)i, *pj = xr + 4 * (size_t)j;
        del[e] = min_image(bx, cr_v3(pi[0] - pj[0], pi[1] - pj[1], pi[2] - pj[2]));
        const double rsq = cr_v3_len2(del[e]);
        r[e] = sqrt(rsq), rinv[e] = 1.0 / r[e], rsqinv[e] = 1.0 / rsq;
        const double mi = mass[i], mj = mass[j], both = mi * mj / (mi + mj);
        meff[e] = !(flags[i] & DEM_DYN) ? mj : !(flags[j] & DEM_DYN) ? mi : both;
    }
    /* normal force, shear history and tangential force */
    for (uint32_t e = 0; e < m; ++e) {
        const uint32_t k = ck[e0 + e], i = ci[e0 + e], j = nb[k];
        const cr_vec3 dl = del[e];
        const double radi = xr[4 * (size_t)i + 3], radj = xr[4 * (size_t)j + 3], radsum = radi + radj;
        const cr_vec3 vr = cr_v3_sub(v[i], v[j]);
        const double vnnr = cr_v3_dot(vr, dl);
        const cr_vec3 vn = cr_v3_scale(dl, vnnr * rsqinv[e]);
        const cr_vec3 vt = cr_v3_sub(vr, vn);
        const cr_vec3 wr = cr_v3_scale(cr_v3_add(cr_v3_scale(wv[i], radi), cr_v3_scale(wv[j], radj)), rinv[e]);
        const double damp = meff[e] * gn * vnnr * rsqinv[e];
        ccel[e] = kn * (radsum - r[e]) * rinv[e] - damp;
        /* relative tangential velocity of the contact point */
        const cr_vec3 vt_r = cr_v3(vt.x - (dl.z * wr.y - dl.y * wr.z), vt.y - (dl.x * wr.z - dl.z * wr.x),
                                   vt.z - (dl.y * wr.x - dl.x * wr.y));
        cr_vec3 sh = s[e];
        if (update_shear) sh = cr_v3_madd(sh, vt_r, dt);
        shr2[e] = cr_v3_len2(sh); /* LAMMPS's shrmag, only ever compared with 0: its square does */
        /* rotate the shear displacement into the tangent plane */
        const double rsht = cr_v3_dot(sh, dl) * rsqinv[e];
        if (update_shear) sh = cr_v3_madd(sh, dl, -rsht);
        s[e] = sh, vtr[e] = vt_r;
        fs[e] = cr_v3_scale(cr_v3_madd(cr_v3_scale(sh, kt), vt_r, meff[e] * gt), -1.0);
    }
    /* Coulomb: the shear history is rescaled with the force, for the
     * sliding contacts, listed first without branches (about half of the
     * chute's contacts slide: a branch per contact would be a coin toss) */
    uint32_t slide[DEM_LAW_BLOCK], ns = 0;
    double fsm2[DEM_LAW_BLOCK], fn[DEM_LAW_BLOCK];
    for (uint32_t e = 0; e < m; ++e) {
        fsm2[e] = cr_v3_len2(fs[e]), fn[e] = mu * fabs(ccel[e] * r[e]);
        slide[ns] = e;
        ns += fsm2[e] > fn[e] * fn[e];
    }
    for (uint32_t q = 0; q < ns; ++q) {
        const uint32_t e = slide[q];
        if (shr2[e] != 0.0) {
            const double qq = fn[e] / sqrt(fsm2[e]);
            /* (LAMMPS: meff gamma_t vtr / kt; zero without tangential damping) */
            const cr_vec3 g = gt != 0.0 && kt > 0.0 ? cr_v3_scale(vtr[e], meff[e] * gt / kt) : cr_v3_zero();
            s[e] = cr_v3_sub(cr_v3_scale(cr_v3_add(s[e], g), qq), g);
            fs[e] = cr_v3_scale(fs[e], qq);
        } else {
            fs[e] = cr_v3_zero();
        }
    }
    /* the history kept, the forces summed */
    for (uint32_t e = 0; e < m; ++e) {
        const uint32_t k = ck[e0 + e], i = ci[e0 + e], j = nb[k];
        hist[e0 + e] = s[e];
        const cr_vec3 dl = del[e];
        const cr_vec3 fij = cr_v3_madd(fs[e], dl, ccel[e]), tor = cr_v3_scale(cr_v3_cross(dl, fs[e]), rinv[e]);
        f[i] = cr_v3_add(f[i], fij), t[i] = cr_v3_madd(t[i], tor, -xr[4 * (size_t)i + 3]);
        if (j < i1) {
            /* Newton's third law inside the item */
            f[j] = cr_v3_sub(f[j], fij), t[j] = cr_v3_madd(t[j], tor, -xr[4 * (size_t)j + 3]);
        } else {
            pf[rpos[k]].f = fij, pf[rpos[k]].t = tor;
        }
    }
}

/* The law on every listed pair whose first body is in the work item (LAMMPS
 * PairGranHookeHistory::compute): screen, history, law; the forces summed
 * into both bodies inside the item, into the second body's pf row across
 * items. */
static void task_pairs(uint32_t c0, uint32_t c1, uint32_t worker, void *arg)
{
    (void)worker;
    const step_ctx *cx = arg;
    cr_dem *d = cx->d;
    /* everything in locals: the compiler cannot tell that the stores do not
     * change the fields read through d or cx */
    const dem_box box = cx->bx, *bx = &box;
    const double *xr = d->xr;
    const uint32_t *nb = d->nb, *start = d->start, n = d->n;
    cr_vec3 *f = d->f, *t = d->t;
    dem_pf *pf = d->pf;
    uint32_t *chunk_count = d->chunk_count;
    uint32_t *d_ck = d->ck, *d_ci = d->ci;
    const uint32_t *rpos = d->rpos;
    const dem_pf zero_pf = {{0, 0, 0}, {0, 0, 0}};

    const uint32_t ch = d->chunk;
    for (uint32_t c = c0; c < c1; ++c) {
        uint32_t i0 = c * ch, i1 = i0 + ch < n ? i0 + ch : n;
        uint32_t contacts = 0;
        /* bodies of the item: their sums start here (pairs of the item
         * only; task_sum adds those from other items) */
        memset(f + i0, 0, sizeof *f * (i1 - i0));
        memset(t + i0, 0, sizeof *t * (i1 - i0));
        /* screen, without branches: the touching pairs' indices into the
         * item's part of ck */
        const uint32_t base = start[i0];
        uint32_t *ck = d_ck + base, *ci = d_ci + base;
        /* one loop over the item's pairs, not one per first body: those
         * are short, and each one's end was a mispredicted branch */
        const uint32_t *fb = d->fb;
        for (uint32_t k = base, k1 = start[i1]; k < k1; ++k) {
            const uint32_t i = fb[k];
            const double *pi = xr + 4 * (size_t)i, *pj = xr + 4 * (size_t)nb[k];
            cr_vec3 del = min_image(bx, cr_v3(pi[0] - pj[0], pi[1] - pj[1], pi[2] - pj[2]));
            const double radsum = pi[3] + pj[3];
            const uint32_t hit = cr_v3_len2(del) < radsum * radsum;
            ck[contacts] = k, ci[contacts] = i;
            contacts += hit;
        }
        /* history: the last step's contacts merged in (both lists in list
         * order); a contact that ended loses its history and its force */
        const uint32_t *pkc = d->pk + base, np = d->pcount[c];
        const cr_vec3 *ph = d->phist + base;
        cr_vec3 *hist = d->hist + base;
        uint32_t a = 0;
        for (uint32_t e = 0; e < contacts; ++e) {
            const uint32_t k = ck[e];
            for (; a < np && pkc[a] < k; ++a) pf[rpos[pkc[a]]] = zero_pf;
            if (a < np && pkc[a] == k) {
                hist[e] = ph[a++];
            } else {
                hist[e] = cr_v3_zero();
            }
        }
        for (; a < np; ++a) pf[rpos[pkc[a]]] = zero_pf;
        /* the law on the touching pairs, in list order, in blocks */
        for (uint32_t e0 = 0; e0 < contacts; e0 += DEM_LAW_BLOCK)
            law_block(cx, ck, ci, hist, e0, e0 + DEM_LAW_BLOCK < contacts ? e0 + DEM_LAW_BLOCK : contacts, i1);
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
    const double *xr = d->xr, *mass = d->mass;
    const uint8_t *flags = d->flags;
    cr_vec3 *fo = d->f, *to = d->t;
    const cr_vec3 g = cx->g;
    /* the block's rows in one loop (each body's in list order): a loop per
     * body would be short, its end a mispredicted branch; entries of pairs
     * not touching are zero, adding them changes no bit */
    for (uint32_t e = d->rstart[i0], e1 = d->rstart[i1]; e < e1; ++e) {
        const uint32_t j = prow[e];
        fo[j] = cr_v3_sub(fo[j], pf[e].f), to[j] = cr_v3_madd(to[j], pf[e].t, -xr[4 * (size_t)j + 3]);
    }
    for (uint32_t i = i0; i < i1; ++i)
        if (flags[i] & DEM_DYN) fo[i] = cr_v3_madd(fo[i], g, mass[i]);
}

/* Half kick by the forces in f, t (LAMMPS fix nve/sphere). */
static void kick_block(const step_ctx *cx, uint32_t i0, uint32_t i1)
{
    cr_dem *d = cx->d;
    const double h = cx->h, *inv_mass = d->inv_mass, *inv_inertia = d->inv_inertia;
    const uint8_t *flags = d->flags;
    const cr_vec3 *f = d->f, *t = d->t;
    cr_vec3 *v = d->v, *wv = d->w;
    for (uint32_t i = i0; i < i1; ++i)
        if (flags[i] & DEM_DYN) {
            v[i] = cr_v3_madd(v[i], f[i], h * inv_mass[i]);
            wv[i] = cr_v3_madd(wv[i], t[i], h * inv_inertia[i]);
        }
}

/* True when a number of the step's state is not finite (a sum of them all
 * is not). */
static bool finite_block(const step_ctx *cx, uint32_t i0, uint32_t i1)
{
    const cr_dem *d = cx->d;
    const double *xr = d->xr;
    const cr_vec3 *v = d->v, *wv = d->w;
    double zero = 0.0; /* stays 0 unless a number is not finite */
    for (uint32_t i = i0; i < i1; ++i) {
        const double *x = xr + 4 * (size_t)i;
        const cr_vec3 vi = v[i], wi = wv[i];
        zero += 0.0 * (((x[0] + x[1]) + (x[2] + vi.x)) + ((vi.y + vi.z) + (wi.x + wi.y)) + wi.z);
    }
    return !(zero == 0.0);
}

/* Drift and wrap; true when a body has moved past half the skin since the
 * list build. */
static bool drift_block(const step_ctx *cx, uint32_t i0, uint32_t i1)
{
    cr_dem *d = cx->d;
    const dem_box box = cx->bx;
    const double dt = cx->dt, lim = cx->lim;
    double *xr = d->xr;
    const cr_vec3 *v = d->v, *x_build = d->x_build;
    bool far = false;
    for (uint32_t i = i0; i < i1; ++i) {
        double *x = xr + 4 * (size_t)i;
        const cr_vec3 vi = v[i], xb = x_build[i];
        x[0] += vi.x * dt, x[1] += vi.y * dt, x[2] += vi.z * dt;
        wrap3(&box, x);
        far |= cr_v3_len2(min_image(&box, cr_v3(x[0] - xb.x, x[1] - xb.y, x[2] - xb.z))) > lim;
    }
    return far;
}

static void turn_block(const step_ctx *cx, uint32_t i0, uint32_t i1)
{
    cr_dem *d = cx->d;
    const double dt = cx->dt;
    const uint8_t *flags = d->flags;
    const cr_vec3 *wv = d->w;
    cr_quat *q = d->q;
    /* in the three steps of turn, each over the block (a body's turn is
     * one long chain) */
    double c[DEM_BLOCK], s[DEM_BLOCK], l2[DEM_BLOCK];
    cr_quat r[DEM_BLOCK];
    uint8_t kind[DEM_BLOCK]; /* 0: no turn, 1: the series, 2: cr_q_integrate */
    const uint32_t m = i1 - i0;
    for (uint32_t e = 0; e < m; ++e) {
        const bool small = turn_series(wv[i0 + e], dt, &c[e], &s[e]);
        kind[e] = (uint8_t)(flags[i0 + e] & DEM_ROT ? (small ? 1 : 2) : 0);
    }
    for (uint32_t e = 0; e < m; ++e)
        if (kind[e] == 1) r[e] = turn_product(q[i0 + e], wv[i0 + e], c[e], s[e], &l2[e]);
    for (uint32_t e = 0; e < m; ++e) {
        if (kind[e] == 1) q[i0 + e] = turn_normalise(r[e], l2[e]);
        if (kind[e] == 2) q[i0 + e] = cr_q_integrate(q[i0 + e], wv[i0 + e], dt);
    }
}

/* The first half of a step (LAMMPS fix nve/sphere's initial_integrate):
 * half kick, drift, turn and wrap. */
static bool advance_block(const step_ctx *cx, uint32_t i0, uint32_t i1)
{
    kick_block(cx, i0, i1);
    bool far = drift_block(cx, i0, i1);
    turn_block(cx, i0, i1);
    return far;
}

/* The forces of the set-up (no kick). */
static void task_sum(uint32_t c0, uint32_t c1, uint32_t worker, void *arg)
{
    (void)worker;
    const step_ctx *cx = arg;
    const uint32_t n = cx->d->n;
    const uint32_t ch = cx->d->chunk;
    for (uint32_t c = c0; c < c1; ++c) {
        uint32_t i0 = c * ch, i1 = i0 + ch < n ? i0 + ch : n;
        sum_block(cx, i0, i1);
    }
}

/* The first half of the step: half kick, drift, turn, wrap; flags the
 * chunks where a body moved past half the skin. */
static void task_move(uint32_t c0, uint32_t c1, uint32_t worker, void *arg)
{
    (void)worker;
    const step_ctx *cx = arg;
    const uint32_t n = cx->d->n;
    const uint32_t ch = cx->d->chunk;
    for (uint32_t c = c0; c < c1; ++c) {
        uint32_t i0 = c * ch, i1 = i0 + ch < n ? i0 + ch : n;
        bool far = false;
        for (uint32_t j0 = i0; j0 < i1; j0 += DEM_BLOCK) far |= advance_block(cx, j0, j0 + DEM_BLOCK < i1 ? j0 + DEM_BLOCK : i1);
        cx->d->chunk_flag[c] = far ? DEM_FAR : 0;
    }
}

/* The end of the step (LAMMPS fix nve/sphere's final_integrate): the
 * forces and the second half kick; flags a number not finite. The world's
 * slots are written by task_store, in slot order: written here, in sorted
 * order, they would be scattered writes, which cost more than task_store's
 * scattered reads. */
static void task_finish(uint32_t c0, uint32_t c1, uint32_t worker, void *arg)
{
    (void)worker;
    const step_ctx *cx = arg;
    cr_dem *d = cx->d;
    const uint32_t n = d->n;
    const uint32_t ch = d->chunk;
    for (uint32_t c = c0; c < c1; ++c) {
        uint32_t i0 = c * ch, i1 = i0 + ch < n ? i0 + ch : n;
        bool bad = false;
        for (uint32_t j0 = i0; j0 < i1; j0 += DEM_BLOCK) {
            const uint32_t j1 = j0 + DEM_BLOCK < i1 ? j0 + DEM_BLOCK : i1;
            sum_block(cx, j0, j1);
            kick_block(cx, j0, j1);
            bad |= finite_block(cx, j0, j1);
        }
        d->chunk_flag[c] = bad ? DEM_BAD : 0;
    }
}

/* Write the DEM's x, v, w, q back to the world's slots, in slot order
 * (scattered reads cost less than scattered writes). */
static void store_slots(const cr_dem *d, const cr_bodies *b, uint32_t s0, uint32_t s1)
{
    for (uint32_t s = s0; s < s1 && s < d->map_slots; ++s) {
        uint32_t i = d->sorted_of[s];
        if (i == UINT32_MAX) continue;
        b->x[s] = cr_v3(d->xr[4 * i], d->xr[4 * i + 1], d->xr[4 * i + 2]);
        b->v[s] = d->v[i], b->w[s] = d->w[i], b->q[s] = d->q[i];
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

/* The pair forces; with sum, each body's total (set-up: no kick). */
static void forces(cr_world *w, step_ctx *cx, bool sum)
{
    cr_dem *d = w->dem;
    uint32_t chunks = chunk_count_of(d, d->n);
    run_items(w, task_pairs, chunks, cx);
    uint32_t contacts = 0;
    for (uint32_t c = 0; c < chunks; ++c) contacts += d->pcount[c] = d->chunk_count[c];
    /* this step's contacts are the next one's last */
    uint32_t *u = d->ck;
    d->ck = d->pk, d->pk = u;
    u = d->ci, d->ci = d->pi, d->pi = u;
    cr_vec3 *h = d->hist;
    d->hist = d->phist, d->phist = h;
    w->stats.contacts = contacts;
    if (sum) run_items(w, task_sum, chunks, cx);
}

static cr_status check_finite(cr_world *w)
{
    const cr_bodies *b = &w->bodies;
    for (uint32_t i = 0; i < b->slot_count; ++i) {
        if (!cr_slot_alive(b, i)) continue;
        const char *what = !cr_v3_isfinite(b->x[i])   ? "position"
                           : !cr_v3_isfinite(b->v[i]) ? "velocity"
                           : !cr_v3_isfinite(b->w[i]) ? "angular velocity"
                                                      : NULL;
        if (what) {
            w->failed = true;
            return cr_fail(w, CR_ERR_NON_FINITE,
                           "body %u: non-finite %s at step %llu (t = %.17g); the world stopped (method dem: is dt "
                           "small against sqrt(m / kn)?)",
                           i, what, (unsigned long long)w->steps + 1, w->time + w->def.dt);
        }
    }
    return CR_OK;
}

static double now_seconds(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

cr_status cr_dem_step(cr_world *w)
{
    if (!ensure(w)) return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "dem: out of memory");
    cr_dem *d = w->dem;
    const cr_hooke *hk = &w->def.hooke;
    step_ctx cx = {.d = d,
                   .b = &w->bodies,
                   .bx = box_of(w),
                   .dt = w->def.dt,
                   .h = 0.5 * w->def.dt,
                   .kn = hk->kn,
                   .kt = hk->kt,
                   .gn = hk->gamma_n,
                   .gt = hk->gamma_t,
                   .mu = hk->mu,
                   .g = w->def.gravity};
    double t0 = now_seconds(), t1, setup = 0.0;
    cr_status s;
    if (!d->forces_valid || !d->list_valid) {
        /* set-up: the forces of the current state, history not advanced
         * (timed with the list builds) */
        cr_dem_sync(w); /* a no-op: whatever changed a body has synced first */
        if ((s = build(w, &cx.bx)) != CR_OK) return s;
        cx.update_shear = false;
        forces(w, &cx, true);
        d->forces_valid = true;
        t1 = now_seconds();
        setup = t1 - t0;
        t0 = t1;
    }
    uint32_t chunks = chunk_count_of(d, d->n);
    cx.lim = 0.25 * d->skin * d->skin;
    run_items(w, task_move, chunks, &cx);
    bool rebuild = false;
    for (uint32_t c = 0; c < chunks; ++c) rebuild |= (d->chunk_flag[c] & DEM_FAR) != 0;
    t1 = now_seconds();
    w->stats.stage_seconds[CR_STAGE_PREDICT] = t1 - t0;
    t0 = t1;
    if (rebuild) {
        /* the build gathers the bodies from the world's slots */
        run_items(w, task_store, chunk_count_of(d, d->map_slots), &cx);
        d->world_stale = false;
        if ((s = build(w, &cx.bx)) != CR_OK) return s;
        chunks = chunk_count_of(d, d->n);
    }
    w->stats.candidate_pairs = d->pair_count;
    t1 = now_seconds();
    w->stats.stage_seconds[CR_STAGE_BROAD_PHASE] = t1 - t0 + setup;
    t0 = t1;
    cx.update_shear = true;
    forces(w, &cx, false);
    t1 = now_seconds();
    w->stats.stage_seconds[CR_STAGE_CONTACTS] = t1 - t0;
    t0 = t1;
    run_items(w, task_finish, chunks, &cx);
    bool bad = false;
    for (uint32_t c = 0; c < chunks; ++c) bad |= (d->chunk_flag[c] & DEM_BAD) != 0;
    d->world_stale = true;
    if (bad) {
        /* check_finite reads the world's slots */
        run_items(w, task_store, chunk_count_of(d, d->map_slots), &cx);
        d->world_stale = false;
    }
    if (bad && (s = check_finite(w)) != CR_OK) return s;
    w->stats.stage_seconds[CR_STAGE_FINISH] = now_seconds() - t0;
    w->steps++;
    w->time = w->time_base + (double)(w->steps - w->steps_base) * cx.dt;
    return CR_OK;
}
