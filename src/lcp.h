/* Velocity-level constraint solver for rigid bodies: contacts, Coulomb
 * friction (a pyramid) and joints in ONE system J M^-1 J^T lambda = b
 * (seed 003, "Resting contact" and "Colliding contact"; the restitution
 * matrix E enters through each row's target). Internal; the rigid-body
 * world builds the rows and calls cr_lcp_solve once per impulse solve.
 *
 * For each row the solver finds lambda so that, with v' = v + M^-1 J^T lambda
 * and w = J v' - target + cfm lambda:
 *   equality rows (joints, seed 003's "real" constraints): w = 0;
 *   normal rows: lambda >= 0, w >= 0, lambda w = 0;
 *   friction rows: |lambda| <= mu lambda_parent; sticking (w = 0) while
 *   |lambda| < mu lambda_parent, otherwise lambda = -sign(w) mu lambda_parent.
 * Islands of at most dense_max_rows rows are solved directly (seed 003's
 * active-set rule, completed with re-adding and friction; src/lcp_dense.c;
 * Lemke's method where it gives up, src/lcp_lemke.c), bigger ones by
 * projected Gauss-Seidel (src/lcp_pgs.c). See
 * docs/physics/contact-lagrange.md.
 */
#ifndef CAROM_LCP_H
#define CAROM_LCP_H

#include <stdint.h>

#include "carom/math.h"
#include "carom/types.h"

typedef enum cr_row_kind { CR_ROW_EQUALITY = 0, CR_ROW_NORMAL, CR_ROW_FRICTION } cr_row_kind;
#define CR_LCP_FIXED UINT32_MAX            /* "body" index of the fixed world */
typedef struct cr_lcp_row {
    uint32_t a, b;                 /* body indices, or CR_LCP_FIXED */
    cr_vec3 ja_lin, ja_ang, jb_lin, jb_ang;   /* Jacobian blocks: J v = ja_lin.v_a + ja_ang.w_a + jb_lin.v_b + jb_ang.w_b */
    double target;                 /* wanted J v' (see above) */
    double mu;                     /* friction rows */
    double cfm;                    /* >= 0 added to the diagonal of A (a soft row); 0 for hard rows */
    uint32_t parent;               /* friction rows: index of their normal row */
    uint8_t kind;                  /* cr_row_kind */
    double lambda;                 /* in: a warm start; out: the impulse */
} cr_lcp_row;
typedef struct cr_lcp_body { double inv_mass; cr_mat3 inv_inertia; cr_vec3 v, w; } cr_lcp_body; /* world-frame inverse inertia; v, w updated in place with the impulses */
typedef struct cr_lcp_options {
    uint32_t dense_max_rows;      /* islands up to this many rows: the direct method; default 240 */
    uint32_t max_active_set_iterations; /* per island, then Lemke's method, or the PGS fallback from the nearest
                                           iterate or the warm start; default 4 * rows + 8 (0: that default) */
    uint32_t pgs_iterations;      /* default 50 */
    double pgs_stop;              /* >= 0: PGS stops after a pass in which no row's J v changed by more than this
                                     (|delta lambda| A_ii, the row's own update); default 0: every pass */
    double tolerance;             /* relative, default 1e-12 */
    bool residual;                /* stats->max_residual taken (a pass over PGS islands' rows); default true */
    uint32_t lemke_max_rows;      /* a dense island whose active set gave up goes to Lemke's method if it has
                                     at most this many rows; default 240; 0: never */
    bool lemke_joints;            /* ... islands with joint (equality) rows too; default true */
} cr_lcp_options;
/* fallbacks: dense islands whose active set gave up (cycled or hit its
 * bound), then solved by Lemke's method; pgs_fallbacks: those of them that
 * Lemke's method did not solve either (a ray, its pivot bound, or a result
 * not within 1e-9 of a solution), finished by PGS. */
typedef struct cr_lcp_stats {
    uint32_t islands, dense_islands, pgs_islands, fallbacks, pgs_fallbacks, active_set_iterations,
        largest_island_rows;
    double max_residual;
} cr_lcp_stats;
typedef struct cr_lcp_workspace cr_lcp_workspace;   /* scratch buffers kept between calls */
cr_lcp_options cr_lcp_default_options(void);
cr_lcp_workspace *cr_lcp_workspace_create(void);
void cr_lcp_workspace_destroy(cr_lcp_workspace *ws);
/* CR_ERR_OUT_OF_MEMORY or CR_ERR_NON_FINITE on failure, CR_OK otherwise;
 * CR_ERR_INVALID_ARGUMENT for a body index out of range, a friction row
 * whose parent is not a normal row, a negative cfm or mu, or NULL arrays
 * with a nonzero count. On failure the bodies and the rows' lambda are left
 * unchanged. opt may be NULL (the defaults), stats may be NULL.
 * stats->max_residual: the largest natural residual over all rows, in
 * velocity units: d |lambda - proj(lambda - w / d)| with d = A_ii (for
 * Gauss-Seidel islands a pass over their rows, made only when stats is
 * given). */
cr_status cr_lcp_solve(cr_lcp_row *rows, uint32_t row_count, cr_lcp_body *bodies, uint32_t body_count,
                       const cr_lcp_options *opt, cr_lcp_workspace *ws, cr_lcp_stats *stats);

#endif
