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
 * The amplitudes are stored row by row (a row's columns side by side), so
 * that the AVX2 path loads four columns' entries of a row at once.
 *
 * A surface is factored only when its cells hold fewer columns and rows
 * than bumps in all (otherwise the product costs two exps per bump instead
 * of one), and their matrices at most 4 entries per bump: scattered bumps
 * (scenes/boiling.json) keep one exp per bump.
 *
 * The exps are cr_exp_neg's (exp_neg.h: within one ulp of libm's, the same
 * bits on AVX2 lanes), so that where the processor has AVX2 a cell's
 * columns and rows are taken four at a time, and four columns' sums over
 * the rows are the lanes of three vectors: the same operations in the same
 * order as the plain loops, the same bits (tests/test_hills_lanes.c).
 */
#include <stdlib.h>

#include "exp_neg.h"
#include "simd.h"
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
 * matrices (row by row, a row's columns side by side); false when a
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
                amp[ir * nc + ic] += h->amplitude;
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
    /* (four entries of padding: the AVX2 path reads columns and rows four
     * at a time) */
    s->lattice_cols = calloc(cols + 4, sizeof *s->lattice_cols);
    s->lattice_rows = calloc(rows + 4, sizeof *s->lattice_rows);
    /* (and the amplitudes four: the AVX2 path loads a row's columns four
     * at a time, past the last cell's last row) */
    s->lattice_amp = calloc(entries + 4, sizeof *s->lattice_amp);
    if (!s->lattice_col_start || !s->lattice_row_start || !s->lattice_amp_start || !s->lattice_cols ||
        !s->lattice_rows || !s->lattice_amp)
        return false;
    axes(s, true, &cols, &rows, &entries);
    s->lattice_avx2 = cr_use_avx2(false);
    return true;
}

/* The sum over the cell's amplitude matrix, a column at a time: per column
 * i, s0 = sum_j A_ij ey_j, s1 = sum_j A_ij (p e)y_j, s2 = sum_j A_ij (c e)y_j
 * (r[j] = those three row factors), then into a[]. */
