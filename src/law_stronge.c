/* The `stronge` collision law: seed 002 (Mirtich, corrected by Baber), 3D.
 *
 * Design note
 * - Everything is a function of the impulse p on A: u = u0 + K p (eq. 2).
 *   The collision is parameterised by p_z (§3.3) and ends when the work of the
 *   normal impulse satisfies W_d = -e^2 W_c summed over all phases (§3.4).
 * - The trajectory of u_t = (u_x, u_y) is made of pieces, each solved by the
 *   cheapest exact means (§3.11 shows the list is finite):
 *     mu = 0                     Newton's law, one ray: du/dp_z = K e_z;
 *     u_t on a ray of constant   closed form along the ray (§3.9 eq. 8); a
 *       sliding (§3.7)           converging ray ends at the origin;
 *     u_t = 0 (sticking, §3.5)   stable: closed form (§3.6); unstable: the
 *                                diverging ray from the quartic (§3.8, §3.9);
 *     elsewhere                  Dormand-Prince in sigma, dp_z = |u_t| dsigma,
 *                                with events for u_z = 0, the end and sticking
 *                                (law_stronge_integrate.c).
 *   Closed forms: law_stronge_phase.c (phases and work on a ray),
 *   law_stronge_sticking.c (§3.5-§3.10), law_stronge_quartic.c.
 * - The body form rotates the problem so that the normal is +z (§3.1) with a
 *   rotation that stays accurate at and near n = +-z.
 * - Invalid input is rejected before any arithmetic, with a message naming the
 *   argument; the result is checked to be finite before it is returned.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "law_stronge_internal.h"

void stronge_msg(char *msg, size_t msg_size, const char *fmt, ...)
{
    if (!msg || msg_size == 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, msg_size, fmt, ap);
    va_end(ap);
}

cr_stronge_options cr_default_stronge_options(void)
{
    cr_stronge_options o;
    o.tolerance = 1e-10;
    o.max_steps = 100000;
    o.closed_forms = true;
    o.trace = NULL;
    o.trace_ctx = NULL;
    return o;
}

/* ---- validation ------------------------------------------------------------ */

cr_status stronge_check_coefficients(double e, double mu, char *msg, size_t msg_size)
{
    if (!(e >= 0.0 && e <= 1.0)) {
        stronge_msg(msg, msg_size, "restitution must be in [0, 1], got %.17g", e);
        return CR_ERR_INVALID_ARGUMENT;
    }
    if (!(mu >= 0.0 && isfinite(mu))) {
        stronge_msg(msg, msg_size, "friction must be a finite number >= 0, got %.17g", mu);
        return CR_ERR_INVALID_ARGUMENT;
    }
    return CR_OK;
}

/* Cholesky factor L (K = L L^T) of the leading n x n block; false unless
 * every pivot exceeds SPD_PIVOT times the largest diagonal entry: a K whose
 * condition number is beyond about 1/SPD_PIVOT is numerically singular for
 * the law (K^-1 decides sticking and the diverging ray). */
#define SPD_PIVOT 1e-12
static bool cholesky(const cr_mat3 *K, int n, double L[3][3], int *bad_pivot, double *pivot)
{
    double dmax = 0.0;
    for (int i = 0; i < n; ++i) dmax = fmax(dmax, K->m[i][i]);
    memset(L, 0, 9 * sizeof(double));
    for (int j = 0; j < n; ++j) {
        double d = K->m[j][j];
        for (int k = 0; k < j; ++k) d -= L[j][k] * L[j][k];
        if (!(d > SPD_PIVOT * dmax)) {
            if (bad_pivot) *bad_pivot = j;
            if (pivot) *pivot = d;
            return false;
        }
        L[j][j] = sqrt(d);
        for (int i = j + 1; i < n; ++i) {
            double v = K->m[i][j];
            for (int k = 0; k < j; ++k) v -= L[i][k] * L[j][k];
            L[i][j] = v / L[j][j];
        }
    }
    return true;
}

