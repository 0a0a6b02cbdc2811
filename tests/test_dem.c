/* CR_METHOD_DEM: the spring-dashpot law with tangential history (LAMMPS
 * gran/hooke/history, and gran/hertz/history: test_hertz_head_on), frozen (kinematic, at rest) bodies and periodic
 * boundaries.
 *
 * Head-on collision, analytic: with m_eff = m_a m_b / (m_a + m_b) the
 * overlap obeys m_eff d'' = -kn d - m_eff gamma_n d' (LAMMPS scales gamma_n
 * by m_eff), i.e. d'' + gamma_n d' + w0^2 d = 0 with w0^2 = kn / m_eff. The
 * contact lasts until d returns to 0, half a damped period, t_c = pi / w_d,
 * w_d = sqrt(w0^2 - gamma_n^2 / 4), and the normal relative speed comes out
 * multiplied by e = exp(-gamma_n t_c / 2) = exp(-gamma_n pi / (2 w_d)).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carom/checkpoint.h"
#include "scene/scene.h"
#include "test_helpers.h"

#define PI 3.14159265358979323846

static cr_world_def dem_def(double dt, cr_vec3 g) { return test_dem_def(dt, g, 1e4, 20.0); }

static cr_body_id ball(cr_world *w, cr_body_type type, cr_vec3 x, cr_vec3 v, double r, double m, cr_inertia_kind in)
{
    cr_body_def b = cr_default_body_def();
    b.type = type;
    b.position = x;
    b.velocity = v;
    b.radius = r;
    b.mass = m;
    b.inertia_kind = in;
    cr_body_id id;
    assert_int_equal(cr_world_add_body(w, &b, &id), CR_OK);
    return id;
}

static cr_body_state get(cr_world *w, cr_body_id id)
{
    cr_body_state s;
    assert_int_equal(cr_body_get_state(w, id, &s), CR_OK);
    return s;
}

/* Worlds w[1..count-1] hold the same n slots as w[0], bit for bit. */
static void assert_same_bodies(cr_world *const *w, int count, uint32_t n)
{
    for (uint32_t i = 0; i < n; ++i) {
        cr_body_state s0 = get(w[0], cr_world_body_at(w[0], i));
        for (int m = 1; m < count; ++m) {
            cr_body_state s = get(w[m], cr_world_body_at(w[m], i));
            assert_memory_equal(&s.position, &s0.position, sizeof s.position);
            assert_memory_equal(&s.velocity, &s0.velocity, sizeof s.velocity);
            assert_memory_equal(&s.angular_velocity, &s0.angular_velocity, sizeof s.angular_velocity);
            assert_memory_equal(&s.orientation, &s0.orientation, sizeof s.orientation);
        }
    }
}

/* Two equal spheres head on: duration pi / w_d and restitution
 * exp(-gamma_n pi / (2 w_d)) within 1%, momentum conserved. */
static void test_hooke_head_on(void **state)
{
    (void)state;
    const double m = 1.0, r = 0.5, v0 = 0.5, dt = 1e-5;
    cr_world_def d = dem_def(dt, cr_v3_zero());
    cr_world *w = make_world_def(&d);
    cr_body_id a = ball(w, CR_BODY_DYNAMIC, cr_v3(-0.51, 0, 0), cr_v3(v0, 0, 0), r, m, CR_INERTIA_SOLID);
    cr_body_id b = ball(w, CR_BODY_DYNAMIC, cr_v3(0.51, 0, 0), cr_v3(-v0, 0, 0), r, m, CR_INERTIA_SOLID);
    double meff = 0.5 * m, w0sq = d.hooke.kn / meff, wd = sqrt(w0sq - 0.25 * d.hooke.gamma_n * d.hooke.gamma_n);
    double tc = PI / wd, e = exp(-d.hooke.gamma_n * PI / (2.0 * wd));
    int touching = 0, began = 0, ended = 0;
    for (int k = 0; k < 20000 && !ended; ++k) {
        assert_int_equal(cr_world_step(w), CR_OK);
        cr_body_state sa = get(w, a), sb = get(w, b);
        bool touch = sb.position.x - sa.position.x < 2.0 * r;
        if (touch) ++touching, began = 1;
        if (began && !touch) ended = 1;
        assert_true(fabs(sa.velocity.x + sb.velocity.x) < 1e-12); /* momentum */
    }
    assert_true(ended);
    double measured_tc = touching * dt;
    double measured_e = (get(w, b).velocity.x - get(w, a).velocity.x) / (2.0 * v0);
    print_message("head on: t_c %.6g (analytic %.6g), e %.6g (analytic %.6g)\n", measured_tc, tc, measured_e, e);
    assert_true(fabs(measured_tc - tc) < 0.01 * tc);
    assert_true(fabs(measured_e - e) < 0.01 * e);
    /* no tangential motion, no spin in a central impact */
    assert_true(cr_v3_len(get(w, a).angular_velocity) < 1e-12);
    cr_world_destroy(w);
}

