/* Balls on parametric surfaces: seed 004 §2 (forces, the four states) and
 * §4 (the moving algorithm with energy control).
 *
 * Design note. A ball bound to a surface is planned one step (or up to its
 * next state change) at a time, with its state constant over the plan, as
 * seed 004 §4 requires:
 *   - the closest point (eq. 29-34, warm-started from the last search's
 *     anchor, cr_closest) gives the contact normal n, the principal curvatures and
 *     the surface's coefficients there;
 *   - eq. 8: the normal acceleration eta = max(<g, n>, k_c |v|^2), with k_c the
 *     normal curvature of the centre's path (the offset surface) along v; the
 *     ground force |K_n| = m (eta - <g, n>), and when gravity alone bends the
 *     path more than the surface does the ball takes off (flying);
 *   - rolling (contact point at rest) while |R|roll (eq. 18) <= |R|max
 *     (eq. 16), with a_t = tau (g_t - xi v^) (eq. 20, 26, 35); otherwise sliding
 *     with R = -|R|max along the slip (eq. 19), which also spins the ball
 *     (eq. 23), until the slip would reverse: that time is a state event;
 *   - the moving algorithm: the preliminary step (eq. 36), back onto the
 *     offset surface through the closest point (eq. 37), the velocity
 *     restricted to the new tangent plane (eq. 38-39), and the speed set by the
 *     energy balance (eq. 43) when no sliding friction acts.
 * During the step the ball moves along the chord of its plan (seed 004
 * eq. 44's step vector), which is what the time of impact with other balls
 * uses.
 *
 * Units. The seed writes kappa = (k1 - r)(k2 - r) and |R|max = mu r^2/kappa
 * |K_n|, which is not dimensionally consistent; read as the Gaussian
 * curvature of the difference surface relative to the ball,
 * kappa^ = (1 - r k1)(1 - r k2) (= kappa / r^2 on a plane, where it is 1),
 * carom uses |R|max = mu |K_n| / kappa^ and xi = nu kappa^ |K_n| / m, so that on
 * a plane sliding friction is Coulomb's mu |K_n| and rolling friction a
 * dimensionless rolling-resistance coefficient nu. Signs: seed 004 eq. 14-15
 * write the slip with n ^ w; carom uses the contact point's velocity
 * v + w x (-r n), which is zero when rolling, w = n x v / r.
 */
#include "surface_internal.h"
#include "world_internal.h"

/* Walls a surface ball can lean on at once are looked up in a small array. */
#define CR_MAX_LEANING_PLANES 64
/* How far above the surface (a fraction of its radius) a ball bound to it
 * may be found at an event and still be on its plan's chord: the chord's
 * sagitta L^2 k / 8, 0.3 mm for a 3.3 cm chord (2 m/s at 60 Hz) over the
 * boiling hills' curvature of about 2.2 / m, is well inside 5 % of a
 * 25 mm ball. Farther above, something else lifted it: it flies. */
#define CR_CHORD_SAGITTA 0.05

typedef struct site {
    cr_closest c;
    cr_surface_eval e; /* the surface at the closest point */
    double kappa; /* (1 - r k1)(1 - r k2) */
    double mu;    /* mu_b mu_alpha */
    double nu;    /* nu_b + nu_alpha */
} site;

bool cr_ball_memo_reserve(cr_world *w)
{
    uint32_t had = w->closest_memo_capacity;
    if (!cr_grow(w, (void **)&w->closest_memo, &w->closest_memo_capacity, w->bodies.slot_count, sizeof *w->closest_memo))
        return false;
    for (uint32_t i = had; i < w->closest_memo_capacity; ++i) w->closest_memo[i].surface = UINT32_MAX;
    return true;
}

/* Ball i's closest point on surface k to x from (u0, v0), through its memo
 * (seed 004 eq. 29-34; the same bits as a fresh search). */
static cr_closest ball_closest(cr_world *w, uint32_t i, uint32_t k, cr_vec3 x, double u0, double v0, cr_surface_eval *at)
{
    const cr_surface *s = w->surfaces.surface[k];
    if (i >= w->closest_memo_capacity) return cr_surface_closest_eval(s, x, u0, v0, 1e-12, at);
    return cr_surface_closest_memo(s, k, &w->closest_memo[i], x, u0, v0, 1e-12, at);
}

/* Ball i's warm start for its next search: c's anchor, the last point c
 * evaluated exactly (cr_closest), never a Taylor answer, so that the next
 * search is the same pure function of its start with or without the memo. */
