/* The extra passes of the position projection (projection.c, seed 000 c.5,
 * eq. 5.27/5.28/B.18) over the rows that can still do something.
 *
 * A row pushes its pair apart only while its overlap exceeds the tolerance
 * at which the passes stop (CR_PROJECTION_TOLERANCE): below it a push would
 * not change whether another pass runs, and the converged part of a pile
 * then stops moving. A row's overlap changes only when one of its bodies
 * moves, so a row whose bodies have not moved since it last found its
 * overlap under the tolerance would find the same again: it is skipped.
 * The passes are therefore Gauss-Seidel sweeps in the rows' order in which
 * only the rows next to a body that moved are visited: each body lists its
 * rows, and a push marks them, in this pass when they come later, in the
 * next when they came earlier (or are the row itself). The result is that
 * of visiting every row every pass, to the bit; in a landing pile fewer
 * than a tenth of the visits push (docs/benchmarks.md).
 */
#include <string.h>

#include "world_internal.h"

/* Index of the lowest set bit of m != 0. */
static inline uint32_t lowest_bit(uint64_t m)
{
#if defined(__GNUC__) || defined(__clang__)
    return (uint32_t)__builtin_ctzll(m);
#else
    uint32_t k = 0;
    while (!(m & 1u)) {
        m >>= 1;
        ++k;
    }
    return k;
#endif
}

static bool is_plane_row(const cr_projection_row *r) { return (r->j & CR_PROJECTION_PLANE) != 0; }

/* Seed 000 eq. 5.27/5.28 on one row, with the tolerance as its dead zone:
 * true when it pushed. */
static bool push_row(const cr_world *w, const cr_projection_row *r, cr_vec3 *restrict x)
{
    if (is_plane_row(r)) {
        const cr_plane_def *pl = &w->planes.def[r->j & ~CR_PROJECTION_PLANE];
        double pen = cr_penetration_sphere_plane(x[r->i], r->ri, pl->point, pl->normal);
        if (!(pen > CR_PROJECTION_TOLERANCE * 2.0 * r->ri)) return false;
        x[r->i] = cr_v3_add(x[r->i], cr_v3_scale(pl->normal, r->ki * pen));
        return true;
    }
    cr_vec3 n;
    double ov = cr_overlap_sphere_sphere(x[r->i], r->ri, x[r->j], r->rj, &n);
    if (!(ov > CR_PROJECTION_TOLERANCE * (r->ri + r->rj))) return false;
    x[r->i] = cr_v3_add(x[r->i], cr_v3_scale(n, r->ki * ov));
    x[r->j] = cr_v3_add(x[r->j], cr_v3_scale(cr_v3_neg(n), r->kj * ov));
    return true;
}

/* Each body's rows, in the rows' order (a counting sort): rows of body b
 * are near_body_rows[near_body_start[b] .. near_body_start[b + 1]). */
static bool index_rows(cr_world *w)
{
    uint32_t nb = w->bodies.slot_count, n = w->near_count;
    if (!cr_grow(w, (void **)&w->near_body_start, &w->near_body_start_capacity, nb + 1,
                 sizeof *w->near_body_start) ||
        !cr_grow(w, (void **)&w->near_body_rows, &w->near_body_rows_capacity, 2 * n + 1, sizeof *w->near_body_rows))
        return false;
    uint32_t *start = w->near_body_start, *rows = w->near_body_rows;
    memset(start, 0, sizeof *start * (nb + 1));
    for (uint32_t k = 0; k < n; ++k) {
        const cr_projection_row *r = &w->near[k];
        start[r->i]++;
        if (!is_plane_row(r)) start[r->j]++;
    }
    uint32_t sum = 0;
    for (uint32_t b = 0; b <= nb; ++b) {
        uint32_t c = start[b];
        start[b] = sum;
        sum += c;
    }
    for (uint32_t k = 0; k < n; ++k) {
        const cr_projection_row *r = &w->near[k];
        rows[start[r->i]++] = k;
        if (!is_plane_row(r)) rows[start[r->j]++] = k;
    }
    /* start[b] is now the end of b's rows: shift back */
    for (uint32_t b = nb; b > 0; --b) start[b] = start[b - 1];
    start[0] = 0;
    return true;
}

/* Body b moved at row k: its rows after k are visited in this pass, those
 * up to k in the next. */
static void mark(const cr_world *w, uint32_t b, uint32_t k, uint64_t *restrict now, uint64_t *restrict next)
{
    for (uint32_t s = w->near_body_start[b]; s < w->near_body_start[b + 1]; ++s) {
        uint32_t q = w->near_body_rows[s];
        uint64_t *set = q > k ? now : next;
        set[q >> 6] |= (uint64_t)1 << (q & 63u);
    }
}

/* One pass over the marked rows of now (cleared as it goes); true when a
 * row pushed, i.e. met an overlap over the tolerance. */
static bool pass(const cr_world *w, cr_vec3 *restrict x, uint64_t *restrict now, uint64_t *restrict next,
                 uint32_t words)
{
    bool pushed = false;
    for (uint32_t q = 0; q < words; ++q) {
        uint64_t m;
        /* read again after every row: a push marks later rows of this word */
        while ((m = now[q]) != 0) {
            uint32_t k = 64 * q + lowest_bit(m);
            now[q] = m & (m - 1);
            const cr_projection_row *r = &w->near[k];
            if (!push_row(w, r, x)) continue;
            pushed = true;
            mark(w, r->i, k, now, next);
            if (!is_plane_row(r)) mark(w, r->j, k, now, next);
        }
    }
    return pushed;
}

cr_status cr_projection_extra_passes(cr_world *w, cr_vec3 *x, int passes)
{
    uint32_t n = w->near_count, words = (n + 63) / 64;
    if (!index_rows(w) || !cr_grow(w, (void **)&w->near_active, &w->near_active_capacity, 2 * words + 2,
                                   sizeof *w->near_active))
        return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "projection: out of memory");
    uint64_t *now = w->near_active, *next = w->near_active + words + 1;
    /* the first extra pass visits every row */
    memset(now, 0xff, sizeof *now * words);
    if (n & 63u) now[words - 1] = ((uint64_t)1 << (n & 63u)) - 1;
    memset(next, 0, sizeof *next * words);
    for (int p = 1; p < passes; ++p) {
        bool pushed = pass(w, x, now, next, words);
        w->stats.projection_passes = (uint32_t)p + 1;
        if (!pushed) break;
        uint64_t *t = now;
        now = next;
        next = t; /* cleared by the pass */
    }
    return CR_OK;
}
