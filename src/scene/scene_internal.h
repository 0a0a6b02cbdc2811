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
/* A number or an array of 3 numbers (one value for all axes), each > 0. */
int sc_read_positive_vec3_or_number(sc_ctx *c, const cJSON *obj, const char *key, cr_vec3 *out);
int sc_read_integer(sc_ctx *c, const cJSON *obj, const char *key, double min, double max, double *out);
int sc_read_bool(sc_ctx *c, const cJSON *obj, const char *key, bool *out);
/* A string among names (NULL-terminated); *out is its index. */
int sc_read_enum(sc_ctx *c, const cJSON *obj, const char *key, const char *const *names, int *out);

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
/* Adds def as the next body; the path in c names it for messages. */
int sc_add_body(sc_ctx *c, sc_bodies *b, const cr_body_def *def);
/* Writes "bodies[3]" or "generate[0] body 12 (id 15)" for body id. */
void sc_body_name(const sc_bodies *b, uint32_t id, char *buf, size_t size);

/* Reads "generate" (an array) and adds its bodies. planes are the scene's
 * statics, which random_fill keeps clear of. */
int sc_generate(sc_ctx *c, const cJSON *arr, sc_bodies *b, const cr_plane_def *planes, uint32_t plane_count);

#endif