static void keep_warm_start(cr_bodies *b, uint32_t i, const cr_closest *c)
{
    b->su[i] = c->anchor_u;
    b->sv[i] = c->anchor_v;
}

/* The closest point to x, and when full the curvature and coefficients there
 * (from the closest point's own evaluation: no second one). */
static site site_at(cr_world *w, uint32_t i, uint32_t k, cr_vec3 x, double u0, double v0, bool full)
{
    const cr_bodies *b = &w->bodies;
    const cr_surface *s = w->surfaces.surface[k];
    site st;
    st.c = ball_closest(w, i, k, x, u0, v0, &st.e);
    cr_count_closest(w, st.c.iterations);
    st.kappa = 1.0;
    st.mu = st.nu = 0.0;
    if (!full) return st;
    double k1, k2, r = b->radius[i];
    cr_surface_curvature_of(&st.e, st.c.normal, &k1, &k2, NULL);
    st.kappa = (1.0 - r * k1) * (1.0 - r * k2);
    double fr, rf;
    cr_surface_coefficients(s, st.c.u, st.c.v, &fr, &rf);
    st.mu = b->friction[i] * fr;
    st.nu = b->rolling_friction[i] + rf;
    return st;
}

double cr_ball_surface_gap(cr_world *w, uint32_t i, uint32_t k, cr_vec3 x, cr_vec3 *normal, bool keep)
{
    cr_bodies *b = &w->bodies;
    cr_surface_eval e;
    cr_closest c = ball_closest(w, i, k, x, b->su[i], b->sv[i], &e);
    cr_count_closest(w, c.iterations);
    if (keep) keep_warm_start(b, i, &c);
    if (normal) *normal = c.normal;
    return c.distance - b->radius[i];
}

/* Normal curvature of the surface along the unit tangent t (second over
 * first fundamental form, t written in the parameters by seed 004 eq. 1). */
static double normal_curvature(const cr_surface_eval *ev, cr_vec3 n, cr_vec3 t)
{
    const cr_surface_eval e = *ev;
    double E = cr_v3_dot(e.su, e.su), F = cr_v3_dot(e.su, e.sv), G = cr_v3_dot(e.sv, e.sv);
    double tu = cr_v3_dot(e.su, t), tv = cr_v3_dot(e.sv, t), det = E * G - F * F;
    if (!(det > 0.0)) return 0.0;
    double a = (G * tu - F * tv) / det, c = (E * tv - F * tu) / det;
    double first = E * a * a + 2.0 * F * a * c + G * c * c;
    double second = cr_v3_dot(e.suu, n) * a * a + 2.0 * cr_v3_dot(e.suv, n) * a * c + cr_v3_dot(e.svv, n) * c * c;
    return first > 0.0 ? second / first : 0.0;
}

static void unbind(cr_world *w, uint32_t i)
{
    w->bodies.surface[i] = CR_NO_SURFACE;
    w->bodies.ball_state[i] = CR_BALL_FLYING;
    w->bodies.energy_on[i] = 0;
}

/* A free body's plan in the world's method. A ball leaving a surface in the
 * middle of an impulse-method step gets the kick for the rest of it. */
static void plan_flying(cr_world *w, uint32_t i, bool left_surface)
{
    cr_bodies *b = &w->bodies;
    if (w->def.method == CR_METHOD_EVENT) {
        cr_body_predict_forces(w, i);
        cr_rest_hold_flying(w, i); /* lying on balls on a surface (rolling_rest.c) */
    } else {
        b->acc[i] = b->alpha[i] = cr_v3_zero();
        if (left_surface) b->v[i] = cr_v3_madd(b->v[i], w->def.gravity, w->def.dt - b->t_local[i]);
    }
    cr_body_plan_free(w, i);
}

static void plan_still(cr_world *w, uint32_t i)
{
    cr_bodies *b = &w->bodies;
    b->ball_state[i] = CR_BALL_STILL;
    b->v[i] = b->w[i] = cr_v3_zero();
    b->vpath[i] = b->acc[i] = b->dvel[i] = b->alpha[i] = cr_v3_zero();
    b->t_state[i] = INFINITY;
    b->energy_on[i] = 0;
}

/* Moves ball i to x, its speed paying for the height it gains or loses
 * (seed 004 eq. 43's balance; f = tau when rolling, else 1), so that the
 * corrections below leave the energy as it was. */
