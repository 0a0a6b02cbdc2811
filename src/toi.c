/* Time of impact: seed 004 eq. 44-47 for spheres in linear motion, the
 * quadratic sphere-plane gap under constant acceleration, and seed 001 §3.3
 * bisection (behind conservative advancement) for everything else.
 *
 * Times here are on whatever axis the caller uses (the unit interval of
 * seed 004's step vectors, or seconds); only ordering matters.
 */
#include "carom/collide.h"

/* Relative tolerance for seed 004's "|b|^2 < delta" test: step vectors that
 * differ by less than 1e-12 r are the parallel case. (The seed's 1e-5 is for
 * single precision.) */
#define CR_PARALLEL_REL 1e-24

cr_toi_result cr_toi_sphere_sphere(cr_vec3 p1, cr_vec3 d1, cr_vec3 p2, cr_vec3 d2, double r,
                                   double x0, double *x)
{
    cr_vec3 a = cr_v3_sub(p1, p2); /* eq. 45 */
    cr_vec3 b = cr_v3_sub(d2, d1);
    double aa = cr_v3_dot(a, a), ab = cr_v3_dot(a, b), bb = cr_v3_dot(b, b);
    double c = aa - r * r;
    if (bb <= CR_PARALLEL_REL * r * r) return CR_TOI_PARALLEL; /* §7, second case */

    /* Gap at x0: |a - x0 b|^2 - r^2, and its slope -2 a.b + 2 x0 b.b. */
    cr_vec3 a0 = cr_v3_madd(a, b, -x0);
    if (cr_v3_dot(a0, a0) - r * r <= 0.0) {
        /* Already touching or overlapping at x0: an impact now if closing. */
        if (cr_v3_dot(a0, b) > 0.0) {
            *x = x0;
            return CR_TOI_HIT;
        }
        return CR_TOI_MISS;
    }
    double disc = ab * ab - bb * c;
    if (disc < 0.0 || ab <= 0.0) return CR_TOI_MISS; /* §7 first case; or moving apart */
    /* Smaller root of eq. 46, (ab - sqrt(disc)) / bb, in the form without
     * cancellation: c / (ab + sqrt(disc)). */
    double root = c / (ab + sqrt(disc));
    if (root < x0 || root > 1.0) return CR_TOI_MISS; /* §7 third case: x in <y_j, 1> */
    *x = root;
    return CR_TOI_HIT;
}

cr_toi_result cr_toi_quadratic(double c0, double c1, double c2, double t0, double t1, double *t)
{
    double g0 = c0 + (c1 + c2 * t0) * t0;
    if (g0 <= 0.0) {
        if (c1 + 2.0 * c2 * t0 < 0.0) {
            *t = t0;
            return CR_TOI_HIT;
        }
        return CR_TOI_MISS;
    }
    double root;
    if (c2 == 0.0) {
        if (!(c1 < 0.0)) return CR_TOI_MISS;
        root = -c0 / c1;
    } else {
        double disc = c1 * c1 - 4.0 * c2 * c0;
        if (!(disc > 0.0)) return CR_TOI_MISS; /* never crosses: at most grazes */
        double q = -0.5 * (c1 + copysign(sqrt(disc), c1));
        double r1 = q / c2, r2 = c0 / q;
        double lo = fmin(r1, r2), hi = fmax(r1, r2);
        /* g > 0 at t0: the first root after t0 is where it turns negative. */
        if (lo >= t0) root = lo;
        else if (hi >= t0) root = hi;
        else return CR_TOI_MISS;
    }
    if (root < t0) root = t0;
    if (root > t1) return CR_TOI_MISS;
    *t = root;
    return CR_TOI_HIT;
}

int cr_toi_bisect(cr_gap_fn *gap, void *ctx, double t_legal, double t_illegal, double eps, double *t)
{
    int halvings = 0;
    *t = t_legal;
    if (gap(t_legal, ctx) <= eps) return 0;
    for (;;) {
        double mid = 0.5 * (t_legal + t_illegal);
        if (mid == t_legal || mid == t_illegal) break; /* below double resolution */
        double g = gap(mid, ctx);
        ++halvings;
        if (g > eps) {
            t_legal = mid;
        } else if (g > -eps) {
            t_legal = mid; /* seed 001: within eps of the surface on either side */
            break;
        } else {
            t_illegal = mid;
        }
    }
    *t = t_legal;
    return halvings;
}