/* Pure Hertz (CR_DEM_HERTZ, gamma_n = gamma_t = 0, kt = 0) head on: the
 * overlap obeys m_eff d'' = -k d^(3/2), k = kn sqrt(R*), R* = r_a r_b /
 * (r_a + r_b). Energy, m_eff u^2 / 2 = (2/5) k d_max^(5/2) for the
 * approach speed u, gives d_max = (5 m_eff u^2 / (4 k))^(2/5), and
 *   t_c = 2 int_0^d_max dd / sqrt(u^2 - (4 k / (5 m_eff)) d^(5/2))
 *       = 2 (d_max / u) int_0^1 dx / sqrt(1 - x^(5/2))
 *       = 2 sqrt(pi) Gamma(7/5) / Gamma(9/10) (5/4)^(2/5) (m_eff / k)^(2/5) u^(-1/5)
 *       = 3.218065... (m_eff / k)^(2/5) u^(-1/5)
 * (the integral is B(2/5, 1/2) / (5/2); 2.9433 (m_eff / k)^(2/5) u^(-1/5)
 * is the same time written with d_max's factor (5/4)^(2/5) left out);
 * no damping: restitution 1. Unequal spheres (R* is not r / 2), dt small
 * against t_c: t_c, d_max and e within 1e-3. */
static void test_hertz_head_on(void **state)
{
    (void)state;
    const double ma = 1.0, mb = 3.0, ra = 0.5, rb = 0.8, u = 1.0, dt = 1e-6;
    cr_world_def d = dem_def(dt, cr_v3_zero());
    d.hooke.model = CR_DEM_HERTZ;
    d.hooke.kn = 1e6;
    d.hooke.kt = 0.0;
    d.hooke.gamma_n = d.hooke.gamma_t = 0.0;
    cr_world *w = make_world_def(&d);
    /* closing at u, 1e-4 apart: the contact begins within the first steps */
    cr_body_id a = ball(w, CR_BODY_DYNAMIC, cr_v3(-ra - 5e-5, 0, 0), cr_v3(mb / (ma + mb) * u, 0, 0), ra, ma,
                        CR_INERTIA_SOLID);
    cr_body_id b = ball(w, CR_BODY_DYNAMIC, cr_v3(rb + 5e-5, 0, 0), cr_v3(-ma / (ma + mb) * u, 0, 0), rb, mb,
                        CR_INERTIA_SOLID);
    const double meff = ma * mb / (ma + mb), rstar = ra * rb / (ra + rb), k = d.hooke.kn * sqrt(rstar);
    const double c = 2.0 * sqrt(PI) * tgamma(1.4) / tgamma(0.9) * pow(1.25, 0.4);
    const double tc = c * pow(meff / k, 0.4) * pow(u, -0.2), dmax = pow(5.0 * meff * u * u / (4.0 * k), 0.4);
    int touching = 0, began = 0, ended = 0;
    double deepest = 0.0;
    for (int k2 = 0; k2 < 200000 && !ended; ++k2) {
        assert_int_equal(cr_world_step(w), CR_OK);
        const double gap = get(w, b).position.x - get(w, a).position.x - (ra + rb);
        if (gap < 0.0) ++touching, began = 1, deepest = fmax(deepest, -gap);
        if (began && gap >= 0.0) ended = 1;
    }
    assert_true(ended);
    const double measured_tc = touching * dt, e = (get(w, b).velocity.x - get(w, a).velocity.x) / u;
    print_message("hertz head on: t_c %.7g (closed form %.7g, constant %.7f), d_max %.7g (%.7g), e %.7g\n",
                  measured_tc, tc, c, deepest, dmax, e);
    assert_true(fabs(c - 3.218065) < 1e-6);
    assert_true(fabs(measured_tc - tc) < 1e-3 * tc);
    assert_true(fabs(deepest - dmax) < 1e-3 * dmax);
    assert_true(fabs(e - 1.0) < 1e-3);
    cr_world_destroy(w);
}

/* A particle (no rotation, so it cannot roll) resting on a frozen sphere
 * so large that it is a floor, under gravity tilted by theta: with
 * tan theta < mu the tangential spring holds it (it creeps by the spring's
 * stretch only); with tan theta > mu it slides with g (sin theta - mu cos theta). */
static double tilt_run(double mu, double tan_theta, double *accel)
{
    const double m = 1.0, r = 0.5, R = 1e4, dt = 1e-4, g = 9.81, T = 1.0;
    double th = atan(tan_theta);
    cr_world_def d = dem_def(dt, cr_v3(g * sin(th), 0, -g * cos(th)));
    d.hooke.mu = mu;
    d.hooke.gamma_n = 200.0;
    d.hooke.gamma_t = 200.0; /* damps the tangential spring's oscillation */
    cr_world *w = make_world_def(&d);
    ball(w, CR_BODY_KINEMATIC, cr_v3(0, 0, -R), cr_v3_zero(), R, 1.0, CR_INERTIA_SOLID);
    double delta = m * g * cos(th) / d.hooke.kn; /* resting overlap */
    cr_body_id p = ball(w, CR_BODY_DYNAMIC, cr_v3(0, 0, r - delta), cr_v3_zero(), r, m, CR_INERTIA_PARTICLE);
    int n = (int)(T / dt + 0.5);
    double x_half = 0.0;
    for (int k = 1; k <= n; ++k) {
        assert_int_equal(cr_world_step(w), CR_OK);
        if (k == n / 2) x_half = get(w, p).position.x;
    }
    double x = get(w, p).position.x;
    /* x(T) - 2 x(T/2) = a T^2 / 4 when x = x0 + a t^2 / 2 */
    *accel = 4.0 * (x - 2.0 * x_half) / (T * T);
    assert_true(get(w, p).position.z > 0.0); /* still on the floor */
    cr_world_destroy(w);
    return x;
}

