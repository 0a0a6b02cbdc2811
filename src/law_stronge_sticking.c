/* Sticking at u_x = u_y = 0 (seed 002 §3.5-§3.10).
 *
 * Stable sticking (§3.5, §3.6): friction can hold u_t = 0 when
 *   (K^-1)_13^2 + (K^-1)_23^2 <= mu^2 (K^-1)_33^2,
 * and then du/dp_z = (0, 0, 1/(K^-1)_33), dp/dp_z = (K^-1)_{.3} / (K^-1)_33.
 * Unstable sticking (§3.7): u_t leaves the origin along the unique diverging
 * ray of constant sliding (§3.10), found from the quartic of §3.8 in
 * p = tan(theta/2); theta = pi is a root exactly when a_4 = 0. Along it
 * du/dp_z = K (-mu cos psi, -mu sin psi, 1) is constant (§3.9), so the rest of
 * the collision is a closed form (law_stronge_phase.c).
 *
 * Robustness: the closed-form quartic roots are polished by Newton's method on
 * eq. 7 itself; if rounding hides the diverging root (a near-double root), the
 * equivalent problem of §3.10 — the unique lambda > 0 with
 * |(lambda 1 + mu M)^-1 (K13, K23)| = 1 — is solved by bisection instead.
 */
#include <math.h>

#include "law_stronge_internal.h"

static const double PI = 3.141592653589793238463;
static const double TWO_PI = 6.283185307179586476925;

/* Eq. 7 and its derivative in theta. */
/* Eq. 7 at (c, s) = (cos theta, sin theta). */
static double ray_eq_cs(cr_mat3 K, double mu, double c, double s)
{
    double c2 = c * c - s * s, s2 = 2.0 * s * c;
    return -mu * K.m[0][1] * c2 + 0.5 * mu * (K.m[0][0] - K.m[1][1]) * s2 + K.m[1][2] * c - K.m[0][2] * s;
}

double stronge_ray_eq(cr_mat3 K, double mu, double th, double *deriv)
{
    double c = cos(th), s = sin(th), c2 = c * c - s * s, s2 = 2.0 * s * c;
    double k11 = K.m[0][0], k22 = K.m[1][1], k12 = K.m[0][1], k13 = K.m[0][2], k23 = K.m[1][2];
    if (deriv)
        *deriv = 2.0 * mu * k12 * s2 + mu * (k11 - k22) * c2 - k23 * s - k13 * c;
    return -mu * k12 * c2 + 0.5 * mu * (k11 - k22) * s2 + k23 * c - k13 * s;
}

double cr_stronge_ray_divergence(cr_mat3 K, double mu, double th)
{
    double c = cos(th), s = sin(th);
    return -mu * K.m[0][0] * c * c - mu * K.m[1][1] * s * s - 2.0 * mu * K.m[0][1] * s * c +
           K.m[0][2] * c + K.m[1][2] * s;
}

static double wrap_angle(double th)
{
    th = fmod(th, TWO_PI);
    if (th < 0.0) th += TWO_PI;
    if (th >= TWO_PI) th -= TWO_PI;
    return th;
}

static double polish_angle(cr_mat3 K, double mu, double th)
{
    double d, f = stronge_ray_eq(K, mu, th, &d);
    for (int it = 0; it < 8 && f != 0.0; ++it) {
        if (d == 0.0 || !isfinite(d)) break;
        double tn = th - f / d, dn;
        double fn = stronge_ray_eq(K, mu, tn, &dn);
        if (!(fabs(fn) < fabs(f))) break;
        th = tn;
        f = fn;
        d = dn;
    }
    return th;
}

/* Seed 002 §3.8: the coefficients a_0..a_4 of the quartic in p = tan(theta/2). */
static void ray_quartic(double k11, double k22, double k12, double k13, double k23, double mu, double a[5])
{
    a[0] = mu * k12 - k23;
    a[1] = 2.0 * k13 + 2.0 * mu * k22 - 2.0 * mu * k11;
    a[2] = -6.0 * mu * k12;
    a[3] = 2.0 * k13 + 2.0 * mu * k11 - 2.0 * mu * k22;
    a[4] = mu * k12 + k23;
}