/* Regula falsi steps before cr_toi_refine falls back to halving. */
#define CR_REFINE_SECANT 16

int cr_toi_refine(cr_gap_fn *gap, void *ctx, double t_legal, double g_legal, double t_illegal, double g_illegal,
                  double eps, double *t)
{
    int evaluations = 0, side = 0;
    *t = t_legal;
    if (g_legal <= eps) return 0;
    for (;;) {
        double mid = 0.5 * (t_legal + t_illegal), next = mid;
        if (mid == t_legal || mid == t_illegal) break; /* below double resolution */
        /* The secant's root; g_legal > 0 >= g_illegal, so it lies in the
         * bracket unless rounding says otherwise. */
        if (evaluations < CR_REFINE_SECANT) next = t_legal + g_legal * (t_illegal - t_legal) / (g_legal - g_illegal);
        if (!(next > t_legal && next < t_illegal)) next = mid;
        double g = gap(next, ctx);
        ++evaluations;
        if (g > eps) {
            t_legal = next;
            g_legal = g;
            /* Illinois: the same end kept twice, its weight halved, so
             * that the other end moves too (superlinear, not linear). */
            if (side == 1) g_illegal *= 0.5;
            side = 1;
        } else if (g > -eps) {
            t_legal = next; /* seed 001: within eps of the surface on either side */
            break;
        } else {
            t_illegal = next;
            g_illegal = g;
            if (side == -1) g_legal *= 0.5;
            side = -1;
        }
    }
    *t = t_legal;
    return evaluations;
}

#define CR_CA_ITERATIONS 512
#define CR_CA_SAMPLES 256

cr_toi_result cr_toi_conservative(cr_gap_fn *gap, void *ctx, double t0, double t1, double max_rate,
                                  double eps, double *t)
{
    double tc = t0, g = gap(t0, ctx);
    if (g <= 0.0) {
        *t = t0;
        return CR_TOI_HIT;
    }
    if (!(max_rate > 0.0)) return CR_TOI_MISS;
    /* Conservative advancement: no root lies within g / max_rate of tc. */
    for (int i = 0; i < CR_CA_ITERATIONS; ++i) {
        if (g <= eps) {
            *t = tc;
            return CR_TOI_HIT;
        }
        double next = tc + g / max_rate;
        if (next > t1) return CR_TOI_MISS;
        double gn = gap(next, ctx);
        if (gn <= 0.0) { /* only by rounding; bracket it */
            cr_toi_bisect(gap, ctx, tc, next, eps, t);
            return CR_TOI_HIT;
        }
        tc = next;
        g = gn;
    }
    /* Slow convergence (a near-graze): scan the rest, then bisect. */
    double h = (t1 - tc) / CR_CA_SAMPLES;
    for (int i = 1; i <= CR_CA_SAMPLES; ++i) {
        double ts = i == CR_CA_SAMPLES ? t1 : tc + h * i;
        if (gap(ts, ctx) <= 0.0) {
            cr_toi_bisect(gap, ctx, ts - h, ts, eps, t);
            return CR_TOI_HIT;
        }
    }
    return CR_TOI_MISS;
}

#define CR_SAMPLED_MAX 64

cr_toi_result cr_toi_sampled(cr_gap_fn *gap, void *ctx, double t0, double t1, int samples, double eps, double *t)
{
    return cr_toi_sampled_from(gap, ctx, t0, gap(t0, ctx), t1, samples, eps, t);
}

