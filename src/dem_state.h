/* What a CR_METHOD_DEM world carries from one step into the next besides
 * its bodies' state (src/dem_state.c), read and restored for checkpoints
 * (src/checkpoint.c, docs/checkpoint-format.md) through this one
 * interface, so that the checkpoint knows nothing of the DEM's arrays. */
#ifndef CAROM_DEM_STATE_H
#define CAROM_DEM_STATE_H

#include "world_internal.h"

typedef enum cr_dem_carry_mode {
    CR_DEM_CARRY_NONE = 0,    /* no DEM state yet (never stepped): the next step sets up from the bodies */
    CR_DEM_CARRY_HISTORY = 1, /* the next step sets up (a body was added, removed or set since the
                                 last): only the contact history carries over */
    CR_DEM_CARRY_FORCES = 2   /* the next step starts from the last one's list and forces */
} cr_dem_carry_mode;

typedef struct cr_dem_carry {
    cr_dem_carry_mode mode;
    /* the last step's touching pairs by world slots, a and b, with their
     * shear history s (for d = x_a - x_b), in list order */
    uint32_t contacts;
    uint32_t *a, *b;
    cr_vec3 *shear;
    cr_vec3 *roll; /* their rolling history xi_r with cr_hooke.k_roll > 0, else NULL (read as zero) */
    /* CR_DEM_CARRY_FORCES: by world slot (slots entries, the live ones
     * read): the body's centre at the last list build, and the force and
     * torque of the last step (gravity included) that the next step's
     * first half kick uses */
    uint32_t slots;
    cr_vec3 *x_build, *f, *t;
} cr_dem_carry;

/* The world's carry, its arrays from malloc (cr_dem_carry_free); false
 * when out of memory. */
bool cr_dem_carry_get(const cr_world *w, cr_dem_carry *c);
void cr_dem_carry_free(cr_dem_carry *c);
/* Restores a carry into a DEM world whose bodies (slots, state, materials)
 * are those it was read with, before its first step. c's slots must be
 * live bodies of w (the checkpoint's reader checks). */
cr_status cr_dem_carry_set(cr_world *w, const cr_dem_carry *c);
/* After cr_dem_carry_set: CR_OK when w carries c again (cr_dem_carry_get:
 * the same mode and the same touching pairs, shear histories and order,
 * and with mode 2 the same build centres, forces and torques),
 * else CR_ERR_INVALID_ARGUMENT with w's error naming the first pair that
 * differs (a pair the list does not hold, twice, or out of list order:
 * the world would save back other bytes). */
cr_status cr_dem_carry_kept(cr_world *w, const cr_dem_carry *c);

#endif
