/* The C API misused in the ways people do (issue 7), beyond test_api.c:
 * every world-changing call from inside the impact callback is refused with
 * CR_ERR_REENTRANT and leaves the world as it was, while reading is allowed;
 * iterating over bodies with cr_world_body_at while removing some neither
 * skips nor repeats a live body; stale ids of every kind (removed, reused
 * slot, never issued, out of range, forged) are refused with
 * CR_ERR_STALE_ID; NULL and unmade defs are caught. These checks are in
 * every build, not only in debug builds. What is NOT caught is listed in
 * docs/reliability.md. */
#include <stdio.h>
#include <string.h>

#include "test_helpers.h"

/* ---- calls from inside the impact callback --------------------------------- */

typedef struct misuse {
    cr_world *w;
    cr_body_id victim; /* a body the callback tries to remove */
    int calls;
    cr_status remove, set_state, set_dt, add_plane, add_surface, add_body, step, prepare;
    char remove_msg[128];
    bool read_ok;      /* the reads inside the callback worked */
} misuse;

static void misuse_callback(const cr_impact *im, void *ctx)
{
    misuse *m = ctx;
    m->calls++;
    m->remove = cr_world_remove_body(m->w, m->victim);
    snprintf(m->remove_msg, sizeof m->remove_msg, "%s", cr_world_last_error(m->w));
    cr_body_state s;
    cr_status got = cr_body_get_state(m->w, im->a, &s);
    s.velocity = cr_v3(100, 0, 0);
    m->set_state = cr_body_set_state(m->w, im->a, &s);
    m->set_dt = cr_world_set_dt(m->w, 0.5);
    cr_plane_def p = cr_default_plane_def();
    m->add_plane = cr_world_add_plane(m->w, &p, NULL);
    cr_surface_def sd = cr_default_surface_def();
    m->add_surface = cr_world_add_surface(m->w, &sd, NULL);
    cr_body_def d = cr_default_body_def();
    m->add_body = cr_world_add_body(m->w, &d, NULL);
    m->step = cr_world_step(m->w);
    m->prepare = cr_world_prepare(m->w);
    /* Reading is fine: the state is the one right after the impulse. */
    cr_energy e = cr_world_energy(m->w);
    m->read_ok = got == CR_OK && cr_v3_isfinite(s.position) && cr_body_is_valid(m->w, im->a) && isfinite(e.total) &&
                 cr_world_body_count(m->w) == 2 && cr_world_stats(m->w) != NULL;
}

static void test_callback_cannot_change_the_world(void **state)
{
    (void)state;
    for (int method = 0; method < 2; ++method) {
        misuse m;
        memset(&m, 0, sizeof m);
        cr_world_def def = cr_default_world_def();
        def.method = method ? CR_METHOD_EVENT : CR_METHOD_IMPULSE;
        def.on_impact = misuse_callback;
        def.callback_ctx = &m;
        m.w = make_world_def(&def);
        add_plane(m.w, cr_v3_zero(), cr_v3(0, 0, 1));
        cr_body_id ball = add_sphere(m.w, cr_v3(0, 0, 0.2), cr_v3(0, 0, -5), 0.1, 1, CR_INERTIA_SOLID, 0.5, 0.3);
        m.victim = add_sphere(m.w, cr_v3(5, 0, 3), cr_v3_zero(), 0.1, 1, CR_INERTIA_SOLID, 0.5, 0.3);
        step_n(m.w, 100);
        assert_true(m.calls > 0);
        /* Removing a body while the world iterates over its impacts. */
        assert_int_equal(m.remove, CR_ERR_REENTRANT);
        assert_non_null(strstr(m.remove_msg, "cr_world_remove_body: called from a world callback"));
        assert_int_equal(m.set_state, CR_ERR_REENTRANT);
        assert_int_equal(m.set_dt, CR_ERR_REENTRANT);
        assert_int_equal(m.add_plane, CR_ERR_REENTRANT);
        assert_int_equal(m.add_surface, CR_ERR_REENTRANT);
        assert_int_equal(m.add_body, CR_ERR_REENTRANT);
        assert_int_equal(m.step, CR_ERR_REENTRANT);
        assert_int_equal(m.prepare, CR_ERR_REENTRANT);
        assert_true(m.read_ok);
        /* Nothing of it happened. */
        assert_true(cr_body_is_valid(m.w, m.victim));
        assert_int_equal(cr_world_body_count(m.w), 2);
        assert_int_equal(cr_world_plane_count(m.w), 1);
        assert_int_equal(cr_world_surface_count(m.w), 0);
        assert_true(cr_world_get_def(m.w)->dt == 1e-3);
        assert_true(state_of(m.w, ball).velocity.x == 0.0);
        assert_int_equal(cr_world_step_count(m.w), 100);
        /* After the step the same calls work. */
        assert_int_equal(cr_world_remove_body(m.w, m.victim), CR_OK);
        assert_int_equal(cr_world_step(m.w), CR_OK);
        cr_world_destroy(m.w);
    }
}

