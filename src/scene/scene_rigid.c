/* carom scenes — rigid-body keys (issue 5, seed 003): a body's shape (box,
 * convex hull, OBJ mesh), density and orientation, and the "joints" array.
 * Errors name the JSON path and the value like the rest of the loader. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene_internal.h"

/* A mesh file named relative to the scene file's folder (the scene's name is
 * its path when it came from a file). */
static void mesh_path(const sc_ctx *c, const char *file, char *out, size_t size)
{
    const char *slash = c->scene_dir ? strrchr(c->name, '/') : NULL;
    if (file[0] == '/' || !slash) {
        snprintf(out, size, "%s", file);
        return;
    }
    snprintf(out, size, "%.*s/%s", (int)(slash - c->name), c->name, file);
}

static int read_hull(sc_ctx *c, const cJSON *obj, cr_shape **out)
{
    const cJSON *pts = cJSON_GetObjectItemCaseSensitive(obj, "points");
    if (!pts) return sc_fail_missing(c, "points", "an array of at least 4 points [x, y, z]");
    if (!cJSON_IsArray(pts) || cJSON_GetArraySize(pts) < 4)
        return sc_fail_value(c, "points", pts, "expected an array of at least 4 points [x, y, z]");
    uint32_t n = (uint32_t)cJSON_GetArraySize(pts);
    cr_vec3 *p = malloc(n * sizeof *p);
    if (!p) return sc_fail(c, "out of memory for %u hull points", n);
    size_t mark = sc_push_key(c, "points");
    uint32_t i = 0;
    for (const cJSON *e = pts->child; e; e = e->next, ++i) {
        size_t m2 = sc_push_index(c, i);
        double xyz[3];
        if (sc_read_numbers_at(c, e, 3, SC_ANY, xyz)) {
            free(p);
            return -1;
        }
        p[i] = cr_v3(xyz[0], xyz[1], xyz[2]);
        sc_pop(c, m2);
    }
    sc_pop(c, mark);
    char msg[256];
    cr_status s = cr_shape_create_hull(p, n, out, msg, sizeof msg);
    free(p);
    return s == CR_OK ? 0 : sc_fail_value(c, "points", pts, msg);
}

static int read_shape(sc_ctx *c, const cJSON *obj, int shape, cr_shape **out)
{
    char msg[512];
    *out = NULL;
    if (shape == CR_SHAPE_BOX) {
        const cJSON *h = cJSON_GetObjectItemCaseSensitive(obj, "half_extents");
        if (!h) return sc_fail_missing(c, "half_extents", "[hx, hy, hz], each > 0");
        double e[3];
        if (sc_read_numbers(c, obj, "half_extents", 3, SC_POSITIVE, e)) return -1;
        if (cr_shape_create_box(cr_v3(e[0], e[1], e[2]), out, msg, sizeof msg) != CR_OK)
            return sc_fail_value(c, "half_extents", h, msg);
        return 0;
    }
    if (shape == CR_SHAPE_HULL) return read_hull(c, obj, out);
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(obj, "file");
    if (!f) return sc_fail_missing(c, "file", "a Wavefront OBJ file, relative to the scene file");
    if (!cJSON_IsString(f) || f->valuestring[0] == '\0')
        return sc_fail_value(c, "file", f, "expected the name of a Wavefront OBJ file");
    char path[1024];
    mesh_path(c, f->valuestring, path, sizeof path);
    if (cr_shape_load_obj(path, out, msg, sizeof msg) != CR_OK) return sc_fail_value(c, "file", f, msg);
    return 0;
}

/* The keys of a body that only a box, hull or mesh takes, and the sphere's
 * own: each refused on the other kind, so that nothing is ignored silently. */
int sc_read_body_shape(sc_ctx *c, const cJSON *obj, int shape, bool template_mode, cr_body_def *def)
{
    static const char *const polyhedron_only[] = {"half_extents", "points", "file", NULL};
    static const char *const needs[] = {"", "half_extents", "points", "file"};
    for (int k = 0; polyhedron_only[k]; ++k) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, polyhedron_only[k]);
        if (v && strcmp(needs[shape], polyhedron_only[k]) != 0)
            return sc_fail_value(c, polyhedron_only[k], v, shape == CR_SHAPE_SPHERE ? "not a key of a sphere"
                                                                                    : "not a key of this shape");
    }
    const cJSON *mass = cJSON_GetObjectItemCaseSensitive(obj, "mass");
    const cJSON *density = cJSON_GetObjectItemCaseSensitive(obj, "density");
    if (mass && density) return sc_fail_value(c, "density", density, "give \"mass\" or \"density\", not both");
    if (sc_read_number(c, obj, "density", SC_POSITIVE, &def->density)) return -1;
    const cJSON *q = cJSON_GetObjectItemCaseSensitive(obj, "orientation");
    if (q) {
        double wxyz[4];
        if (sc_read_numbers(c, obj, "orientation", 4, SC_ANY, wxyz)) return -1;
        double l = sqrt(wxyz[0] * wxyz[0] + wxyz[1] * wxyz[1] + wxyz[2] * wxyz[2] + wxyz[3] * wxyz[3]);
        if (!(l > 1e-12)) return sc_fail_value(c, "orientation", q, "must be a non-zero quaternion [w, x, y, z]");
        def->orientation = (cr_quat){wxyz[0] / l, wxyz[1] / l, wxyz[2] / l, wxyz[3] / l};
    }
    def->shape = (cr_shape_type)shape;
    if (shape == CR_SHAPE_SPHERE) return 0;
    const cJSON *radius = cJSON_GetObjectItemCaseSensitive(obj, "radius");
    if (radius) return sc_fail_value(c, "radius", radius, "is for spheres; a polyhedron's size comes from its shape");
    if (template_mode)
        return sc_fail_value(c, "shape", cJSON_GetObjectItemCaseSensitive(obj, "shape"),
                             "generators place spheres; list boxes, hulls and meshes in \"bodies\"");
    return read_shape(c, obj, shape, &def->shape_ref);
}

