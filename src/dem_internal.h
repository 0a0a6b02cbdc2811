/* CR_METHOD_DEM internals shared by src/dem*.c. */
#ifndef CAROM_DEM_INTERNAL_H
#define CAROM_DEM_INTERNAL_H

#include "dem_rolling.h"
#include "prefetch.h"
#include "world_internal.h"

/* carom's own thread pool (src/dem_pool.c), used when cr_world_def asks for
 * worker_count > 1 without its own enqueue_task: worker_count - 1 threads
 * plus the caller. NULL when threads are not available (built with
 * CAROM_NO_THREADS or without <pthread.h>) or cannot be started: the caller
 * then runs the items itself. */
typedef struct cr_dem_pool cr_dem_pool;
cr_dem_pool *cr_dem_pool_create(cr_world *w, uint32_t workers);
/* Runs fn over items [0, items), one item per call, spread over the
 * workers; returns when all are done. */
void cr_dem_pool_run(cr_dem_pool *p, cr_task_fn *fn, uint32_t items, void *ctx);
void cr_dem_pool_destroy(cr_world *w, cr_dem_pool *p);
/* Runs fn over items [0, items) the way the world definition asks: through
 * its enqueue_task / finish_task, else on the world's pool (w->pool,
 * started on first use with worker_count - 1 threads), else on the
 * caller's thread. Used by the DEM and by the rigid-body narrow phase;
 * their items write disjoint data, so results never depend on which of
 * these runs them. */
void cr_run_items(cr_world *w, cr_task_fn *fn, uint32_t items, void *ctx);
/* The end of work item c of a pass cut into items of `chunk` from [0, n). */
static inline uint32_t cr_chunk_end(uint32_t c, uint32_t chunk, uint32_t n)
{
    return (c + 1) * chunk < n ? (c + 1) * chunk : n;
}
/* True when cr_run_items surely runs every item on the caller's thread, in
 * order (one item, or one worker and no task system of the world's own;
 * false where a pool was asked for and could not start, which also runs
 * them there): a pass may then also do work that needs the items before it
 * done. */
bool cr_runs_on_caller(const cr_world *w, uint32_t items);

/* ---- the DEM's state (src/dem.c: the step; src/dem_list.c: the list) ---- */

/* Bodies per work item: from DEM_CHUNK up to 8 DEM_CHUNK, for 16 items or
 * more (a pair whose bodies lie in two items costs a row in pf and a read
 * more). It depends on the number of bodies only: not on the threads. */
#define DEM_CHUNK 512u

typedef struct dem_pf {
    cr_vec3 f, t;
} dem_pf;

/* What the pair law reads of a body besides its centre and radius, in one
 * 64-byte cache line (the array aligned to 64): the law's second body is
 * found through the list, so each of its arrays was a line to wait for,
 * four of them (v, w, mass, flags) where this is one. The passes over the
 * bodies read it in order. */
typedef struct dem_kin {
    cr_vec3 v, w;
    double mass;
    uint8_t flags; /* DEM_DYN, DEM_ROT */
    uint8_t pad[7];
} dem_kin;
_Static_assert(sizeof(dem_kin) == 64, "dem_kin: one cache line");

struct cr_dem {
    /* sorted bodies */
    uint32_t n, cap;
    double *xr;              /* x, y, z, radius */
    dem_kin *kin;            /* v, w, mass, flags; in kin_mem, aligned to 64 bytes */
    void *kin_mem;
    cr_vec3 *f, *t, *x_build;
    cr_quat *q;
    double *inv_mass, *inv_inertia;
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
    /* with rolling resistance (cr_hooke.k_roll > 0, else NULL): each
     * contact's rolling history xi_r beside hist and phist, and the rolling
     * torque on the second body of each row of pf (pf's lever gives only
     * the tangential force's) */
    cr_vec3 *rhist, *prhist, *pr;
    bool rolling;
    uint32_t *pk, *pi, *pcount;
    dem_pf *pf;              /* of the pairs across work items, by second body: force on the first body and
                              * torque lever (d x F_t) / r; zero unless the pair touches */
    uint32_t pf_sink;        /* the entry written by pairs inside a work item */
    uint32_t *ck, *ci;
    uint32_t pair_count, pair_cap;
    /* history kept across a build, by world slots */
    uint32_t *ha, *hb, hcount, hcap;
    cr_vec3 *hs, *hr; /* hr: the rolling history (with rolling, else NULL) */
    uint32_t *rev_at, rev_at_cap, *rev_bucket, rev_bucket_cap; /* a build's scratch: the reverse index (src/dem_list.c) */
    uint32_t *hstart, hstart_cap; /* a build's scratch: the saved pairs of each old work item, then of each first body */
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
    uint32_t *chunk_order; /* the pairs' items, costliest first (forces in src/dem.c) */
    uint8_t *chunk_flag;  /* per body item (cr_dem_body_items) */
    double *chunk_disp; /* per body item: the box of the displacements since the build, lo xyz, hi xyz */
    uint32_t chunk; /* bodies per work item, set by the build */
    uint64_t builds; /* list builds so far (tests) */
    bool list_valid, forces_valid;
    bool portable; /* tests: the screen, the law and the move without AVX2 even where it is (the same bits) */
    uint32_t large_from; /* bodies from which the pairs run in parts, finished with them on one thread
                          * (DEM_LARGE, src/dem.c; tests set it lower: the same bits) */
    bool world_stale; /* the world's x, v, w, q lag the sorted arrays (cr_dem_sync) */
};