static void move_keeping_energy(cr_world *w, uint32_t i, cr_vec3 x)
{
    cr_bodies *b = &w->bodies;
    double m = b->mass[i], r = b->radius[i], I = b->inertia[i];
    double f = b->ball_state[i] == CR_BALL_ROLLING ? m * r * r / (m * r * r + I) : 1.0;
    cr_vec3 d = cr_v3_sub(x, b->x[i]);
    double speed2 = cr_v3_len2(b->v[i]) + 2.0 * f * cr_v3_dot(w->def.gravity, d), len = cr_v3_len(b->v[i]);
    double scale = speed2 > 0.0 && len > 0.0 ? sqrt(speed2) / len : 0.0;
    b->v[i] = cr_v3_scale(b->v[i], scale);
    if (b->ball_state[i] == CR_BALL_ROLLING) b->w[i] = cr_v3_scale(b->w[i], scale); /* the spin follows */
    b->x[i] = x;
}

/* A ball that starts to roll takes the spin w = n x v / r; the sliding plan
 * brought the slip to about zero, and what is left over is taken out of the
 * speed, never added: the kinetic energy does not grow. */
static void start_rolling(cr_world *w, uint32_t i, cr_vec3 n)
{
    cr_bodies *b = &w->bodies;
    double m = b->mass[i], I = b->inertia[i], r = b->radius[i];
    double before = m * cr_v3_len2(b->v[i]) + I * cr_v3_len2(b->w[i]);
    cr_vec3 wr = cr_v3_scale(cr_v3_cross(n, b->v[i]), 1.0 / r);
    double after = m * cr_v3_len2(b->v[i]) + I * cr_v3_len2(wr);
    if (after > before && after > 0.0) {
        double k = sqrt(before / after);
        b->v[i] = cr_v3_scale(b->v[i], k);
        wr = cr_v3_scale(wr, k);
    }
    b->w[i] = wr;
}

/* A ball that rolls along a wall touches two statics: the moving algorithm
 * knows only the surface, so its end point is taken out of the planes it
 * leans on (those marked in leaning; all when NULL) and put back on the
 * offset surface, alternately, until both hold (the velocity loses its
 * component into the plane). A ball that approaches a wall faster than
 * resting is not leaning on it: its impact is an event.
 *
 * The balls it leans on (held: the directions of its rest set marked in
 * held; none when NULL) are kept the same way, each as the plane through
 * the ball's start x0 across its direction n_k: the end point may not move
 * into the neighbour, (x1 - x0).n_k >= 0. That is seed 001 §3.2's resting
 * contact on the step's chord: lean() stops the velocity and acceleration
 * into the neighbour in the tangent plane, but the moving algorithm puts
 * the end point back on the curved offset surface (eq. 37), which can carry
 * it into the neighbour (two balls side by side in a hollow) by tenths of a
 * millimetre a step, with no impact (they touch and do not approach).
 * The neighbour keeps off the same plane from its side (its direction is
 * -n_k), so their centres never close along n_k. */
static void keep_off(cr_world *w, uint32_t i, cr_vec3 x0, cr_vec3 *x, cr_vec3 *n, cr_vec3 *v, cr_closest *c,
                     const bool *leaning, const bool *held)
{
    const cr_bodies *b = &w->bodies;
    const cr_rest_set *rs = &b->rest[i];
    double r = b->radius[i];
    for (int it = 0; it < 32; ++it) {
        bool moved = false;
        for (uint32_t k = 0; k < w->planes.count + (held ? rs->count : 0); ++k) {
            cr_vec3 pn, pp;
            if (k < w->planes.count) {
                if (leaning && !leaning[k]) continue; /* (before the penetration: most lean on none) */
                pn = w->planes.def[k].normal;
                pp = w->planes.def[k].point;
            } else {
                if (!held[k - w->planes.count]) continue;
                pn = rs->n[k - w->planes.count];
                pp = cr_v3_madd(x0, pn, -r); /* (x1 - x0).n_k = r - its penetration */
            }
            double pen = cr_penetration_sphere_plane(*x, r, pp, pn);
            if (pen <= 1e-12 * r) continue;
            *x = cr_v3_madd(*x, pn, pen);
            double vn = cr_v3_dot(*v, pn);
            if (vn < 0.0) *v = cr_v3_madd(*v, pn, -vn);
            moved = true;
        }
        if (!moved) return;
        cr_surface_eval e;
        *c = ball_closest(w, i, b->surface[i], *x, c->anchor_u, c->anchor_v, &e);
        *n = c->normal;
        *x = cr_v3_madd(c->point, *n, r);
    }
}

