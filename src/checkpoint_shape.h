/* A body's shape in a checkpoint (version 4; src/checkpoint_shape.c,
 * docs/checkpoint-format.md): spheres and boxes by their sizes (made again
 * by their create functions, which are pure functions of them), convex
 * hulls and meshes whole (a hull's vertices, faces, edges and mass
 * properties; a mesh's convex hull so, then its vertices, triangles,
 * normals and tree: one made again from its centred vertices would be
 * centred again, off in the last bits). Internal, for src/checkpoint*.c. */
#ifndef CAROM_CHECKPOINT_SHAPE_H
#define CAROM_CHECKPOINT_SHAPE_H

#include "checkpoint_io.h"
#include "shape_internal.h"

void cr_ckpt_write_shape(writer *o, const cr_shape *s);
/* Shape k of the checkpoint, with one reference; NULL when r is bad (the
 * bytes end early) or, with a message naming the field, when a value is
 * out of range or memory runs out. */
cr_shape *cr_ckpt_read_shape(reader *r, uint32_t k, char *msg, size_t size);

#endif
