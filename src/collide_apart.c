/* Pairs found apart: how far a pair of bodies can have closed its gap since
 * the separating-axis query that found it apart, so that the narrow phase
 * may skip the query while the gap cannot have closed
 * (docs/physics/collide-poly.md, "Pairs kept apart"). Pure function. */
#include <math.h>

#include "collide_poly.h"

double cr_apart_motion(cr_vec3 x_ref, cr_quat q_ref, cr_vec3 x, cr_quat q, double radius)
{
    /* A point u of A (|u| <= radius) sits at x + R(q) u in B's frame: it
     * moved by (x - x_ref) + R(q_ref) (R(d) - I) u, d = conj(q_ref) q, and
     * |(R(d) - I) u| = 2 sin(theta / 2) |u| at most, theta the angle of d,
     * sin(theta / 2) the length of d's vector part (unit quaternions; taken
     * from the vector part rather than from cos(theta / 2) = |d.w|, which
     * loses the small angles of resting bodies to rounding) */
    cr_quat c = {q_ref.w, -q_ref.x, -q_ref.y, -q_ref.z}, d = cr_q_mul(c, q);
    double s = fmin(1.0, sqrt(d.x * d.x + d.y * d.y + d.z * d.z));
    return cr_v3_len(cr_v3_sub(x, x_ref)) + 2.0 * s * radius;
}
