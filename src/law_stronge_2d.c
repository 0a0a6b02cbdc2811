/* The `stronge` law in 2D: the closed-form algorithm of seed 002 §5.2.
 *
 * In the plane the tangential velocity is the scalar u_x, so every trajectory
 * lies on a ray of constant sliding (u_x > 0 or u_x < 0) and the whole
 * collision is a short sequence of closed forms, no integration loop:
 *   step 3  which ray: k = K (-mu sign(u_x), 1) = du/dp_y;
 *   step 4  converging ray (k_x opposite to u_x): reach u_x = 0 or end first;
 *   step 5  sticking: stable when |K12| <= mu K11 (§3.5 in 2D);
 *   step 6  stable: k = (0, 1/(K^-1)_22);
 *   step 7  unstable: the diverging ray is K(-mu, 1) if its k_x > 0, else K(mu, 1);
 *   step 8  on a diverging/stationary ray (or stuck): compression to u_y = 0,
 *           then u_y = sqrt(2 k_y (-e^2 W_c - W_d) + u_y^2).
 * Besides u (which drives the branches, as in the seed) the impulse is
 * accumulated piece by piece, dp = q dp_y with q = dp/dp_y on that piece,
 * instead of step 9's p = K^-1 (u - u0): it keeps |p_x| <= mu p_y to rounding
 * and needs no inverse of a possibly ill-conditioned K. The reported u is the
 * seed's u, which equals u0 + K p to rounding.
 */
#include <math.h>
#include <string.h>

#include "law_stronge_internal.h"

static cr_status check_k2(const double K[2][2], char *msg, size_t msg_size)
{
    double kmax = 0.0;
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) {
            if (!isfinite(K[i][j])) {
                stronge_msg(msg, msg_size, "K[%d][%d] is not finite (%.17g)", i, j, K[i][j]);
                return CR_ERR_INVALID_ARGUMENT;
            }
            kmax = fmax(kmax, fabs(K[i][j]));
        }
    if (fabs(K[0][1] - K[1][0]) > 1e-9 * kmax) {
        stronge_msg(msg, msg_size, "K is not symmetric: K[0][1] = %.17g but K[1][0] = %.17g", K[0][1],
                    K[1][0]);
        return CR_ERR_INVALID_ARGUMENT;
    }
    double dmax = fmax(K[0][0], K[1][1]), k12 = 0.5 * (K[0][1] + K[1][0]);
    /* k12 (k12 / piv0), not k12^2 / piv0: with subnormal entries (1e-310)
     * the square underflows to 0 and an indefinite K passed. */
    double piv0 = K[0][0], piv1 = piv0 > 0.0 ? K[1][1] - k12 * (k12 / piv0) : 0.0;
    if (!(piv0 > 1e-12 * dmax) || !(piv1 > 1e-12 * dmax)) {
        stronge_msg(msg, msg_size,
                    "K is not positive definite, or too ill-conditioned (Cholesky pivots %.17g, %.17g, "
                    "not above 1e-12 times the largest diagonal entry %.17g)",
                    piv0, piv1, dmax);
        return CR_ERR_INVALID_ARGUMENT;
    }
    return CR_OK;
}

/* Closed-form state of the 2D collision. */
typedef struct s2 {
    double K[2][2];
    double e, mu;
    double ux, uy;   /* current u (tangent, normal) */
    double px, py;   /* impulse so far */
    double wc, wd;
} s2;

/* Move along a piece with du/dp_y = (kx, ky), dp/dp_y = (qx, 1), by dpy. */
static void s2_move(s2 *s, double kx, double ky, double qx, double dpy)
{
    s->ux += kx * dpy;
    s->uy += ky * dpy;
    s->px += qx * dpy;
    s->py += dpy;
}

