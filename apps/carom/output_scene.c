/* carom CLI — scene.json of a run (see output_scene.h). */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "draw_list.h"
#include "output_formats.h"
#include "output_scene.h"

/* Fine enough for a smooth picture, small enough for a web page. */
#define SURFACE_CELLS 64

static cJSON *vec3(cr_vec3 v)
{
    double a[3] = {v.x, v.y, v.z};
    return cJSON_CreateDoubleArray(a, 3);
}

static const char *inertia_name(cr_inertia_kind k)
{
    switch (k) {
    case CR_INERTIA_PARTICLE: return "particle";
    case CR_INERTIA_SOLID: return "solid";
    case CR_INERTIA_HOLLOW: return "hollow";
    case CR_INERTIA_CUSTOM: return "custom";
    }
    return "custom";
}

static const char *surface_kind(cr_surface_type t)
{
    switch (t) {
    case CR_SURFACE_PLANE: return "plane";
    case CR_SURFACE_HILLS: return "hills";
    case CR_SURFACE_BOWL: return "bowl";
    case CR_SURFACE_BSPLINE: return "bspline";
    case CR_SURFACE_CUSTOM: return "custom";
    }
    return "custom";
}

/* Rounded to single precision's digits: a picture, not the physics. */
static cJSON *float_array(const float *base, size_t count, size_t stride_floats, int width)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; a && i < count; ++i)
        for (int k = 0; k < width; ++k) {
            char buf[32];
            snprintf(buf, sizeof buf, "%.7g", base[i * stride_floats + (size_t)k]);
            cJSON_AddItemToArray(a, cJSON_CreateRaw(buf));
        }
    return a;
}

static cJSON *surface_json(const cr_surface *s)
{
    draw_list dl;
    draw_list_init(&dl);
    if (draw_list_add_surface(&dl, s, SURFACE_CELLS, DRAW_SHADE_HEIGHT)) {
        draw_list_free(&dl);
        return NULL;
    }
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "shape", "surface");
    cJSON_AddStringToObject(o, "kind", surface_kind(cr_surface_get_def(s)->type));
    cJSON *mesh = cJSON_AddObjectToObject(o, "mesh");
    size_t stride = sizeof(draw_vertex) / sizeof(float);
    const float *v = (const float *)dl.vertices;
    cJSON_AddItemToObject(mesh, "positions", float_array(v + offsetof(draw_vertex, position) / sizeof(float), dl.vertex_count, stride, 3));
    cJSON_AddItemToObject(mesh, "normals", float_array(v + offsetof(draw_vertex, normal) / sizeof(float), dl.vertex_count, stride, 3));
    cJSON_AddItemToObject(mesh, "colors", float_array(v + offsetof(draw_vertex, color) / sizeof(float), dl.vertex_count, stride, 3));
    cJSON *idx = cJSON_AddArrayToObject(mesh, "indices");
    for (size_t i = 0; i < dl.index_count; ++i) cJSON_AddItemToArray(idx, cJSON_CreateNumber(dl.indices[i]));
    draw_list_free(&dl);
    return o;
}

static const char *shape_name(cr_shape_type t)
{
    switch (t) {
    case CR_SHAPE_SPHERE: return "sphere";
    case CR_SHAPE_BOX: return "box";
    case CR_SHAPE_HULL: return "hull";
    case CR_SHAPE_MESH: return "mesh";
    }
    return "sphere";
}

/* A hull's or mesh's triangles in the body frame (cr_shape_triangles): 9
 * numbers per triangle, counter-clockwise from outside. */
static cJSON *shape_json(const cr_shape *shape)
{
    uint32_t n = cr_shape_triangles(shape, NULL, 0);
    cr_vec3 *t = malloc(3 * (size_t)(n ? n : 1) * sizeof *t);
    float *f = malloc(9 * (size_t)(n ? n : 1) * sizeof *f);
    cJSON *o = t && f ? cJSON_CreateObject() : NULL;
    if (o) {
        cr_shape_triangles(shape, t, n);
        for (size_t i = 0; i < 3 * (size_t)n; ++i) {
            f[3 * i] = (float)t[i].x;
            f[3 * i + 1] = (float)t[i].y;
            f[3 * i + 2] = (float)t[i].z;
        }
        cJSON_AddStringToObject(o, "shape", shape_name(cr_shape_get_type(shape)));
        cJSON_AddItemToObject(o, "triangles", float_array(f, 9 * (size_t)n, 1, 1));
    }
    free(t);
    free(f);
    return o;
}

