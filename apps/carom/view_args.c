/* carom CLI — camera and colour options (see view_args.h). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli_args.h"
#include "view_args.h"

#define DEG (3.14159265358979323846 / 180.0)

int view_args_parse(int argc, char **argv, int *i, camera_override *cam, draw_color_mode *color, char *err,
                    size_t err_size)
{
    bool missing;
    const char *v;
    if ((v = arg_value(argc, argv, i, "--camera", NULL, &missing))) {
        double a[3];
        if (missing) return snprintf(err, err_size, "--camera needs YAW,PITCH,DIST"), -1;
        if (arg_numbers("--camera", v, 3, a, err, err_size)) return -1;
        if (!(a[1] > -90.0 && a[1] < 90.0)) return snprintf(err, err_size, "--camera: pitch must be in (-90, 90) degrees, got %g", a[1]), -1;
        if (!(a[2] > 0.0)) return snprintf(err, err_size, "--camera: distance must be > 0, got %g", a[2]), -1;
        cam->yaw = cam->pitch = cam->distance = true;
        cam->value.yaw = a[0] * DEG;
        cam->value.pitch = a[1] * DEG;
        cam->value.distance = a[2];
        return 1;
    }
    if ((v = arg_value(argc, argv, i, "--target", NULL, &missing))) {
        double a[3];
        if (missing) return snprintf(err, err_size, "--target needs X,Y,Z"), -1;
        if (arg_numbers("--target", v, 3, a, err, err_size)) return -1;
        cam->target = true;
        cam->value.target = cr_v3(a[0], a[1], a[2]);
        return 1;
    }
    if ((v = arg_value(argc, argv, i, "--fov", NULL, &missing))) {
        double f;
        if (missing) return snprintf(err, err_size, "--fov needs an angle in degrees"), -1;
        if (arg_number("--fov", v, 1e-3, 179.0, &f, err, err_size)) return -1;
        cam->fov = true;
        cam->value.fov_y = f * DEG;
        return 1;
    }
    if ((v = arg_value(argc, argv, i, "--color", NULL, &missing))) {
        if (missing) return snprintf(err, err_size, "--color needs id, speed or state"), -1;
        if (strcmp(v, "id") == 0) *color = DRAW_COLOR_ID;
        else if (strcmp(v, "speed") == 0) *color = DRAW_COLOR_SPEED;
        else if (strcmp(v, "state") == 0) *color = DRAW_COLOR_STATE;
        else return snprintf(err, err_size, "--color: expected id, speed or state, got '%s'", v), -1;
        return 1;
    }
    return 0;
}
