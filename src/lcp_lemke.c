/* Lemke's complementary pivoting for an island whose active set cycled or
 * hit its bound (docs/physics/contact-lagrange.md, "When the active set
 * gives up").
 *
 * Seed 003's active-set rule has no termination proof (the seed says so);
 * with friction (the reduced system is not symmetric, the friction LCP is
 * no P-matrix problem) it does cycle. Lemke's method with a lexicographic
 * ratio test takes a finite number of pivots on any LCP, degenerate ones
 * included, and ends in a solution or in a ray. The island is written in
 * Anitescu and Potra's form (Nonlinear Dynamics 14, 1997), for which they
 * prove that Lemke's method ends in a solution (no ray) when the data are
 * those of a velocity step (q = J v - target with targets no contact
 * forbids: 0, or an allowed approach):
 *
 *   equality row j:  lambda_j free, w_j = (A lambda - b)_j = 0. Not split
 *       into z+ - z- (two opposite columns: every basis holding one is
 *       degenerate, and the tableau twice the size): the equality block
 *       is eliminated first by principal pivots (w_j <-> lambda_j, largest
 *       diagonal first, i.e. the Schur complement of the joint block, which
 *       is positive semidefinite), and those rows never take part in the
 *       ratio test again (a free variable never leaves). A pivot below
 *       1e-11 of the largest diagonal (a dependent joint row) is skipped.
 *   normal row j (contact c):  z = lambda_n, w = (A lambda - b)_n;
 *   its friction rows t_1..t_k (mu_i > 0, k <= 3): one direction variable
 *       z_s >= 0 per sign pattern s in {+1,-1}^k, lambda_ti = mu_i
 *       sum_s s_i z_s, and ONE beta per contact:
 *         w_s    = sum_i mu_i s_i (A lambda - b)_ti + beta >= 0,
 *         w_beta = lambda_n - sum_s z_s >= 0.
 *       The directions mu o s are the pyramid's corners, so the friction
 *       set {sum z_s <= lambda_n} is exactly the box |lambda_ti| <= mu_i
 *       lambda_n, and complementarity gives beta = sum_i mu_i |u_i| (u the
 *       slip) with z only on the corners against the slip: each row
 *       sticking (u_i = 0) or at -sign(u_i) mu_i lambda_n, the conditions
 *       of the active set (src/lcp_dense.c). This is Anitescu and Potra's
 *       structure: one beta per contact, w_beta = mu lambda_n - E^T z with
 *       E the contact-to-direction incidence (mu folded into the
 *       directions here; a contact of 3 rows is 6 variables, it was 7
 *       with one beta per pyramid row and z+ - z- each);
 *   friction row with mu = 0: lambda = 0, no variable.
 * The rays that the former form ended in (9 of 40 cycling heaps of
 * tests/test_lcp.c, every jointed island) were not the form's: each came
 * with z0 left basic at roundoff after a degenerate tie (run(), below);
 * with that stop the former form solved them too. The form is kept for
 * the proof and the smaller tableau.
 * The tableau is dense, N x (2 N + 2) with N <= 3 n: O(N^2) a pivot. It
 * runs only when the active set has given up; up to three covering vectors,
 * then the caller's PGS fallback. The result is taken only within 1e-9 of
 * a solution (cr_lcp_dense_accept).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lcp_internal.h"

enum { V_FREE, V_NORMAL, V_DIR, V_BETA };
/* friction rows of one contact that get direction variables (2^k of them;
 * 3 keeps N <= 3 n) */
#define MAX_FRICTION 3
/* a joint block pivot below this, relative to the largest joint diagonal,
 * marks a dependent row (CR_LCP_RANK_CUTOFF of src/lcp_dense.c) */
#define FREE_CUTOFF 1e-11
/* z0 this small, relative to max |q|, counts as zero: the basis solves the
 * LCP to that (cr_lcp_dense_accept checks the result to 1e-9) */
#define Z0_ZERO 1e-11

