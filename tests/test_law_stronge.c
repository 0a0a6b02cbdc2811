/* The stronge law (seed 002) against the seed's own examples and closed forms:
 * §1.2 (two compression phases), Figure 4 (rays, unstable sticking), Newton
 * at mu = 0, stable sticking, rotation of the normal, the quartic, the 2D
 * closed form of §5.2 and its agreement with 3D, and every guard rail. */
#include "test_law_stronge_util.h"

/* ---- seed 002 §1.2: the example of two compression phases ------------------ */

typedef struct trace_log {
    int n_events;
    cr_stronge_event kinds[16];
    double pz[16];
    int n_steps;
    double step_pz[4096];
    cr_vec3 step_u[4096];
} trace_log;

static void trace_cb(cr_stronge_event ev, cr_vec3 p, cr_vec3 u, void *ctx)
{
    trace_log *t = ctx;
    if (ev == CR_STRONGE_STEP) {
        if (t->n_steps < 4096) {
            t->step_pz[t->n_steps] = p.z;
            t->step_u[t->n_steps++] = u;
        }
        return;
    }
    if (t->n_events < 16) {
        t->kinds[t->n_events] = ev;
        t->pz[t->n_events++] = p.z;
    }
}

static const cr_mat3 K12 = {{{20, -23, 4}, {-23, 31, -7}, {4, -7, 4}}};

/* K from m = 1, the given inverse inertia and the contact point (1, 1, 1),
 * the other body immovable, is the printed matrix. */
static void test_seed_example_matrix(void **state)
{
    (void)state;
    cr_contact_side a = cr_contact_side_immovable(), b = cr_contact_side_immovable();
    a.inv_mass = 1.0;
    cr_mat3 Ii = {{{9, 6, -6}, {6, 6, -2}, {-6, -2, 9}}};
    a.inv_inertia = Ii;
    a.r = cr_v3(1, 1, 1);
    cr_mat3 K = cr_collision_matrix(&a, &b);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) assert_close(K.m[i][j], K12.m[i][j], 1e-12);
}

/* u_z(p_z) starts at -0.22, has roots near 14.6, 29.8 and 56.0 and a local
 * maximum near 22.5; the collision (e = 0.9) goes through both compression
 * phases and ends by W_d = -e^2 W_c after the last root. */
static void test_seed_example_two_compressions(void **state)
{
    (void)state;
    static trace_log t;
    memset(&t, 0, sizeof t);
    cr_stronge_options o = cr_default_stronge_options();
    o.tolerance = 1e-12; /* fine steps, so that the maximum is located well */
    o.trace = trace_cb;
    o.trace_ctx = &t;
    cr_stronge_result r;
    char msg[256];
    assert_int_equal(cr_law_stronge_contact_ex(K12, cr_v3(630, -780, -0.22), 0.9, 0.5, &o, &r, msg, sizeof msg),
                     CR_OK);
    assert_int_equal(t.n_events, 4);
    assert_int_equal(t.kinds[0], CR_STRONGE_DECOMPRESSION);
    assert_int_equal(t.kinds[1], CR_STRONGE_COMPRESSION);
    assert_int_equal(t.kinds[2], CR_STRONGE_DECOMPRESSION);
    assert_int_equal(t.kinds[3], CR_STRONGE_END);
    assert_close(t.pz[0], 14.6, 0.05);
    assert_close(t.pz[1], 29.8, 0.05);
    assert_close(t.pz[2], 56.0, 0.05);
    assert_true(t.pz[3] > t.pz[2]);
    assert_close(r.impulse.z, t.pz[3], 1e-12);
    /* The local maximum: du_z/dp_z = (K (-mu u_t/|u_t|, 1))_z changes sign. */
    double pz_max = -1.0, prev_s = 0.0, prev_pz = 0.0;
    for (int i = 0; i < t.n_steps; ++i) {
        cr_vec3 u = t.step_u[i];
        double rt = hypot(u.x, u.y);
        double s = -0.5 * (K12.m[2][0] * u.x + K12.m[2][1] * u.y) / rt + K12.m[2][2];
        if (i > 0 && prev_s > 0.0 && s <= 0.0 && pz_max < 0.0)
            pz_max = prev_pz + (t.step_pz[i] - prev_pz) * prev_s / (prev_s - s);
        prev_s = s;
        prev_pz = t.step_pz[i];
    }
    assert_close(pz_max, 22.5, 0.05);
    /* Stronge over both phases: W_c sums both compressions. */
    assert_true(r.work_compression < 0.0);
    assert_close(r.work_decompression, -0.81 * r.work_compression, 1e-12 * fabs(r.work_compression));
    assert_true(r.u.z > 0.0);
    assert_int_equal(r.sticking, CR_STICKING_NONE);
}

/* ---- seed 002 Figure 4: rays of constant sliding and unstable sticking ---- */

static const cr_mat3 K4 = {{{20, 0, 1}, {0, 4, 6}, {1, 6, 10}}};

static void test_figure4_rays(void **state)
{
    (void)state;
    double th[4];
    int n = cr_stronge_sliding_rays(K4, 0.7, th);
    assert_int_equal(n, 4);
    const double expect[4] = {87, 209, 281, 323};
    int diverging = 0;
    for (int i = 0; i < 4; ++i) {
        assert_close(th[i] * 180.0 / ST_PI, expect[i], 0.5);
        if (cr_stronge_ray_divergence(K4, 0.7, th[i]) > 0.0) {
            diverging++;
            assert_int_equal(i, 0); /* the 87 degree ray */
        }
    }
    assert_int_equal(diverging, 1);
    assert_false(cr_stronge_sticking_is_stable(K4, 0.7));
    double psi;
    assert_int_equal(cr_stronge_diverging_ray(K4, 0.7, &psi), CR_OK);
    assert_close(psi, th[0], 1e-12);
    /* The inverse printed in §3.7. */
    bool ok;
    cr_mat3 Ki = cr_m3_inverse(K4, &ok);
    assert_true(ok);
    assert_close(Ki.m[1][2], -120.0 / 76.0, 1e-14);
    assert_close(Ki.m[2][2], 80.0 / 76.0, 1e-14);
}

