/* carom CLI — the run's output files, written whole or not at all.
 *
 * Samples go to temporary files in the output directory, renamed over
 * trajectory.csv and energy.csv only when the run succeeded, so that a
 * failed or interrupted run never leaves a half-written file that looks
 * like a result (issue 2: "no output file is left half-written").
 */
#ifndef CAROM_CLI_OUTPUT_H
#define CAROM_CLI_OUTPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "carom/carom.h"
#include "output_formats.h"

typedef struct run_output {
    char *trajectory_path, *energy_path; /* final names */
    char *trajectory_tmp, *energy_tmp;   /* temporaries, NULL once renamed or removed */
    FILE *trajectory, *energy;
    uint64_t samples;
    /* scene.json (always) and the --format extras (output_formats.h). */
    char *dir, *scene_path, *scene_tmp;
    unsigned formats;
    vtk_series vtk;
    xyz_file xyz;
    cr_body_state *states;
    double *radius;
    uint32_t frame_capacity;
} run_output;

/* Creates dir (and its parents) if missing and opens the temporaries with
 * their header lines; writes scene.json of the world (statics and bodies)
 * to its temporary; opens the extra formats (OUTPUT_VTK, OUTPUT_XYZ).
 * 0 or -1 with a message in err. */
int output_open(run_output *o, const char *dir, unsigned formats, const cr_world *world, char *err, size_t err_size);
/* Writes one sample of the world's first body_count slots: one trajectory
 * row per body and one energy row. */
int output_sample(run_output *o, const cr_world *world, uint32_t body_count, char *err, size_t err_size);
/* Flushes, closes and renames the temporaries to their final names:
 * scene.json, the extras, then the CSV files; a failure takes back what was
 * already renamed. */
int output_commit(run_output *o, char *err, size_t err_size);
/* Closes and removes the temporaries; safe after a failed open or commit. */
void output_abort(run_output *o);

#endif
