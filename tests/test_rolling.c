/* Balls on parametric surfaces against closed forms (seed 004, issue 4). */
#include "test_helpers.h"

#define G 9.81
static const double PI = 3.14159265358979323846;

static cr_static_id add_surface(cr_world *w, cr_surface_def *d)
{
    cr_static_id id;
    assert_int_equal(cr_world_add_surface(w, d, &id), CR_OK);
    return id;
}

static cr_body_id add_ball(cr_world *w, cr_vec3 x, cr_vec3 v, double r, cr_inertia_kind kind, double mu)
{
    cr_body_def d = cr_default_body_def();
    d.position = x;
    d.velocity = v;
    d.radius = r;
    d.mass = 0.2;
    d.inertia_kind = kind;
    d.friction = mu;
    d.restitution = 0.5;
    cr_body_id id;
    assert_int_equal(cr_world_add_body(w, &d, &id), CR_OK);
    return id;
}

/* A ball released on a plane surface tilted by theta rolls without slipping
 * with a = g sin(theta) / (1 + I / (m r^2)): 5/7 g sin for a solid ball, 3/5
 * for a thin hollow one; within 0.5%. */
static double rolling_acceleration(cr_inertia_kind kind, cr_method method)
{
    const double theta = 20.0 * PI / 180.0, r = 0.05;
    cr_world *w = make_world(cr_v3(0, 0, -G), 1e-3, method);
    cr_surface_def s = cr_default_surface_def();
    s.type = CR_SURFACE_PLANE;
    s.normal = cr_v3(sin(theta), 0, cos(theta));
    add_surface(w, &s);
    cr_vec3 down = cr_v3(cos(theta), 0, -sin(theta));
    cr_body_id b = add_ball(w, cr_v3_scale(s.normal, r), cr_v3_zero(), r, kind, 0.5);
    step_n(w, 1000);
    double v1 = cr_v3_dot(state_of(w, b).velocity, down);
    step_n(w, 1000);
    cr_body_state st = state_of(w, b);
    double a = cr_v3_dot(st.velocity, down) - v1;
    cr_ball_state bs;
    assert_int_equal(cr_body_get_ball_state(w, b, &bs, NULL), CR_OK);
    assert_int_equal(bs, CR_BALL_ROLLING);
    /* Rolling: the contact point is at rest, v = w x (r n). */
    cr_vec3 cp = cr_v3_add(st.velocity, cr_v3_cross(st.angular_velocity, cr_v3_scale(s.normal, -r)));
    assert_true(cr_v3_len(cp) < 1e-9);
    assert_near(cr_v3_dot(st.position, s.normal), r, 1e-9); /* on the surface */
    cr_world_destroy(w);
    print_message("slope: kind %d method %d: a / (g sin) = %.6f\n", (int)kind, (int)method, a / (G * sin(theta)));
    return a / (G * sin(theta));
}

static void test_rolling_down_a_slope(void **state)
{
    (void)state;
    for (int m = 0; m < 2; ++m) {
        cr_method method = m ? CR_METHOD_EVENT : CR_METHOD_IMPULSE;
        assert_near(rolling_acceleration(CR_INERTIA_SOLID, method), 5.0 / 7.0, 0.005 * 5.0 / 7.0);
        assert_near(rolling_acceleration(CR_INERTIA_HOLLOW, method), 3.0 / 5.0, 0.005 * 3.0 / 5.0);
    }
}

/* A solid ball launched sliding (v0, no spin) on a flat surface ends rolling
 * at 5/7 v0 after t = 2 v0 / (7 mu g), within 1%. */
static void test_sliding_to_rolling(void **state)
{
    (void)state;
    const double v0 = 3.0, mu = 0.2, r = 0.05, dt = 1e-3;
    cr_world *w = make_world(cr_v3(0, 0, -G), dt, CR_METHOD_IMPULSE);
    cr_surface_def s = cr_default_surface_def();
    add_surface(w, &s);
    cr_body_id b = add_ball(w, cr_v3(0, 0, r), cr_v3(v0, 0, 0), r, CR_INERTIA_SOLID, mu);
    double t_roll = -1.0;
    for (int i = 1; i <= 1000 && t_roll < 0.0; ++i) {
        assert_int_equal(cr_world_step(w), CR_OK);
        cr_ball_state bs;
        cr_body_get_ball_state(w, b, &bs, NULL);
        if (bs == CR_BALL_ROLLING) t_roll = i * dt;
    }
    double expected_t = 2.0 * v0 / (7.0 * mu * G);
    /* The state is read at step ends; the switch is an event inside a step. */
    print_message("sliding: rolls at %.4f s (expected %.4f s)\n", t_roll, expected_t);
    assert_near(t_roll, expected_t, fmax(0.01 * expected_t, dt));
    step_n(w, 100);
    assert_near(state_of(w, b).velocity.x, 5.0 / 7.0 * v0, 0.01 * 5.0 / 7.0 * v0);
    assert_near(state_of(w, b).angular_velocity.y, state_of(w, b).velocity.x / r, 1e-9);
    cr_world_destroy(w);
}

