/* Constraint solver entry point: validation, islands, dispatch, apply.
 *
 * Seed 003 solves every contact and joint of the system together. Rows that
 * share no movable body do not interact (A = J M^-1 J^T is block diagonal
 * over them), so each connected component ("island") is solved on its own:
 * small islands directly, big ones by PGS. Islands are found by union-find
 * over rows (two rows touching the same movable body are joined; a friction
 * row is joined to its normal row), and numbered by their lowest row, so
 * the grouping and every loop order depend only on the input values.
 */
#include <stdlib.h>
#include <string.h>

#include "lcp_internal.h"
#include "union_find.h"

cr_lcp_options cr_lcp_default_options(void)
{
    cr_lcp_options o;
    o.dense_max_rows = 240;
    o.max_active_set_iterations = 0; /* 0: 4 * rows + 8 per island */
    o.pgs_iterations = 50;
    o.pgs_stop = 0.0;
    o.tolerance = 1e-12;
    o.residual = true;
    o.lemke_max_rows = 240;
    o.lemke_joints = true;
    return o;
}

cr_lcp_workspace *cr_lcp_workspace_create(void) { return calloc(1, sizeof(cr_lcp_workspace)); }

void cr_lcp_workspace_destroy(cr_lcp_workspace *ws)
{
    if (!ws) return;
    free(ws->minv);
    free(ws->lambda);
    free(ws->diag);
    free(ws->local);
    free(ws->island_rows);
    free(ws->island_start);
    free(ws->parent_uf);
    free(ws->body_first);
    free(ws->v);
    free(ws->w);
    free(ws->imp_lin);
    free(ws->imp_ang);
    free(ws->imp_mark);
    free(ws->imp_list);
    free(ws->pgs);
    free(ws->pgs_lambda);
    free(ws->pgs_order);
    free(ws->body_level);
    free(ws->vel_stamp);
    free(ws->vel);
    free(ws->A);
    free(ws->R);
    free(ws->G);
    free(ws->b);
    free(ws->x);
    free(ws->y);
    free(ws->wres);
    free(ws->scratch);
    free(ws->unknown);
    free(ws->colof);
    free(ws->perm);
    free(ws->cperm);
    free(ws->state);
    free(ws->lemke_t);
    free(ws->lemke_m);
    free(ws->lemke_var);
    free(ws);
}

static bool grow(void **p, size_t count, size_t elem)
{
    void *q = realloc(*p, count * elem);
    if (!q) return false;
    *p = q;
    return true;
}

static bool reserve_rows(cr_lcp_workspace *ws, size_t n)
{
    if (n <= ws->row_cap) return true;
    size_t c = n + n / 2 + 16;
    if (!grow((void **)&ws->minv, c, sizeof(cr_lcp_minv)) || !grow((void **)&ws->lambda, c, sizeof(double)) ||
        !grow((void **)&ws->diag, c, sizeof(double)) || !grow((void **)&ws->local, c, sizeof(uint32_t)) ||
        !grow((void **)&ws->island_rows, c, sizeof(uint32_t)) ||
        !grow((void **)&ws->island_start, c + 1, sizeof(uint32_t)) ||
        !grow((void **)&ws->parent_uf, c, sizeof(uint32_t)))
        return false;
    ws->row_cap = c;
    return true;
}

