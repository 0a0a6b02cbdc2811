/* The box pyramid's stability sweep (bench_peers --pyramid-sweep): when one
 * run counts as at least as stable as another, and the fewest iterations of
 * an engine that reach a given run's stability. Pure functions, kept apart
 * from the driver so that tests/test_peer_measures.c checks the rule. */
#ifndef CAROM_PEERS_SWEEP_H
#define CAROM_PEERS_SWEEP_H

#ifdef __cplusplus
extern "C" {
#endif

/* Below this kinetic energy at the end (J) a pyramid counts as at rest, and
 * two runs' energies are not told apart: 1e-4 J over the 210 cubes of 20
 * rows (105 kg) is an rms speed of 1.4 mm/s, over the 1,275 of 50 rows
 * 0.56 mm/s. */
#define PYR_KE_AT_REST 1e-4

/* One run's stability figures, all measured by the same code for every
 * engine (bench/peers/scene.c). */
typedef struct pyr_stability {
    int complete;   /* ran all its planned steps (a capped run is judged on less time: never matched) */
    int lost;       /* cubes below the floor or non-finite at the end */
    double overlap; /* deepest overlap over every step (pyr_max_overlap), m */
    double drift;   /* largest displacement from the start at the end, m */
    double ke;      /* kinetic energy at the end, J */
} pyr_stability;

/* 1 when a is at least as stable as b: both complete, and a loses no more
 * cubes, overlaps and drifts no more, and ends with no more kinetic energy
 * (or at rest, below PYR_KE_AT_REST). */
int pyr_as_stable(const pyr_stability *a, const pyr_stability *b);

/* The first of the n runs in runs (an engine's settings in increasing
 * iterations: the first is the cheapest) at least as stable as ref, or -1. */
int pyr_fewest_as_stable(const pyr_stability *runs, int n, const pyr_stability *ref);

#ifdef __cplusplus
}
#endif
#endif