static void sum_plain(const double *amp, uint32_t nc, uint32_t nr, const double *ex, const double *px,
                      const double *cx, const double (*r)[4], double a[6])
{
    for (uint32_t i = 0; i < nc; ++i) {
        if (ex[i] == 0.0) continue; /* cut along x: its bumps add nothing */
        double s0 = 0.0, s1 = 0.0, s2 = 0.0;
        for (uint32_t j = 0; j < nr; ++j) {
            double A = amp[(size_t)j * nc + i];
            s0 += A * r[j][0];
            s1 += A * r[j][1];
            s2 += A * r[j][2];
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

#if CR_AVX2
/* Four columns or rows of a cell on AVX2 lanes, their (c, 1/w^2) two in ab
 * and two in cd, each at its t (x for a column, y for a row): e = exp(-q/2)
 * (0 past the cut), p = -d / w^2, c = (q - 1) / w^2 (a row's sums take
 * p e and c e: the caller's products). Each lane does the plain path's
 * operations in its order, with cr_exp_neg4 for cr_exp_neg and the sign
 * flipped as -d flips it. */
CR_AVX2_FN static inline void axis4_avx2(__m256d ab, __m256d cd, __m256d t, __m256d *e, __m256d *p, __m256d *c)
{
    __m256d at = _mm256_permute4x64_pd(_mm256_unpacklo_pd(ab, cd), _MM_SHUFFLE(3, 1, 2, 0));
    __m256d iw2 = _mm256_permute4x64_pd(_mm256_unpackhi_pd(ab, cd), _MM_SHUFFLE(3, 1, 2, 0));
    __m256d d = _mm256_sub_pd(t, at);
    __m256d q = _mm256_mul_pd(_mm256_mul_pd(d, d), iw2);
    __m256d cut = _mm256_cmp_pd(q, _mm256_set1_pd(CR_HILL_MAX_Q), _CMP_GT_OQ);
    *e = _mm256_andnot_pd(cut, cr_exp_neg4(_mm256_mul_pd(_mm256_set1_pd(-0.5), q)));
    *p = _mm256_mul_pd(_mm256_xor_pd(d, _mm256_set1_pd(-0.0)), iw2);
    *c = _mm256_mul_pd(_mm256_sub_pd(q, _mm256_set1_pd(1.0)), iw2);
}

/* Columns k .. k+3 at x (times_e false) or rows at y (true) into e, p, c
 * from k on (the axis arrays carry four entries of padding: lanes past the
 * cell's own compute what nobody reads). */
CR_AVX2_FN static inline void axis_run_avx2(const cr_hill_axis *axis, double t, bool times_e, double *e, double *p,
                                            double *c)
{
    __m256d ek, pk, ck;
    axis4_avx2(_mm256_loadu_pd(&axis[0].c), _mm256_loadu_pd(&axis[2].c), _mm256_set1_pd(t), &ek, &pk, &ck);
    if (times_e) {
        pk = _mm256_mul_pd(pk, ek);
        ck = _mm256_mul_pd(ck, ek);
    }
    _mm256_storeu_pd(e, ek);
    _mm256_storeu_pd(p, pk);
    _mm256_storeu_pd(c, ck);
}

/* The cell's columns and rows: 0 .. 3 of each on a run of four lanes, and
 * the rest four at a time, except where both have at most two more (the
 * benchmark's lattice: 5 or 6 of each in a cell of 0.6 m): columns 4, 5
 * and rows 4, 5 then share one run, (x, x, y, y). The arrays get four
 * entries (or more) from 0 and from 4 (what lanes past the cell's own
 * compute, read by nobody). */
CR_AVX2_FN static inline void axes_avx2(const cr_hill_axis *col, uint32_t nc, const cr_hill_axis *row, uint32_t nr,
                                        double x, double y, double *ex, double *px, double *cx, double *ey,
                                        double *pey, double *cey)
{
    /* columns and rows side by side: two independent chains to overlap */
    axis_run_avx2(col, x, false, ex, px, cx);
    axis_run_avx2(row, y, true, ey, pey, cey);
    if (nc <= 6 && nr <= 6) {
        if (nc <= 4 && nr <= 4) return;
        __m256d e, p, c;
        axis4_avx2(_mm256_loadu_pd(&col[4].c), _mm256_loadu_pd(&row[4].c), _mm256_set_pd(y, y, x, x), &e, &p, &c);
        __m256d pe = _mm256_mul_pd(p, e), ce = _mm256_mul_pd(c, e);
        _mm256_storeu_pd(ex + 4, e); /* columns 4, 5 in lanes 0, 1 */
        _mm256_storeu_pd(px + 4, p);
        _mm256_storeu_pd(cx + 4, c);
        _mm256_storeu_pd(ey + 4, _mm256_permute2f128_pd(e, e, 0x11)); /* rows 4, 5 in lanes 2, 3 */
        _mm256_storeu_pd(pey + 4, _mm256_permute2f128_pd(pe, pe, 0x11));
        _mm256_storeu_pd(cey + 4, _mm256_permute2f128_pd(ce, ce, 0x11));
        return;
    }
    for (uint32_t k = 4; k < nc || k < nr; k += 4) {
        if (k < nc) axis_run_avx2(col + k, x, false, ex + k, px + k, cx + k);
        if (k < nr) axis_run_avx2(row + k, y, true, ey + k, pey + k, cey + k);
    }
}

/* Adds four columns' terms, g (g0, g1, ex s2 of each column, a lane a
 * column) and t (px g0, cx g0, px g1), to lo = (a0, a2, a5) and
 * hi = (a1, a3, a4), column after column in order, those whose bit in live
 * is set: a 4 x 4 transpose turns each column's terms into a vector of
 * lo's (hi's) layout. */
CR_AVX2_FN static inline void add_columns(__m256d g0, __m256d g1, __m256d g5, __m256d t1, __m256d t3, __m256d t4,
                                          unsigned live, __m256d *lo, __m256d *hi)
{
    __m256d u0 = _mm256_unpacklo_pd(g0, g1), u1 = _mm256_unpackhi_pd(g0, g1);
    __m256d u2 = _mm256_unpacklo_pd(g5, g5), u3 = _mm256_unpackhi_pd(g5, g5); /* (lane 3: nobody reads it) */
    __m256d v0 = _mm256_unpacklo_pd(t1, t3), v1 = _mm256_unpackhi_pd(t1, t3);
    __m256d v2 = _mm256_unpacklo_pd(t4, t4), v3 = _mm256_unpackhi_pd(t4, t4);
    if (live & 1) {
        *lo = _mm256_add_pd(*lo, _mm256_permute2f128_pd(u0, u2, 0x20));
        *hi = _mm256_add_pd(*hi, _mm256_permute2f128_pd(v0, v2, 0x20));
    }
    if (live & 2) {
        *lo = _mm256_add_pd(*lo, _mm256_permute2f128_pd(u1, u3, 0x20));
        *hi = _mm256_add_pd(*hi, _mm256_permute2f128_pd(v1, v3, 0x20));
    }
    if (live & 4) {
        *lo = _mm256_add_pd(*lo, _mm256_permute2f128_pd(u0, u2, 0x31));
        *hi = _mm256_add_pd(*hi, _mm256_permute2f128_pd(v0, v2, 0x31));
    }
    if (live & 8) {
        *lo = _mm256_add_pd(*lo, _mm256_permute2f128_pd(u1, u3, 0x31));
        *hi = _mm256_add_pd(*hi, _mm256_permute2f128_pd(v1, v3, 0x31));
    }
}

/* Columns g .. g+3's sums over the nr rows (aj: row 0's entry of column
 * g), a column a lane: s[0] += A_ij ey_j, s[1] += A_ij (p e)y_j,
 * s[2] += A_ij (c e)y_j, row after row. */
CR_AVX2_FN static inline void row_sums4(const double *aj, uint32_t nc, const double *ey, const double *pey,
                                        const double *cey, uint32_t nr, __m256d s[3])
{
    __m256d s0 = _mm256_setzero_pd(), s1 = s0, s2 = s0;
    for (uint32_t j = 0; j < nr; ++j, aj += nc) {
        __m256d A = _mm256_loadu_pd(aj);
        s0 = _mm256_add_pd(s0, _mm256_mul_pd(A, _mm256_broadcast_sd(ey + j)));
        s1 = _mm256_add_pd(s1, _mm256_mul_pd(A, _mm256_broadcast_sd(pey + j)));
        s2 = _mm256_add_pd(s2, _mm256_mul_pd(A, _mm256_broadcast_sd(cey + j)));
    }
    s[0] = s0;
    s[1] = s1;
    s[2] = s2;
}

/* row_sums4 of columns g .. g+7 in one pass over the rows (a row's three
 * factors loaded once for both fours): s[0..2] and s[3..5]. */
CR_AVX2_FN static inline void row_sums8(const double *aj, uint32_t nc, const double *ey, const double *pey,
                                        const double *cey, uint32_t nr, __m256d s[6])
{
    __m256d s0 = _mm256_setzero_pd(), s1 = s0, s2 = s0, t0 = s0, t1 = s0, t2 = s0;
    for (uint32_t j = 0; j < nr; ++j, aj += nc) {
        __m256d A = _mm256_loadu_pd(aj), B = _mm256_loadu_pd(aj + 4);
        __m256d e = _mm256_broadcast_sd(ey + j), pe = _mm256_broadcast_sd(pey + j), ce = _mm256_broadcast_sd(cey + j);
        s0 = _mm256_add_pd(s0, _mm256_mul_pd(A, e));
        s1 = _mm256_add_pd(s1, _mm256_mul_pd(A, pe));
        s2 = _mm256_add_pd(s2, _mm256_mul_pd(A, ce));
        t0 = _mm256_add_pd(t0, _mm256_mul_pd(B, e));
        t1 = _mm256_add_pd(t1, _mm256_mul_pd(B, pe));
        t2 = _mm256_add_pd(t2, _mm256_mul_pd(B, ce));
    }
    s[0] = s0;
    s[1] = s1;
    s[2] = s2;
    s[3] = t0;
    s[4] = t1;
    s[5] = t2;
}

/* Four columns' sums s into lo, hi (add_columns): g0 = ex s0, g1 = ex s1,
 * ex s2 and px g0, cx g0, px g1, a column a lane, those in range (a bit a
 * lane) and not cut (ex != 0). */
CR_AVX2_FN static inline void add_group(const double *ex, const double *px, const double *cx, const __m256d s[3],
                                        unsigned range, __m256d *lo, __m256d *hi)
{
    __m256d ex4 = _mm256_loadu_pd(ex);
    unsigned live = range & (unsigned)_mm256_movemask_pd(_mm256_cmp_pd(ex4, _mm256_setzero_pd(), _CMP_NEQ_UQ));
    if (!live) return;
    __m256d g0 = _mm256_mul_pd(ex4, s[0]), g1 = _mm256_mul_pd(ex4, s[1]), g5 = _mm256_mul_pd(ex4, s[2]);
    __m256d px4 = _mm256_loadu_pd(px), cx4 = _mm256_loadu_pd(cx);
    add_columns(g0, g1, g5, _mm256_mul_pd(px4, g0), _mm256_mul_pd(cx4, g0), _mm256_mul_pd(px4, g1), live, lo, hi);
}

/* The cell's sum with four columns on the lanes: per row, four columns'
 * three sums (row_sums4; the row's four entries one load; five to eight
 * columns, the benchmark's, in one pass over the rows: row_sums8), then
 * each column's g0 = ex s0, g1 = ex s1, ex s2 and its products with px and
 * cx on the lanes, added to a[] column after column (add_group). Each
 * value is sum_plain's operations in its order (no fused multiply-add,
 * simd.h), so the same bits. Lanes past the cell's columns read the next
 * row's entries (or the padding) and compute what nobody reads. Columns
 * cut along x (ex = 0) are left out as sum_plain leaves them. */
CR_AVX2_FN static void lattice_avx2(const cr_surface *s, size_t cell, double x, double y, double a[6])
{
    const cr_hill_axis *col = s->lattice_cols + s->lattice_col_start[cell];
    const cr_hill_axis *row = s->lattice_rows + s->lattice_row_start[cell];
    const double *amp = s->lattice_amp + s->lattice_amp_start[cell];
    uint32_t nc = s->lattice_col_start[cell + 1] - s->lattice_col_start[cell];
    uint32_t nr = s->lattice_row_start[cell + 1] - s->lattice_row_start[cell];
    double ex[CR_LATTICE_MAX_AXIS + 4], px[CR_LATTICE_MAX_AXIS + 4], cx[CR_LATTICE_MAX_AXIS + 4];
    double ey[CR_LATTICE_MAX_AXIS + 4], pey[CR_LATTICE_MAX_AXIS + 4], cey[CR_LATTICE_MAX_AXIS + 4];
    axes_avx2(col, nc, row, nr, x, y, ex, px, cx, ey, pey, cey);
    __m256d lo = _mm256_set_pd(0.0, a[5], a[2], a[0]), hi = _mm256_set_pd(0.0, a[4], a[3], a[1]), sums[6];
    if (nc > 4 && nc <= 8) { /* (the arrays hold eight columns' factors then: axes_avx2) */
        row_sums8(amp, nc, ey, pey, cey, nr, sums);
        add_group(ex, px, cx, sums, 15u, &lo, &hi);
        add_group(ex + 4, px + 4, cx + 4, sums + 3, (1u << (nc - 4)) - 1u, &lo, &hi);
    } else {
        for (uint32_t g = 0; g < nc; g += 4) {
            row_sums4(amp + g, nc, ey, pey, cey, nr, sums);
            add_group(ex + g, px + g, cx + g, sums, nc - g < 4 ? (1u << (nc - g)) - 1u : 15u, &lo, &hi);
        }
    }
    double l[4], h[4];
    _mm256_storeu_pd(l, lo);
    _mm256_storeu_pd(h, hi);
    a[0] = l[0];
    a[2] = l[1];
    a[5] = l[2];
    a[1] = h[0];
    a[3] = h[1];
    a[4] = h[2];
}
#endif

void cr_hills_sum_lattice(const cr_surface *s, size_t cell, double x, double y, double a[6])
{
#if CR_AVX2
    /* first, with the caller's arguments as they are: a jump, before the
     * plain path's frame (its arrays) is set up */
    if (s->lattice_avx2) {
        lattice_avx2(s, cell, x, y, a);
        return;
    }
#endif
    const cr_hill_axis *col = s->lattice_cols + s->lattice_col_start[cell];
    const cr_hill_axis *row = s->lattice_rows + s->lattice_row_start[cell];
    const double *amp = s->lattice_amp + s->lattice_amp_start[cell];
    uint32_t nc = s->lattice_col_start[cell + 1] - s->lattice_col_start[cell];
    uint32_t nr = s->lattice_row_start[cell + 1] - s->lattice_row_start[cell];
    /* Per column: e = exp(-q/2), p = -dx/w^2 (d/dx of the exponent) and
     * c = (dx^2/w^2 - 1)/w^2 (its second derivative, with p^2); per row the
     * same in y, kept as e, p e and c e for the sums over a column. Past
     * 8.5 widths along the axis a bump is cut (exp's work spared too, where
     * cells are much wider than the bumps). */
    double ex[CR_LATTICE_MAX_AXIS], px[CR_LATTICE_MAX_AXIS], cx[CR_LATTICE_MAX_AXIS];
    double r[CR_LATTICE_MAX_AXIS][4]; /* a row's e, p e, c e */
    for (uint32_t k = 0; k < nc; ++k) {
        double d = x - col[k].c, q = d * d * col[k].iw2;
        ex[k] = q > CR_HILL_MAX_Q ? 0.0 : cr_exp_neg(-0.5 * q);
        px[k] = -d * col[k].iw2;
        cx[k] = (q - 1.0) * col[k].iw2;
    }
    for (uint32_t k = 0; k < nr; ++k) {
        double d = y - row[k].c, q = d * d * row[k].iw2;
        double e = q > CR_HILL_MAX_Q ? 0.0 : cr_exp_neg(-0.5 * q);
        r[k][0] = e;
        r[k][1] = -d * row[k].iw2 * e;
        r[k][2] = (q - 1.0) * row[k].iw2 * e;
        r[k][3] = 0.0;
    }
    sum_plain(amp, nc, nr, ex, px, cx, (const double(*)[4])r, a);
}