/* ---- joints ---------------------------------------------------------------- */

static const char *const joint_keys[] = {"type", "a", "b", "anchor", "anchor_b", "axis", "length", "collide", NULL};
static const char *const joint_types[] = {"ball", "hinge", "fixed", "distance", NULL};

static int read_body_index(sc_ctx *c, const cJSON *obj, const char *key, uint32_t bodies, cr_world *world, cr_body_id *out)
{
    double v;
    if (sc_read_integer(c, obj, key, 0, (double)bodies - 1.0, &v)) return -1;
    *out = cr_world_body_at(world, (uint32_t)v);
    return 0;
}

int sc_read_joints(sc_ctx *c, const cJSON *root, cr_world *world, uint32_t bodies)
{
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, "joints");
    if (!arr) return 0;
    if (!cJSON_IsArray(arr)) return sc_fail_value(c, "joints", arr, "expected an array of objects");
    size_t mark = sc_push_key(c, "joints");
    size_t i = 0;
    for (const cJSON *e = arr->child; e; e = e->next, ++i) {
        size_t m2 = sc_push_index(c, i);
        if (sc_expect_object(c, e, NULL) || sc_check_keys(c, e, joint_keys)) return -1;
        cr_joint_def jd = cr_default_joint_def();
        int type = 0;
        if (!cJSON_GetObjectItemCaseSensitive(e, "type"))
            return sc_fail_missing(c, "type", "\"ball\", \"hinge\", \"fixed\" or \"distance\"");
        if (!cJSON_GetObjectItemCaseSensitive(e, "a")) return sc_fail_missing(c, "a", "the index of a body in \"bodies\"");
        if (bodies == 0) return sc_fail(c, "a joint needs bodies, and the scene has none");
        if (sc_read_enum(c, e, "type", joint_types, &type) ||
            read_body_index(c, e, "a", bodies, world, &jd.a) ||
            (cJSON_GetObjectItemCaseSensitive(e, "b") && read_body_index(c, e, "b", bodies, world, &jd.b)) ||
            sc_read_vec3(c, e, "anchor", &jd.anchor) || sc_read_vec3(c, e, "anchor_b", &jd.anchor_b) ||
            sc_read_vec3(c, e, "axis", &jd.axis) || sc_read_number(c, e, "length", SC_NONNEG, &jd.length) ||
            sc_read_bool(c, e, "collide", &jd.collide))
            return -1;
        jd.type = (cr_joint_type)type;
        if (!cJSON_GetObjectItemCaseSensitive(e, "anchor")) return sc_fail_missing(c, "anchor", "[x, y, z], world");
        if (jd.type == CR_JOINT_DISTANCE && !cJSON_GetObjectItemCaseSensitive(e, "anchor_b"))
            return sc_fail_missing(c, "anchor_b", "[x, y, z], world: b's end of the distance joint");
        if (jd.type != CR_JOINT_DISTANCE && cJSON_GetObjectItemCaseSensitive(e, "anchor_b"))
            return sc_fail_value(c, "anchor_b", cJSON_GetObjectItemCaseSensitive(e, "anchor_b"), "only for a distance joint");
        if (jd.type == CR_JOINT_HINGE && !cJSON_GetObjectItemCaseSensitive(e, "axis"))
            return sc_fail_missing(c, "axis", "[x, y, z], the hinge's axis");
        if (jd.type != CR_JOINT_HINGE && cJSON_GetObjectItemCaseSensitive(e, "axis"))
            return sc_fail_value(c, "axis", cJSON_GetObjectItemCaseSensitive(e, "axis"), "only for a hinge joint");
        if (jd.type != CR_JOINT_DISTANCE && cJSON_GetObjectItemCaseSensitive(e, "length"))
            return sc_fail_value(c, "length", cJSON_GetObjectItemCaseSensitive(e, "length"), "only for a distance joint");
        if (cr_world_add_joint(world, &jd, NULL) != CR_OK) {
            const char *msg = cr_world_last_error(world);
            static const char prefix[] = "joint def: ";
            if (strncmp(msg, prefix, sizeof prefix - 1) == 0) msg += sizeof prefix - 1;
            return sc_fail(c, "%s", msg);
        }
        sc_pop(c, m2);
    }
    sc_pop(c, mark);
    return 0;
}
