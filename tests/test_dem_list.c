/* CR_METHOD_DEM's Verlet list and when it is rebuilt (docs/physics.md
 * "DEM"): the list must hold every touching pair at every step, and it is
 * rebuilt only when the bodies' displacements since the build could have
 * brought an unlisted pair into touch: when no body moved past half the
 * skin (LAMMPS's check), or when the box holding every displacement has a
 * diagonal of at most the skin (|u_i - u_j| is at most that diagonal), the
 * list is kept. */
#include <math.h>

#include "test_helpers.h"
#include "world_internal.h"

/* Hooke with history (kn 2e5, kt 2/7 kn, gamma_n 50, mu 0.5), periodic in
 * x and y over [lo, hi]. */
static cr_world_def hooke_def(double dt, cr_vec3 gravity, double gamma_t, cr_vec3 lo, cr_vec3 hi)
{
    cr_world_def d = test_dem_def(dt, gravity, 2e5, 50.0);
    d.hooke.gamma_t = gamma_t;
    d.periodic.x = d.periodic.y = true;
    d.periodic.lo = lo;
    d.periodic.hi = hi;
    return d;
}

static cr_world *dem_world(double dt, bool periodic_z, double L)
{
    cr_world_def d = hooke_def(dt, cr_v3_zero(), 0.0, cr_v3(0, 0, 0), cr_v3(L, L, L));
    d.periodic.z = periodic_z;
    return make_world_def(&d);
}

static cr_body_id ball(cr_world *w, cr_body_type type, cr_vec3 x, cr_vec3 v)
{
    cr_body_def b = cr_default_body_def();
    b.type = type;
    b.position = x;
    b.velocity = v;
    b.radius = 0.5; /* skin 0.1: 10% of the diameter */
    b.mass = 1.0;
    b.inertia_kind = CR_INERTIA_SOLID;
    cr_body_id id;
    assert_int_equal(cr_world_add_body(w, &b, &id), CR_OK);
    return id;
}

/* Spheres 1.5 apart (never touching) all moving with v, and when `base` a
 * kinematic one at rest below them. Every displacement is the same when no
 * body stays behind: the list is never rebuilt, however far they go (LAMMPS's
 * check rebuilds each time the bodies move half the skin, 0.05). With the
 * resting body, the box of displacements is |v| t long: a rebuild each
 * time the others move a skin, 0.1, i.e. after floor(0.1 / (|v| dt)) + 1 =
 * 49 steps (LAMMPS's: 25). */
static void test_dem_list_translation(void **state)
{
    (void)state;
    const double dt = 1e-3;
    const cr_vec3 v = cr_v3(2.0, 0.5, -0.3); /* |v| = 2.0803: 0.1 / (|v| dt) = 48.07 steps */
    for (int base = 0; base < 2; ++base) {
        cr_world *w = dem_world(dt, false, 9.0);
        for (int ix = 0; ix < 6; ++ix)
            for (int iy = 0; iy < 6; ++iy)
                for (int iz = 0; iz < 3; ++iz) ball(w, CR_BODY_DYNAMIC, cr_v3(1.5 * ix, 1.5 * iy, 1.5 * iz), v);
        if (base) ball(w, CR_BODY_KINEMATIC, cr_v3(0.0, 0.0, -4.0), cr_v3_zero()); /* out of the others' way */
        for (int k = 0; k < 300; ++k) {
            assert_int_equal(cr_world_step(w), CR_OK);
            assert_int_equal(cr_world_stats(w)->contacts, 0);
        }
        /* the set-up's build, then the rebuilds at steps 49, 98, ..., 294 */
        print_message("translation, base %d: %llu builds in 300 steps\n", base,
                      (unsigned long long)cr_dem_build_count(w));
        assert_int_equal(cr_dem_build_count(w), base ? 1 + 300 / 49 : 1);
        cr_world_destroy(w);
    }
}

static double rnd(uint32_t *seed)
{
    *seed = *seed * 1664525u + 1013904223u;
    return (double)(*seed >> 8) / 16777216.0;
}

static double image(double d, double L) { return d > 0.5 * L ? d - L : d < -0.5 * L ? d + L : d; }

/* Spheres placed at random (no two closer than 1, the diameter: a loose
 * packing where many pairs lie just beyond the list's reach) with random
 * velocities of up to 2 each way, riding on a common drift (the bodies
 * move together, so the lazy check keeps the list much longer than
 * LAMMPS's), or sheared over resting kinematic bodies at the bottom (speeds
 * growing with height, as in the chute). At every step the contacts the
 * DEM found equal the touching pairs counted over all pairs (minimum image,
 * kinematic pairs left out): a list missing one would count fewer. */