/* A collision that starts in unstable sticking (u_t = 0) leaves along the
 * diverging ray: p_t = -mu p_z (cos psi, sin psi), u_t along psi, and on the
 * ray (§3.9) the closed form p_z = (1 + e) |u0_z| / k_z. */
static void test_figure4_unstable_sticking_start(void **state)
{
    (void)state;
    double psi;
    assert_int_equal(cr_stronge_diverging_ray(K4, 0.7, &psi), CR_OK);
    cr_vec3 q = cr_v3(-0.7 * cos(psi), -0.7 * sin(psi), 1.0);
    cr_vec3 k = cr_m3_mul_v(K4, q);
    assert_true(k.z > 0.0);
    cr_stronge_result r;
    char msg[256];
    const double e = 0.6, uz0 = -2.0;
    assert_int_equal(cr_law_stronge_contact(K4, cr_v3(0, 0, uz0), e, 0.7, &r, msg, sizeof msg), CR_OK);
    assert_int_equal(r.sticking, CR_STICKING_UNSTABLE);
    double pz = (1.0 + e) * -uz0 / k.z;
    assert_vec_close(r.impulse, cr_v3_scale(q, pz), 1e-13 * pz);
    assert_close(atan2(r.u.y, r.u.x), psi, 1e-12);
    assert_close(r.u.z, -e * uz0, 1e-13);
    assert_int_equal(r.steps, 0); /* closed forms only */
}

/* Trajectories of Figure 4 from the lower (blue) region reach the origin and
 * then leave along the diverging ray; the others converge to it. Either way
 * the final tangential velocity points along the 87 degree ray. */
static void test_figure4_trajectories(void **state)
{
    (void)state;
    double psi;
    assert_int_equal(cr_stronge_diverging_ray(K4, 0.7, &psi), CR_OK);
    int reached_origin = 0;
    for (int n = 0; n < 16; ++n) {
        double a = 2.0 * ST_PI * n / 16.0;
        cr_stronge_result r;
        char msg[256];
        assert_int_equal(cr_law_stronge_contact(K4, cr_v3(cos(a), sin(a), -30.0), 0.5, 0.7, &r, msg, sizeof msg),
                         CR_OK);
        assert_close(atan2(r.u.y, r.u.x), psi > ST_PI ? psi - 2 * ST_PI : psi, 1e-6);
        if (r.sticking == CR_STICKING_UNSTABLE) reached_origin++;
        assert_true(r.steps < 400);
    }
    /* Five starting points lie in the blue region (seed, Figure 4). */
    assert_int_equal(reached_origin, 5);
}

/* ---- mu = 0: Newton's law; e = 1: energy --------------------------------- */

static void test_frictionless_newton(void **state)
{
    (void)state;
    st_rng rng = {42};
    for (int i = 0; i < 1000; ++i) {
        cr_mat3 K = st_spd(&rng, exp(st_range(&rng, -3, 3)));
        cr_vec3 u0 = st_vec(&rng, 1.0);
        u0.z = -fabs(u0.z) - 1e-3;
        double e = st_uniform(&rng);
        cr_stronge_result r;
        char msg[256];
        assert_int_equal(cr_law_stronge_contact(K, u0, e, 0.0, &r, msg, sizeof msg), CR_OK);
        double pz = -(1.0 + e) * u0.z / K.m[2][2];
        assert_close(r.impulse.x, 0.0, 0.0);
        assert_close(r.impulse.y, 0.0, 0.0);
        assert_close(r.impulse.z, pz, 4e-16 * pz);
        assert_close(r.u.z, -e * u0.z, 1e-14 * fabs(u0.z));
        assert_int_equal(r.sticking, CR_STICKING_NONE);
    }
}

/* A central impact of two spheres (no rotation couples in): Newton exactly. */
static void test_central_impact(void **state)
{
    (void)state;
    cr_contact_side a = cr_contact_side_immovable(), b = cr_contact_side_immovable();
    a.inv_mass = 1.0 / 2.0;
    b.inv_mass = 1.0 / 3.0;
    a.inv_inertia = cr_m3_scale(cr_m3_identity(), 1.0 / (0.4 * 2.0));
    b.inv_inertia = cr_m3_scale(cr_m3_identity(), 1.0 / (0.4 * 3.0));
    a.r = cr_v3(-1, 0, 0);
    b.r = cr_v3(1, 0, 0);
    a.v = cr_v3(-4, 0, 0);
    b.v = cr_v3(1, 0, 0);
    cr_stronge_result r;
    char msg[256];
    assert_int_equal(cr_law_stronge(&a, &b, cr_v3(1, 0, 0), 0.7, 0.5, &r, msg, sizeof msg), CR_OK);
    /* j = (1 + e) |v_rel| m_a m_b / (m_a + m_b) */
    double j = 1.7 * 5.0 * 6.0 / 5.0;
    assert_vec_close(r.impulse, cr_v3(j, 0, 0), 1e-13 * j);
    cr_contact_apply(&a, &b, r.impulse);
    assert_close(b.v.x - a.v.x, -0.7 * 5.0, 1e-13);
}

static void test_elastic_frictionless_energy(void **state)
{
    (void)state;
    st_rng rng = {7};
    for (int i = 0; i < 2000; ++i) {
        st_body A = st_random_body(&rng), B = st_random_body(&rng);
        cr_vec3 n = st_unit(&rng);
        cr_vec3 u0 = cr_v3_sub(cr_contact_point_velocity(&A.side), cr_contact_point_velocity(&B.side));
        if (cr_v3_dot(u0, n) > 0.0) n = cr_v3_neg(n);
        double T0 = st_kinetic(A.mass, A.inertia, A.side.v, A.side.w) + st_kinetic(B.mass, B.inertia, B.side.v, B.side.w);
        cr_stronge_result r;
        char msg[256];
        assert_int_equal(cr_law_stronge(&A.side, &B.side, n, 1.0, 0.0, &r, msg, sizeof msg), CR_OK);
        cr_contact_apply(&A.side, &B.side, r.impulse);
        double T1 = st_kinetic(A.mass, A.inertia, A.side.v, A.side.w) + st_kinetic(B.mass, B.inertia, B.side.v, B.side.w);
        assert_close(T1, T0, 1e-12 * T0);
    }
}

