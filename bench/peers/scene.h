/* The scenes of the side-by-side benchmark (issue 8), shared by every engine
 * program so that each engine starts from the same bodies and is judged by
 * the same measurements. Plain C, usable from C++ (the Bullet program).
 *
 * Ball pit: N spheres r = 0.05 m, m = 0.5 kg, e = 0.5, mu = 0.3 at every
 * contact, from a jittered lattice into a square box (floor and four walls,
 * open top) sized for about ten settled layers; dt = 1/240 s, 2 s. The same
 * lattice and jitter as bench/ball_pit.c.
 *
 * Box pyramid: ROWS rows of cubes (edge 0.1 m, m = 0.5 kg, e = 0, mu = 0.5)
 * on a floor, row k holding ROWS - k cubes, each row offset by half a cube,
 * cubes touching; dt = 1/240 s, 2 s. Stable means nothing moves.
 */
#ifndef CAROM_PEERS_SCENE_H
#define CAROM_PEERS_SCENE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PIT_RADIUS 0.05
#define PIT_MASS 0.5
#define PIT_RESTITUTION 0.5
#define PIT_FRICTION 0.3
#define PEER_GRAVITY 9.81
#define PEER_DT (1.0 / 240.0)
#define PEER_SECONDS 2.0
#define PEER_STEPS 480 /* PEER_SECONDS / PEER_DT */
/* Approach speed below which a contact counts as resting (no bounce):
 * carom's automatic resting_speed 2 |g| dt, given to the peers that have
 * such a threshold (ODE bounce_vel, Bullet m_restitutionVelocityThreshold). */
#define PEER_RESTING_SPEED (2.0 * PEER_GRAVITY * PEER_DT)

#define PYR_EDGE 0.1
#define PYR_MASS 0.5
#define PYR_RESTITUTION 0.0
#define PYR_FRICTION 0.5

typedef struct pit_scene {
    int n;
    double side;  /* the box is [0, side]^2, floor z = 0, open top */
    double *pos;  /* 3n initial centres */
} pit_scene;

/* Builds the lattice (deterministic: the same jitter everywhere). 0 on success. */
int pit_build(pit_scene *s, int n);
void pit_free(pit_scene *s);

/* The four walls and the floor as (point, inward normal) pairs. */
void pit_planes(const pit_scene *s, double point[5][3], double normal[5][3]);

typedef struct pyr_scene {
    int rows, n;
    double *pos;  /* 3n initial centres; cubes axis-aligned */
} pyr_scene;
int pyr_build(pyr_scene *s, int rows);
void pyr_free(pyr_scene *s);

/* Quality measured from the bodies' state (identical code for all engines). */
typedef struct pit_quality {
    double max_pen;  /* deepest sphere-sphere or sphere-wall overlap seen, m */
    int lost;        /* centres outside the box (past a wall or the floor) or non-finite */
    double ke;       /* translational + rotational kinetic energy, J */
} pit_quality;

/* Workspace for the O(n) overlap measurement (a hashed grid). */
typedef struct overlap_grid {
    int n, cap;
    uint32_t *head, *next;
} overlap_grid;
void overlap_grid_free(overlap_grid *g);

/* Deepest overlap of the spheres at pos (3n) with each other and with the
 * box's planes; *lost counts centres outside the box or non-finite. */
double pit_max_overlap(overlap_grid *g, const pit_scene *s, const double *pos, int *lost);

/* Kinetic energy of spheres of the pit (solid, I = 2/5 m r^2). vel, ang: 3n. */
double pit_kinetic(int n, const double *vel, const double *ang);

/* Box pyramid: kinetic energy of cubes (I = m a^2 / 6), the largest
 * displacement of a cube from its start, and cubes whose centre is below the
 * floor (lost). */
double pyr_kinetic(int n, const double *vel, const double *ang);
double pyr_max_drift(const pyr_scene *s, const double *pos, int *lost);

