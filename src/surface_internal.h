/* Internal layout of cr_surface. */
#ifndef CAROM_SURFACE_INTERNAL_H
#define CAROM_SURFACE_INTERNAL_H

#include "carom/surface.h"

#define CR_MAGIC_SURFACE_DEF 0x43525344u
#define CR_BSPLINE_MAX_DEGREE 5

/* A bump as the hills' evaluation reads it: its centre, 1 / width^2 and
 * amplitude, copied into each grid cell its support reaches so that an
 * evaluation reads one contiguous run (no division, no indirection). */
typedef struct cr_hill_term { double x, y, iw2, amplitude; } cr_hill_term;

/* A column (or row) of bumps: their common centre coordinate and 1/w^2. */
typedef struct cr_hill_axis { double c, iw2; } cr_hill_axis;

/* At most this many distinct columns (or rows) in a cell for the lattice
 * path (their factors live on the stack). */
#define CR_LATTICE_MAX_AXIS 64

struct cr_surface {
    cr_surface_def def;    /* pointers in it refer to the copies below */
    cr_hill *hills;
    cr_vec3 *control;
    double *knots_u, *knots_v;
    cr_vec3 e1, e2;        /* plane tangents, e1 x e2 = normal */
    double orientation;    /* +1 or -1: which side of s_u x s_v is free */
    double size;           /* a length scale of the surface, for tolerances */
    double max_curvature;  /* cr_surface_max_curvature over a 64 x 64 grid, computed once */
    /* Hills: a grid of the bumps whose support (8.5 widths) reaches each cell,
     * so that an evaluation looks at the bumps near it, not all of them. */
    double grid_x0, grid_y0, grid_cell;
    double grid_inv_cell;  /* 1 / grid_cell: an evaluation finds its cell by a product (a division's latency on every evaluation's path to its bumps) */
    int grid_nx, grid_ny;
    uint32_t *grid_start;
    cr_hill_term *grid_terms; /* grid_start[c] .. grid_start[c+1]: cell c's bumps, by index */
    /* Bumps on a lattice (surface_lattice.c): cell c's distinct columns
     * (x, 1/w^2) and rows (y, 1/w^2), and its amplitudes as a matrix
     * (columns by rows, a column's rows side by side); NULL where factoring
     * would not spare exps. */
    uint32_t *lattice_col_start, *lattice_row_start, *lattice_amp_start;
    cr_hill_axis *lattice_cols, *lattice_rows;
    double *lattice_amp;
    bool lattice_avx2;     /* the sums on AVX2 lanes, and the waves' cr_sincos2_avx2 (the same bits as the plain paths) */
    /* Hills: the waves' constant factors, formed once as eval_hills's
     * products begin (the same bits as at each evaluation): the wave
     * numbers kx = 2 pi / wave_length_x and ky, then W kx, W ky, -W kx kx,
     * -W ky ky and W kx ky (W: wave_amplitude). */
    double wave_kx, wave_ky, wave_f[5];
    double max_curvature_u, max_curvature_v;
};

/* Beyond 8.5 widths (q = d^2 / w^2 > 72) a bump is below 2.3e-16 of its
 * height, under double precision: left out of the sum. */
#define CR_HILL_MAX_Q 72.0

/* surface_lattice.c: factors the bumps of each grid cell by column and row
 * where that spares exps (false: out of memory), and adds the bump sum of
 * grid cell `cell` at (x, y) by those factors to a[0..5] (z, z_x, z_y,
 * z_xx, z_xy, z_yy). */
bool cr_hills_factor(cr_surface *s);
void cr_hills_sum_lattice(const cr_surface *s, size_t cell, double x, double y, double a[6]);

/* s and derivatives without the normal. */
void cr_surface_eval_raw(const cr_surface *s, double u, double v, cr_surface_eval *out);

/* cr_surface_closest that also returns the evaluation at the closest point
 * (the one its normal comes from), so that callers needing the curvature
 * there do not evaluate the surface again. */
cr_closest cr_surface_closest_eval(const cr_surface *s, cr_vec3 p, double u0, double v0, double tol, cr_surface_eval *at);

/* One ball's last closest point on a surface (cr_surface_closest_memo): the
 * query, its search's anchor (cr_closest: the last point it evaluated the
 * surface at, the answer itself unless Newton's last step went by Taylor)
 * and the surface's exact evaluation there. The search is a pure function
 * of the query on a built-in surface (which never changes once made), and
 * the evaluation a pure function of the anchor, so an entry stays right
 * for its query whatever happens to the ball: it needs no resetting, nor
 * keeping by the events' groups. It never holds a Taylor extrapolation:
 * a search starting from it would then depend on the ball's history. */
typedef struct cr_closest_query {
    cr_vec3 p;
    double u0, v0, tol;
} cr_closest_query;

/* The surface at (u, v) is kept as the eight numbers a graph over (x, y)
 * (hills, bowl) does not fix: s, and the z of su, sv, suu, suv, svv (their
 * x and y are 1 or 0 to the bit); 144 bytes an entry instead of 224, read
 * from all over memory in a large world. Any other surface is evaluated at
 * (u, v) again when the memo's evaluation is asked for: a pure function of
 * (u, v), so the same bits. */
typedef struct cr_closest_memo {
    cr_closest_query query;
    double u, v;           /* the anchor's parameters (the answer's unless it was a Taylor step) */
    double graph[8];       /* s.x, s.y, s.z, su.z, sv.z, suu.z, suv.z, svv.z (graphs only) */
    int iterations;        /* its search's, counted again when it is asked again */
    uint32_t surface;      /* the surface's index in its world; UINT32_MAX: empty */
    bool converged;
} cr_closest_memo;

/* cr_surface_closest_eval through a ball's memo m (surface: the surface's
 * index, the memo's key with the query). The same query again returns the
 * same answer without a search (Newton's last step from the anchor again);
 * a search that starts at the last one's anchor takes that evaluation as
 * Newton's first. The same bits as without the memo. Custom surfaces (a
 * callback that may read anything) bypass it. */
cr_closest cr_surface_closest_memo(const cr_surface *s, uint32_t surface, cr_closest_memo *m, cr_vec3 p, double u0,
                                   double v0, double tol, cr_surface_eval *at);

/* Principal and Gaussian curvature from an evaluation and its unit normal
 * towards the free side (what cr_surface_curvature computes at (u, v)). */
void cr_surface_curvature_of(const cr_surface_eval *e, cr_vec3 n, double *k1, double *k2, double *gaussian);

#endif
