/* carom viewer — what the mouse points at: rays against the snapshot's
 * balls and planes, where to put a spawned ball, where a dragged ball goes.
 * Pure geometry on the display's snapshot; the simulation thread is told
 * the result as a command. */
#ifndef CAROM_VIEWER_PICKING_H
#define CAROM_VIEWER_PICKING_H

#include <stdbool.h>
#include <stdint.h>

#include "snapshot.h"

typedef struct pick_hit {
    bool hit;
    double t;          /* distance along the ray */
    cr_vec3 point, normal;
    int64_t body;      /* index into the snapshot's bodies, or -1 */
    int64_t plane;     /* index into the snapshot's planes, or -1 (both -1: a surface) */
} pick_hit;

/* The nearest ball, plane or surface along the ray (origin o, unit
 * direction d). Planes count only from their free side and where they are
 * drawn (on the free side of every other plane); surfaces through their
 * drawn triangles, from the free side. A surface hit has body and plane -1. */
pick_hit pick_ray(const view_snapshot *s, cr_vec3 o, cr_vec3 d);

/* Where a new ball of radius r goes for a click: resting on what was hit
 * (its centre r off the surface along the normal), else at distance
 * fallback_t along the ray; then lifted along +z (or the hit normal) until
 * it overlaps no ball and no plane. */
cr_vec3 pick_spawn_position(const view_snapshot *s, const pick_hit *h, cr_vec3 o, cr_vec3 d, double r,
                            double fallback_t);

/* The point where the ray meets the plane through p with normal n (the
 * drag plane: through the grabbed point, facing the camera); false when
 * the ray is parallel to it or points away. */
bool pick_ray_plane(cr_vec3 o, cr_vec3 d, cr_vec3 p, cr_vec3 n, cr_vec3 *out);

#endif
