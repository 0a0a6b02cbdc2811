/* Projected Gauss-Seidel for one island: big islands, and the fallback when
 * the direct method hits its iteration bound (src/lcp_dense.c).
 *
 * Each row takes the impulse that zeroes its own w given the others
 * (lambda += -w / A_ii), and the accumulated lambda is projected on its set:
 * normal [0, inf), friction [-mu lambda_n, mu lambda_n] with the parent's
 * current lambda_n, equality unbounded (accumulated clamping: the total, not
 * the increment, is clamped, so that a row can give back impulse it took
 * earlier). The body velocities are kept up to date after every row. It is
 * warm started from ws->lambda (projected first).
 *
 * Order of the rows. A Gauss-Seidel update waits for the one before it
 * when both move the same body, and the rows of one contact, of one body
 * pair, always do: taken one after the other, the sweep is a long chain of
 * dependent divisions and the processor idles. The rows are grouped in
 * blocks (a run of rows on the same two bodies: a manifold's points with
 * their friction rows, a joint), and each block gets a level: one past the
 * level of the last block before it (in index order) that moves one of its
 * bodies. Blocks of one level move disjoint bodies and everything they
 * depend on lies in lower levels, so a sweep that takes the levels in turn,
 * and interleaves eight blocks of a level row by row, computes the very same
 * numbers, bit for bit, as the plain sweep in index order, while the
 * processor overlaps eight independent chains. (Colouring the blocks instead
 * would be fewer, fuller groups, but it changes the order of the sweep: for
 * a pyramid of boxes that made Gauss-Seidel converge far worse, 50 rows
 * sinking 69 mm instead of 4.4 mm.)
 *
 * The sweeps run over a packed copy of the island (cr_pgs_row, in sweep
 * order, and the velocities as 6 doubles per body): the world is a slot of
 * zero velocity, and a body that cannot move has zero M^-1 J^T blocks, so
 * the inner loop neither jumps through index arrays nor branches on fixed
 * bodies. The passes run on pairs of doubles (SSE2 on x86-64), or on AVX2's
 * registers of four where the processor has them: the same bits (below,
 * sweep_avx2). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lcp_internal.h"
#include "simd.h"

typedef struct cr_pgs_row {
    uint32_t a, b;          /* velocity slots: the row's bodies, or the zero slot for the world */
    uint32_t parent;        /* friction rows: sweep index of the normal row */
    uint32_t kind;          /* cr_row_kind */
    double ja[6], jb[6];    /* J per body, in the velocity slots' order (below) */
    double ma[6], mb[6];    /* M^-1 J^T likewise: zero for a body that cannot move */
    double d, target, cfm, mu;
} cr_pgs_row;

/* Blocks of a level swept together, row by row. Four was best with the
 * pairs (six and eight no better); with the AVX2 kernels a row is fewer
 * instructions, and eight overlap more: the 50-row pyramid's solve -5%, the
 * 20-row one -7% (twelve and sixteen no better than eight). */
#define CR_PGS_INTERLEAVE 8

bool cr_lcp_pgs_reserve(cr_lcp_workspace *ws, uint32_t n)
{
    if (n <= ws->pgs_cap) return true;
    size_t c = (size_t)n + n / 2 + 16;
    void *p = realloc(ws->pgs, c * sizeof *ws->pgs);
    if (!p) return false;
    ws->pgs = p;
    p = realloc(ws->pgs_lambda, c * sizeof *ws->pgs_lambda);
    if (!p) return false;
    ws->pgs_lambda = p;
    p = realloc(ws->pgs_order, (5 * c + 1) * sizeof *ws->pgs_order);
    if (!p) return false;
    ws->pgs_order = p;
    ws->pgs_cap = c;
    return true;
}

/* A velocity slot, and a row's J and M^-1 J^T blocks, hold each linear
 * component next to its angular one: (lin.x, ang.x, lin.y, ang.y, lin.z,
 * ang.z). Pairs of doubles are then worked on together (below), and the
 * linear and angular dot products of a body come out as the two lanes of one
 * pair, summed in the same order as one at a time. */
