/* Dense rank-revealing solves for the direct constraint method.
 *
 * Redundant contacts make A = J M^-1 J^T singular: a box lying on a plane
 * has 4 corner contacts but only 3 degrees of freedom that they constrain,
 * so A (4 x 4) has rank 3 (seed 003 leaves this case open). Adding a small
 * regularisation eps I would bound lambda, but the null-space component of
 * the solution then is roundoff amplified by 1/eps (1e-3 relative for
 * eps = 1e-13 max A_ii), which breaks the symmetry of symmetric cases.
 * Instead both kernels here reveal the rank: a pivot below cutoff times the
 * largest diagonal (L D L^T) or entry (LU) ends the factorisation, and the
 * equations past the rank are dropped as dependent. Their residual is then
 * at most about cutoff relative, and the symmetric kernel returns the
 * minimum-norm solution, unique and therefore symmetric whenever the
 * problem is (the four corners of the box get equal impulses).
 *
 * Pivot ties go to the lowest index: the result depends only on the values.
 */
#include <math.h>

#include "lcp_internal.h"

static void swap_d(double *a, double *b)
{
    double t = *a;
    *a = *b;
    *b = t;
}

static void swap_u(uint32_t *a, uint32_t *b)
{
    uint32_t t = *a;
    *a = *b;
    *b = t;
}

uint32_t cr_lcp_spd_solve(double *M, uint32_t n, const double *c, double *x, double cutoff, double *G, double *t,
                          uint32_t *perm)
{
    double dmax = 0.0;
    for (uint32_t i = 0; i < n; ++i) {
        perm[i] = i;
        dmax = fmax(dmax, M[i * n + i]);
        x[i] = 0.0;
    }
    if (!(dmax > 0.0)) return 0;
    const double tol = cutoff * dmax;
    uint32_t r = 0;
    for (; r < n; ++r) {
        uint32_t q = r;
        for (uint32_t i = r + 1; i < n; ++i)
            if (M[i * n + i] > M[q * n + q]) q = i;
        double piv = M[q * n + q];
        if (!(piv > tol)) break;
        if (q != r) { /* symmetric swap of rows and columns r, q */
            for (uint32_t k = 0; k < n; ++k) swap_d(&M[r * n + k], &M[q * n + k]);
            for (uint32_t k = 0; k < n; ++k) swap_d(&M[k * n + r], &M[k * n + q]);
            swap_u(&perm[r], &perm[q]);
        }
        /* L D L^T (no square roots: a 1 x 1 system gives c / d exactly).
         * Row r still holds the unscaled column (symmetry); the update
         * (c_i c_k) / d commutes, so the block stays exactly symmetric and
         * later swaps need no care. */
        const double inv = 1.0 / piv;
        for (uint32_t i = r + 1; i < n; ++i) M[i * n + r] = M[r * n + i] * inv;
        for (uint32_t i = r + 1; i < n; ++i) {
            double ci = M[r * n + i];
            for (uint32_t k = r + 1; k < n; ++k) M[i * n + k] -= ci * M[r * n + k] * inv;
        }
    }
    double *cp = t, *y = t + n, *z = t + 2 * (size_t)n;
    for (uint32_t i = 0; i < n; ++i) cp[i] = c[perm[i]];
    if (r == n) { /* full rank: L D L^T x = c, L unit lower, D on the diagonal */
        for (uint32_t i = 0; i < n; ++i) {
            double s = cp[i];
            for (uint32_t k = 0; k < i; ++k) s -= M[i * n + k] * z[k];
            z[i] = s;
        }
        for (uint32_t i = 0; i < n; ++i) z[i] /= M[i * n + i];
        for (uint32_t i = n; i-- > 0;) {
            double s = z[i];
            for (uint32_t k = i + 1; k < n; ++k) s -= M[k * n + i] * z[k];
            z[i] = s;
        }
        for (uint32_t i = 0; i < n; ++i) x[perm[i]] = z[i];
        return r;
    }
    if (r == 0) return 0;
    /* Rank deficient: with L <- L sqrt(D) (n x r, lower trapezoidal),
     * M ~ L L^T. Dependent equations aside, L u = c with u = L^T x, and the
     * first r equations (the pivots) give u = L11^-1 c. The minimum-norm x
     * with L^T x = u is Q R^-T u for L = Q R (Householder): orthogonal
     * transformations only, so the conditioning is that of L (the square
     * root of M's), not squared as in the normal equations. */
    double *Lc = G, *tau = G + (size_t)n * r, *u = y, *rd = z, *vec = cp;
    for (uint32_t j = 0; j < r; ++j) {
        double sd = sqrt(M[j * n + j]);
        for (uint32_t i = 0; i < n; ++i) Lc[i * r + j] = i < j ? 0.0 : (i == j ? sd : M[i * n + j] * sd);
    }
    for (uint32_t i = 0; i < r; ++i) {
        double s = cp[i];
        for (uint32_t k = 0; k < i; ++k) s -= Lc[i * r + k] * u[k];
        u[i] = s / Lc[i * r + i];
    }
    for (uint32_t j = 0; j < r; ++j) {
        double nrm = 0.0;
        for (uint32_t i = j; i < n; ++i) nrm += Lc[i * r + j] * Lc[i * r + j];
        nrm = sqrt(nrm);
        double alpha = Lc[j * r + j] > 0.0 ? -nrm : nrm;
        Lc[j * r + j] -= alpha; /* the Householder vector, in column j */
        double vv = 0.0;
        for (uint32_t i = j; i < n; ++i) vv += Lc[i * r + j] * Lc[i * r + j];
        tau[j] = vv > 0.0 ? 2.0 / vv : 0.0;
        rd[j] = alpha;
        for (uint32_t k = j + 1; k < r; ++k) {
            double sdot = 0.0;
            for (uint32_t i = j; i < n; ++i) sdot += Lc[i * r + j] * Lc[i * r + k];
            sdot *= tau[j];
            for (uint32_t i = j; i < n; ++i) Lc[i * r + k] -= sdot * Lc[i * r + j];
        }
    }
    for (uint32_t j = 0; j < r; ++j) { /* R^T w = u; R's strict upper part is Lc above the diagonal */
        double s = u[j];
        for (uint32_t k = 0; k < j; ++k) s -= Lc[k * r + j] * vec[k];
        vec[j] = rd[j] != 0.0 ? s / rd[j] : 0.0;
    }
    for (uint32_t i = r; i < n; ++i) vec[i] = 0.0;
    for (uint32_t j = r; j-- > 0;) { /* vec <- H_j vec, last reflection first */
        double sdot = 0.0;
        for (uint32_t i = j; i < n; ++i) sdot += Lc[i * r + j] * vec[i];
        sdot *= tau[j];
        for (uint32_t i = j; i < n; ++i) vec[i] -= sdot * Lc[i * r + j];
    }
    for (uint32_t i = 0; i < n; ++i) x[perm[i]] = vec[i];
    return r;
}