/* Step 8: on a diverging or stationary ray, or stuck; k_y > 0 (§3.9). */
static void s2_finish(s2 *s, double kx, double ky, double qx)
{
    double e2 = s->e * s->e;
    if (s->uy < 0.0) {
        /* 8b: compression to u_y = 0. */
        s->wc += -s->uy * s->uy / (2.0 * ky);
        s2_move(s, kx, ky, qx, -s->uy / ky);
        s->uy = 0.0;
    }
    /* 8c: decompression until W_d = -e^2 W_c. */
    double need = fmax(-e2 * s->wc - s->wd, 0.0);
    double uy_end = sqrt(2.0 * ky * need + s->uy * s->uy);
    double dpy = (s->uy + uy_end) > 0.0 ? 2.0 * need / (s->uy + uy_end) : 0.0;
    s2_move(s, kx, ky, qx, dpy);
    s->uy = uy_end;
    s->wd = -e2 * s->wc;
}

cr_status cr_law_stronge_2d(const double K[2][2], const double u0[2], double e, double mu,
                            cr_stronge_result *out, char *msg, size_t msg_size)
{
    cr_status st;
    if ((st = stronge_start(out, msg, msg_size)) != CR_OK) return st;
    if (!K || !u0) {
        stronge_msg(msg, msg_size, "K or u0 is NULL");
        return CR_ERR_INVALID_ARGUMENT;
    }
    if ((st = stronge_check_coefficients(e, mu, msg, msg_size)) != CR_OK) return st;
    for (int i = 0; i < 2; ++i)
        if (!isfinite(u0[i])) {
            stronge_msg(msg, msg_size, "u0[%d] is not finite (%.17g)", i, u0[i]);
            return CR_ERR_INVALID_ARGUMENT;
        }
    if ((st = check_k2(K, msg, msg_size)) != CR_OK) return st;

    out->u = cr_v3(u0[0], u0[1], 0.0);
    if (u0[1] >= 0.0) return CR_OK; /* not approaching (§5.2 step 2) */

    s2 s;
    memset(&s, 0, sizeof s);
    double k12 = 0.5 * (K[0][1] + K[1][0]);
    s.K[0][0] = K[0][0];
    s.K[1][1] = K[1][1];
    s.K[0][1] = s.K[1][0] = k12;
    s.e = e;
    s.mu = mu;
    s.ux = u0[0];
    s.uy = u0[1];
    /* |u_x| at or below this is sticking: the rule of the 3D law, so that the
     * two agree on planar problems. */
    double stick_tol = 1e-11 * hypot(u0[0], u0[1]);
    cr_sticking sticking = CR_STICKING_NONE;

    if (mu == 0.0) {
        /* No friction: one ray, du/dp_y = K (0, 1); Newton's law. */
        s2_finish(&s, k12, s.K[1][1], 0.0);
    } else {
        bool stuck = fabs(s.ux) <= stick_tol; /* step 3a */
        if (!stuck) {
            /* Step 3b/3c: friction opposes u_x. */
            double sg = s.ux > 0.0 ? 1.0 : -1.0, qx = -mu * sg;
            double kx = s.K[0][0] * qx + k12, ky = k12 * qx + s.K[1][1];
            if (kx * sg >= 0.0) {
                s2_finish(&s, kx, ky, qx); /* step 8: diverging or stationary */
            } else {
                /* Step 4: converging; u_origin is u_y where u_x reaches 0. */
                double dpy = -s.ux / kx;
                double u_origin = s.uy + ky * dpy;
                if (u_origin <= 0.0) {
                    /* 4b: origin before decompression. */
                    s.wc = -s.ux * s.uy / kx + ky * s.ux * s.ux / (2.0 * kx * kx);
                    s2_move(&s, kx, ky, qx, dpy);
                    s.ux = 0.0;
                    s.uy = u_origin;
                    stuck = true;
                } else if (u_origin < -e * s.uy) {
                    /* 4c: origin during decompression, before it ends. */
                    s.wc = -s.uy * s.uy / (2.0 * ky);
                    s.wd = u_origin * u_origin / (2.0 * ky);
                    s2_move(&s, kx, ky, qx, dpy);
                    s.ux = 0.0;
                    s.uy = u_origin;
                    stuck = true;
                } else {
                    /* 4d: decompression ends first: Newton on this ray. */
                    double d = -(1.0 + e) * s.uy / ky;
                    s.wc = -s.uy * s.uy / (2.0 * ky);
                    s2_move(&s, kx, ky, qx, d);
                    s.uy = -e * u0[1];
                    s.wd = -e * e * s.wc;
                }
            }
        }
        if (stuck) {
            if (fabs(k12) <= mu * s.K[0][0]) {
                /* Steps 5-6: stable sticking, k = (0, 1/(K^-1)_22), taken as
                 * K q with q = dp/dp_y = ((K^-1)_12 / (K^-1)_22, 1), which is
                 * the same but keeps u and p consistent to rounding. */
                sticking = CR_STICKING_STABLE;
                double qx = -k12 / s.K[0][0]; /* (K^-1)_12 / (K^-1)_22 */
                s2_finish(&s, s.K[0][0] * qx + k12, k12 * qx + s.K[1][1], qx);
            } else {
                /* Step 7: unstable sticking, leave along the diverging ray. */
                sticking = CR_STICKING_UNSTABLE;
                double qx = -mu;
                double kx = s.K[0][0] * qx + k12, ky = k12 * qx + s.K[1][1];
                if (!(kx > 0.0)) {
                    qx = mu;
                    kx = s.K[0][0] * qx + k12;
                    ky = k12 * qx + s.K[1][1];
                }
                s2_finish(&s, kx, ky, qx);
            }
        }
    }

    out->impulse = cr_v3(s.px, s.py, 0.0);
    out->u = cr_v3(s.ux, s.uy, 0.0);
    out->sticking = sticking;
    out->work_compression = s.wc;
    out->work_decompression = s.wd;
    out->steps = 0;
    /* The works too, as in 3D: |u0| near 1e154 overflows u^2 first. */
    if (!cr_v3_isfinite(out->impulse) || !cr_v3_isfinite(out->u) || !isfinite(s.wc) || !isfinite(s.wd)) {
        memset(out, 0, sizeof *out);
        stronge_msg(msg, msg_size, "stronge 2d: the impulse is not finite");
        return CR_ERR_NON_FINITE;
    }
    return CR_OK;
}