bool stronge_spd_inverse(cr_mat3 K, cr_mat3 *Kinv)
{
    double L[3][3];
    if (!cholesky(&K, 3, L, NULL, NULL)) return false;
    /* Columns of K^-1: solve L y = e_j, then L^T x = y. */
    for (int j = 0; j < 3; ++j) {
        double y[3], x[3];
        for (int i = 0; i < 3; ++i) {
            double v = i == j ? 1.0 : 0.0;
            for (int k = 0; k < i; ++k) v -= L[i][k] * y[k];
            y[i] = v / L[i][i];
        }
        for (int i = 2; i >= 0; --i) {
            double v = y[i];
            for (int k = i + 1; k < 3; ++k) v -= L[k][i] * x[k];
            x[i] = v / L[i][i];
        }
        for (int i = 0; i < 3; ++i) Kinv->m[i][j] = x[i];
    }
    /* Exactly symmetric. */
    for (int i = 0; i < 3; ++i)
        for (int j = i + 1; j < 3; ++j)
            Kinv->m[i][j] = Kinv->m[j][i] = 0.5 * (Kinv->m[i][j] + Kinv->m[j][i]);
    return true;
}

/* K must be finite, symmetric (to 1e-9 of its largest entry) and positive
 * definite with Cholesky pivots above SPD_PIVOT of its largest diagonal
 * entry. On success *sym is (K + K^T) / 2. */
static cr_status check_spd(cr_mat3 K, int n, cr_mat3 *sym, char *msg, size_t msg_size)
{
    double kmax = 0.0, dmax = 0.0;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            if (!isfinite(K.m[i][j])) {
                stronge_msg(msg, msg_size, "K[%d][%d] is not finite (%.17g)", i, j, K.m[i][j]);
                return CR_ERR_INVALID_ARGUMENT;
            }
            kmax = fmax(kmax, fabs(K.m[i][j]));
        }
    for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j)
            if (fabs(K.m[i][j] - K.m[j][i]) > 1e-9 * kmax) {
                stronge_msg(msg, msg_size, "K is not symmetric: K[%d][%d] = %.17g but K[%d][%d] = %.17g",
                            i, j, K.m[i][j], j, i, K.m[j][i]);
                return CR_ERR_INVALID_ARGUMENT;
            }
    *sym = K;
    for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j) sym->m[i][j] = sym->m[j][i] = 0.5 * (K.m[i][j] + K.m[j][i]);
    for (int i = 0; i < n; ++i) dmax = fmax(dmax, sym->m[i][i]);
    double L[3][3], d = 0.0;
    int j = 0;
    if (!cholesky(sym, n, L, &j, &d)) {
        stronge_msg(msg, msg_size,
                    "K is not positive definite, or too ill-conditioned (Cholesky pivot %d is %.17g, "
                    "not above %g times the largest diagonal entry %.17g)",
                    j, d, SPD_PIVOT, dmax);
        return CR_ERR_INVALID_ARGUMENT;
    }
    return CR_OK;
}

static cr_status check_vec(const char *name, cr_vec3 v, char *msg, size_t msg_size)
{
    if (!cr_v3_isfinite(v)) {
        stronge_msg(msg, msg_size, "%s is not finite (%.17g, %.17g, %.17g)", name, v.x, v.y, v.z);
        return CR_ERR_INVALID_ARGUMENT;
    }
    return CR_OK;
}

static cr_status check_options(const cr_stronge_options *o, char *msg, size_t msg_size)
{
    if (!(o->tolerance >= 1e-14 && o->tolerance <= 1e-3)) {
        stronge_msg(msg, msg_size, "options.tolerance must be in [1e-14, 1e-3], got %.17g", o->tolerance);
        return CR_ERR_INVALID_ARGUMENT;
    }
    if (o->max_steps < 1) {
        stronge_msg(msg, msg_size, "options.max_steps must be >= 1, got %d", o->max_steps);
        return CR_ERR_INVALID_ARGUMENT;
    }
    return CR_OK;
}

/* ---- contact-space driver ---------------------------------------------------- */

static void zero_result(cr_stronge_result *out)
{
    memset(out, 0, sizeof *out);
    out->sticking = CR_STICKING_NONE;
}

cr_status stronge_start(cr_stronge_result *out, char *msg, size_t msg_size)
{
    if (msg && msg_size) msg[0] = '\0';
    if (!out) {
        stronge_msg(msg, msg_size, "out is NULL");
        return CR_ERR_INVALID_ARGUMENT;
    }
    zero_result(out);
    return CR_OK;
}