int cr_stronge_sliding_rays(cr_mat3 K, double mu, double theta[4])
{
    double k11 = K.m[0][0], k22 = K.m[1][1], k12 = K.m[0][1], k13 = K.m[0][2], k23 = K.m[1][2];
    double a[5];
    ray_quartic(k11, k22, k12, k13, k23, mu, a);
    double amax = 0.0;
    for (int i = 0; i < 5; ++i) amax = fmax(amax, fabs(a[i]));
    if (amax == 0.0 || !isfinite(amax)) return 0; /* every direction is a ray, or garbage */
    double fscale = mu * (fabs(k11) + fabs(k22) + 2.0 * fabs(k12)) + fabs(k13) + fabs(k23);

    double cand[4 + 1 + 72];
    int nc = 0;
    /* theta = pi is a root when a_4 = 0 (a_4 = -eq. 7 at pi); Newton on eq. 7
     * moves it onto the true root when a_4 is only nearly 0. */
    if (fabs(a[4]) <= 1e-9 * amax) cand[nc++] = PI;
    /* A small a_4 also means a huge root p, which ruins the conditioning of the
     * closed form for the other roots (Ferrari loses them). Then solve the
     * same quartic in a tangent frame turned by phi, p = tan((theta - phi)/2),
     * with phi chosen so that theta = phi + pi is far from every root. With
     * phi = 0 this is the seed's equation. */
    double phi = 0.0;
    if (fabs(a[4]) < 0.05 * amax) {
        double best = fabs(a[4]);
        for (int k = 1; k < 8; ++k) {
            double f = fabs(stronge_ray_eq(K, mu, PI + k * (PI / 4.0), NULL));
            if (f > best) {
                best = f;
                phi = k * (PI / 4.0);
            }
        }
    }
    if (phi != 0.0) {
        /* K' = R^T K R, R the rotation by phi about the normal. */
        double c = cos(phi), s = sin(phi);
        double r11 = c * c * k11 + 2.0 * c * s * k12 + s * s * k22;
        double r22 = s * s * k11 - 2.0 * c * s * k12 + c * c * k22;
        double r12 = (c * c - s * s) * k12 + c * s * (k22 - k11);
        double r13 = c * k13 + s * k23, r23 = -s * k13 + c * k23;
        ray_quartic(r11, r22, r12, r13, r23, mu, a);
    }
    double p[4];
    int np = cr_quartic_real_roots(a, p);
    for (int i = 0; i < np; ++i) cand[nc++] = phi + 2.0 * atan(p[i]);

    for (int i = 0; i < nc; ++i) cand[i] = wrap_angle(polish_angle(K, mu, cand[i]));
    /* Belt and braces: eq. 7 is a trigonometric polynomial of degree 2; a sign
     * change between samples that no root found so far explains is a root the
     * closed form lost to rounding (a near-double root). The samples turn
     * (cos, sin) by a fixed angle: no trigonometric call per sample. */
    const int N = 72;
    const double cd = cos(TWO_PI / N), sd = sin(TWO_PI / N);
    double c = 1.0, s = 0.0, f_prev = ray_eq_cs(K, mu, 1.0, 0.0);
    int n_known = nc;
    for (int k = 1; k <= N; ++k) {
        double t1 = k * (TWO_PI / N), t0 = t1 - TWO_PI / N;
        double cn = c * cd - s * sd;
        s = s * cd + c * sd;
        c = cn;
        double f = ray_eq_cs(K, mu, c, s);
        if ((f > 0.0) != (f_prev > 0.0)) {
            bool known = false;
            for (int i = 0; i < n_known && !known; ++i)
                if (cand[i] >= t0 - 1e-9 && cand[i] <= t1 + 1e-9) known = true;
            if (!known) {
                double lo = t0, hi = t1, flo = f_prev;
                for (int it = 0; it < 60; ++it) {
                    double mid = 0.5 * (lo + hi), fm = stronge_ray_eq(K, mu, mid, NULL);
                    if ((fm > 0.0) == (flo > 0.0)) {
                        lo = mid;
                        flo = fm;
                    } else {
                        hi = mid;
                    }
                }
                cand[nc++] = 0.5 * (lo + hi);
            }
        }
        f_prev = f;
    }

    int n = 0;
    for (int i = 0; i < nc; ++i) {
        double th = wrap_angle(polish_angle(K, mu, cand[i]));
        if (!(fabs(stronge_ray_eq(K, mu, th, NULL)) <= 1e-8 * fscale)) continue; /* spurious */
        bool dup = false;
        for (int j = 0; j < n; ++j) {
            double d = fabs(theta[j] - th);
            if (d < 1e-9 || TWO_PI - d < 1e-9) dup = true;
        }
        if (!dup && n < 4) theta[n++] = th;
    }
    for (int i = 1; i < n; ++i) {
        double x = theta[i];
        int j = i - 1;
        while (j >= 0 && theta[j] > x) {
            theta[j + 1] = theta[j];
            --j;
        }
        theta[j + 1] = x;
    }
    return n;
}

static bool stable_from_kinv(cr_mat3 Ki, double mu)
{
    double a = Ki.m[0][2], b = Ki.m[1][2], c = Ki.m[2][2];
    return a * a + b * b <= mu * mu * c * c;
}

