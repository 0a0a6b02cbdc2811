/* The sub-stepped solver's coloured passes over the workers (branch pyr13;
 * docs/physics/substep.md, "Colours and threads"): a heap of 288 cubes
 * dropped turned into a box, settling into contacts of many colours, ends
 * with the same bits on 1, 2 and 3 threads and for a task system that runs
 * the items backwards, one at a time. */
#include <string.h>

#include "rigid.h"
#include "simd.h"
#include "rigid_helpers.h"

#define CUBES 288

/* Cubes of 0.1 m in layers of 6 x 6 on a 0.13 m grid, turned at random,
 * into an open box 0.8 m square; restitution e. */
static cr_world *heap_e(uint32_t workers, int *enqueued, cr_body_id *ids, bool portable, double e)
{
    cr_world_def d = cr_default_world_def();
    d.gravity = cr_v3(0, 0, -9.81);
    d.dt = 1.0 / 240.0;
    d.rigid_substeps = 4;
    test_use_tasks(&d, workers, enqueued);
    cr_world *w = make_world_def(&d);
    const double half = 0.4;
    add_plane(w, cr_v3_zero(), cr_v3(0, 0, 1));
    add_side_walls(w, half);
    uint64_t s = 11;
    for (int k = 0; k < CUBES; ++k) {
        int layer = k / 36, i = (k % 36) / 6, j = k % 6;
        cr_vec3 x = cr_v3(-0.325 + 0.13 * i + test_rand(&s, -0.01, 0.01), -0.325 + 0.13 * j + test_rand(&s, -0.01, 0.01),
                          0.08 + 0.13 * layer);
        cr_vec3 axis = test_rand_vec(&s, -1, 1);
        double angle = test_rand(&s, 0, 2 * PI);
        ids[k] = add_box(w, cr_v3(0.05, 0.05, 0.05), x, axis_angle(axis, angle), 0.5, e, 0.5);
    }
    assert_int_equal(cr_rigid_ensure(w), CR_OK);
    w->rigid->substep_portable = portable;
    return w;
}

static cr_world *heap(uint32_t workers, int *enqueued, cr_body_id *ids, bool portable)
{
    return heap_e(workers, enqueued, ids, portable, 0.0);
}

/* Worlds k = 1 .. count - 1 end with world 0's bits: the cubes' states,
 * and the impulses reported on the last step's contacts (which the bodies
 * never read back). */
static void same_bits(cr_world **w, cr_body_id (*ids)[CUBES], int count)
{
    for (int k = 1; k < count; ++k) {
        assert_int_equal(cr_world_contact_count(w[k]), cr_world_contact_count(w[0]));
        for (uint32_t c = 0; c < cr_world_contact_count(w[0]); ++c) {
            cr_contact_report r0, rk;
            assert_int_equal(cr_world_get_contact(w[0], c, &r0), CR_OK);
            assert_int_equal(cr_world_get_contact(w[k], c, &rk), CR_OK);
            if (memcmp(&r0.normal_impulse, &rk.normal_impulse, sizeof r0.normal_impulse) ||
                memcmp(&r0.friction_impulse, &rk.friction_impulse, sizeof r0.friction_impulse))
                fail_msg("contact %u's impulses differ in world %d", (unsigned)c, k);
        }
    }
    for (int k = 1; k < count; ++k)
        for (int i = 0; i < CUBES; ++i) {
            cr_body_state s0 = state_of(w[0], ids[0][i]), sk = state_of(w[k], ids[k][i]);
            if (memcmp(&s0.position, &sk.position, sizeof s0.position) ||
                memcmp(&s0.orientation, &sk.orientation, sizeof s0.orientation) ||
                memcmp(&s0.velocity, &sk.velocity, sizeof s0.velocity) ||
                memcmp(&s0.angular_velocity, &sk.angular_velocity, sizeof s0.angular_velocity))
                fail_msg("cube %d differs in world %d", i, k);
        }
}

static void test_same_bits_any_workers(void **state)
{
    (void)state;
    int enqueued = 0;
    static cr_body_id ids[4][CUBES];
    cr_world *w[4] = {heap(1, NULL, ids[0], false), heap(2, NULL, ids[1], false), heap(3, NULL, ids[2], false),
                      heap(2, &enqueued, ids[3], false)};
    uint32_t most_colours = 0;
    for (int n = 0; n < 150; ++n)
        for (int k = 0; k < 4; ++k) {
            assert_int_equal(cr_world_step(w[k]), CR_OK);
            if (k == 0 && cr_rigid_substep_colours(w[0]) > most_colours) most_colours = cr_rigid_substep_colours(w[0]);
            assert_int_equal(cr_rigid_substep_colours(w[k]), cr_rigid_substep_colours(w[0]));
        }
    print_message("heap of %d cubes: up to %u colours, %u contacts at the end\n", CUBES, (unsigned)most_colours,
                  (unsigned)cr_world_contact_count(w[0]));
    assert_true(most_colours >= 3); /* the coloured passes ran, over several items */
    assert_true(enqueued > 0);
    same_bits(w, ids, 4);
    for (int k = 0; k < 4; ++k) cr_world_destroy(w[k]);
}

/* The solve on AVX2 lanes (where the processor has it) and the plain one:
 * the same bits, on 1 and 2 workers (each path's set-up, which differs, on
 * the workers too). */
static void test_same_bits_avx2_and_plain(void **state)
{
    (void)state;
    static cr_body_id ids[4][CUBES];
    cr_world *w[4] = {heap(1, NULL, ids[0], true), heap(1, NULL, ids[1], false), heap(2, NULL, ids[2], false),
                      heap(2, NULL, ids[3], true)};
    for (int n = 0; n < 150; ++n)
        for (int k = 0; k < 4; ++k) assert_int_equal(cr_world_step(w[k]), CR_OK);
    print_message("AVX2 %s here\n", cr_use_avx2(false) ? "taken" : "not available: plain on both");
    same_bits(w, ids, 4);
    for (int k = 0; k < 4; ++k) cr_world_destroy(w[k]);
}

/* Bouncing cubes (restitution 0.6): restitution reads the effective
 * masses, lambdas and totals of points that the AVX2 lanes held during
 * the substeps (written back after them) and that the plain path kept in
 * place: the same bits, on 1, 2 and 3 workers and a backwards task system. */
static void test_same_bits_restitution(void **state)
{
    (void)state;
    int enqueued = 0;
    static cr_body_id ids[5][CUBES];
    cr_world *w[5] = {heap_e(1, NULL, ids[0], true, 0.6), heap_e(1, NULL, ids[1], false, 0.6),
                      heap_e(2, NULL, ids[2], false, 0.6), heap_e(3, NULL, ids[3], false, 0.6),
                      heap_e(2, &enqueued, ids[4], false, 0.6)};
    for (int n = 0; n < 150; ++n)
        for (int k = 0; k < 5; ++k) assert_int_equal(cr_world_step(w[k]), CR_OK);
    assert_true(enqueued > 0);
    same_bits(w, ids, 5);
    for (int k = 0; k < 5; ++k) cr_world_destroy(w[k]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_bits_any_workers),
        cmocka_unit_test(test_same_bits_avx2_and_plain),
        cmocka_unit_test(test_same_bits_restitution),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
