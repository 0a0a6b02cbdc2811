/* A small granular chute for the tests (the bench's LAMMPS chute,
 * bench/peers/scene.h, in little): spheres of diameter 1 on a frozen base
 * (kinematic, at rest), periodic in x and y, gravity 1 tilted 26 degrees
 * down the chute, Hooke with shear history (kn 2e5, kt 2/7 kn, gamma_n 50,
 * mu 0.5), dt 1e-4. 144 base spheres under 8 layers of 144 packed 3%
 * into each other and thrown downhill at about 5 with random sideways
 * parts: at once hundreds of contacts with sliding and sticking shear
 * history, list rebuilds every hundred steps or so, and 1,296 bodies in
 * three work items, so that threads split the work. Orientations turn. */
#ifndef CAROM_TEST_DEM_CHUTE_H
#define CAROM_TEST_DEM_CHUTE_H

#include <math.h>

#include "test_helpers.h"

/* model: CR_DEM_HERTZ runs LAMMPS's gran/hertz/history with the same
 * numbers (kn then in force/distance^2: the contacts are about 10 times
 * softer at these overlaps) */
static inline cr_world *test_chute_rolling(uint32_t workers, int *enqueued, cr_dem_model model, double k_roll,
                                           double mu_roll);

static inline cr_world *test_chute_model(uint32_t workers, int *enqueued, cr_dem_model model)
{
    return test_chute_rolling(workers, enqueued, model, 0.0, 0.0);
}

/* k_roll, mu_roll: rolling resistance (cr_hooke; 0, 0: off), gamma_roll 1 with it */
static inline cr_world *test_chute_rolling(uint32_t workers, int *enqueued, cr_dem_model model, double k_roll,
                                           double mu_roll)
{
    cr_world_def d = cr_default_world_def();
    d.method = CR_METHOD_DEM;
    d.dt = 1e-4;
    const double a = 26.0 * 3.14159265358979323846 / 180.0;
    d.gravity = cr_v3(sin(a), 0.0, -cos(a));
    d.hooke.kn = 2e5;
    d.hooke.kt = 2e5 * 2.0 / 7.0;
    d.hooke.gamma_n = 50.0;
    d.hooke.gamma_t = 0.0;
    d.hooke.mu = 0.5;
    d.hooke.model = model;
    d.hooke.k_roll = k_roll;
    d.hooke.gamma_roll = k_roll > 0.0 ? 1.0 : 0.0;
    d.hooke.mu_roll = mu_roll;
    d.periodic.x = d.periodic.y = true;
    d.periodic.lo = cr_v3(0, 0, -1);
    d.periodic.hi = cr_v3(12, 12, 20);
    test_use_tasks(&d, workers, enqueued);
    cr_world *w = make_world_def(&d);
    uint64_t seed = 2026;
    cr_body_def b = cr_default_body_def();
    b.radius = 0.5;
    b.mass = 1.0;
    b.inertia_kind = CR_INERTIA_SOLID;
    for (int ix = 0; ix < 12; ++ix)
        for (int iy = 0; iy < 12; ++iy)
            for (int iz = 0; iz < 9; ++iz) {
                b.type = iz == 0 ? CR_BODY_KINEMATIC : CR_BODY_DYNAMIC;
                cr_vec3 j = test_rand_vec(&seed, -0.02, 0.02);
                b.position = cr_v3(ix + 0.5 + j.x, iy + 0.5 + j.y, 0.97 * iz);
                b.velocity = iz == 0 ? cr_v3_zero() : cr_v3_add(cr_v3(5.0, 0, -0.5), test_rand_vec(&seed, -1, 1));
                b.angular_velocity = iz == 0 ? cr_v3_zero() : test_rand_vec(&seed, -2, 2);
                assert_int_equal(cr_world_add_body(w, &b, NULL), CR_OK);
            }
    return w;
}

static inline cr_world *test_chute(uint32_t workers, int *enqueued)
{
    return test_chute_model(workers, enqueued, CR_DEM_HOOKE);
}

#endif