static cr_status drive(const stronge_problem *pb, stronge_state *s, char *msg, size_t msg_size)
{
    cr_status st;
    if (pb->mu == 0.0) {
        /* No friction: eq. 3 is du/dp_z = K e_z whatever the sliding direction,
         * and Stronge's hypothesis is Newton's law (§3.4). */
        cr_vec3 k = cr_v3(pb->K.m[0][2], pb->K.m[1][2], pb->K.m[2][2]);
        return stronge_ray_advance(pb, s, cr_v3(0.0, 0.0, 1.0), k, INFINITY, msg, msg_size);
    }
    const cr_mat3 *K = &pb->K;
    /* Magnitude of the tangential field, for the "on a ray" test. */
    double fscale = pb->mu * (fabs(K->m[0][0]) + fabs(K->m[1][1]) + 2.0 * fabs(K->m[0][1])) +
                    fabs(K->m[0][2]) + fabs(K->m[1][2]);
    for (int piece = 0; piece < 64; ++piece) {
        if (s->done) return CR_OK;
        cr_vec3 u = s->u;
        double r = sqrt(u.x * u.x + u.y * u.y);
        if (r <= pb->stick_tol) return stronge_resolve_sticking(pb, s, msg, msg_size);
        if (pb->opt.closed_forms) {
            double dx = u.x / r, dy = u.y / r;
            bool on_ray = false;
            if (s->ray >= 0) {
                /* The integrator converged onto this attracting ray. */
                dx = cos(pb->ray[s->ray]);
                dy = sin(pb->ray[s->ray]);
                s->ray = -1;
                on_ray = true;
            }
            cr_vec3 q = cr_v3(-pb->mu * dx, -pb->mu * dy, 1.0);
            cr_vec3 k = cr_m3_mul_v(*K, q);
            if (on_ray || fabs(dx * k.y - dy * k.x) <= 1e-12 * fscale) {
                /* On a ray of constant sliding (§3.7): du/dp_z = k stays constant. */
                double g = dx * k.x + dy * k.y; /* d|u_t|/dp_z */
                if (g >= 0.0) /* diverging or stationary: to the end (§3.9, §3.11) */
                    return stronge_ray_advance(pb, s, q, k, INFINITY, msg, msg_size);
                /* Converging: reaches the origin after |u_t| / (-g) unless it ends first. */
                double along = u.x * dx + u.y * dy;
                st = stronge_ray_advance(pb, s, q, k, fmax(along, 0.0) / -g, msg, msg_size);
                if (st != CR_OK || s->done) return st;
                return stronge_resolve_sticking(pb, s, msg, msg_size);
            }
        }
        st = stronge_integrate(pb, s, msg, msg_size);
        if (st != CR_OK) return st;
    }
    stronge_msg(msg, msg_size, "stronge: the collision did not end");
    return CR_ERR_NON_FINITE;
}

