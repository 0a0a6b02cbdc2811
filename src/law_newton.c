/* The Newton impulse law of seeds 000 and 001.
 *
 * Seed 000 appendix B works with the velocity jolt of a particle: the normal
 * part -(1+e) m_red v_n (c.2) and a friction part mu times it opposite the
 * sliding velocity (c.3-c.4), clipped so that friction never exceeds the
 * tangential velocity. Seed 001 §3.1 writes the same for a plane as the
 * impulse j = -(1+e) m v_N. Here the law is written with the collision
 * matrix K so that it also holds for balls (friction at the contact point
 * spins them) and for immovable sides: for two particles n.K n = 1/m_a + 1/m_b
 * and j/m_a is exactly the seed's jolt.
 */
#include "carom/collide.h"

cr_newton_result cr_law_newton(const cr_contact_side *a, const cr_contact_side *b, cr_vec3 n,
                               double restitution, double friction, double resting_speed)
{
    cr_newton_result res = {cr_v3_zero(), 0.0, 0.0, false, false};
    cr_vec3 u = cr_v3_sub(cr_contact_point_velocity(a), cr_contact_point_velocity(b));
    double vn = cr_v3_dot(n, u); /* b.2: < 0 impacting, = 0 resting, > 0 separating */
    if (!(vn < 0.0)) return res;

    cr_mat3 k = cr_collision_matrix(a, b);
    double knn = cr_v3_dot(n, cr_m3_mul_v(k, n));
    if (!(knn > 0.0)) return res; /* both sides immovable: nothing can move */

    /* b.2: a contact approaching no faster than the resting speed is resting
     * contact; it gets the impulse that stops it (e = 0), which over a step is
     * seed 001's contact force f_c = -n.F_ext times dt. */
    res.resting = -vn <= resting_speed;
    double e = res.resting ? 0.0 : restitution;
    double j = -(1.0 + e) * vn / knn; /* c.2 */
    res.normal_impulse = j;
    res.impulse = cr_v3_scale(n, j);

    /* c.3-c.4: friction opposite the sliding velocity, mu j at most, and never
     * more than stops the sliding (the seed's clip). No sliding, no friction
     * (seed 001: "don't try this if v has no tangential component"). */
    cr_vec3 ut = cr_v3_reject(u, n);
    double ut_len = cr_v3_len(ut);
    if (friction > 0.0 && ut_len > 0.0) {
        cr_vec3 t = cr_v3_scale(ut, 1.0 / ut_len);
        double ktt = cr_v3_dot(t, cr_m3_mul_v(k, t));
        double jt = friction * j;
        if (ktt > 0.0 && jt * ktt > ut_len) {
            jt = ut_len / ktt;
            res.friction_clipped = true;
        }
        res.tangent_impulse = jt;
        res.impulse = cr_v3_madd(res.impulse, t, -jt);
    }
    return res;
}
