/* The direct method for one island: seed 003's active-set rule, completed.
 *
 * Seed 003 ("Resting contact") solves J M^-1 J^T lambda = b with every
 * contact treated as an equality, drops the contacts whose multiplier comes
 * out negative and solves again until none is negative; "real" constraints
 * (joints) are never dropped. The colliding-contact form (eq.
 * collisionLagrange) is the same system at velocity level with the
 * restitution matrix E folded into the targets. Here:
 *
 *   A = J M^-1 J^T + diag(cfm),  b = target - J v,  w = A lambda - b
 *
 * (w is J v' - target for hard rows). Each row has a state:
 *   equality: always an unknown;
 *   normal: ACTIVE (an unknown, w = 0) or DROPPED (lambda = 0);
 *   friction: STICK (an unknown, w = 0), SLIDE+/- (lambda = +/- mu lambda_n,
 *     substituted into the system: the parent's column gains +/- mu times the
 *     friction row's column, so the reduced matrix is not symmetric), or
 *     OFF (lambda = 0: mu = 0 or the parent contact dropped).
 * After each solve the states are checked:
 *   ACTIVE with lambda < 0: drop it (the seed's rule), its friction goes OFF;
 *   DROPPED with w < 0: the contact would penetrate without it, so it comes
 *     back (the seed's rule alone never re-adds: that is the correctness
 *     condition it misses, e.g. when dropping a contact above loads the one
 *     below);
 *   STICK with |lambda| > mu lambda_n: it slides, sign of lambda;
 *   SLIDE s with s w > 0: the slip reversed against its friction; it sticks.
 * All violations flip at once (block pivoting, as in the seed) while their
 * number keeps falling; after 3 iterations without a new minimum only the
 * lowest-index violation flips (Murty's least-index rule, finite for the
 * frictionless case where A is a P-matrix; Judice & Pires' hybrid). At
 * max_active_set_iterations or a cycle the caller runs Lemke's method
 * (src/lcp_lemke.c), and where that fails PGS from
 * the nearest iterate met or from the caller's warm start, whichever is
 * nearer a solution (below).
 *
 * The tolerance is relative: lambda against max |lambda|, w against
 * max(max |b|, max A_ii max |lambda|).
 */
#include <math.h>
#include <string.h>

#include "lcp_internal.h"

enum { ST_ACTIVE, ST_DROPPED, ST_STICK, ST_SLIDE_POS, ST_SLIDE_NEG, ST_OFF };

/* Rank cutoff of the factorisations (src/lcp_linalg.c): dependent equations
 * are left with a residual of about this, relative. */
#define CR_LCP_RANK_CUTOFF 1e-11
/* An unknown row whose residual exceeds this (relative) after the
 * rank-revealing solve marks an inconsistent active set; the regularisation
 * (relative to the largest diagonal) of the solve that then picks flips. */
#define CR_LCP_CONFLICT 1e-9
#define CR_LCP_CONFLICT_REG 1e-9
/* What another method's result (Lemke's, after the active set gave up) may
 * leave as its largest natural residual, relative to the island's velocity
 * scale, to be taken as the solution. */
#define CR_LCP_ACCEPT 1e-9

static double slide_sign(uint8_t st) { return st == ST_SLIDE_POS ? 1.0 : -1.0; }

/* The state row j should move to, or its own when it is consistent. */
static uint8_t check_row(const cr_lcp_row *r, uint8_t st, double lam, double lam_parent, double w, double tol_l,
                         double tol_w)
{
    switch (st) {
    case ST_ACTIVE:
        return (r->kind == CR_ROW_NORMAL && lam < -tol_l) ? ST_DROPPED : st;
    case ST_DROPPED:
        return w < -tol_w ? ST_ACTIVE : st;
    case ST_STICK:
        if (fabs(lam) > r->mu * lam_parent + tol_l) return lam > 0.0 ? ST_SLIDE_POS : ST_SLIDE_NEG;
        return st;
    case ST_SLIDE_POS:
    case ST_SLIDE_NEG:
        return slide_sign(st) * w > tol_w ? ST_STICK : st;
    default:
        return st;
    }
}

