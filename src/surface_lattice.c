/* Hills whose bumps stand on a lattice: the exp factorised by axis.
 *
 * A bump's value A exp(-(dx^2 + dy^2) / (2 w^2)) is the product
 * A exp(-dx^2 / (2 w^2)) exp(-dy^2 / (2 w^2)). Where the bumps of a grid
 * cell share a few columns (x, w) and rows (y, w), as on a regular lattice,
 * an evaluation computes one exp per column and one per row, and each bump
 * is a product of two of them: about 12 exps for the ~20 bumps a point of
 * the benchmark's lattice sees. The sum over a cell's bumps is then a
 * matrix product: with the cell's amplitudes A (column i, row j; 0 where
 * no bump), z = sum_i ex_i sum_j A_ij ey_j, and each derivative the same
 * with the column's or row's factor inside (three sums per row, three
 * multiply-adds per entry, where a bump at a time took a dozen operations
 * in one long chain of additions). The cut is by axis: a bump farther than 8.5
 * widths along x or along y is left out (a square, where one bump at a time
 * cuts a circle of 8.5 widths; the bumps between are below 2.3e-16 of their
 * height, exp(-36)). z's derivatives are those of the same terms, so the
 * surface stays C2-consistent.
 *
 * A surface is factored only when its cells hold fewer columns and rows
 * than bumps in all (otherwise the product costs two exps per bump instead
 * of one), and their matrices at most 4 entries per bump: scattered bumps
 * (scenes/boiling.json) keep one exp per bump.
 */
#include <stdlib.h>

#include "surface_internal.h"

/* The index of (c, iw2) in axis[0 .. *n), appended when new; -1 when the
 * cell has more than CR_LATTICE_MAX_AXIS. */
static int axis_index(cr_hill_axis *axis, uint32_t *n, double c, double iw2)
{
    for (uint32_t k = 0; k < *n; ++k)
        if (axis[k].c == c && axis[k].iw2 == iw2) return (int)k;
    if (*n >= CR_LATTICE_MAX_AXIS) return -1;
    axis[*n] = (cr_hill_axis){c, iw2};
    return (int)(*n)++;
}

/* Counts (pass 0) or fills (pass 1) the cells' columns, rows and amplitude
 * matrices (column by column, a row's entries side by side); false when a
 * cell has too many for the lattice path. */
static bool axes(cr_surface *s, bool fill, size_t *cols, size_t *rows, size_t *entries)
{
    size_t cells = (size_t)s->grid_nx * (size_t)s->grid_ny;
    cr_hill_axis col[CR_LATTICE_MAX_AXIS], row[CR_LATTICE_MAX_AXIS];
    *cols = *rows = *entries = 0;
    for (size_t c = 0; c < cells; ++c) {
        uint32_t nc = 0, nr = 0;
        for (uint32_t m = s->grid_start[c]; m < s->grid_start[c + 1]; ++m) {
            const cr_hill_term *h = &s->grid_terms[m];
            if (axis_index(col, &nc, h->x, h->iw2) < 0 || axis_index(row, &nr, h->y, h->iw2) < 0) return false;
        }
        if (fill) {
            double *amp = s->lattice_amp + *entries;
            for (size_t k = 0; k < (size_t)nc * nr; ++k) amp[k] = 0.0;
            for (uint32_t m = s->grid_start[c]; m < s->grid_start[c + 1]; ++m) {
                const cr_hill_term *h = &s->grid_terms[m];
                uint32_t ic = (uint32_t)axis_index(col, &nc, h->x, h->iw2), ir = (uint32_t)axis_index(row, &nr, h->y, h->iw2);
                amp[ic * nr + ir] += h->amplitude;
            }
            for (uint32_t k = 0; k < nc; ++k) s->lattice_cols[*cols + k] = col[k];
            for (uint32_t k = 0; k < nr; ++k) s->lattice_rows[*rows + k] = row[k];
            s->lattice_col_start[c + 1] = (uint32_t)(*cols + nc);
            s->lattice_row_start[c + 1] = (uint32_t)(*rows + nr);
            s->lattice_amp_start[c + 1] = (uint32_t)(*entries + (size_t)nc * nr);
        }
        *cols += nc;
        *rows += nr;
        *entries += (size_t)nc * nr;
    }
    return true;
}

