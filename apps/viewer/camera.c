/* carom viewer — orbit camera math (see camera.h). */
#include <math.h>

#include "camera.h"

#define PI 3.14159265358979323846

#define DEFAULT_YAW (-60.0 * PI / 180.0)
#define DEFAULT_PITCH (25.0 * PI / 180.0)
#define DEFAULT_FOV (40.0 * PI / 180.0)
#define PITCH_LIMIT (89.0 * PI / 180.0)

view_camera camera_fit(cr_vec3 lo, cr_vec3 hi, double aspect)
{
    view_camera c;
    c.target = cr_v3_scale(cr_v3_add(lo, hi), 0.5);
    c.yaw = DEFAULT_YAW;
    c.pitch = DEFAULT_PITCH;
    c.fov_y = DEFAULT_FOV;
    double r = 0.5 * cr_v3_len(cr_v3_sub(hi, lo));
    if (!(r > 1e-9)) r = 1.0;
    /* The narrower of the two fields of view decides. */
    double half = 0.5 * c.fov_y;
    if (aspect > 0.0 && aspect < 1.0) half = atan(tan(half) * aspect);
    c.distance = 1.05 * r / sin(half);
    return c;
}

void camera_apply_override(view_camera *c, const camera_override *o)
{
    if (o->yaw) c->yaw = o->value.yaw;
    if (o->pitch) c->pitch = o->value.pitch;
    if (o->distance) c->distance = o->value.distance;
    if (o->target) c->target = o->value.target;
    if (o->fov) c->fov_y = o->value.fov_y;
}

cr_vec3 camera_eye(const view_camera *c)
{
    double cp = cos(c->pitch);
    cr_vec3 dir = cr_v3(cp * cos(c->yaw), cp * sin(c->yaw), sin(c->pitch));
    return cr_v3_madd(c->target, dir, c->distance);
}

void camera_basis(const view_camera *c, cr_vec3 *forward, cr_vec3 *right, cr_vec3 *up)
{
    double cp = cos(c->pitch);
    cr_vec3 f = cr_v3(-cp * cos(c->yaw), -cp * sin(c->yaw), -sin(c->pitch));
    /* right = f x z, well defined because |pitch| < 90°. */
    cr_vec3 r = cr_v3_normalize(cr_v3(f.y, -f.x, 0.0));
    if (!(fabs(f.x) + fabs(f.y) > 0.0)) r = cr_v3(sin(c->yaw), -cos(c->yaw), 0.0);
    *forward = f;
    *right = r;
    *up = cr_v3_cross(r, f);
}

void camera_clip(const view_camera *c, cr_vec3 lo, cr_vec3 hi, double *near_z, double *far_z)
{
    cr_vec3 f, r, u;
    camera_basis(c, &f, &r, &u);
    cr_vec3 eye = camera_eye(c);
    double dmin = INFINITY, dmax = 0.0;
    for (int i = 0; i < 8; ++i) {
        cr_vec3 p = cr_v3(i & 1 ? hi.x : lo.x, i & 2 ? hi.y : lo.y, i & 4 ? hi.z : lo.z);
        double d = cr_v3_dot(cr_v3_sub(p, eye), f);
        dmin = fmin(dmin, d);
        dmax = fmax(dmax, d);
    }
    /* Never closer than a thousandth of the distance: depth precision. */
    double floor_near = 1e-3 * c->distance;
    *near_z = fmax(0.9 * dmin, floor_near);
    *far_z = fmax(1.1 * dmax, *near_z * 2.0);
}

void camera_view_matrix(const view_camera *c, float m[16])
{
    cr_vec3 f, r, u;
    camera_basis(c, &f, &r, &u);
    cr_vec3 e = camera_eye(c);
    /* Rows of the rotation are right, up, -forward (OpenGL looks down -z). */
    m[0] = (float)r.x; m[4] = (float)r.y; m[8] = (float)r.z;   m[12] = (float)-cr_v3_dot(r, e);
    m[1] = (float)u.x; m[5] = (float)u.y; m[9] = (float)u.z;   m[13] = (float)-cr_v3_dot(u, e);
    m[2] = (float)-f.x; m[6] = (float)-f.y; m[10] = (float)-f.z; m[14] = (float)cr_v3_dot(f, e);
    m[3] = 0.0f; m[7] = 0.0f; m[11] = 0.0f; m[15] = 1.0f;
}

void camera_projection_matrix(const view_camera *c, double aspect, double near_z, double far_z, float m[16])
{
    double t = 1.0 / tan(0.5 * c->fov_y);
    for (int i = 0; i < 16; ++i) m[i] = 0.0f;
    m[0] = (float)(t / aspect);
    m[5] = (float)t;
    m[10] = (float)((far_z + near_z) / (near_z - far_z));
    m[11] = -1.0f;
    m[14] = (float)(2.0 * far_z * near_z / (near_z - far_z));
}

bool camera_project(const view_camera *c, int width, int height, cr_vec3 p, double *px, double *py)
{
    cr_vec3 f, r, u;
    camera_basis(c, &f, &r, &u);
    cr_vec3 d = cr_v3_sub(p, camera_eye(c));
    double depth = cr_v3_dot(d, f);
    if (!(depth > 0.0)) return false;
    double t = tan(0.5 * c->fov_y);
    double aspect = (double)width / (double)height;
    double ndc_x = cr_v3_dot(d, r) / (depth * t * aspect);
    double ndc_y = cr_v3_dot(d, u) / (depth * t);
    *px = 0.5 * (ndc_x + 1.0) * width;
    *py = 0.5 * (1.0 - ndc_y) * height;
    return true;
}

void camera_ray(const view_camera *c, int width, int height, double px, double py, cr_vec3 *origin, cr_vec3 *dir)
{
    cr_vec3 f, r, u;
    camera_basis(c, &f, &r, &u);
    double t = tan(0.5 * c->fov_y);
    double aspect = (double)width / (double)height;
    double ndc_x = 2.0 * px / width - 1.0;
    double ndc_y = 1.0 - 2.0 * py / height;
    cr_vec3 d = cr_v3_add(f, cr_v3_add(cr_v3_scale(r, ndc_x * t * aspect), cr_v3_scale(u, ndc_y * t)));
    *origin = camera_eye(c);
    *dir = cr_v3_normalize(d);
}

void camera_orbit(view_camera *c, double dyaw, double dpitch)
{
    c->yaw = remainder(c->yaw + dyaw, 2.0 * PI);
    c->pitch = fmax(-PITCH_LIMIT, fmin(PITCH_LIMIT, c->pitch + dpitch));
}

void camera_pan(view_camera *c, double right_fraction, double up_fraction)
{
    cr_vec3 f, r, u;
    camera_basis(c, &f, &r, &u);
    /* A fraction of the view's height at the target's depth. */
    double h = 2.0 * c->distance * tan(0.5 * c->fov_y);
    c->target = cr_v3_madd(c->target, r, -right_fraction * h);
    c->target = cr_v3_madd(c->target, u, -up_fraction * h);
}

void camera_zoom(view_camera *c, double factor)
{
    if (factor > 0.0 && isfinite(factor)) c->distance = fmax(1e-6, c->distance * factor);
}
