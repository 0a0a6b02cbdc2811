/* carom CLI — the trajectory in other tools' formats, besides the CSV:
 *
 *   vtk  DIR/trajectory.pvd and DIR/trajectory_vtk/trajectory_NNNNNN.vtp:
 *        a ParaView time series of VTK XML PolyData, one vertex per body
 *        with radius, velocity, spin and id as point data
 *   xyz  DIR/trajectory.xyz: extended XYZ (OVITO, ASE), one frame per
 *        sample with id, position, radius, velocity and spin columns
 *
 * Each writer follows output.c's rule: everything goes to temporaries in
 * DIR and is renamed into place only when the whole run succeeded. Numbers
 * are %.17g, as in the CSV, so all three hold the same doubles.
 */
#ifndef CAROM_CLI_OUTPUT_FORMATS_H
#define CAROM_CLI_OUTPUT_FORMATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "carom/carom.h"

enum { OUTPUT_CSV = 1u, OUTPUT_VTK = 2u, OUTPUT_XYZ = 4u };

/* "csv", "vtk", "xyz" or a comma-separated list of them. CSV is always
 * written; the others are added. 0, or -1 with a message. */
int output_parse_formats(const char *list, unsigned *formats, char *err, size_t err_size);

/* One sample of the bodies, read once from the world and given to every
 * writer. */
typedef struct output_frame {
    double t;
    uint32_t count;
    const cr_body_state *states;
    const double *radius;
} output_frame;

typedef struct vtk_series {
    char *dir, *tmp_dir, *pvd_tmp;
    FILE *pvd;
    uint64_t frames;
} vtk_series;

int vtk_open(vtk_series *v, const char *dir, char *err, size_t err_size);
int vtk_sample(vtk_series *v, const output_frame *f, char *err, size_t err_size);
/* Puts trajectory_vtk/ and trajectory.pvd in place (replacing an earlier
 * run's); on failure leaves the earlier ones. */
int vtk_commit(vtk_series *v, char *err, size_t err_size);
/* Removes trajectory.pvd and trajectory_vtk/ after a commit (when a later
 * file of the same run could not be put in place). */
void vtk_uncommit(const char *dir);
void vtk_abort(vtk_series *v);

typedef struct xyz_file {
    char *path, *tmp;
    FILE *f;
} xyz_file;

int xyz_open(xyz_file *x, const char *dir, char *err, size_t err_size);
int xyz_sample(xyz_file *x, const output_frame *f, char *err, size_t err_size);
int xyz_commit(xyz_file *x, char *err, size_t err_size);
void xyz_abort(xyz_file *x);

/* Shared by the writers: "dir/name" (malloc'd), a temporary file next to
 * the final one with an ordinary file's permissions, and recursive removal
 * of a directory the run made. */
char *output_join(const char *dir, const char *name);
FILE *output_temp_file(const char *dir, const char *name, char **tmp_path);
void output_remove_tree(const char *path);

#endif