uint32_t cr_lcp_lu_solve(double *M, uint32_t n, const double *c, double *x, double cutoff, double *t, uint32_t *rperm,
                         uint32_t *cperm)
{
    double amax = 0.0;
    for (uint32_t i = 0; i < n; ++i) {
        rperm[i] = cperm[i] = i;
        x[i] = 0.0;
        for (uint32_t k = 0; k < n; ++k) amax = fmax(amax, fabs(M[i * n + k]));
    }
    if (!(amax > 0.0)) return 0;
    const double tol = cutoff * amax;
    uint32_t r = 0;
    for (; r < n; ++r) {
        uint32_t p = r, q = r;
        double best = -1.0;
        for (uint32_t i = r; i < n; ++i)
            for (uint32_t k = r; k < n; ++k)
                if (fabs(M[i * n + k]) > best) {
                    best = fabs(M[i * n + k]);
                    p = i;
                    q = k;
                }
        if (!(best > tol)) break;
        if (p != r) {
            for (uint32_t k = 0; k < n; ++k) swap_d(&M[r * n + k], &M[p * n + k]);
            swap_u(&rperm[r], &rperm[p]);
        }
        if (q != r) {
            for (uint32_t k = 0; k < n; ++k) swap_d(&M[k * n + r], &M[k * n + q]);
            swap_u(&cperm[r], &cperm[q]);
        }
        double piv = M[r * n + r];
        for (uint32_t i = r + 1; i < n; ++i) {
            double f = M[i * n + r] / piv;
            M[i * n + r] = f;
            for (uint32_t k = r + 1; k < n; ++k) M[i * n + k] -= f * M[r * n + k];
        }
    }
    double *z = t;
    for (uint32_t i = 0; i < r; ++i) { /* unit lower L on the first r permuted equations */
        double s = c[rperm[i]];
        for (uint32_t k = 0; k < i; ++k) s -= M[i * n + k] * z[k];
        z[i] = s;
    }
    for (uint32_t i = r; i-- > 0;) {
        double s = z[i];
        for (uint32_t k = i + 1; k < r; ++k) s -= M[i * n + k] * z[k];
        z[i] = s / M[i * n + i];
    }
    for (uint32_t i = 0; i < r; ++i) x[cperm[i]] = z[i];
    return r;
}