bool cr_stronge_sticking_is_stable(cr_mat3 K, double mu)
{
    cr_mat3 Ki;
    if (!stronge_spd_inverse(K, &Ki)) return false;
    return stable_from_kinv(Ki, mu);
}

/* Seed 002 §3.10: |N_lambda^-1 (K13, K23)| = 1 has a unique root lambda > 0
 * in the unstable case (> 1 at lambda = 0, < 1 for large lambda). */
static bool diverging_ray_lambda(cr_mat3 K, double mu, double *psi)
{
    double k13 = K.m[0][2], k23 = K.m[1][2];
    double kn = hypot(k13, k23);
    if (!(kn > 0.0)) return false;
    double lo = 0.0, hi = 2.0 * kn, vx = 0.0, vy = 0.0;
    for (int it = 0; it < 200; ++it) {
        double lam = 0.5 * (lo + hi);
        double n11 = lam + mu * K.m[0][0], n22 = lam + mu * K.m[1][1], n12 = mu * K.m[0][1];
        double det = n11 * n22 - n12 * n12; /* eq. 10 */
        vx = (n22 * k13 - n12 * k23) / det;
        vy = (-n12 * k13 + n11 * k23) / det;
        if (vx * vx + vy * vy > 1.0)
            lo = lam;
        else
            hi = lam;
        if (hi - lo <= 1e-16 * hi) break;
    }
    if (!(vx * vx + vy * vy > 0.0)) return false;
    *psi = wrap_angle(atan2(vy, vx));
    return true;
}

/* The diverging ray among the rays th[0..n) (§3.8), or the §3.10 fallback. */
static bool pick_diverging(cr_mat3 K, double mu, const double *th, int n, double *psi)
{
    double best = 0.0;
    int bi = -1;
    for (int i = 0; i < n; ++i) {
        double d = cr_stronge_ray_divergence(K, mu, th[i]);
        if (d > best) {
            best = d;
            bi = i;
        }
    }
    if (bi >= 0) {
        *psi = th[bi];
        return true;
    }
    return diverging_ray_lambda(K, mu, psi);
}

cr_status cr_stronge_diverging_ray(cr_mat3 K, double mu, double *psi)
{
    if (cr_stronge_sticking_is_stable(K, mu)) return CR_ERR_INVALID_ARGUMENT;
    double th[4];
    int n = cr_stronge_sliding_rays(K, mu, th);
    return pick_diverging(K, mu, th, n, psi) ? CR_OK : CR_ERR_NON_FINITE;
}

cr_status stronge_resolve_sticking(const stronge_problem *pb, stronge_state *s, char *msg,
                                   size_t msg_size)
{
    const cr_mat3 *Ki = &pb->Kinv;
    stronge_trace(pb, CR_STRONGE_STICK, s->p, s->u);
    if (stable_from_kinv(pb->Kinv, pb->mu)) {
        /* Stable sticking (§3.6): u_t stays 0, du_z/dp_z = 1/(K^-1)_33 > 0
         * (eq. 5), dp/dp_z = (K^-1)_{.3} / (K^-1)_33. */
        s->sticking = CR_STICKING_STABLE;
        double k33i = Ki->m[2][2];
        cr_vec3 q = cr_v3(Ki->m[0][2] / k33i, Ki->m[1][2] / k33i, 1.0);
        /* k = K q is (0, 0, 1/(K^-1)_33) but for rounding; taking the product
         * keeps u = u0 + K p consistent when K is ill-conditioned. */
        cr_vec3 k = cr_m3_mul_v(pb->K, q);
        if (!(k.z > 0.0)) {
            stronge_msg(msg, msg_size, "stronge: du_z/dp_z = %.17g <= 0 in stable sticking", k.z);
            return CR_ERR_NON_FINITE;
        }
        return stronge_ray_advance(pb, s, q, k, INFINITY, msg, msg_size);
    }
    /* Unstable sticking (§3.7-§3.9): leave along the diverging ray psi. */
    s->sticking = CR_STICKING_UNSTABLE;
    double psi = 0.0;
    if (!pick_diverging(pb->K, pb->mu, pb->all_rays, pb->nall, &psi)) {
        stronge_msg(msg, msg_size, "stronge: no diverging ray found for unstable sticking");
        return CR_ERR_NON_FINITE;
    }
    cr_vec3 q = cr_v3(-pb->mu * cos(psi), -pb->mu * sin(psi), 1.0);
    cr_vec3 k = cr_m3_mul_v(pb->K, q);
    if (!(k.z > 0.0)) {
        stronge_msg(msg, msg_size, "stronge: du_z/dp_z = %.17g <= 0 on the diverging ray", k.z);
        return CR_ERR_NON_FINITE;
    }
    return stronge_ray_advance(pb, s, q, k, INFINITY, msg, msg_size);
}
