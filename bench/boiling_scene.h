/* The boiling scene (seed 004's Figure 1): balls of mixed sizes, solid and
 * hollow, on a hilly surface within four walls, low friction. Built by
 * bench/boiling.c at 1,000 / 10,000 / 100,000 balls and, smaller, by
 * tests/test_event_groups.c: one builder so the test checks the scene the
 * benchmark times. Header-only, public API only. */
#ifndef CAROM_BOILING_SCENE_H
#define CAROM_BOILING_SCENE_H

#include <math.h>
#include <stdlib.h>

#include "carom/carom.h"

/* The world the scene is made for: seed 004's event method with the
 * rolling law, hz steps a second; the caller sets the rest. */
static inline cr_world_def boiling_world_def(double hz)
{
    cr_world_def d = cr_default_world_def();
    d.dt = 1.0 / hz;
    d.method = CR_METHOD_EVENT;
    d.law = CR_LAW_ROLLING;
    return d;
}

/* A uniform number in [lo, hi) from the caller's generator. */
typedef double boiling_uniform_fn(void *state, double lo, double hi);

/* Half the side of the square the scene covers: 1,000 balls on 3 m x 3 m,
 * the side growing as sqrt(n). */
static inline double boiling_half(int n) { return 1.5 * sqrt(n / 1000.0); }

/* Adds the scene's surface, walls and n balls to w (an event-method world
 * with the rolling law): bumps on a 1 m lattice, alternately hills and
 * hollows, plus waves; the balls on a grid over the surface at up to 1 m/s
 * along it. CR_OK, or the first failing call's status (the world's last
 * error says why). */
static inline cr_status boiling_scene_add(cr_world *w, int n, boiling_uniform_fn *uniform, void *rng)
{
    double half = boiling_half(n);
    int side = (int)ceil(2.0 * half);
    cr_hill *hills = malloc(sizeof *hills * (size_t)side * (size_t)side);
    if (!hills) return CR_ERR_OUT_OF_MEMORY;
    int nh = 0;
    for (int i = 0; i < side; ++i)
        for (int j = 0; j < side; ++j)
            hills[nh++] = (cr_hill){((i + j) % 2 ? 0.2 : -0.12), -half + 0.5 + i, -half + 0.5 + j, 0.3};
    cr_surface_def s = cr_default_surface_def();
    s.type = CR_SURFACE_HILLS;
    s.u_min = s.v_min = -half;
    s.u_max = s.v_max = half;
    s.hills = hills;
    s.hill_count = (uint32_t)nh;
    s.wave_amplitude = 0.03;
    s.wave_length_x = 0.9;
    s.wave_length_y = 1.1;
    s.friction = 1.0;
    s.rolling_friction = 0.001;
    cr_status st = cr_world_add_surface(w, &s, NULL);
    free(hills); /* the world keeps its own copy */
    if (st != CR_OK) return st;
    const cr_surface *surface = cr_world_surface(w, 0);
    cr_plane_def p = cr_default_plane_def();
    const cr_vec3 pts[4] = {{-half, 0, 0}, {half, 0, 0}, {0, -half, 0}, {0, half, 0}};
    const cr_vec3 nrm[4] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}};
    for (int k = 0; k < 4; ++k) {
        p.point = pts[k];
        p.normal = nrm[k];
        if ((st = cr_world_add_plane(w, &p, NULL)) != CR_OK) return st;
    }
    int grid = (int)ceil(sqrt((double)n));
    double spacing = 2.0 * half / grid;
    for (int i = 0; i < n; ++i) {
        cr_body_def d = cr_default_body_def();
        d.radius = uniform(rng, 0.025, 0.04);
        d.mass = 1000.0 * 4.18879 * d.radius * d.radius * d.radius;
        d.inertia_kind = i % 3 == 0 ? CR_INERTIA_HOLLOW : CR_INERTIA_SOLID;
        d.inner_radius = i % 3 == 0 ? 0.7 * d.radius : 0.0;
        cr_surface_eval e;
        cr_vec3 nn;
        cr_surface_evaluate(surface, -half + spacing * (i % grid + 0.5), -half + spacing * (i / grid + 0.5), &e, &nn);
        d.position = cr_v3_madd(e.s, nn, d.radius);
        /* sequenced (argument order is unspecified): y first, the order
         * GCC on x86-64 gave bench_boiling's scene before this builder */
        double vy = uniform(rng, -1.0, 1.0), vx = uniform(rng, -1.0, 1.0);
        d.velocity = cr_v3_reject(cr_v3(vx, vy, 0.0), nn);
        d.restitution = 0.9;
        d.friction = 0.05;
        d.rolling_friction = 0.001;
        if ((st = cr_world_add_body(w, &d, NULL)) != CR_OK) return st;
    }
    return CR_OK;
}

#endif
