/* Version 4's (and 5's) parts of a checkpoint for the rigid-body pipeline
 * (src/checkpoint_rigid.c, docs/checkpoint-format.md): its world settings,
 * and its bodies and state between steps (the fallback counts, the
 * bodies' shapes, tensors and sleeping state, the joints, and
 * src/rigid_state.h's carry). Internal, for src/checkpoint.c. */
#ifndef CAROM_CHECKPOINT_RIGID_H
#define CAROM_CHECKPOINT_RIGID_H

#include "checkpoint_io.h"
#include "rigid_state.h"

/* The rigid pipeline's settings (written for every world; the defaults
 * where unused). The values are checked with the rest of the def. */
void cr_ckpt_write_rigid_settings(writer *o, const cr_world_def *d);
void cr_ckpt_read_rigid_settings(reader *r, cr_world_def *d);

/* The state: into w (the counts, the shapes, tensors and sleeping state
 * of its bodies, which are in place, the joints) and c (arrays from malloc: cr_ckpt_rigid_carry_free),
 * which cr_rigid_carry_set then restores. False with a message naming the
 * field when a value is out of range; a truncation shows as r->bad, with
 * no message. version: the file's (4 has no joints' collide flag: they
 * load with collide true). */
void cr_ckpt_write_rigid(writer *o, const cr_world *w);
bool cr_ckpt_read_rigid(reader *r, cr_world *w, uint64_t version, cr_rigid_carry *c, char *msg, size_t size);
void cr_ckpt_rigid_carry_free(cr_rigid_carry *c);

#endif
