/* carom — pure collision kernels: overlap, time of impact and impulse laws.
 *
 * None of these needs a world: they are functions of the contact alone, so
 * that they can be tested against closed-form answers and used on their own
 * (DESIGN: "pure kernels are public", after MuJoCo's collision functions).
 */
#ifndef CAROM_COLLIDE_H
#define CAROM_COLLIDE_H

#include "carom/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- overlap (seed 000 a.1-a.2, b.1) -------------------------------------- */

/* Sphere-sphere: overlap r_a + r_b - |x_a - x_b| (> 0 when they overlap) and
 * the unit direction from b to a in *n. Coincident centres give n = +z. */
double cr_overlap_sphere_sphere(cr_vec3 xa, double ra, cr_vec3 xb, double rb, cr_vec3 *n);

/* Sphere-plane: the signed penetration of seed 000's modified eq. 5.9,
 * r - (x - p).n. Positive also when the centre is behind the plane, so a
 * sphere that tunnelled is still in contact and pushed back, never lost. */
double cr_penetration_sphere_plane(cr_vec3 x, double r, cr_vec3 p, cr_vec3 n);

/* ---- time of impact (seed 004 eq. 44-47, seed 001 §3.3) ------------------ */

typedef enum cr_toi_result {
    CR_TOI_MISS = 0,   /* no contact in the interval */
    CR_TOI_HIT,        /* first contact at *x */
    CR_TOI_PARALLEL,   /* moving in parallel (|b|^2 < delta): no impact, seed 004 §7 */
    CR_TOI_GRAZE       /* within the tolerance, not into contact (cr_toi_quadratic_paths) */
} cr_toi_result;

/* Seed 004 eq. 47: spheres at p1, p2 moving by step vectors d1, d2 over the
 * unit interval; r = r1 + r2. Finds the first x in [x0, 1] with
 * |p1 + x d1 - p2 - x d2| = r, the smaller root (approach, not departure).
 * Already-overlapping spheres that approach give x = x0; separating ones miss.
 * Degenerate cases of §7: no real root -> miss; |d2 - d1|^2 below a tolerance
 * relative to r^2 -> parallel (the balls keep their distance: the seed's
 * d2 = d1). The root is taken in the cancellation-free form. */
cr_toi_result cr_toi_sphere_sphere(cr_vec3 p1, cr_vec3 d1, cr_vec3 p2, cr_vec3 d2, double r,
                                   double x0, double *x);

/* First t in [t0, t1] where the quadratic gap g(t) = c0 + c1 t + c2 t^2 reaches
 * zero from above: the sphere-plane time of impact under constant acceleration
 * (c0 = signed distance minus radius, c1 = normal speed, c2 = a_n / 2).
 * When g(t0) <= 0 it is a hit at t0 only if g is decreasing there. */
cr_toi_result cr_toi_quadratic(double c0, double c1, double c2, double t0, double t1, double *t);

/* First contact of two spheres on quadratic paths (bodies under constant,
 * different accelerations): d0, dv, da their relative position, velocity
 * and acceleration at s = 0, so that d(s) = d0 + dv s + da s^2 / 2, and
 * r = r1 + r2. A contact (CR_TOI_HIT) is a gap |d(s)| - r that reaches 0
 * in [0, span] (s = 0 when it is within eps there already); its time *s
 * is where the gap came down to eps / 2 (within eps / 4) just before: the
 * legal side, within the tolerance. A gap that comes down to eps / 2 but
 * not to 0 is CR_TOI_GRAZE, *s where it does: whether that is a contact is
 * the caller's convention. Exact: the roots of the quartic
 * |d(s)|^2 - (r + eps / 2)^2, bracketed between the roots of its
 * derivative (a cubic, itself split at the roots of its quadratic
 * derivative), safeguarded Newton. A miss costs one square root where the
 * linear motion's closest approach less |da| span^2 / 2 clears the
 * tolerance, a few polynomial evaluations otherwise. */
