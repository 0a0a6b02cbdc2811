/* carom scenes — a world and its run settings loaded from JSON.
 *
 * Outside the core library on purpose: the core needs only libc and libm
 * (DESIGN: people embed physics engines), scene files need a JSON parser.
 * docs/scene-format.md is the reference for every key.
 *
 * Every failure writes one line to err that starts with the scene's name and
 * the JSON path of the culprit and ends with its value, e.g.
 *   scene.json: bodies[3].radius: must be > 0, got -0.1
 * so that a person can find the mistake without reading the loader.
 */
#ifndef CAROM_SCENE_H
#define CAROM_SCENE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "carom/carom.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sc_owned;

/* Upper bound on bodies in one scene, so that a typo in a generator count
 * is an error message rather than an exhausted machine. */
#define CR_SCENE_MAX_BODIES 10000000u
/* Upper bound on steps (duration / dt), for the same reason. */
#define CR_SCENE_MAX_STEPS 1000000000000.0

typedef struct cr_scene {
    cr_world *world;        /* owned; bodies in scene order: slot i = id i */
    double duration;        /* simulated time, s (default 1) */
    double output_every;    /* sampling interval, s (default max(0.01, dt)) */
    uint64_t steps;         /* round(duration / dt) */
    uint64_t output_stride; /* steps between samples: round(output_every / dt) >= 1 */
    bool allow_overlap;     /* bodies may start overlapping (default false) */
    uint32_t body_count;    /* explicit "bodies" then generated ones */
    uint32_t static_count;  /* planes and surfaces */
    cr_static_id *statics;  /* statics[i] of the file: its plane's or surface's id in the world */
    struct sc_owned *owned; /* internal: data the world points to (friction maps) */
} cr_scene;

/* The load functions return 0 on success and fill *out; on failure they
 * return -1, leave *out zeroed (cr_scene_free on it is harmless) and write
 * the message to err (truncated to err_size, always NUL-terminated). */
int cr_scene_load_file(const char *path, cr_scene *out, char *err, size_t err_size);
/* name prefixes messages (NULL: "scene"). */
int cr_scene_load_string(const char *json, const char *name, cr_scene *out, char *err, size_t err_size);
/* The scene embedded in the binary (scenes/default.json). */
int cr_scene_load_default(cr_scene *out, char *err, size_t err_size);
void cr_scene_free(cr_scene *s);

/* A JSON key as it goes into an error message's path: its control
 * characters (a JSON escape such as "\n", or a raw one, which cJSON lets
 * through) as \u00XX, so that the message stays on one line. Writes at most
 * size - 1 characters and a NUL (whole escapes only) into out; returns how
 * many. */
size_t cr_scene_escape_key(char *out, size_t size, const char *key);

/* Sampling: step k (0 <= k <= steps) is written when k % output_stride == 0,
 * so t = 0 is always a sample. */
uint64_t cr_scene_sample_count(const cr_scene *s);

#ifdef __cplusplus
}
#endif
#endif
