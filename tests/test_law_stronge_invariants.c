/* The stronge law over 100,000 random collisions of random rigid bodies
 * (issue 3): kinetic energy never increases, the impulse lies in the friction
 * cone, linear and angular momentum are conserved between the two bodies,
 * the final normal separation velocity is >= 0, W_d = -e^2 W_c, and no
 * collision needs a huge number of steps. The same for the 2D law. */
#include "test_law_stronge_util.h"

enum { N_CASES = 100000 };

typedef struct worst {
    double energy, cone, momentum, angular, normal, work;
    int steps;
    int sticking[3];
} worst;

static void report(const char *what, const worst *w)
{
    print_message("%s: worst relative energy gain %.3g, cone excess %.3g, momentum %.3g, angular momentum %.3g, "
                  "final u_n %.3g, |W_d + e^2 W_c| %.3g; max steps %d; sticking none/stable/unstable %d/%d/%d\n",
                  what, w->energy, w->cone, w->momentum, w->angular, w->normal, w->work, w->steps,
                  w->sticking[0], w->sticking[1], w->sticking[2]);
}

static void test_random_collisions_3d(void **state)
{
    (void)state;
    st_rng rng = {20240601};
    worst w;
    memset(&w, 0, sizeof w);
    for (int i = 0; i < N_CASES; ++i) {
        st_body A = st_random_body(&rng), B = st_random_body(&rng);
        bool b_immovable = i % 10 == 0;
        if (b_immovable) {
            /* At rest: a moving immovable body (a paddle) may give energy. */
            B.side.v = B.side.w = cr_v3_zero();
            B.side.inv_mass = 0.0;
            B.side.inv_inertia = cr_m3_zero();
            B.mass = 0.0;
            B.inertia = cr_m3_zero();
        }
        cr_vec3 n = st_unit(&rng);
        cr_vec3 u0 = cr_v3_sub(cr_contact_point_velocity(&A.side), cr_contact_point_velocity(&B.side));
        if (cr_v3_dot(u0, n) > 0.0) n = cr_v3_neg(n);
        if (i % 50 == 1) { /* no initial sliding: sticking from the start */
            cr_vec3 ut = cr_v3_reject(u0, n);
            A.side.v = cr_v3_sub(A.side.v, ut);
            u0 = cr_v3_sub(u0, ut);
        }
        double e = st_uniform(&rng), mu = st_range(&rng, 0.0, 2.0);
        if (i % 20 == 3) e = 0.0;
        if (i % 20 == 4) e = 1.0;
        if (i % 20 == 5) mu = 0.0;
        cr_stronge_result r;
        char msg[256];
        cr_status st = cr_law_stronge(&A.side, &B.side, n, e, mu, &r, msg, sizeof msg);
        if (st != CR_OK) fail_msg("case %d: status %d: %s", i, st, msg);

        /* Energy before and after, from the bodies themselves. */
        double T0 = st_kinetic(A.mass, A.inertia, A.side.v, A.side.w);
        if (!b_immovable) T0 += st_kinetic(B.mass, B.inertia, B.side.v, B.side.w);
        /* Momentum about the origin, the contact point at c. */
        cr_vec3 c = st_vec(&rng, 1.0);
        cr_vec3 xa = cr_v3_sub(c, A.side.r), xb = cr_v3_sub(c, B.side.r);
        cr_vec3 P0 = cr_v3_add(cr_v3_scale(A.side.v, A.mass), cr_v3_scale(B.side.v, B.mass));
        cr_vec3 L0 = cr_v3_add(cr_v3_add(cr_m3_mul_v(A.inertia, A.side.w), cr_v3_cross(xa, cr_v3_scale(A.side.v, A.mass))),
                               cr_v3_add(cr_m3_mul_v(B.inertia, B.side.w), cr_v3_cross(xb, cr_v3_scale(B.side.v, B.mass))));
        cr_contact_apply(&A.side, &B.side, r.impulse);
        double T1 = st_kinetic(A.mass, A.inertia, A.side.v, A.side.w);
        if (!b_immovable) T1 += st_kinetic(B.mass, B.inertia, B.side.v, B.side.w);
        double gain = (T1 - T0) / T0;
        w.energy = fmax(w.energy, gain);
        if (gain > 1e-12) fail_msg("case %d: kinetic energy grew by %.3g of %.17g", i, gain, T0);

        /* Friction cone |p_t| <= mu p_n. */
        double pn = cr_v3_dot(r.impulse, n), pt = cr_v3_len(cr_v3_reject(r.impulse, n));
        double pmag = cr_v3_len(r.impulse);
        assert_true(pn >= 0.0);
        double excess = (pt - mu * pn) / pmag;
        w.cone = fmax(w.cone, excess);
        if (excess > 1e-12) fail_msg("case %d: |p_t| = %.17g > mu p_n = %.17g", i, pt, mu * pn);

        if (!b_immovable) {
            cr_vec3 P1 = cr_v3_add(cr_v3_scale(A.side.v, A.mass), cr_v3_scale(B.side.v, B.mass));
            cr_vec3 L1 = cr_v3_add(cr_v3_add(cr_m3_mul_v(A.inertia, A.side.w), cr_v3_cross(xa, cr_v3_scale(A.side.v, A.mass))),
                                   cr_v3_add(cr_m3_mul_v(B.inertia, B.side.w), cr_v3_cross(xb, cr_v3_scale(B.side.v, B.mass))));
            double ps = cr_v3_len(cr_v3_scale(A.side.v, A.mass)) + cr_v3_len(cr_v3_scale(B.side.v, B.mass)) + pmag;
            double ls = cr_v3_len(L0) + cr_v3_len(L1) + pmag * (cr_v3_len(xa) + cr_v3_len(xb) + cr_v3_len(c));
            double dp = cr_v3_len(cr_v3_sub(P1, P0)) / ps, dl = cr_v3_len(cr_v3_sub(L1, L0)) / ls;
            w.momentum = fmax(w.momentum, dp);
            w.angular = fmax(w.angular, dl);
            if (dp > 1e-14) fail_msg("case %d: momentum changed by %.3g", i, dp);
            if (dl > 1e-12) fail_msg("case %d: angular momentum changed by %.3g", i, dl);
        }

        /* The normal separation velocity at the end, from the bodies. */
        cr_vec3 u1 = cr_v3_sub(cr_contact_point_velocity(&A.side), cr_contact_point_velocity(&B.side));
        double un = cr_v3_dot(u1, n) / cr_v3_len(u0);
        w.normal = fmin(w.normal, un);
        if (un < -1e-12) fail_msg("case %d: final normal velocity %.17g < 0", i, un * cr_v3_len(u0));

        double werr = fabs(r.work_decompression + e * e * r.work_compression) / fabs(r.work_compression);
        w.work = fmax(w.work, werr);
        if (werr > 1e-12) fail_msg("case %d: W_d = %.17g, -e^2 W_c = %.17g", i, r.work_decompression,
                                    -e * e * r.work_compression);
        assert_true(r.work_compression < 0.0 && r.work_decompression >= 0.0);
        w.steps = r.steps > w.steps ? r.steps : w.steps;
        w.sticking[r.sticking]++;
    }
    report("3D", &w);
    assert_true(w.steps < 5000);
    /* every kind of ending was exercised (physical bodies rarely stick unstably) */
    assert_true(w.sticking[CR_STICKING_STABLE] > 1000 && w.sticking[CR_STICKING_UNSTABLE] > 100);
}