cr_toi_result cr_toi_quadratic_paths(cr_vec3 d0, cr_vec3 dv, cr_vec3 da, double r, double span, double eps, double *s);

/* A gap function for the general time of impact: signed distance at time t. */
typedef double cr_gap_fn(double t, void *ctx);

/* Seed 001 §3.3: the collision time by bisection. Requires gap(t_legal) > 0
 * and gap(t_illegal) <= 0; halves the bracket until the gap at the returned
 * time lies in (-eps, eps] or the bracket is below double resolution. Returns
 * the number of halvings. The returned time never lies past the true contact
 * by more than the tolerance allows: it is the legal end of the bracket. */
int cr_toi_bisect(cr_gap_fn *gap, void *ctx, double t_legal, double t_illegal, double eps, double *t);

/* cr_toi_bisect's bracket and stopping rule (the legal end, gap in (-eps, eps]
 * or the bracket below double resolution), with the gaps at both ends
 * known, and the next time by the Illinois variant of regula falsi instead
 * of the midpoint: superlinear on a smooth gap, where bisection gains one
 * bit per evaluation. After 16 such steps it falls back to halving, so
 * that a gap the secant models badly still ends. Returns the gap
 * evaluations made. */
int cr_toi_refine(cr_gap_fn *gap, void *ctx, double t_legal, double g_legal, double t_illegal, double g_illegal,
                  double eps, double *t);

/* First contact of a gap function on [t0, t1] whose rate of change is bounded
 * by max_rate (|g'(t)| <= max_rate): conservative advancement to bracket the
 * first root, then cr_toi_bisect. Works where the motion is not linear (the
 * event method with different accelerations). */
cr_toi_result cr_toi_conservative(cr_gap_fn *gap, void *ctx, double t0, double t1, double max_rate,
                                  double eps, double *t);

/* First contact of a smooth gap function on [t0, t1] by sampling: the gap
 * at samples + 1 evenly spaced times, a parabola through each three
 * neighbours to catch a dip between samples, then cr_toi_refine. Cheaper
 * than conservative advancement when the gap changes slowly against a large
 * rate bound (a ball skimming a surface); it relies on the gap being well
 * described by a parabola over two sample intervals. */
cr_toi_result cr_toi_sampled(cr_gap_fn *gap, void *ctx, double t0, double t1, int samples, double eps, double *t);

/* cr_toi_sampled with the gap at t0 already known (g0 = gap(t0, ctx)): the
 * caller that has just taken it is spared a second evaluation. */
cr_toi_result cr_toi_sampled_from(cr_gap_fn *gap, void *ctx, double t0, double g0, double t1, int samples, double eps,
                                  double *t);

/* A gap function that also gives its time derivative: the signed distance at
 * time t, and into *slope its rate (for a point's distance to a surface,
 * n . v: the closest point's unit normal against the path's velocity). */
typedef double cr_gap_slope_fn(double t, void *ctx, double *slope);

/* First contact of a smooth gap on [t0, t1] from its values and slopes (g0,
 * s0: those at t0, already taken): samples evenly spaced samples, the cubic
 * Hermite between each two neighbours to catch a dip between them (looked
 * at where the cubic's minimum, less its departure from a parabola, reaches
 * zero, halving the interval up to 4 times), then cr_toi_refine's bracket
 * and stopping rule, each next time where the cubic through the bracket's
 * ends meets eps / 2. Slopes make each sample worth two: the landing checks
 * take 1 sample where cr_toi_sampled_from takes 4. */
cr_toi_result cr_toi_hermite(cr_gap_slope_fn *gap, void *ctx, double t0, double g0, double s0, double t1, int samples,
                             double eps, double *t);

/* ---- one side of a contact, and the collision matrix --------------------- */

typedef struct cr_contact_side {
    double inv_mass;     /* 0: immovable */
    cr_mat3 inv_inertia; /* world frame; zero: no rotation (a particle or immovable) */
    cr_vec3 r;           /* contact point minus centre of mass */
    cr_vec3 v, w;        /* centre velocity and angular velocity */
} cr_contact_side;