static void put(double out[6], cr_vec3 lin, cr_vec3 ang)
{
    out[0] = lin.x, out[2] = lin.y, out[4] = lin.z;
    out[1] = ang.x, out[3] = ang.y, out[5] = ang.z;
}


/* Two doubles worked on lane by lane: the SIMD registers' pairs where the
 * compiler has vector types (GCC, Clang), plain pairs otherwise. Each lane
 * is one IEEE operation either way: the same bits. */
#if defined(__GNUC__)
typedef double v2d __attribute__((vector_size(2 * sizeof(double))));
static inline v2d v2_make(double lo, double hi) { return (v2d){lo, hi}; }
static inline double v2_lo(v2d a) { return a[0]; }
static inline double v2_hi(v2d a) { return a[1]; }
static inline v2d v2_add(v2d a, v2d b) { return a + b; }
static inline v2d v2_mul(v2d a, v2d b) { return a * b; }
#else
typedef struct v2d {
    double lo, hi;
} v2d;
static inline v2d v2_make(double lo, double hi) { return (v2d){lo, hi}; }
static inline double v2_lo(v2d a) { return a.lo; }
static inline double v2_hi(v2d a) { return a.hi; }
static inline v2d v2_add(v2d a, v2d b) { return (v2d){a.lo + b.lo, a.hi + b.hi}; }
static inline v2d v2_mul(v2d a, v2d b) { return (v2d){a.lo * b.lo, a.hi * b.hi}; }
#endif
#if defined(__GNUC__) || defined(__clang__)
#define CR_PGS_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define CR_PGS_ALWAYS_INLINE inline
#endif

static inline v2d v2_load(const double *p)
{
    v2d a;
    memcpy(&a, p, sizeof a);
    return a;
}
static inline void v2_store(double *p, v2d a) { memcpy(p, &a, sizeof a); }

static uint32_t mover(const cr_lcp_minv *m, int side) { return side ? m->eb : m->ea; }

/* Does island row j start a new block (other bodies than row j - 1)? */
static bool starts_block(const cr_lcp_island *isl, const cr_lcp_workspace *ws, uint32_t j)
{
    if (j == 0) return true;
    const cr_lcp_minv *m = &ws->minv[isl->rows[j]], *q = &ws->minv[isl->rows[j - 1]];
    return !((m->ea == q->ea && m->eb == q->eb) || (m->ea == q->eb && m->eb == q->ea));
}

/* The sweep order (see the top of the file): ws->pgs_order[0 .. n) gets
 * island indices. Scratch: the rest of pgs_order (block starts, levels,
 * blocks by level, counts) and ws->body_level. */