/* The vector nearest to a with a.d_k >= 0 for each direction of h, all of
 * them and a in one plane (the tangent plane): the projection onto their
 * cone, exact. In a plane the cone's faces are its inside, its edge rays
 * and its apex, so the nearest point is a itself when inside, else a less
 * its part along one d_k (the nearest such that meets the others), else
 * zero (seed 001 §3.2 with several contacts: eq. 2-3, f_c >= 0). */
static cr_vec3 cone_in_plane(const cr_rest_set *h, cr_vec3 a)
{
    double slack = 1e-12 * cr_v3_len(a); /* rounding of a part just removed */
    bool inside = true;
    for (uint32_t k = 0; k < h->count; ++k) inside = inside && cr_v3_dot(a, h->n[k]) >= 0.0;
    if (inside) return a;
    cr_vec3 best = cr_v3_zero();
    double removed = INFINITY;
    for (uint32_t k = 0; k < h->count; ++k) {
        double into = cr_v3_dot(a, h->n[k]);
        if (!(into < 0.0) || -into >= removed) continue;
        cr_vec3 p = cr_v3_madd(a, h->n[k], -into);
        bool meets = true;
        for (uint32_t l = 0; l < h->count; ++l) meets = meets && (l == k || cr_v3_dot(p, h->n[l]) >= -slack);
        if (meets) {
            best = p;
            removed = -into;
        }
    }
    return best;
}

/* Removes from vector a (in the tangent plane of normal n) its parts that
 * point into what ball i leans on, up to limit: seed 001 §3.2's resting
 * contact, a force or impulse that pushes but never pulls. A velocity into
 * it faster than the resting speed is an impact, for the events. Each
 * contact acts in the tangent plane, along the part of its direction there
 * (d_k); those a approaches no faster than limit all hold at once: a is
 * projected onto their cone (cone_in_plane: exact for a ball in the wedge
 * of two neighbours, where removing one part after the other feeds the
 * other and left it running into the first at 0.13 m/s). */
static cr_vec3 lean_on(const cr_rest_set *r, const cr_rest_set *in_plane, cr_vec3 a, double limit, uint32_t *mask)
{
    if (limit == INFINITY) return cone_in_plane(in_plane, a); /* every one holds (mask unused) */
    cr_rest_set held;
    uint32_t m = cr_rest_slow(r, in_plane, a, limit, &held);
    if (mask) *mask = m;
    return cone_in_plane(&held, a);
}

/* in_plane: ball i's rest directions in the tangent plane (cr_rest_in_plane,
 * taken once a plan: its four leans share them); mask (where given): the
 * directions it held, for the events. */
static inline cr_vec3 lean(const cr_world *w, uint32_t i, const cr_rest_set *in_plane, cr_vec3 a, double limit,
                           uint32_t *mask)
{
    const cr_rest_set *r = &w->bodies.rest[i];
    return r->count ? lean_on(r, in_plane, a, limit, mask) : a; /* most balls lean on nothing: no call */
}

/* Seed 004 eq. 43: the squared speed after displacement d from velocity v0. */
static double energy_speed2(const cr_bodies *b, uint32_t i, cr_vec3 v0, cr_vec3 d)
{
    return cr_v3_len2(v0) + 2.0 * (cr_v3_dot(b->energy_acc[i], d) - b->energy_drag[i] * cr_v3_len(d));
}

