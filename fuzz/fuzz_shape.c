/* carom fuzzing — shapes (issue 5): the bytes as a Wavefront OBJ file for
 * cr_shape_load_obj, or (first byte 'H') as a point cloud for
 * cr_shape_create_hull (each point three int16 coordinates / 256: dense
 * grids, duplicates, coplanar and collinear clouds come up often).
 *
 * Contract checked (include/carom/shape.h):
 * - a refusal carries a message and leaves *out NULL;
 * - an accepted shape has a finite, positive volume, a finite bounding
 *   radius, and an inertia tensor about its centroid that is symmetric with
 *   non-negative diagonal satisfying the triangle inequality
 *   (I_xx <= I_yy + I_zz and its turns), each to rounding;
 * - for a hull, every input point lies inside it or on it (within the
 *   hull's tolerance of the cloud's size).
 * Limit: at most 4,096 points or 64 KiB of OBJ text per input.
 */
#define _POSIX_C_SOURCE 200809L
#include <unistd.h>

#include "carom/carom.h"
#include "fuzz_util.h"

#define FZ_SHAPE_MAX_POINTS 4096u
#define FZ_SHAPE_MAX_OBJ 65536u

static int fz_check_mass(const cr_shape *s, char *why, size_t why_size)
{
    const cr_mass_properties *mp = cr_shape_mass_properties(s);
    const double *I = &mp->inertia_unit.m[0][0];
    if (!(mp->volume > 0.0 && isfinite(mp->volume)))
        return fz_say(CAROM_FUZZ_BROKEN, why, why_size, "volume %.17g", mp->volume);
    if (!isfinite(cr_shape_bounding_radius(s)))
        return fz_say(CAROM_FUZZ_BROKEN, why, why_size, "bounding radius not finite");
    double scale = fabs(I[0]) + fabs(I[4]) + fabs(I[8]);
    for (int k = 0; k < 9; ++k)
        if (!isfinite(I[k])) return fz_say(CAROM_FUZZ_BROKEN, why, why_size, "inertia[%d] not finite", k);
    double tol = 1e-9 * scale;
    if (fabs(I[1] - I[3]) > tol || fabs(I[2] - I[6]) > tol || fabs(I[5] - I[7]) > tol)
        return fz_say(CAROM_FUZZ_BROKEN, why, why_size, "inertia not symmetric");
    if (I[0] < -tol || I[4] < -tol || I[8] < -tol || I[0] > I[4] + I[8] + tol || I[4] > I[0] + I[8] + tol ||
        I[8] > I[0] + I[4] + tol)
        return fz_say(CAROM_FUZZ_BROKEN, why, why_size, "inertia diagonal %.17g %.17g %.17g impossible", I[0], I[4], I[8]);
    return CAROM_FUZZ_ACCEPTED;
}

static int fz_hull(const uint8_t *data, size_t size, char *why, size_t why_size)
{
    uint32_t n = (uint32_t)(size / 6);
    if (n > FZ_SHAPE_MAX_POINTS) return fz_say(CAROM_FUZZ_SKIPPED, why, why_size, "%u points", n);
    cr_vec3 *p = malloc((n ? n : 1) * sizeof *p);
    if (!p) return fz_say(CAROM_FUZZ_SKIPPED, why, why_size, "out of memory");
    for (uint32_t i = 0; i < n; ++i) {
        double c[3];
        for (int k = 0; k < 3; ++k) c[k] = (int16_t)(data[6 * i + 2 * k] | data[6 * i + 2 * k + 1] << 8) / 256.0;
        p[i] = cr_v3(c[0], c[1], c[2]);
    }
    cr_shape *s = NULL;
    char msg[256] = "";
    cr_status st = cr_shape_create_hull(p, n, &s, msg, sizeof msg);
    int rc = CAROM_FUZZ_REFUSED;
    if (st != CR_OK) {
        rc = s || msg[0] == '\0' ? fz_say(CAROM_FUZZ_BROKEN, why, why_size, "refused without a message or with a shape")
                                 : fz_say(CAROM_FUZZ_REFUSED, why, why_size, "%s", msg);
    } else if ((rc = fz_check_mass(s, why, why_size)) == CAROM_FUZZ_ACCEPTED) {
        /* every point inside: in the shape's frame, y - offset */
        double extent = 0.0;
        for (uint32_t i = 0; i < n; ++i) extent = fmax(extent, cr_v3_len(p[i]));
        cr_vec3 off = cr_shape_offset(s);
        uint32_t tris = cr_shape_triangles(s, NULL, 0);
        cr_vec3 *t = malloc(3 * (size_t)tris * sizeof *t);
        if (t && cr_shape_triangles(s, t, tris) == tris) {
            for (uint32_t i = 0; i < n && rc == CAROM_FUZZ_ACCEPTED; ++i) {
                cr_vec3 y = cr_v3_sub(p[i], off);
                for (uint32_t f = 0; f < tris; ++f) {
                    cr_vec3 e1 = cr_v3_sub(t[3 * f + 1], t[3 * f]), e2 = cr_v3_sub(t[3 * f + 2], t[3 * f]);
                    cr_vec3 nrm = cr_v3_cross(e1, e2);
                    double l = cr_v3_len(nrm);
                    /* a sliver of a polygon face (three nearly collinear
                     * corners) has no reliable plane: the face's other
                     * triangles hold it */
                    if (!(l > 1e-3 * fmax(cr_v3_len2(e1), cr_v3_len2(e2)))) continue;
                    double d = cr_v3_dot(cr_v3_scale(nrm, 1.0 / l), cr_v3_sub(y, t[3 * f]));
                    if (d > 1e-6 * (1.0 + extent)) {
                        rc = fz_say(CAROM_FUZZ_BROKEN, why, why_size, "point %u lies %.3g outside the hull", i, d);
                        break;
                    }
                }
            }
        }
        free(t);
        if (rc == CAROM_FUZZ_ACCEPTED) fz_say(rc, why, why_size, "hull of %u points", n);
    }
    cr_shape_release(s);
    free(p);
    return rc;
}

static int fz_obj(const uint8_t *data, size_t size, char *why, size_t why_size)
{
    if (size > FZ_SHAPE_MAX_OBJ) return fz_say(CAROM_FUZZ_SKIPPED, why, why_size, "%zu bytes of OBJ", size);
    char path[] = "/tmp/carom-fuzz-obj-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) return fz_say(CAROM_FUZZ_SKIPPED, why, why_size, "no temporary file");
    bool written = size == 0 || write(fd, data, size) == (ssize_t)size;
    close(fd);
    if (!written) {
        unlink(path);
        return fz_say(CAROM_FUZZ_SKIPPED, why, why_size, "temporary file not written");
    }
    cr_shape *s = NULL;
    char msg[512] = "";
    cr_status st = cr_shape_load_obj(path, &s, msg, sizeof msg);
    unlink(path);
    int rc;
    if (st != CR_OK)
        rc = s || msg[0] == '\0' ? fz_say(CAROM_FUZZ_BROKEN, why, why_size, "refused without a message or with a shape")
                                 : fz_say(CAROM_FUZZ_REFUSED, why, why_size, "%s", msg);
    else if ((rc = fz_check_mass(s, why, why_size)) == CAROM_FUZZ_ACCEPTED)
        fz_say(rc, why, why_size, "mesh loaded");
    cr_shape_release(s);
    return rc;
}

int carom_fuzz_shape(const uint8_t *data, size_t size, char *why, size_t why_size)
{
    if (size > 0 && data[0] == 'H') return fz_hull(data + 1, size - 1, why, why_size);
    return fz_obj(data, size, why, why_size);
}