cr_toi_result cr_toi_sampled_from(cr_gap_fn *gap, void *ctx, double t0, double g0, double t1, int samples, double eps,
                                  double *t)
{
    if (samples < 2) samples = 2;
    if (samples > CR_SAMPLED_MAX) samples = CR_SAMPLED_MAX;
    double g[CR_SAMPLED_MAX + 1], h = (t1 - t0) / samples;
    g[0] = g0;
    if (g[0] <= 0.0) {
        *t = t0;
        return CR_TOI_HIT;
    }
    for (int k = 1; k <= samples; ++k) {
        double tk = k == samples ? t1 : t0 + h * k;
        g[k] = gap(tk, ctx);
        if (g[k] <= 0.0) {
            cr_toi_refine(gap, ctx, t0 + h * (k - 1), g[k - 1], tk, g[k], eps, t); /* where g[k - 1] was taken */
            return CR_TOI_HIT;
        }
        if (k < 2) continue;
        /* The parabola through samples k-2, k-1, k: its minimum, if inside,
         * may dip below zero between the samples (a graze). */
        double a = 0.5 * (g[k] - 2.0 * g[k - 1] + g[k - 2]); /* per h^2 */
        if (!(a > 0.0)) continue;
        double b = 0.5 * (g[k] - g[k - 2]);                    /* slope at k-1, per h */
        double s = -b / (2.0 * a);                              /* offset from k-1, in h */
        if (s < -1.0 || s > 1.0 || g[k - 1] - b * b / (4.0 * a) > 0.0) continue;
        double tm = t0 + h * (k - 1 + s);
        double gm = gap(tm, ctx);
        if (gm <= 0.0) {
            int left = s < 0.0 ? k - 2 : k - 1;
            cr_toi_refine(gap, ctx, t0 + h * left, g[left], tm, gm, eps, t);
            return CR_TOI_HIT;
        }
    }
    return CR_TOI_MISS;
}

/* The real roots of qa x^2 + qb x + qc into roots (0, 1 or 2 of them, in no
 * particular order; a double root twice), in the form without
 * cancellation; the linear case where qa = 0. */
static int quadratic_roots(double qa, double qb, double qc, double roots[2])
{
    int n = 0;
    if (qa == 0.0) {
        if (qb != 0.0) roots[n++] = -qc / qb;
    } else {
        double disc = qb * qb - 4.0 * qa * qc;
        if (disc >= 0.0) {
            double q = -0.5 * (qb + copysign(sqrt(disc), qb));
            if (q != 0.0) roots[n++] = qc / q;
            roots[n++] = q / qa;
        }
    }
    return n;
}

/* ---- two spheres on quadratic paths (cr_toi_quadratic_paths) ------------- */

/* A polynomial c[0] + c[1] s + ... + c[n] s^n and its slope, by Horner. */
static double poly_at(const double *c, int n, double s, double *slope)
{
    double p = c[n], dp = 0.0;
    for (int k = n - 1; k >= 0; --k) {
        dp = dp * s + p;
        p = p * s + c[k];
    }
    *slope = dp;
    return p;
}

/* Iterations of poly_root; halving alone brings a step to double
 * resolution in about 60. */
#define CR_POLY_ROOT_ITERATIONS 100

/* A root of the polynomial in [lo, hi], where its values at the ends differ
 * in sign (p_lo: the value at lo, nonzero): safeguarded Newton, halving
 * where Newton leaves the bracket. Returns the time where |p| <= p_tol or
 * the Newton step fell to s_tol, else lo's end once the bracket is below
 * s_tol (or double resolution): lo's side is the legal one for the gap. */
static double poly_root(const double *c, int n, double lo, double p_lo, double hi, double p_tol, double s_tol)
{
    const bool lo_positive = p_lo > 0.0;
    double x = lo, slope, p = p_lo;
    poly_at(c, n, x, &slope);
    for (int k = 0; k < CR_POLY_ROOT_ITERATIONS; ++k) {
        double mid = 0.5 * (lo + hi);
        if (hi - lo <= s_tol || mid == lo || mid == hi) break;
        double next = slope != 0.0 ? x - p / slope : mid;
        if (!(next > lo && next < hi)) next = mid;
        double step = fabs(next - x);
        x = next;
        p = poly_at(c, n, x, &slope);
        if (fabs(p) <= p_tol) return x;
        if ((p > 0.0) == lo_positive) lo = x;
        else hi = x;
        if (step <= s_tol) return x; /* converged (from either side) */
    }
    return lo;
}

