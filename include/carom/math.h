/* carom — small vector, matrix and quaternion kernels, passed by value.
 *
 * Everything here is static inline and pure so that the compiler can keep
 * values in registers. Double precision throughout (DESIGN: conventions).
 * Matrices are row-major: m[row][col].
 */
#ifndef CAROM_MATH_H
#define CAROM_MATH_H

#include <math.h>
#include <stdbool.h>

typedef struct cr_vec3 { double x, y, z; } cr_vec3;
typedef struct cr_mat3 { double m[3][3]; } cr_mat3;
typedef struct cr_quat { double w, x, y, z; } cr_quat;

static inline cr_vec3 cr_v3(double x, double y, double z) { cr_vec3 r = {x, y, z}; return r; }
static inline cr_vec3 cr_v3_zero(void) { return cr_v3(0.0, 0.0, 0.0); }
static inline cr_vec3 cr_v3_add(cr_vec3 a, cr_vec3 b) { return cr_v3(a.x + b.x, a.y + b.y, a.z + b.z); }
static inline cr_vec3 cr_v3_sub(cr_vec3 a, cr_vec3 b) { return cr_v3(a.x - b.x, a.y - b.y, a.z - b.z); }
static inline cr_vec3 cr_v3_scale(cr_vec3 a, double s) { return cr_v3(a.x * s, a.y * s, a.z * s); }
static inline cr_vec3 cr_v3_neg(cr_vec3 a) { return cr_v3(-a.x, -a.y, -a.z); }
/* a + s b, written out (no fused multiply-add: -ffp-contract=off). */
static inline cr_vec3 cr_v3_madd(cr_vec3 a, cr_vec3 b, double s) { return cr_v3(a.x + b.x * s, a.y + b.y * s, a.z + b.z * s); }
static inline double cr_v3_dot(cr_vec3 a, cr_vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline cr_vec3 cr_v3_cross(cr_vec3 a, cr_vec3 b)
{
    return cr_v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
static inline double cr_v3_len2(cr_vec3 a) { return cr_v3_dot(a, a); }
static inline double cr_v3_len(cr_vec3 a) { return sqrt(cr_v3_dot(a, a)); }
static inline cr_vec3 cr_v3_min(cr_vec3 a, cr_vec3 b) { return cr_v3(fmin(a.x, b.x), fmin(a.y, b.y), fmin(a.z, b.z)); }
static inline cr_vec3 cr_v3_max(cr_vec3 a, cr_vec3 b) { return cr_v3(fmax(a.x, b.x), fmax(a.y, b.y), fmax(a.z, b.z)); }
static inline bool cr_v3_isfinite(cr_vec3 a) { return isfinite(a.x) && isfinite(a.y) && isfinite(a.z); }
/* Unit vector along a; the zero vector when |a| is zero or not finite. */
static inline cr_vec3 cr_v3_normalize(cr_vec3 a)
{
    double l = cr_v3_len(a);
    return (l > 0.0 && isfinite(l)) ? cr_v3_scale(a, 1.0 / l) : cr_v3_zero();
}
/* Component of a orthogonal to the unit vector n (seed 000 eq. B.13). */
static inline cr_vec3 cr_v3_reject(cr_vec3 a, cr_vec3 n) { return cr_v3_madd(a, n, -cr_v3_dot(n, a)); }
static inline double cr_v3_get(cr_vec3 a, int i) { return i == 0 ? a.x : (i == 1 ? a.y : a.z); }

static inline cr_mat3 cr_m3_zero(void) { cr_mat3 r = {{{0, 0, 0}, {0, 0, 0}, {0, 0, 0}}}; return r; }
static inline cr_mat3 cr_m3_diag(double a, double b, double c)
{
    cr_mat3 r = {{{a, 0, 0}, {0, b, 0}, {0, 0, c}}};
    return r;
}
static inline cr_mat3 cr_m3_identity(void) { return cr_m3_diag(1.0, 1.0, 1.0); }
static inline cr_vec3 cr_m3_mul_v(cr_mat3 a, cr_vec3 v)
{
    return cr_v3(a.m[0][0] * v.x + a.m[0][1] * v.y + a.m[0][2] * v.z,
                 a.m[1][0] * v.x + a.m[1][1] * v.y + a.m[1][2] * v.z,
                 a.m[2][0] * v.x + a.m[2][1] * v.y + a.m[2][2] * v.z);
}
static inline cr_mat3 cr_m3_mul(cr_mat3 a, cr_mat3 b)
{
    cr_mat3 r;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            r.m[i][j] = a.m[i][0] * b.m[0][j] + a.m[i][1] * b.m[1][j] + a.m[i][2] * b.m[2][j];
    return r;
}
/* Written out: GCC compiled the loop as a round trip through the stack
 * whose reads straddle its stores (a failed store forwarding, most of
 * relative_pose's samples in the pyramid, branch pyr14). */
static inline cr_mat3 cr_m3_transpose(cr_mat3 a)
{
    cr_mat3 r = {{{a.m[0][0], a.m[1][0], a.m[2][0]}, {a.m[0][1], a.m[1][1], a.m[2][1]}, {a.m[0][2], a.m[1][2], a.m[2][2]}}};
    return r;
}
static inline cr_mat3 cr_m3_add(cr_mat3 a, cr_mat3 b)
{
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) a.m[i][j] += b.m[i][j];
    return a;
}
static inline cr_mat3 cr_m3_scale(cr_mat3 a, double s)
{
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) a.m[i][j] *= s;
    return a;
}
static inline double cr_m3_det(cr_mat3 a)
{
    return a.m[0][0] * (a.m[1][1] * a.m[2][2] - a.m[1][2] * a.m[2][1]) -
           a.m[0][1] * (a.m[1][0] * a.m[2][2] - a.m[1][2] * a.m[2][0]) +
           a.m[0][2] * (a.m[1][0] * a.m[2][1] - a.m[1][1] * a.m[2][0]);
}
/* Inverse by the adjugate; *ok is false (and the zero matrix returned) when
 * the determinant is zero or not finite. */
