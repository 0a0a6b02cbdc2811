/* Built-in surface maps: plane, hills, bowl, tensor-product B-spline. Each
 * returns s and its first and second partial derivatives, exactly. */
#include <string.h>

#include "simd.h"
#include "sincos_table.h"
#include "surface_internal.h"

static void eval_plane(const cr_surface *s, double u, double v, cr_surface_eval *o)
{
    o->s = cr_v3_madd(cr_v3_madd(s->def.point, s->e1, u), s->e2, v);
    o->su = s->e1;
    o->sv = s->e2;
    o->suu = o->suv = o->svv = cr_v3_zero();
}

/* A bump's terms in z and its derivatives (a[0..5]: z, z_x, z_y, z_xx,
 * z_xy, z_yy), for offset (dx, dy) from its centre, 1/w^2 and its value
 * g = A exp(-(dx^2 + dy^2) / (2 w^2)). */
static void hill_add(double a[6], double dx, double dy, double iw2, double g)
{
    a[0] += g;
    a[1] += -dx * iw2 * g;
    a[2] += -dy * iw2 * g;
    a[3] += (dx * dx * iw2 - 1.0) * iw2 * g;
    a[4] += dx * dy * iw2 * iw2 * g;
    a[5] += (dy * dy * iw2 - 1.0) * iw2 * g;
}

/* z = h + sum A exp(-d^2 / (2 w^2)) + W sin(a x) sin(b y), a graph over (x, y). */
static void eval_hills(const cr_surface *s, double x, double y, cr_surface_eval *o)
{
    const cr_surface_def *d = &s->def;
    double a[6] = {d->height, 0, 0, 0, 0, 0}; /* z, z_x, z_y, z_xx, z_xy, z_yy */
    if (d->hill_count) {
        /* Only the bumps whose support reaches this point's cell. */
        /* compared as doubles before converting: a point far outside the
         * grid (a huge domain's curvature samples) is beyond int. The cell
         * is floor(fi), the conversion's truncation once fi >= 0, and
         * floor(fi) < n exactly when fi < n (an integer): the same cells as
         * floor's without its rounding work. The cell's index comes from
         * a product with 1 / cell, not a division: it can differ from the
         * quotient's only within an ulp of a cell's edge, where both cells
         * hold every bump that reaches the point. */
        double fi = (x - s->grid_x0) * s->grid_inv_cell, fj = (y - s->grid_y0) * s->grid_inv_cell;
        if (fi >= 0.0 && fj >= 0.0 && fi < (double)s->grid_nx && fj < (double)s->grid_ny) {
            size_t c = (size_t)(int)fj * (size_t)s->grid_nx + (size_t)(int)fi;
            if (s->lattice_cols) {
                cr_hills_sum_lattice(s, c, x, y, a);
            } else {
                for (uint32_t m = s->grid_start[c]; m < s->grid_start[c + 1]; ++m) {
                    const cr_hill_term *h = &s->grid_terms[m];
                    double dx = x - h->x, dy = y - h->y, iw2 = h->iw2;
                    double q = (dx * dx + dy * dy) * iw2;
                    /* (The cut also spares exp's underflow path on large
                     * surfaces with many bumps.) */
                    if (q > CR_HILL_MAX_Q) continue;
                    hill_add(a, dx, dy, iw2, h->amplitude * exp(-0.5 * q));
                }
            }
        }
    }
    if (d->wave_amplitude != 0.0) {
        /* W sin(kx x) sin(ky y) and its derivatives, the constant factors
         * formed once (s->wave_f: W kx, W ky, -W kx kx, -W ky ky, W kx ky) */
        const double *f = s->wave_f, W = d->wave_amplitude;
        double sn[2], cs[2];
        /* a table and angle addition: within 4.5e-16 of libm's */
#if CR_AVX2
        if (s->lattice_avx2) cr_sincos2_avx2(s->wave_kx * x, s->wave_ky * y, sn, cs);
        else
#endif
            cr_sincos2(s->wave_kx * x, s->wave_ky * y, sn, cs);
        double sx = sn[0], cx = cs[0], sy = sn[1], cy = cs[1];
        a[0] += W * sx * sy;
        a[1] += f[0] * cx * sy;
        a[2] += f[1] * sx * cy;
        a[3] += f[2] * sx * sy;
        a[5] += f[3] * sx * sy;
        a[4] += f[4] * cx * cy;
    }
    o->s = cr_v3(x, y, a[0]);
    o->su = cr_v3(1, 0, a[1]);
    o->sv = cr_v3(0, 1, a[2]);
    o->suu = cr_v3(0, 0, a[3]);
    o->suv = cr_v3(0, 0, a[4]);
    o->svv = cr_v3(0, 0, a[5]);
}

/* The lower hemisphere z = cz - sqrt(R^2 - (x-cx)^2 - (y-cy)^2). Points are
 * kept a hair inside the rim, where the slope becomes vertical. */
static void eval_bowl(const cr_surface *s, double x, double y, cr_surface_eval *o)
{
    const cr_surface_def *d = &s->def;
    double R = d->radius, dx = x - d->center.x, dy = y - d->center.y;
    double rho2 = dx * dx + dy * dy, lim = R * R * (1.0 - 1e-6);
    if (rho2 > lim) {
        double k = sqrt(lim / rho2);
        dx *= k;
        dy *= k;
        rho2 = lim;
    }
    double q = sqrt(R * R - rho2), iq = 1.0 / q, iq3 = iq * iq * iq;
    o->s = cr_v3(d->center.x + dx, d->center.y + dy, d->center.z - q);
    o->su = cr_v3(1, 0, dx * iq);
    o->sv = cr_v3(0, 1, dy * iq);
    o->suu = cr_v3(0, 0, iq + dx * dx * iq3);
    o->suv = cr_v3(0, 0, dx * dy * iq3);
    o->svv = cr_v3(0, 0, iq + dy * dy * iq3);
}

