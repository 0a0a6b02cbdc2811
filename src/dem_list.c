/* CR_METHOD_DEM's neighbour list (src/dem.c, docs/physics.md "DEM"): the
 * bodies gathered from the world's slots and sorted along a Morton curve of
 * a cell grid, the half list built from each cell's upper stencil in work
 * items, its reverse index (the rows of pf), and the contact history
 * carried across the build by body pair. */
#include <stdlib.h>
#include <string.h>

#include "dem_internal.h"
#include "radix_sort.h"

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

/* Grow d->kin from old to cap bodies (contents kept), its first body on a
 * 64-byte boundary: one body a cache line. */
static bool regrow_kin(cr_world *w, cr_dem *d, uint32_t old, uint32_t cap)
{
    void *mem = cr_alloc(w, (size_t)cap * sizeof(dem_kin) + 63);
    if (!mem) return false;
    dem_kin *kin = (dem_kin *)(((uintptr_t)mem + 63) & ~(uintptr_t)63);
    if (d->kin_mem) {
        memcpy(kin, d->kin, (size_t)old * sizeof(dem_kin));
        cr_free(w, d->kin_mem);
    }
    d->kin_mem = mem, d->kin = kin;
    return true;
}

static uint32_t cap_for(uint32_t need)
{
    uint64_t c = 16;
    while (c < need) c *= 2;
    return c > UINT32_MAX ? UINT32_MAX : (uint32_t)c;
}