static void test_hooke_stick_slide(void **state)
{
    (void)state;
    const double mu = 0.5, g = 9.81;
    double a;
    double x = tilt_run(mu, 0.8 * mu, &a);
    double th0 = atan(0.8 * mu), stretch = 1.0 * g * sin(th0) / (2.0 / 7.0 * 1e4); /* m g sin / kt */
    print_message("stick: x(1 s) = %.4g (spring stretch m g sin / kt = %.4g), a = %.3g\n", x, stretch, a);
    assert_true(fabs(x - stretch) < 0.01 * stretch); /* held by the spring, at rest */
    x = tilt_run(mu, 1.2 * mu, &a);
    double th = atan(1.2 * mu), want = g * (sin(th) - mu * cos(th));
    print_message("slide: x(1 s) = %.4g, a = %.5g (Coulomb %.5g)\n", x, a, want);
    assert_true(fabs(a - want) < 0.02 * want);
}

/* Periodic x: a sphere leaving through hi comes back through lo with the
 * same velocity. */
static void test_periodic_crossing(void **state)
{
    (void)state;
    cr_world_def d = dem_def(1e-3, cr_v3_zero());
    d.periodic.x = true;
    d.periodic.lo = cr_v3(0, 0, 0);
    d.periodic.hi = cr_v3(10, 10, 10);
    cr_world *w = make_world_def(&d);
    cr_vec3 v = cr_v3(3.0, 0.25, -0.5);
    cr_body_id a = ball(w, CR_BODY_DYNAMIC, cr_v3(9.95, 5, 5), v, 0.5, 1.0, CR_INERTIA_SOLID);
    for (int k = 0; k < 100; ++k) assert_int_equal(cr_world_step(w), CR_OK);
    cr_body_state s = get(w, a);
    assert_true(s.position.x >= 0.0 && s.position.x < 10.0);
    assert_true(fabs(s.position.x - (9.95 + 0.3 - 10.0)) < 1e-12);
    assert_true(fabs(s.position.y - 5.025) < 1e-12); /* y, z are not periodic here: no wrap needed */
    assert_true(s.velocity.x == v.x && s.velocity.y == v.y && s.velocity.z == v.z);
    cr_world_destroy(w);
}

/* A pair straddling the boundary collides through it: momentum conserved
 * to 1e-12, the approach reversed. Box 10 uses the cell grid, box 2.5 the
 * all-pairs fallback. */
static void test_periodic_straddle(void **state)
{
    (void)state;
    const double L[2] = {10.0, 2.5};
    for (int c = 0; c < 2; ++c) {
        cr_world_def d = dem_def(1e-5, cr_v3_zero());
        d.periodic.x = d.periodic.y = d.periodic.z = true;
        d.periodic.lo = cr_v3(0, 0, 0);
        d.periodic.hi = cr_v3(L[c], L[c], L[c]);
        cr_world *w = make_world_def(&d);
        double h = 0.5 * L[c];
        cr_body_id a = ball(w, CR_BODY_DYNAMIC, cr_v3(L[c] - 0.6, h, h), cr_v3(1, 0, 0), 0.5, 1.0, CR_INERTIA_SOLID);
        cr_body_id b = ball(w, CR_BODY_DYNAMIC, cr_v3(0.6, h + 0.1, h), cr_v3(-1, 0, 0), 0.5, 2.0, CR_INERTIA_SOLID);
        cr_vec3 p0 = cr_v3_add(cr_v3_scale(get(w, a).velocity, 1.0), cr_v3_scale(get(w, b).velocity, 2.0));
        int touched = 0;
        for (int k = 0; k < 30000; ++k) {
            assert_int_equal(cr_world_step(w), CR_OK);
            if (cr_world_stats(w)->contacts) touched = 1;
        }
        cr_body_state sa = get(w, a), sb = get(w, b);
        cr_vec3 p1 = cr_v3_add(cr_v3_scale(sa.velocity, 1.0), cr_v3_scale(sb.velocity, 2.0));
        print_message("straddle L=%g: va %.4g vb %.4g, |dp| %.3g\n", L[c], sa.velocity.x, sb.velocity.x,
                      cr_v3_len(cr_v3_sub(p1, p0)));
        assert_true(touched);
        assert_true(cr_v3_len(cr_v3_sub(p1, p0)) < 1e-12);
        assert_true(sa.velocity.x < 0.0 && sb.velocity.x > sa.velocity.x); /* they bounced apart */
        assert_true(sa.position.x >= 0.0 && sa.position.x < L[c] && sb.position.x >= 0.0 && sb.position.x < L[c]);
        cr_world_destroy(w);
    }
}

