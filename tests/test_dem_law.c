/* The DEM's contact law and screen on their two paths (src/dem_law.c,
 * src/dem_screen.c): the plain loops, and AVX2 where the processor has it.
 * Both must give the same bits; and so must the work items on threads
 * when the pairs' items (of up to 4,096 bodies) and the passes over the
 * bodies' (of 512) differ, the pairs' taken costliest first. A sheared bed of spheres of mixed sizes
 * and masses, periodic in x and y, on a frozen floor, with tangential
 * damping (the Coulomb limit's damping term) and sliding contacts, over
 * several work items; stepped with each path (and the plain one on 2
 * threads): every body's state agrees to the bit. On a processor without
 * AVX2 both worlds take the plain path and the test compares it with
 * itself and with 2 threads. */
#include <string.h>

#include "dem_internal.h"
#include "test_helpers.h"

enum { SIDE = 14, LAYERS = 9 };

static cr_world *sheared_bed_model(int side, int layers, uint32_t workers, int *enqueued, bool portable,
                                   cr_dem_model model)
{
    cr_world_def d = test_dem_def(1e-4, cr_v3(2.0, 0.5, -9.81), 2e5, 50.0);
    d.hooke.model = model;
    d.hooke.gamma_t = 25.0;
    d.hooke.mu = 0.3;
    test_use_tasks(&d, workers, enqueued);
    d.periodic.x = d.periodic.y = true;
    d.periodic.lo = cr_v3(0, 0, -1);
    d.periodic.hi = cr_v3(side, side, 20);
    cr_world *w = make_world_def(&d);
    uint64_t seed = 99;
    for (int ix = 0; ix < side; ++ix)
        for (int iy = 0; iy < side; ++iy)
            for (int iz = 0; iz < layers; ++iz) {
                cr_body_def b = cr_default_body_def();
                b.inertia_kind = CR_INERTIA_SOLID;
                b.type = iz == 0 ? CR_BODY_KINEMATIC : CR_BODY_DYNAMIC;
                b.radius = test_rand(&seed, 0.44, 0.54);
                b.mass = test_rand(&seed, 0.5, 2.0);
                const cr_vec3 j = test_rand_vec(&seed, -0.03, 0.03);
                /* the floor's spheres straddle the periodic faces too */
                b.position = cr_v3(ix + 0.02 + j.x, iy + 0.02 + j.y, 0.93 * iz + j.z);
                if (iz > 0) {
                    /* shear: layers moving in x faster with height */
                    b.velocity = cr_v3_add(cr_v3(0.3 * iz, 0.0, -1.0), test_rand_vec(&seed, -0.5, 0.5));
                    b.angular_velocity = test_rand_vec(&seed, -3.0, 3.0);
                }
                cr_body_id id;
                assert_int_equal(cr_world_add_body(w, &b, &id), CR_OK);
            }
    /* the DEM's state exists after the set-up; the set-up is done again
     * by the first step, on the path chosen */
    assert_int_equal(cr_world_prepare(w), CR_OK);
    w->dem->portable = portable;
    cr_dem_touch(w);
    return w;
}

static cr_world *sheared_bed_of(int side, int layers, uint32_t workers, int *enqueued, bool portable)
{
    return sheared_bed_model(side, layers, workers, enqueued, portable, CR_DEM_HOOKE);
}

static cr_world *sheared_bed(uint32_t workers, bool portable)
{
    return sheared_bed_of(SIDE, LAYERS, workers, NULL, portable);
}

static void assert_same_states(cr_world *const *w, int count)
{
    const uint32_t n = cr_world_body_capacity(w[0]);
    for (uint32_t i = 0; i < n; ++i) {
        cr_body_state s0;
        assert_int_equal(cr_body_get_state(w[0], cr_world_body_at(w[0], i), &s0), CR_OK);
        for (int m = 1; m < count; ++m) {
            cr_body_state s;
            assert_int_equal(cr_body_get_state(w[m], cr_world_body_at(w[m], i), &s), CR_OK);
            assert_memory_equal(&s.position, &s0.position, sizeof s.position);
            assert_memory_equal(&s.velocity, &s0.velocity, sizeof s.velocity);
            assert_memory_equal(&s.angular_velocity, &s0.angular_velocity, sizeof s.angular_velocity);
        }
    }
}

static void test_dem_law_paths_bitwise(void **state)
{
    (void)state;
    cr_world *w[3] = {sheared_bed(1, false), sheared_bed(1, true), sheared_bed(2, true)};
    uint32_t most = 0;
    for (int k = 0; k < 400; ++k)
        for (int m = 0; m < 3; ++m) {
            assert_int_equal(cr_world_step(w[m]), CR_OK);
            if (m == 0 && cr_world_stats(w[0])->contacts > most) most = cr_world_stats(w[0])->contacts;
        }
    /* several work items, and many contacts in them */
    assert_true(w[0]->dem->n > 3 * DEM_CHUNK);
    assert_true(most > 2000);
    assert_true(cr_dem_build_count(w[0]) > 2);
    assert_int_equal(cr_world_body_capacity(w[0]), SIDE * SIDE * LAYERS);
    assert_same_states(w, 3);
    for (int m = 0; m < 3; ++m) cr_world_destroy(w[m]);
}

