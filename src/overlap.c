/* Overlap of spheres with spheres and planes (seed 000 a.1-a.2, b.1). */
#include "carom/collide.h"

double cr_overlap_sphere_sphere(cr_vec3 xa, double ra, cr_vec3 xb, double rb, cr_vec3 *n)
{
    cr_vec3 xab = cr_v3_sub(xa, xb);                /* a.1 */
    double d = cr_v3_len(xab);
    if (n) *n = d > 0.0 ? cr_v3_scale(xab, 1.0 / d) /* b.1: from b to a */
                        : cr_v3(0.0, 0.0, 1.0);      /* coincident: any fixed direction */
    return ra + rb - d;                              /* a.2 a) */
}

double cr_penetration_sphere_plane(cr_vec3 x, double r, cr_vec3 p, cr_vec3 n)
{
    return r - cr_v3_dot(cr_v3_sub(x, p), n); /* seed 000 modified eq. 5.9 */
}
