/* Shared set-up for the rigid-body tests (issue 5): boxes and joints. */
#ifndef CAROM_RIGID_HELPERS_H
#define CAROM_RIGID_HELPERS_H

#include <stdio.h>

#include "test_helpers.h"

#define PI 3.14159265358979323846

static inline cr_body_id add_box(cr_world *w, cr_vec3 half, cr_vec3 x, cr_quat q, double mass, double e, double mu)
{
    cr_shape *s = NULL;
    char msg[256];
    assert_int_equal(cr_shape_create_box(half, &s, msg, sizeof msg), CR_OK);
    cr_body_def d = cr_default_body_def();
    d.shape = CR_SHAPE_BOX;
    d.shape_ref = s;
    d.mass = mass;
    d.position = x;
    d.orientation = q;
    d.restitution = e;
    d.friction = mu;
    cr_body_id id;
    assert_int_equal(cr_world_add_body(w, &d, &id), CR_OK);
    cr_shape_release(s);
    return id;
}

static inline cr_quat axis_angle(cr_vec3 axis, double angle)
{
    cr_vec3 a = cr_v3_normalize(axis);
    cr_quat q = {cos(0.5 * angle), a.x * sin(0.5 * angle), a.y * sin(0.5 * angle), a.z * sin(0.5 * angle)};
    return q;
}

/* Sum of the normal impulses of the last step's contacts. */
/* A world of the sub-stepped soft solver (docs/physics/substep.md):
 * gravity -9.81 z, dt 1/240, rigid_substeps and contact_hertz given. */
static inline cr_world_def substep_world_def(int substeps, double hertz)
{
    cr_world_def def = cr_default_world_def();
    def.gravity = cr_v3(0, 0, -9.81);
    def.dt = 1.0 / 240.0;
    def.rigid_substeps = substeps;
    def.contact_hertz = hertz;
    return def;
}

/* A soft contact's omega^2 = (2 pi hertz)^2: its static overlap is g / omega^2. */
static inline double soft_omega2(double hertz) { return pow(2.0 * PI * hertz, 2.0); }

static inline double normal_impulse_sum(const cr_world *w)
{
    double sum = 0.0;
    for (uint32_t k = 0; k < cr_world_contact_count(w); ++k) {
        cr_contact_report c;
        assert_int_equal(cr_world_get_contact(w, k, &c), CR_OK);
        sum += c.normal_impulse;
    }
    return sum;
}

/* A heap of 30 cubes (edge 0.1 m, 0.5 kg, plastic, mu 0.5) dropped turned at
 * random, in layers of 2 x 2 on a 0.18 m grid, into an open box 0.36 m
 * square: the largest rise of the total energy over its start, in J, over
 * the steps (a resting heap with static planes and plastic contacts must
 * never gain energy). label names the setting in the printed line. */
static inline double heap_energy_rise(const cr_world_def *def, uint64_t seed, int steps, const char *label)
{
    cr_world *w = make_world_def(def);
    const double half = 0.18;
    add_plane(w, cr_v3_zero(), cr_v3(0, 0, 1));
    add_side_walls(w, half);
    uint64_t s = seed;
    for (int k = 0; k < 30; ++k) {
        int layer = k / 4, i = (k % 4) / 2, j = k % 2;
        cr_vec3 x = cr_v3(-half + 0.09 + 0.18 * i + test_rand(&s, -0.01, 0.01),
                          -half + 0.09 + 0.18 * j + test_rand(&s, -0.01, 0.01), 0.1 + 0.18 * layer);
        cr_vec3 axis = test_rand_vec(&s, -1, 1);
        double angle = test_rand(&s, 0, 2 * PI);
        add_box(w, cr_v3(0.05, 0.05, 0.05), x, axis_angle(axis, angle), 0.5, 0.0, 0.5);
    }
    double e0 = cr_world_energy(w).total, rise = -INFINITY;
    for (int n = 0; n < steps; ++n) {
        assert_int_equal(cr_world_step(w), CR_OK);
        rise = fmax(rise, cr_world_energy(w).total - e0);
    }
    cr_world_destroy(w);
    printf("heap of 30 cubes, %s, seed %llu: energy rose by at most %.3g J over %d steps (start %.6g J)\n", label,
           (unsigned long long)seed, rise, steps, e0);
    if (!(rise <= 1e-9 * fabs(e0)))
        fail_msg("%s, seed %llu: energy rose by %.3g J", label, (unsigned long long)seed, rise);
    return rise;
}

#endif
