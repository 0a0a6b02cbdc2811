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
        cJSON_AddItemToArray(bodies, b);
    }
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