cr_status cr_law_stronge_contact_ex(cr_mat3 K, cr_vec3 u0, double e, double mu,
                                    const cr_stronge_options *options, cr_stronge_result *out,
                                    char *msg, size_t msg_size)
{
    cr_status st;
    if ((st = stronge_start(out, msg, msg_size)) != CR_OK) return st;
    stronge_problem pb;
    pb.opt = options ? *options : cr_default_stronge_options();
    if ((st = check_options(&pb.opt, msg, msg_size)) != CR_OK) return st;
    if ((st = stronge_check_coefficients(e, mu, msg, msg_size)) != CR_OK) return st;
    if ((st = check_vec("u0", u0, msg, msg_size)) != CR_OK) return st;
    if ((st = check_spd(K, 3, &pb.K, msg, msg_size)) != CR_OK) return st;

    out->u = u0;
    if (u0.z >= 0.0) return CR_OK; /* not approaching: no collision (§4 step 2) */

    if (!stronge_spd_inverse(pb.K, &pb.Kinv)) {
        stronge_msg(msg, msg_size, "K is singular");
        return CR_ERR_INVALID_ARGUMENT;
    }
    pb.u0 = u0;
    pb.e = e;
    pb.mu = mu;
    pb.v_scale = cr_v3_len(u0);
    pb.p_small = -u0.z / pb.K.m[2][2];
    pb.w_small = pb.v_scale * pb.p_small;
    /* u is carried, not recomputed from p, so its rounding stays at the
     * level of |u0| whatever the conditioning of K. */
    pb.u_noise = 64.0 * DBL_EPSILON * pb.v_scale;
    pb.stick_tol = 1e-11 * pb.v_scale;

    /* The rays of constant sliding that attract the direction of u_t
     * (f'(theta) < 0 in eq. 7): where the integrator converges onto one, the
     * closed form of §3.9 takes over (law_stronge_integrate.c). */
    pb.nrays = pb.nall = 0;
    if (mu > 0.0) {
        pb.nall = cr_stronge_sliding_rays(pb.K, mu, pb.all_rays);
        for (int i = 0; i < pb.nall && pb.opt.closed_forms; ++i) {
            double d;
            stronge_ray_eq(pb.K, mu, pb.all_rays[i], &d);
            if (d < 0.0) {
                pb.ray[pb.nrays] = pb.all_rays[i];
                pb.ray_rate[pb.nrays++] = d;
            }
        }
    }

    stronge_state s;
    memset(&s, 0, sizeof s);
    s.sticking = CR_STICKING_NONE;
    s.ray = -1;
    s.u = u0;
    if ((st = drive(&pb, &s, msg, msg_size)) != CR_OK) {
        zero_result(out); /* out->u held u0: no half result on an error */
        return st;
    }
    stronge_trace(&pb, CR_STRONGE_END, s.p, s.u);

    cr_vec3 u = s.u;
    if (!cr_v3_isfinite(s.p) || !cr_v3_isfinite(u) || !isfinite(s.wc) || !isfinite(s.wd)) {
        stronge_msg(msg, msg_size, "stronge: the impulse is not finite");
        zero_result(out);
        return CR_ERR_NON_FINITE;
    }
    out->impulse = s.p;
    out->u = u;
    out->sticking = s.sticking;
    out->work_compression = s.wc;
    out->work_decompression = s.wd;
    out->steps = s.steps;
    return CR_OK;
}

cr_status cr_law_stronge_contact(cr_mat3 K, cr_vec3 u0, double e, double mu, cr_stronge_result *out,
                                 char *msg, size_t msg_size)
{
    return cr_law_stronge_contact_ex(K, u0, e, mu, NULL, out, msg, msg_size);
}

/* ---- rotation (§3.1, Appendix A) and the body form ----------------------------- */

/* R = cos(t) 1 + [a]x + a a^T / (1 + cos(t)) with a = f x z, which is the
 * seed's (1 - c) n n^T + c 1 + s [n]x with n = a / |a| multiplied out: no
 * division by |f x z|, accurate for f at or near +z. Needs f.z >= 0. */
static cr_mat3 rotation_upper(cr_vec3 f)
{
    cr_vec3 a = cr_v3(f.y, -f.x, 0.0); /* f x (0, 0, 1) */
    double c = f.z, k = 1.0 / (1.0 + c);
    cr_mat3 R = cr_m3_skew(a);
    for (int i = 0; i < 3; ++i) {
        R.m[i][i] += c;
        for (int j = 0; j < 3; ++j) R.m[i][j] += cr_v3_get(a, i) * cr_v3_get(a, j) * k;
    }
    return R;
}

cr_mat3 cr_stronge_rotation(cr_vec3 n)
{
    if (n.z >= 0.0) return rotation_upper(n);
    /* Near -z: first turn by pi about x (diag(1, -1, -1)), which takes n to
     * the upper half, then rotate that onto +z. */
    cr_mat3 R = rotation_upper(cr_v3(n.x, -n.y, -n.z));
    for (int i = 0; i < 3; ++i) {
        R.m[i][1] = -R.m[i][1];
        R.m[i][2] = -R.m[i][2];
    }
    return R;
}

cr_status stronge_check_side_mass(const char *name, bool given, double inv_mass, char *msg, size_t msg_size)
{
    if (!given) {
        stronge_msg(msg, msg_size, "side %s is NULL", name);
        return CR_ERR_INVALID_ARGUMENT;
    }
    if (!(inv_mass >= 0.0 && isfinite(inv_mass))) {
        stronge_msg(msg, msg_size, "%s.inv_mass must be finite and >= 0, got %.17g", name, inv_mass);
        return CR_ERR_INVALID_ARGUMENT;
    }
    return CR_OK;
}