/* ---- iterating while removing ------------------------------------------------ */

enum { N_ITER = 200 };

/* Walks the slots with cr_world_body_at, removing bodies as it goes (the
 * current one, and sometimes one further on, not yet visited): each body
 * still alive when the walk reaches its slot is visited exactly once, and
 * none that was removed before is. */
static void test_iterate_while_removing(void **state)
{
    (void)state;
    cr_world *w = make_world(cr_v3_zero(), 1e-3, CR_METHOD_IMPULSE);
    cr_body_id ids[N_ITER];
    for (int i = 0; i < N_ITER; ++i)
        ids[i] = add_sphere(w, cr_v3(i, 0, 0), cr_v3_zero(), 0.1, 1, CR_INERTIA_SOLID, 0.5, 0.3);
    /* Holes before the walk too. */
    for (int i = 0; i < N_ITER; i += 7) assert_int_equal(cr_world_remove_body(w, ids[i]), CR_OK);

    int visits[N_ITER] = {0};
    bool removed_ahead[N_ITER] = {false};
    uint64_t seed = 3;
    for (uint32_t slot = 0; slot < cr_world_body_capacity(w); ++slot) {
        cr_body_id id = cr_world_body_at(w, slot);
        if (id.generation == 0) continue; /* free slot */
        assert_true(cr_body_is_valid(w, id));
        assert_int_equal(id.index, slot);
        visits[slot]++;
        uint64_t r = test_rand_u64(&seed);
        if (r % 3 == 0) assert_int_equal(cr_world_remove_body(w, id), CR_OK); /* the current one */
        uint32_t ahead = slot + 1 + (uint32_t)(r >> 40) % 5;
        if (r % 4 == 0 && ahead < N_ITER && cr_body_is_valid(w, ids[ahead])) {
            assert_int_equal(cr_world_remove_body(w, ids[ahead]), CR_OK);
            removed_ahead[ahead] = true;
        }
    }
    for (int i = 0; i < N_ITER; ++i) {
        int expected = (i % 7 == 0 || removed_ahead[i]) ? 0 : 1;
        if (visits[i] != expected) fail_msg("slot %d visited %d times, expected %d", i, visits[i], expected);
    }
    cr_world_destroy(w);
}

/* Bodies added during the walk reuse freed slots (last freed first) or go
 * to the end: the walk visits those at later slots and not those at slots
 * it has passed. Documented, not an error; existing bodies are still each
 * visited once. */