cr_toi_result cr_toi_quadratic_paths(cr_vec3 d0, cr_vec3 dv, cr_vec3 da, double r, double span, double eps, double *s)
{
    double dist0 = cr_v3_len(d0);
    if (dist0 - r <= eps) { /* within the tolerance: a contact now */
        *s = 0.0;
        return CR_TOI_HIT;
    }
    if (!(span > 0.0)) return CR_TOI_MISS;
    /* A lower bound of the distance: the relative linear motion's closest
     * approach on [0, span] less the most the relative acceleration moves
     * them apart from it (|da| span^2 / 2). Most candidate pairs pass by
     * far more than that: one square root, no polynomial. */
    double vv = cr_v3_dot(dv, dv), closest = dist0;
    if (vv > 0.0) {
        double sl = -cr_v3_dot(d0, dv) / vv;
        sl = sl < 0.0 ? 0.0 : sl > span ? span : sl;
        closest = cr_v3_len(cr_v3_madd(d0, dv, sl));
    }
    if (closest - 0.5 * cr_v3_len(da) * span * span - r > 0.5 * eps) return CR_TOI_MISS;
    /* f(s) = |d(s)|^2 - rho^2 for d(s) = d0 + dv s + da s^2 / 2: a quartic,
     * aimed at gap eps / 2 (rho = r + eps / 2), the middle of the
     * tolerance, so that a graze that touches (gap 0) crosses it twice
     * instead of meeting it in a double root. */
    double rho = r + 0.5 * eps;
    double f[5] = {cr_v3_dot(d0, d0) - rho * rho, 2.0 * cr_v3_dot(d0, dv), vv + cr_v3_dot(d0, da), cr_v3_dot(dv, da),
                   0.25 * cr_v3_dot(da, da)};
    double df[4] = {f[1], 2.0 * f[2], 3.0 * f[3], 4.0 * f[4]};
    /* f'' = 2 f[2] + 6 f[3] s + 12 f[4] s^2: its roots split [0, span] into
     * pieces on which f' is monotone, each holding at most one root of f'
     * (a critical point of f), found by bracketing. */
    double edges[4], z[2];
    int ne = 0, nz = quadratic_roots(12.0 * f[4], 6.0 * f[3], 2.0 * f[2], z);
    edges[ne++] = 0.0;
    if (nz == 2 && z[1] < z[0]) {
        double tmp = z[0];
        z[0] = z[1];
        z[1] = tmp;
    }
    for (int k = 0; k < nz; ++k)
        if (z[k] > edges[ne - 1] && z[k] < span) edges[ne++] = z[k];
    edges[ne++] = span;
    /* The critical points of f in (0, span), in order, then span: f is
     * monotone between neighbours, so the first whose value is <= 0 ends
     * the piece that holds the first root. Their precision matters only
     * where the gap's least value is within rounding of eps / 2 (graze or
     * miss) or of 0 (contact or graze), either answer right there. */
    double ends[4], slope, s_tol = 1e-12 * span;
    int nends = 0;
    double q_lo = poly_at(df, 3, edges[0], &slope);
    for (int k = 0; k + 1 < ne; ++k) {
        double q_hi = poly_at(df, 3, edges[k + 1], &slope);
        if ((q_lo <= 0.0) != (q_hi <= 0.0)) /* f' changes sign: once, at a zero or inside */
            ends[nends++] = q_lo == 0.0 ? edges[k] : poly_root(df, 3, edges[k], q_lo, edges[k + 1], 0.0, s_tol);
        q_lo = q_hi;
    }
    ends[nends++] = span;
    /* A contact is a gap that reaches 0 (f <= r^2 - rho^2); its time is
     * where the gap last came down to eps / 2 before it, in the piece
     * (lo, hi) whose ends' values have signs > 0 >= (within eps / 4 of the
     * aim: |f| <= (eps / 4) 2 rho, the gap in [eps / 4, 3 eps / 4]). A gap
     * that comes down to eps / 2 but not to 0 is a graze within the
     * tolerance, the first such piece's time. */
    double touch = r * r - rho * rho, prev = 0.0, f_prev = f[0], lo = 0.0, f_lo = f[0], hi = -1.0;
    double graze_lo = 0.0, graze_f_lo = 0.0, graze_hi = -1.0;
    for (int k = 0; k < nends; ++k) {
        double f_k = poly_at(f, 4, ends[k], &slope);
        if (f_prev > 0.0 && f_k <= 0.0) {
            lo = prev;
            f_lo = f_prev;
            hi = ends[k];
            if (graze_hi < 0.0) {
                graze_lo = lo;
                graze_f_lo = f_lo;
                graze_hi = hi;
            }
        }
        if (f_k <= touch) {
            *s = poly_root(f, 4, lo, f_lo, hi, 0.5 * eps * rho, 0.0);
            return CR_TOI_HIT;
        }
        prev = ends[k];
        f_prev = f_k;
    }
    if (graze_hi >= 0.0) {
        *s = poly_root(f, 4, graze_lo, graze_f_lo, graze_hi, 0.5 * eps * rho, 0.0);
        return CR_TOI_GRAZE;
    }
    return CR_TOI_MISS;
}