/* What DEM worlds refuse, with messages naming the field. */
static void test_dem_refusals(void **state)
{
    (void)state;
    char msg[256];
    cr_world_def d = dem_def(1e-4, cr_v3_zero());
    d.hooke.kn = 0.0;
    assert_int_equal(cr_world_def_validate(&d, msg, sizeof msg), CR_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(msg, "hooke.kn"));
    d = cr_default_world_def();
    d.periodic.x = true;
    d.periodic.hi = cr_v3(1, 1, 1);
    assert_int_equal(cr_world_def_validate(&d, msg, sizeof msg), CR_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(msg, "periodic"));
    d = dem_def(1e-4, cr_v3_zero());
    d.periodic.y = true; /* lo = hi = 0 */
    assert_int_equal(cr_world_def_validate(&d, msg, sizeof msg), CR_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(msg, "periodic: y"));
    d = dem_def(1e-4, cr_v3_zero());
    cr_world *w = make_world_def(&d);
    cr_plane_def p = cr_default_plane_def();
    assert_int_equal(cr_world_add_plane(w, &p, NULL), CR_ERR_INVALID_ARGUMENT);
    ball(w, CR_BODY_DYNAMIC, cr_v3_zero(), cr_v3_zero(), 0.5, 1.0, CR_INERTIA_SOLID);
    assert_int_equal(cr_world_step(w), CR_OK);
    unsigned char *buf = NULL;
    size_t size = 0;
    /* checkpoints hold method dem since version 3 (tests/test_checkpoint_dem.c) */
    assert_int_equal(cr_world_save_buffer(w, NULL, 0, &buf, &size, msg, sizeof msg), CR_OK);
    assert_non_null(buf);
    free(buf);
    cr_world_destroy(w);
}

/* Removing a body and reusing its slot: the new body inherits no history,
 * and the world keeps stepping. */
static void test_dem_remove_reuse(void **state)
{
    (void)state;
    cr_world_def d = dem_def(1e-4, cr_v3(0, 0, -9.81));
    cr_world *w = make_world_def(&d);
    ball(w, CR_BODY_KINEMATIC, cr_v3(0, 0, -100), cr_v3_zero(), 100.0, 1.0, CR_INERTIA_SOLID);
    cr_body_id a = ball(w, CR_BODY_DYNAMIC, cr_v3(0, 0, 0.4999), cr_v3(0.1, 0, 0), 0.5, 1.0, CR_INERTIA_SOLID);
    for (int k = 0; k < 100; ++k) assert_int_equal(cr_world_step(w), CR_OK);
    assert_int_equal(cr_world_remove_body(w, a), CR_OK);
    cr_body_id b = ball(w, CR_BODY_DYNAMIC, cr_v3(0, 0, 0.4999), cr_v3_zero(), 0.5, 1.0, CR_INERTIA_PARTICLE);
    assert_int_equal(b.index, a.index);
    assert_int_equal(cr_world_step(w), CR_OK);
    /* a fresh contact's first step: the shear is v_t dt = 0, no tangential force */
    assert_true(fabs(get(w, b).velocity.x) < 1e-15);
    cr_world_destroy(w);
}

/* The scene format's "method": "dem", "hooke" and "periodic" keys, and
 * their errors named by JSON path. */
static void test_dem_scene_keys(void **state)
{
    (void)state;
    const char *ok = "{\"method\": \"dem\", \"dt\": 1e-4, \"hooke\": {\"kn\": 1e4, \"kt\": 2857, \"gamma_n\": 20, "
                     "\"mu\": 0.5}, \"periodic\": {\"x\": true, \"lo\": [0, 0, 0], \"hi\": [4, 4, 4]}, "
                     "\"bodies\": [{\"shape\": \"sphere\", \"radius\": 0.5, \"position\": [3.9, 2, 2], "
                     "\"velocity\": [1, 0, 0]}]}";
    cr_scene sc;
    char err[512];
    assert_int_equal(cr_scene_load_string(ok, "ok", &sc, err, sizeof err), 0);
    const cr_world_def *d = cr_world_get_def(sc.world);
    assert_int_equal(d->method, CR_METHOD_DEM);
    assert_true(d->hooke.kn == 1e4 && d->hooke.mu == 0.5 && d->periodic.x && !d->periodic.y);
    for (int k = 0; k < 200; ++k) assert_int_equal(cr_world_step(sc.world), CR_OK);
    cr_body_state s = get(sc.world, cr_world_body_at(sc.world, 0));
    assert_true(s.position.x >= 0.0 && s.position.x < 4.0); /* wrapped */
    cr_scene_free(&sc);
    const char *bad = "{\"method\": \"dem\", \"hooke\": {\"kn\": 1e4, \"mu\": -1}}";
    assert_int_not_equal(cr_scene_load_string(bad, "bad", &sc, err, sizeof err), 0);
    assert_non_null(strstr(err, "hooke.mu"));
    const char *bad2 = "{\"method\": \"dem\", \"hooke\": {\"kn\": 1e4}, \"periodic\": {\"w\": true}}";
    assert_int_not_equal(cr_scene_load_string(bad2, "bad2", &sc, err, sizeof err), 0);
    assert_non_null(strstr(err, "periodic.w"));
    /* the contact model: "hooke" (the default) or "hertz", anything else named */
    const char *hz = "{\"method\": \"dem\", \"hooke\": {\"kn\": 1e4, \"model\": \"hertz\"}}";
    assert_int_equal(cr_scene_load_string(hz, "hz", &sc, err, sizeof err), 0);
    assert_int_equal(cr_world_get_def(sc.world)->hooke.model, CR_DEM_HERTZ);
    cr_scene_free(&sc);
    const char *hk = "{\"method\": \"dem\", \"hooke\": {\"kn\": 1e4, \"model\": \"hooke\"}}";
    assert_int_equal(cr_scene_load_string(hk, "hk", &sc, err, sizeof err), 0);
    assert_int_equal(cr_world_get_def(sc.world)->hooke.model, CR_DEM_HOOKE);
    cr_scene_free(&sc);
    const char *bad3 = "{\"method\": \"dem\", \"hooke\": {\"kn\": 1e4, \"model\": \"jkr\"}}";
    assert_int_not_equal(cr_scene_load_string(bad3, "bad3", &sc, err, sizeof err), 0);
    assert_non_null(strstr(err, "hooke.model"));
    assert_non_null(strstr(err, "\"hertz\""));
    /* and the def's value is checked */
    cr_world_def dm = dem_def(1e-4, cr_v3_zero());
    char msg[256];
    dm.hooke.model = (cr_dem_model)7;
    assert_int_equal(cr_world_def_validate(&dm, msg, sizeof msg), CR_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(msg, "hooke.model"));
    /* rolling resistance: the three keys read, a bad value named by its
     * path, and gamma_roll or mu_roll without k_roll refused by the def */
    const char *roll = "{\"method\": \"dem\", \"hooke\": {\"kn\": 1e4, \"k_roll\": 300, \"gamma_roll\": 0.5, "
                       "\"mu_roll\": 0.1}}";
    assert_int_equal(cr_scene_load_string(roll, "roll", &sc, err, sizeof err), 0);
    const cr_hooke *h = &cr_world_get_def(sc.world)->hooke;
    assert_true(h->k_roll == 300 && h->gamma_roll == 0.5 && h->mu_roll == 0.1);
    cr_scene_free(&sc);
    const char *bad4 = "{\"method\": \"dem\", \"hooke\": {\"kn\": 1e4, \"k_roll\": 300, \"mu_roll\": -0.1}}";
    assert_int_not_equal(cr_scene_load_string(bad4, "bad4", &sc, err, sizeof err), 0);
    assert_non_null(strstr(err, "hooke.mu_roll"));
    const char *bad5 = "{\"method\": \"dem\", \"hooke\": {\"kn\": 1e4, \"mu_roll\": 0.1}}";
    assert_int_not_equal(cr_scene_load_string(bad5, "bad5", &sc, err, sizeof err), 0);
    assert_non_null(strstr(err, "hooke.k_roll"));
    dm.hooke.model = CR_DEM_HOOKE;
    dm.hooke.gamma_roll = 1.0;
    assert_int_equal(cr_world_def_validate(&dm, msg, sizeof msg), CR_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(msg, "hooke.k_roll"));
    dm.hooke.k_roll = 1e3;
    assert_int_equal(cr_world_def_validate(&dm, msg, sizeof msg), CR_OK);
    dm.hooke.k_roll = NAN;
    assert_int_equal(cr_world_def_validate(&dm, msg, sizeof msg), CR_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(msg, "hooke.k_roll"));
}

