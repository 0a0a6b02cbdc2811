/* carom viewer — `carom view`: a GLFW window onto a running simulation. */
#ifndef CAROM_VIEWER_VIEWER_H
#define CAROM_VIEWER_VIEWER_H

#include <stddef.h>

#include "camera.h"
#include "draw_list.h"
#include "sim_thread.h"

typedef struct viewer_options {
    int width, height;        /* window size in screen coordinates */
    camera_override camera;   /* on top of the camera fitted to the scene */
    draw_color_mode color;
    sim_options sim;
    double exit_after;        /* > 0: close after this many seconds (scripted screenshots) */
    const char *screenshot;   /* with exit_after: PNG of the last frame */
    const char *title;
} viewer_options;

/* Runs the window until it is closed. 0 on a normal close; -1 with a
 * message when there is no display, no OpenGL 3.3 or the scene cannot be
 * loaded (the loader's message, with *load_failed set). */
int viewer_run(const viewer_options *o, sim_loader *loader, void *ctx, int *load_failed, char *err, size_t err_size);

#endif