/* ---- landing checks with the gap's slope (cr_toi_hermite) ---------------- */

/* A sample of the gap: its time, value and slope. */
typedef struct knot {
    double t, g, s;
} knot;

static knot knot_at(cr_gap_slope_fn *gap, void *ctx, double t)
{
    knot k = {t, 0.0, 0.0};
    k.g = gap(t, ctx, &k.s);
    return k;
}

/* The cubic Hermite between knots a and b on x = (t - a.t) / h:
 * p(x) = a.g + d0 x + c2 x^2 + c3 x^3 (values and slopes at both ends). */
typedef struct hermite {
    double g0, d0, c2, c3;
} hermite;

static hermite hermite_of(knot a, knot b)
{
    double h = b.t - a.t, d0 = a.s * h, d1 = b.s * h, D = b.g - a.g;
    return (hermite){a.g, d0, 3.0 * D - 2.0 * d0 - d1, d0 + d1 - 2.0 * D};
}

static double hermite_value(hermite p, double x) { return p.g0 + x * (p.d0 + x * (p.c2 + x * p.c3)); }

/* Iterations on the cubic itself (no gap evaluations) for its root. */
#define CR_HERMITE_ROOT_ITERATIONS 40

/* Where the cubic through knots a (gap > level) and b (gap <= level)
 * meets level: safeguarded Newton on the polynomial, from the secant's
 * root. */
static double hermite_root(knot a, knot b, double level)
{
    hermite p = hermite_of(a, b);
    double lo = 0.0, hi = 1.0, x = (a.g - level) / (a.g - b.g);
    for (int k = 0; k < CR_HERMITE_ROOT_ITERATIONS; ++k) {
        double v = hermite_value(p, x) - level, slope = p.d0 + x * (2.0 * p.c2 + 3.0 * x * p.c3);
        if (v > 0.0) lo = x;
        else hi = x;
        double next = slope != 0.0 ? x - v / slope : NAN;
        if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
        if (fabs(next - x) <= 1e-15) break;
        x = next;
    }
    return a.t + (b.t - a.t) * x;
}

/* Steps by the cubic's root before refine_slope falls back to
 * halving only. */
#define CR_REFINE_CUBIC 8

/* cr_toi_refine's bracket and stopping rule with the slopes at hand: the
 * next time is where the cubic Hermite through the bracket's ends (their
 * values and slopes) meets eps / 2, the midpoint where that falls outside
 * it: a smooth gap is met within the tolerance in 1-2 evaluations from a
 * sample interval, where Illinois takes about 4, and on its legal side
 * (seed 001: not past the contact). */