static void test_dem_list_complete(void **state)
{
    (void)state;
    const double L = 8.0;
    enum { N = 300 };
    uint32_t seed = 2024u;
    for (int round = 0; round < 4; ++round) {
        const bool floor = round >= 2;
        cr_world *w = dem_world(1e-4, false, L);
        cr_vec3 p[N];
        for (int i = 0; i < N; ++i) {
            bool clear;
            do {
                p[i] = cr_v3(L * rnd(&seed), L * rnd(&seed), 7.0 * rnd(&seed));
                clear = true;
                for (int j = 0; j < i && clear; ++j) {
                    const cr_vec3 dl = cr_v3(image(p[i].x - p[j].x, L), image(p[i].y - p[j].y, L), p[i].z - p[j].z);
                    clear = cr_v3_len2(dl) >= 1.0;
                }
            } while (!clear);
            const cr_vec3 u = cr_v3(4.0 * rnd(&seed) - 2.0, 4.0 * rnd(&seed) - 2.0, 4.0 * rnd(&seed) - 2.0);
            if (floor && p[i].z < 1.0)
                ball(w, CR_BODY_KINEMATIC, p[i], cr_v3_zero());
            else if (floor)
                ball(w, CR_BODY_DYNAMIC, p[i], cr_v3_add(u, cr_v3((round - 1) * 1.5 * p[i].z, 0.0, 0.0)));
            else
                ball(w, CR_BODY_DYNAMIC, p[i], cr_v3_add(u, round ? cr_v3(8.0, 0.0, 0.0) : cr_v3(6.0, 5.0, 0.0)));
        }
        const uint32_t n = cr_world_body_capacity(w);
        cr_vec3 x[N];
        bool dyn[N];
        for (uint32_t i = 0; i < n; ++i) {
            cr_body_def bd;
            assert_int_equal(cr_body_get_def(w, cr_world_body_at(w, i), &bd), CR_OK);
            dyn[i] = bd.type == CR_BODY_DYNAMIC;
        }
        uint64_t touching = 0;
        for (int k = 0; k < 1000; ++k) {
            assert_int_equal(cr_world_step(w), CR_OK);
            for (uint32_t i = 0; i < n; ++i) {
                cr_body_state s;
                assert_int_equal(cr_body_get_state(w, cr_world_body_at(w, i), &s), CR_OK);
                x[i] = s.position;
            }
            uint32_t brute = 0;
            for (uint32_t i = 0; i < n; ++i)
                for (uint32_t j = i + 1; j < n; ++j) {
                    if (!dyn[i] && !dyn[j]) continue;
                    const cr_vec3 dl = cr_v3(image(x[i].x - x[j].x, L), image(x[i].y - x[j].y, L), x[i].z - x[j].z);
                    brute += cr_v3_len2(dl) < 1.0;
                }
            assert_int_equal(cr_world_stats(w)->contacts, brute);
            touching += brute;
        }
        print_message("round %d: %llu builds in 1000 steps, %.1f contacts a step\n", round,
                      (unsigned long long)cr_dem_build_count(w), (double)touching / 1000.0);
        assert_true(cr_dem_build_count(w) > 3); /* the bodies outrun the skin */
        assert_true(touching > 1000u * 4u);
        cr_world_destroy(w);
    }
}

/* A sheared bed of 3,150 spheres (several work items) over a kinematic
 * floor, rebuilt many times while in contact, stepped on 1 and 2 worker
 * threads and through an application task system that runs the items in
 * reverse: the builds' work items (the history saved and carried, the
 * gather, the join) give the same bits whichever thread ran which. */
static cr_world *sheared(uint32_t workers, int *enqueued)
{
    cr_world_def d = hooke_def(1e-4, cr_v3(0.5, 0.0, -1.0), 25.0, cr_v3(0, 0, -1), cr_v3(15, 15, 20));
    test_use_tasks(&d, workers, enqueued);
    cr_world *w = make_world_def(&d);
    uint32_t seed = 77u;
    for (int ix = 0; ix < 15; ++ix)
        for (int iy = 0; iy < 15; ++iy)
            for (int iz = 0; iz < 14; ++iz) {
                const double jx = rnd(&seed) - 0.5, jy = rnd(&seed) - 0.5, jz = rnd(&seed) - 0.5;
                const cr_vec3 x = cr_v3(ix + 0.5 + 0.04 * jx, iy + 0.5 + 0.04 * jy, 0.99 * iz);
                if (iz == 0)
                    ball(w, CR_BODY_KINEMATIC, x, cr_v3_zero());
                else
                    ball(w, CR_BODY_DYNAMIC, x, cr_v3(1.0 * iz + jx, jy, jz));
            }
    return w;
}

static void test_dem_list_threads_bitwise(void **state)
{
    (void)state;
    int enqueued = 0;
    cr_world *w[3] = {sheared(1, NULL), sheared(2, NULL), sheared(1, &enqueued)};
    for (int k = 0; k < 500; ++k)
        for (int m = 0; m < 3; ++m) assert_int_equal(cr_world_step(w[m]), CR_OK);
    assert_true(enqueued > 0);
    print_message("sheared bed: %llu builds in 500 steps, %u contacts at the end\n",
                  (unsigned long long)cr_dem_build_count(w[0]), cr_world_stats(w[0])->contacts);
    assert_true(cr_dem_build_count(w[0]) > 3);
    assert_true(cr_world_stats(w[0])->contacts > 1000);
    const uint32_t n = cr_world_body_capacity(w[0]);
    for (uint32_t i = 0; i < n; ++i) {
        cr_body_state s[3];
        for (int m = 0; m < 3; ++m) assert_int_equal(cr_body_get_state(w[m], cr_world_body_at(w[m], i), &s[m]), CR_OK);
        for (int m = 1; m < 3; ++m) {
            assert_memory_equal(&s[m].position, &s[0].position, sizeof s[0].position);
            assert_memory_equal(&s[m].velocity, &s[0].velocity, sizeof s[0].velocity);
            assert_memory_equal(&s[m].angular_velocity, &s[0].angular_velocity, sizeof s[0].angular_velocity);
        }
    }
    for (int m = 0; m < 3; ++m) cr_world_destroy(w[m]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dem_list_translation),
        cmocka_unit_test(test_dem_list_complete),
        cmocka_unit_test(test_dem_list_threads_bitwise),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
