/* The surfaces of a checkpoint (src/checkpoint_surface.c,
 * docs/checkpoint-format.md): each surface's def as the world keeps it,
 * bumps for hills only, control points for B-splines only. Internal, for
 * src/checkpoint.c. */
#ifndef CAROM_CHECKPOINT_SURFACE_H
#define CAROM_CHECKPOINT_SURFACE_H

#include "carom/world.h"
#include "checkpoint_io.h"

/* Every surface of w; CR_ERR_INVALID_ARGUMENT with a message naming the
 * surface when one has a callback (a custom map, a coefficient map). */
cr_status cr_ckpt_write_surfaces(writer *o, const cr_world *w, char *msg, size_t size);
/* The surfaces into w, added as cr_world_add_surface adds one; an error
 * with a message naming the surface when one is refused, truncated, or
 * does not read back as the def the world keeps. */
cr_status cr_ckpt_read_surfaces(reader *r, cr_world *w, char *msg, size_t size);

#endif
