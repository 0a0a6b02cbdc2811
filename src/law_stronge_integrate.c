/* Error-controlled integration of seed 002 eq. 3 where the contact slides
 * off the rays of constant sliding.
 *
 * Design note
 * - Eq. 3, du/dp_z = K (-mu u_t/|u_t|, 1), is singular at u_t = 0 and its
 *   trajectories reach that point in finite p_z (sticking, §3.5). We integrate
 *   instead in sigma with dp_z = |u_t| dsigma:
 *       dp/dsigma = (-mu u_x, -mu u_y, |u_t|),   dW/dsigma = |u_t| u_z,
 *   with u = u0 + K p (eq. 2). The right-hand side is Lipschitz everywhere, so
 *   the integrator sees no singularity; approach to the origin becomes an
 *   exponential decay of u_t in sigma, which the step-size control follows in
 *   a number of steps logarithmic in the distance (§3.11, Appendix C: the
 *   direction of u_t converges to a ray). Sliding has stopped when
 *   |u_t| <= stick_tol, far above rounding and far below the tolerance.
 * - Where the direction of u_t converges to a ray that attracts it (f'(theta)
 *   < 0 in eq. 7, Appendix C), the system is stiff: the direction settles at
 *   the rate |f'| while |u_t| changes at the rate d|u_t|/dp_z, which can be
 *   orders of magnitude slower. Once the direction is within the tolerance
 *   (in radians) of such a ray, the driver finishes on the ray in closed form,
 *   which costs a relative error of the order of the tolerance.
 * - The state is both the impulse p and u (and W), integrated together
 *   (du/dsigma = K dp/dsigma), so that u = u0 + K p holds to the integration
 *   error: u computed from p would cancel for an ill-conditioned K
 *   (|K| |p| >> |u - u0|) and lose log10 cond(K) digits. The friction cone is
 *   respected up to the integration error.
 * - Dormand-Prince 5(4) (Hairer's DOPRI5 coefficients) with its continuous
 *   extension of order 4 to locate events inside a step: u_z = 0 (a change
 *   of phase, §3.4) and W_d = -e^2 W_c (the end, Stronge's hypothesis).
 *   Events are found by bisection on the interpolant and the state there is
 *   recomputed by a proper Dormand-Prince step to the event. W is stationary
 *   at u_z = 0, so an error d in a phase change moves work between W_c and
 *   W_d by O(d^2) only.
 * - Work is accumulated per phase: W_c over every phase with u_z < 0 and W_d
 *   over every phase with u_z > 0, so that several compression phases are
 *   handled (Baber's correction, §1.1, §3.4).
 */
#include <math.h>
#include <string.h>

#include "law_stronge_internal.h"

#define NY 7 /* p_x, p_y, p_z, u_x, u_y, u_z, W */
#define IU 3 /* index of u_x */
#define IW 6 /* index of W */

/* Dormand-Prince 5(4) tableau (Hairer, Norsett, Wanner; DOPRI5). The system
 * is autonomous, so the nodes c_i are not needed. */
static const double A21 = 1.0 / 5.0;
static const double A31 = 3.0 / 40.0, A32 = 9.0 / 40.0;
static const double A41 = 44.0 / 45.0, A42 = -56.0 / 15.0, A43 = 32.0 / 9.0;
static const double A51 = 19372.0 / 6561.0, A52 = -25360.0 / 2187.0, A53 = 64448.0 / 6561.0,
                    A54 = -212.0 / 729.0;
static const double A61 = 9017.0 / 3168.0, A62 = -355.0 / 33.0, A63 = 46732.0 / 5247.0,
                    A64 = 49.0 / 176.0, A65 = -5103.0 / 18656.0;
static const double B1 = 35.0 / 384.0, B3 = 500.0 / 1113.0, B4 = 125.0 / 192.0,
                    B5 = -2187.0 / 6784.0, B6 = 11.0 / 84.0;
static const double E1 = 71.0 / 57600.0, E3 = -71.0 / 16695.0, E4 = 71.0 / 1920.0,
                    E5 = -17253.0 / 339200.0, E6 = 22.0 / 525.0, E7 = -1.0 / 40.0;
static const double D1 = -12715105075.0 / 11282082432.0, D3 = 87487479700.0 / 32700410799.0,
                    D4 = -10690763975.0 / 1880347072.0, D5 = 701980252875.0 / 199316789632.0,
                    D6 = -1453857185.0 / 822651844.0, D7 = 69997945.0 / 29380423.0;

typedef struct dp_step {
    double h;
    double y0[NY], y1[NY];
    double k[7][NY]; /* k[0] = f(y0), k[6] = f(y1) (first same as last) */
    double err[NY];
} dp_step;

