/* carom CLI — reading back what carom run wrote (energy.csv,
 * trajectory.csv), for carom plot and carom export-web. Every problem is
 * reported with the file, the line and what was expected, as bad input. */
#ifndef CAROM_CLI_RUN_FILES_H
#define CAROM_CLI_RUN_FILES_H

#include <stddef.h>
#include <stdint.h>

/* energy.csv: rows of t, kinetic, potential, total, px, py, pz. */
typedef struct energy_table {
    double *rows; /* 7 per sample */
    uint64_t samples;
} energy_table;

int energy_read(const char *path, energy_table *out, char *err, size_t err_size);
void energy_free(energy_table *e);

/* trajectory.csv: rows of t, id, x, y, z, vx, vy, vz, wx, wy, wz, qw, qx,
 * qy, qz, ids 0..bodies-1 in every sample. Positions are kept (3 per body
 * per sample), orientations (4 per body per sample, single precision),
 * speeds (1 per body per sample) and the sample times. A run without bodies
 * reads as zero samples of zero bodies. */
typedef struct trajectory_table {
    double *times;     /* samples */
    double *positions; /* samples * bodies * 3 */
    float *orientations; /* samples * bodies * 4: qw, qx, qy, qz */
    float *speeds;     /* samples * bodies */
    uint64_t samples;
    uint32_t bodies;
} trajectory_table;

int trajectory_read(const char *path, trajectory_table *out, char *err, size_t err_size);
void trajectory_free(trajectory_table *t);

#endif