/* ---- sticking --------------------------------------------------------------- */

/* Stable sticking from the start: u_t stays 0 and du/dp_z = (0, 0, 1/Ki33)
 * (§3.6), so u = (0, 0, -e u0_z) and p = (1 + e) |u0_z| K^-1 e_z. */
static void test_stable_sticking_closed_form(void **state)
{
    (void)state;
    cr_mat3 K = {{{3, 0.2, 0.5}, {0.2, 2, -0.3}, {0.5, -0.3, 1.5}}};
    assert_true(cr_stronge_sticking_is_stable(K, 0.8));
    bool ok;
    cr_mat3 Ki = cr_m3_inverse(K, &ok);
    cr_stronge_result r;
    char msg[256];
    assert_int_equal(cr_law_stronge_contact(K, cr_v3(0, 0, -2), 0.5, 0.8, &r, msg, sizeof msg), CR_OK);
    assert_int_equal(r.sticking, CR_STICKING_STABLE);
    cr_vec3 p = cr_v3_scale(cr_v3(Ki.m[0][2], Ki.m[1][2], Ki.m[2][2]), 1.5 * 2.0);
    assert_vec_close(r.impulse, p, 1e-14);
    assert_vec_close(r.u, cr_v3(0, 0, 1.0), 1e-14);
    assert_close(r.work_compression, -Ki.m[2][2] * 4.0 / 2.0, 1e-14); /* §3.6 */
    assert_close(r.work_decompression, 0.25 * Ki.m[2][2] * 4.0 / 2.0, 1e-14);
}

/* A solid ball (I = 2/5 m R^2) sliding onto the ground: with enough friction
 * it sticks during the impact (it rolls) and leaves at 5/7 of its sliding
 * speed whatever the moment it stuck; with little friction it slides
 * throughout and loses mu p_z / m. */
static void test_ball_rolls_or_slides(void **state)
{
    (void)state;
    const double m = 1.3, R = 0.2, e = 0.5, vx = 2.0, vz = -3.0;
    for (int k = 0; k < 2; ++k) {
        double mu = k == 0 ? 0.9 : 0.05;
        cr_contact_side a = cr_contact_side_immovable(), g = cr_contact_side_immovable();
        a.inv_mass = 1.0 / m;
        a.inv_inertia = cr_m3_scale(cr_m3_identity(), 1.0 / (0.4 * m * R * R));
        a.r = cr_v3(0, 0, -R);
        a.v = cr_v3(vx, 0, vz);
        cr_stronge_result r;
        char msg[256];
        assert_int_equal(cr_law_stronge(&a, &g, cr_v3(0, 0, 1), e, mu, &r, msg, sizeof msg), CR_OK);
        cr_contact_apply(&a, &g, r.impulse);
        double pz = (1.0 + e) * m * -vz;
        assert_close(r.impulse.z, pz, 1e-12);
        if (k == 0) {
            assert_int_equal(r.sticking, CR_STICKING_STABLE);
            assert_close(a.v.x, 5.0 / 7.0 * vx, 1e-12);
            assert_close(a.w.y * R, a.v.x, 1e-12); /* rolling */
        } else {
            assert_int_equal(r.sticking, CR_STICKING_NONE);
            assert_close(a.v.x, vx - mu * pz / m, 1e-12);
        }
        assert_close(a.v.z, -e * vz, 1e-12);
    }
}

/* ---- quartic and rays ------------------------------------------------------ */

static void check_roots(const double a[5], const double *expect, int n_expect, double tol)
{
    double roots[4];
    int n = cr_quartic_real_roots(a, roots);
    for (int i = 0; i < n_expect; ++i) {
        bool found = false;
        for (int j = 0; j < n; ++j)
            if (fabs(roots[j] - expect[i]) <= tol) found = true;
        if (!found) fail_msg("root %.17g not found (%d roots)", expect[i], n);
    }
    for (int j = 0; j < n; ++j) {
        bool known = false;
        for (int i = 0; i < n_expect; ++i)
            if (fabs(roots[j] - expect[i]) <= tol) known = true;
        if (!known) fail_msg("spurious root %.17g", roots[j]);
        if (j > 0) assert_true(roots[j] >= roots[j - 1]);
    }
}