static void plan_surface(cr_world *w, uint32_t i)
{
    cr_bodies *b = &w->bodies;
    uint32_t k = b->surface[i];
    double h = w->def.dt - b->t_local[i];
    double r = b->radius[i], m = b->mass[i], I = b->inertia[i];
    cr_vec3 g = w->def.gravity, x = b->x[i];
    site st = site_at(w, i, k, x, b->su[i], b->sv[i], true);
    keep_warm_start(b, i, &st.c);
    cr_vec3 n = st.c.normal;
    double gap = st.c.distance - r, vn = cr_v3_dot(b->v[i], n);
    if (gap < 0.0 || (gap > 0.0 && gap <= CR_CHORD_SAGITTA * r)) {
        /* Planned again at an event inside a step, the ball sits on the chord
         * of its last plan, which over a crest runs below the offset surface
         * by the sagitta and in a hollow above it (seed 004 eq. 37 puts only
         * the chord's end on the offset surface): back onto it, its speed
         * paying for the height it gains or loses (eq. 43's balance), so
         * that the energy stays what it was. Left above it, the ball would
         * fly: in the boiling scene's hollows 102,700 of 151,579 impacts
         * (10,000 balls, 60 Hz, in the collapse at 0.4 s) left one 30 nm to
         * 1 mm above the surface, and it landed again microseconds later:
         * half of all events were such hops. */
        move_keeping_energy(w, i, cr_v3_madd(b->x[i], n, -gap));
        x = b->x[i];
        gap = 0.0;
        vn = cr_v3_dot(b->v[i], n);
    }

    /* Off the surface (above it by more than a chord's sagitta: any gap
     * within that was closed above), or moving away from it faster than
     * resting: flying. */
    double bind_speed = cr_surface_bind_speed(w, b->v[i]);
    if (gap > 0.0 || vn > bind_speed) {
        unbind(w, i);
        plan_flying(w, i, b->t_local[i] > 0.0);
        return;
    }
    if (vn < -bind_speed) { /* driven into it: an impact first */
        cr_ball_land(w, i, k, NULL);
        if (b->surface[i] == CR_NO_SURFACE) {
            plan_flying(w, i, b->t_local[i] > 0.0);
            return;
        }
        x = b->x[i]; /* the landing put it on the surface: the chord starts there */
    }
    cr_rest_set in_plane;
    if (b->rest[i].count) cr_rest_in_plane(&b->rest[i], n, &in_plane);
    b->v[i] = lean(w, i, &in_plane, cr_v3_reject(b->v[i], n), w->resting_speed, &b->rest[i].held); /* resting in the normal direction, and on its neighbours */
    cr_vec3 v = b->v[i];
    double speed = cr_v3_len(v);
    cr_vec3 vhat = speed > 0.0 ? cr_v3_scale(v, 1.0 / speed) : cr_v3_zero();

    /* Eq. 8: the surface must supply the normal acceleration of the centre's
     * path, k_c |v|^2 with k_c = k / (1 - r k) on the offset surface. */
    double gn = cr_v3_dot(g, n);
    double kv = speed > 0.0 ? normal_curvature(&st.e, n, vhat) : 0.0;
    double required = kv / (1.0 - r * kv) * speed * speed;
    if (required < gn) { /* gravity bends the path more than the surface: it takes off */
        unbind(w, i);
        plan_flying(w, i, b->t_local[i] > 0.0);
        return;
    }
    double kn = required - gn; /* |K_n| / m */
    cr_vec3 gt = cr_v3_reject(g, n);
    double xi = st.nu * st.kappa * kn;         /* eq. 11, rolling friction per unit mass */
    double rmax = st.mu * kn * m / st.kappa;   /* eq. 16 */
    bool can_roll = I > 0.0;
    double tau = m * r * r / (m * r * r + I); /* eq. 26 */
    cr_vec3 slip = cr_v3_sub(v, cr_v3_scale(cr_v3_cross(b->w[i], n), r));
    double slip_len = cr_v3_len(slip), still_speed = 1e-9 + 1e-3 * w->resting_speed;

    /* State 4, lying still: no motion, and what pulls it along the surface
     * (less what it leans on) is held by rolling resistance (a ball) or
     * static friction (a particle). */
    double pull = cr_v3_len(lean(w, i, &in_plane, gt, INFINITY, NULL));
    if (speed <= still_speed && slip_len <= still_speed && (can_roll ? pull <= xi : m * pull <= rmax)) {
        plan_still(w, i);
        return;
    }

    cr_vec3 at, alpha = cr_v3_zero();
    double t_change = INFINITY;
    cr_ball_state state = CR_BALL_SLIDING;
    cr_vec3 ahat = lean(w, i, &in_plane, cr_v3_madd(gt, vhat, -xi), INFINITY, NULL); /* eq. 13, held by what it leans on */
    if (can_roll && slip_len <= still_speed) {
        double rroll = m * I / (m * r * r + I) * cr_v3_len(ahat); /* eq. 18 */
        if (rroll <= rmax) state = CR_BALL_ROLLING;
    }
    if (state == CR_BALL_ROLLING) {
        at = cr_v3_scale(ahat, tau); /* eq. 20 with eq. 18-19: R = -|R|roll a^ / |a^| */
    } else {
        /* Eq. 19: friction at its maximum against the slip (for a ball at the
         * start of sliding without slip yet, against the pull). A slip no
         * larger than still_speed is none, as for rolling above: a ball
         * that cannot roll (|R|roll > |R|max) with the slip at rounding
         * (1e-15 m/s) would otherwise take friction along the rounding's
         * direction, its slip "reverse" within 1e-16 s, and the state
         * event plan it the same way again, 64 times at one instant: the
         * cap of max_events_per_body, after which its impacts were left
         * to projection (seed 004: state 3 starts from v~ = 0 along the
         * pull). */
        bool slipping = slip_len > still_speed;
        cr_vec3 dir = slipping ? cr_v3_scale(slip, 1.0 / slip_len) : cr_v3_normalize(ahat);
        cr_vec3 R = cr_v3_scale(dir, -rmax);
        at = cr_v3_madd(ahat, R, 1.0 / m);
        if (can_roll) alpha = cr_v3_scale(cr_v3_cross(cr_v3_scale(n, -r), R), 1.0 / I); /* eq. 23 */
        /* The slip changes at a constant rate over the plan; it stops where
         * it would reverse (state 3 ends: <v~, v> <= 0 in seed 004). */
        cr_vec3 rate = cr_v3_sub(at, cr_v3_scale(cr_v3_cross(alpha, n), r));
        double sr = cr_v3_dot(slip, rate);
        if (slipping && sr < 0.0 && rmax > 0.0) t_change = -slip_len * slip_len / sr;
    }
    at = lean(w, i, &in_plane, at, INFINITY, NULL);
    double hp = t_change < h ? t_change : h;
    if (state == CR_BALL_ROLLING) { /* eq. 23, state 2: the spin follows the velocity */
        start_rolling(w, i, n);
        v = b->v[i];
    }

    /* The moving algorithm, eq. 36-39. */
    cr_vec3 dbar = cr_v3_madd(cr_v3_scale(v, hp), at, 0.5 * hp * hp);
    site s1 = site_at(w, i, k, cr_v3_add(x, dbar), st.c.anchor_u, st.c.anchor_v, false); /* only its point and normal */
    cr_vec3 n1 = s1.c.normal;
    cr_vec3 x1 = cr_v3_madd(s1.c.point, n1, r);
    cr_vec3 v1 = cr_v3_madd(v, at, hp);
    bool leaning[CR_MAX_LEANING_PLANES];
    uint32_t np = w->planes.count < CR_MAX_LEANING_PLANES ? w->planes.count : CR_MAX_LEANING_PLANES;
    double margin = cr_contact_margin(w, 2.0 * r) + 1e-9 * r;
    for (uint32_t k = 0; k < np; ++k) {
        const cr_plane_def *pl = &w->planes.def[k];
        leaning[k] = -cr_penetration_sphere_plane(x, r, pl->point, pl->normal) <= margin &&
                     -cr_v3_dot(v, pl->normal) <= w->resting_speed;
    }
    /* (With more planes than the cap, walls are left to events and the
     * end-of-step guard.) */
    /* The neighbours it leans on and does not run into: those lean() held
     * its velocity out of (the held mask; faster is an impact, for the
     * events). Judged again on the velocity lean left, a neighbour it ran
     * into too fast was held here too: its path stopped, its velocity did
     * not, and a ball behind ran into that path with no impact (the
     * velocities parted). */
    bool held[CR_REST_MAX];
    const cr_rest_set *rs = &b->rest[i];
    for (uint32_t k = 0; k < rs->count; ++k) held[k] = rs->held >> k & 1u;
    if (w->planes.count <= CR_MAX_LEANING_PLANES) keep_off(w, i, x, &x1, &n1, &v1, &s1.c, leaning, held);
    /* The next search starts at the chord's end, whose surface the memo
     * holds now (s1's, or keep_off's last): a plan again at an event on
     * the chord (an impact, the state change at its end) takes Newton's
     * first step from there without an evaluation, where the chord's start
     * (st's, no longer in the memo) cost one: 3 -> 2 evaluations a plan
     * again (docs/benchmarks.md, "guess"). */
    keep_warm_start(b, i, &s1.c);
    v1 = cr_v3_reject(v1, n1);
    cr_vec3 d = cr_v3_sub(x1, x);
    /* Eq. 43: the energy balance sets the speed when no sliding friction
     * works (rolling, or sliding without friction). */
    /* Rolling friction works against the displacement, whatever the
     * direction the ball started in: -xi |d|, never +. */
    double f = state == CR_BALL_ROLLING ? tau : 1.0;
    b->energy_on[i] = state == CR_BALL_ROLLING || rmax == 0.0;
    b->energy_acc[i] = cr_v3_scale(g, f);
    b->energy_drag[i] = f * xi;
    /* A step the ball cannot pay for (it would climb higher than its kinetic
     * energy takes it, as where what it leans on turns its pull uphill)
     * is not taken: it lies still. */
    double budget = b->energy_on[i] ? energy_speed2(b, i, v, d)
                                    : m * cr_v3_len2(v) + I * cr_v3_len2(b->w[i]) + 2.0 * m * cr_v3_dot(g, d);
    if (budget < 0.0) {
        plan_still(w, i);
        return;
    }
    if (b->energy_on[i]) {
        double v1_len = cr_v3_len(v1);
        v1 = budget > 0.0 && v1_len > 0.0 ? cr_v3_scale(v1, sqrt(budget) / v1_len) : cr_v3_zero();
    }
    if (cr_v3_dot(v1, v) < 0.0 && cr_v3_len(gt) <= xi) v1 = cr_v3_zero(); /* rolling friction never reverses */
    cr_vec3 w1 = state == CR_BALL_ROLLING ? cr_v3_scale(cr_v3_cross(n1, v1), 1.0 / r) : cr_v3_madd(b->w[i], alpha, hp);

    b->ball_state[i] = (uint8_t)state;
    b->acc[i] = cr_v3_zero();
    b->vpath[i] = cr_v3_scale(d, 1.0 / hp);
    b->dvel[i] = cr_v3_scale(cr_v3_sub(v1, v), 1.0 / hp);
    b->alpha[i] = cr_v3_scale(cr_v3_sub(w1, b->w[i]), 1.0 / hp);
    b->t_state[i] = hp < h ? b->t_local[i] + hp : INFINITY;
    if (hp < h) return;
    /* The plan runs to the step's end, where the moving algorithm put the
     * ball on the offset surface (eq. 37, x1 on the closest point s1): kept,
     * so that the step's end need not look for that closest point again
     * (at_plan_end). The position is the one the step's advance will give. */
    b->plan_end_x[i] = cr_body_position_at(w, i, w->def.dt);
    b->plan_end_n[i] = n1;
    b->plan_end_u[i] = s1.c.anchor_u; /* the next search's warm start */
    b->plan_end_v[i] = s1.c.anchor_v;
    b->plan_end_on[i] = 1;
}