/* ws->lemke_var holds, cap = ws->lemke_cap each: vkind, vrow (the island
 * row: the row itself, or for V_DIR/V_BETA the contact's normal), vsign
 * (V_DIR: bit i set for s_i = -1), basis, first (per island row: its first
 * variable), fcount (per row: friction rows with mu > 0), set, rperm,
 * cperm (the polish's basic variables and pivots), 3 cap: nz (a pivot
 * row's nonzero columns, up to 2 N + 2), 3 cap: flist (per row,
 * MAX_FRICTION slots: those rows). */
enum { L_KIND, L_ROW, L_SIGN, L_BASIS, L_FIRST, L_FCOUNT, L_SET, L_RPERM, L_CPERM, L_NZ, L_FLIST = L_NZ + 3,
       L_ARRAYS = L_FLIST + MAX_FRICTION };

bool cr_lcp_lemke_reserve(cr_lcp_workspace *ws, uint32_t n)
{
    size_t N = 3 * (size_t)n;
    if (N <= ws->lemke_cap) return true;
    size_t cells = N * (2 * N + 2);
    double *t = realloc(ws->lemke_t, cells * sizeof(double));
    if (!t) return false;
    ws->lemke_t = t;
    uint32_t *v = realloc(ws->lemke_var, L_ARRAYS * N * sizeof(uint32_t));
    if (!v) return false;
    ws->lemke_var = v;
    double *m = realloc(ws->lemke_m, (N * N + 4 * N) * sizeof(double));
    if (!m) return false;
    ws->lemke_m = m;
    ws->lemke_cap = N;
    return true;
}

static uint32_t *lv(cr_lcp_workspace *ws, int which) { return ws->lemke_var + (size_t)which * ws->lemke_cap; }

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

/* The LCP's variables (above). Returns N, or UINT32_MAX for a contact
 * with more than MAX_FRICTION friction rows (not taken). */
static uint32_t number_vars(const cr_lcp_row *rows, const cr_lcp_island *isl, cr_lcp_workspace *ws)
{
    uint32_t *vkind = lv(ws, L_KIND), *vrow = lv(ws, L_ROW), *vsign = lv(ws, L_SIGN), *first = lv(ws, L_FIRST),
             *fcount = lv(ws, L_FCOUNT), *flist = lv(ws, L_FLIST);
    for (uint32_t j = 0; j < isl->n; ++j) fcount[j] = 0;
    for (uint32_t j = 0; j < isl->n; ++j) {
        const cr_lcp_row *r = &rows[isl->rows[j]];
        if (r->kind != CR_ROW_FRICTION || !(r->mu > 0.0)) continue;
        uint32_t p = ws->local[r->parent];
        if (fcount[p] == MAX_FRICTION) return UINT32_MAX;
        flist[MAX_FRICTION * p + fcount[p]++] = j;
    }
    uint32_t N = 0;
    for (uint32_t j = 0; j < isl->n; ++j) {
        const cr_lcp_row *r = &rows[isl->rows[j]];
        first[j] = N;
        if (r->kind == CR_ROW_FRICTION) continue;
        vkind[N] = r->kind == CR_ROW_EQUALITY ? V_FREE : V_NORMAL;
        vrow[N++] = j;
        if (r->kind != CR_ROW_NORMAL || fcount[j] == 0) continue;
        for (uint32_t s = 0; s < (1u << fcount[j]); ++s) {
            vkind[N] = V_DIR;
            vsign[N] = s;
            vrow[N++] = j;
        }
        vkind[N] = V_BETA;
        vrow[N++] = j;
    }
    return N;
}

/* Variable c's column of S (lambda = S z): up to MAX_FRICTION island rows
 * and their coefficients. Returns the count (0 for beta). */
static uint32_t s_column(const cr_lcp_row *rows, const cr_lcp_island *isl, cr_lcp_workspace *ws, uint32_t c,
                         uint32_t *row, double *coef)
{
    const uint32_t kind = lv(ws, L_KIND)[c], j = lv(ws, L_ROW)[c];
    if (kind == V_BETA) return 0;
    if (kind != V_DIR) {
        row[0] = j;
        coef[0] = 1.0;
        return 1;
    }
    const uint32_t k = lv(ws, L_FCOUNT)[j], s = lv(ws, L_SIGN)[c], *fl = lv(ws, L_FLIST) + MAX_FRICTION * j;
    for (uint32_t i = 0; i < k; ++i) {
        row[i] = fl[i];
        coef[i] = (s >> i & 1u) ? -rows[isl->rows[fl[i]]].mu : rows[isl->rows[fl[i]]].mu;
    }
    return k;
}

