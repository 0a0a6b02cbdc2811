/* Seed 004 §4's energy control at the end of a step in a world with
 * surfaces (src/finish.c, settle_surface_balls): what a ball gains from the
 * corrections and cannot pay out of its own kinetic energy is taken from
 * the other balls' kinetic energy in proportion, so the step makes none.
 *
 * The case: a flat surface z = 0; S (radius 40 mm) at rest on it, and F
 * (30 mm), flying at rest, on top of S and into it by 10 times projection's
 * tolerance (CR_PROJECTION_TOLERANCE (R + r)). Projection counts S
 * immovable and lifts F out of it: F gains m g dz with no kinetic energy
 * to pay for it. C (40 mm), flying at 1 m/s far from both, is the only one
 * that can pay. 600 balls at rest on the surface in between put F and C in
 * different work items of the per-ball pass. After one step:
 *   - F rose by most of the overlap (its gain is the owed case),
 *   - C's energy fell by F's gain (1e-12 J; F's gain is about 4e-4 J,
 *     C's kinetic energy 0.13 J): the world's total energy unchanged,
 *   - the same state, to the bit, on 1, 2 and 3 workers. */
#include <math.h>

#include "test_helpers.h"
#include "world_internal.h" /* CR_PROJECTION_TOLERANCE, cr_body_energy */

#define FILLERS 600
#define R 0.04
#define RF 0.03

typedef struct scene {
    cr_world *w;
    cr_body_id s, f, c;
} scene;

static double mass_of(double r) { return 1000.0 * r * r * r * 4.19; }

static scene make_scene(uint32_t workers)
{
    cr_world_def wd = cr_default_world_def();
    wd.dt = 1.0 / 120.0;
    wd.method = CR_METHOD_EVENT;
    wd.law = CR_LAW_NEWTON;
    wd.k_p = 1.0;
    wd.worker_count = workers;
    scene sc;
    sc.w = make_world_def(&wd);
    add_flat_surface(sc.w);
    double overlap = 10.0 * CR_PROJECTION_TOLERANCE * (R + RF);
    sc.s = add_sphere(sc.w, cr_v3(0, 0, R), cr_v3_zero(), R, mass_of(R), CR_INERTIA_SOLID, 0.9, 0.1);
    sc.f = add_sphere(sc.w, cr_v3(0, 0, 2.0 * R + RF - overlap), cr_v3_zero(), RF, mass_of(RF), CR_INERTIA_SOLID, 0.9,
                      0.1);
    for (int k = 0; k < FILLERS; ++k)
        add_sphere(sc.w, cr_v3(1.0 + 0.1 * (k % 30), 0.1 * (k / 30), R), cr_v3_zero(), R, mass_of(R), CR_INERTIA_SOLID,
                   0.9, 0.1);
    sc.c = add_sphere(sc.w, cr_v3(-1.0, 0, 0.5), cr_v3(1, 0, 0), R, mass_of(R), CR_INERTIA_SOLID, 0.9, 0.1);
    return sc;
}

static void test_owed_energy_paid_by_the_others(void **state)
{
    (void)state;
    uint64_t hash[3];
    for (uint32_t workers = 1; workers <= 3; ++workers) {
        scene sc = make_scene(workers);
        double ef0 = cr_body_energy(sc.w, sc.f.index), ec0 = cr_body_energy(sc.w, sc.c.index);
        double e0 = cr_world_energy(sc.w).total, zf0 = state_of(sc.w, sc.f).position.z;
        assert_int_equal(cr_world_step(sc.w), CR_OK);
        double gain = cr_body_energy(sc.w, sc.f.index) - ef0, paid = ec0 - cr_body_energy(sc.w, sc.c.index);
        double rise = state_of(sc.w, sc.f).position.z - zf0, overlap = 10.0 * CR_PROJECTION_TOLERANCE * (R + RF);
        print_message("%u workers: F rose %.4g m (overlap %.4g m), gained %.6g J, C paid %.6g J, total %+.3g J\n",
                      workers, rise, overlap, gain, paid, cr_world_energy(sc.w).total - e0);
        assert_true(rise > 0.5 * overlap);
        assert_true(gain > 0.5 * mass_of(RF) * 9.81 * overlap);
        assert_true(fabs(paid - gain) <= 1e-12);
        assert_true(fabs(cr_world_energy(sc.w).total - e0) <= 1e-12);
        hash[workers - 1] = cr_world_state_hash(sc.w);
        cr_world_destroy(sc.w);
    }
    assert_true(hash[1] == hash[0]);
    assert_true(hash[2] == hash[0]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_owed_energy_paid_by_the_others)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
