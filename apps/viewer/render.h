/* carom viewer — one still image of a snapshot, without a display:
 * headless context, the renderer, the PNG. What `carom render` runs. */
#ifndef CAROM_VIEWER_RENDER_H
#define CAROM_VIEWER_RENDER_H

#include <stdbool.h>
#include <stddef.h>

#include "camera.h"
#include "draw_list.h"
#include "snapshot.h"

typedef struct render_settings {
    int width, height;  /* pixels */
    int samples;        /* multisampling, 1 = none */
    view_camera camera;
    draw_options draw;
    bool overlay;       /* the viewer's text panel */
} render_settings;

typedef struct render_figures {
    double seconds;       /* context, drawing, read-back and PNG */
    char renderer[128];   /* the OpenGL implementation that drew it */
} render_figures;

/* 0, or -1 with a message (no OpenGL, a file that cannot be written). On
 * failure no file is left at path. */
int render_png(const view_snapshot *s, const render_settings *rs, const char *path, render_figures *figures, char *err,
               size_t err_size);

#endif