static void test_quartic(void **state)
{
    (void)state;
    /* (x-1)(x-2)(x-3)(x-4) = x^4 - 10x^3 + 35x^2 - 50x + 24 */
    const double a1[5] = {24, -50, 35, -10, 1}, r1[4] = {1, 2, 3, 4};
    check_roots(a1, r1, 4, 1e-12);
    /* (x^2 + 1)(x - 1)(x + 2) = x^4 + x^3 - x^2 + x - 2 */
    const double a2[5] = {-2, 1, -1, 1, 1}, r2[2] = {1, -2};
    check_roots(a2, r2, 2, 1e-12);
    /* 2 (x - 1)^2 (x - 3)(x + 2): a double root */
    const double a3[5] = {-12, 22, -6, -6, 2}, r3[3] = {1, 3, -2};
    check_roots(a3, r3, 3, 1e-7);
    /* biquadratic x^4 - 5x^2 + 4 */
    const double a4[5] = {4, 0, -5, 0, 1}, r4[4] = {-2, -1, 1, 2};
    check_roots(a4, r4, 4, 1e-12);
    /* lower degrees: cubic (x-1)(x+1)(x-5), quadratic, linear */
    const double a5[5] = {5, -1, -5, 1, 0}, r5[3] = {-1, 1, 5};
    check_roots(a5, r5, 3, 1e-12);
    const double a6[5] = {-6, 1, 1, 0, 0}, r6[2] = {2, -3};
    check_roots(a6, r6, 2, 1e-12);
    const double a7[5] = {3, -1.5, 0, 0, 0}, r7[1] = {2};
    check_roots(a7, r7, 1, 1e-15);
    /* no real roots; the zero polynomial */
    const double a8[5] = {1, 0, 2, 0, 1}, a9[5] = {0, 0, 0, 0, 0};
    double roots[4];
    assert_int_equal(cr_quartic_real_roots(a8, roots), 0);
    assert_int_equal(cr_quartic_real_roots(a9, roots), 0);
    /* random quartics with four real roots, spread over scales */
    st_rng rng = {3};
    for (int i = 0; i < 2000; ++i) {
        double x[4];
        for (int j = 0; j < 4; ++j) x[j] = st_range(&rng, -10, 10);
        double s = exp(st_range(&rng, -5, 5));
        double c[5] = {x[0] * x[1] * x[2] * x[3],
                       -(x[0] * x[1] * x[2] + x[0] * x[1] * x[3] + x[0] * x[2] * x[3] + x[1] * x[2] * x[3]),
                       x[0] * x[1] + x[0] * x[2] + x[0] * x[3] + x[1] * x[2] + x[1] * x[3] + x[2] * x[3],
                       -(x[0] + x[1] + x[2] + x[3]), 1.0};
        for (int j = 0; j < 5; ++j) c[j] *= s;
        double mind = INFINITY;
        for (int j = 0; j < 4; ++j)
            for (int k = j + 1; k < 4; ++k) mind = fmin(mind, fabs(x[j] - x[k]));
        if (mind < 1e-2) continue; /* nearly double roots: conditioning, not the solver */
        check_roots(c, x, 4, 1e-8);
    }
}

/* a_4 = mu K12 + K23 = 0: theta = pi is a ray (§3.8) though p = tan(pi/2). */
static void test_ray_at_pi(void **state)
{
    (void)state;
    const double mu = 0.4;
    cr_mat3 K = {{{2.0, 0.5, 0.3}, {0.5, 1.5, -0.2}, {0.3, -0.2, 1.0}}}; /* mu K12 + K23 = 0 */
    double th[4];
    int n = cr_stronge_sliding_rays(K, mu, th);
    bool pi_found = false;
    for (int i = 0; i < n; ++i) {
        double c = cos(th[i]), s = sin(th[i]);
        /* each is a root of eq. 7 */
        double f = -mu * K.m[0][1] * (c * c - s * s) + mu * (K.m[0][0] - K.m[1][1]) * s * c + K.m[1][2] * c -
                   K.m[0][2] * s;
        assert_close(f, 0.0, 1e-13);
        if (fabs(th[i] - ST_PI) < 1e-12) pi_found = true;
    }
    assert_true(pi_found);
    /* Nearly zero a_4: the root near pi is still found and accurate. */
    K.m[1][2] = K.m[2][1] = -0.2 + 1e-13;
    n = cr_stronge_sliding_rays(K, mu, th);
    pi_found = false;
    for (int i = 0; i < n; ++i)
        if (fabs(th[i] - ST_PI) < 1e-9) pi_found = true;
    assert_true(pi_found);
}

/* The quartic's diverging ray equals the §3.10 lambda formulation's, over
 * many random unstable cases: (lambda 1 + mu M)(cos, sin) = (K13, K23). */
static void test_diverging_ray_random(void **state)
{
    (void)state;
    st_rng rng = {11};
    int tested = 0;
    for (int i = 0; i < 20000; ++i) {
        cr_mat3 K = st_spd(&rng, 1.0);
        double mu = st_range(&rng, 0.0, 2.0);
        if (cr_stronge_sticking_is_stable(K, mu)) continue;
        double psi;
        assert_int_equal(cr_stronge_diverging_ray(K, mu, &psi), CR_OK);
        double c = cos(psi), s = sin(psi);
        double fx = -mu * (K.m[0][0] * c + K.m[0][1] * s) + K.m[0][2];
        double fy = -mu * (K.m[1][0] * c + K.m[1][1] * s) + K.m[1][2];
        double scale = mu * (fabs(K.m[0][0]) + fabs(K.m[1][1]) + fabs(K.m[0][1])) + fabs(K.m[0][2]) + fabs(K.m[1][2]);
        assert_close(c * fy - s * fx, 0.0, 1e-10 * scale); /* a ray: field parallel to it */
        assert_true(c * fx + s * fy > 0.0);                  /* diverging: lambda > 0 */
        tested++;
    }
    assert_true(tested > 1000);
}

/* ---- rotation of the normal onto +z (§3.1) ---------------------------------- */

static void check_rotation(cr_vec3 n)
{
    cr_mat3 R = cr_stronge_rotation(n);
    assert_vec_close(cr_m3_mul_v(R, n), cr_v3(0, 0, 1), 1e-15);
    cr_mat3 RRt = cr_m3_mul(R, cr_m3_transpose(R));
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) assert_close(RRt.m[i][j], i == j ? 1.0 : 0.0, 4e-15);
    assert_close(cr_m3_det(R), 1.0, 4e-15);
}

static void test_rotation_near_z(void **state)
{
    (void)state;
    const double tiny[] = {0.0, 1e-300, 1e-17, 1e-12, 1e-8, 1e-4, 0.5};
    for (size_t i = 0; i < sizeof tiny / sizeof tiny[0]; ++i)
        for (int sgn = -1; sgn <= 1; sgn += 2)
            for (int k = 0; k < 4; ++k) {
                double t = tiny[i], a = k * ST_PI / 2.0 + 0.3;
                cr_vec3 n = cr_v3_normalize(cr_v3(t * cos(a), t * sin(a), sgn * 1.0));
                check_rotation(n);
            }
    st_rng rng = {5};
    for (int i = 0; i < 1000; ++i) check_rotation(st_unit(&rng));
    check_rotation(cr_v3(1, 0, 0));
    check_rotation(cr_v3(0, -1, 0));
}

/* Turning the whole problem turns the impulse: solving with normal n' = Q n
 * and every vector and tensor turned by Q gives Q p. Q is chosen to send n
 * to +z, -z and near them. */