static void sweep_order(const cr_lcp_island *isl, cr_lcp_workspace *ws)
{
    uint32_t n = isl->n, *order = ws->pgs_order, *start = order + n, *level = order + 2 * n, *by_level = order + 3 * n,
             *count = order + 4 * n;
    uint32_t *last = ws->body_level;
    uint32_t blocks = 0, levels = 0;
    for (uint32_t j = 0; j < n; ++j)
        for (int s = 0; s < 2; ++s)
            if (mover(&ws->minv[isl->rows[j]], s) != CR_LCP_FIXED) last[mover(&ws->minv[isl->rows[j]], s)] = 0;
    /* a block's level: one past the last block before it that moves one of
     * its bodies */
    for (uint32_t j = 0; j < n; ++j) {
        if (!starts_block(isl, ws, j)) continue;
        const cr_lcp_minv *m = &ws->minv[isl->rows[j]];
        uint32_t la = m->ea != CR_LCP_FIXED ? last[m->ea] : 0, lb = m->eb != CR_LCP_FIXED ? last[m->eb] : 0;
        uint32_t l = (la > lb ? la : lb) + 1;
        if (m->ea != CR_LCP_FIXED) last[m->ea] = l;
        if (m->eb != CR_LCP_FIXED) last[m->eb] = l;
        start[blocks] = j;
        level[blocks++] = l - 1;
        if (l > levels) levels = l;
    }
    /* blocks by level, in index order inside a level (a counting sort) */
    for (uint32_t l = 0; l <= levels; ++l) count[l] = 0;
    for (uint32_t k = 0; k < blocks; ++k) count[level[k] + 1]++;
    for (uint32_t l = 0; l < levels; ++l) count[l + 1] += count[l];
    for (uint32_t k = 0; k < blocks; ++k) by_level[count[level[k]]++] = k;
    /* count[l] is now the end of level l */
    uint32_t out = 0, k = 0;
    for (uint32_t l = 0; l < levels; ++l)
        while (k < count[l]) {
            uint32_t cursor[CR_PGS_INTERLEAVE], end[CR_PGS_INTERLEAVE], g = 0;
            for (; g < CR_PGS_INTERLEAVE && k < count[l]; ++g, ++k) {
                uint32_t b = by_level[k];
                cursor[g] = start[b];
                end[g] = b + 1 < blocks ? start[b + 1] : n;
            }
            for (bool more = true; more;) {
                more = false;
                for (uint32_t i = 0; i < g; ++i)
                    if (cursor[i] < end[i]) {
                        order[out++] = cursor[i]++;
                        more = true;
                    }
            }
        }
}

/* One body's (linear, angular) dot products of J and v, as two lanes:
 * (j.x v.x + j.y v.y) + j.z v.z each. */
static inline v2d dots(const double *j, const double *v)
{
    v2d s = v2_add(v2_mul(v2_load(j), v2_load(v)), v2_mul(v2_load(j + 2), v2_load(v + 2)));
    return v2_add(s, v2_mul(v2_load(j + 4), v2_load(v + 4)));
}

/* J v, summed as cr_lcp_row_velocity does: 0 + (a's linear + angular dot
 * product), then + (b's linear + angular), the two sums taken as the lanes
 * of one pair. */
static inline double row_velocity(const cr_pgs_row *p, double (*vel)[6])
{
    v2d da = dots(p->ja, vel[p->a]), db = dots(p->jb, vel[p->b]);
    v2d s = v2_add(v2_make(v2_lo(da), v2_lo(db)), v2_make(v2_hi(da), v2_hi(db)));
    return (0.0 + v2_lo(s)) + v2_hi(s);
}

/* v += M^-1 J^T dl, written out: compilers at -O2 keep a short loop as a loop. */
static inline void apply(const cr_pgs_row *p, double dl, double (*vel)[6])
{
    v2d d = v2_make(dl, dl);
    double *va = vel[p->a], *vb = vel[p->b];
    v2_store(va, v2_add(v2_load(va), v2_mul(v2_load(p->ma), d)));
    v2_store(va + 2, v2_add(v2_load(va + 2), v2_mul(v2_load(p->ma + 2), d)));
    v2_store(va + 4, v2_add(v2_load(va + 4), v2_mul(v2_load(p->ma + 4), d)));
    v2_store(vb, v2_add(v2_load(vb), v2_mul(v2_load(p->mb), d)));
    v2_store(vb + 2, v2_add(v2_load(vb + 2), v2_mul(v2_load(p->mb + 2), d)));
    v2_store(vb + 4, v2_add(v2_load(vb + 4), v2_mul(v2_load(p->mb + 4), d)));
}

/* x clamped to [lo, hi] (lo <= hi: every row's set): x < lo ? lo : (x > hi ?
 * hi : x), the same value for every x, signed zeros and NaN included, but
 * written as the two selections that x86's minsd and maxsd make exactly
 * (hi < x ? hi : x, then lo > t ? lo : t), so that the compiler needs no
 * branch where a friction row's clamp goes either way at random (inline:
 * libm's fmin and fmax are calls). */
