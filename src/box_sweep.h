/* Every overlapping pair among a set of boxes, each once: the boxes cut
 * into strips along y, each strip swept along x. Internal (the event
 * groups' check of grown boxes, event_groups.c). */
#ifndef CAROM_BOX_SWEEP_H
#define CAROM_BOX_SWEEP_H

#include <stdbool.h>
#include <stdint.h>

#include "carom/carom.h"
#include "radix_sort.h"

struct cr_world;

typedef struct cr_box_sweep_box {
    cr_vec3 lo, hi;       /* the box, copied */
    uint32_t id;          /* its id */
    uint32_t first, last; /* the strips it reaches */
} cr_box_sweep_box;

typedef struct cr_box_sweep_key {
    double x, end;  /* the box's lower and upper x */
    uint32_t box;   /* the box, in cr_box_sweep.box */
    uint32_t first; /* its first strip */
} cr_box_sweep_key;

/* Scratch kept between calls (zeroed at first; cr_box_sweep_free). */
typedef struct cr_box_sweep {
    cr_box_sweep_box *box;           /* the boxes, in ids[] order */
    uint32_t box_capacity;
    cr_radix_item *order, *order_tmp; /* the swept boxes by lower x */
    uint32_t order_capacity, order_tmp_capacity;
    cr_box_sweep_key *key;           /* the (strip, box) entries, by strip, each strip by x */
    uint32_t key_capacity;
    uint32_t *start, start_capacity; /* each strip's first key */
    uint32_t *tall, tall_capacity;   /* boxes over too many strips: against all */
} cr_box_sweep;

typedef void cr_box_pair_fn(uint32_t a, uint32_t b, void *ctx);

/* Calls pair(a, b, ctx) once for every two of the n boxes ids[] whose boxes
 * (lo at box[2 id], hi at box[2 id + 1]; corners finite) overlap, closed
 * as cr_box_overlap. The order of the calls is not specified. False: out
 * of memory (some pairs may have been reported). */
bool cr_box_sweep_pairs(struct cr_world *w, cr_box_sweep *s, const cr_vec3 *box, const uint32_t *ids, uint32_t n,
                        cr_box_pair_fn *pair, void *ctx);
void cr_box_sweep_free(struct cr_world *w, cr_box_sweep *s);

#endif
