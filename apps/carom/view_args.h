/* carom CLI — options shared by carom view and carom render: the camera
 * and the colouring. */
#ifndef CAROM_CLI_VIEW_ARGS_H
#define CAROM_CLI_VIEW_ARGS_H

#include <stddef.h>

#include "camera.h"
#include "draw_list.h"

#define VIEW_ARGS_HELP                                                                           \
    "  --camera YAW,PITCH,DIST  eye direction in degrees (yaw around +z from +x, pitch above\n" \
    "                           the horizon) and distance to the target in m\n"                  \
    "                           (default: -60,25 and far enough to see every body)\n"            \
    "  --target X,Y,Z           point looked at (default: the centre of the bodies)\n"           \
    "  --fov DEG                vertical field of view, in (0, 180) (default 40)\n"              \
    "  --color id|speed|state   ball colours: per body, by speed, or by seed 004 state\n"

/* Consumes argv[*i] when it is one of the options above: 1 consumed,
 * 0 not ours, -1 bad value (message in err). */
int view_args_parse(int argc, char **argv, int *i, camera_override *camera, draw_color_mode *color, char *err,
                    size_t err_size);

#endif