/* A periodic bed of 1,800 spheres (several work items) falling on a frozen
 * floor, stepped with 1 and 2 worker threads and with an application task
 * system: positions, velocities, spins and orientations agree to the bit. */
static cr_world *bed_model(uint32_t workers, int *enqueued, bool turn, cr_dem_model model)
{
    cr_world_def d = test_dem_def(1e-4, cr_v3(3.0, 0, -9.81), 2e5, 50.0);
    d.hooke.model = model;
    d.integrate_orientation = turn;
    d.periodic.x = d.periodic.y = true;
    d.periodic.lo = cr_v3(0, 0, -1);
    d.periodic.hi = cr_v3(15, 15, 20);
    test_use_tasks(&d, workers, enqueued);
    cr_world *w = make_world_def(&d);
    uint32_t seed = 12345u;
    for (int ix = 0; ix < 15; ++ix)
        for (int iy = 0; iy < 15; ++iy) {
            ball(w, CR_BODY_KINEMATIC, cr_v3(ix + 0.5, iy + 0.5, 0.0), cr_v3_zero(), 0.5, 1.0, CR_INERTIA_SOLID);
            for (int iz = 1; iz < 8; ++iz) {
                seed = seed * 1664525u + 1013904223u;
                double jx = (double)(seed >> 8) / 16777216.0 - 0.5;
                seed = seed * 1664525u + 1013904223u;
                double jy = (double)(seed >> 8) / 16777216.0 - 0.5;
                ball(w, CR_BODY_DYNAMIC, cr_v3(ix + 0.5 + 0.04 * jx, iy + 0.5 + 0.04 * jy, 0.97 * iz),
                     cr_v3(jx, jy, -3.0), 0.5, 1.0, CR_INERTIA_SOLID);
            }
        }
    return w;
}

static cr_world *bed(uint32_t workers, int *enqueued, bool turn)
{
    return bed_model(workers, enqueued, turn, CR_DEM_HOOKE);
}

/* ... with either contact model (Hertz: CR_DEM_HERTZ) */
static void test_dem_threads_bitwise(void **state)
{
    (void)state;
    for (int model = CR_DEM_HOOKE; model <= CR_DEM_HERTZ; ++model) {
        int enqueued = 0;
        cr_world *w[3] = {bed_model(1, NULL, true, (cr_dem_model)model), bed_model(2, NULL, true, (cr_dem_model)model),
                          bed_model(1, &enqueued, true, (cr_dem_model)model)};
        for (int k = 0; k < 600; ++k)
            for (int m = 0; m < 3; ++m) assert_int_equal(cr_world_step(w[m]), CR_OK);
        assert_true(enqueued > 0);
        assert_true(cr_world_stats(w[0])->contacts > 1000);
        uint32_t n = cr_world_body_capacity(w[0]);
        assert_int_equal(n, 15 * 15 * 8);
        assert_same_bodies(w, 3, n);
        for (int m = 0; m < 3; ++m) cr_world_destroy(w[m]);
    }
    /* the def's task fields are checked */
    cr_world_def d = dem_def(1e-4, cr_v3_zero());
    char msg[256];
    d.worker_count = 0;
    assert_int_equal(cr_world_def_validate(&d, msg, sizeof msg), CR_ERR_INVALID_ARGUMENT);
    d.worker_count = 2;
    d.enqueue_task = test_reverse_enqueue;
    assert_int_equal(cr_world_def_validate(&d, msg, sizeof msg), CR_ERR_INVALID_ARGUMENT);
}

