/* Lemke's complementary pivoting for an island whose active set cycled or
 * hit its bound (docs/physics/contact-lagrange.md, "When the active set
 * gives up").
 *
 * Seed 003's active-set rule has no termination proof (the seed says so);
 * with friction (the reduced system is not symmetric, the friction LCP is
 * no P-matrix problem) it does cycle. Lemke's method with a lexicographic
 * ratio test takes a finite number of pivots on any LCP, degenerate ones
 * included, and ends in a solution or in a ray. The island's mixed problem
 * is written as a standard LCP  w = M z + q >= 0, z >= 0, z^T w = 0 in the
 * variables
 *   equality row j:  z+, z-  with lambda_j = z+ - z-: w = +-(A lambda - b)_j
 *                    both >= 0, so (A lambda - b)_j = 0;
 *   normal row j:    z = lambda_j, w = (A lambda - b)_j;
 *   friction row t (parent n, mu > 0): z+, z-, beta with lambda_t = z+ - z-,
 *                    w+ = (A lambda - b)_t + beta, w- = -(A lambda - b)_t +
 *                    beta, w_beta = mu lambda_n - z+ - z-: beta > 0 puts
 *                    |lambda_t| at mu lambda_n against the slip, beta = 0
 *                    makes the row stick (Stewart and Trinkle's form with
 *                    one beta per pyramid direction; Anitescu and Potra
 *                    prove Lemke's method solves their form, one beta per
 *                    contact; for this one it is not proven here, and some
 *                    runs do end in a ray: 9 of 40 random heaps in
 *                    tests/test_lcp.c, every island of chain.json, below);
 *   friction row with mu = 0: lambda = 0, no variable.
 * The tableau is dense, N x (2 N + 2) with N <= 3 n: O(N^2) a pivot. It
 * runs only when the active set has given up; up to three runs (covering
 * vectors), then the caller's PGS fallback. The result is taken only
 * within 1e-9 of a solution (cr_lcp_dense_accept).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lcp_internal.h"

enum { V_NORMAL, V_POS, V_NEG, V_BETA };

bool cr_lcp_lemke_reserve(cr_lcp_workspace *ws, uint32_t n)
{
    size_t N = 3 * (size_t)n;
    if (N <= ws->lemke_cap) return true;
    size_t cells = N * (2 * N + 2);
    double *t = realloc(ws->lemke_t, cells * sizeof(double));
    if (!t) return false;
    ws->lemke_t = t;
    uint32_t *v = realloc(ws->lemke_var, 4 * N * sizeof(uint32_t));
    if (!v) return false;
    ws->lemke_var = v;
    ws->lemke_cap = N;
    return true;
}

/* Row i of the tableau: does it leave before row k (lexicographic rule:
 * the smaller of (q_i, B^-1 row i) / a_i)? */
static bool lex_less(const double *T, size_t width, uint32_t N, uint32_t i, uint32_t k, uint32_t e)
{
    const double *ri = T + i * width, *rk = T + k * width;
    double ai = ri[e], ak = rk[e];
    for (uint32_t c = 0; c < N; ++c) {
        double x = ri[c] / ai, y = rk[c] / ak;
        if (x < y) return true;
        if (x > y) return false;
    }
    return i < k;
}

/* The LCP's variables: vkind, vrow (the island row), first[j] (row j's
 * first variable). Returns N. */
static uint32_t number_vars(const cr_lcp_row *rows, const cr_lcp_island *isl, uint32_t *vkind, uint32_t *vrow,
                            uint32_t *first)
{
    uint32_t N = 0;
    for (uint32_t j = 0; j < isl->n; ++j) {
        const cr_lcp_row *r = &rows[isl->rows[j]];
        first[j] = N;
        if (r->kind == CR_ROW_NORMAL) {
            vkind[N] = V_NORMAL;
            vrow[N++] = j;
        } else if (r->kind == CR_ROW_EQUALITY || r->mu > 0.0) {
            vkind[N] = V_POS;
            vrow[N++] = j;
            vkind[N] = V_NEG;
            vrow[N++] = j;
            if (r->kind == CR_ROW_FRICTION) {
                vkind[N] = V_BETA;
                vrow[N++] = j;
            }
        }
    }
    return N;
}

/* The covering vector of try k: all ones, then two fixed perturbations of
 * it (a path that ends in a ray from one start need not from another). */
static double cover(uint32_t i, int k)
{
    if (k == 0) return 1.0;
    return 1.0 + (double)((i * (k == 1 ? 7u : 13u)) % 17u) / 17.0;
}

/* One run of Lemke's method with covering vector try k; true when z0 left
 * the basis (T and basis then hold the solution). */
