/* carom — checkpoints: the complete state of a world, saved and restored so
 * that a run resumed from a checkpoint continues bit for bit as if it had
 * never stopped.
 *
 * Format (docs/checkpoint-format.md): "CAROMCKP", a version, the payload's
 * length, the payload (world settings, time, statics, surfaces, bodies, the
 * impulses carried between steps for warm starting, and the caller's own
 * bytes), and a 64-bit FNV-1a checksum of everything before it; numbers are
 * little-endian whatever the machine. A file is written to a temporary name
 * and renamed into place, so a reader never sees half of one; a file that is
 * truncated, corrupt or of another version is refused whole.
 *
 * What cannot be saved: callbacks (impact callback, allocator: the loader
 * takes them from a def), custom surfaces and coefficient maps (a world with
 * them is refused with a message naming the surface), bodies' user data.
 */
#ifndef CAROM_CHECKPOINT_H
#define CAROM_CHECKPOINT_H

#include "carom/world.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CR_CHECKPOINT_VERSION 2u /* 2: world settings add projection_passes and projection_shock */

/* Serializes the world (and app_size bytes of the caller's own, which come
 * back on load) into a buffer from malloc; the caller frees it. */
cr_status cr_world_save_buffer(const cr_world *world, const void *app, size_t app_size, unsigned char **data,
                               size_t *size, char *message, size_t message_size);
/* Writes the checkpoint to path through a temporary file and a rename. */
cr_status cr_world_save(const cr_world *world, const char *path, const void *app, size_t app_size, char *message,
                        size_t message_size);

/* Restores a world. Callbacks and the allocator come from callbacks_from
 * (may be NULL: none). *app (may be NULL) receives a malloc'd copy of the
 * caller's bytes and *app_size their length. Nothing is created on error. */
cr_status cr_world_load_buffer(const unsigned char *data, size_t size, const cr_world_def *callbacks_from,
                               cr_world **out, void **app, size_t *app_size, char *message, size_t message_size);
cr_status cr_world_load(const char *path, const cr_world_def *callbacks_from, cr_world **out, void **app,
                        size_t *app_size, char *message, size_t message_size);

/* FNV-1a, 64 bits, as the format uses it. */
uint64_t cr_fnv1a64(const void *data, size_t size);

#ifdef __cplusplus
}
#endif
#endif
