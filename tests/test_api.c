/* The C API refuses misuse with clear statuses and messages: stale ids,
 * defs not made by their default function, bad values, a world that
 * produced a non-finite value, and calls from inside the world's callback. */
#include <stdio.h>
#include <string.h>

#include "test_helpers.h"

static void test_stale_ids(void **state)
{
    (void)state;
    cr_world *w = make_world(cr_v3_zero(), 1e-3, CR_METHOD_IMPULSE);
    cr_body_id a = add_sphere(w, cr_v3_zero(), cr_v3_zero(), 0.1, 1, CR_INERTIA_SOLID, 0.5, 0.3);
    assert_int_equal(cr_world_remove_body(w, a), CR_OK);
    cr_body_state s;
    assert_int_equal(cr_body_get_state(w, a, &s), CR_ERR_STALE_ID);
    assert_int_equal(cr_world_remove_body(w, a), CR_ERR_STALE_ID);
    assert_non_null(strstr(cr_world_last_error(w), "stale body id"));
    /* The slot is reused with a new generation: the old id stays stale. */
    cr_body_id b = add_sphere(w, cr_v3(1, 0, 0), cr_v3_zero(), 0.1, 1, CR_INERTIA_SOLID, 0.5, 0.3);
    assert_int_equal(b.index, a.index);
    assert_false(cr_body_is_valid(w, a));
    assert_true(cr_body_is_valid(w, b));
    cr_body_id null_id = {0, 0};
    assert_int_equal(cr_body_get_state(w, null_id, &s), CR_ERR_STALE_ID);
    cr_world_destroy(w);
}

static void test_defs_checked(void **state)
{
    (void)state;
    cr_world *w = make_world(cr_v3_zero(), 1e-3, CR_METHOD_IMPULSE);
    cr_body_def junk;
    memset(&junk, 0, sizeof junk);
    assert_int_equal(cr_world_add_body(w, &junk, NULL), CR_ERR_UNINITIALIZED_DEF);
    cr_body_def d = cr_default_body_def();
    d.mass = -1.0;
    assert_int_equal(cr_world_add_body(w, &d, NULL), CR_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cr_world_last_error(w), "mass"));
    d = cr_default_body_def();
    d.position.y = NAN;
    assert_int_equal(cr_world_add_body(w, &d, NULL), CR_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cr_world_last_error(w), "position"));
    cr_plane_def p = cr_default_plane_def();
    p.normal = cr_v3_zero();
    assert_int_equal(cr_world_add_plane(w, &p, NULL), CR_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cr_world_last_error(w), "normal"));
    cr_world_def wd = cr_default_world_def();
    wd.k_p = 1.5;
    cr_world *w2 = NULL;
    char msg[128];
    assert_int_equal(cr_world_def_validate(&wd, msg, sizeof msg), CR_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(msg, "k_p"));
    assert_int_equal(cr_world_create(&wd, &w2), CR_ERR_INVALID_ARGUMENT);
    assert_null(w2);
    cr_world_destroy(w);
}

static void test_non_finite_stops_the_world(void **state)
{
    (void)state;
    cr_world *w = make_world(cr_v3_zero(), 1.0, CR_METHOD_IMPULSE);
    add_sphere(w, cr_v3_zero(), cr_v3_zero(), 0.1, 1, CR_INERTIA_SOLID, 0.5, 0.3);
    cr_body_id fast = add_sphere(w, cr_v3(1.7e308, 0, 0), cr_v3(1.7e308, 0, 0), 0.1, 1, CR_INERTIA_SOLID, 0.5, 0.3);
    assert_int_equal(cr_world_step(w), CR_ERR_NON_FINITE);
    char expected[64];
    snprintf(expected, sizeof expected, "body %u", fast.index);
    assert_non_null(strstr(cr_world_last_error(w), expected));
    assert_int_equal(cr_world_step(w), CR_ERR_NON_FINITE); /* refuses to go on */
    cr_world_destroy(w);
}

typedef struct reentry { cr_world *w; cr_status step, add; double overlap; } reentry;
static void reenter(const cr_impact *im, void *ctx)
{
    (void)im;
    reentry *r = ctx;
    r->step = cr_world_step(r->w);
    cr_body_def d = cr_default_body_def();
    r->add = cr_world_add_body(r->w, &d, NULL);
    r->overlap = cr_world_max_overlap(r->w, NULL, NULL);
    cr_world_destroy(r->w); /* refused: the step is running on it */
}

static void test_callback_cannot_reenter(void **state)
{
    (void)state;
    reentry r = {NULL, CR_OK, CR_OK, 0.0};
    cr_world_def def = cr_default_world_def();
    def.on_impact = reenter;
    def.callback_ctx = &r;
    r.w = make_world_def(&def);
    add_plane(r.w, cr_v3_zero(), cr_v3(0, 0, 1));
    add_sphere(r.w, cr_v3(0, 0, 0.2), cr_v3(0, 0, -5), 0.1, 1, CR_INERTIA_SOLID, 0.5, 0.3);
    step_n(r.w, 50);
    assert_int_equal(r.step, CR_ERR_REENTRANT);
    assert_int_equal(r.add, CR_ERR_REENTRANT);
    assert_true(isnan(r.overlap));
    assert_non_null(strstr(cr_world_last_error(r.w), "cr_world_destroy"));
    cr_world_destroy(r.w);
}

/* A kinematic body moves with its velocity and acts as immovable. */
static void test_kinematic_pusher(void **state)
{
    (void)state;
    cr_world *w = make_world(cr_v3_zero(), 1e-3, CR_METHOD_IMPULSE);
    cr_body_def d = cr_default_body_def();
    d.type = CR_BODY_KINEMATIC;
    d.velocity = cr_v3(1, 0, 0);
    d.restitution = 1.0;
    d.friction = 0.0;
    cr_body_id pusher;
    assert_int_equal(cr_world_add_body(w, &d, &pusher), CR_OK);
    cr_body_id ball = add_sphere(w, cr_v3(0.5, 0, 0), cr_v3_zero(), 0.1, 1, CR_INERTIA_SOLID, 1.0, 0.0);
    step_n(w, 500);
    assert_near(state_of(w, pusher).velocity.x, 1.0, 0.0);
    assert_near(state_of(w, pusher).position.x, 0.5, 1e-12);
    /* An elastic hit by an immovable wall moving at 1 m/s: the ball leaves at 2 m/s. */
    assert_near(state_of(w, ball).velocity.x, 2.0, 1e-12);
    cr_world_destroy(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stale_ids),
        cmocka_unit_test(test_defs_checked),
        cmocka_unit_test(test_non_finite_stops_the_world),
        cmocka_unit_test(test_callback_cannot_reenter),
        cmocka_unit_test(test_kinematic_pusher),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
