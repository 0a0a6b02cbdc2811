/* carom viewer — the orbit camera: a target, a direction (yaw, pitch) and a
 * distance, z up (carom's gravity points along -z by default).
 *
 * Pure math, no OpenGL: the window, the headless renderer, picking and the
 * tests all use the same functions, so a pixel the renderer draws and a
 * pixel a test expects come from one definition of the projection.
 *
 * Conventions: pixel (0, 0) is the top-left corner of the image, pixel
 * centres are at half-integers, matrices are column-major (OpenGL's).
 */
#ifndef CAROM_VIEWER_CAMERA_H
#define CAROM_VIEWER_CAMERA_H

#include <stdbool.h>

#include "carom/math.h"

typedef struct view_camera {
    cr_vec3 target;   /* the point orbited around and looked at */
    double yaw;       /* rad, angle of the eye around +z from +x */
    double pitch;     /* rad, elevation of the eye above the target, in (-pi/2, pi/2) */
    double distance;  /* m, eye to target, > 0 */
    double fov_y;     /* rad, vertical field of view, in (0, pi) */
} view_camera;

/* Camera settings given on the command line; the rest comes from
 * camera_fit. Angles in radians. */
typedef struct camera_override {
    bool yaw, pitch, distance, target, fov;
    view_camera value;
} camera_override;

/* Replaces the fields of c that o sets. */
void camera_apply_override(view_camera *c, const camera_override *o);

/* A camera looking at the box [lo, hi] from the default direction (yaw -60°,
 * pitch 25°) from far enough away that the box's bounding sphere fills the
 * view. */
view_camera camera_fit(cr_vec3 lo, cr_vec3 hi, double aspect);

cr_vec3 camera_eye(const view_camera *c);
/* Unit vectors of the eye frame: forward (eye to target), right, up. */
void camera_basis(const view_camera *c, cr_vec3 *forward, cr_vec3 *right, cr_vec3 *up);
/* Clip planes that keep the whole scene box [lo, hi] in view. */
void camera_clip(const view_camera *c, cr_vec3 lo, cr_vec3 hi, double *near_z, double *far_z);

void camera_view_matrix(const view_camera *c, float m[16]);
void camera_projection_matrix(const view_camera *c, double aspect, double near_z, double far_z, float m[16]);

/* The pixel (x right, y down) where world point p appears in a width x height
 * image; false when p is behind the eye. */
bool camera_project(const view_camera *c, int width, int height, cr_vec3 p, double *px, double *py);
/* The ray from the eye through pixel (px, py): origin and unit direction. */
void camera_ray(const view_camera *c, int width, int height, double px, double py, cr_vec3 *origin, cr_vec3 *dir);

/* Mouse gestures: orbit by angles (rad), pan by a fraction of the view
 * height, zoom by a factor (< 1 moves closer). */
void camera_orbit(view_camera *c, double dyaw, double dpitch);
void camera_pan(view_camera *c, double right_fraction, double up_fraction);
void camera_zoom(view_camera *c, double factor);

#endif