static inline double clamp(double x, double lo, double hi)
{
    double t = hi < x ? hi : x;
    return lo > t ? lo : t;
}

static inline void bounds(const cr_pgs_row *p, const double *lambda, double *lo, double *hi)
{
    *lo = -INFINITY;
    *hi = INFINITY;
    if (p->kind == CR_ROW_NORMAL) *lo = 0.0;
    if (p->kind == CR_ROW_FRICTION) {
        *hi = p->mu * (lambda[p->parent] > 0.0 ? lambda[p->parent] : 0.0);
        *lo = -*hi;
    }
}

/* The Gauss-Seidel passes (see the top of the file), with the kernels J v
 * and v += M^-1 J^T dl given: inlined into each caller, so that each
 * instance has its kernels inline too. With stop > 0 a pass whose largest
 * row update |dl| A_ii (the change of the row's own J v) is at most stop
 * is the last; watch is a constant of each instance, so that the passes
 * without a stop keep their loop as it was. The updates, and so the
 * largest of a pass, are the same numbers in any order of the levels:
 * the stop comes after the very pass it would in index order. */
typedef double (*cr_pgs_velocity_fn)(const cr_pgs_row *p, double (*vel)[6]);
typedef void (*cr_pgs_apply_fn)(const cr_pgs_row *p, double dl, double (*vel)[6]);
static CR_PGS_ALWAYS_INLINE void sweeps(const cr_pgs_row *pr, uint32_t n, uint32_t iterations, bool watch, double stop,
                                        double *lambda, double (*vel)[6], cr_pgs_velocity_fn velocity,
                                        cr_pgs_apply_fn push)
{
    for (uint32_t it = 0; it < iterations; ++it) {
        double largest = 0.0;
        for (uint32_t j = 0; j < n; ++j) {
            const cr_pgs_row *p = &pr[j];
            if (!(p->d > 0.0)) continue; /* moves nothing: lambda stays 0 */
            double wv = velocity(p, vel) - p->target + p->cfm * lambda[j];
            double lo, hi;
            bounds(p, lambda, &lo, &hi);
            double nl = clamp(lambda[j] - wv / p->d, lo, hi);
            double dl = nl - lambda[j];
            if (watch) {
                double change = fabs(dl) * p->d;
                largest = change > largest ? change : largest;
            }
            push(p, dl, vel);
            lambda[j] = nl;
        }
        if (watch && largest <= stop) return;
    }
}

static void sweep_pairs(const cr_pgs_row *pr, uint32_t n, uint32_t iterations, double stop, double *lambda,
                        double (*vel)[6])
{
    if (stop > 0.0) sweeps(pr, n, iterations, true, stop, lambda, vel, row_velocity, apply);
    else sweeps(pr, n, iterations, false, 0.0, lambda, vel, row_velocity, apply);
}

#if CR_AVX2
/* The same kernels on AVX2's registers of four doubles: a body's six
 * numbers (the pairs' layout) are one register of four and one of two.
 * Each lane does the same IEEE operation in the same order as the pairs do
 * (a pair's lanes: (j0 v0 + j2 v2) + j4 v4, the four-lane product's halves
 * added, then the last pair), and nothing is fused into a multiply-add
 * (-ffp-contract=off, and the target is AVX2 without FMA): the very same
 * bits (test_pgs_order runs both), in fewer instructions a row. */
static CR_AVX2_FN inline __m128d dots_avx2(const double *j, const double *v)
{
    __m256d q = _mm256_mul_pd(_mm256_loadu_pd(j), _mm256_loadu_pd(v));
    __m128d s = _mm_add_pd(_mm256_castpd256_pd128(q), _mm256_extractf128_pd(q, 1));
    return _mm_add_pd(s, _mm_mul_pd(_mm_loadu_pd(j + 4), _mm_loadu_pd(v + 4)));
}

