/* carom CLI — --format xyz: extended XYZ (see output_formats.h).
 *
 * One frame per sample: the body count, a comment line naming the columns
 * and the time, then one line per body:
 *
 *   2
 *   Properties=species:S:1:id:I:1:pos:R:3:radius:R:1:velo:R:3:spin:R:3 Time=0.02 pbc="F F F"
 *   X 0 0.01 0 0.998038 0.5 0 -0.1962 0 0 0
 *
 * OVITO maps pos, radius and velo to its Position, Radius and Velocity and
 * keeps spin as a vector property; "X" (a dummy species) because the
 * format's readers expect one and carom bodies are not atoms.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output_formats.h"

int xyz_open(xyz_file *x, const char *dir, char *err, size_t err_size)
{
    memset(x, 0, sizeof *x);
    x->path = output_join(dir, "trajectory.xyz");
    errno = 0;
    x->f = x->path ? output_temp_file(dir, "trajectory.xyz", &x->tmp) : NULL;
    if (x->f == NULL) {
        snprintf(err, err_size, "cannot create a file in '%s': %s", dir, strerror(errno ? errno : ENOMEM));
        xyz_abort(x);
        return -1;
    }
    return 0;
}

int xyz_sample(xyz_file *x, const output_frame *fr, char *err, size_t err_size)
{
    fprintf(x->f, "%u\nProperties=species:S:1:id:I:1:pos:R:3:radius:R:1:velo:R:3:spin:R:3 Time=%.17g pbc=\"F F F\"\n",
            fr->count, fr->t);
    for (uint32_t i = 0; i < fr->count; ++i) {
        const cr_body_state *s = &fr->states[i];
        fprintf(x->f, "X %u %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g\n", i, s->position.x,
                s->position.y, s->position.z, fr->radius[i], s->velocity.x, s->velocity.y, s->velocity.z,
                s->angular_velocity.x, s->angular_velocity.y, s->angular_velocity.z);
    }
    if (ferror(x->f)) {
        snprintf(err, err_size, "cannot write the XYZ output: %s", strerror(errno ? errno : EIO));
        return -1;
    }
    return 0;
}

static void release(xyz_file *x)
{
    free(x->path);
    free(x->tmp);
    memset(x, 0, sizeof *x);
}

int xyz_commit(xyz_file *x, char *err, size_t err_size)
{
    errno = 0;
    bool bad = fflush(x->f) != 0 || ferror(x->f);
    if (fclose(x->f) != 0) bad = true;
    x->f = NULL;
    if (bad || rename(x->tmp, x->path) != 0) {
        snprintf(err, err_size, "cannot write '%s': %s", x->path, strerror(errno ? errno : EIO));
        xyz_abort(x);
        return -1;
    }
    release(x);
    return 0;
}

void xyz_abort(xyz_file *x)
{
    if (x->f) fclose(x->f);
    if (x->tmp) unlink(x->tmp);
    release(x);
}
