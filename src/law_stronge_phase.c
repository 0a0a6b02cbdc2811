/* Compression, decompression and Stronge's termination along a ray on which
 * du/dp_z is constant (seed 002 §3.4, §3.6 eq. 6, §3.9 eq. 8).
 *
 * On such a ray u_z(p_z) = u_z + k_z dp and the work W = int u_z dp_z grows by
 * u_z dp + k_z dp^2 / 2, so every phase has a closed form:
 *   compression until u_z = 0:   W_c += -u_z^2 / (2 k_z)          (§4 step 6c)
 *   decompression to the end:    u_z' = sqrt(2 k_z (-e^2 W_c - W_d) + u_z^2)  (§4 step 6d)
 * The seed's rays have k_z > 0 (stable sticking, diverging and stationary
 * rays, §3.9). A converging ray may have k_z <= 0 and ends at the origin
 * (dpz_max), so the general case is handled: a decompression with k_z < 0
 * either ends (Stronge) before u_z falls back to 0 or turns into a new
 * compression (Baber's correction, §1.1).
 */
#include <math.h>

#include "law_stronge_internal.h"

cr_status stronge_ray_advance(const stronge_problem *pb, stronge_state *s, cr_vec3 q, cr_vec3 k,
                              double dpz_max, char *msg, size_t msg_size)
{
    const double e2 = pb->e * pb->e, kz = k.z;
    double uz = s->u.z;
    double used = 0.0; /* p_z travelled along the ray */

    for (int pass = 0; pass < 8 && !s->done; ++pass) {
        double left = dpz_max - used; /* INFINITY - finite stays INFINITY */
        if (!(left > 0.0)) break;
        bool compress = uz < 0.0 || (uz == 0.0 && kz < 0.0);
        if (compress) {
            /* Compression (§3.4): u_z < 0, W_c decreases (§4 step 6c). */
            double to_zero = kz > 0.0 ? -uz / kz : INFINITY;
            if (to_zero <= left) {
                s->wc += -uz * uz / (2.0 * kz);
                used += to_zero;
                uz = 0.0;
                stronge_trace(pb, CR_STRONGE_DECOMPRESSION, cr_v3_madd(s->p, q, used),
                              cr_v3(s->u.x + k.x * used, s->u.y + k.y * used, 0.0));
                continue;
            }
            if (isinf(left)) goto no_end;
            s->wc += uz * left + 0.5 * kz * left * left;
            used += left;
            uz += kz * left;
            break;
        }
        /* Decompression (u_z >= 0): W_d grows until W_d = -e^2 W_c (§3.4). */
        double need = -e2 * s->wc - s->wd;
        if (need <= 0.0) {
            s->wd = -e2 * s->wc;
            s->done = true;
            break;
        }
        /* Work available before u_z returns to 0, and the p_z that takes. */
        double reach = kz < 0.0 ? uz * uz / (-2.0 * kz) : INFINITY;
        double to_zero = kz < 0.0 ? uz / -kz : INFINITY;
        if (need <= reach) {
            /* Ends on this ray: u_z' = sqrt(2 k_z need + u_z^2) (§4 step 6d, eq. 8),
             * dp = (u_z' - u_z) / k_z written without cancellation. */
            double uz_end = sqrt(fmax(uz * uz + 2.0 * kz * need, 0.0));
            double dp = (uz + uz_end) > 0.0 ? 2.0 * need / (uz + uz_end) : INFINITY;
            if (dp <= left) {
                used += dp;
                uz = uz_end;
                s->wd = -e2 * s->wc;
                s->done = true;
                break;
            }
        } else if (to_zero <= left) {
            /* u_z falls back to zero first: another compression follows (§1.1). */
            s->wd += reach;
            used += to_zero;
            uz = 0.0;
            stronge_trace(pb, CR_STRONGE_COMPRESSION, cr_v3_madd(s->p, q, used),
                          cr_v3(s->u.x + k.x * used, s->u.y + k.y * used, 0.0));
            continue;
        }
        /* The ray ends (at the origin) before the decompression does. */
        if (isinf(left)) goto no_end;
        s->wd += uz * left + 0.5 * kz * left * left;
        used += left;
        uz += kz * left;
        break;
    }
    s->p = cr_v3_madd(s->p, q, used);
    s->u = cr_v3(s->u.x + k.x * used, s->u.y + k.y * used, uz);
    return CR_OK;

no_end:
    stronge_msg(msg, msg_size, "stronge: the collision cannot end on a ray with du_z/dp_z = %.17g", kz);
    return CR_ERR_NON_FINITE;
}