/* Pivot on (r, e). Only the pivot row's nonzero columns are updated (nz,
 * width entries of scratch): the tableau stays sparse for many pivots (an
 * island's contacts couple only through shared bodies, and B^-1 starts as
 * I), and a zero column would only subtract zeros. */
static void pivot(double *T, size_t width, uint32_t N, uint32_t r, uint32_t e, uint32_t *nz)
{
    double *tr = T + r * width, p = tr[e];
    uint32_t m = 0;
    for (size_t c = 0; c < width; ++c) {
        tr[c] /= p;
        if (tr[c] != 0.0 && c != e) nz[m++] = (uint32_t)c;
    }
    tr[e] = 1.0;
    for (uint32_t i = 0; i < N; ++i) {
        if (i == r) continue;
        double *ti = T + i * width, f = ti[e];
        if (f == 0.0) continue;
        for (uint32_t k = 0; k < m; ++k) ti[nz[k]] -= f * tr[nz[k]];
        ti[e] = 0.0;
    }
}

/* The covering vector of try k: all ones, then two fixed perturbations of
 * it (a path that ends in a ray from one start need not from another);
 * 0 on the equality rows, which z0 does not enter. */
static double cover(const uint32_t *vkind, uint32_t i, int k)
{
    if (vkind[i] == V_FREE) return 0.0;
    if (k == 0) return 1.0;
    return 1.0 + (double)((i * (k == 1 ? 7u : 13u)) % 17u) / 17.0;
}

/* M_ic of the LCP w = M z + q: S^T A S on the rows of lambda, +1 for beta
 * in a direction row, lambda_n - sum_s z_s in a beta row. */
static double lcp_m(const cr_lcp_row *rows, const cr_lcp_island *isl, cr_lcp_workspace *ws, uint32_t i, uint32_t c)
{
    const uint32_t *vkind = lv(ws, L_KIND), *vrow = lv(ws, L_ROW), *first = lv(ws, L_FIRST),
                   *fcount = lv(ws, L_FCOUNT);
    const uint32_t j = vrow[i], beta = first[j] + 1 + (1u << fcount[j]);
    if (vkind[i] == V_BETA) return c == first[j] ? 1.0 : (c > first[j] && c < beta) ? -1.0 : 0.0;
    if (vkind[i] == V_DIR && c == beta) return 1.0;
    uint32_t ri[MAX_FRICTION], rc[MAX_FRICTION];
    double ci[MAX_FRICTION], cc[MAX_FRICTION];
    const uint32_t ni = s_column(rows, isl, ws, i, ri, ci), nc = s_column(rows, isl, ws, c, rc, cc);
    double m = 0.0;
    for (uint32_t a = 0; a < ni; ++a)
        for (uint32_t d = 0; d < nc; ++d) m += ci[a] * cc[d] * ws->A[(size_t)ri[a] * isl->n + rc[d]];
    return m;
}

/* q_i: -(S^T b)_i (0 for beta rows). */
static double lcp_q(const cr_lcp_row *rows, const cr_lcp_island *isl, cr_lcp_workspace *ws, uint32_t i)
{
    uint32_t ri[MAX_FRICTION];
    double ci[MAX_FRICTION], q = 0.0;
    for (uint32_t a = 0, m = s_column(rows, isl, ws, i, ri, ci); a < m; ++a) q -= ci[a] * ws->b[ri[a]];
    return q;
}

