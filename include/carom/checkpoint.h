/* carom — checkpoints: the complete state of a world, saved and restored so
 * that a run resumed from a checkpoint continues bit for bit as if it had
 * never stopped.
 *
 * Format (docs/checkpoint-format.md): "CAROMCKP", a version, the payload's
 * length, the payload (world settings, time, statics, surfaces, bodies, the
 * impulses carried between steps for warm starting, method dem's contact
 * history and last forces, the rigid pipeline's shapes, joints, contacts
 * and pair list, and the caller's own bytes), and a 64-bit FNV-1a
 * checksum of everything before it; numbers are little-endian whatever the
 * machine. A file is written to a temporary name and renamed into place, so
 * a reader never sees half of one; a file that is truncated, corrupt or of
 * an unknown version is refused whole. Versions 1 to 4 still load.
 *
 * What cannot be saved: callbacks (impact callback, allocator: the loader
 * takes them from a def), custom surfaces and coefficient maps (a world with
 * them is refused with a message naming the surface), bodies' user data.
 * Boxes, hulls, meshes, joints and sub-stepped worlds (rigid_substeps > 0)
 * are saved (version 4; version 5 adds each joint's collide flag).
 */
#ifndef CAROM_CHECKPOINT_H
#define CAROM_CHECKPOINT_H

#include "carom/world.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CR_CHECKPOINT_VERSION 8u /* 2: world settings add projection_passes and projection_shock;
                                  * 3: method dem (its settings, contact history, last forces);
                                  * 4: the rigid pipeline (its settings, shapes, joints, sleeping,
                                  *    the last step's contacts, pairs apart, the sphere path's pair
                                  *    list);
                                  * 5: each joint's collide flag (version 4's joints load with
                                  *    collide true: their bodies made contacts with each other);
                                  * 6: each rigid contact's rolling resistance impulse (the
                                  *    sub-stepped solver's warm start; zero before);
                                  * 7: method dem's contact model (hooke.model; CR_DEM_HOOKE
                                  *    before);
                                  * 8: method dem's rolling resistance (hooke.k_roll, gamma_roll,
                                  *    mu_roll; 0 before) and, with k_roll > 0, each contact's
                                  *    rolling history (zero before) */

/* Serializes the world (and app_size bytes of the caller's own, which come
 * back on load) into a buffer from malloc; the caller frees it. */
cr_status cr_world_save_buffer(const cr_world *world, const void *app, size_t app_size, unsigned char **data,
                               size_t *size, char *message, size_t message_size);
/* Writes the checkpoint to path through a temporary file and a rename. */
cr_status cr_world_save(const cr_world *world, const char *path, const void *app, size_t app_size, char *message,
                        size_t message_size);

/* Restores a world. Callbacks, the allocator and the threads (worker_count,
 * enqueue_task, finish_task, user_task_context: any of them gives the same
 * bits) come from callbacks_from (may be NULL: none, one worker). *app (may
 * be NULL) receives a malloc'd copy of the caller's bytes and *app_size
 * their length. Nothing is created on error. */
cr_status cr_world_load_buffer(const unsigned char *data, size_t size, const cr_world_def *callbacks_from,
                               cr_world **out, void **app, size_t *app_size, char *message, size_t message_size);
cr_status cr_world_load(const char *path, const cr_world_def *callbacks_from, cr_world **out, void **app,
                        size_t *app_size, char *message, size_t message_size);

/* FNV-1a, 64 bits, as the format uses it. */
uint64_t cr_fnv1a64(const void *data, size_t size);

/* The world's state hash: the check that two runs are the same run, bit for
 * bit. Use it to compare a run on 1 worker with one on N, a run resumed
 * from a checkpoint with the uninterrupted one, or two builds of a program.
 *
 * It covers the public state of every live body (cr_body_state: position,
 * velocity, angular velocity, orientation w, x, y, z), in slot order: per
 * body the FNV-1a (cr_fnv1a64) of those 13 doubles as little-endian
 * IEEE-754 bit patterns, and the hash h = (h ^ body) * 1099511628211 over
 * the bodies from h = 1469598103934665603 (the FNV-1a offset and prime). A
 * change of one ulp in any of them, a body more or less, or bodies in other
 * slots change it (with the odds of a 64-bit hash); -0.0 and +0.0 differ.
 * It does not read time, materials, planes, surfaces, a ball's rolling or
 * sliding state, or what is carried between steps for warm starts and
 * contact history: inputs of the steps to come, where two runs that differ
 * part in the bodies' state later (compare cr_world_time too when it
 * matters). tests/golden/hashes.txt records it for the shipped scenes.
 *
 * Reads the bodies through cr_body_get_state, so with method dem it is a
 * first read after a step (do not call it on one DEM world from two threads
 * at once). */
uint64_t cr_world_state_hash(const cr_world *world);

#ifdef __cplusplus
}
#endif
#endif