static cr_status check_side(const char *name, const cr_contact_side *s, char *msg, size_t msg_size)
{
    char what[32];
    cr_status st = stronge_check_side_mass(name, s != NULL, s ? s->inv_mass : 0.0, msg, msg_size);
    if (st != CR_OK) return st;
    const cr_mat3 *I = &s->inv_inertia;
    double m = 0.0;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            if (!isfinite(I->m[i][j])) {
                stronge_msg(msg, msg_size, "%s.inv_inertia[%d][%d] is not finite (%.17g)", name, i, j,
                            I->m[i][j]);
                return CR_ERR_INVALID_ARGUMENT;
            }
            m = fmax(m, fabs(I->m[i][j]));
        }
    for (int i = 0; i < 3; ++i) {
        for (int j = i + 1; j < 3; ++j)
            if (fabs(I->m[i][j] - I->m[j][i]) > 1e-9 * m) {
                stronge_msg(msg, msg_size, "%s.inv_inertia is not symmetric ([%d][%d] = %.17g, [%d][%d] = %.17g)",
                            name, i, j, I->m[i][j], j, i, I->m[j][i]);
                return CR_ERR_INVALID_ARGUMENT;
            }
        if (I->m[i][i] < -1e-12 * m) {
            stronge_msg(msg, msg_size, "%s.inv_inertia[%d][%d] = %.17g is negative", name, i, i, I->m[i][i]);
            return CR_ERR_INVALID_ARGUMENT;
        }
    }
    snprintf(what, sizeof what, "%s.r", name);
    if ((st = check_vec(what, s->r, msg, msg_size)) != CR_OK) return st;
    snprintf(what, sizeof what, "%s.v", name);
    if ((st = check_vec(what, s->v, msg, msg_size)) != CR_OK) return st;
    snprintf(what, sizeof what, "%s.w", name);
    return check_vec(what, s->w, msg, msg_size);
}

cr_status cr_law_stronge_ex(const cr_contact_side *a, const cr_contact_side *b, cr_vec3 n, double e,
                            double mu, const cr_stronge_options *options, cr_stronge_result *out,
                            char *msg, size_t msg_size)
{
    cr_status st;
    if ((st = stronge_start(out, msg, msg_size)) != CR_OK) return st;
    if ((st = check_side("a", a, msg, msg_size)) != CR_OK) return st;
    if ((st = check_side("b", b, msg, msg_size)) != CR_OK) return st;
    if ((st = check_vec("normal", n, msg, msg_size)) != CR_OK) return st;
    double len = cr_v3_len(n);
    if (!(fabs(len - 1.0) <= 1e-9)) {
        stronge_msg(msg, msg_size, "normal must be a unit vector, got (%.17g, %.17g, %.17g) of length %.17g",
                    n.x, n.y, n.z, len);
        return CR_ERR_INVALID_ARGUMENT;
    }
    if (a->inv_mass == 0.0 && b->inv_mass == 0.0) {
        stronge_msg(msg, msg_size, "both sides are immovable (inv_mass 0): no collision matrix");
        return CR_ERR_INVALID_ARGUMENT;
    }
    cr_mat3 R = cr_stronge_rotation(n), Rt = cr_m3_transpose(R);
    cr_mat3 K = cr_m3_mul(cr_m3_mul(R, cr_collision_matrix(a, b)), Rt);
    cr_vec3 u0 = cr_m3_mul_v(R, cr_v3_sub(cr_contact_point_velocity(a), cr_contact_point_velocity(b)));
    st = cr_law_stronge_contact_ex(K, u0, e, mu, options, out, msg, msg_size);
    if (st != CR_OK) return st;
    out->impulse = cr_m3_mul_v(Rt, out->impulse);
    return CR_OK;
}

cr_status cr_law_stronge(const cr_contact_side *a, const cr_contact_side *b, cr_vec3 n, double e,
                         double mu, cr_stronge_result *out, char *msg, size_t msg_size)
{
    return cr_law_stronge_ex(a, b, n, e, mu, NULL, out, msg, msg_size);
}