/* Ball i stands where its plan ends on its surface, to the bit: nothing
 * moved it since (no impact, which plans it again, no projection), so its
 * closest point is the plan's s1 (seed 004 eq. 37: x1 = s1 + r n1; the
 * gap there is rounding, far below the time-of-impact tolerance). */
static bool at_plan_end(const cr_bodies *b, uint32_t i)
{
    cr_vec3 x = b->x[i], e = b->plan_end_x[i];
    return b->plan_end_on[i] && x.x == e.x && x.y == e.y && x.z == e.z;
}

void cr_body_plan(cr_world *w, uint32_t i)
{
    cr_bodies *b = &w->bodies;
    b->t_state[i] = INFINITY;
    b->plan_end_on[i] = 0;
    b->rest[i].held = 0; /* until its plan holds it (lean, cr_rest_hold_flying) */
    if (!cr_slot_dynamic(b, i) || b->asleep[i]) { /* asleep: v = w = 0, it stays (ball_sleep.c) */
        b->acc[i] = b->alpha[i] = cr_v3_zero();
        cr_body_plan_free(w, i);
        return;
    }
    if (b->surface[i] != CR_NO_SURFACE) {
        plan_surface(w, i);
        return;
    }
    plan_flying(w, i, false);
}

void cr_ball_correct_speed(cr_world *w, uint32_t i, cr_vec3 v0, cr_vec3 w0, cr_vec3 d)
{
    cr_bodies *b = &w->bodies;
    if (!b->energy_on[i]) {
        double m = b->mass[i], I = b->inertia[i];
        double allowed = 0.5 * m * cr_v3_len2(v0) + 0.5 * I * cr_v3_len2(w0) + m * cr_v3_dot(w->def.gravity, d);
        double now = 0.5 * m * cr_v3_len2(b->v[i]) + 0.5 * I * cr_v3_len2(b->w[i]);
        if (now > allowed) {
            double k = allowed > 0.0 ? sqrt(allowed / now) : 0.0;
            b->v[i] = cr_v3_scale(b->v[i], k);
            b->w[i] = cr_v3_scale(b->w[i], k);
        }
        return;
    }
    double len = cr_v3_len(b->v[i]), target = energy_speed2(b, i, v0, d);
    b->v[i] = target > 0.0 && len > 0.0 ? cr_v3_scale(b->v[i], sqrt(target) / len) : cr_v3_zero();
    if (b->ball_state[i] == CR_BALL_ROLLING) {
        cr_vec3 n = b->plan_end_n[i];
        if (!at_plan_end(b, i)) cr_ball_surface_gap(w, i, b->surface[i], b->x[i], &n, false);
        b->w[i] = cr_v3_scale(cr_v3_cross(n, b->v[i]), 1.0 / b->radius[i]);
    }
}

