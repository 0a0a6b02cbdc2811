/* Few Gauss-Seidel passes degrade gracefully: a heap of cubes never gains
 * energy (branch pyr8).
 *
 * 30 cubes (0.1 m, 0.5 kg, e = 0, mu = 0.5) dropped turned at random into a
 * box of four walls and a floor, dt = 1/240, at pgs_iterations 2 and 5.
 * Nothing in the world can supply energy: the planes are static, gravity is
 * conservative, contacts are plastic (e = 0) and frictional, the drift
 * correction and the free turn are capped in energy
 * (docs/physics/rigid.md). So the total energy, kinetic + potential, must
 * never rise above its value at the start, however few passes the solver
 * takes: too few passes may leave contacts under-resolved (deeper overlaps,
 * sagging), never create energy. The heap's islands are small enough for
 * the direct method, whose active set cycles with friction and hands over to
 * PGS; before the fix that PGS started from the active set's last iterate,
 * which could be far from any solution, and a few passes pumped 42 J to
 * 1.4e7 J into these heaps of 101 J. The check: the total energy at every
 * step at most its start, to a relative 1e-9 (it falls by 0.0125 J in the
 * first step and never comes back up). */
#include <math.h>
#include <stdio.h>

#include "rigid_helpers.h"

#define G 9.81

static void test_heap_never_gains_energy(void **state)
{
    (void)state;
    const int passes[] = {2, 5};
    for (int p = 0; p < 2; ++p)
        for (uint64_t seed = 1; seed <= 2; ++seed) {
            cr_world_def def = cr_default_world_def();
            def.gravity = cr_v3(0, 0, -G);
            def.dt = 1.0 / 240.0;
            def.pgs_iterations = passes[p];
            char label[32];
            snprintf(label, sizeof label, "%d passes", passes[p]);
            heap_energy_rise(&def, seed, 240, label);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_heap_never_gains_energy)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