static bool reserve_bodies(cr_world *w, cr_dem *d, uint32_t n, uint32_t slots)
{
    if (n + 1 > d->cap) {
        uint32_t c = cap_for(n + 1), o = d->cap;
        if (!regrow(w, (void **)&d->xr, 4 * o, 4 * c, sizeof(double)) || !regrow_kin(w, d, o, c) ||
            !regrow(w, (void **)&d->f, o, c, sizeof(cr_vec3)) ||
            !regrow(w, (void **)&d->t, o, c, sizeof(cr_vec3)) || !regrow(w, (void **)&d->x_build, o, c, sizeof(cr_vec3)) ||
            !regrow(w, (void **)&d->q, o, c, sizeof(cr_quat)) ||
            !regrow(w, (void **)&d->inv_mass, o, c, sizeof(double)) ||
            !regrow(w, (void **)&d->inv_inertia, o, c, sizeof(double)) ||
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
            !regrow(w, (void **)&d->chunk_disp, 6 * d->chunk_cap, 6 * c, sizeof(double)) ||
            !regrow(w, (void **)&d->pcount, d->chunk_cap, c, sizeof(uint32_t)) ||
            !regrow(w, (void **)&d->chunk_order, d->chunk_cap, c, sizeof(uint32_t)))
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
    if (d->rolling && (!regrow(w, (void **)&d->rhist, o, c, sizeof(cr_vec3)) ||
                       !regrow(w, (void **)&d->prhist, o, c, sizeof(cr_vec3)) ||
                       !regrow(w, (void **)&d->pr, o, c, sizeof(cr_vec3))))
        return false;
    d->pair_cap = c;
    return true;
}

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
 * (codes of 30 bits, sorted by radix_sort.h: linear in the cells where
 * qsort took most of the first build; the codes are distinct, so the
 * order is the curve's). */
static bool morton_ranks(cr_world *w, cr_dem *d, const int32_t dims[3], uint32_t cells, const bool periodic[3])
{
    if (d->rank && d->rank_dims[0] == dims[0] && d->rank_dims[1] == dims[1] && d->rank_dims[2] == dims[2]) return true;
    if (!cr_grow(w, (void **)&d->rank, &d->rank_cap, cells, sizeof *d->rank)) return false;
    cr_radix_item *item = cr_alloc(w, sizeof *item * 2 * (size_t)cells);
    if (!item) return false;
    for (uint32_t c = 0; c < cells; ++c) {
        uint32_t x = c % (uint32_t)dims[0], y = c / (uint32_t)dims[0] % (uint32_t)dims[1],
                 z = c / ((uint32_t)dims[0] * (uint32_t)dims[1]);
        item[c] = (cr_radix_item){spread3(x) | (spread3(y) << 1) | ((uint64_t)spread3(z) << 2), c};
    }
    const cr_radix_item *curve = cr_radix_sort(item, item + cells, cells);
    for (uint32_t r = 0; r < cells; ++r) d->rank[curve[r].value] = r;
    /* the upper stencils (the grid has 3 cells or more along a periodic
     * axis: no cell is its own neighbour twice) */
    if (!cr_grow(w, (void **)&d->up_start, &d->up_start_cap, cells + 1, sizeof *d->up_start) ||
        !cr_grow(w, (void **)&d->up, &d->up_cap, 27 * cells, sizeof *d->up)) {
        cr_free(w, item);
        return false;
    }
    uint32_t u = 0;
    for (uint32_t r = 0; r < cells; ++r) {
        const uint32_t c = curve[r].value;
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
    cr_free(w, item);
    memcpy(d->rank_dims, dims, sizeof d->rank_dims);
    return true;
}

/* save_history's work items: item c's contacts into ha, hb, hs from
 * hstart[c] (the contacts of the items before it), so that the saved list
 * is the same whatever thread ran which item. */
static void task_save(uint32_t c0, uint32_t c1, uint32_t worker, void *arg)
{
    (void)worker;
    cr_dem *d = arg;
    for (uint32_t c = c0; c < c1; ++c) {
        const uint32_t base = d->start[c * d->chunk];
        uint32_t h = d->hstart[c];
        for (uint32_t e = base; e < base + d->pcount[c]; ++e, ++h) {
            d->ha[h] = d->slot[d->pi[e]];
            d->hb[h] = d->slot[d->nb[d->pk[e]]];
            d->hs[h] = d->phist[e];
            if (d->hr) d->hr[h] = d->prhist[e];
        }
    }
}

bool cr_dem_reserve_history(cr_world *w, cr_dem *d, uint32_t m)
{
    if (m > d->hcap) {
        uint32_t c = cap_for(m);
        if (!regrow(w, (void **)&d->ha, 0, c, sizeof(uint32_t)) || !regrow(w, (void **)&d->hb, 0, c, sizeof(uint32_t)) ||
            !regrow(w, (void **)&d->hs, 0, c, sizeof(cr_vec3)))
            return false;
        if (d->rolling && !regrow(w, (void **)&d->hr, 0, c, sizeof(cr_vec3))) return false;
        d->hcap = c;
    }
    return true;
}

/* Keep the touching pairs' history by world slots before a build. */
static bool save_history(cr_world *w, cr_dem *d)
{
    d->hcount = 0;
    if (!d->start || !d->n) return true;
    uint32_t m = 0;
    const uint32_t chunks = cr_dem_chunks(d, d->n);
    if (!cr_grow(w, (void **)&d->hstart, &d->hstart_cap, chunks + 1, sizeof *d->hstart)) return false;
    for (uint32_t c = 0; c < chunks; ++c) d->hstart[c] = m, m += d->pcount[c];
    if (!cr_dem_reserve_history(w, d, m)) return false;
    cr_run_items(w, task_save, chunks, d);
    d->hcount = m;
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
    const dem_kin *kin = d->kin;
    const uint32_t *up_start = d->up_start, *up = d->up, *cell_start = d->cell_start;
    const double skin = L->skin;
    const uint32_t n = d->n;
    for (uint32_t c = c0; c < c1; ++c) {
        uint32_t i0, i1;
        cr_dem_chunk_bodies(d, c, &i0, &i1);
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
            const uint32_t dyn_i = kin[i].flags & DEM_DYN;
/* without branches on the outcome (a fifth of the candidates are listed);
 * after: pairs j > i only */
#define DEM_TRY(j, after)                                                                                   \
    do {                                                                                                    \
        const double *pj = xr + 4 * (size_t)(j);                                                            \
        const double cut = ri + pj[3] + skin;                                                               \
        const uint32_t near = cr_v3_len2(min_image(bx, cr_v3(xi - pj[0], yi - pj[1], zi - pj[2]))) < cut * cut; \
        out[m < room ? m : room] = (j);                                                                     \
        m += near & (after) & (dyn_i | (kin[j].flags & DEM_DYN)); /* kinematic pairs are not listed */             \
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

typedef struct gather_ctx {
    cr_dem *d;
    const cr_bodies *b;
} gather_ctx;

/* The sorted bodies of each work item copied from the world's slots
 * (slot[] is in sorted order): each item writes its own bodies and their
 * slots' entries of sorted_of. */
static void task_gather(uint32_t c0, uint32_t c1, uint32_t worker, void *arg)
{
    (void)worker;
    const gather_ctx *G = arg;
    cr_dem *d = G->d;
    const cr_bodies *b = G->b;
    const uint32_t n = d->n;
    for (uint32_t c = c0; c < c1; ++c) {
        uint32_t s0, s1;
        cr_dem_chunk_bodies(d, c, &s0, &s1);
        for (uint32_t s = s0; s < s1; ++s) {
            uint32_t i = d->slot[s];
            {
                /* the slots come in cell order, scattered over the world's
                 * arrays: their lines asked for 8 bodies ahead */
                const uint32_t a = d->slot[s + 8 < n ? s + 8 : s];
                DEM_PREFETCH(&b->x[a], 0), DEM_PREFETCH(&b->v[a], 0), DEM_PREFETCH(&b->w[a], 0);
                DEM_PREFETCH(&b->q[a], 0), DEM_PREFETCH(&b->radius[a], 0), DEM_PREFETCH(&b->mass[a], 0);
                DEM_PREFETCH(&b->inv_mass[a], 0), DEM_PREFETCH(&b->inv_inertia[a], 0), DEM_PREFETCH(&b->type[a], 0);
                DEM_PREFETCH(&d->sorted_of[a], 1);
            }
            d->sorted_of[i] = s;
            d->xr[4 * s] = b->x[i].x, d->xr[4 * s + 1] = b->x[i].y, d->xr[4 * s + 2] = b->x[i].z;
            d->xr[4 * s + 3] = b->radius[i];
            d->x_build[s] = b->x[i];
            d->q[s] = b->q[i];
            d->inv_mass[s] = b->inv_mass[i], d->inv_inertia[s] = b->inv_inertia[i];
            bool dyn = cr_slot_dynamic(b, i);
            d->kin[s] = (dem_kin){.v = b->v[i],
                                  .w = b->w[i],
                                  .mass = b->mass[i],
                                  .flags = (uint8_t)((dyn ? DEM_DYN : 0) | (dyn && b->inv_inertia[i] > 0.0 ? DEM_ROT : 0))};
        }
    }
}

/* The items' rooms joined into the list: item c's pairs from
 * chunk_count[c] (the pairs of the items before it); start[i], which held
 * body i's count, becomes its first pair, and fb each pair's first body. */
static void task_join(uint32_t c0, uint32_t c1, uint32_t worker, void *arg)
{
    (void)worker;
    const list_ctx *L = arg;
    cr_dem *d = L->d;
    for (uint32_t c = c0; c < c1; ++c) {
        uint32_t i0, i1, k = d->chunk_count[c];
        cr_dem_chunk_bodies(d, c, &i0, &i1);
        const uint32_t *scr = L->scr + (size_t)c * (L->room + 1);
        for (uint32_t i = i0; i < i1; ++i) {
            const uint32_t cnt = d->start[i];
            d->start[i] = k;
            for (uint32_t e = 0; e < cnt; ++e) d->fb[k + e] = i;
            memcpy(d->nb + k, scr, sizeof *d->nb * cnt);
            scr += cnt, k += cnt;
        }
    }
}

typedef struct carry_ctx {
    cr_dem *d;
    const uint32_t *idx; /* the saved pairs grouped by their first body (d->hstart) */
} carry_ctx;

/* The saved history carried into each work item's last-step contacts, in
 * list order (zero history is no history): each item writes its own. */
static void task_carry(uint32_t c0, uint32_t c1, uint32_t worker, void *arg)
{
    (void)worker;
    const carry_ctx *C = arg;
    cr_dem *d = C->d;
    const uint32_t *hs = d->hstart, *idx = C->idx;
    for (uint32_t c = c0; c < c1; ++c) {
        uint32_t i0, i1;
        cr_dem_chunk_bodies(d, c, &i0, &i1);
        const uint32_t base = d->start[i0];
        for (uint32_t i = i0; i < i1; ++i) {
            if (hs[i] == hs[i + 1]) continue;
            for (uint32_t k = d->start[i]; k < d->start[i + 1]; ++k)
                for (uint32_t e = hs[i]; e < hs[i + 1]; ++e)
                    if (d->hb[idx[e]] == d->nb[k]) {
                        cr_vec3 s = d->hs[idx[e]], r = d->hr ? d->hr[idx[e]] : cr_v3_zero();
                        if (s.x != 0.0 || s.y != 0.0 || s.z != 0.0 || r.x != 0.0 || r.y != 0.0 || r.z != 0.0) {
                            const uint32_t at = base + d->pcount[c]++;
                            d->pk[at] = k, d->pi[at] = i, d->phist[at] = s;
                            if (d->hr) d->prhist[at] = r;
                        }
                        break;
                    }
        }
    }
}

/* ---- the reverse index ------------------------------------------------ *
 *
 * For each body, the pairs where it is second and the first body lies in an
 * earlier work item, in list order: their rows in pf (rpos, prow, rstart),
 * so that the body reads its own in a row. A stable sort of those pairs by
 * second body, in work items: each item of first bodies counts its pairs
 * by the second body's item (rev_count) and puts them in that item's
 * bucket after those of the items before it (rev_bucket), so that each
 * bucket holds its pairs in list order; each item of second bodies then
 * sorts its bucket by body (rev_rows). The rows are the same whatever
 * thread ran which item. */

typedef struct rev_ctx {
    cr_dem *d;
    uint32_t chunks;
    uint32_t *at;     /* chunks x chunks: pairs from item c to item u, then where c's go in u's bucket */
    uint32_t *bucket; /* the crossing pairs grouped by their second body's item */
    uint32_t *bstart; /* each bucket's start, chunks + 1 */
} rev_ctx;

static void task_rev_count(uint32_t c0, uint32_t c1, uint32_t worker, void *arg)
{
    (void)worker;
    const rev_ctx *R = arg;
    const cr_dem *d = R->d;
    for (uint32_t c = c0; c < c1; ++c) {
        uint32_t i0, i1, *at = R->at + (size_t)c * R->chunks;
        cr_dem_chunk_bodies(d, c, &i0, &i1);
        memset(at, 0, sizeof *at * R->chunks);
        for (uint32_t k = d->start[i0]; k < d->start[i1]; ++k)
            if (d->nb[k] >= i1) at[d->nb[k] / d->chunk]++;
    }
}

static void task_rev_bucket(uint32_t c0, uint32_t c1, uint32_t worker, void *arg)
{
    (void)worker;
    const rev_ctx *R = arg;
    cr_dem *d = R->d;
    for (uint32_t c = c0; c < c1; ++c) {
        uint32_t i0, i1, *at = R->at + (size_t)c * R->chunks;
        cr_dem_chunk_bodies(d, c, &i0, &i1);
        for (uint32_t k = d->start[i0]; k < d->start[i1]; ++k) {
            if (d->nb[k] >= i1)
                R->bucket[at[d->nb[k] / d->chunk]++] = k;
            else
                d->rpos[k] = d->pf_sink; /* a pair inside the item */
        }
    }
}

static void task_rev_rows(uint32_t u0, uint32_t u1, uint32_t worker, void *arg)
{
    (void)worker;
    const rev_ctx *R = arg;
    cr_dem *d = R->d;
    uint32_t *next = d->order; /* scratch of the build: each body's next row */
    for (uint32_t u = u0; u < u1; ++u) {
        uint32_t j0, j1;
        cr_dem_chunk_bodies(d, u, &j0, &j1);
        const uint32_t b0 = R->bstart[u], b1 = R->bstart[u + 1];
        for (uint32_t j = j0; j < j1; ++j) next[j] = 0;
        for (uint32_t e = b0; e < b1; ++e) next[d->nb[R->bucket[e]]]++;
        for (uint32_t j = j0, row = b0; j < j1; ++j) {
            const uint32_t cnt = next[j];
            d->rstart[j] = next[j] = row;
            row += cnt;
        }
        for (uint32_t e = b0; e < b1; ++e) {
            const uint32_t k = R->bucket[e], j = d->nb[k], row = next[j]++;
            d->prow[row] = j;
            d->rpos[k] = row;
        }
        memset(d->pf + b0, 0, sizeof *d->pf * (b1 - b0));
        if (d->pr) memset(d->pr + b0, 0, sizeof *d->pr * (b1 - b0));
    }
}

static bool reverse_index(cr_world *w, cr_dem *d)
{
    const uint32_t n = d->n, chunks = cr_dem_chunks(d, n);
    if ((uint64_t)chunks * chunks + chunks + 1 > UINT32_MAX / 2) return false;
    if (!cr_grow(w, (void **)&d->rev_at, &d->rev_at_cap, chunks * chunks + chunks + 1, sizeof *d->rev_at) ||
        !cr_grow(w, (void **)&d->rev_bucket, &d->rev_bucket_cap, d->pair_count + 1, sizeof *d->rev_bucket))
        return false;
    rev_ctx R = {d, chunks, d->rev_at, d->rev_bucket, d->rev_at + (size_t)chunks * chunks};
    cr_run_items(w, task_rev_count, chunks, &R);
    /* bucket u holds the pairs into item u, those of item c after those of
     * the items before c */
    uint32_t row = 0;
    for (uint32_t u = 0; u < chunks; ++u) {
        R.bstart[u] = row;
        for (uint32_t c = 0; c < chunks; ++c) {
            const uint32_t cnt = R.at[(size_t)c * chunks + u];
            R.at[(size_t)c * chunks + u] = row;
            row += cnt;
        }
    }
    R.bstart[chunks] = row;
    d->pf_sink = row; /* the row written by the pairs inside an item */
    cr_run_items(w, task_rev_bucket, chunks, &R);
    cr_run_items(w, task_rev_rows, chunks, &R);
    d->rstart[n] = row;
    d->pf[row] = (dem_pf){{0, 0, 0}, {0, 0, 0}};
    if (d->pr) d->pr[row] = cr_v3_zero();
    return true;
}

/* Gather the world's live bodies in Morton order of their grid cells, build
 * the half list and its reverse index, and carry the saved history over. */
cr_status cr_dem_build(cr_world *w, const dem_box *bx)
{
    if (!save_history(w, w->dem)) return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "dem: out of memory");
    return cr_dem_build_carrying(w, bx);
}

cr_status cr_dem_build_carrying(cr_world *w, const dem_box *bx)
{
    cr_dem *d = w->dem;
    cr_bodies *b = &w->bodies;
    uint32_t slots = b->slot_count;
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
                /* a number that is not finite (NaN here) goes to the first
                 * cell: the step's end then stops the world naming the body */
                c[k] = !(fl >= 0.0) ? 0 : fl >= dims[k] ? dims[k] - 1 : (int32_t)fl;
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
    d->chunk = DEM_CHUNK;
    while (d->chunk < 8 * DEM_CHUNK && (uint64_t)d->chunk * 16 < n) d->chunk *= 2;
    const uint32_t chunks = cr_dem_chunks(d, n);
    gather_ctx G = {d, b};
    cr_run_items(w, task_gather, chunks, &G);
    /* each sorted body's cell (rank) */
    for (uint32_t r = 0; r < cells; ++r)
        for (uint32_t s = d->cell_start[r]; s < d->cell_start[r + 1]; ++s) d->cell[s] = r;

    /* the half list, in sorted order, one work item per d->chunk first
     * bodies, each into its own room in a scratch array, then joined */
    list_ctx L = {d, bx, skin, brute, NULL, 0};
    for (;;) {
        uint64_t per = d->per_body ? d->per_body : 16u;
        uint64_t room = per * d->chunk + 256u, need = (room + 1) * chunks;
        if (need > UINT32_MAX / 2) return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "dem: out of memory");
        if (!cr_grow(w, (void **)&d->scr, &d->scr_cap, (uint32_t)need + 1, sizeof *d->scr))
            return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "dem: out of memory");
        L.scr = d->scr, L.room = (uint32_t)room;
        cr_run_items(w, task_list, chunks, &L);
        bool over = false;
        for (uint32_t c = 0; c < chunks; ++c) over |= d->chunk_count[c] > room;
        if (!over) break;
        d->per_body = (uint32_t)(2 * per); /* a denser world than the last: again with more room */
    }
    uint32_t listed = 0, most = 0;
    for (uint32_t c = 0; c < chunks; ++c) {
        listed += d->chunk_count[c];
        uint32_t i0, i1;
        cr_dem_chunk_bodies(d, c, &i0, &i1);
        uint32_t per = (d->chunk_count[c] + (i1 - i0) - 1) / (i1 - i0);
        if (per > most) most = per;
    }
    if (!reserve_pairs(w, d, listed + 1)) return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "dem: out of memory");
    /* each item's pairs go after those of the items before it */
    d->pair_count = 0;
    for (uint32_t c = 0; c < chunks; ++c) {
        const uint32_t cnt = d->chunk_count[c];
        d->chunk_count[c] = d->pair_count;
        d->pair_count += cnt;
    }
    cr_run_items(w, task_join, chunks, &L);
    d->start[n] = d->pair_count;
    /* room for the next build: this one's densest item, with a margin */
    d->per_body = most + most / 2 + 4;
    if (!reserve_pairs(w, d, d->pair_count + 1)) return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "dem: out of memory");
    if (!reverse_index(w, d)) return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "dem: out of memory");
    /* history: the saved pairs by their first body in the new order */
    memset(d->pcount, 0, sizeof *d->pcount * cr_dem_chunks(d, n));
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
            /* xi_r does not flip: v_roll = R* (w_a - w_b) x n is the same
             * with a, b and n's sign swapped */
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
            carry_ctx C = {d, idx};
            cr_run_items(w, task_carry, chunks, &C);
            cr_free(w, idx);
        }
    }
    d->hcount = 0;
    d->builds++;
    d->list_valid = true;
    return CR_OK;
}