enum { DEM_DYN = 1, DEM_ROT = 2 };
enum { DEM_FAR = 1, DEM_BAD = 2 }; /* chunk_flag: a body moved past half the skin; a number not finite */

/* see prefetch.h */
#define DEM_PREFETCH(p, w) CR_PREFETCH(p, w)

/* Minimum-image geometry of the world: L and 1/L per periodic axis, 0 else. */
typedef struct dem_box {
    double L[3], half[3], lo[3];
    bool periodic[3];
} dem_box;

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

static inline uint32_t cr_dem_chunks(const cr_dem *d, uint32_t n) { return (n + d->chunk - 1) / d->chunk; }
/* The passes over the bodies alone (move, finish: no sums across bodies)
 * run in smaller items than the pairs, of DEM_CHUNK bodies: on 2 threads a
 * pass of 16 items ended with one thread idle for half an item on average.
 * chunk_flag and chunk_disp are by these items. */
static inline uint32_t cr_dem_body_items(const cr_dem *d) { return (d->n + DEM_CHUNK - 1) / DEM_CHUNK; }
static inline void cr_dem_item_bodies(const cr_dem *d, uint32_t b, uint32_t *i0, uint32_t *i1)
{
    *i0 = b * DEM_CHUNK;
    *i1 = *i0 + DEM_CHUNK < d->n ? *i0 + DEM_CHUNK : d->n;
}
/* Work item c's bodies, [*i0, *i1) of d->n: items of d->chunk bodies, the
 * last one shorter. */
static inline void cr_dem_chunk_bodies(const cr_dem *d, uint32_t c, uint32_t *i0, uint32_t *i1)
{
    *i0 = c * d->chunk;
    *i1 = *i0 + d->chunk < d->n ? *i0 + d->chunk : d->n;
}

/* The screen (src/dem_screen.c): of the listed pairs k in [k0, k1), first
 * body fb[k] and second nb[k], those whose spheres overlap at the minimum
 * image, in list order: ck[c] = k, ci[c] = fb[k]; returns their count.
 * ck and ci have room for k1 - k0 entries (every pair is written, and kept
 * only when it touches). portable: the plain loop even where AVX2 is (tests;
 * both give the same pairs). */
uint32_t cr_dem_screen(const double *xr, const uint32_t *fb, const uint32_t *nb, uint32_t k0, uint32_t k1,
                       const dem_box *bx, bool portable, uint32_t *ck, uint32_t *ci);

/* The first half of the step for bodies [i0, i1) on AVX2 (src/dem_move.c):
 * kick_block and drift_block of src/dem.c, the same bits; true when a body
 * moved past half the skin (|u|^2 > lim), disp grown to the box of the
 * displacements. Only where cr_dem_has_avx2 (the processor has AVX2 and
 * the DEM is not asked for its plain loops). */
bool cr_dem_advance_avx2(cr_dem *d, const dem_box *bx, double h, double dt, double lim, uint32_t i0, uint32_t i1,
                         double disp[6]);
bool cr_dem_has_avx2(const cr_dem *d);

/* The contact law's constants for a pass (cr_world_def.hooke, dt) and
 * whether the shear history advances (not at the set-up). */
typedef struct dem_law {
    double kn, kt, gn, gt, mu, dt;
    bool update_shear;
    bool hertz;    /* CR_DEM_HERTZ: both forces times sqrt(delta R*) */
    bool rolling;  /* rolling resistance (cr_hooke.k_roll > 0): the plain path, rhist beside hist */
    dem_rolling_params roll;
    bool portable; /* the plain path even where AVX2 is (tests; the same bits) */
} dem_law;

/* The law on a work item's touching pairs ck[0 .. contacts) (first bodies
 * ci, shear history hist, updated), in list order (src/dem_law.c): each
 * force summed into f, t of the first body, and of the second when it lies
 * in the item (below i1), else stored in its pf row. */
void cr_dem_law(cr_dem *d, const dem_box *bx, const dem_law *law, const uint32_t *ck, const uint32_t *ci,
                cr_vec3 *hist, cr_vec3 *rhist, uint32_t contacts, uint32_t i1);

/* Gathers the world's live bodies, sorts them, builds the half list and
 * carries the history over (src/dem_list.c). */
cr_status cr_dem_build(cr_world *w, const dem_box *bx);
/* cr_dem_build carrying the history in d->ha, hb, hs (hcount pairs by
 * world slots, room from cr_dem_reserve_history) instead of the list's:
 * checkpoints restore a list this way (src/dem_state.c). */
cr_status cr_dem_build_carrying(cr_world *w, const dem_box *bx);
bool cr_dem_reserve_history(cr_world *w, cr_dem *d, uint32_t pairs);
/* The world's periodic box (src/dem.c). */
dem_box cr_dem_box_of(const cr_world *w);

#endif