cr_contact_side cr_contact_side_immovable(void);

/* Velocity of the contact point of this side: v + w x r. */
cr_vec3 cr_contact_point_velocity(const cr_contact_side *s);

/* Collision matrix K with du = K p for an impulse p acting on a and -p on b,
 * where u is the relative contact velocity of a with respect to b:
 * K = (1/m_a + 1/m_b) 1 - [r_a]x I_a^-1 [r_a]x - [r_b]x I_b^-1 [r_b]x
 * (seed 002 §2; seed 000's reduced mass is its particle special case). */
cr_mat3 cr_collision_matrix(const cr_contact_side *a, const cr_contact_side *b);

/* Applies impulse p to a and -p to b (velocities only). */
void cr_contact_apply(cr_contact_side *a, cr_contact_side *b, cr_vec3 p);

/* ---- the Newton impulse law (seed 000 c.1-c.4, seed 001 §3.1) ------------- */

typedef struct cr_newton_result {
    cr_vec3 impulse;       /* acting on a */
    double normal_impulse; /* j >= 0 */
    double tangent_impulse;/* magnitude of the friction part, <= mu j */
    bool resting;          /* |v_n| <= resting_speed: restitution not applied */
    bool friction_clipped; /* the seed's clip: friction limited to stop sliding */
} cr_newton_result;

/* Impulse on a for the contact with unit normal n (from b towards a):
 * j = -(1+e) v_n / (n.K n) (seed 000 c.2, seed 001 j = -(1+e) m v_N),
 * friction mu j opposite the sliding velocity, clipped so that it never
 * exceeds the impulse that stops sliding (seed 000 c.4) and guarded where
 * there is no sliding (seed 001 §3.1). A contact that is not approaching
 * (v_n >= 0) gets no impulse. |v_n| <= resting_speed counts as resting contact
 * (seed 000 b.2): e is taken as 0, so resting bodies do not jitter. */
cr_newton_result cr_law_newton(const cr_contact_side *a, const cr_contact_side *b, cr_vec3 n,
                               double restitution, double friction, double resting_speed);

/* Seed 004 eq. 49-56: a frictionless central impact of two balls weighing
 * their effective masses (m + I/r^2 for a ball rolling on a surface, whose
 * kinetic energy is (m + I/r^2) |v|^2 / 2, eq. 40; m otherwise; 0 for an
 * immovable one). n is the unit direction from b to a; dva, dvb receive the
 * centre velocity changes. With e = 1 this is eq. 53-54 exactly; with e < 1
 * the normal relative speed becomes -e times what it was. */
void cr_law_rolling(double mass_a, double mass_b, cr_vec3 va, cr_vec3 vb, cr_vec3 n, double restitution,
                    cr_vec3 *dva, cr_vec3 *dvb);

/* Seed 000 c.1: the reduced-mass ratio m_b / (m_a + m_b) of side a, written
 * with inverse masses so that an immovable b (inv_mass_b = 0) gives 1 (c.1 b). */
double cr_reduced_mass_ratio(double inv_mass_a, double inv_mass_b);

/* Seed 000 c.5 / eq. B.18: the position projection of a, k_p m_red Δx n. */
cr_vec3 cr_position_projection(double k_p, double reduced_mass_ratio, double overlap, cr_vec3 n);

/* Moment of inertia of a sphere of mass m and radius r (hollow: thin shell). */
double cr_sphere_inertia(cr_inertia_kind kind, double mass, double radius, double custom);
/* Seed 004 eq. 17 for a hollow ball of outer radius r1 and inner r0 with the
 * density that gives it mass m: I = 2/5 m (r1^5 - r0^5) / (r1^3 - r0^3). */
double cr_hollow_sphere_inertia(double mass, double r1, double r0);

#ifdef __cplusplus
}
#endif
#endif
