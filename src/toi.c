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
