/* Internals of the constraint solver (src/lcp*.c), not used elsewhere.
 *
 * cr_lcp_solve (src/lcp.c) validates, precomputes M^-1 J^T for every row,
 * splits the rows into islands and hands each island's rows (global
 * indices, ascending) to the direct solver (src/lcp_dense.c) or to PGS
 * (src/lcp_pgs.c). Both write ws->lambda; the velocities are applied once at
 * the end, in row order, so that the result never depends on how the rows
 * were grouped. */
#ifndef CAROM_LCP_INTERNAL_H
#define CAROM_LCP_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "lcp.h"

/* M^-1 J^T of one row, split by body: the velocity change per unit lambda.
 * ea / eb are the row's bodies as far as mass goes: CR_LCP_FIXED for the
 * world and for bodies that cannot move (inv_mass 0, zero inverse inertia). */
typedef struct cr_lcp_minv {
    uint32_t ea, eb;
    cr_vec3 a_lin, a_ang, b_lin, b_ang;
} cr_lcp_minv;

struct cr_lcp_workspace {
    /* per row (global) */
    cr_lcp_minv *minv;
    double *lambda, *diag;
    uint32_t *local;        /* global row -> index inside its island */
    uint32_t *island_rows;  /* rows grouped by island, ascending inside each */
    uint32_t *island_start; /* island k: island_rows[island_start[k] .. island_start[k + 1]) */
    uint32_t *parent_uf;    /* union-find over rows */
    uint32_t *body_first;   /* per body: first row touching it */
    size_t row_cap, body_cap;
    /* running velocities for PGS (per body) */
    cr_vec3 *v, *w;
    cr_vec3 *imp_lin, *imp_ang; /* per body: an island's impulses J^T lambda (src/lcp_work.c) */
    uint8_t *imp_mark;          /* per body: listed in imp_list (src/lcp_work.c) */
    uint32_t *imp_list;         /* the island's bodies (src/lcp_work.c) */
    /* PGS's packed copy of an island (src/lcp_pgs.c): rows in sweep order,
     * velocities as 6 doubles per body plus a zero slot for the world */
    struct cr_pgs_row *pgs;
    double *pgs_lambda;
    uint32_t *pgs_order;    /* 5 per row + 1: sweep order, block starts, levels, blocks by level, counts */
    uint32_t *body_level;   /* per body: the level of its last block so far */
    uint32_t *vel_stamp;    /* per body: the vel_gen of the pack that filled its slot */
    uint32_t vel_gen;       /* counts packs */
    double (*vel)[6];
    size_t pgs_cap;
    bool pgs_portable;      /* tests: the sweep on pairs of doubles even where AVX2 is (src/lcp_pgs.c) */
    bool uncapped;          /* tests: no cr_lcp_cap_work, so that zero passes return PGS's start */
    bool no_lemke;          /* tests: a dense island whose active set gave up goes to PGS at once */
    /* dense scratch, sized for the largest island so far */
    double *A, *R, *G, *b, *x, *y, *wres, *scratch; /* y: 3 n, wres: 2 n, scratch: 4 n */
    uint32_t *unknown, *colof, *perm, *cperm;
    uint8_t *state;         /* 2 n: the rows' states, then a saved set (cycle detection) */
    size_t dense_cap;       /* rows the dense buffers hold */
    /* Lemke's method (src/lcp_lemke.c): the tableau, N x (2 N + 2), a
     * basis' own system (N x N + 4 N), and 15 lemke_cap indices, N up to
     * lemke_cap = 3 rows */
    double *lemke_t, *lemke_m;
    uint32_t *lemke_var;
    size_t lemke_cap;
};

/* The island being solved: rows[0 .. n), global indices. */
typedef struct cr_lcp_island {
    const uint32_t *rows;
    uint32_t n;
} cr_lcp_island;

/* J v for one row (velocity of the real bodies, static ones included). */
double cr_lcp_row_velocity(const cr_lcp_row *r, const cr_vec3 *v, const cr_vec3 *w);
/* A_ij = J_i M^-1 J_j^T (no cfm). */
double cr_lcp_coupling(const cr_lcp_row *ri, const cr_lcp_minv *mj);
/* Natural residual of one row in velocity units (0 when its conditions
 * hold): d |lambda - proj(lambda - w/d)|; |w| when d = 0 and the row is not
 * clamped at zero. lambda_parent only for friction rows. */
