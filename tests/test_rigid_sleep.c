/* Sleeping islands in the rigid-body pipeline (issue 8):
 * - a pyramid of 15 boxes with sleep_time 0.5 s is all asleep after 2 s,
 *   and a sleeping body does not move by a single bit;
 * - a box dropped onto the sleeping pyramid wakes it, comes to rest on top
 *   (its centre one box above the top box's, within 1 mm) and everything
 *   falls asleep again;
 * - setting a sleeping body's state wakes its island; with sleep_time 0
 *   nothing ever sleeps. */
#include "rigid_helpers.h"

#define G 9.81

static cr_world *pyramid(double sleep_time, cr_body_id *top)
{
    cr_world_def def = cr_default_world_def();
    def.dt = 1.0 / 120.0;
    def.sleep_time = sleep_time;
    cr_world *w = make_world_def(&def);
    add_plane(w, cr_v3_zero(), cr_v3(0, 0, 1));
    const double h = 0.1;
    for (int k = 0; k < 5; ++k)
        for (int i = 0; i < 5 - k; ++i)
            *top = add_box(w, cr_v3(h, h, h), cr_v3((2 * h + 0.01) * (i + 0.5 * k), 0, h + 2 * h * k), cr_q_identity(),
                           1.0, 0.0, 0.6);
    return w;
}

static uint32_t asleep_count(const cr_world *w)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < cr_world_body_capacity(w); ++i) n += cr_body_is_asleep(w, cr_world_body_at(w, i));
    return n;
}

static void test_pyramid_sleeps_and_wakes(void **state)
{
    (void)state;
    cr_body_id top;
    cr_world *w = pyramid(0.5, &top);
    for (int i = 0; i < 240; ++i) assert_int_equal(cr_world_step(w), CR_OK);
    assert_int_equal(asleep_count(w), 15);
    assert_int_equal(cr_world_stats(w)->sleeping, 15);
    cr_body_state before = state_of(w, top);
    for (int i = 0; i < 60; ++i) assert_int_equal(cr_world_step(w), CR_OK);
    cr_body_state after = state_of(w, top);
    assert_memory_equal(&before, &after, sizeof before);
    assert_int_equal(cr_world_contact_count(w), 0); /* nothing among sleeping bodies */

    /* a box dropped on top */
    cr_body_id dropped = add_box(w, cr_v3(0.1, 0.1, 0.1), cr_v3_add(after.position, cr_v3(0, 0, 0.5)), cr_q_identity(),
                                 1.0, 0.0, 0.6);
    bool woke = false;
    for (int i = 0; i < 600; ++i) {
        assert_int_equal(cr_world_step(w), CR_OK);
        if (!cr_body_is_asleep(w, top)) woke = true;
    }
    assert_true(woke);
    assert_int_equal(asleep_count(w), 16);
    cr_body_state d = state_of(w, dropped), t = state_of(w, top);
    assert_near(d.position.z - t.position.z, 0.2, 1e-3);
    cr_world_destroy(w);
}

static void test_set_state_wakes_and_zero_never_sleeps(void **state)
{
    (void)state;
    cr_body_id top;
    cr_world *w = pyramid(0.5, &top);
    for (int i = 0; i < 240; ++i) assert_int_equal(cr_world_step(w), CR_OK);
    assert_true(cr_body_is_asleep(w, top));
    cr_body_state s = state_of(w, top);
    assert_int_equal(cr_body_set_state(w, top, &s), CR_OK);
    assert_int_equal(asleep_count(w), 0); /* the whole island */
    cr_world_destroy(w);

    w = pyramid(0.0, &top);
    for (int i = 0; i < 240; ++i) assert_int_equal(cr_world_step(w), CR_OK);
    assert_int_equal(asleep_count(w), 0);
    cr_world_destroy(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pyramid_sleeps_and_wakes),
        cmocka_unit_test(test_set_state_wakes_and_zero_never_sleeps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