static void test_rotation_invariance(void **state)
{
    (void)state;
    st_rng rng = {9};
    for (int i = 0; i < 300; ++i) {
        st_body A = st_random_body(&rng), B = st_random_body(&rng);
        cr_vec3 n = st_unit(&rng);
        cr_vec3 u0 = cr_v3_sub(cr_contact_point_velocity(&A.side), cr_contact_point_velocity(&B.side));
        if (cr_v3_dot(u0, n) > 0.0) n = cr_v3_neg(n);
        double e = st_uniform(&rng), mu = st_range(&rng, 0, 1.5);
        cr_stronge_result r0, r1;
        char msg[256];
        assert_int_equal(cr_law_stronge(&A.side, &B.side, n, e, mu, &r0, msg, sizeof msg), CR_OK);
        /* Q: n onto a target at or near +-z, then a random turn about z. */
        const double off[4] = {0.0, 1e-13, 1e-9, 1e-5};
        cr_vec3 target = cr_v3_normalize(cr_v3(off[i % 4], -off[(i / 4) % 4], (i % 2) ? -1.0 : 1.0));
        cr_mat3 Q = cr_m3_mul(cr_m3_transpose(cr_stronge_rotation(target)), cr_stronge_rotation(n));
        cr_contact_side a = A.side, b = B.side;
        cr_contact_side *sd[2] = {&a, &b};
        for (int k = 0; k < 2; ++k) {
            sd[k]->inv_inertia = cr_m3_mul(cr_m3_mul(Q, sd[k]->inv_inertia), cr_m3_transpose(Q));
            sd[k]->r = cr_m3_mul_v(Q, sd[k]->r);
            sd[k]->v = cr_m3_mul_v(Q, sd[k]->v);
            sd[k]->w = cr_m3_mul_v(Q, sd[k]->w);
        }
        cr_vec3 n1 = cr_v3_normalize(cr_m3_mul_v(Q, n));
        assert_int_equal(cr_law_stronge(&a, &b, n1, e, mu, &r1, msg, sizeof msg), CR_OK);
        double scale = cr_v3_len(r0.impulse);
        assert_vec_close(r1.impulse, cr_m3_mul_v(Q, r0.impulse), 1e-7 * scale);
        assert_int_equal(r1.sticking, r0.sticking);
    }
}

/* ---- 2D (§5.2) ------------------------------------------------------------- */

static void embed_planar(const double K2[2][2], const double u2[2], double c, cr_mat3 *K3, cr_vec3 *u3)
{
    /* tangent x stays x, the out-of-plane tangent y is decoupled, normal y -> z */
    cr_mat3 K = {{{K2[0][0], 0, K2[0][1]}, {0, c, 0}, {K2[1][0], 0, K2[1][1]}}};
    *K3 = K;
    *u3 = cr_v3(u2[0], 0.0, u2[1]);
}

/* The 2D closed form agrees with the 3D integration of the same planar
 * problem (forced through the integrator) to 1e-6, and with the 3D closed
 * forms to rounding. */
static void test_2d_matches_3d(void **state)
{
    (void)state;
    st_rng rng = {21};
    cr_stronge_options integ = cr_default_stronge_options();
    integ.closed_forms = false;
    double worst_integ = 0.0, worst_closed = 0.0;
    int kinds[3] = {0};
    for (int i = 0; i < 3000; ++i) {
        double a = st_normal(&rng), b = st_normal(&rng), c = st_normal(&rng), d = st_normal(&rng);
        double s = exp(st_range(&rng, -2, 2));
        double K2[2][2] = {{s * (a * a + b * b + 0.02), s * (a * c + b * d)}, {s * (a * c + b * d), s * (c * c + d * d + 0.02)}};
        double u2[2] = {st_normal(&rng), -fabs(st_normal(&rng)) - 1e-3};
        if (i % 10 == 0) u2[0] = 0.0;
        double e = st_uniform(&rng), mu = st_range(&rng, 0, 2);
        cr_stronge_result r2, r3, r3c;
        char msg[256];
        assert_int_equal(cr_law_stronge_2d((const double(*)[2])K2, u2, e, mu, &r2, msg, sizeof msg), CR_OK);
        cr_mat3 K3;
        cr_vec3 u3;
        embed_planar((const double(*)[2])K2, u2, K2[0][0], &K3, &u3);
        assert_int_equal(cr_law_stronge_contact_ex(K3, u3, e, mu, &integ, &r3, msg, sizeof msg), CR_OK);
        assert_int_equal(cr_law_stronge_contact(K3, u3, e, mu, &r3c, msg, sizeof msg), CR_OK);
        double p = hypot(r2.impulse.x, r2.impulse.y);
        double d_integ = hypot(r3.impulse.x - r2.impulse.x, r3.impulse.z - r2.impulse.y) / p;
        double d_closed = hypot(r3c.impulse.x - r2.impulse.x, r3c.impulse.z - r2.impulse.y) / p;
        assert_close(r3.impulse.y, 0.0, 1e-14 * p);
        worst_integ = fmax(worst_integ, d_integ);
        worst_closed = fmax(worst_closed, d_closed);
        if (d_integ > 1e-6) fail_msg("case %d: 2D and integrated 3D differ by %.3g", i, d_integ);
        if (d_closed > 1e-12) fail_msg("case %d: 2D and closed-form 3D differ by %.3g", i, d_closed);
        assert_int_equal(r3c.sticking, r2.sticking);
        kinds[r2.sticking]++;
        assert_close(r3c.work_compression, r2.work_compression, 1e-11 * fabs(r2.work_compression));
    }
    /* every branch of §5.2 was exercised */
    assert_true(kinds[CR_STICKING_NONE] > 100 && kinds[CR_STICKING_STABLE] > 100 && kinds[CR_STICKING_UNSTABLE] > 100);
    print_message("2D vs 3D planar: integrated %.3g, closed forms %.3g (worst relative impulse difference)\n",
                  worst_integ, worst_closed);
}

