/* Real roots of polynomials of degree <= 4 in closed form, for the rays of
 * constant sliding of seed 002 §3.8 ("there exist closed form solutions to
 * finding the roots of a quartic equation, making them very quick").
 *
 * Quartic: Ferrari's method (depress, a real root m > 0 of the resolvent
 * cubic, two quadratic factors). Cubic: Cardano with one real root, Viete's
 * trigonometric form with three. Every root is then polished by a few Newton
 * steps on the original polynomial, which removes the cancellation the closed
 * forms suffer near multiple roots. A discriminant that is negative only by
 * rounding is taken as zero so that double roots are not lost.
 */
#include <float.h>
#include <math.h>

#include "law_stronge_internal.h"

static double poly_eval(const double *a, int degree, double x, double *deriv)
{
    double p = a[degree], d = 0.0;
    for (int i = degree - 1; i >= 0; --i) {
        d = d * x + p;
        p = p * x + a[i];
    }
    if (deriv) *deriv = d;
    return p;
}

/* A few Newton steps, kept only while they reduce |P(x)|. */
static double polish(const double *a, int degree, double x)
{
    double d, fx = poly_eval(a, degree, x, &d);
    for (int it = 0; it < 6 && fx != 0.0; ++it) {
        if (d == 0.0 || !isfinite(d)) break;
        double xn = x - fx / d, dn;
        double fn = poly_eval(a, degree, xn, &dn);
        if (!(fabs(fn) < fabs(fx))) break;
        x = xn;
        fx = fn;
        d = dn;
    }
    return x;
}

/* Real roots of x^2 + b x + c; a slightly negative discriminant (rounding) is 0. */
static int quadratic_monic(double b, double c, double *r)
{
    double disc = b * b - 4.0 * c;
    double tol = 1e-12 * (b * b + 4.0 * fabs(c));
    if (disc < 0.0) {
        if (disc < -tol) return 0;
        disc = 0.0;
    }
    double sq = sqrt(disc);
    /* Cancellation-free: q = -(b + sign(b) sqrt(disc)) / 2, roots q and c / q. */
    double q = -0.5 * (b + (b >= 0.0 ? sq : -sq));
    if (q == 0.0) {
        r[0] = r[1] = 0.0;
        return 2;
    }
    r[0] = q;
    r[1] = c / q;
    return 2;
}

/* Real roots of x^3 + a x^2 + b x + c (Cardano / Viete). */
static int cubic_monic(double a, double b, double c, double *r)
{
    double a3 = a / 3.0;
    double p = b - a * a3;                               /* depressed: t^3 + p t + q */
    double q = 2.0 * a3 * a3 * a3 - a3 * b + c;
    double h = 0.25 * q * q + p * p * p / 27.0;          /* discriminant (q/2)^2 + (p/3)^3 */
    double scale = 0.25 * q * q + fabs(p * p * p) / 27.0;
    if (p == 0.0 && q == 0.0) {
        r[0] = -a3;
        return 1;
    }
    if (h > 1e-14 * scale) {
        /* One real root: t = u - p / (3u), u = cbrt(-q/2 - sign(q) sqrt(h)). */
        double s = sqrt(h);
        double u = cbrt(-0.5 * q - (q >= 0.0 ? s : -s));
        double t = (u != 0.0) ? u - p / (3.0 * u) : 0.0;
        r[0] = t - a3;
        return 1;
    }
    /* Three real roots (Viete). p < 0 here unless h is zero by rounding. */
    if (p >= 0.0) {
        r[0] = cbrt(-q) - a3;
        return 1;
    }
    double m = 2.0 * sqrt(-p / 3.0);
    double arg = 3.0 * q / (p * m);
    if (arg > 1.0) arg = 1.0;
    if (arg < -1.0) arg = -1.0;
    double phi = acos(arg) / 3.0;
    const double two_pi_3 = 2.0943951023931954923; /* 2 pi / 3 */
    r[0] = m * cos(phi) - a3;
    r[1] = m * cos(phi - two_pi_3) - a3;
    r[2] = m * cos(phi - 2.0 * two_pi_3) - a3;
    return 3;
}

/* Real roots of x^4 + b x^3 + c x^2 + d x + e (Ferrari). */
static int quartic_monic(double b, double c, double d, double e, double *r)
{
    double b4 = 0.25 * b, bb = b * b;
    double P = c - 0.375 * bb;
    double Q = d - 0.5 * b * c + 0.125 * bb * b;
    double R = e - 0.25 * b * d + 0.0625 * bb * c - 3.0 / 256.0 * bb * bb;
    double qscale = fabs(d) + 0.5 * fabs(b * c) + 0.125 * fabs(bb * b);
    int n = 0;
    double z[3];
    if (fabs(Q) <= 1e-14 * qscale) {
        /* Biquadratic: y^4 + P y^2 + R = 0. */
        int nz = quadratic_monic(P, R, z);
        for (int i = 0; i < nz; ++i) {
            if (z[i] < 0.0) {
                if (z[i] < -1e-12 * (fabs(P) + sqrt(fabs(R)))) continue;
                z[i] = 0.0;
            }
            double y = sqrt(z[i]);
            r[n++] = y - b4;
            r[n++] = -y - b4;
        }
        return n;
    }
    /* Resolvent 8 m^3 + 8 P m^2 + (2 P^2 - 8 R) m - Q^2 = 0 has a root m > 0
     * (it is -Q^2 < 0 at m = 0); the largest real root is positive. */
    double a2 = P, a1 = 0.25 * P * P - R, a0 = -0.125 * Q * Q;
    int nm = cubic_monic(a2, a1, a0, z);
    double m = z[0];
    for (int i = 1; i < nm; ++i)
        if (z[i] > m) m = z[i];
    double cub[4] = {a0, a1, a2, 1.0};
    m = polish(cub, 3, m);
    if (!(m > 0.0)) return 0;
    double s = sqrt(2.0 * m);
    double y[2];
    int ny = quadratic_monic(s, 0.5 * P + m - Q / (2.0 * s), y);
    for (int i = 0; i < ny; ++i) r[n++] = y[i] - b4;
    ny = quadratic_monic(-s, 0.5 * P + m + Q / (2.0 * s), y);
    for (int i = 0; i < ny; ++i) r[n++] = y[i] - b4;
    return n;
}

int cr_quartic_real_roots(const double a[5], double roots[4])
{
    int degree = 4;
    while (degree > 0 && a[degree] == 0.0) --degree;
    for (int i = 0; i <= degree; ++i)
        if (!isfinite(a[i])) return 0;
    double r[4];
    int n = 0;
    switch (degree) {
    case 0:
        return 0;
    case 1:
        r[n++] = -a[0] / a[1];
        break;
    case 2:
        n = quadratic_monic(a[1] / a[2], a[0] / a[2], r);
        break;
    case 3:
        n = cubic_monic(a[2] / a[3], a[1] / a[3], a[0] / a[3], r);
        break;
    default:
        n = quartic_monic(a[3] / a[4], a[2] / a[4], a[1] / a[4], a[0] / a[4], r);
        break;
    }
    int m = 0;
    for (int i = 0; i < n; ++i) {
        double x = polish(a, degree, r[i]);
        if (isfinite(x)) roots[m++] = x;
    }
    /* Ascending (insertion sort of at most four). */
    for (int i = 1; i < m; ++i) {
        double x = roots[i];
        int j = i - 1;
        while (j >= 0 && roots[j] > x) {
            roots[j + 1] = roots[j];
            --j;
        }
        roots[j + 1] = x;
    }
    return m;
}
