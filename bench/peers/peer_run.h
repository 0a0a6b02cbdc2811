/* A pit or pyramid run of an engine program (peer_ode.c, peer_mujoco.c,
 * peer_bullet.cpp): the scene built, the bodies' starting centres with the
 * contact's e and mu, the quality measured after every step, and the
 * result line at the end, the same for every engine. Plain C, usable from
 * C++ (the Bullet program). */
#ifndef CAROM_PEERS_PEER_RUN_H
#define CAROM_PEERS_PEER_RUN_H

#include "scene.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct peer_run {
    int scene;            /* 0 the pit, 1 the pyramid (peer_args) */
    const char *name;     /* "pit" or "pyramid" */
    int size, n;          /* N spheres or rows; bodies */
    const double *start;  /* 3n initial centres */
    double e, mu;         /* restitution and friction at every contact */
    pit_scene pit;
    pyr_scene pyr;
    overlap_grid g;
    double max_pen;       /* over the steps: the pit's deepest overlap, the pyramid's deepest contact */
    double overlap;       /* the pyramid: pyr_max_overlap's deepest over the steps */
    int lost;             /* the pit: spheres out of the box */
} peer_run;

/* Builds scene (0 pit, 1 pyramid) at size; 0 on success. */
int peer_run_build(peer_run *r, int scene, int size);
/* After a step: pos the 3n centres, quat the 4n orientations (w, x, y, z;
 * read for the pyramid only), deepest the engine's deepest contact (the
 * pyramid only). */
void peer_run_measure(peer_run *r, const double *pos, const double *quat, double deepest);
/* The result line after steps steps: the timings, contacts summed over the
 * steps, the engine's warnings (< 0 when none counted), and the final
 * centres and velocities for the kinetic energy (and the pyramid's drift). */
peer_result peer_run_result(const peer_run *r, const char *engine, int steps, double stepping, double cpu,
                            double t_setup, double contacts, long warnings, const double *pos, const double *vel,
                            const double *ang);
void peer_run_free(peer_run *r);

#ifdef __cplusplus
}
#endif
#endif