/* §5.2 by hand: a converging ray that ends before reaching the origin
 * (step 4d) is Newton on the ray, u_x moving by (1+e)(k_x/k_y)|u_y|. */
static void test_2d_hand_cases(void **state)
{
    (void)state;
    const double K[2][2] = {{2.0, 0.5}, {0.5, 1.0}};
    char msg[256];
    cr_stronge_result r;
    /* u_x = 3 > 0: k = K(-mu, 1) = (-2mu + 0.5, -0.5mu + 1); mu = 0.5: k = (-0.5, 0.75), converging */
    const double u0[2] = {3.0, -1.0};
    assert_int_equal(cr_law_stronge_2d(K, u0, 0.5, 0.5, &r, msg, sizeof msg), CR_OK);
    /* u_origin = -1 - (0.75 / -0.5) 3 = 3.5 >= -e u_y = 0.5: step 4d */
    assert_close(r.u.y, 0.5, 1e-14);
    assert_close(r.u.x, 3.0 - 1.5 * (-0.5 / 0.75) * -1.0, 1e-14);
    assert_close(r.impulse.y, 1.5 / 0.75, 1e-14);
    assert_close(r.impulse.x, -0.5 * r.impulse.y, 1e-14);
    assert_int_equal(r.sticking, CR_STICKING_NONE);
    /* A small u_x reaches the origin in compression (4b), then stable sticking
     * (|K12| = 0.5 <= mu K11 = 1): u_x = 0 at the end. */
    const double u1[2] = {0.1, -1.0};
    assert_int_equal(cr_law_stronge_2d(K, u1, 0.5, 0.5, &r, msg, sizeof msg), CR_OK);
    assert_int_equal(r.sticking, CR_STICKING_STABLE);
    assert_close(r.u.x, 0.0, 1e-14);
    assert_true(r.u.y > 0.0);
    assert_close(r.work_decompression, -0.25 * r.work_compression, 1e-14);
    /* mu = 0.1: |K12| > mu K11, unstable: leaves along K(mu, 1) or K(-mu, 1) */
    const double u2[2] = {0.0, -1.0};
    assert_int_equal(cr_law_stronge_2d(K, u2, 0.5, 0.1, &r, msg, sizeof msg), CR_OK);
    assert_int_equal(r.sticking, CR_STICKING_UNSTABLE);
    /* k = K(-0.1, 1) = (0.3, 0.95): k_x > 0, the diverging one */
    assert_close(r.impulse.x, -0.1 * r.impulse.y, 1e-14);
    assert_close(r.impulse.y, 1.5 / 0.95, 1e-14);
    assert_close(r.u.x, 0.3 * r.impulse.y, 1e-14);
}

/* The 2D body form against the 3D body form for bodies in a plane. */
static void test_2d_body_matches_3d(void **state)
{
    (void)state;
    st_rng rng = {33};
    for (int i = 0; i < 500; ++i) {
        cr_contact_side_2d a2, b2;
        cr_contact_side a3 = cr_contact_side_immovable(), b3 = cr_contact_side_immovable();
        cr_contact_side_2d *s2[2] = {&a2, &b2};
        cr_contact_side *s3[2] = {&a3, &b3};
        for (int k = 0; k < 2; ++k) {
            double m = exp(st_range(&rng, -1, 1)), I = m * exp(st_range(&rng, -2, 0));
            bool immovable = k == 1 && i % 5 == 0;
            s2[k]->inv_mass = immovable ? 0.0 : 1.0 / m;
            s2[k]->inv_inertia = immovable ? 0.0 : 1.0 / I;
            s2[k]->r[0] = st_normal(&rng);
            s2[k]->r[1] = st_normal(&rng);
            s2[k]->v[0] = st_normal(&rng);
            s2[k]->v[1] = st_normal(&rng);
            s2[k]->w = st_normal(&rng);
            s3[k]->inv_mass = s2[k]->inv_mass;
            /* principal axis z with moment I; the in-plane moments do not matter */
            s3[k]->inv_inertia = cr_m3_diag(immovable ? 0.0 : 0.7 / I, immovable ? 0.0 : 0.9 / I, s2[k]->inv_inertia);
            s3[k]->r = cr_v3(s2[k]->r[0], s2[k]->r[1], 0);
            s3[k]->v = cr_v3(s2[k]->v[0], s2[k]->v[1], 0);
            s3[k]->w = cr_v3(0, 0, s2[k]->w);
        }
        double ang = st_range(&rng, 0, 2 * ST_PI), n[2] = {cos(ang), sin(ang)};
        double ua[2], ub[2];
        cr_contact_point_velocity_2d(&a2, ua);
        cr_contact_point_velocity_2d(&b2, ub);
        if ((ua[0] - ub[0]) * n[0] + (ua[1] - ub[1]) * n[1] > 0.0) {
            n[0] = -n[0];
            n[1] = -n[1];
        }
        double e = st_uniform(&rng), mu = st_range(&rng, 0, 1.5);
        cr_stronge_result r2, r3;
        char msg[256];
        assert_int_equal(cr_law_stronge_2d_body(&a2, &b2, n, e, mu, &r2, msg, sizeof msg), CR_OK);
        assert_int_equal(cr_law_stronge(&a3, &b3, cr_v3(n[0], n[1], 0), e, mu, &r3, msg, sizeof msg), CR_OK);
        double p = cr_v3_len(r2.impulse);
        assert_vec_close(r3.impulse, r2.impulse, 1e-9 * p);
        double pp[2] = {r2.impulse.x, r2.impulse.y};
        cr_contact_apply_2d(&a2, &b2, pp);
        cr_contact_apply(&a3, &b3, r3.impulse);
        assert_close(a3.w.z, a2.w, 1e-8 * (1 + fabs(a2.w)));
        assert_close(a3.v.x, a2.v[0], 1e-8 * (1 + fabs(a2.v[0])));
    }
}

/* ---- guard rails ------------------------------------------------------------ */