void cr_ball_land(cr_world *w, uint32_t i, uint32_t k, cr_impact *report)
{
    cr_bodies *b = &w->bodies;
    const cr_surface *s = w->surfaces.surface[k];
    site st = site_at(w, i, k, b->x[i], b->su[i], b->sv[i], true);
    keep_warm_start(b, i, &st.c);
    cr_vec3 n = st.c.normal;
    cr_contact_side sa = cr_body_side(w, i, cr_v3_scale(n, -b->radius[i]));
    cr_contact_side sb = cr_contact_side_immovable();
    double e = b->restitution[i] * s->def.restitution;
    cr_vec3 p = cr_world_impact_impulse(w, &sa, &sb, n, e, st.mu);
    if (report) {
        report->normal = n;
        report->impulse = p;
        report->va_before = b->v[i];
        report->normal_speed = cr_v3_dot(n, cr_contact_point_velocity(&sa));
        report->static_id.index = k;
        report->static_id.generation = 1;
        report->static_id.type = CR_STATIC_SURFACE;
    }
    cr_contact_apply(&sa, &sb, p);
    cr_body_store_side(w, i, &sa);
    if (report) report->va_after = b->v[i];
    /* It stays on the surface unless it bounces off. */
    if (cr_v3_dot(b->v[i], n) <= cr_surface_bind_speed(w, b->v[i])) {
        b->surface[i] = k;
        b->v[i] = cr_v3_reject(b->v[i], n);
        move_keeping_energy(w, i, cr_v3_madd(st.c.point, n, b->radius[i]));
    } else {
        unbind(w, i);
    }
}