/* Box pyramid: the deepest overlap of the cubes at pos (3n centres) and quat
 * (4n unit quaternions w, x, y, z), with each other and with the floor z = 0,
 * measured from the bodies' state by the same code for every engine (the
 * engines' own contact depths come from four different collision
 * detections). Two cubes: the smallest overlap of their projections over
 * the 15 separating axes (3 + 3 face normals, 9 edge-edge cross products),
 * which for two boxes is their penetration depth; 0 when an axis separates
 * them. Cube and floor: how far its lowest corner is below z = 0. Pairs are
 * found through g (a hashed grid on the centres, cells of the cube's
 * diagonal), so cubes that left their neighbours are still measured. */
double pyr_max_overlap(overlap_grid *g, const pyr_scene *s, const double *pos, const double *quat);

/* LAMMPS's granular chute (bench/in.chute, data.chute; LJ units): 32,000
 * spheres of atom_style sphere, type 2 frozen (fix freeze), periodic in x
 * and y, gran/hooke/history kn = 2e5, kt = 2/7 kn, gamma_n = 50,
 * gamma_t = 0, mu = 0.5, gravity 1 along the chute tilted 26 degrees
 * (fix gravity 1.0 chute 26.0: g = (sin 26, 0, -cos 26)), dt = 1e-4. */
#define CHUTE_KN 200000.0
#define CHUTE_KT (CHUTE_KN * 2.0 / 7.0)
#define CHUTE_GAMMA_N 50.0
#define CHUTE_GAMMA_T 0.0
#define CHUTE_MU 0.5
#define CHUTE_ANGLE_DEG 26.0
#define CHUTE_DT 1e-4
#define CHUTE_STEPS 100
#define CHUTE_FROZEN_TYPE 2

typedef struct chute_scene {
    int n;
    double lo[3], hi[3];        /* the box (xlo xhi, ylo yhi, zlo zhi) */
    int *type;                  /* per atom, in the order of the file */
    long *id;
    double *radius, *mass;      /* mass = density 4/3 pi r^3 (LAMMPS, 3d) */
    double *pos, *vel, *ang;    /* 3n each: x, v, omega */
} chute_scene;
/* Reads a LAMMPS data file of atom_style sphere (Atoms: id type diameter
 * density x y z [ix iy iz]; Velocities: id vx vy vz wx wy wz). 0 on
 * success; on failure prints what is wrong to stderr. */
int chute_load(chute_scene *s, const char *path);
void chute_free(chute_scene *s);

double peer_now(void);
/* CPU time of the process, s: on a shared machine the wall clock of a
 * step moves with the other processes' load, this much less. */
double peer_cpu_now(void);

/* Parses the arguments every engine program takes: SCENE SIZE CAP_SECONDS,
 * and for the pyramid an optional ITERATIONS (the solver's iterations or
 * passes, in [1, 100000]) when iterations is not NULL; *iterations is 0 when
 * it was not given (the engine's own setting). Returns 0 for the pit, 1 for
 * the pyramid, -1 on bad usage (printed). */
int peer_args(int argc, char **argv, int *size, double *cap, int *iterations);

/* The line the driver reads. */
typedef struct peer_result {
    const char *engine, *scene;
    int size;          /* N spheres or rows */
    int bodies;
    int steps, planned;
    double step_seconds;  /* wall time spent inside the engine's step */
    double step_cpu_seconds; /* the process's CPU time inside the same calls */
    double setup_seconds;
    double max_pen;       /* m */
    const char *pen_kind; /* "geom" (measured from positions) or "contact" (engine's deepest contact) */
    int lost;
    double ke;
    double drift;         /* pyramid: largest displacement, m; < 0 for the pit */
    double contacts;      /* contacts per step (average), < 0 when unknown */
    long warnings;        /* engine warnings (e.g. contact buffer full), < 0 when none counted */
    double overlap;       /* pyramid: pyr_max_overlap's deepest, over every step, m; < 0 for the pit */
} peer_result;
void peer_print(const peer_result *r);

/* A skipped run: prints the reason for the driver. */
void peer_skip(const char *engine, const char *scene, int size, const char *reason);

#ifdef __cplusplus
}
#endif
#endif
