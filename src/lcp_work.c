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

double cr_lcp_cap_work(const cr_lcp_row *rows, const cr_lcp_island *isl, const cr_lcp_body *bodies,
                       cr_lcp_workspace *ws, double residual)
{
    const uint32_t n = isl->n;
    cr_vec3 *pl = ws->imp_lin, *pa = ws->imp_ang;
    for (uint32_t j = 0; j < n; ++j) { /* every body the island's rows name, movable or not */
        const cr_lcp_row *r = &rows[isl->rows[j]];
        if (r->a != CR_LCP_FIXED) pl[r->a] = pa[r->a] = cr_v3_zero();
        if (r->b != CR_LCP_FIXED) pl[r->b] = pa[r->b] = cr_v3_zero();
    }
    double cfm = 0.0, lt = 0.0;
    for (uint32_t j = 0; j < n; ++j) {
        const cr_lcp_row *r = &rows[isl->rows[j]];
        double l = ws->lambda[isl->rows[j]];
        if (r->a != CR_LCP_FIXED) {
            pl[r->a] = cr_v3_madd(pl[r->a], r->ja_lin, l);
            pa[r->a] = cr_v3_madd(pa[r->a], r->ja_ang, l);
        }
        if (r->b != CR_LCP_FIXED) {
            pl[r->b] = cr_v3_madd(pl[r->b], r->jb_lin, l);
            pa[r->b] = cr_v3_madd(pa[r->b], r->jb_ang, l);
        }
        cfm += r->cfm * l * l;
        lt += l * r->target;
    }
    /* lambda^T J v and lambda^T A lambda, body by body: each body once (the
     * first row naming it claims it by zeroing its impulse after use). */
    double ljv = 0.0, q = cfm;
    for (uint32_t j = 0; j < n; ++j) {
        const cr_lcp_row *r = &rows[isl->rows[j]];
        const cr_lcp_minv *m = &ws->minv[isl->rows[j]];
        uint32_t e[2] = {r->a, r->b}, em[2] = {m->ea, m->eb};
        for (int s = 0; s < 2; ++s) {
            uint32_t k = e[s];
            if (k == CR_LCP_FIXED) continue;
            ljv += cr_v3_dot(pl[k], ws->v[k]) + cr_v3_dot(pa[k], ws->w[k]);
            if (em[s] != CR_LCP_FIXED) /* movable: dv = M^-1 P */
                q += bodies[k].inv_mass * cr_v3_len2(pl[k]) +
                     cr_v3_dot(pa[k], cr_m3_mul_v(bodies[k].inv_inertia, pa[k]));
            pl[k] = pa[k] = cr_v3_zero();
        }
    }
    double s = work_scale(q, lt - ljv);
    if (s == 1.0) return residual;
    for (uint32_t j = 0; j < n; ++j) ws->lambda[isl->rows[j]] *= s;
    if (!(residual > 0.0)) return residual;
    /* The natural residual again (stats asked for it), at v + s dv. */
    for (uint32_t j = 0; j < n; ++j) {
        const cr_lcp_row *r = &rows[isl->rows[j]];
        if (r->a != CR_LCP_FIXED) pl[r->a] = pa[r->a] = cr_v3_zero();
        if (r->b != CR_LCP_FIXED) pl[r->b] = pa[r->b] = cr_v3_zero();
    }
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
    return res;
}
