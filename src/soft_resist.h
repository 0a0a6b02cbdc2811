/* Rolling and spin resistance of the sub-stepped solver's contacts
 * (world option rigid_substeps > 0; docs/physics/substep.md, "Rolling
 * resistance"): a body's rolling_friction nu, which seed 004 eq. 11 uses
 * on surfaces, resists the relative turn of the two bodies at each of
 * their contact points. An angular impulse L on a (and -L on b) opposes
 * w_a - w_b, in magnitude at most
 *   |L| <= nu R* lambda_n,   nu = nu_a + nu_b,   R* = ra rb / (ra + rb)
 * (lambda_n the point's normal impulse; ra, rb the centres' distances from
 * the contact plane; against a plane R* = ra): a torque of nu R* N, the
 * constant directional torque of granular codes' rolling resistance
 * (Ai et al., Powder Technology 206, 2011, model A), with nu the
 * dimensionless coefficient of rolling resistance (a rolling ball on a
 * plane decelerates by (5/7) nu g; it rests on a slope of tan theta <=
 * nu). One bound for rolling and for spin about the normal: both come of
 * the contact patch's deformation, and without the spin part a ball
 * spinning about the vertical never stops and keeps its island awake.
 *
 * The row is a Gauss-Seidel update of the accumulated impulse, clamped to
 * the ball of that radius (as the sphere points' friction cone):
 *   L' = clamp(L - M w_rel),  M = (I_a^-1 + I_b^-1)^-1,
 * taken after the point's own rows in every solve and relax pass. Like
 * the point's impulses, L is kept from substep to substep (the warm start
 * applies it again) and from step to step (cr_rigid_contact's rest_roll,
 * carried with the contact as rest_t is, and kept by checkpoints since
 * version 6): started from zero each step, the first substep's one pass
 * found it again only in part, and a ball held on a slope crept down it
 * (0.23 mm/s at tan theta = nu / 2). Seed 003's solver (rigid_solve.c)
 * takes the same bound as friction rows of its multiplier system.
 * Internal. */
#ifndef CAROM_SOFT_RESIST_H
#define CAROM_SOFT_RESIST_H

#include <stdbool.h>
#include <stdint.h>

#include "soft_contact.h"

struct cr_world;

/* Whether a live body (of any type: a static ball's nu counts in its
 * contacts too) has rolling_friction > 0: the rows run only then (the
 * world's bits are otherwise those of a solver without them). */
bool cr_world_resists(const struct cr_world *w);

/* The bound's factor nu R* (0: no resistance at the point). */
static inline double cr_resist_factor(double nu, double ra, double rb)
{
    double arm = rb > 0.0 ? ra * rb / (ra + rb) : ra;
    return nu > 0.0 && arm > 0.0 ? nu * arm : 0.0;
}

/* The accumulated impulse clamped to |L| <= bound. */
static inline cr_vec3 cr_resist_clamp(cr_vec3 next, double bound)
{
    double l2 = cr_v3_len2(next);
    return l2 > bound * bound ? cr_v3_scale(next, bound > 0.0 ? bound / sqrt(l2) : 0.0) : next;
}

/* A point's resistance row in the general kernel (rigid_substep.c), one
 * per point in contact order. */
typedef struct cr_soft_resist {
    cr_mat3 mass;    /* (I_a^-1 + I_b^-1)^-1, world */
    cr_vec3 lambda;  /* angular impulse of one substep on a (accumulated, clamped) */
    double factor;   /* nu R*: the bound per unit normal impulse; 0: none */
} cr_soft_resist;

/* The row of point p (its arms and normal set), nu the bodies' summed
 * rolling_friction, lambda its warm start (last step's impulse per
 * substep). */
void cr_soft_resist_prepare(const cr_soft_body *bodies, const cr_soft_point *p, double nu, cr_vec3 lambda,
                            cr_soft_resist *r);
/* The rows of the listed runs' points, after their own rows (cr_soft_
 * solve's or cr_soft_warm_start's runs, the same list): warm, their
 * impulses applied; else one Gauss-Seidel update each. */
void cr_soft_resist_pass(cr_soft_body *bodies, const cr_soft_point *p, cr_soft_resist *r, const uint32_t *run_start,
                         const uint32_t *runs, uint32_t count, bool warm);

#endif