static bool run(const cr_lcp_row *rows, const cr_lcp_island *isl, cr_lcp_workspace *ws, uint32_t N, int k)
{
    const uint32_t n = isl->n;
    const double *A = ws->A, *b = ws->b;
    const uint32_t *vkind = ws->lemke_var, *vrow = vkind + ws->lemke_cap, *first = vrow + ws->lemke_cap;
    uint32_t *basis = ws->lemke_var + 3 * ws->lemke_cap;
    const size_t width = 2 * (size_t)N + 2;
    const uint32_t Z0 = 2 * N, Q = 2 * N + 1;
    double *T = ws->lemke_t;
    /* T = [I, -M, -d, q]: w = M z + q + d z0 */
    for (uint32_t i = 0; i < N; ++i) {
        double *ti = T + i * width;
        memset(ti, 0, width * sizeof(double));
        ti[i] = 1.0;
        ti[Z0] = -cover(i, k);
        basis[i] = i;
        uint32_t ki = vkind[i], ji = vrow[i];
        const cr_lcp_row *ri = &rows[isl->rows[ji]];
        if (ki == V_BETA) { /* mu lambda_n - z+ - z- */
            ti[N + first[ws->local[ri->parent]]] = -ri->mu;
            ti[N + i - 2] = 1.0;
            ti[N + i - 1] = 1.0;
            continue;
        }
        double si = ki == V_NEG ? -1.0 : 1.0;
        for (uint32_t c = 0; c < N; ++c) {
            if (vkind[c] == V_BETA) continue;
            double sc = vkind[c] == V_NEG ? -1.0 : 1.0;
            ti[N + c] = -si * sc * A[(size_t)ji * n + vrow[c]];
        }
        if (ri->kind == CR_ROW_FRICTION) ti[N + first[ji] + 2] = -1.0; /* + beta */
        ti[Q] = -si * b[ji];
    }
    /* z = 0 solves it when q >= 0; else z0 enters and the row of the
     * smallest q / d leaves */
    uint32_t r = 0;
    for (uint32_t i = 1; i < N; ++i)
        if (T[i * width + Q] / cover(i, k) < T[r * width + Q] / cover(r, k)) r = i;
    if (T[r * width + Q] >= 0.0) return true;
    uint32_t e = Z0;
    const uint32_t max_pivots = 50 + 20 * N;
    for (uint32_t it = 0; it < max_pivots; ++it) {
        /* pivot on (r, e) */
        double *tr = T + r * width, p = tr[e];
        for (size_t c = 0; c < width; ++c) tr[c] /= p;
        tr[e] = 1.0;
        for (uint32_t i = 0; i < N; ++i) {
            if (i == r) continue;
            double *ti = T + i * width, f = ti[e];
            if (f == 0.0) continue;
            for (size_t c = 0; c < width; ++c) ti[c] -= f * tr[c];
            ti[e] = 0.0;
        }
        uint32_t leaving = basis[r];
        basis[r] = e;
        if (leaving == Z0) return true;
        e = leaving < N ? leaving + N : leaving - N; /* its complement enters */
        /* ratio test: the first basic variable the entering one drives to
         * zero; ties by the lexicographic rule, z0 first */
        double cmax = 0.0;
        for (uint32_t i = 0; i < N; ++i) cmax = fmax(cmax, fabs(T[i * width + e]));
        const double eps = 1e-12 * cmax;
        uint32_t best = UINT32_MAX;
        double bratio = INFINITY;
        for (uint32_t i = 0; i < N; ++i) {
            double a = T[i * width + e];
            if (!(a > eps)) continue;
            double ratio = fmax(T[i * width + Q], 0.0) / a;
            if (best == UINT32_MAX || ratio < bratio * (1.0 - 1e-12)) {
                best = i;
                bratio = ratio;
            } else if (ratio <= bratio * (1.0 + 1e-12) && basis[best] != Z0 &&
                       (basis[i] == Z0 || lex_less(T, width, N, i, best, e))) {
                best = i;
                bratio = fmin(bratio, ratio);
            }
        }
        if (best == UINT32_MAX) return false; /* a ray */
        r = best;
    }
    return false;
}

bool cr_lcp_lemke_solve(const cr_lcp_row *rows, const cr_lcp_island *isl, cr_lcp_workspace *ws, double *lam)
{
    const uint32_t n = isl->n;
    uint32_t *vkind = ws->lemke_var, *vrow = vkind + ws->lemke_cap, *first = vrow + ws->lemke_cap,
             *basis = first + ws->lemke_cap;
    /* Islands with joints: not tried. On every one of the chains' in
     * tests/test_rigid_joints.c (671 islands, hinges with contacts, in the
     * contact solve and in the drift correction) all three runs ended in a
     * ray, and the tries took those tests from 4.6 to 11 s. */
    for (uint32_t j = 0; j < n; ++j)
        if (rows[isl->rows[j]].kind == CR_ROW_EQUALITY) return false;
    uint32_t N = number_vars(rows, isl, vkind, vrow, first);
    for (uint32_t j = 0; j < n; ++j) lam[j] = 0.0;
    if (N == 0) return true;
    int k = 0;
    while (k < 3 && !run(rows, isl, ws, N, k)) ++k;
    if (k == 3) return false;
    const size_t width = 2 * (size_t)N + 2;
    const double *T = ws->lemke_t;
    for (uint32_t i = 0; i < N; ++i) {
        uint32_t v = basis[i];
        if (v < N || v >= 2 * N) continue; /* w or z0 */
        double z = fmax(T[i * width + 2 * N + 1], 0.0);
        if (vkind[v - N] == V_NORMAL || vkind[v - N] == V_POS) lam[vrow[v - N]] += z;
        if (vkind[v - N] == V_NEG) lam[vrow[v - N]] -= z;
    }
    for (uint32_t j = 0; j < n; ++j)
        if (!isfinite(lam[j])) return false;
    return true;
}