static bool reserve_bodies(cr_lcp_workspace *ws, size_t n)
{
    if (n <= ws->body_cap) return true;
    size_t c = n + n / 2 + 16;
    if (!grow((void **)&ws->body_first, c, sizeof(uint32_t)) || !grow((void **)&ws->v, c, sizeof(cr_vec3)) ||
        !grow((void **)&ws->w, c, sizeof(cr_vec3)) || !grow((void **)&ws->imp_lin, c, sizeof(cr_vec3)) ||
        !grow((void **)&ws->imp_ang, c, sizeof(cr_vec3)) || !grow((void **)&ws->imp_mark, c, sizeof(uint8_t)) ||
        !grow((void **)&ws->imp_list, c, sizeof(uint32_t)) || !grow((void **)&ws->vel, c + 1, sizeof *ws->vel) ||
        !grow((void **)&ws->body_level, c, sizeof *ws->body_level) ||
        !grow((void **)&ws->vel_stamp, c, sizeof *ws->vel_stamp))
        return false;
    memset(ws->vel_stamp, 0, c * sizeof *ws->vel_stamp); /* no slot filled (vel_gen counts from 1) */
    memset(ws->imp_lin, 0, c * sizeof *ws->imp_lin);     /* zero between calls (src/lcp_work.c) */
    memset(ws->imp_ang, 0, c * sizeof *ws->imp_ang);
    memset(ws->imp_mark, 0, c * sizeof *ws->imp_mark);
    ws->vel_gen = 0;
    ws->body_cap = c;
    return true;
}

bool cr_lcp_dense_reserve(cr_lcp_workspace *ws, uint32_t n)
{
    if (n <= ws->dense_cap) return true;
    size_t c = (size_t)n, c2 = c * c;
    if (!grow((void **)&ws->A, c2, sizeof(double)) || !grow((void **)&ws->R, c2, sizeof(double)) ||
        !grow((void **)&ws->G, c2, sizeof(double)) || !grow((void **)&ws->colof, c, sizeof(uint32_t)) ||
        !grow((void **)&ws->b, c, sizeof(double)) || !grow((void **)&ws->x, c, sizeof(double)) ||
        !grow((void **)&ws->y, 3 * c, sizeof(double)) || !grow((void **)&ws->wres, 2 * c, sizeof(double)) ||
        !grow((void **)&ws->scratch, 4 * c, sizeof(double)) || !grow((void **)&ws->unknown, c, sizeof(uint32_t)) ||
        !grow((void **)&ws->perm, c, sizeof(uint32_t)) || !grow((void **)&ws->cperm, c, sizeof(uint32_t)) ||
        !grow((void **)&ws->state, 2 * c, sizeof(uint8_t)))
        return false;
    ws->dense_cap = c;
    return true;
}

double cr_lcp_row_velocity(const cr_lcp_row *r, const cr_vec3 *v, const cr_vec3 *w)
{
    double s = 0.0;
    if (r->a != CR_LCP_FIXED) s += cr_v3_dot(r->ja_lin, v[r->a]) + cr_v3_dot(r->ja_ang, w[r->a]);
    if (r->b != CR_LCP_FIXED) s += cr_v3_dot(r->jb_lin, v[r->b]) + cr_v3_dot(r->jb_ang, w[r->b]);
    return s;
}

double cr_lcp_coupling(const cr_lcp_row *ri, const cr_lcp_minv *mj)
{
    /* ri's bodies as far as mass goes are the same test: a fixed body's
     * M^-1 J^T blocks are zero, so matching only movable ones is enough. */
    double s = 0.0;
    if (mj->ea != CR_LCP_FIXED) {
        if (ri->a == mj->ea) s += cr_v3_dot(ri->ja_lin, mj->a_lin) + cr_v3_dot(ri->ja_ang, mj->a_ang);
        if (ri->b == mj->ea) s += cr_v3_dot(ri->jb_lin, mj->a_lin) + cr_v3_dot(ri->jb_ang, mj->a_ang);
    }
    if (mj->eb != CR_LCP_FIXED) {
        if (ri->a == mj->eb) s += cr_v3_dot(ri->ja_lin, mj->b_lin) + cr_v3_dot(ri->ja_ang, mj->b_ang);
        if (ri->b == mj->eb) s += cr_v3_dot(ri->jb_lin, mj->b_lin) + cr_v3_dot(ri->jb_ang, mj->b_ang);
    }
    return s;
}

/* fmax and fmin without the libm calls (the residual is taken for every
 * row of every solve); NaN never reaches them: inputs are checked finite. */
static inline double max2(double a, double b) { return a > b ? a : b; }
static inline double min2(double a, double b) { return a < b ? a : b; }

