/* The energy guarantee of an island's impulses: they must not do more work
 * than the rows' targets ask (docs/physics/contact-lagrange.md, "No island
 * adds energy").
 *
 * With v' = v + M^-1 J^T lambda the kinetic energy changes by
 * KE' - KE = f + lambda^T target, f = 1/2 lambda^T A lambda - lambda^T b
 * (A = J M^-1 J^T + diag(cfm), b = target - J v; seed 003's system at
 * velocity level). At any solution lambda^T w <= 0 (w = A lambda - b), so
 * f = lambda^T w - 1/2 lambda^T A lambda <= 0. A few Gauss-Seidel passes
 * from a poor start need not get there: kinetic energy from nothing. The
 * island's impulses are then scaled by the largest s < 1 with f(s lambda)
 * = s (s q / 2 - lambda^T b) <= 0, q = lambda^T A lambda: s = 2 lambda^T b
 * / q. Scaling keeps every bound (normal >= 0, |friction| <= mu lambda_n).
 *
 * f is taken through the bodies, not A: with P = J^T lambda each body's
 * impulse and dv = M^-1 P, lambda^T A lambda = sum P . dv + sum cfm
 * lambda^2 and lambda^T J v = sum P . v, one pass over the rows (A is
 * dense and O(n^2) to build; big islands never build it).
 */
#include <math.h>

#include "lcp_internal.h"

/* The s in [0, 1] that takes f(lambda) = q / 2 - lb to f(s lambda) <= 0;
 * 1 when f <= 0 already (within 1e-12 of |q| / 2 + |lb|). */
static double work_scale(double q, double lb)
{
    if (!(0.5 * q - lb > 1e-12 * (0.5 * fabs(q) + fabs(lb)))) return 1.0;
    /* q >= 0 (A is positive semidefinite); q = 0 with f > 0 means lb < 0 */
    return q > 0.0 ? fmax(2.0 * lb / q, 0.0) : 0.0;
}

/* Adds lambda times one body's Jacobian block to its impulse, listing the
 * body the first time (mark). */
static inline void add_impulse(cr_lcp_workspace *ws, uint32_t k, cr_vec3 lin, cr_vec3 ang, double l, uint32_t *count)
{
    if (!ws->imp_mark[k]) {
        ws->imp_mark[k] = 1;
        ws->imp_list[(*count)++] = k;
    }
    ws->imp_lin[k] = cr_v3_madd(ws->imp_lin[k], lin, l);
    ws->imp_ang[k] = cr_v3_madd(ws->imp_ang[k], ang, l);
}

double cr_lcp_cap_work(const cr_lcp_row *rows, const cr_lcp_island *isl, const cr_lcp_body *bodies,
                       cr_lcp_workspace *ws, double residual)
{
    const uint32_t n = isl->n;
    /* The impulses and marks are zero for every body between calls (zeroed
     * when they grow; each call zeroes what it wrote) and the island's
     * bodies are listed as the rows meet them: one pass over the rows (on
     * the 20-row pyramid three passes took 5% of the step). */
    cr_vec3 *pl = ws->imp_lin, *pa = ws->imp_ang;
    double cfm = 0.0, lt = 0.0;
    uint32_t count = 0;
    for (uint32_t j = 0; j < n; ++j) {
        const cr_lcp_row *r = &rows[isl->rows[j]];
        double l = ws->lambda[isl->rows[j]];
        if (r->a != CR_LCP_FIXED) add_impulse(ws, r->a, r->ja_lin, r->ja_ang, l, &count);
        if (r->b != CR_LCP_FIXED) add_impulse(ws, r->b, r->jb_lin, r->jb_ang, l, &count);
        cfm += r->cfm * l * l;
        lt += l * r->target;
    }
    /* lambda^T J v and lambda^T A lambda = sum P . M^-1 P + cfm, body by
     * body (a body that cannot move has zero inverses) */
    double ljv = 0.0, q = cfm;
    for (uint32_t c = 0; c < count; ++c) {
        uint32_t k = ws->imp_list[c];
        cr_vec3 l = pl[k], a = pa[k];
        ljv += cr_v3_dot(l, ws->v[k]) + cr_v3_dot(a, ws->w[k]);
        q += bodies[k].inv_mass * cr_v3_len2(l) + cr_v3_dot(a, cr_m3_mul_v(bodies[k].inv_inertia, a));
        pl[k] = pa[k] = cr_v3_zero();
        ws->imp_mark[k] = 0;
    }
    double s = work_scale(q, lt - ljv);
    if (s == 1.0) return residual;
    for (uint32_t j = 0; j < n; ++j) ws->lambda[isl->rows[j]] *= s;
    if (!(residual > 0.0)) return residual;
    /* The natural residual again (stats asked for it), at v + s dv: pl, pa
     * (zero again) get dv, and are zeroed after. */
    for (uint32_t j = 0; j < n; ++j) {
        const cr_lcp_minv *m = &ws->minv[isl->rows[j]];
        double l = ws->lambda[isl->rows[j]];
        if (m->ea != CR_LCP_FIXED) {
            pl[m->ea] = cr_v3_madd(pl[m->ea], m->a_lin, l);
            pa[m->ea] = cr_v3_madd(pa[m->ea], m->a_ang, l);
        }
        if (m->eb != CR_LCP_FIXED) {
            pl[m->eb] = cr_v3_madd(pl[m->eb], m->b_lin, l);
            pa[m->eb] = cr_v3_madd(pa[m->eb], m->b_ang, l);
        }
    }
    double res = 0.0;
    for (uint32_t j = 0; j < n; ++j) {
        const cr_lcp_row *r = &rows[isl->rows[j]];
        double l = ws->lambda[isl->rows[j]];
        double w = cr_lcp_row_velocity(r, ws->v, ws->w) + cr_lcp_row_velocity(r, pl, pa) - r->target + r->cfm * l;
        double lp = r->kind == CR_ROW_FRICTION ? ws->lambda[r->parent] : 0.0;
        res = fmax(res, cr_lcp_row_residual(r, l, lp, w, ws->diag[isl->rows[j]]));
    }
    for (uint32_t j = 0; j < n; ++j) {
        const cr_lcp_minv *m = &ws->minv[isl->rows[j]];
        if (m->ea != CR_LCP_FIXED) pl[m->ea] = pa[m->ea] = cr_v3_zero();
        if (m->eb != CR_LCP_FIXED) pl[m->eb] = pa[m->eb] = cr_v3_zero();
    }
    return res;
}
