/* Seed 004 §8: ball-ball impact with the rotational effective mass.
 *
 * A ball rolling on a surface carries kinetic energy (m + I/r^2)|v|^2 / 2
 * (eq. 40, 49-50: omega = (m + I/r^2) / 2). The seed treats the impact as
 * frictionless and central: the velocity parts across d are unchanged and
 * along d the balls exchange as in a central impact of masses omega_1,
 * omega_2 (eq. 51-54), which for e = 1 keeps sum omega_i |v_i|^2. */
#include "carom/collide.h"

void cr_law_rolling(double mass_a, double mass_b, cr_vec3 va, cr_vec3 vb, cr_vec3 n, double restitution,
                    cr_vec3 *dva, cr_vec3 *dvb)
{
    *dva = *dvb = cr_v3_zero();
    double vd = cr_v3_dot(n, cr_v3_sub(va, vb)); /* < 0: approaching */
    double inv = (mass_a > 0.0 ? 1.0 / mass_a : 0.0) + (mass_b > 0.0 ? 1.0 / mass_b : 0.0);
    if (!(vd < 0.0) || !(inv > 0.0)) return;
    /* Eq. 53-54 written as an exchange J along n: v_d1' - v_d2' = -e (v_d1 - v_d2). */
    double j = -(1.0 + restitution) * vd / inv;
    if (mass_a > 0.0) *dva = cr_v3_scale(n, j / mass_a);
    if (mass_b > 0.0) *dvb = cr_v3_scale(n, -j / mass_b);
}