/* Friction follows its contact: OFF while the contact is dropped, sticking
 * again when it comes back. */
static void sync_friction(const cr_lcp_row *rows, const cr_lcp_island *isl, const cr_lcp_workspace *ws, uint8_t *state)
{
    for (uint32_t j = 0; j < isl->n; ++j) {
        const cr_lcp_row *r = &rows[isl->rows[j]];
        if (r->kind != CR_ROW_FRICTION) continue;
        uint8_t ps = state[ws->local[r->parent]];
        if (ps == ST_DROPPED || r->mu == 0.0) state[j] = ST_OFF;
        else if (state[j] == ST_OFF) state[j] = ST_STICK;
    }
}

/* Solve for the current states: lam (all rows) and w = A lam - b. Returns
 * false when the solve produced a non-finite value. */
static bool solve_states(const cr_lcp_row *rows, const cr_lcp_island *isl, cr_lcp_workspace *ws, double *lam,
                         double reg)
{
    const uint32_t n = isl->n;
    const double *A = ws->A;
    uint32_t *u = ws->unknown, *col = ws->colof, k = 0;
    bool sliding = false;
    for (uint32_t j = 0; j < n; ++j) {
        uint8_t st = ws->state[j];
        col[j] = CR_LCP_FIXED;
        if (st == ST_ACTIVE || st == ST_STICK) {
            col[j] = k;
            u[k++] = j;
        }
        if (st == ST_SLIDE_POS || st == ST_SLIDE_NEG) sliding = true;
    }
    double *R = ws->R, *rhs = ws->scratch + 3 * (size_t)n;
    for (uint32_t i = 0; i < k; ++i) {
        rhs[i] = ws->b[u[i]];
        for (uint32_t c = 0; c < k; ++c) R[i * k + c] = A[u[i] * n + u[c]];
    }
    if (sliding) /* lambda_t = s mu lambda_n: column t folds into column n */
        for (uint32_t t = 0; t < n; ++t) {
            uint8_t st = ws->state[t];
            if (st != ST_SLIDE_POS && st != ST_SLIDE_NEG) continue;
            const cr_lcp_row *r = &rows[isl->rows[t]];
            uint32_t c = col[ws->local[r->parent]];
            double f = slide_sign(st) * r->mu;
            for (uint32_t i = 0; i < k; ++i) R[i * k + c] += f * A[u[i] * n + t];
        }
    if (reg > 0.0) { /* only to choose flips, see below */
        double dmax = 0.0;
        for (uint32_t i = 0; i < k; ++i) dmax = fmax(dmax, fabs(R[i * k + i]));
        for (uint32_t i = 0; i < k; ++i) R[i * k + i] += reg * dmax;
        sliding = true;
    }
    if (sliding)
        cr_lcp_lu_solve(R, k, rhs, ws->x, CR_LCP_RANK_CUTOFF, ws->scratch, ws->perm, ws->cperm);
    else
        cr_lcp_spd_solve(R, k, rhs, ws->x, CR_LCP_RANK_CUTOFF, ws->G, ws->scratch, ws->perm);
    for (uint32_t j = 0; j < n; ++j) lam[j] = col[j] == CR_LCP_FIXED ? 0.0 : ws->x[col[j]];
    for (uint32_t t = 0; t < n; ++t) {
        uint8_t st = ws->state[t];
        if (st == ST_SLIDE_POS || st == ST_SLIDE_NEG) {
            const cr_lcp_row *r = &rows[isl->rows[t]];
            lam[t] = slide_sign(st) * r->mu * lam[ws->local[r->parent]];
        }
    }
    for (uint32_t j = 0; j < n; ++j)
        if (!isfinite(lam[j])) return false;
    return true;
}