/* B-spline basis functions and their first two derivatives at t (Piegl &
 * Tiller, The NURBS Book, A2.2-A2.3), for a clamped uniform knot vector. */
static int find_span(const double *knots, int n, int p, double t)
{
    if (t >= knots[n]) return n - 1;
    if (t <= knots[p]) return p;
    int lo = p, hi = n;
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (t < knots[mid]) hi = mid;
        else lo = mid;
    }
    return lo;
}

static void basis_derivatives(const double *knots, int span, int p, double t, double ders[3][CR_BSPLINE_MAX_DEGREE + 1])
{
    double ndu[CR_BSPLINE_MAX_DEGREE + 1][CR_BSPLINE_MAX_DEGREE + 1], left[CR_BSPLINE_MAX_DEGREE + 1],
        right[CR_BSPLINE_MAX_DEGREE + 1], a[2][CR_BSPLINE_MAX_DEGREE + 1];
    ndu[0][0] = 1.0;
    for (int j = 1; j <= p; ++j) {
        left[j] = t - knots[span + 1 - j];
        right[j] = knots[span + j] - t;
        double saved = 0.0;
        for (int r = 0; r < j; ++r) {
            ndu[j][r] = right[r + 1] + left[j - r];
            double temp = ndu[r][j - 1] / ndu[j][r];
            ndu[r][j] = saved + right[r + 1] * temp;
            saved = left[j - r] * temp;
        }
        ndu[j][j] = saved;
    }
    for (int j = 0; j <= p; ++j) ders[0][j] = ndu[j][p];
    for (int r = 0; r <= p; ++r) {
        int s1 = 0, s2 = 1;
        a[0][0] = 1.0;
        for (int k = 1; k <= 2; ++k) {
            double dv = 0.0;
            int rk = r - k, pk = p - k;
            if (r >= k) {
                a[s2][0] = a[s1][0] / ndu[pk + 1][rk];
                dv = a[s2][0] * ndu[rk][pk];
            }
            int j1 = rk >= -1 ? 1 : -rk, j2 = (r - 1 <= pk) ? k - 1 : p - r;
            for (int j = j1; j <= j2; ++j) {
                a[s2][j] = (a[s1][j] - a[s1][j - 1]) / ndu[pk + 1][rk + j];
                dv += a[s2][j] * ndu[rk + j][pk];
            }
            if (r <= pk) {
                a[s2][k] = -a[s1][k - 1] / ndu[pk + 1][r];
                dv += a[s2][k] * ndu[r][pk];
            }
            if (k <= 2) ders[k][r] = dv;
            int tmp = s1;
            s1 = s2;
            s2 = tmp;
        }
    }
    for (int j = 0; j <= p; ++j) {
        ders[1][j] *= p;
        ders[2][j] *= p * (p - 1);
    }
    if (p < 2)
        for (int j = 0; j <= p; ++j) ders[2][j] = 0.0;
}

static void eval_bspline(const cr_surface *s, double u, double v, cr_surface_eval *o)
{
    int p = s->def.degree, nu = (int)s->def.count_u, nv = (int)s->def.count_v;
    u = u < 0.0 ? 0.0 : (u > 1.0 ? 1.0 : u);
    v = v < 0.0 ? 0.0 : (v > 1.0 ? 1.0 : v);
    int su = find_span(s->knots_u, nu, p, u), sv = find_span(s->knots_v, nv, p, v);
    double bu[3][CR_BSPLINE_MAX_DEGREE + 1], bv[3][CR_BSPLINE_MAX_DEGREE + 1];
    basis_derivatives(s->knots_u, su, p, u, bu);
    basis_derivatives(s->knots_v, sv, p, v, bv);
    memset(o, 0, sizeof *o);
    for (int i = 0; i <= p; ++i)
        for (int j = 0; j <= p; ++j) {
            cr_vec3 c = s->control[(size_t)(su - p + i) * (size_t)nv + (size_t)(sv - p + j)];
            o->s = cr_v3_madd(o->s, c, bu[0][i] * bv[0][j]);
            o->su = cr_v3_madd(o->su, c, bu[1][i] * bv[0][j]);
            o->sv = cr_v3_madd(o->sv, c, bu[0][i] * bv[1][j]);
            o->suu = cr_v3_madd(o->suu, c, bu[2][i] * bv[0][j]);
            o->suv = cr_v3_madd(o->suv, c, bu[1][i] * bv[1][j]);
            o->svv = cr_v3_madd(o->svv, c, bu[0][i] * bv[2][j]);
        }
}

void cr_surface_eval_raw(const cr_surface *s, double u, double v, cr_surface_eval *out)
{
    switch (s->def.type) {
    case CR_SURFACE_PLANE: eval_plane(s, u, v, out); return;
    case CR_SURFACE_HILLS: eval_hills(s, u, v, out); return;
    case CR_SURFACE_BOWL: eval_bowl(s, u, v, out); return;
    case CR_SURFACE_BSPLINE: eval_bspline(s, u, v, out); return;
    case CR_SURFACE_CUSTOM: s->def.eval(u, v, s->def.ctx, out); return;
    }
}