/* dp/dsigma = |u_t| (-mu u_t/|u_t|, 1), du/dsigma = K dp/dsigma (eq. 3),
 * dW/dsigma = |u_t| u_z (eq. 4). */
static void rhs(const stronge_problem *pb, const double y[NY], double dy[NY])
{
    double ux = y[IU], uy = y[IU + 1], uz = y[IU + 2];
    double r = sqrt(ux * ux + uy * uy);
    cr_vec3 dp = cr_v3(-pb->mu * ux, -pb->mu * uy, r);
    cr_vec3 du = cr_m3_mul_v(pb->K, dp);
    dy[0] = dp.x;
    dy[1] = dp.y;
    dy[2] = dp.z;
    dy[IU] = du.x;
    dy[IU + 1] = du.y;
    dy[IU + 2] = du.z;
    dy[IW] = r * uz;
}

/* One Dormand-Prince step of size h from st->y0 with st->k[0] = f(y0). */
static void dp_take(const stronge_problem *pb, dp_step *st, double h)
{
    double t[NY];
    double(*k)[NY] = st->k;
    const double *y = st->y0;
    st->h = h;
    for (int i = 0; i < NY; ++i) t[i] = y[i] + h * (A21 * k[0][i]);
    rhs(pb, t, k[1]);
    for (int i = 0; i < NY; ++i) t[i] = y[i] + h * (A31 * k[0][i] + A32 * k[1][i]);
    rhs(pb, t, k[2]);
    for (int i = 0; i < NY; ++i) t[i] = y[i] + h * (A41 * k[0][i] + A42 * k[1][i] + A43 * k[2][i]);
    rhs(pb, t, k[3]);
    for (int i = 0; i < NY; ++i)
        t[i] = y[i] + h * (A51 * k[0][i] + A52 * k[1][i] + A53 * k[2][i] + A54 * k[3][i]);
    rhs(pb, t, k[4]);
    for (int i = 0; i < NY; ++i)
        t[i] = y[i] + h * (A61 * k[0][i] + A62 * k[1][i] + A63 * k[2][i] + A64 * k[3][i] +
                           A65 * k[4][i]);
    rhs(pb, t, k[5]);
    for (int i = 0; i < NY; ++i)
        st->y1[i] = y[i] + h * (B1 * k[0][i] + B3 * k[2][i] + B4 * k[3][i] + B5 * k[4][i] +
                                B6 * k[5][i]);
    rhs(pb, st->y1, k[6]);
    for (int i = 0; i < NY; ++i)
        st->err[i] = h * (E1 * k[0][i] + E3 * k[2][i] + E4 * k[3][i] + E5 * k[4][i] +
                          E6 * k[5][i] + E7 * k[6][i]);
}

/* Continuous extension (order 4) of component i at fraction th of the step. */
static double dp_dense(const dp_step *st, int i, double th)
{
    const double h = st->h;
    double ydiff = st->y1[i] - st->y0[i];
    double bspl = h * st->k[0][i] - ydiff;
    double r4 = ydiff - h * st->k[6][i] - bspl;
    double r5 = h * (D1 * st->k[0][i] + D3 * st->k[2][i] + D4 * st->k[3][i] + D5 * st->k[4][i] +
                     D6 * st->k[5][i] + D7 * st->k[6][i]);
    return st->y0[i] + th * (ydiff + (1.0 - th) * (bspl + th * (r4 + (1.0 - th) * r5)));
}

static double dense_uz(const stronge_problem *pb, const dp_step *st, double th, double *w)
{
    (void)pb;
    if (w) *w = dp_dense(st, IW, th);
    return dp_dense(st, IU + 2, th);
}

/* Bisection on the interpolant between lo (condition false) and hi (true). */
typedef enum { EV_UZ_POSITIVE, EV_UZ_NEGATIVE, EV_W_REACHED } ev_kind;

static bool ev_holds(const stronge_problem *pb, const dp_step *st, ev_kind kind, double th,
                     double w_target)
{
    double w;
    double uz = dense_uz(pb, st, th, &w);
    switch (kind) {
    case EV_UZ_POSITIVE: return uz > 0.0;
    case EV_UZ_NEGATIVE: return uz < 0.0;
    default: return w >= w_target;
    }
}