static void compute_w(const cr_lcp_workspace *ws, uint32_t n, const double *lam, double *w)
{
    for (uint32_t i = 0; i < n; ++i) {
        double s = -ws->b[i];
        for (uint32_t j = 0; j < n; ++j) s += ws->A[i * n + j] * lam[j];
        w[i] = s;
    }
}

/* Make lambda feasible exactly (normal >= 0, |friction| <= mu lambda_n):
 * at convergence this moves it by at most the tolerance. */
static void clamp(const cr_lcp_row *rows, const cr_lcp_island *isl, const cr_lcp_workspace *ws, double *lam)
{
    for (uint32_t j = 0; j < isl->n; ++j)
        if (rows[isl->rows[j]].kind == CR_ROW_NORMAL && !(lam[j] >= 0.0)) lam[j] = 0.0;
    for (uint32_t j = 0; j < isl->n; ++j) {
        const cr_lcp_row *r = &rows[isl->rows[j]];
        if (r->kind != CR_ROW_FRICTION) continue;
        double hi = r->mu * lam[ws->local[r->parent]];
        lam[j] = fmin(fmax(lam[j], -hi), hi);
    }
}

/* The largest natural residual of lam (row by row, in velocity units: the
 * measure of cr_lcp_stats.max_residual), given w = A lam - b. */
static double residual_at(const cr_lcp_row *rows, const cr_lcp_island *isl, const cr_lcp_workspace *ws,
                          const double *lam, const double *w)
{
    const uint32_t n = isl->n;
    double res = 0.0;
    for (uint32_t j = 0; j < n; ++j) {
        const cr_lcp_row *r = &rows[isl->rows[j]];
        double lp = r->kind == CR_ROW_FRICTION ? lam[ws->local[r->parent]] : 0.0;
        res = fmax(res, cr_lcp_row_residual(r, lam[j], lp, w[j], ws->A[j * n + j]));
    }
    return res;
}

/* The same; w gets A lam - b. */
static double residual_of(const cr_lcp_row *rows, const cr_lcp_island *isl, const cr_lcp_workspace *ws,
                          const double *lam, double *w)
{
    compute_w(ws, isl->n, lam, w);
    return residual_at(rows, isl, ws, lam, w);
}