/* A ball that touches a slower one ahead on a flat surface, 0.5 m/s
 * against 0.4, closes on it at 0.1 m/s: below the resting speed (2 |g| dt, 0.16
 * m/s at 120 Hz), but neither ball's resting contacts hold it, since the
 * rear one runs into the other at 0.5 m/s on its own (rolling_rest.c stops
 * only a ball's own slow approach). So it is an impact, with the pair's
 * restitution e = 0.5 * 0.5 (events.c): 0.45 -+ e 0.05 m/s after, and the
 * balls never overlap. Before, neither the events nor the resting contacts
 * took the pair, and the rear ball slid 0.83 mm a step into the other.
 * Frictionless, so the closed form holds to rounding. */
static void test_catching_up_is_an_impact(void **state)
{
    (void)state;
    const double r = 0.03, dt = 1.0 / 120.0;
    cr_world_def wd = cr_default_world_def();
    wd.gravity = cr_v3(0, 0, -G);
    wd.dt = dt;
    wd.method = CR_METHOD_EVENT;
    wd.law = CR_LAW_ROLLING;
    cr_world *w = make_world_def(&wd);
    cr_surface_def s = cr_default_surface_def();
    add_surface(w, &s);
    cr_body_id rear = add_ball(w, cr_v3(0, 0, r), cr_v3(0.5, 0, 0), r, CR_INERTIA_SOLID, 0.0);
    cr_body_id front = add_ball(w, cr_v3(2.0 * r, 0, r), cr_v3(0.4, 0, 0), r, CR_INERTIA_SOLID, 0.0); /* touching */
    double deepest = 0.0;
    for (int i = 0; i < 60; ++i) {
        assert_int_equal(cr_world_step(w), CR_OK);
        double d = cr_v3_len(cr_v3_sub(state_of(w, front).position, state_of(w, rear).position));
        deepest = fmax(deepest, 2.0 * r - d);
    }
    print_message("catching up: deepest overlap %.3g m, speeds %.12f %.12f\n", deepest, state_of(w, rear).velocity.x,
                  state_of(w, front).velocity.x);
    assert_true(deepest <= 1e-8); /* the time-of-impact tolerance, 1e-9 m, and rounding */
    assert_near(state_of(w, rear).velocity.x, 0.45 - 0.25 * 0.05, 1e-9);
    assert_near(state_of(w, front).velocity.x, 0.45 + 0.25 * 0.05, 1e-9);
    cr_world_destroy(w);
}

/* A ball in a spherical bowl of radius R oscillates with period
 * 2 pi sqrt(7 (R - r) / (5 g)) for a small amplitude, within 1%. */
static void test_bowl_oscillation(void **state)
{
    (void)state;
    const double R = 1.0, r = 0.05, amplitude = 0.03, dt = 1e-3;
    cr_world *w = make_world(cr_v3(0, 0, -G), dt, CR_METHOD_IMPULSE);
    cr_surface_def s = cr_default_surface_def();
    s.type = CR_SURFACE_BOWL;
    s.center = cr_v3(0, 0, R);
    s.radius = R;
    add_surface(w, &s);
    /* On the bowl at angle phi from the bottom, centre at distance R - r from the bowl's centre. */
    double phi = amplitude / (R - r);
    cr_body_id b = add_ball(w, cr_v3((R - r) * sin(phi), 0, R - (R - r) * cos(phi)), cr_v3_zero(), r,
                            CR_INERTIA_SOLID, 0.5);
    /* Time the upward crossings of x = 0 ... via sign changes of x. */
    double prev = state_of(w, b).position.x, first = -1.0, last = -1.0;
    int crossings = 0;
    for (int i = 1; i <= 20000; ++i) {
        assert_int_equal(cr_world_step(w), CR_OK);
        double x = state_of(w, b).position.x;
        if (prev > 0.0 && x <= 0.0) { /* crossing from + to -: once per period */
            double t = (i - 1) * dt + dt * prev / (prev - x);
            if (first < 0.0) first = t;
            last = t;
            ++crossings;
        }
        prev = x;
    }
    double period = (last - first) / (crossings - 1);
    double expected = 2.0 * PI * sqrt(7.0 * (R - r) / (5.0 * G));
    print_message("bowl: %d periods, measured %.6f s, expected %.6f s\n", crossings - 1, period, expected);
    assert_true(crossings > 5);
    assert_near(period, expected, 0.01 * expected);
    cr_world_destroy(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rolling_down_a_slope),
        cmocka_unit_test(test_sliding_to_rolling),
        cmocka_unit_test(test_bowl_oscillation),
        cmocka_unit_test(test_catching_up_is_an_impact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