static double bisect(const stronge_problem *pb, const dp_step *st, ev_kind kind, double lo,
                     double hi, double w_target)
{
    for (int it = 0; it < 60 && hi - lo > 1e-15; ++it) {
        double mid = 0.5 * (lo + hi);
        if (ev_holds(pb, st, kind, mid, w_target))
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

typedef enum { EVENT_NONE, EVENT_PHASE, EVENT_END } event_type;

/* The first event inside the accepted step, sampled at 8 points of the
 * interpolant so that a phase that begins and ends inside one step is seen. */
static event_type find_event(const stronge_problem *pb, const dp_step *st, int phase,
                             double w_target, double *th_event)
{
    const int samples = 8;
    double prev = 0.0;
    for (int j = 1; j <= samples; ++j) {
        double th = (double)j / samples, w;
        double uz = dense_uz(pb, st, th, &w);
        if (j == samples) { /* the step's own end, not the interpolant */
            w = st->y1[IW];
            uz = st->y1[IU + 2];
        }
        if (phase < 0) {
            if (uz > 0.0) {
                *th_event = bisect(pb, st, EV_UZ_POSITIVE, prev, th, 0.0);
                return EVENT_PHASE;
            }
        } else {
            if (uz < 0.0) {
                double tc = bisect(pb, st, EV_UZ_NEGATIVE, prev, th, 0.0), wc;
                dense_uz(pb, st, tc, &wc);
                if (wc >= w_target) {
                    *th_event = bisect(pb, st, EV_W_REACHED, prev, tc, w_target);
                    return EVENT_END;
                }
                *th_event = tc;
                return EVENT_PHASE;
            }
            if (w >= w_target) {
                *th_event = bisect(pb, st, EV_W_REACHED, prev, th, w_target);
                return EVENT_END;
            }
        }
        prev = th;
    }
    return EVENT_NONE;
}

/* Error norm: p, u and W against their tolerances (vector norms, relative
 * to their size, with an absolute floor at the scale of the normal impulse),
 * and the error of u_t relative to |u_t| itself. The last term makes the
 * approach to the origin scale-free: whether u_t reaches 0 or turns away to
 * the diverging ray is decided by the direction of u_t, which must stay
 * accurate however small u_t gets (§3.7, Figure 4). */
static double vnorm(const double *v) { return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

static double err_norm(const stronge_problem *pb, const dp_step *st, double rtol)
{
    double m = 0.0, q;
    const double *y0 = st->y0, *y1 = st->y1, *e = st->err;
    q = vnorm(e) / (rtol * (pb->p_small + fmax(vnorm(y0), vnorm(y1))));
    if (!(q <= m)) m = q; /* also propagates NaN */
    q = vnorm(e + IU) / (rtol * (pb->v_scale + fmax(vnorm(y0 + IU), vnorm(y1 + IU))));
    if (!(q <= m)) m = q;
    q = fabs(e[IW]) / (rtol * (pb->w_small + fmax(fabs(y0[IW]), fabs(y1[IW]))));
    if (!(q <= m)) m = q;
    double r = sqrt(fmax(y0[IU] * y0[IU] + y0[IU + 1] * y0[IU + 1], y1[IU] * y1[IU] + y1[IU + 1] * y1[IU + 1]));
    q = sqrt(e[IU] * e[IU] + e[IU + 1] * e[IU + 1]) / (0.1 * pb->stick_tol + rtol * r);
    if (!(q <= m)) m = q;
    return m;
}

static void load(dp_step *st, const stronge_state *s)
{
    st->y0[0] = s->p.x;
    st->y0[1] = s->p.y;
    st->y0[2] = s->p.z;
    st->y0[IU] = s->u.x;
    st->y0[IU + 1] = s->u.y;
    st->y0[IU + 2] = s->u.z;
    st->y0[IW] = 0.0; /* W, counted from here */
}

static void store(const double y[NY], stronge_state *s)
{
    s->p = cr_v3(y[0], y[1], y[2]);
    s->u = cr_v3(y[IU], y[IU + 1], y[IU + 2]);
}

cr_status stronge_integrate(const stronge_problem *pb, stronge_state *s, char *msg,
                            size_t msg_size)
{
    const double rtol = pb->opt.tolerance, e2 = pb->e * pb->e;
    dp_step st;
    load(&st, s);
    rhs(pb, st.y0, st.k[0]);

    /* Phase from the sign of u_z (or of du_z/dsigma where u_z = 0). */
    double uz = s->u.z;
    int phase = uz < 0.0 ? -1 : (uz > 0.0 ? 1 : (st.k[0][IU + 2] < 0.0 ? -1 : 1));
    double w_ps = 0.0; /* W at the start of the current phase */
    if (phase > 0 && -e2 * s->wc - s->wd <= 0.0) {
        s->wd = -e2 * s->wc;
        s->done = true;
        return CR_OK;
    }

    /* sigma has units of 1/K; the angular rate of u_t is about |K| (1 + mu). */
    double knorm = 0.0;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) knorm = fmax(knorm, fabs(pb->K.m[i][j]));
    double h = 0.01 / (knorm * (1.0 + pb->mu));

    for (int tries = 0; tries < pb->opt.max_steps; ++tries) {
        dp_take(pb, &st, h);
        double en = err_norm(pb, &st, rtol);
        if (!(en <= 1.0)) {
            h *= isfinite(en) ? fmax(0.2, 0.9 * pow(en, -0.2)) : 0.1;
            continue;
        }
        s->steps++;
        double need = -e2 * s->wc - s->wd; /* work left in this decompression */
        double th_ev = 1.0;
        event_type ev = find_event(pb, &st, phase, w_ps + need, &th_ev);
        if (ev != EVENT_NONE) {
            /* Recompute the state at the event with a proper step. */
            dp_take(pb, &st, th_ev * st.h);
            double f[NY];
            rhs(pb, st.y1, f);
            if (ev == EVENT_PHASE) {
                /* One Newton correction of u_z onto 0. */
                double ds = f[IU + 2] != 0.0 ? -st.y1[IU + 2] / f[IU + 2] : 0.0;
                if (fabs(ds) <= st.h)
                    for (int i = 0; i < NY; ++i) st.y1[i] += f[i] * ds;
                rhs(pb, st.y1, st.k[6]);
            }
            double w = st.y1[IW];
            if (ev == EVENT_PHASE) {
                if (phase < 0)
                    s->wc += fmin(w - w_ps, 0.0);
                else
                    s->wd += fmax(w - w_ps, 0.0);
                w_ps = w;
                phase = -phase;
                memcpy(st.y0, st.y1, sizeof st.y0);
                memcpy(st.k[0], st.k[6], sizeof st.k[0]);
                store(st.y0, s);
                stronge_trace(pb, phase > 0 ? CR_STRONGE_DECOMPRESSION : CR_STRONGE_COMPRESSION, s->p, s->u);
                if (phase > 0 && -e2 * s->wc - s->wd <= 0.0) { /* e = 0: ends at u_z = 0 */
                    s->wd = -e2 * s->wc;
                    s->done = true;
                    return CR_OK;
                }
                continue;
            }
            /* The end: one Newton correction of W onto its target. */
            double ds = (w_ps + need - w) / f[IW];
            if (f[IW] > 0.0 && fabs(ds) <= st.h)
                for (int i = 0; i < IW; ++i) st.y1[i] += f[i] * ds;
            store(st.y1, s);
            s->wd = -e2 * s->wc;
            s->done = true;
            return CR_OK;
        }
        memcpy(st.y0, st.y1, sizeof st.y0);
        memcpy(st.k[0], st.k[6], sizeof st.k[0]);
        store(st.y0, s);
        stronge_trace(pb, CR_STRONGE_STEP, s->p, s->u);
        double r = sqrt(s->u.x * s->u.x + s->u.y * s->u.y);
        bool stop = r <= pb->stick_tol;
        double h_max = INFINITY;
        if (!stop && pb->nrays > 0) {
            double th = atan2(s->u.y, s->u.x);
            /* The direction of u_t is known to rtol, or to rounding / |u_t|. */
            double dir_tol = fmax(rtol, pb->u_noise / r);
            for (int i = 0; i < pb->nrays && !stop; ++i) {
                double d = fabs(th - pb->ray[i]); /* th in [-pi, pi], rays in [0, 2 pi) */
                if (d > 3.14159265358979323846) d = fabs(d - 6.283185307179586476925);
                if (d <= dir_tol) {
                    /* Converged onto an attracting ray: the closed form takes over. */
                    s->ray = i;
                    stop = true;
                } else if (d <= 0.05) {
                    /* Near it the direction relaxes like exp(f' sigma): keep
                     * h |f'| <= 1 so that the step damps it (|R(z)| < 0.4)
                     * instead of hovering at the stability limit, where it
                     * would never converge (stiffness). */
                    h_max = fmin(h_max, 1.0 / -pb->ray_rate[i]);
                }
            }
        }
        if (stop) {
            /* Hand over to the closed forms with the work so far. */
            if (phase < 0)
                s->wc += fmin(st.y0[IW] - w_ps, 0.0);
            else
                s->wd += fmax(st.y0[IW] - w_ps, 0.0);
            return CR_OK;
        }
        h *= en > 0.0 ? fmin(5.0, fmax(0.2, 0.9 * pow(en, -0.2))) : 5.0;
        h = fmin(h, h_max);
    }
    stronge_msg(msg, msg_size, "stronge: integration did not finish in %d steps (tolerance %g)",
                pb->opt.max_steps, rtol);
    return CR_ERR_NON_FINITE;
}
