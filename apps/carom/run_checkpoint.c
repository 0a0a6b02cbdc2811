/* carom run — writing and resuming checkpoints (see run_checkpoint.h).
 * The run's own data travels in the checkpoint's application bytes as one
 * line of text: "carom-run 1 steps=N stride=S bodies=B". */
#include "run_checkpoint.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carom/carom.h"

#define RUN_TAG "carom-run 1"

int run_checkpoint_write(const cr_scene *scene, const char *dir, char *err, size_t err_size)
{
    char app[128], path[4096], msg[256];
    int n = snprintf(app, sizeof app, RUN_TAG " steps=%" PRIu64 " stride=%" PRIu64 " bodies=%" PRIu32, scene->steps,
                     scene->output_stride, scene->body_count);
    if (snprintf(path, sizeof path, "%s/checkpoint.bin", dir) >= (int)sizeof path) {
        snprintf(err, err_size, "checkpoint: directory name too long");
        return -1;
    }
    if (cr_world_save(scene->world, path, app, (size_t)n, msg, sizeof msg) != CR_OK) {
        snprintf(err, err_size, "%s", msg);
        return -1;
    }
    return 0;
}

int run_checkpoint_resume(const char *path, cr_scene *scene, char *err, size_t err_size)
{
    memset(scene, 0, sizeof *scene);
    char msg[256];
    void *app = NULL;
    size_t app_size = 0;
    cr_world *world;
    if (cr_world_load(path, NULL, &world, &app, &app_size, msg, sizeof msg) != CR_OK) {
        snprintf(err, err_size, "%s: %s", path, msg);
        return -1;
    }
    char text[128] = {0};
    if (app_size > 0 && app_size < sizeof text) memcpy(text, app, app_size);
    free(app);
    uint64_t steps, stride;
    uint32_t bodies;
    if (sscanf(text, RUN_TAG " steps=%" SCNu64 " stride=%" SCNu64 " bodies=%" SCNu32, &steps, &stride, &bodies) != 3 ||
        stride == 0 || bodies != cr_world_body_capacity(world) || cr_world_step_count(world) > steps) {
        snprintf(err, err_size, "%s: not a checkpoint of 'carom run' (its run data is missing or does not fit)", path);
        cr_world_destroy(world);
        return -1;
    }
    scene->world = world;
    scene->steps = steps;
    scene->output_stride = stride;
    scene->body_count = bodies;
    scene->output_every = cr_world_get_def(world)->dt * (double)stride;
    scene->duration = cr_world_get_def(world)->dt * (double)steps;
    return 0;
}