double cr_lcp_row_residual(const cr_lcp_row *r, double lambda, double lambda_parent, double w, double d);

bool cr_lcp_dense_reserve(cr_lcp_workspace *ws, uint32_t n);
bool cr_lcp_pgs_reserve(cr_lcp_workspace *ws, uint32_t n);
/* Direct method on one island; returns the active-set iterations used, or
 * sets *converged false at the bound (the caller falls back to PGS from
 * ws->lambda: the nearest iterate met, or the warm start left there). */
uint32_t cr_lcp_dense_solve(const cr_lcp_row *rows, const cr_lcp_island *isl, const cr_lcp_body *bodies,
                            const cr_lcp_options *opt, cr_lcp_workspace *ws, bool *converged, double *residual);
/* src/lcp_work.c. After PGS on an island (big, or a dense island's
 * fallback): if its impulses (ws->lambda) add kinetic energy beyond
 * lambda^T target (never at a solution), scales them down to add none.
 * ws->v, ws->w: the velocities before the solve. Returns the residual,
 * taken again if it scaled and residual is nonzero (stats asked for). */
double cr_lcp_cap_work(const cr_lcp_row *rows, const cr_lcp_island *isl, const cr_lcp_body *bodies,
                       cr_lcp_workspace *ws, double residual);
/* src/lcp_lemke.c: Lemke's method on the island's LCP (ws->A, ws->b as
 * cr_lcp_dense_solve left them), for an island whose active set gave up.
 * True when a result within 1e-9 of a solution was found: it is then the
 * island's (cr_lcp_dense_accept: ws->lambda); lam (n) is scratch,
 * *residual gets the last result's residual. cr_lcp_lemke_reserve first. */
bool cr_lcp_lemke_reserve(cr_lcp_workspace *ws, uint32_t n);
bool cr_lcp_lemke_solve(const cr_lcp_row *rows, const cr_lcp_island *isl, cr_lcp_workspace *ws, double *lam,
                        double *residual);
/* src/lcp_dense.c: lam (n, the island's rows) from another method,
 * clamped to its bounds: if its largest natural residual is within 1e-9 of
 * the island's velocity scale (max(max |b|, max A_ii max |lambda|)), it
 * becomes the island's result (ws->lambda) and true is returned;
 * *residual gets that residual either way. */
bool cr_lcp_dense_accept(const cr_lcp_row *rows, const cr_lcp_island *isl, cr_lcp_workspace *ws, double *lam,
                         double *residual);
/* PGS on one island from ws->lambda; returns the largest residual after the
 * last pass (0 without residual: a pass over the rows saved when no one
 * asks). ws->v, ws->w hold the bodies' velocities before any impulse. At
 * most iterations passes; with stop > 0, none after a pass in which no
 * row's update |delta lambda| A_ii exceeded stop. */
double cr_lcp_pgs_solve(const cr_lcp_row *rows, const cr_lcp_island *isl, uint32_t iterations, double stop,
                        bool residual, cr_lcp_workspace *ws);

/* Dense kernels (src/lcp_linalg.c), row-major n x n with stride n.
 * Both are rank revealing: a pivot below cutoff relative to the largest
 * initial one ends the factorisation. They return the rank. */
/* Symmetric positive semidefinite M: diagonally pivoted L D L^T, then the
 * minimum-norm solution of M x = c (the plain L D L^T solve at full rank).
 * M is overwritten; G (n x n), t (3 n) and perm (n) are scratch. */
uint32_t cr_lcp_spd_solve(double *M, uint32_t n, const double *c, double *x, double cutoff, double *G, double *t,
                          uint32_t *perm);
/* General M: Gaussian elimination with complete pivoting; the basic
 * solution (free unknowns zero) at reduced rank. M is overwritten. */
uint32_t cr_lcp_lu_solve(double *M, uint32_t n, const double *c, double *x, double cutoff, double *t, uint32_t *rperm,
                         uint32_t *cperm);

#endif