bool cr_hills_factor(cr_surface *s)
{
    if (!s->grid_start) return true; /* no bumps */
    size_t cells = (size_t)s->grid_nx * (size_t)s->grid_ny, terms = s->grid_start[cells], cols, rows, entries;
    if (terms == 0 || !axes(s, false, &cols, &rows, &entries) || cols + rows >= terms || entries > 4 * terms ||
        entries > UINT32_MAX)
        return true; /* not worth it */
    s->lattice_col_start = calloc(cells + 1, sizeof *s->lattice_col_start);
    s->lattice_row_start = calloc(cells + 1, sizeof *s->lattice_row_start);
    s->lattice_amp_start = calloc(cells + 1, sizeof *s->lattice_amp_start);
    s->lattice_cols = malloc(sizeof *s->lattice_cols * cols);
    s->lattice_rows = malloc(sizeof *s->lattice_rows * rows);
    s->lattice_amp = malloc(sizeof *s->lattice_amp * entries);
    if (!s->lattice_col_start || !s->lattice_row_start || !s->lattice_amp_start || !s->lattice_cols ||
        !s->lattice_rows || !s->lattice_amp)
        return false;
    axes(s, true, &cols, &rows, &entries);
    return true;
}

void cr_hills_sum_lattice(const cr_surface *s, size_t cell, double x, double y, double a[6])
{
    /* Per column: e = exp(-q/2), p = -dx/w^2 (d/dx of the exponent) and
     * c = (dx^2/w^2 - 1)/w^2 (its second derivative, with p^2); per row the
     * same in y, kept as e, p e and c e for the sums over a column. */
    double ex[CR_LATTICE_MAX_AXIS], px[CR_LATTICE_MAX_AXIS], cx[CR_LATTICE_MAX_AXIS];
    double ey[CR_LATTICE_MAX_AXIS], pey[CR_LATTICE_MAX_AXIS], cey[CR_LATTICE_MAX_AXIS];
    const cr_hill_axis *col = s->lattice_cols + s->lattice_col_start[cell];
    const cr_hill_axis *row = s->lattice_rows + s->lattice_row_start[cell];
    const double *amp = s->lattice_amp + s->lattice_amp_start[cell];
    uint32_t nc = s->lattice_col_start[cell + 1] - s->lattice_col_start[cell];
    uint32_t nr = s->lattice_row_start[cell + 1] - s->lattice_row_start[cell];
    for (uint32_t k = 0; k < nc; ++k) {
        double d = x - col[k].c, q = d * d * col[k].iw2;
        /* Past 8.5 widths along x a bump is cut (exp's underflow path spared
         * too, where cells are much wider than the bumps). */
        ex[k] = q > CR_HILL_MAX_Q ? 0.0 : exp(-0.5 * q);
        px[k] = -d * col[k].iw2;
        cx[k] = (q - 1.0) * col[k].iw2;
    }
    for (uint32_t k = 0; k < nr; ++k) {
        double d = y - row[k].c, q = d * d * row[k].iw2;
        double e = q > CR_HILL_MAX_Q ? 0.0 : exp(-0.5 * q);
        ey[k] = e;
        pey[k] = -d * row[k].iw2 * e;
        cey[k] = (q - 1.0) * row[k].iw2 * e;
    }
    for (uint32_t i = 0; i < nc; ++i, amp += nr) {
        if (ex[i] == 0.0) continue; /* cut along x: its bumps add nothing */
        double s0 = 0.0, s1 = 0.0, s2 = 0.0;
        for (uint32_t j = 0; j < nr; ++j) {
            s0 += amp[j] * ey[j];
            s1 += amp[j] * pey[j];
            s2 += amp[j] * cey[j];
        }
        double g0 = ex[i] * s0, g1 = ex[i] * s1;
        a[0] += g0;
        a[1] += px[i] * g0;
        a[2] += g1;
        a[3] += cx[i] * g0;
        a[4] += px[i] * g1;
        a[5] += ex[i] * s2;
    }
}
