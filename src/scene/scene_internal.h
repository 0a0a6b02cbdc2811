/* carom scenes — internals shared by the loader's files (not installed).
 *
 * sc_ctx carries the JSON path of the value being read, so that every
 * reader can say where a bad value sits without its callers passing names
 * around: push a segment before descending, pop it after.
 */
#ifndef CAROM_SCENE_INTERNAL_H
#define CAROM_SCENE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "carom/carom.h"

typedef struct sc_ctx {
    const char *name;   /* the scene's file name, first in every message */
    bool scene_dir;     /* name is the scene file's path: mesh files are relative to its folder */
    char *err;
    size_t err_size;
    char path[512];     /* e.g. "generate[0].body.radius" */
    size_t path_len;
} sc_ctx;

/* ---- path -------------------------------------------------------------- */
size_t sc_push_key(sc_ctx *c, const char *key);
size_t sc_push_index(sc_ctx *c, size_t index);
void sc_pop(sc_ctx *c, size_t mark);

/* ---- errors: all return -1 so that callers can `return sc_fail(...)` --- */
/* "name: path: <message>" */
int sc_fail(sc_ctx *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* "name: path.key: <message>, got <value as JSON>" */
int sc_fail_value(sc_ctx *c, const char *key, const cJSON *value, const char *what);
/* "name: path.key: missing (<expected>)" for a required key. */
int sc_fail_missing(sc_ctx *c, const char *key, const char *expected);
/* A message from a cr_*_def_validate function, which starts with the C
 * field's name (also the JSON key): "radius: must be > 0" under the path
 * "bodies[3]" becomes "bodies[3].radius: must be > 0". */
int sc_fail_core(sc_ctx *c, const char *message);
/* "name: path.key: <message>, got <v>" */
int sc_fail_number(sc_ctx *c, const char *key, double v, const char *what);

/* Writes v in the shortest form that reads back exactly ("0.1", not
 * "0.10000000000000001"); "inf", "-inf", "nan" for the rest. */
void sc_format_number(double v, char *buf, size_t size);
/* A JSON value as text for messages, shortened to about size characters. */
void sc_format_value(const cJSON *v, char *buf, size_t size);

/* ---- typed readers ------------------------------------------------------
 * Each reads obj[key]; an absent key leaves *out as it was and returns 0
 * (so defaults come from the cr_default_*_def() values); a present key of
 * the wrong type or range is an error naming path.key and the value. */
typedef enum sc_range {
    SC_ANY = 0,   /* any finite number */
    SC_POSITIVE,  /* > 0 */
    SC_NONNEG,    /* >= 0 */
    SC_UNIT       /* in [0, 1] */
} sc_range;

/* Fails on keys of obj not in the NULL-terminated list, and on duplicates. */
int sc_check_keys(sc_ctx *c, const cJSON *obj, const char *const *allowed);
/* Fails unless v is an object; what names the expected thing. */
int sc_expect_object(sc_ctx *c, const cJSON *v, const char *key);
int sc_read_number(sc_ctx *c, const cJSON *obj, const char *key, sc_range range, double *out);
int sc_read_vec3(sc_ctx *c, const cJSON *obj, const char *key, cr_vec3 *out);
/* An array of exactly n numbers, each in range; an element out of range is
 * named by its index ("min[1]: must be a finite number, got inf"). */
int sc_read_numbers(sc_ctx *c, const cJSON *obj, const char *key, int n, sc_range range, double *out);
/* The same for a value v that the path in c already names (array elements). */
int sc_read_numbers_at(sc_ctx *c, const cJSON *v, int n, sc_range range, double *out);
/* A number or an array of 3 numbers (one value for all axes), each > 0. */
int sc_read_positive_vec3_or_number(sc_ctx *c, const cJSON *obj, const char *key, cr_vec3 *out);
int sc_read_integer(sc_ctx *c, const cJSON *obj, const char *key, double min, double max, double *out);
int sc_read_bool(sc_ctx *c, const cJSON *obj, const char *key, bool *out);
/* A string among names (NULL-terminated); *out is its index. */
int sc_read_enum(sc_ctx *c, const cJSON *obj, const char *key, const char *const *names, int *out);

/* ---- statics (scene.c, scene_surface.c) ---------------------------------- */

/* One entry of "statics": a plane, or a surface with the arrays its def
 * points to (owned here until the world has copied them) and a surface of
 * its own for the generators to evaluate before the world has one. */
typedef struct sc_static {
    bool is_surface;
    cr_plane_def plane;
    cr_surface_def surface;
    cr_hill *hills;        /* surface.hills */
    cr_vec3 *control;      /* surface.control_points */
    cr_surface *eval;      /* made by cr_surface_create from surface */
    uint32_t world_index;  /* index among the world's planes or surfaces */
} sc_static;

/* Data the world keeps pointers to (a friction map's grid behind
 * cr_surface_def.coefficients_ctx): it lives as long as the scene. */
typedef struct sc_owned {
    void **items;
    uint32_t count, capacity;
} sc_owned;

/* Takes p into o (freed by sc_owned_free); on failure frees p and returns -1. */
int sc_owned_add(sc_owned *o, void *p);
void sc_owned_free(sc_owned *o);

/* Reads statics[i] with "shape": "surface" into st (is_surface set, the
 * def validated, eval made); friction maps go to owned. */
int sc_read_surface(sc_ctx *c, const cJSON *obj, sc_static *st, sc_owned *owned);
/* Frees what sc_read_surface allocated in st (not the owned maps). */
void sc_static_release(sc_static *st);

/* ---- bodies and generators (scene.c, scene_generate.c) ------------------ */

/* Where each body came from, for messages about it after it was added. */
typedef struct sc_bodies {
    cr_world *world;
    uint32_t count;
    uint32_t explicit_count;   /* bodies[0 .. explicit_count) */
    uint32_t capacity;
    cr_vec3 *position;         /* kept here for the generators' overlap tests */
    double *radius;
    uint32_t *generator;       /* for generated bodies: index in "generate" */
    uint32_t *generator_first; /* first body id of each generator */
    uint32_t generator_count;
} sc_bodies;

/* Reads a body object (bodies[i] or a generator's template) into def, which
 * holds the defaults on entry. template_mode forbids "position". */
int sc_read_body(sc_ctx *c, const cJSON *obj, bool template_mode, cr_body_def *def);
/* A body's shape keys ("half_extents", "points", "file"), "density" and
 * "orientation" (scene_rigid.c); makes def->shape_ref for a polyhedron,
 * which the caller releases after adding the body. */
int sc_read_body_shape(sc_ctx *c, const cJSON *obj, int shape, bool template_mode, cr_body_def *def);
/* The "joints" array, after the bodies (scene_rigid.c). */
int sc_read_joints(sc_ctx *c, const cJSON *root, cr_world *world, uint32_t bodies);
/* Adds def as the next body; the path in c names it for messages. */
int sc_add_body(sc_ctx *c, sc_bodies *b, const cr_body_def *def);
/* Writes "bodies[3]" or "generate[0] body 12 (id 15)" for body id. */
void sc_body_name(const sc_bodies *b, uint32_t id, char *buf, size_t size);

/* Reads "generate" (an array) and adds its bodies. statics are the scene's
 * statics: random_fill keeps clear of its planes, on_surface places balls on
 * its surfaces and keeps them clear of every static. */
int sc_generate(sc_ctx *c, const cJSON *arr, sc_bodies *b, const sc_static *statics, uint32_t static_count);

/* The signed penetration of a sphere (centre p, radius r) into a static:
 * > 0 when it is inside a plane's solid side or behind a surface. */
double sc_static_penetration(const sc_static *st, cr_vec3 p, double r);

#endif