/* ---- 2D bodies ----------------------------------------------------------------- */

cr_contact_side_2d cr_contact_side_2d_immovable(void)
{
    cr_contact_side_2d s;
    memset(&s, 0, sizeof s);
    return s;
}

void cr_collision_matrix_2d(const cr_contact_side_2d *a, const cr_contact_side_2d *b, double K[2][2])
{
    const cr_contact_side_2d *sd[2] = {a, b};
    K[0][0] = K[1][1] = a->inv_mass + b->inv_mass;
    K[0][1] = K[1][0] = 0.0;
    for (int i = 0; i < 2; ++i) {
        double rx = sd[i]->r[0], ry = sd[i]->r[1], ii = sd[i]->inv_inertia;
        K[0][0] += ii * ry * ry;
        K[0][1] -= ii * rx * ry;
        K[1][1] += ii * rx * rx;
    }
    K[1][0] = K[0][1];
}

void cr_contact_point_velocity_2d(const cr_contact_side_2d *s, double u[2])
{
    u[0] = s->v[0] - s->w * s->r[1];
    u[1] = s->v[1] + s->w * s->r[0];
}

void cr_contact_apply_2d(cr_contact_side_2d *a, cr_contact_side_2d *b, const double p[2])
{
    /* Seed 002 §5.2 step 9: w += (1/I) (-r_y, r_x) . p. */
    a->v[0] += a->inv_mass * p[0];
    a->v[1] += a->inv_mass * p[1];
    a->w += a->inv_inertia * (a->r[0] * p[1] - a->r[1] * p[0]);
    b->v[0] -= b->inv_mass * p[0];
    b->v[1] -= b->inv_mass * p[1];
    b->w -= b->inv_inertia * (b->r[0] * p[1] - b->r[1] * p[0]);
}