static void test_random_collisions_2d(void **state)
{
    (void)state;
    st_rng rng = {77};
    worst w;
    memset(&w, 0, sizeof w);
    for (int i = 0; i < N_CASES; ++i) {
        cr_contact_side_2d s[2];
        double m[2], I[2];
        for (int k = 0; k < 2; ++k) {
            m[k] = exp(st_range(&rng, -2, 2));
            I[k] = m[k] * exp(st_range(&rng, -3, 1));
            s[k].inv_mass = 1.0 / m[k];
            s[k].inv_inertia = 1.0 / I[k];
            s[k].r[0] = st_normal(&rng);
            s[k].r[1] = st_normal(&rng);
            s[k].v[0] = st_normal(&rng);
            s[k].v[1] = st_normal(&rng);
            s[k].w = st_normal(&rng);
        }
        double ang = st_range(&rng, 0, 2 * ST_PI), n[2] = {cos(ang), sin(ang)};
        double ua[2], ub[2];
        cr_contact_point_velocity_2d(&s[0], ua);
        cr_contact_point_velocity_2d(&s[1], ub);
        double u0n = (ua[0] - ub[0]) * n[0] + (ua[1] - ub[1]) * n[1];
        if (u0n > 0.0) {
            n[0] = -n[0];
            n[1] = -n[1];
        }
        double e = st_uniform(&rng), mu = st_range(&rng, 0.0, 2.0);
        cr_stronge_result r;
        char msg[256];
        cr_status st = cr_law_stronge_2d_body(&s[0], &s[1], n, e, mu, &r, msg, sizeof msg);
        if (st != CR_OK) fail_msg("case %d: status %d: %s", i, st, msg);
        double T0 = 0, T1 = 0, P0[2] = {0, 0}, P1[2] = {0, 0}, L0 = 0, L1 = 0;
        double c[2] = {st_normal(&rng), st_normal(&rng)};
        for (int k = 0; k < 2; ++k) {
            double x = c[0] - s[k].r[0], y = c[1] - s[k].r[1];
            T0 += 0.5 * m[k] * (s[k].v[0] * s[k].v[0] + s[k].v[1] * s[k].v[1]) + 0.5 * I[k] * s[k].w * s[k].w;
            P0[0] += m[k] * s[k].v[0];
            P0[1] += m[k] * s[k].v[1];
            L0 += I[k] * s[k].w + m[k] * (x * s[k].v[1] - y * s[k].v[0]);
        }
        double p[2] = {r.impulse.x, r.impulse.y};
        cr_contact_apply_2d(&s[0], &s[1], p);
        for (int k = 0; k < 2; ++k) {
            double x = c[0] - s[k].r[0], y = c[1] - s[k].r[1];
            T1 += 0.5 * m[k] * (s[k].v[0] * s[k].v[0] + s[k].v[1] * s[k].v[1]) + 0.5 * I[k] * s[k].w * s[k].w;
            P1[0] += m[k] * s[k].v[0];
            P1[1] += m[k] * s[k].v[1];
            L1 += I[k] * s[k].w + m[k] * (x * s[k].v[1] - y * s[k].v[0]);
        }
        double pmag = hypot(p[0], p[1]);
        double gain = (T1 - T0) / T0;
        w.energy = fmax(w.energy, gain);
        if (gain > 1e-12) fail_msg("2D case %d: kinetic energy grew by %.3g", i, gain);
        double pn = p[0] * n[0] + p[1] * n[1], pt = fabs(p[0] * n[1] - p[1] * n[0]);
        double excess = (pt - mu * pn) / pmag;
        w.cone = fmax(w.cone, excess);
        if (excess > 1e-12) fail_msg("2D case %d: |p_t| = %.17g > mu p_n = %.17g", i, pt, mu * pn);
        double ps = fabs(P0[0]) + fabs(P0[1]) + pmag;
        double dp = hypot(P1[0] - P0[0], P1[1] - P0[1]) / ps;
        double dl = fabs(L1 - L0) / (fabs(L0) + pmag * (hypot(c[0], c[1]) + 3.0));
        w.momentum = fmax(w.momentum, dp);
        w.angular = fmax(w.angular, dl);
        if (dp > 1e-14 || dl > 1e-12) fail_msg("2D case %d: momentum %.3g, angular momentum %.3g", i, dp, dl);
        cr_contact_point_velocity_2d(&s[0], ua);
        cr_contact_point_velocity_2d(&s[1], ub);
        double un = ((ua[0] - ub[0]) * n[0] + (ua[1] - ub[1]) * n[1]) / fabs(u0n);
        w.normal = fmin(w.normal, un);
        if (un < -1e-12) fail_msg("2D case %d: final normal velocity < 0 (%.3g)", i, un);
        double werr = fabs(r.work_decompression + e * e * r.work_compression) / fabs(r.work_compression);
        w.work = fmax(w.work, werr);
        if (werr > 1e-12) fail_msg("2D case %d: W_d + e^2 W_c = %.3g", i, werr);
        w.sticking[r.sticking]++;
    }
    report("2D", &w);
    assert_true(w.sticking[CR_STICKING_STABLE] > 1000 && w.sticking[CR_STICKING_UNSTABLE] > 1000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_collisions_3d),
        cmocka_unit_test(test_random_collisions_2d),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
