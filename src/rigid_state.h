/* What a world on the rigid-body pipeline (rigid.h: boxes, hulls, meshes,
 * joints, or rigid_substeps > 0) carries from one step into the next
 * besides its bodies' state (src/rigid_state.c), read and restored for
 * checkpoints (src/checkpoint_rigid.c, docs/checkpoint-format.md) through
 * this one interface, as src/dem_state.h does for method dem. */
#ifndef CAROM_RIGID_STATE_H
#define CAROM_RIGID_STATE_H

#include "rigid.h"

typedef struct cr_rigid_carry {
    /* the last step's contacts, in the order they were made: what the API
     * reports until the next step, and the first warm of them the next
     * step's warm start (impulses, carried manifolds) */
    uint32_t contacts, warm;
    cr_rigid_contact *c;
    /* the pairs of hulls found or kept apart (collide_apart.c), sorted by
     * pair: the next narrow phase skips them while they cannot have met */
    uint32_t apart;
    cr_rigid_apart *a;
    /* the sphere path's pair list with a skin (sphere_pairs.h): the slots
     * it covers (0: none), the lists built so far, the grid's size hint
     * and each covered slot's grown box (lo, hi) */
    uint32_t list_slots;
    uint64_t list_builds;
    double list_hint;
    cr_vec3 *lo, *hi;
} cr_rigid_carry;

/* The world's carry, as views into the world (nothing to free; valid until
 * the world changes). */
void cr_rigid_carry_get(const cr_world *w, cr_rigid_carry *c);
/* Restores a carry (the checkpoint's reader has checked its slots against
 * the world's bodies and planes) into a world whose bodies are in place,
 * before its first step. */
cr_status cr_rigid_carry_set(cr_world *w, const cr_rigid_carry *c);

#endif