static inline cr_mat3 cr_m3_inverse(cr_mat3 a, bool *ok)
{
    double d = cr_m3_det(a);
    cr_mat3 r;
    if (!(d != 0.0 && isfinite(d))) {
        if (ok) *ok = false;
        return cr_m3_zero();
    }
    double id = 1.0 / d;
    r.m[0][0] = (a.m[1][1] * a.m[2][2] - a.m[1][2] * a.m[2][1]) * id;
    r.m[0][1] = (a.m[0][2] * a.m[2][1] - a.m[0][1] * a.m[2][2]) * id;
    r.m[0][2] = (a.m[0][1] * a.m[1][2] - a.m[0][2] * a.m[1][1]) * id;
    r.m[1][0] = (a.m[1][2] * a.m[2][0] - a.m[1][0] * a.m[2][2]) * id;
    r.m[1][1] = (a.m[0][0] * a.m[2][2] - a.m[0][2] * a.m[2][0]) * id;
    r.m[1][2] = (a.m[0][2] * a.m[1][0] - a.m[0][0] * a.m[1][2]) * id;
    r.m[2][0] = (a.m[1][0] * a.m[2][1] - a.m[1][1] * a.m[2][0]) * id;
    r.m[2][1] = (a.m[0][1] * a.m[2][0] - a.m[0][0] * a.m[2][1]) * id;
    r.m[2][2] = (a.m[0][0] * a.m[1][1] - a.m[0][1] * a.m[1][0]) * id;
    if (ok) *ok = true;
    return r;
}
/* The matrix [a]x with [a]x b = a x b. */
static inline cr_mat3 cr_m3_skew(cr_vec3 a)
{
    cr_mat3 r = {{{0, -a.z, a.y}, {a.z, 0, -a.x}, {-a.y, a.x, 0}}};
    return r;
}

static inline cr_quat cr_q_identity(void) { cr_quat q = {1.0, 0.0, 0.0, 0.0}; return q; }
static inline cr_quat cr_q_mul(cr_quat a, cr_quat b)
{
    cr_quat r = {a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
                 a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                 a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                 a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w};
    return r;
}
static inline cr_quat cr_q_normalize(cr_quat q)
{
    double l = sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
    if (!(l > 0.0 && isfinite(l))) return cr_q_identity();
    cr_quat r = {q.w / l, q.x / l, q.y / l, q.z / l};
    return r;
}
/* Orientation after turning with constant angular velocity w for time h:
 * the exact rotation exp(h w / 2) applied on the left (world-frame w). */
static inline cr_quat cr_q_integrate(cr_quat q, cr_vec3 w, double h)
{
    double angle = cr_v3_len(w) * h;
    if (angle == 0.0) return q;
    double s = sin(0.5 * angle) / cr_v3_len(w);
    cr_quat d = {cos(0.5 * angle), w.x * s, w.y * s, w.z * s};
    return cr_q_normalize(cr_q_mul(d, q));
}
static inline cr_mat3 cr_q_to_m3(cr_quat q)
{
    double xx = q.x * q.x, yy = q.y * q.y, zz = q.z * q.z;
    double xy = q.x * q.y, xz = q.x * q.z, yz = q.y * q.z;
    double wx = q.w * q.x, wy = q.w * q.y, wz = q.w * q.z;
    cr_mat3 r = {{{1 - 2 * (yy + zz), 2 * (xy - wz), 2 * (xz + wy)},
                  {2 * (xy + wz), 1 - 2 * (xx + zz), 2 * (yz - wx)},
                  {2 * (xz - wy), 2 * (yz + wx), 1 - 2 * (xx + yy)}}};
    return r;
}

#endif