static void test_iterate_while_adding(void **state)
{
    (void)state;
    cr_world *w = make_world(cr_v3_zero(), 1e-3, CR_METHOD_IMPULSE);
    for (int i = 0; i < 10; ++i) add_sphere(w, cr_v3(i, 0, 0), cr_v3_zero(), 0.1, 1, CR_INERTIA_SOLID, 0.5, 0.3);
    int visited_old = 0, visited_new = 0;
    cr_body_id added[10];
    int n_added = 0;
    for (uint32_t slot = 0; slot < cr_world_body_capacity(w); ++slot) {
        cr_body_id id = cr_world_body_at(w, slot);
        if (id.generation == 0) continue;
        bool is_new = false;
        for (int k = 0; k < n_added; ++k)
            if (added[k].index == id.index && added[k].generation == id.generation) is_new = true;
        if (is_new) {
            visited_new++;
            continue;
        }
        visited_old++;
        if (slot == 2) {
            /* Free slot 2 and add: the new body takes slot 2, already passed. */
            assert_int_equal(cr_world_remove_body(w, id), CR_OK);
            added[n_added++] = add_sphere(w, cr_v3(20, 0, 0), cr_v3_zero(), 0.1, 1, CR_INERTIA_SOLID, 0.5, 0.3);
            assert_int_equal(added[n_added - 1].index, 2);
            /* No free slot left: the next one goes to the end, ahead. */
            added[n_added++] = add_sphere(w, cr_v3(30, 0, 0), cr_v3_zero(), 0.1, 1, CR_INERTIA_SOLID, 0.5, 0.3);
            assert_int_equal(added[n_added - 1].index, 10);
        }
    }
    assert_int_equal(visited_old, 10);
    assert_int_equal(visited_new, 1); /* slot 10 yes, slot 2 no */
    cr_world_destroy(w);
}

/* ---- stale ids of every kind -------------------------------------------------- */

static void assert_stale(cr_world *w, cr_body_id id)
{
    cr_body_state s;
    cr_body_def d;
    cr_ball_state bs;
    assert_false(cr_body_is_valid(w, id));
    assert_int_equal(cr_body_get_state(w, id, &s), CR_ERR_STALE_ID);
    assert_int_equal(cr_body_get_def(w, id, &d), CR_ERR_STALE_ID);
    assert_int_equal(cr_body_get_ball_state(w, id, &bs, NULL), CR_ERR_STALE_ID);
    s.position = s.velocity = s.angular_velocity = cr_v3_zero();
    s.orientation = cr_q_identity();
    assert_int_equal(cr_body_set_state(w, id, &s), CR_ERR_STALE_ID);
    assert_non_null(strstr(cr_world_last_error(w), "stale body id"));
    assert_int_equal(cr_world_remove_body(w, id), CR_ERR_STALE_ID);
    assert_non_null(strstr(cr_world_last_error(w), "stale body id"));
}

static void test_stale_ids_every_kind(void **state)
{
    (void)state;
    cr_world *w = make_world(cr_v3_zero(), 1e-3, CR_METHOD_IMPULSE);
    cr_body_id a = add_sphere(w, cr_v3_zero(), cr_v3_zero(), 0.1, 1, CR_INERTIA_SOLID, 0.5, 0.3);
    cr_body_id b = add_sphere(w, cr_v3(1, 0, 0), cr_v3_zero(), 0.1, 1, CR_INERTIA_SOLID, 0.5, 0.3);
    /* Removed, then its slot reused several times: every old id stays stale. */
    cr_body_id old[5];
    cr_body_id cur = a;
    for (int k = 0; k < 5; ++k) {
        old[k] = cur;
        assert_int_equal(cr_world_remove_body(w, cur), CR_OK);
        cur = add_sphere(w, cr_v3_zero(), cr_v3_zero(), 0.1, 1, CR_INERTIA_SOLID, 0.5, 0.3);
        assert_int_equal(cur.index, a.index);
    }
    for (int k = 0; k < 5; ++k) assert_stale(w, old[k]);
    assert_true(cr_body_is_valid(w, cur));
    /* The null id, an index past the end, and forged generations: an even
     * one (a free slot's) and one never issued. */
    assert_stale(w, (cr_body_id){0, 0});
    assert_stale(w, (cr_body_id){b.index, 0});
    assert_stale(w, (cr_body_id){7, 1});
    assert_stale(w, (cr_body_id){UINT32_MAX, 1});
    assert_stale(w, (cr_body_id){b.index, b.generation + 1});
    assert_stale(w, (cr_body_id){b.index, b.generation + 2});
    /* The live ones are untouched by all of it. */
    assert_true(cr_body_is_valid(w, b));
    assert_int_equal(cr_world_body_count(w), 2);
    step_n(w, 3);

    /* Static ids: wrong index, generation or type. */
    cr_static_id plane = add_plane(w, cr_v3(0, 0, -1), cr_v3(0, 0, 1));
    cr_plane_def pd;
    assert_int_equal(cr_plane_get_def(w, plane, &pd), CR_OK);
    cr_static_id bad = plane;
    bad.index = 5;
    assert_int_equal(cr_plane_get_def(w, bad, &pd), CR_ERR_STALE_ID);
    bad = plane;
    bad.generation = 0;
    assert_int_equal(cr_plane_get_def(w, bad, &pd), CR_ERR_STALE_ID);
    bad = plane;
    bad.type = CR_STATIC_SURFACE;
    assert_int_equal(cr_plane_get_def(w, bad, &pd), CR_ERR_STALE_ID);
    assert_null(cr_world_surface(w, 0));
    assert_null(cr_world_surface(w, UINT32_MAX));
    assert_int_equal(cr_world_body_at(w, UINT32_MAX).generation, 0);
    cr_world_destroy(w);
}

