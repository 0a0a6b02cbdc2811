/* Time of impact of moving hulls by conservative advancement (seed 001
 * §3.3 finds the collision time by bisection; advancement reaches it from
 * the legal side without ever stepping into overlap).
 *
 * At time t the SAT gives a separation d along an axis n (outward from A).
 * Along a fixed axis the separation shrinks no faster than
 * max(0, (v_a - v_b) . n) + |w_a| r_a + |w_b| r_b, r the bounding radius
 * about the body origin, so the bodies cannot touch before t + d / rate:
 * step there and repeat. The SAT separation is a lower bound of the distance,
 * so the time found is never late. */
#include "collide_poly.h"

#define TOI_ITERATIONS 100

/* Pose after time t: x + v t, and R rotated by the world angular velocity w
 * (Rodrigues' formula for the rotation by |w| t about w / |w|). */
static cr_pose advance(cr_pose p, cr_vec3 v, cr_vec3 w, double t)
{
    cr_pose r;
    r.x = cr_v3_madd(p.x, v, t);
    double a = cr_v3_len(w) * t;
    if (a == 0.0) {
        r.R = p.R;
        return r;
    }
    cr_mat3 k = cr_m3_skew(cr_v3_normalize(w));
    cr_mat3 rot = cr_m3_add(cr_m3_identity(), cr_m3_add(cr_m3_scale(k, sin(a)), cr_m3_scale(cr_m3_mul(k, k), 1.0 - cos(a))));
    r.R = cr_m3_mul(rot, p.R);
    return r;
}

double cr_toi_hulls(const cr_hull *a, cr_pose pa0, cr_vec3 va, cr_vec3 wa, const cr_hull *b, cr_pose pb0, cr_vec3 vb,
                    cr_vec3 wb, double t_end, double tolerance)
{
    double ra = cr_hull_radius(a), rb = cr_hull_radius(b);
    double spin = cr_v3_len(wa) * ra + cr_v3_len(wb) * rb;
    cr_vec3 dv = cr_v3_sub(va, vb);
    double t = 0.0;
    for (int it = 0; it < TOI_ITERATIONS; ++it) {
        cr_pose pa = advance(pa0, va, wa, t), pb = advance(pb0, vb, wb, t);
        cr_sat s;
        cr_vec3 n;
        cr_sat_query(a, pa, b, pb, HUGE_VAL, &s);
        double d = cr_sat_best(&s, a, pa, b, pb, &n);
        if (d <= tolerance) return t;
        double rate = fmax(0.0, cr_v3_dot(dv, n)) + spin;
        if (!(rate > 0.0)) return t_end; /* nothing brings them closer along n */
        t += d / rate;
        if (t >= t_end) return t_end;
    }
    return t; /* still apart after the iteration budget: an early, safe answer */
}

double cr_toi_hull_plane(const cr_hull *a, cr_pose pa0, cr_vec3 va, cr_vec3 wa, cr_vec3 n, double offset, double t_end,
                         double tolerance)
{
    double spin = cr_v3_len(wa) * cr_hull_radius(a);
    double rate = fmax(0.0, -cr_v3_dot(va, n)) + spin;
    double t = 0.0;
    for (int it = 0; it < TOI_ITERATIONS; ++it) {
        cr_pose pa = advance(pa0, va, wa, t);
        cr_vec3 nl = cr_pose_local_dir(pa, n);
        double lo = HUGE_VAL;
        for (uint32_t i = 0; i < a->vertex_count; ++i) lo = fmin(lo, cr_v3_dot(nl, a->vertices[i]));
        double d = lo + cr_v3_dot(n, pa.x) - offset;
        if (d <= tolerance) return t;
        if (!(rate > 0.0)) return t_end;
        t += d / rate;
        if (t >= t_end) return t_end;
    }
    return t;
}
