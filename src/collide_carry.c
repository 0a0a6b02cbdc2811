/* Carried contacts: the manifold of a resting pair kept from the step that
 * made it, while the pair's relative pose stays within a tolerance of the
 * pose it was made at (docs/physics/collide-poly.md, "Carried manifolds").
 *
 * A contact is carried as its two surface points and its normal in the
 * bodies' own frames: A's point fixed in A, B's point and the normal fixed
 * in B (seed 003's contact plane moves with B's face). At the new poses the
 * separation is the gap between the two points along the normal, exact for
 * a vertex of A on a face of B, and the point is their midpoint. Pure
 * functions. */
#include "collide_poly.h"

bool cr_carry_close(cr_vec3 x_ref, cr_quat q_ref, cr_vec3 x, cr_quat q, double length, double tolerance)
{
    /* |q_ref . q| = cos(theta / 2) for the angle theta between the two
     * orientations; cos(t / 2) >= 1 - t^2 / 8 bounds theta by t to first order */
    double dot = fabs(q_ref.w * q.w + q_ref.x * q.x + q_ref.y * q.y + q_ref.z * q.z);
    return cr_v3_len2(cr_v3_sub(x, x_ref)) <= tolerance * tolerance * length * length &&
           dot >= 1.0 - 0.125 * tolerance * tolerance;
}