static void expect_invalid(cr_status st, const cr_stronge_result *r, const char *msg, const char *fragment)
{
    if (st != CR_ERR_INVALID_ARGUMENT) fail_msg("status %d, expected CR_ERR_INVALID_ARGUMENT (%s)", st, msg);
    if (!strstr(msg, fragment)) fail_msg("message '%s' lacks '%s'", msg, fragment);
    assert_true(r->impulse.x == 0.0 && r->impulse.y == 0.0 && r->impulse.z == 0.0);
    assert_true(r->u.x == 0.0 && r->u.y == 0.0 && r->u.z == 0.0);
}

static void test_guard_rails_contact(void **state)
{
    (void)state;
    const cr_mat3 I = cr_m3_identity();
    const cr_vec3 u0 = cr_v3(1, 0, -1);
    cr_stronge_result r;
    char msg[256];
    double nan = NAN;
    cr_mat3 K;
    K = I; K.m[0][1] = 0.5;
    expect_invalid(cr_law_stronge_contact(K, u0, 0.5, 0.5, &r, msg, sizeof msg), &r, msg, "not symmetric");
    K = I; K.m[2][2] = -1.0;
    expect_invalid(cr_law_stronge_contact(K, u0, 0.5, 0.5, &r, msg, sizeof msg), &r, msg, "not positive definite");
    K = I; K.m[1][1] = 0.0;
    expect_invalid(cr_law_stronge_contact(K, u0, 0.5, 0.5, &r, msg, sizeof msg), &r, msg, "not positive definite");
    K = cr_m3_zero();
    expect_invalid(cr_law_stronge_contact(K, u0, 0.5, 0.5, &r, msg, sizeof msg), &r, msg, "not positive definite");
    cr_mat3 Kind = {{{1, 2, 0}, {2, 1, 0}, {0, 0, 1}}}; /* symmetric, indefinite */
    expect_invalid(cr_law_stronge_contact(Kind, u0, 0.5, 0.5, &r, msg, sizeof msg), &r, msg, "not positive definite");
    K = I; K.m[0][2] = nan;
    expect_invalid(cr_law_stronge_contact(K, u0, 0.5, 0.5, &r, msg, sizeof msg), &r, msg, "K[0][2]");
    K = I; K.m[1][1] = INFINITY;
    expect_invalid(cr_law_stronge_contact(K, u0, 0.5, 0.5, &r, msg, sizeof msg), &r, msg, "not finite");
    expect_invalid(cr_law_stronge_contact(I, cr_v3(nan, 0, -1), 0.5, 0.5, &r, msg, sizeof msg), &r, msg, "u0");
    expect_invalid(cr_law_stronge_contact(I, cr_v3(0, 0, -INFINITY), 0.5, 0.5, &r, msg, sizeof msg), &r, msg, "u0");
    expect_invalid(cr_law_stronge_contact(I, u0, -0.1, 0.5, &r, msg, sizeof msg), &r, msg, "restitution");
    expect_invalid(cr_law_stronge_contact(I, u0, 1.0000001, 0.5, &r, msg, sizeof msg), &r, msg, "restitution");
    expect_invalid(cr_law_stronge_contact(I, u0, nan, 0.5, &r, msg, sizeof msg), &r, msg, "restitution");
    expect_invalid(cr_law_stronge_contact(I, u0, 0.5, -0.01, &r, msg, sizeof msg), &r, msg, "friction");
    expect_invalid(cr_law_stronge_contact(I, u0, 0.5, nan, &r, msg, sizeof msg), &r, msg, "friction");
    expect_invalid(cr_law_stronge_contact(I, u0, 0.5, INFINITY, &r, msg, sizeof msg), &r, msg, "friction");
    cr_stronge_options o = cr_default_stronge_options();
    o.tolerance = 0.0;
    expect_invalid(cr_law_stronge_contact_ex(I, u0, 0.5, 0.5, &o, &r, msg, sizeof msg), &r, msg, "tolerance");
    o = cr_default_stronge_options();
    o.max_steps = 0;
    expect_invalid(cr_law_stronge_contact_ex(I, u0, 0.5, 0.5, &o, &r, msg, sizeof msg), &r, msg, "max_steps");
    /* Not approaching: a zero impulse, no error. */
    const cr_vec3 away[3] = {cr_v3(1, 2, 0.0), cr_v3(1, 2, 1e-300), cr_v3(0, 0, 3)};
    for (int i = 0; i < 3; ++i) {
        assert_int_equal(cr_law_stronge_contact(I, away[i], 0.5, 0.5, &r, msg, sizeof msg), CR_OK);
        assert_vec_close(r.impulse, cr_v3_zero(), 0.0);
        assert_vec_close(r.u, away[i], 0.0);
        assert_int_equal(r.sticking, CR_STICKING_NONE);
    }
    /* A NULL message buffer is fine. */
    assert_int_equal(cr_law_stronge_contact(K, u0, 0.5, 0.5, &r, NULL, 0), CR_ERR_INVALID_ARGUMENT);
}

