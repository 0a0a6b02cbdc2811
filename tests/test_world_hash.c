/* cr_world_state_hash: the documented definition (a world whose hash is
 * worked out by hand), one ulp of any field of any body changes it, equal
 * worlds built twice hash the same, and a threaded DEM run hashes the same
 * on 1, 2 and 3 workers and on a task system that runs its items
 * backwards. */
#include <math.h>
#include <string.h>

#include "test_helpers.h"
#include "world_internal.h"

/* The world of the definition: bodies in slots 0, 1, 2 with slot 1
 * removed. Its hash, 8bac8c60d34ae576, was worked out apart from carom
 * (Python: FNV-1a 64 of each body's 13 doubles packed '<13d', folded as
 * h = (h ^ body) * 1099511628211 from h = 1469598103934665603). */
static void test_definition(void **state)
{
    (void)state;
    cr_world *w = make_world(cr_v3(0, 0, -9.81), 1e-3, CR_METHOD_IMPULSE);
    cr_body_id a = add_sphere(w, cr_v3(1, 2, 3), cr_v3(0.5, 0, -1), 0.1, 1.0, CR_INERTIA_SOLID, 0.5, 0.3);
    cr_body_id gone = add_sphere(w, cr_v3(5, 5, 5), cr_v3_zero(), 0.1, 1.0, CR_INERTIA_SOLID, 0.5, 0.3);
    add_sphere(w, cr_v3_zero(), cr_v3_zero(), 0.1, 1.0, CR_INERTIA_SOLID, 0.5, 0.3);
    cr_body_state s = state_of(w, a);
    s.angular_velocity = cr_v3(0, 0, 2);
    assert_int_equal(cr_body_set_state(w, a, &s), CR_OK);
    uint64_t with_three = cr_world_state_hash(w);
    assert_int_equal(cr_world_remove_body(w, gone), CR_OK);
    assert_true(cr_world_state_hash(w) == 0x8bac8c60d34ae576ull);
    assert_true(with_three != 0x8bac8c60d34ae576ull); /* a body less changes it */
    cr_world_destroy(w);
    /* no bodies: the FNV-1a offset */
    w = make_world(cr_v3(0, 0, -9.81), 1e-3, CR_METHOD_IMPULSE);
    assert_true(cr_world_state_hash(w) == 1469598103934665603ull);
    cr_world_destroy(w);
}

/* Field f (0 .. 12: position, velocity, angular velocity, orientation w x y
 * z) of slot i, in the world's own arrays (cr_body_set_state would
 * renormalise the orientation and zero a particle's spin). */
static double *field(cr_world *w, uint32_t i, int f)
{
    cr_bodies *b = &w->bodies;
    cr_vec3 *v = f < 3 ? &b->x[i] : f < 6 ? &b->v[i] : &b->w[i];
    if (f < 9) return f % 3 == 0 ? &v->x : f % 3 == 1 ? &v->y : &v->z;
    cr_quat *q = &b->q[i];
    return f == 9 ? &q->w : f == 10 ? &q->x : f == 11 ? &q->y : &q->z;
}

/* Random worlds of 1 to 24 spheres (some removed), stepped a little: one
 * ulp up or down of one field of one body changes the hash, and putting
 * it back restores it. */
static void test_one_ulp(void **state)
{
    (void)state;
    uint64_t seed = 7;
    int changed = 0;
    for (int c = 0; c < 60; ++c) {
        cr_world *w = make_world(cr_v3(0, 0, -9.81), 1e-3, CR_METHOD_IMPULSE);
        add_plane(w, cr_v3_zero(), cr_v3(0, 0, 1));
        int n = 1 + (int)(test_rand_u64(&seed) % 24);
        cr_body_id ids[24];
        for (int k = 0; k < n; ++k) {
            cr_vec3 x = test_rand_vec(&seed, -2, 2), v = test_rand_vec(&seed, -1, 1);
            x.z = 0.2 + fabs(x.z) + 0.5 * k;
            ids[k] = add_sphere(w, x, v, 0.1, 1.0, CR_INERTIA_SOLID, 0.5, 0.3);
        }
        for (int k = 0; k < n; ++k)
            if (n > 1 && test_rand_u64(&seed) % 4 == 0) {
                assert_int_equal(cr_world_remove_body(w, ids[k]), CR_OK);
                ids[k].generation = 0;
            }
        step_n(w, 1 + (int)(test_rand_u64(&seed) % 20));
        const uint64_t h0 = cr_world_state_hash(w);
        for (int t = 0; t < 40; ++t) {
            uint32_t i = (uint32_t)(test_rand_u64(&seed) % cr_world_body_capacity(w));
            if (!cr_body_is_valid(w, cr_world_body_at(w, i))) continue;
            double *p = field(w, i, (int)(test_rand_u64(&seed) % 13)), old = *p;
            *p = nextafter(old, test_rand_u64(&seed) % 2 ? INFINITY : -INFINITY);
            if (cr_world_state_hash(w) == h0)
                fail_msg("case %d: slot %u, a field %.17g -> %.17g, same hash", c, i, old, *p);
            *p = old;
            assert_true(cr_world_state_hash(w) == h0);
            ++changed;
        }
        cr_world_destroy(w);
    }
    assert_true(changed > 1000);
}

/* A small chute (the bench's scene in little, tests/dem_chute.h): built
 * twice and stepped, the same hash; on 2 and 3 workers and on the
 * backwards task system, the same hash as on 1; another run (one step
 * more) another hash. */
#include "dem_chute.h"

static void test_twice_and_workers(void **state)
{
    (void)state;
    int enqueued = 0;
    cr_world *w[5] = {test_chute(1, NULL), test_chute(1, NULL), test_chute(2, NULL), test_chute(3, NULL),
                      test_chute(1, &enqueued)};
    for (int m = 0; m < 5; ++m) step_n(w[m], 300);
    assert_true(enqueued > 0);
    /* the chute as meant: many contacts, several list builds */
    if (!(cr_world_stats(w[0])->contacts > 1000 && cr_dem_build_count(w[0]) >= 3))
        fail_msg("chute: %u contacts, %llu builds", cr_world_stats(w[0])->contacts,
                 (unsigned long long)cr_dem_build_count(w[0]));
    const uint64_t h = cr_world_state_hash(w[0]);
    for (int m = 1; m < 5; ++m)
        if (cr_world_state_hash(w[m]) != h) fail_msg("chute %d: %016llx, on one worker %016llx", m,
                                                     (unsigned long long)cr_world_state_hash(w[m]),
                                                     (unsigned long long)h);
    step_n(w[1], 1);
    assert_true(cr_world_state_hash(w[1]) != h);
    for (int m = 0; m < 5; ++m) cr_world_destroy(w[m]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_definition),
        cmocka_unit_test(test_one_ulp),
        cmocka_unit_test(test_twice_and_workers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