static cJSON *scene_json(const cr_world *w)
{
    const cr_world_def *wd = cr_world_get_def(w);
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "format", "carom-run-scene");
    cJSON_AddNumberToObject(root, "version", 1);
    cJSON_AddNumberToObject(root, "dt", wd->dt);
    cJSON_AddItemToObject(root, "gravity", vec3(wd->gravity));
    cJSON *statics = cJSON_AddArrayToObject(root, "statics");
    for (uint32_t i = 0; i < cr_world_plane_count(w); ++i) {
        cr_plane_def pd;
        cr_static_id id = {.index = i, .generation = 1}; /* planes are never removed */
        if (cr_plane_get_def(w, id, &pd) != CR_OK) continue;
        cJSON *p = cJSON_CreateObject();
        cJSON_AddStringToObject(p, "shape", "plane");
        cJSON_AddItemToObject(p, "point", vec3(pd.point));
        cJSON_AddItemToObject(p, "normal", vec3(pd.normal));
        cJSON_AddItemToArray(statics, p);
    }
    for (uint32_t i = 0; i < cr_world_surface_count(w); ++i) {
        const cr_surface *s = cr_world_surface(w, i);
        cJSON *o = s ? surface_json(s) : NULL;
        if (o) cJSON_AddItemToArray(statics, o);
    }
    cJSON *bodies = cJSON_AddArrayToObject(root, "bodies");
    cJSON *shapes = cJSON_AddArrayToObject(root, "shapes");
    const cr_shape **seen = NULL; /* the hull and mesh shapes written, in order */
    uint32_t seen_count = 0;
    uint32_t cap = cr_world_body_capacity(w);
    for (uint32_t slot = 0; slot < cap; ++slot) {
        cr_body_id id = cr_world_body_at(w, slot);
        cr_body_def d;
        if (id.generation == 0 || cr_body_get_def(w, id, &d) != CR_OK) continue;
        cJSON *b = cJSON_CreateObject();
        cJSON_AddNumberToObject(b, "id", slot);
        cJSON_AddNumberToObject(b, "radius", d.radius);
        cJSON_AddNumberToObject(b, "mass", d.mass);
        cJSON_AddStringToObject(b, "inertia", inertia_name(d.inertia_kind));
        cJSON_AddStringToObject(b, "type", d.type == CR_BODY_KINEMATIC ? "kinematic" : "dynamic");
        cJSON_AddStringToObject(b, "shape", shape_name(d.shape));
        if (d.shape_ref && d.shape == CR_SHAPE_BOX) {
            cJSON_AddItemToObject(b, "half_extents", vec3(cr_shape_half_extents(d.shape_ref)));
        } else if (d.shape_ref && (d.shape == CR_SHAPE_HULL || d.shape == CR_SHAPE_MESH)) {
            uint32_t k = 0;
            while (k < seen_count && seen[k] != d.shape_ref) ++k;
            if (k == seen_count) {
                const cr_shape **grown = realloc(seen, (seen_count + 1) * sizeof *seen);
                cJSON *t = grown ? shape_json(d.shape_ref) : NULL;
                if (grown) seen = grown;
                if (t == NULL) {
                    free(seen);
                    cJSON_Delete(root);
                    return NULL;
                }
                seen[seen_count++] = d.shape_ref;
                cJSON_AddItemToArray(shapes, t);
            }
            cJSON_AddNumberToObject(b, "shape_index", k);
        }
        cJSON_AddItemToArray(bodies, b);
    }
    free(seen);
    return root;
}

int output_scene_write(const char *dir, const cr_world *world, char **tmp_path, char *err, size_t err_size)
{
    cJSON *root = scene_json(world);
    char *text = root ? cJSON_PrintUnformatted(root) : NULL;
    cJSON_Delete(root);
    if (text == NULL) {
        snprintf(err, err_size, "out of memory writing scene.json");
        return -1;
    }
    errno = 0;
    FILE *f = output_temp_file(dir, "scene.json", tmp_path);
    bool bad = f == NULL;
    if (f) {
        fputs(text, f);
        fputc('\n', f);
        if (ferror(f)) bad = true;
        if (fclose(f) != 0) bad = true;
    }
    free(text);
    if (bad) {
        snprintf(err, err_size, "cannot write scene.json in '%s': %s", dir, strerror(errno ? errno : EIO));
        if (f) {
            unlink(*tmp_path);
            free(*tmp_path);
            *tmp_path = NULL;
        }
        return -1;
    }
    return 0;
}
