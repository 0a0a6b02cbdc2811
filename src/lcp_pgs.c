/* Projected Gauss-Seidel for one island: big islands, and the fallback when
 * the direct method hits its iteration bound (src/lcp_dense.c).
 *
 * Each row in index order takes the impulse that zeroes its own w given the
 * others (lambda += -w / A_ii), and the accumulated lambda is projected on
 * its set: normal [0, inf), friction [-mu lambda_n, mu lambda_n] with the
 * parent's current lambda_n, equality unbounded (accumulated clamping: the
 * total, not the increment, is clamped, so that a row can give back impulse
 * it took earlier). The body velocities are kept up to date after every
 * row. It is warm started from ws->lambda (projected first).
 */
#include <math.h>

#include "lcp_internal.h"

static void apply(const cr_lcp_minv *m, double dl, cr_vec3 *v, cr_vec3 *w)
{
    if (m->ea != CR_LCP_FIXED) {
        v[m->ea] = cr_v3_madd(v[m->ea], m->a_lin, dl);
        w[m->ea] = cr_v3_madd(w[m->ea], m->a_ang, dl);
    }
    if (m->eb != CR_LCP_FIXED) {
        v[m->eb] = cr_v3_madd(v[m->eb], m->b_lin, dl);
        w[m->eb] = cr_v3_madd(w[m->eb], m->b_ang, dl);
    }
}

/* x clamped to [lo, hi] for finite x (inline: libm's fmin and fmax are calls). */
static inline double clamp(double x, double lo, double hi) { return x < lo ? lo : (x > hi ? hi : x); }

static void bounds(const cr_lcp_row *r, const double *lambda, double *lo, double *hi)
{
    *lo = -INFINITY;
    *hi = INFINITY;
    if (r->kind == CR_ROW_NORMAL) *lo = 0.0;
    if (r->kind == CR_ROW_FRICTION) {
        *hi = r->mu * (lambda[r->parent] > 0.0 ? lambda[r->parent] : 0.0);
        *lo = -*hi;
    }
}

double cr_lcp_pgs_solve(const cr_lcp_row *rows, const cr_lcp_island *isl, uint32_t iterations, cr_lcp_workspace *ws)
{
    double *lambda = ws->lambda;
    /* Warm start: normals first, so that friction bounds see them. */
    for (int pass = 0; pass < 2; ++pass)
        for (uint32_t j = 0; j < isl->n; ++j) {
            uint32_t g = isl->rows[j];
            const cr_lcp_row *r = &rows[g];
            if ((pass == 0) != (r->kind != CR_ROW_FRICTION)) continue;
            double lo, hi;
            bounds(r, lambda, &lo, &hi);
            if (!(ws->diag[g] > 0.0) || !isfinite(lambda[g])) lambda[g] = 0.0;
            lambda[g] = clamp(lambda[g], lo, hi);
            apply(&ws->minv[g], lambda[g], ws->v, ws->w);
        }
    for (uint32_t it = 0; it < iterations; ++it)
        for (uint32_t j = 0; j < isl->n; ++j) {
            uint32_t g = isl->rows[j];
            const cr_lcp_row *r = &rows[g];
            double d = ws->diag[g];
            if (!(d > 0.0)) continue; /* moves nothing: lambda stays 0 */
            double wv = cr_lcp_row_velocity(r, ws->v, ws->w) - r->target + r->cfm * lambda[g];
            double lo, hi;
            bounds(r, lambda, &lo, &hi);
            double nl = clamp(lambda[g] - wv / d, lo, hi);
            apply(&ws->minv[g], nl - lambda[g], ws->v, ws->w);
            lambda[g] = nl;
        }
    /* Friction bounds moved with their normals during the last pass: the
     * residual below measures what is left. */
    double res = 0.0;
    for (uint32_t j = 0; j < isl->n; ++j) {
        uint32_t g = isl->rows[j];
        const cr_lcp_row *r = &rows[g];
        double wv = cr_lcp_row_velocity(r, ws->v, ws->w) - r->target + r->cfm * lambda[g];
        double lp = r->kind == CR_ROW_FRICTION ? lambda[r->parent] : 0.0;
        res = fmax(res, cr_lcp_row_residual(r, lambda[g], lp, wv, ws->diag[g]));
    }
    return res;
}