/* ---- NULL and unmade defs ------------------------------------------------------ */

static void test_null_and_unmade_defs(void **state)
{
    (void)state;
    cr_world *w = NULL;
    assert_int_equal(cr_world_create(NULL, &w), CR_ERR_UNINITIALIZED_DEF);
    assert_null(w);
    cr_world_def junk_world;
    memset(&junk_world, 0xff, sizeof junk_world);
    assert_int_equal(cr_world_create(&junk_world, &w), CR_ERR_UNINITIALIZED_DEF);
    assert_null(w);
    w = make_world(cr_v3_zero(), 1e-3, CR_METHOD_IMPULSE);
    assert_int_equal(cr_world_add_body(w, NULL, NULL), CR_ERR_UNINITIALIZED_DEF);
    assert_non_null(strstr(cr_world_last_error(w), "not made by cr_default_body_def()"));
    assert_int_equal(cr_world_add_plane(w, NULL, NULL), CR_ERR_UNINITIALIZED_DEF);
    assert_non_null(strstr(cr_world_last_error(w), "not made by cr_default_plane_def()"));
    /* A def copied from a made one is made; one with its magic changed is not. */
    cr_body_def d = cr_default_body_def(), copy = d;
    assert_int_equal(cr_world_add_body(w, &copy, NULL), CR_OK);
    d.internal_magic ^= 1u;
    assert_int_equal(cr_world_add_body(w, &d, NULL), CR_ERR_UNINITIALIZED_DEF);
    assert_int_equal(cr_world_body_count(w), 1);
    /* Destroying NULL is harmless. */
    cr_world_destroy(NULL);
    cr_world_destroy(w);
}

/* A failed call leaves a message that names the function; a later good call
 * does not clear it (cr_world_last_error is "the last failed call"). */
static void test_error_messages_name_the_call(void **state)
{
    (void)state;
    cr_world *w = make_world(cr_v3_zero(), 1e-3, CR_METHOD_IMPULSE);
    assert_string_equal(cr_world_last_error(w), "");
    assert_int_equal(cr_world_set_dt(w, -1.0), CR_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cr_world_last_error(w), "cr_world_set_dt: dt must be > 0"));
    assert_int_equal(cr_world_set_dt(w, 2e-3), CR_OK);
    assert_non_null(strstr(cr_world_last_error(w), "cr_world_set_dt"));
    cr_world_destroy(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_callback_cannot_change_the_world),
        cmocka_unit_test(test_iterate_while_removing),
        cmocka_unit_test(test_iterate_while_adding),
        cmocka_unit_test(test_stale_ids_every_kind),
        cmocka_unit_test(test_null_and_unmade_defs),
        cmocka_unit_test(test_error_messages_name_the_call),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