static void test_guard_rails_body(void **state)
{
    (void)state;
    cr_contact_side a = cr_contact_side_immovable(), g = cr_contact_side_immovable();
    a.inv_mass = 1.0;
    a.inv_inertia = cr_m3_identity();
    a.r = cr_v3(0, 0, -1);
    a.v = cr_v3(1, 0, -1);
    cr_stronge_result r;
    char msg[256];
    const cr_vec3 up = cr_v3(0, 0, 1);
    expect_invalid(cr_law_stronge(&a, &g, cr_v3(0, 0, 0), 0.5, 0.5, &r, msg, sizeof msg), &r, msg, "unit");
    expect_invalid(cr_law_stronge(&a, &g, cr_v3(0, 0, 2), 0.5, 0.5, &r, msg, sizeof msg), &r, msg, "unit");
    expect_invalid(cr_law_stronge(&a, &g, cr_v3(0, 0, 1 + 1e-6), 0.5, 0.5, &r, msg, sizeof msg), &r, msg, "unit");
    expect_invalid(cr_law_stronge(&a, &g, cr_v3(NAN, 0, 1), 0.5, 0.5, &r, msg, sizeof msg), &r, msg, "normal");
    expect_invalid(cr_law_stronge(&g, &g, up, 0.5, 0.5, &r, msg, sizeof msg), &r, msg, "immovable");
    cr_contact_side bad = a;
    bad.inv_mass = -1.0;
    expect_invalid(cr_law_stronge(&bad, &g, up, 0.5, 0.5, &r, msg, sizeof msg), &r, msg, "a.inv_mass");
    bad = a;
    bad.inv_inertia.m[0][1] = 0.3;
    expect_invalid(cr_law_stronge(&g, &bad, up, 0.5, 0.5, &r, msg, sizeof msg), &r, msg, "b.inv_inertia");
    bad = a;
    bad.inv_inertia.m[2][2] = -1.0;
    expect_invalid(cr_law_stronge(&bad, &g, up, 0.5, 0.5, &r, msg, sizeof msg), &r, msg, "negative");
    bad = a;
    bad.w.y = NAN;
    expect_invalid(cr_law_stronge(&bad, &g, up, 0.5, 0.5, &r, msg, sizeof msg), &r, msg, "a.w");
    bad = a;
    bad.r.x = INFINITY;
    expect_invalid(cr_law_stronge(&bad, &g, up, 0.5, 0.5, &r, msg, sizeof msg), &r, msg, "a.r");
    expect_invalid(cr_law_stronge(&a, &g, up, 2.0, 0.5, &r, msg, sizeof msg), &r, msg, "restitution");
    expect_invalid(cr_law_stronge(&a, &g, up, 0.5, -1.0, &r, msg, sizeof msg), &r, msg, "friction");
    /* separating: zero impulse */
    assert_int_equal(cr_law_stronge(&a, &g, cr_v3(0, 0, -1), 0.5, 0.5, &r, msg, sizeof msg), CR_OK);
    assert_vec_close(r.impulse, cr_v3_zero(), 0.0);
}

static void test_guard_rails_2d(void **state)
{
    (void)state;
    const double I2[2][2] = {{1, 0}, {0, 1}}, u0[2] = {1, -1};
    const double asym[2][2] = {{1, 0.5}, {0, 1}}, indef[2][2] = {{1, 2}, {2, 1}}, nanK[2][2] = {{1, 0}, {0, NAN}};
    const double nanu[2] = {NAN, -1};
    cr_stronge_result r;
    char msg[256];
    expect_invalid(cr_law_stronge_2d(asym, u0, 0.5, 0.5, &r, msg, sizeof msg), &r, msg, "not symmetric");
    expect_invalid(cr_law_stronge_2d(indef, u0, 0.5, 0.5, &r, msg, sizeof msg), &r, msg, "not positive definite");
    expect_invalid(cr_law_stronge_2d(nanK, u0, 0.5, 0.5, &r, msg, sizeof msg), &r, msg, "K[1][1]");
    expect_invalid(cr_law_stronge_2d(I2, nanu, 0.5, 0.5, &r, msg, sizeof msg), &r, msg, "u0[0]");
    expect_invalid(cr_law_stronge_2d(I2, u0, 1.5, 0.5, &r, msg, sizeof msg), &r, msg, "restitution");
    expect_invalid(cr_law_stronge_2d(I2, u0, 0.5, -0.5, &r, msg, sizeof msg), &r, msg, "friction");
    cr_contact_side_2d a = cr_contact_side_2d_immovable(), g = cr_contact_side_2d_immovable();
    a.inv_mass = 1.0;
    a.inv_inertia = 2.0;
    a.v[1] = -1.0;
    const double n0[2] = {0, 0}, n2[2] = {0, 2}, n[2] = {0, 1};
    expect_invalid(cr_law_stronge_2d_body(&a, &g, n0, 0.5, 0.5, &r, msg, sizeof msg), &r, msg, "unit");
    expect_invalid(cr_law_stronge_2d_body(&a, &g, n2, 0.5, 0.5, &r, msg, sizeof msg), &r, msg, "unit");
    expect_invalid(cr_law_stronge_2d_body(&g, &g, n, 0.5, 0.5, &r, msg, sizeof msg), &r, msg, "immovable");
    cr_contact_side_2d bad = a;
    bad.inv_inertia = -1.0;
    expect_invalid(cr_law_stronge_2d_body(&bad, &g, n, 0.5, 0.5, &r, msg, sizeof msg), &r, msg, "a.inv_inertia");
    bad = a;
    bad.w = NAN;
    expect_invalid(cr_law_stronge_2d_body(&g, &bad, n, 0.5, 0.5, &r, msg, sizeof msg), &r, msg, "b.w");
    /* separating */
    const double away[2] = {1, 0};
    assert_int_equal(cr_law_stronge_2d(I2, away, 0.5, 0.5, &r, msg, sizeof msg), CR_OK);
    assert_vec_close(r.impulse, cr_v3_zero(), 0.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seed_example_matrix),
        cmocka_unit_test(test_seed_example_two_compressions),
        cmocka_unit_test(test_figure4_rays),
        cmocka_unit_test(test_figure4_unstable_sticking_start),
        cmocka_unit_test(test_figure4_trajectories),
        cmocka_unit_test(test_frictionless_newton),
        cmocka_unit_test(test_central_impact),
        cmocka_unit_test(test_elastic_frictionless_energy),
        cmocka_unit_test(test_stable_sticking_closed_form),
        cmocka_unit_test(test_ball_rolls_or_slides),
        cmocka_unit_test(test_quartic),
        cmocka_unit_test(test_ray_at_pi),
        cmocka_unit_test(test_diverging_ray_random),
        cmocka_unit_test(test_rotation_near_z),
        cmocka_unit_test(test_rotation_invariance),
        cmocka_unit_test(test_2d_matches_3d),
        cmocka_unit_test(test_2d_hand_cases),
        cmocka_unit_test(test_2d_body_matches_3d),
        cmocka_unit_test(test_guard_rails_contact),
        cmocka_unit_test(test_guard_rails_body),
        cmocka_unit_test(test_guard_rails_2d),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