static cr_status check_side_2d(const char *name, const cr_contact_side_2d *s, char *msg, size_t msg_size)
{
    cr_status st = stronge_check_side_mass(name, s != NULL, s ? s->inv_mass : 0.0, msg, msg_size);
    if (st != CR_OK) return st;
    if (!(s->inv_inertia >= 0.0 && isfinite(s->inv_inertia))) {
        stronge_msg(msg, msg_size, "%s.inv_inertia must be finite and >= 0, got %.17g", name,
                    s->inv_inertia);
        return CR_ERR_INVALID_ARGUMENT;
    }
    const char *names[5] = {"r[0]", "r[1]", "v[0]", "v[1]", "w"};
    double vals[5] = {s->r[0], s->r[1], s->v[0], s->v[1], s->w};
    for (int i = 0; i < 5; ++i)
        if (!isfinite(vals[i])) {
            stronge_msg(msg, msg_size, "%s.%s is not finite (%.17g)", name, names[i], vals[i]);
            return CR_ERR_INVALID_ARGUMENT;
        }
    return CR_OK;
}

cr_status cr_law_stronge_2d_body(const cr_contact_side_2d *a, const cr_contact_side_2d *b,
                                 const double n[2], double e, double mu, cr_stronge_result *out,
                                 char *msg, size_t msg_size)
{
    cr_status st;
    if ((st = stronge_start(out, msg, msg_size)) != CR_OK) return st;
    if ((st = check_side_2d("a", a, msg, msg_size)) != CR_OK) return st;
    if ((st = check_side_2d("b", b, msg, msg_size)) != CR_OK) return st;
    if (!n || !isfinite(n[0]) || !isfinite(n[1])) {
        stronge_msg(msg, msg_size, "normal is missing or not finite");
        return CR_ERR_INVALID_ARGUMENT;
    }
    double len = hypot(n[0], n[1]);
    if (!(fabs(len - 1.0) <= 1e-9)) {
        stronge_msg(msg, msg_size, "normal must be a unit vector, got (%.17g, %.17g) of length %.17g",
                    n[0], n[1], len);
        return CR_ERR_INVALID_ARGUMENT;
    }
    if (a->inv_mass == 0.0 && b->inv_mass == 0.0) {
        stronge_msg(msg, msg_size, "both sides are immovable (inv_mass 0): no collision matrix");
        return CR_ERR_INVALID_ARGUMENT;
    }
    /* §5.2 step 1: R = [[f_y, -f_x], [f_x, f_y]] takes f to (0, 1). */
    const double R[2][2] = {{n[1], -n[0]}, {n[0], n[1]}};
    double Kw[2][2], K[2][2], ua[2], ub[2], uw[2], u0[2];
    cr_collision_matrix_2d(a, b, Kw);
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) {
            K[i][j] = 0.0;
            for (int k = 0; k < 2; ++k)
                for (int l = 0; l < 2; ++l) K[i][j] += R[i][k] * Kw[k][l] * R[j][l];
        }
    K[1][0] = K[0][1];
    cr_contact_point_velocity_2d(a, ua);
    cr_contact_point_velocity_2d(b, ub);
    uw[0] = ua[0] - ub[0];
    uw[1] = ua[1] - ub[1];
    u0[0] = R[0][0] * uw[0] + R[0][1] * uw[1];
    u0[1] = R[1][0] * uw[0] + R[1][1] * uw[1];
    st = cr_law_stronge_2d((const double(*)[2])K, u0, e, mu, out, msg, msg_size);
    if (st != CR_OK) return st;
    /* §5.2 step 10: back to the world frame with R^T. */
    double px = out->impulse.x, py = out->impulse.y;
    out->impulse = cr_v3(R[0][0] * px + R[1][0] * py, R[0][1] * px + R[1][1] * py, 0.0);
    return CR_OK;
}