double cr_lcp_row_residual(const cr_lcp_row *r, double lambda, double lambda_parent, double w, double d)
{
    double lo = -INFINITY, hi = INFINITY;
    if (r->kind == CR_ROW_NORMAL) lo = 0.0;
    if (r->kind == CR_ROW_FRICTION) {
        hi = r->mu * max2(lambda_parent, 0.0);
        lo = -hi;
    }
    if (!(d > 0.0)) { /* a row that moves nothing: only its bounds matter */
        double out = max2(lo - lambda, lambda - hi);
        return max2(out, 0.0) + ((lambda > lo && lambda < hi) ? fabs(w) : 0.0);
    }
    double p = lambda - w / d;
    p = min2(max2(p, lo), hi);
    return d * fabs(lambda - p);
}

static bool movable(const cr_lcp_body *b)
{
    if (b->inv_mass != 0.0) return true;
    for (int i = 0; i < 3; ++i)
        for (int k = 0; k < 3; ++k)
            if (b->inv_inertia.m[i][k] != 0.0) return true;
    return false;
}

static cr_status validate(const cr_lcp_row *rows, uint32_t row_count, const cr_lcp_body *bodies, uint32_t body_count)
{
    if ((row_count && !rows) || (body_count && !bodies)) return CR_ERR_INVALID_ARGUMENT;
    for (uint32_t i = 0; i < row_count; ++i) {
        const cr_lcp_row *r = &rows[i];
        if ((r->a != CR_LCP_FIXED && r->a >= body_count) || (r->b != CR_LCP_FIXED && r->b >= body_count))
            return CR_ERR_INVALID_ARGUMENT;
        if (r->kind > CR_ROW_FRICTION || !(r->cfm >= 0.0)) return CR_ERR_INVALID_ARGUMENT;
        if (r->kind == CR_ROW_FRICTION &&
            (r->parent >= row_count || rows[r->parent].kind != CR_ROW_NORMAL || !(r->mu >= 0.0)))
            return CR_ERR_INVALID_ARGUMENT;
        if (!cr_v3_isfinite(r->ja_lin) || !cr_v3_isfinite(r->ja_ang) || !cr_v3_isfinite(r->jb_lin) ||
            !cr_v3_isfinite(r->jb_ang) || !isfinite(r->target) || !isfinite(r->cfm) ||
            (r->kind == CR_ROW_FRICTION && !isfinite(r->mu)))
            return CR_ERR_NON_FINITE;
    }
    return CR_OK;
}

/* Islands: ws->island_rows grouped, ws->island_start[0 .. count]. */
static uint32_t build_islands(const cr_lcp_row *rows, uint32_t row_count, uint32_t body_count, cr_lcp_workspace *ws)
{
    uint32_t *p = ws->parent_uf;
    for (uint32_t i = 0; i < row_count; ++i) p[i] = i;
    for (uint32_t k = 0; k < body_count; ++k) ws->body_first[k] = CR_LCP_FIXED;
    for (uint32_t i = 0; i < row_count; ++i) {
        const cr_lcp_minv *m = &ws->minv[i];
        uint32_t e[2] = {m->ea, m->eb};
        for (int s = 0; s < 2; ++s) {
            if (e[s] == CR_LCP_FIXED) continue;
            if (ws->body_first[e[s]] == CR_LCP_FIXED) ws->body_first[e[s]] = i;
            else cr_uf_union(p, ws->body_first[e[s]], i);
        }
        if (rows[i].kind == CR_ROW_FRICTION) cr_uf_union(p, rows[i].parent, i);
    }
    /* Counting sort by island. Each root is its island's lowest row (the
     * union keeps the lower root), so it is met before the island's other
     * rows: numbering roots in row order numbers islands by their lowest
     * row, and ws->local holds each row's island id for now. */
    uint32_t count = 0;
    for (uint32_t i = 0; i < row_count; ++i) {
        uint32_t r = cr_uf_find(p, i);
        ws->local[i] = r == i ? count++ : ws->local[r];
    }
    for (uint32_t k = 0; k <= count; ++k) ws->island_start[k] = 0;
    for (uint32_t i = 0; i < row_count; ++i) ws->island_start[ws->local[i] + 1]++;
    for (uint32_t k = 0; k < count; ++k) ws->island_start[k + 1] += ws->island_start[k];
    /* Fill in row order (rows ascending inside each island), using the
     * starts as cursors, then shift them back. */
    for (uint32_t i = 0; i < row_count; ++i) ws->island_rows[ws->island_start[ws->local[i]]++] = i;
    for (uint32_t k = count; k > 0; --k) ws->island_start[k] = ws->island_start[k - 1];
    ws->island_start[0] = 0;
    return count;
}