/* T = [I, -M, -d, q] (w = M z + q + d z0), the equality rows pivoted in. */
static void build_tableau(const cr_lcp_row *rows, const cr_lcp_island *isl, cr_lcp_workspace *ws, uint32_t N, int k)
{
    const uint32_t *vkind = lv(ws, L_KIND);
    uint32_t *basis = lv(ws, L_BASIS);
    const size_t width = 2 * (size_t)N + 2;
    const uint32_t Z0 = 2 * N, Q = 2 * N + 1;
    double *T = ws->lemke_t;
    for (uint32_t i = 0; i < N; ++i) {
        double *ti = T + i * width;
        memset(ti, 0, width * sizeof(double));
        ti[i] = 1.0;
        ti[Z0] = -cover(vkind, i, k);
        basis[i] = i;
        ti[Q] = lcp_q(rows, isl, ws, i);
        for (uint32_t c = 0; c < N; ++c) ti[N + c] = -lcp_m(rows, isl, ws, i, c);
    }
    /* The joint block: principal pivots w_j <-> lambda_j, the largest
     * remaining diagonal first (the Schur complement, positive
     * semidefinite: diagonal pivoting is stable on it). */
    double dmax = 0.0;
    for (uint32_t i = 0; i < N; ++i)
        if (vkind[i] == V_FREE) dmax = fmax(dmax, fabs(T[i * width + N + i]));
    for (;;) {
        uint32_t best = UINT32_MAX;
        double bd = FREE_CUTOFF * dmax;
        for (uint32_t i = 0; i < N; ++i)
            if (vkind[i] == V_FREE && basis[i] == i && fabs(T[i * width + N + i]) > bd) {
                best = i;
                bd = fabs(T[i * width + N + i]);
            }
        if (best == UINT32_MAX) break;
        pivot(T, width, N, best, N + best, lv(ws, L_NZ));
        basis[best] = N + best;
    }
}

/* One run of Lemke's method with covering vector try k. It ends with z0
 * out of the basis (a solution), z0 at roundoff (below), in a ray or at
 * its pivot bound; the basis is complementary in every case (z_c or w_c
 * basic for each c, besides z0), and the caller tries it (try_basis). */