/* row_velocity's sums, with the pairs of dots_avx2 */
static CR_AVX2_FN inline double row_velocity_avx2(const cr_pgs_row *p, double (*vel)[6])
{
    __m128d da = dots_avx2(p->ja, vel[p->a]), db = dots_avx2(p->jb, vel[p->b]);
    __m128d s = _mm_add_pd(_mm_unpacklo_pd(da, db), _mm_unpackhi_pd(da, db));
    return (0.0 + _mm_cvtsd_f64(s)) + _mm_cvtsd_f64(_mm_unpackhi_pd(s, s));
}

static CR_AVX2_FN inline void add_scaled_avx2(double *v, const double *m, __m256d d)
{
    _mm256_storeu_pd(v, _mm256_add_pd(_mm256_loadu_pd(v), _mm256_mul_pd(_mm256_loadu_pd(m), d)));
    _mm_storeu_pd(v + 4, _mm_add_pd(_mm_loadu_pd(v + 4), _mm_mul_pd(_mm_loadu_pd(m + 4), _mm256_castpd256_pd128(d))));
}

/* apply's update: body a, then body b (the same slot when both are the
 * world: b sees a's update, as with the pairs) */
static CR_AVX2_FN inline void apply_avx2(const cr_pgs_row *p, double dl, double (*vel)[6])
{
    __m256d d = _mm256_set1_pd(dl);
    add_scaled_avx2(vel[p->a], p->ma, d);
    add_scaled_avx2(vel[p->b], p->mb, d);
}

static CR_AVX2_FN void sweep_avx2(const cr_pgs_row *pr, uint32_t n, uint32_t iterations, double stop,
                                      double *lambda, double (*vel)[6])
{
    if (stop > 0.0) sweeps(pr, n, iterations, true, stop, lambda, vel, row_velocity_avx2, apply_avx2);
    else sweeps(pr, n, iterations, false, 0.0, lambda, vel, row_velocity_avx2, apply_avx2);
}
#endif

/* The warm start of row j: its multiplier (0 for a row that moves nothing
 * or was not finite) projected on its set, and applied. */
static inline void warm_row(const cr_pgs_row *p, uint32_t j, double *lambda, double (*vel)[6])
{
    double lo, hi;
    bounds(p, lambda, &lo, &hi);
    if (!(p->d > 0.0) || !isfinite(lambda[j])) lambda[j] = 0.0;
    lambda[j] = clamp(lambda[j], lo, hi);
    apply(p, lambda[j], vel);
}

/* The island's rows in packed form and sweep order, its bodies' velocities
 * in their slots, and the first half of the warm start: the rows other
 * than friction, in sweep order, each as soon as it is packed (the whole
 * island is several MB: a pass of its own would read it all again). A
 * body's slot is filled where the sweep order first meets it, before any
 * impulse reaches it. Returns the friction rows' count; their sweep
 * indices, ascending, are in ws->pgs_order[n ..) for the second half. */