static void refine_slope(cr_gap_slope_fn *gap, void *ctx, knot legal, knot illegal, double eps, double *t)
{
    int evaluations = 0;
    *t = legal.t;
    if (legal.g <= eps) return;
    for (;;) {
        double mid = 0.5 * (legal.t + illegal.t), next = mid;
        if (mid == legal.t || mid == illegal.t) break; /* below double resolution */
        if (evaluations < CR_REFINE_CUBIC) next = hermite_root(legal, illegal, 0.5 * eps);
        if (!(next > legal.t && next < illegal.t)) next = mid;
        knot k = knot_at(gap, ctx, next);
        ++evaluations;
        if (k.g > eps) {
            legal = k;
        } else if (k.g > -eps) {
            legal.t = next; /* seed 001: within eps of the surface on either side */
            break;
        } else {
            illegal = k;
        }
    }
    *t = legal.t;
}

/* Halvings of a sample interval that the dip test may make. */
#define CR_HERMITE_DEPTH 4

/* The cubic Hermite between knots a and b (values and slopes): does it, or
 * its own error, reach zero between them? Returns the time to look at (its
 * interior minimum, or the midpoint when the cubic departs from a parabola
 * by as much as the smaller gap: slopes that do not fit the values), or a
 * NaN when the interval is clear. On x = (t - a.t) / h:
 * p(x) = a.g + d0 x + c2 x^2 + c3 x^3. The gap along a step is nearly a
 * parabola (a path under constant acceleration above a surface that bends
 * little within it), so c3, the cubic's departure from one, is the margin. */
static double hermite_dip(knot a, knot b)
{
    double h = b.t - a.t;
    hermite p = hermite_of(a, b);
    double d0 = p.d0, c2 = p.c2, c3 = p.c3, margin = fabs(c3);
    /* p'(x) = d0 + 2 c2 x + 3 c3 x^2: its roots in (0, 1), the minima among them. */
    double roots[2];
    int n = quadratic_roots(3.0 * c3, 2.0 * c2, d0, roots);
    double best = INFINITY, at = NAN;
    for (int k = 0; k < n; ++k) {
        double x = roots[k];
        if (!(x > 0.0 && x < 1.0) || 2.0 * c2 + 6.0 * c3 * x < 0.0) continue; /* a maximum */
        double px = hermite_value(p, x);
        if (px < best) {
            best = px;
            at = a.t + h * x;
        }
    }
    if (best <= margin) return at;
    if (margin >= fmin(a.g, b.g)) return a.t + 0.5 * h;
    return NAN;
}

/* Looks between knots a and b (both gaps > 0) for a dip below zero; on one,
 * refines the contact into *t and returns 1. */
static int find_dip(cr_gap_slope_fn *gap, void *ctx, knot a, knot b, int depth, double eps, double *t)
{
    double tm = hermite_dip(a, b);
    if (!(tm > a.t && tm < b.t) || depth == 0) return 0;
    knot m = knot_at(gap, ctx, tm);
    if (m.g <= 0.0) {
        refine_slope(gap, ctx, a, m, eps, t);
        return 1;
    }
    return find_dip(gap, ctx, a, m, depth - 1, eps, t) || find_dip(gap, ctx, m, b, depth - 1, eps, t);
}

cr_toi_result cr_toi_hermite(cr_gap_slope_fn *gap, void *ctx, double t0, double g0, double s0, double t1, int samples,
                             double eps, double *t)
{
    if (samples < 1) samples = 1;
    if (samples > CR_SAMPLED_MAX) samples = CR_SAMPLED_MAX;
    if (g0 <= 0.0) {
        *t = t0;
        return CR_TOI_HIT;
    }
    double h = (t1 - t0) / samples;
    knot a = {t0, g0, s0};
    for (int k = 1; k <= samples; ++k) {
        knot b = knot_at(gap, ctx, k == samples ? t1 : t0 + h * k);
        if (b.g <= 0.0) {
            refine_slope(gap, ctx, a, b, eps, t);
            return CR_TOI_HIT;
        }
        if (find_dip(gap, ctx, a, b, CR_HERMITE_DEPTH, eps, t)) return CR_TOI_HIT;
        a = b;
    }
    return CR_TOI_MISS;
}
