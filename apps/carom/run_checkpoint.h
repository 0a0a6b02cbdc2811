/* carom run — checkpoints of a run: the world (include/carom/checkpoint.h)
 * plus what the run itself needs to go on (its step count and sampling). */
#ifndef CAROM_CLI_RUN_CHECKPOINT_H
#define CAROM_CLI_RUN_CHECKPOINT_H

#include <stddef.h>

#include "scene.h"

/* Writes DIR/checkpoint.bin (atomically) for the run's current step.
 * 0 ok, -1 error (message in err). */
int run_checkpoint_write(const cr_scene *scene, const char *dir, char *err, size_t err_size);
/* Restores a run from a checkpoint into *scene (world, steps, sampling).
 * 0 ok, -1 error (message in err; *scene left zeroed). */
int run_checkpoint_resume(const char *path, cr_scene *scene, char *err, size_t err_size);

#endif