uint32_t cr_lcp_dense_solve(const cr_lcp_row *rows, const cr_lcp_island *isl, const cr_lcp_body *bodies,
                            const cr_lcp_options *opt, cr_lcp_workspace *ws, bool *converged, double *residual)
{
    (void)bodies;
    const uint32_t n = isl->n;
    double *A = ws->A, *b = ws->b, *lam = ws->y, *w = ws->wres;
    double maxdiag = 0.0, bscale = 0.0;
    for (uint32_t i = 0; i < n; ++i) {
        const cr_lcp_row *ri = &rows[isl->rows[i]];
        for (uint32_t j = i; j < n; ++j) { /* upper triangle, mirrored: exactly symmetric */
            double a = cr_lcp_coupling(ri, &ws->minv[isl->rows[j]]);
            A[i * n + j] = a;
            A[j * n + i] = a;
        }
        A[i * n + i] += ri->cfm;
        maxdiag = fmax(maxdiag, A[i * n + i]);
        b[i] = ri->target - cr_lcp_row_velocity(ri, ws->v, ws->w);
        bscale = fmax(bscale, fabs(b[i]));
        ws->state[i] = ri->kind == CR_ROW_FRICTION ? ST_STICK : ST_ACTIVE;
    }
    sync_friction(rows, isl, ws, ws->state);

    const uint32_t max_it = opt->max_active_set_iterations ? opt->max_active_set_iterations : 4 * n + 8;
    uint32_t best = UINT32_MAX, stall = 0, it = 0;
    bool single = false, ok = false, settled_conflict = false;
    /* The clamped iterate nearest a solution so far, by the largest natural
     * residual (ws->y's third part): what a cut-off cycle hands to PGS. */
    double *kept = lam + 2 * (size_t)n, kept_res = INFINITY;
    /* Cycle detection under the least-index rule (below): a saved set of
     * states (ws->state's second half), the solves since it was saved and
     * the count at which it is saved again. */
    uint8_t *saved = ws->state + n;
    uint32_t since = 0, power = 0;
    while (it < max_it) {
        ++it;
        if (!solve_states(rows, isl, ws, lam, 0.0)) break;
        compute_w(ws, n, lam, w);
        double lscale = 0.0;
        for (uint32_t j = 0; j < n; ++j) lscale = fmax(lscale, fabs(lam[j]));
        double tol_l = opt->tolerance * lscale, tol_w = opt->tolerance * fmax(bscale, maxdiag * lscale);
        /* Inconsistent active equations (more contacts than the bodies'
         * freedom allows, with targets no velocity meets): the rank-revealing
         * solve left a dependent row unsatisfied and its lambda says nothing
         * about which contact to drop. A regularised solve of the same set
         * does: the conflict shows up as large multipliers, the wrong-signed
         * ones get dropped. Its lambda is used for the checks only; with no
         * flip left, the least-squares solution stands if it is a solution
         * after all (below). */
        bool conflict = false;
        for (uint32_t j = 0; j < n; ++j) {
            uint8_t st = ws->state[j];
            if ((st == ST_ACTIVE || st == ST_STICK) && fabs(w[j]) > CR_LCP_CONFLICT * fmax(bscale, maxdiag * lscale))
                conflict = true;
        }
        double *cl = lam, *cw = w;
        if (conflict) {
            cl = lam + n; /* the second halves of ws->y and ws->wres */
            cw = w + n;
            if (!solve_states(rows, isl, ws, cl, CR_LCP_CONFLICT_REG)) break;
            compute_w(ws, n, cl, cw);
        }
        uint32_t count = 0, first = CR_LCP_FIXED;
        for (uint32_t j = 0; j < n; ++j) {
            const cr_lcp_row *r = &rows[isl->rows[j]];
            double lp = r->kind == CR_ROW_FRICTION ? cl[ws->local[r->parent]] : 0.0;
            if (check_row(r, ws->state[j], cl[j], lp, cw[j], tol_l, tol_w) != ws->state[j]) {
                if (first == CR_LCP_FIXED) first = j;
                ++count;
            }
        }
        if (count == 0) {
            ok = true;
            settled_conflict = conflict;
            break;
        }
        if (count < best) {
            best = count;
            stall = 0;
        } else if (++stall >= 3) {
            single = true;
        }
        /* Decide every flip from this solve's lam and w before changing
         * any state (a friction row reads its parent's lam, not its state). */
        for (uint32_t j = single ? first : 0; j < (single ? first + 1 : n); ++j) {
            const cr_lcp_row *r = &rows[isl->rows[j]];
            double lp = r->kind == CR_ROW_FRICTION ? cl[ws->local[r->parent]] : 0.0;
            ws->state[j] = check_row(r, ws->state[j], cl[j], lp, cw[j], tol_l, tol_w);
        }
        sync_friction(rows, isl, ws, ws->state);
        /* Not a solution: keep it if it is the nearest one yet (the
         * second halves of ws->y and ws->wres are free again). The clamped
         * copy's w is this solve's plus the columns of the rows clamping
         * moved (A is symmetric: column j is row j), usually a few: a
         * whole A lam again cost as much as the solve on islands with
         * many dropped rows (+15% on the 5-row pyramid at 4 passes). */
        double *c = lam + n, *wc = w + n;
        for (uint32_t j = 0; j < n; ++j) {
            c[j] = lam[j];
            wc[j] = w[j];
        }
        clamp(rows, isl, ws, c);
        for (uint32_t j = 0; j < n; ++j)
            if (c[j] != lam[j]) {
                const double d = c[j] - lam[j], *col = A + (size_t)j * n;
                for (uint32_t i = 0; i < n; ++i) wc[i] += col[i] * d;
            }
        double r = residual_at(rows, isl, ws, c, wc);
        if (r < kept_res) {
            kept_res = r;
            for (uint32_t j = 0; j < n; ++j) kept[j] = c[j];
        }
        /* Under the least-index rule the next solve follows from the states
         * alone, so a set of states met before means the rule cycles: every
         * later solve would repeat one already made, and the kept iterate
         * cannot change. Stop there (the same result as running on to the
         * bound, without the repeats: chain.json's cycles repeat after 7
         * solves of the 32). Brent's detection: one saved set, saved anew
         * after 1, 2, 4, ... solves, found within two periods of the cycle. */
        if (single) {
            if (power > 0) {
                ++since;
                if (memcmp(ws->state, saved, n) == 0) break;
            }
            if (since == power) {
                memcpy(saved, ws->state, n);
                power = power ? 2 * power : 1;
                since = 0;
            }
        }
    }
    if (ok && settled_conflict) {
        /* Settled on inconsistent active equations: the least-squares
         * lambda stands only if it is a solution after all, taken as
         * another method's result is (cr_lcp_dense_accept: within
         * CR_LCP_ACCEPT). Not so, it is no solution of a problem that may
         * well have one: in the joint chain of tests/test_rigid_joints.c
         * (hinges, ball, fixed and distance joints, contacts between the
         * links; every target met by rest) a set settled this way with a
         * residual of 11 m/s and put 0.57 J into the chain in one step. Then
         * the island falls back like a cycle. */
        ok = cr_lcp_dense_accept(rows, isl, ws, lam, residual);
    } else if (ok) {
        clamp(rows, isl, ws, lam);
        *residual = residual_of(rows, isl, ws, lam, w);
        for (uint32_t j = 0; j < n; ++j) ws->lambda[isl->rows[j]] = lam[j];
    }
    *converged = ok;
    if (ok) return it;
    *residual = 0.0;
    /* Cut off while cycling. The active set's last lambda can be far from
     * any solution (the 50-row pyramid at 6 passes: 1611 N s where the warm
     * start had 0.03; chain.json at step 143: a largest residual of 294
     * m/s where its second iterate had 0.016), and a few PGS passes from
     * there cannot take it back: they put 3.3e4 J into the pile in one
     * step. PGS then starts from the caller's warm start (ws->lambda,
     * untouched: what a big island starts from) unless the nearest iterate
     * the active set met is nearer a solution, by the largest natural
     * residual. A non-finite solve leaves only the iterates before it. */
    double *warm = lam + n; /* the second halves of ws->y and ws->wres */
    for (uint32_t j = 0; j < n; ++j) warm[j] = ws->lambda[isl->rows[j]];
    clamp(rows, isl, ws, warm);
    if (!(kept_res < residual_of(rows, isl, ws, warm, w + n))) return it;
    for (uint32_t j = 0; j < n; ++j) ws->lambda[isl->rows[j]] = kept[j];
    return it;
}

bool cr_lcp_dense_accept(const cr_lcp_row *rows, const cr_lcp_island *isl, cr_lcp_workspace *ws, double *lam,
                         double *residual)
{
    const uint32_t n = isl->n;
    double maxdiag = 0.0, bscale = 0.0, lscale = 0.0;
    clamp(rows, isl, ws, lam);
    for (uint32_t j = 0; j < n; ++j) {
        maxdiag = fmax(maxdiag, ws->A[(size_t)j * n + j]);
        bscale = fmax(bscale, fabs(ws->b[j]));
        lscale = fmax(lscale, fabs(lam[j]));
    }
    *residual = residual_of(rows, isl, ws, lam, ws->wres);
    if (!(*residual <= CR_LCP_ACCEPT * fmax(bscale, maxdiag * lscale))) return false;
    for (uint32_t j = 0; j < n; ++j) ws->lambda[isl->rows[j]] = lam[j];
    return true;
}