static uint32_t pack(const cr_lcp_row *rows, const cr_lcp_island *isl, cr_lcp_workspace *ws, uint32_t zero)
{
    static const cr_vec3 none = {0.0, 0.0, 0.0};
    for (int k = 0; k < 6; ++k) ws->vel[zero][k] = 0.0;
    sweep_order(isl, ws);
    uint32_t *friction = ws->pgs_order + isl->n, count = 0; /* sweep_order's scratch, free now */
    uint32_t gen = ++ws->vel_gen;
    if (gen == 0) { /* wrapped: no slot may look filled */
        memset(ws->vel_stamp, 0, ws->body_cap * sizeof *ws->vel_stamp);
        gen = ws->vel_gen = 1;
    }
    /* ws->local: island index -> sweep index, for the friction rows' parents */
    for (uint32_t j = 0; j < isl->n; ++j) ws->local[isl->rows[ws->pgs_order[j]]] = j;
    for (uint32_t j = 0; j < isl->n; ++j) {
        uint32_t g = isl->rows[ws->pgs_order[j]];
        const cr_lcp_row *r = &rows[g];
        const cr_lcp_minv *m = &ws->minv[g];
        cr_pgs_row *p = &ws->pgs[j];
        p->a = r->a == CR_LCP_FIXED ? zero : r->a;
        p->b = r->b == CR_LCP_FIXED ? zero : r->b;
        p->parent = r->kind == CR_ROW_FRICTION ? ws->local[r->parent] : j;
        p->kind = r->kind;
        put(p->ja, r->a == CR_LCP_FIXED ? none : r->ja_lin, r->a == CR_LCP_FIXED ? none : r->ja_ang);
        put(p->jb, r->b == CR_LCP_FIXED ? none : r->jb_lin, r->b == CR_LCP_FIXED ? none : r->jb_ang);
        put(p->ma, m->ea == CR_LCP_FIXED ? none : m->a_lin, m->ea == CR_LCP_FIXED ? none : m->a_ang);
        put(p->mb, m->eb == CR_LCP_FIXED ? none : m->b_lin, m->eb == CR_LCP_FIXED ? none : m->b_ang);
        p->d = ws->diag[g];
        p->target = r->target;
        p->cfm = r->cfm;
        p->mu = r->mu;
        ws->pgs_lambda[j] = ws->lambda[g];
        uint32_t e[2] = {r->a, r->b};
        for (int s = 0; s < 2; ++s)
            if (e[s] != CR_LCP_FIXED && ws->vel_stamp[e[s]] != gen) {
                put(ws->vel[e[s]], ws->v[e[s]], ws->w[e[s]]);
                ws->vel_stamp[e[s]] = gen;
            }
        if (r->kind == CR_ROW_FRICTION) friction[count++] = j;
        else warm_row(p, j, ws->pgs_lambda, ws->vel);
    }
    return count;
}

double cr_lcp_pgs_solve(const cr_lcp_row *rows, const cr_lcp_island *isl, uint32_t iterations, double stop,
                        bool residual, cr_lcp_workspace *ws)
{
    uint32_t n = isl->n, zero = (uint32_t)ws->body_cap;
    uint32_t frictions = pack(rows, isl, ws, zero);
    const cr_pgs_row *pr = ws->pgs;
    double *lambda = ws->pgs_lambda;
    double (*vel)[6] = ws->vel;
    /* Warm start: the other rows first (in pack), so that friction bounds
     * see the normals; then the friction rows, in sweep order. */
    for (uint32_t k = 0; k < frictions; ++k) {
        uint32_t j = ws->pgs_order[n + k];
        warm_row(&pr[j], j, lambda, vel);
    }
#if CR_AVX2
    if (cr_use_avx2(ws->pgs_portable)) sweep_avx2(pr, n, iterations, stop, lambda, vel);
    else
#endif
        sweep_pairs(pr, n, iterations, stop, lambda, vel);
    /* Friction bounds moved with their normals during the last pass: the
     * residual below measures what is left. */
    double res = 0.0;
    for (uint32_t j = 0; residual && j < n; ++j) {
        const cr_pgs_row *p = &pr[j];
        double wv = row_velocity(p, vel) - p->target + p->cfm * lambda[j];
        double lp = p->kind == CR_ROW_FRICTION ? lambda[p->parent] : 0.0;
        res = fmax(res, cr_lcp_row_residual(&rows[isl->rows[ws->pgs_order[j]]], lambda[j], lp, wv, p->d));
    }
    /* Back to the solver's multipliers, in sweep order (the friction rows'
     * indices in pgs_order[n ..) are spent; the sweep order stays). The
     * velocities stay here: the caller applies the multipliers again from
     * the bodies' own velocities, and ws->v, ws->w keep those (a body that
     * cannot move, the one kind that two islands share, gets impulses of
     * zero here, its M^-1 J^T being zero). */
    for (uint32_t j = 0; j < n; ++j) ws->lambda[isl->rows[ws->pgs_order[j]]] = lambda[j];
    return res;
}