/* integrate_orientation false: the orientations stay as given, to the bit,
 * and every other number of the run is the one of the default run (the law
 * never reads q); on 2 threads too. The key is refused with another method,
 * and the scene key reaches the def. */
static void test_dem_no_orientation(void **state)
{
    (void)state;
    cr_world *w[3] = {bed(1, NULL, true), bed(1, NULL, false), bed(2, NULL, false)};
    uint32_t n = cr_world_body_capacity(w[0]);
    cr_quat *q0 = malloc(sizeof *q0 * n);
    assert_non_null(q0);
    for (uint32_t i = 0; i < n; ++i) {
        /* a tilted start, so that "as given" is not the identity */
        cr_body_state s = get(w[1], cr_world_body_at(w[1], i));
        double a = 0.001 * i;
        s.orientation = (cr_quat){cos(a), sin(a), 0.0, 0.0};
        for (int m = 0; m < 3; ++m) assert_int_equal(cr_body_set_state(w[m], cr_world_body_at(w[m], i), &s), CR_OK);
        q0[i] = get(w[1], cr_world_body_at(w[1], i)).orientation; /* as the world keeps it (normalised) */
    }
    for (int k = 0; k < 300; ++k)
        for (int m = 0; m < 3; ++m) assert_int_equal(cr_world_step(w[m]), CR_OK);
    assert_true(cr_world_stats(w[0])->contacts > 1000);
    uint32_t turned = 0;
    for (uint32_t i = 0; i < n; ++i) {
        cr_body_state s0 = get(w[0], cr_world_body_at(w[0], i));
        turned += memcmp(&s0.orientation, &q0[i], sizeof q0[i]) != 0;
        for (int m = 1; m < 3; ++m) {
            cr_body_state s = get(w[m], cr_world_body_at(w[m], i));
            assert_memory_equal(&s.position, &s0.position, sizeof s.position);
            assert_memory_equal(&s.velocity, &s0.velocity, sizeof s.velocity);
            assert_memory_equal(&s.angular_velocity, &s0.angular_velocity, sizeof s.angular_velocity);
            assert_memory_equal(&s.orientation, &q0[i], sizeof q0[i]);
        }
    }
    assert_true(turned > n / 2); /* the default run does turn them */
    free(q0);
    for (int m = 0; m < 3; ++m) cr_world_destroy(w[m]);
    char msg[256];
    cr_world_def d = cr_default_world_def();
    d.integrate_orientation = false;
    assert_int_equal(cr_world_def_validate(&d, msg, sizeof msg), CR_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(msg, "integrate_orientation: false only with method dem"));
    cr_scene sc;
    char err[512];
    const char *ok = "{\"method\": \"dem\", \"hooke\": {\"kn\": 1e4}, \"integrate_orientation\": false}";
    assert_int_equal(cr_scene_load_string(ok, "ok", &sc, err, sizeof err), 0);
    assert_false(cr_world_get_def(sc.world)->integrate_orientation);
    cr_scene_free(&sc);
    const char *bad = "{\"integrate_orientation\": false}";
    assert_int_not_equal(cr_scene_load_string(bad, "bad", &sc, err, sizeof err), 0);
    assert_non_null(strstr(err, "integrate_orientation"));
    const char *bad2 = "{\"method\": \"dem\", \"hooke\": {\"kn\": 1e4}, \"integrate_orientation\": 0}";
    assert_int_not_equal(cr_scene_load_string(bad2, "bad2", &sc, err, sizeof err), 0);
    assert_non_null(strstr(err, "integrate_orientation"));
}

/* cr_world_prepare does the set-up of the next step ahead of it: a run
 * prepared (twice: the second has nothing to do), or prepared and then
 * changed (the change undoes it), is the run without it, to the bit. */
static void test_dem_prepare(void **state)
{
    (void)state;
    cr_world *w[3] = {bed(1, NULL, true), bed(1, NULL, true), bed(2, NULL, true)};
    assert_int_equal(cr_world_prepare(w[1]), CR_OK);
    assert_int_equal(cr_world_prepare(w[1]), CR_OK);
    assert_int_equal(cr_world_prepare(w[2]), CR_OK);
    cr_body_id id = cr_world_body_at(w[2], 7);
    cr_body_state s7 = get(w[2], id);
    s7.velocity.x += 0.25;
    assert_int_equal(cr_body_set_state(w[2], id, &s7), CR_OK);
    assert_int_equal(cr_body_set_state(w[0], cr_world_body_at(w[0], 7), &s7), CR_OK);
    assert_int_equal(cr_body_set_state(w[1], cr_world_body_at(w[1], 7), &s7), CR_OK);
    assert_int_equal(cr_world_prepare(w[1]), CR_OK); /* again after the change */
    /* the set-up's forces were found (the bed starts in contact) */
    assert_true(cr_world_stats(w[1])->contacts > 1000);
    assert_int_equal(cr_world_stats(w[0])->contacts, 0);
    for (int k = 0; k < 200; ++k)
        for (int m = 0; m < 3; ++m) assert_int_equal(cr_world_step(w[m]), CR_OK);
    assert_true(cr_world_stats(w[0])->contacts > 1000);
    uint32_t n = cr_world_body_capacity(w[0]);
    assert_same_bodies(w, 3, n);
    for (int m = 0; m < 3; ++m) cr_world_destroy(w[m]);
}

