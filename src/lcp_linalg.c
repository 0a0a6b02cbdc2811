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

/* Plain Cholesky of the r x r positive definite G in place (lower part),
 * then G y = c. A non-positive pivot (only from roundoff) zeroes its
 * unknown rather than dividing by it. */
static void chol_solve(double *G, uint32_t r, double *y)
{
    for (uint32_t j = 0; j < r; ++j) {
        double d = G[j * r + j];
        for (uint32_t k = 0; k < j; ++k) d -= G[j * r + k] * G[j * r + k];
        d = d > 0.0 ? sqrt(d) : 0.0;
        G[j * r + j] = d;
        for (uint32_t i = j + 1; i < r; ++i) {
            double s = G[i * r + j];
            for (uint32_t k = 0; k < j; ++k) s -= G[i * r + k] * G[j * r + k];
            G[i * r + j] = d > 0.0 ? s / d : 0.0;
        }
    }
    for (uint32_t i = 0; i < r; ++i) { /* L z = y */
        double s = y[i];
        for (uint32_t k = 0; k < i; ++k) s -= G[i * r + k] * y[k];
        y[i] = G[i * r + i] > 0.0 ? s / G[i * r + i] : 0.0;
    }
    for (uint32_t i = r; i-- > 0;) { /* L^T y = z */
        double s = y[i];
        for (uint32_t k = i + 1; k < r; ++k) s -= G[k * r + i] * y[k];
        y[i] = G[i * r + i] > 0.0 ? s / G[i * r + i] : 0.0;
    }
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
    /* Rank deficient: L <- L sqrt(D), so that M ~ L L^T with L n x r. */
    for (uint32_t j = 0; j < r; ++j) {
        double sd = sqrt(M[j * n + j]);
        M[j * n + j] = sd;
        for (uint32_t i = j + 1; i < n; ++i) M[i * n + j] *= sd;
    }
    if (r == 0) return 0;
    /* Rank r < n: M ~ L L^T with L the first r columns (n x r, lower
     * trapezoidal). The minimum-norm solution lies in range(L): x = L y with
     * (L^T L)^2 y = L^T c. */
    for (uint32_t j = 0; j < r; ++j) {
        double s = 0.0;
        for (uint32_t i = j; i < n; ++i) s += M[i * n + j] * cp[i];
        y[j] = s;
    }
    for (uint32_t j = 0; j < r; ++j)
        for (uint32_t l = 0; l <= j; ++l) {
            double s = 0.0;
            for (uint32_t i = j; i < n; ++i) s += M[i * n + j] * M[i * n + l];
            G[j * r + l] = s;
            G[l * r + j] = s;
        }
    chol_solve(G, r, y); /* factorises G once ... */
    for (uint32_t i = 0; i < r; ++i) { /* ... and reuses it for the second solve */
        double s = y[i];
        for (uint32_t k = 0; k < i; ++k) s -= G[i * r + k] * y[k];
        y[i] = G[i * r + i] > 0.0 ? s / G[i * r + i] : 0.0;
    }
    for (uint32_t i = r; i-- > 0;) {
        double s = y[i];
        for (uint32_t k = i + 1; k < r; ++k) s -= G[k * r + i] * y[k];
        y[i] = G[i * r + i] > 0.0 ? s / G[i * r + i] : 0.0;
    }
    for (uint32_t i = 0; i < n; ++i) {
        double s = 0.0;
        uint32_t top = i < r ? i + 1 : r;
        for (uint32_t j = 0; j < top; ++j) s += M[i * n + j] * y[j];
        x[perm[i]] = s;
    }
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