/* The same with CR_DEM_HERTZ (both forces times sqrt(delta R*), the
 * AVX2 path's lanes as the plain path's): the same bits on both paths and
 * on 2 threads. */
static void test_dem_law_paths_bitwise_hertz(void **state)
{
    (void)state;
    cr_world *w[3] = {sheared_bed_model(SIDE, LAYERS, 1, NULL, false, CR_DEM_HERTZ),
                      sheared_bed_model(SIDE, LAYERS, 1, NULL, true, CR_DEM_HERTZ),
                      sheared_bed_model(SIDE, LAYERS, 2, NULL, true, CR_DEM_HERTZ)};
    uint32_t most = 0;
    for (int k = 0; k < 400; ++k)
        for (int m = 0; m < 3; ++m) {
            assert_int_equal(cr_world_step(w[m]), CR_OK);
            if (m == 0 && cr_world_stats(w[0])->contacts > most) most = cr_world_stats(w[0])->contacts;
        }
    assert_true(most > 2000);
    assert_same_states(w, 3);
    for (int m = 0; m < 3; ++m) cr_world_destroy(w[m]);
}

/* 8,400 bodies: pairs' items of 1,024 bodies, body items of 512; on 1 and
 * 2 threads and on a task system that runs the items backwards; and on 1
 * and 2 threads as a large world (large_from, src/dem.c DEM_LARGE: the
 * pairs' items in parts of 512 first bodies; on one thread the items in
 * order and each body item finished right after its part, on two the
 * finish a pass of its own): the same bits, through list builds that carry
 * the history. */
static void test_dem_items_bitwise(void **state)
{
    (void)state;
    int enqueued = 0;
    cr_world *w[5] = {sheared_bed_of(28, 11, 1, NULL, false), sheared_bed_of(28, 11, 2, NULL, false),
                      sheared_bed_of(28, 11, 1, &enqueued, false), sheared_bed_of(28, 11, 1, NULL, false),
                      sheared_bed_of(28, 11, 2, NULL, false)};
    w[3]->dem->large_from = w[4]->dem->large_from = 0;
    for (int k = 0; k < 80; ++k)
        for (int m = 0; m < 5; ++m) assert_int_equal(cr_world_step(w[m]), CR_OK);
    assert_true(enqueued > 0);
    assert_int_equal(w[0]->dem->chunk, 2 * DEM_CHUNK);
    assert_true(cr_dem_build_count(w[0]) > 2);
    assert_true(cr_world_stats(w[0])->contacts > 5000);
    assert_same_states(w, 5);
    for (int m = 0; m < 5; ++m) cr_world_destroy(w[m]);
}

/* A velocity that overflows in the step's second half kick while the
 * positions stay finite: the finish's test (exponent bits on AVX2, a sum on
 * the plain path) must stop the world at that step, naming the velocity.
 * Two light spheres (m = 1e-10) close in at 60 and overlap by 0.01 after
 * the drift; with kn = 1e308 the force is 1e306 and h F / m overflows. */
static void test_dem_velocity_overflow(void **state)
{
    (void)state;
    for (int portable = 0; portable < 2; ++portable) {
        cr_world_def d = test_dem_def(1e-3, cr_v3_zero(), 1e308, 0.0);
        cr_world *w = make_world_def(&d);
        cr_body_id id;
        for (int k = 0; k < 2; ++k) {
            cr_body_def b = cr_default_body_def();
            b.radius = 0.5, b.mass = 1e-10, b.inertia_kind = CR_INERTIA_SOLID;
            b.position = cr_v3(0, 0, 1.05 * k);
            b.velocity = cr_v3(0, 0, k ? -30.0 : 30.0);
            assert_int_equal(cr_world_add_body(w, &b, &id), CR_OK);
        }
        assert_int_equal(cr_world_prepare(w), CR_OK);
        w->dem->portable = portable;
        assert_int_equal(cr_world_step(w), CR_ERR_NON_FINITE);
        assert_non_null(strstr(cr_world_last_error(w), "body 0: non-finite velocity at step 1"));
        cr_world_destroy(w);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dem_law_paths_bitwise),
        cmocka_unit_test(test_dem_law_paths_bitwise_hertz),
        cmocka_unit_test(test_dem_items_bitwise),
        cmocka_unit_test(test_dem_velocity_overflow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