/* A number that overflows stops the world with CR_ERR_NON_FINITE naming
 * the body (the step's end checks every body's x, v, w), with 1 body and
 * with a bed of several work items on 2 threads. */
static void test_dem_non_finite(void **state)
{
    (void)state;
    cr_world *w[2] = {NULL, bed(2, NULL, false)};
    cr_world_def d = dem_def(1.0, cr_v3_zero());
    w[0] = make_world_def(&d);
    ball(w[0], CR_BODY_DYNAMIC, cr_v3(0, 0, 0), cr_v3_zero(), 0.5, 1.0, CR_INERTIA_SOLID);
    for (int m = 0; m < 2; ++m) {
        assert_int_equal(cr_world_step(w[m]), CR_OK);
        const uint32_t victim = m ? 1000 : 0;
        cr_body_id id = cr_world_body_at(w[m], victim);
        cr_body_state s = get(w[m], id);
        /* finite now; z + dt v_z beyond the largest double, 1.7977e308
         * (dt = 1, and 1e-4 in the bed, whose z is not periodic) */
        s.position.z = m ? 1.7976e308 : 1.79e308;
        s.velocity.z = m ? 1.7e308 : 1e308;
        assert_int_equal(cr_body_set_state(w[m], id, &s), CR_OK);
        assert_int_equal(cr_world_step(w[m]), CR_ERR_NON_FINITE);
        char want[32];
        snprintf(want, sizeof want, "body %u", victim);
        assert_non_null(strstr(cr_world_last_error(w[m]), want));
        cr_world_destroy(w[m]);
    }
}

/* The step's end already moves the bodies for the next step with its dt
 * (src/dem.c task_finish): cr_world_set_dt between steps must still give
 * the new dt's velocity Verlet, bit for bit (a falling ball, no contact:
 * v += dt/2 g, x += dt v, v += dt/2 g; m = 1 and binary dt, g keep the
 * test's arithmetic the same as the library's). */
static void test_dem_set_dt(void **state)
{
    (void)state;
    const double dt[2] = {1.0 / 1024.0, 1.0 / 256.0};
    const cr_vec3 g = cr_v3(0.0, 0.0, -8.0);
    cr_world_def d = dem_def(dt[0], g);
    cr_world *w = make_world_def(&d);
    cr_vec3 x = cr_v3(0.25, 0.5, 3.0), v = cr_v3(0.5, 0.0, 1.0);
    cr_body_id a = ball(w, CR_BODY_DYNAMIC, x, v, 0.5, 1.0, CR_INERTIA_SOLID);
    for (int k = 0; k < 40; ++k) {
        const double h = dt[k / 20] * 0.5;
        if (k == 20) assert_int_equal(cr_world_set_dt(w, dt[1]), CR_OK);
        assert_int_equal(cr_world_step(w), CR_OK);
        v = cr_v3_madd(v, g, h), x = cr_v3_madd(x, v, 2.0 * h), v = cr_v3_madd(v, g, h);
        cr_body_state s = get(w, a);
        assert_memory_equal(&s.position, &x, sizeof x);
        assert_memory_equal(&s.velocity, &v, sizeof v);
    }
    cr_world_destroy(w);
}

/* The step leaves the world's copy of the state to be written when read
 * (src/dem.c cr_dem_sync): every reader and every change through the API
 * must see the state of the last step. Two equal beds, stepped alike; the
 * first is read through each function before anything else, the second
 * after cr_body_get_state; then a body is moved in both and the beds must
 * go on alike. */