/* Ball i at the step's end: on its surface and off the walls, or, flying,
 * not behind any surface. */
void cr_ball_keep_above(cr_world *w, uint32_t i)
{
    cr_bodies *b = &w->bodies;
    if (!cr_slot_alive(b, i) || !cr_slot_dynamic(b, i) || b->asleep[i]) return; /* asleep: it stays */
    if (b->surface[i] != CR_NO_SURFACE) {
        /* A ball on a surface ends its plan on it; position projection
         * against other balls, or impacts left over by the events'
         * bound, may have moved it off or into a wall: back on, and out. */
        double worst = 0.0;
        for (uint32_t k = 0; k < w->planes.count; ++k)
            worst = fmax(worst, cr_penetration_sphere_plane(b->x[i], b->radius[i], w->planes.def[k].point,
                                                            w->planes.def[k].normal));
        cr_vec3 n = b->plan_end_n[i];
        double gap = 0.0; /* on the plan's end: on the surface (at_plan_end) */
        if (at_plan_end(b, i)) {
            b->su[i] = b->plan_end_u[i];
            b->sv[i] = b->plan_end_v[i];
        } else {
            gap = cr_ball_surface_gap(w, i, b->surface[i], b->x[i], &n, true);
        }
        if (fabs(gap) > w->def.toi_tolerance || worst > w->def.toi_tolerance) {
            cr_surface_eval e;
            cr_closest c = ball_closest(w, i, b->surface[i], b->x[i], b->su[i], b->sv[i], &e);
            cr_vec3 x = cr_v3_madd(c.point, c.normal, b->radius[i]);
            keep_off(w, i, b->x[i], &x, &n, &b->v[i], &c, NULL, NULL);
            move_keeping_energy(w, i, x);
            keep_warm_start(b, i, &c);
        }
        return;
    }
    for (uint32_t k = 0; k < w->surfaces.count; ++k) {
        cr_vec3 n;
        double gap = cr_ball_surface_gap(w, i, k, b->x[i], &n, true);
        if (gap >= -w->def.toi_tolerance) continue;
        /* Behind the surface (a landing the time of impact could not
         * place, near a graze): back onto it, the speed paying for the
         * height (eq. 43's balance), and the landing resolved now. */
        move_keeping_energy(w, i, cr_v3_madd(b->x[i], n, -gap));
        cr_ball_land(w, i, k, NULL);
        break;
    }
}