static void run(const cr_lcp_row *rows, const cr_lcp_island *isl, cr_lcp_workspace *ws, uint32_t N, int k)
{
    build_tableau(rows, isl, ws, N, k);
    const uint32_t *vkind = lv(ws, L_KIND);
    uint32_t *basis = lv(ws, L_BASIS);
    const size_t width = 2 * (size_t)N + 2;
    const uint32_t Z0 = 2 * N, Q = 2 * N + 1;
    double *T = ws->lemke_t;
    /* z = 0 (and the joints' lambda) solves it when q >= 0 on the other
     * rows; else z0 enters and the row of the smallest q / d leaves */
    uint32_t r = UINT32_MAX;
    for (uint32_t i = 0; i < N; ++i)
        if (vkind[i] != V_FREE &&
            (r == UINT32_MAX || T[i * width + Q] / cover(vkind, i, k) < T[r * width + Q] / cover(vkind, r, k)))
            r = i;
    if (r == UINT32_MAX || T[r * width + Q] >= 0.0) return;
    /* z0 at or below this is zero (below) */
    double qscale = 0.0;
    for (uint32_t i = 0; i < N; ++i)
        if (vkind[i] != V_FREE) qscale = fmax(qscale, fabs(T[i * width + Q]));
    const double z0_zero = Z0_ZERO * qscale;
    uint32_t e = Z0, zrow = r;
    const uint32_t max_pivots = 50 + 20 * N;
    for (uint32_t it = 0; it < max_pivots; ++it) {
        pivot(T, width, N, r, e, lv(ws, L_NZ));
        uint32_t leaving = basis[r];
        basis[r] = e;
        if (leaving == Z0) return;
        /* z0 has come down to roundoff but stays basic: a degenerate tie
         * (often with many zero q: redundant contacts, beta rows) that the
         * ratio test broke the other way. The basis already solves the LCP
         * to d z0; left to go on, the path takes further degenerate pivots
         * with z0 ~ 1e-15 and ends in a ray (it did on every ray measured:
         * tests/test_lcp.c, test_cycling_solved). */
        if (T[zrow * width + Q] <= z0_zero) return;
        e = leaving < N ? leaving + N : leaving - N; /* its complement enters */
        /* ratio test: the first basic variable the entering one drives to
         * zero; ties by the lexicographic rule, z0 first. The joints' rows
         * hold free variables (or a dependent row's w): never leaving. */
        double cmax = 0.0;
        for (uint32_t i = 0; i < N; ++i)
            if (vkind[i] != V_FREE) cmax = fmax(cmax, fabs(T[i * width + e]));
        const double eps = 1e-12 * cmax;
        uint32_t best = UINT32_MAX;
        double bratio = INFINITY;
        for (uint32_t i = 0; i < N; ++i) {
            double a = T[i * width + e];
            if (vkind[i] == V_FREE || !(a > eps)) continue;
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
        if (best == UINT32_MAX) return; /* a ray */
        r = best;
        if (basis[r] == Z0) zrow = r;
    }
}

/* lam = S z for z from the tableau (polish false) or from solving the
 * basis' own equations again from M and q (polish true): with c running
 * over the basic z, w_c = 0, i.e. M_BB z_B = -q_B, by Gaussian elimination
 * with complete pivoting (src/lcp_linalg.c). The tableau's values carry
 * the roundoff of every pivot (on the 30-cube heaps of
 * tests/test_rigid_few_passes.c a few bases came out 1e-8 to 1e-1 off);
 * the fresh solve has only its own. */
static void basis_lambda(const cr_lcp_row *rows, const cr_lcp_island *isl, cr_lcp_workspace *ws, uint32_t N,
                         bool polish, double *lam)
{
    const size_t width = 2 * (size_t)N + 2;
    const double *T = ws->lemke_t;
    const uint32_t *vkind = lv(ws, L_KIND), *basis = lv(ws, L_BASIS);
    uint32_t *set = lv(ws, L_SET), m = 0;
    double *z = ws->lemke_m + (size_t)N * N;
    for (uint32_t i = 0; i < N; ++i)
        if (basis[i] >= N && basis[i] < 2 * N) {
            set[m] = basis[i] - N;
            z[m++] = T[i * width + 2 * N + 1];
        }
    if (polish) {
        double *Mb = ws->lemke_m, *rhs = z + N, *t = rhs + N;
        for (uint32_t a = 0; a < m; ++a) {
            rhs[a] = -lcp_q(rows, isl, ws, set[a]);
            for (uint32_t c = 0; c < m; ++c) Mb[(size_t)a * m + c] = lcp_m(rows, isl, ws, set[a], set[c]);
        }
        cr_lcp_lu_solve(Mb, m, rhs, t, FREE_CUTOFF, t + N, lv(ws, L_RPERM), lv(ws, L_CPERM));
        memcpy(z, t, m * sizeof *z);
    }
    for (uint32_t j = 0; j < isl->n; ++j) lam[j] = 0.0;
    for (uint32_t a = 0; a < m; ++a) {
        const uint32_t c = set[a];
        const double v = vkind[c] == V_FREE ? z[a] : fmax(z[a], 0.0);
        uint32_t row[MAX_FRICTION];
        double coef[MAX_FRICTION];
        for (uint32_t b = 0, k = s_column(rows, isl, ws, c, row, coef); b < k; ++b) lam[row[b]] += coef[b] * v;
    }
}

bool cr_lcp_lemke_solve(const cr_lcp_row *rows, const cr_lcp_island *isl, cr_lcp_workspace *ws, double *lam,
                        double *residual)
{
    const uint32_t N = number_vars(rows, isl, ws);
    if (N == UINT32_MAX) return false;
    if (N == 0) {
        for (uint32_t j = 0; j < isl->n; ++j) lam[j] = 0.0;
        return cr_lcp_dense_accept(rows, isl, ws, lam, residual);
    }
    /* Each run's final basis, as the tableau has it and solved afresh:
     * the first within 1e-9 of a solution is taken. */
    for (int k = 0; k < 3; ++k) {
        run(rows, isl, ws, N, k);
        for (int polish = 0; polish < 2; ++polish) {
            basis_lambda(rows, isl, ws, N, polish, lam);
            if (cr_lcp_dense_accept(rows, isl, ws, lam, residual)) return true;
        }
    }
    return false;
}