static void test_dem_lazy_world(void **state)
{
    (void)state;
    cr_world *w[2] = {bed(1, NULL, true), bed(1, NULL, true)};
    uint32_t n = cr_world_body_capacity(w[0]);
    cr_body_id some = cr_world_body_at(w[0], n / 2);
    for (int k = 0; k < 50; ++k)
        for (int m = 0; m < 2; ++m) assert_int_equal(cr_world_step(w[m]), CR_OK);
    /* each reader first, on w[0] (a fresh pair of steps before each) */
    cr_energy e0 = cr_world_energy(w[0]);
    for (uint32_t i = 0; i < n; ++i) get(w[1], cr_world_body_at(w[1], i));
    cr_energy e1 = cr_world_energy(w[1]);
    assert_memory_equal(&e0, &e1, sizeof e0);
    for (int m = 0; m < 2; ++m) assert_int_equal(cr_world_step(w[m]), CR_OK);
    double o0 = cr_world_max_overlap(w[0], NULL, NULL);
    get(w[1], some);
    double o1 = cr_world_max_overlap(w[1], NULL, NULL);
    assert_memory_equal(&o0, &o1, sizeof o0);
    for (int m = 0; m < 2; ++m) assert_int_equal(cr_world_step(w[m]), CR_OK);
    cr_body_def d0, d1;
    assert_int_equal(cr_body_get_def(w[0], some, &d0), CR_OK);
    get(w[1], some);
    assert_int_equal(cr_body_get_def(w[1], some, &d1), CR_OK);
    assert_memory_equal(&d0.position, &d1.position, sizeof d0.position);
    assert_memory_equal(&d0.orientation, &d1.orientation, sizeof d0.orientation);
    for (int m = 0; m < 2; ++m) assert_int_equal(cr_world_step(w[m]), CR_OK);
    double mass[2];
    cr_mat3 in[2];
    assert_int_equal(cr_body_get_inertia(w[0], some, &mass[0], &in[0]), CR_OK);
    get(w[1], some);
    assert_int_equal(cr_body_get_inertia(w[1], some, &mass[1], &in[1]), CR_OK);
    assert_memory_equal(&in[0], &in[1], sizeof in[0]);
    /* a change first: the other bodies keep the last step's state */
    for (int m = 0; m < 2; ++m) assert_int_equal(cr_world_step(w[m]), CR_OK);
    cr_body_state s = get(w[1], some);
    s.velocity = cr_v3(0.0, 0.0, 1.0);
    assert_int_equal(cr_body_set_state(w[0], some, &s), CR_OK);
    for (uint32_t i = 0; i < n; ++i) get(w[1], cr_world_body_at(w[1], i));
    assert_int_equal(cr_body_set_state(w[1], some, &s), CR_OK);
    for (int k = 0; k < 20; ++k)
        for (int m = 0; m < 2; ++m) assert_int_equal(cr_world_step(w[m]), CR_OK);
    for (uint32_t i = 0; i < n; ++i) {
        cr_body_state a = get(w[0], cr_world_body_at(w[0], i)), b = get(w[1], cr_world_body_at(w[1], i));
        assert_memory_equal(&a.position, &b.position, sizeof a.position);
        assert_memory_equal(&a.velocity, &b.velocity, sizeof a.velocity);
    }
    /* and a body removed, one added */
    assert_int_equal(cr_world_remove_body(w[0], some), CR_OK);
    for (uint32_t i = 0; i < n; ++i) get(w[1], cr_world_body_at(w[1], i));
    assert_int_equal(cr_world_remove_body(w[1], some), CR_OK);
    for (int k = 0; k < 20; ++k)
        for (int m = 0; m < 2; ++m) assert_int_equal(cr_world_step(w[m]), CR_OK);
    for (int m = 0; m < 2; ++m)
        ball(w[m], CR_BODY_DYNAMIC, cr_v3(7.5, 7.5, 15.0), cr_v3_zero(), 0.5, 1.0, CR_INERTIA_SOLID);
    for (int k = 0; k < 20; ++k)
        for (int m = 0; m < 2; ++m) assert_int_equal(cr_world_step(w[m]), CR_OK);
    for (uint32_t i = 0; i < n; ++i) {
        cr_body_id id = cr_world_body_at(w[0], i);
        if (!cr_body_is_valid(w[0], id)) continue;
        cr_body_state a = get(w[0], id), b = get(w[1], cr_world_body_at(w[1], i));
        assert_memory_equal(&a.position, &b.position, sizeof a.position);
    }
    for (int m = 0; m < 2; ++m) cr_world_destroy(w[m]);
}

/* The list build takes a cell's candidates in one array when no cell of
 * the stencil holds more than 4 bodies and cell by cell otherwise (src/dem.c
 * task_list): a chain of 60 small touching spheres, alone (cells of about
 * one sphere) and beside one large sphere far away (cells 20 times larger,
 * about 20 spheres each), has its 59 contacts both ways. */
static void test_dem_list_crowded_cells(void **state)
{
    (void)state;
    for (int big = 0; big < 2; ++big) {
        cr_world_def d = dem_def(1e-5, cr_v3_zero());
        cr_world *w = make_world_def(&d);
        for (int k = 0; k < 60; ++k)
            ball(w, CR_BODY_DYNAMIC, cr_v3(0.19 * k, 0.01 * (k % 3), 0.0), cr_v3_zero(), 0.1, 1.0, CR_INERTIA_SOLID);
        if (big) ball(w, CR_BODY_DYNAMIC, cr_v3(0.0, 40.0, 0.0), cr_v3_zero(), 2.0, 1.0, CR_INERTIA_SOLID);
        assert_int_equal(cr_world_step(w), CR_OK);
        assert_int_equal(cr_world_stats(w)->contacts, 59);
        cr_world_destroy(w);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hooke_head_on),       cmocka_unit_test(test_hooke_stick_slide),
        cmocka_unit_test(test_hertz_head_on),
        cmocka_unit_test(test_periodic_crossing),   cmocka_unit_test(test_periodic_straddle),
        cmocka_unit_test(test_dem_refusals),        cmocka_unit_test(test_dem_remove_reuse),
        cmocka_unit_test(test_dem_scene_keys),      cmocka_unit_test(test_dem_threads_bitwise), cmocka_unit_test(test_dem_set_dt), cmocka_unit_test(test_dem_lazy_world), cmocka_unit_test(test_dem_list_crowded_cells),
        cmocka_unit_test(test_dem_no_orientation), cmocka_unit_test(test_dem_prepare),
        cmocka_unit_test(test_dem_non_finite),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