static bool has_joint(const cr_lcp_row *rows, const cr_lcp_island *isl)
{
    for (uint32_t j = 0; j < isl->n; ++j)
        if (rows[isl->rows[j]].kind == CR_ROW_EQUALITY) return true;
    return false;
}

cr_status cr_lcp_solve(cr_lcp_row *rows, uint32_t row_count, cr_lcp_body *bodies, uint32_t body_count,
                       const cr_lcp_options *opt, cr_lcp_workspace *ws, cr_lcp_stats *stats)
{
    cr_lcp_options o = opt ? *opt : cr_lcp_default_options();
    cr_lcp_stats st;
    memset(&st, 0, sizeof st);
    if (stats) *stats = st;
    if (!ws) return CR_ERR_INVALID_ARGUMENT;
    cr_status s = validate(rows, row_count, bodies, body_count);
    if (s != CR_OK) return s;
    if (row_count == 0) return CR_OK;
    if (!reserve_rows(ws, row_count) || !reserve_bodies(ws, body_count)) return CR_ERR_OUT_OF_MEMORY;
    if (!(o.tolerance >= 0.0)) o.tolerance = 1e-12;
    if (!(o.pgs_stop >= 0.0)) o.pgs_stop = 0.0;
    const bool want_residual = stats != NULL && o.residual;

    for (uint32_t k = 0; k < body_count; ++k) {
        ws->v[k] = bodies[k].v;
        ws->w[k] = bodies[k].w;
    }
    for (uint32_t i = 0; i < row_count; ++i) {
        const cr_lcp_row *r = &rows[i];
        cr_lcp_minv *m = &ws->minv[i];
        m->ea = (r->a != CR_LCP_FIXED && movable(&bodies[r->a])) ? r->a : CR_LCP_FIXED;
        m->eb = (r->b != CR_LCP_FIXED && movable(&bodies[r->b])) ? r->b : CR_LCP_FIXED;
        m->a_lin = m->a_ang = m->b_lin = m->b_ang = cr_v3_zero();
        if (m->ea != CR_LCP_FIXED) {
            m->a_lin = cr_v3_scale(r->ja_lin, bodies[m->ea].inv_mass);
            m->a_ang = cr_m3_mul_v(bodies[m->ea].inv_inertia, r->ja_ang);
        }
        if (m->eb != CR_LCP_FIXED) {
            m->b_lin = cr_v3_scale(r->jb_lin, bodies[m->eb].inv_mass);
            m->b_ang = cr_m3_mul_v(bodies[m->eb].inv_inertia, r->jb_ang);
        }
        ws->diag[i] = cr_lcp_coupling(r, m) + r->cfm;
        /* A is positive semidefinite, so |A_ij| <= sqrt(A_ii A_jj): finite
         * diagonals and velocities keep the whole system finite. */
        if (!isfinite(ws->diag[i]) || !isfinite(r->target - cr_lcp_row_velocity(r, ws->v, ws->w)))
            return CR_ERR_NON_FINITE;
        ws->lambda[i] = isfinite(r->lambda) ? r->lambda : 0.0;
    }

    uint32_t islands = build_islands(rows, row_count, body_count, ws);
    st.islands = islands;
    for (uint32_t k = 0; k < islands; ++k) {
        cr_lcp_island isl = {ws->island_rows + ws->island_start[k], ws->island_start[k + 1] - ws->island_start[k]};
        for (uint32_t j = 0; j < isl.n; ++j) ws->local[isl.rows[j]] = j;
        if (isl.n > st.largest_island_rows) st.largest_island_rows = isl.n;
        double res;
        if (isl.n <= o.dense_max_rows) {
            if (!cr_lcp_dense_reserve(ws, isl.n)) return CR_ERR_OUT_OF_MEMORY;
            bool converged = true;
            st.dense_islands++;
            st.active_set_iterations += cr_lcp_dense_solve(rows, &isl, bodies, &o, ws, &converged, &res);
            if (!converged) {
                /* The active set cycled or hit its bound: Lemke's method,
                 * which ends; PGS (from the nearest point the active set
                 * met) only where it ends in a ray or inexactly. */
                st.fallbacks++;
                bool lemke = !ws->no_lemke && isl.n <= o.lemke_max_rows && (o.lemke_joints || !has_joint(rows, &isl));
                if (lemke && !cr_lcp_lemke_reserve(ws, isl.n)) return CR_ERR_OUT_OF_MEMORY;
                if (!lemke || !cr_lcp_lemke_solve(rows, &isl, ws, ws->x, &res)) {
                    if (!cr_lcp_pgs_reserve(ws, isl.n)) return CR_ERR_OUT_OF_MEMORY;
                    st.pgs_fallbacks++;
                    res = cr_lcp_pgs_solve(rows, &isl, o.pgs_iterations, o.pgs_stop, want_residual, ws);
                }
                if (!ws->uncapped) res = cr_lcp_cap_work(rows, &isl, bodies, ws, res);
            }
        } else {
            if (!cr_lcp_pgs_reserve(ws, isl.n)) return CR_ERR_OUT_OF_MEMORY;
            st.pgs_islands++;
            res = cr_lcp_pgs_solve(rows, &isl, o.pgs_iterations, o.pgs_stop, want_residual, ws);
            if (!ws->uncapped) res = cr_lcp_cap_work(rows, &isl, bodies, ws, res);
        }
        if (res > st.max_residual || res != res) st.max_residual = res;
    }

    for (uint32_t i = 0; i < row_count; ++i)
        if (!isfinite(ws->lambda[i])) {
            if (stats) *stats = st;
            return CR_ERR_NON_FINITE;
        }
    /* Apply once, in row order, from the velocities before the solve. */
    for (uint32_t k = 0; k < body_count; ++k) {
        ws->v[k] = bodies[k].v;
        ws->w[k] = bodies[k].w;
    }
    for (uint32_t i = 0; i < row_count; ++i) {
        const cr_lcp_minv *m = &ws->minv[i];
        double l = ws->lambda[i];
        if (m->ea != CR_LCP_FIXED) {
            ws->v[m->ea] = cr_v3_madd(ws->v[m->ea], m->a_lin, l);
            ws->w[m->ea] = cr_v3_madd(ws->w[m->ea], m->a_ang, l);
        }
        if (m->eb != CR_LCP_FIXED) {
            ws->v[m->eb] = cr_v3_madd(ws->v[m->eb], m->b_lin, l);
            ws->w[m->eb] = cr_v3_madd(ws->w[m->eb], m->b_ang, l);
        }
    }
    for (uint32_t k = 0; k < body_count; ++k)
        if (!cr_v3_isfinite(ws->v[k]) || !cr_v3_isfinite(ws->w[k])) {
            if (stats) *stats = st;
            return CR_ERR_NON_FINITE;
        }
    for (uint32_t k = 0; k < body_count; ++k) {
        bodies[k].v = ws->v[k];
        bodies[k].w = ws->w[k];
    }
    for (uint32_t i = 0; i < row_count; ++i) rows[i].lambda = ws->lambda[i];
    if (stats) *stats = st;
    return CR_OK;
}
