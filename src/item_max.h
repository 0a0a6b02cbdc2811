/* The largest of one value per work item, the items over the world's
 * workers (src/item_max.c): each worker keeps the largest of the items it
 * ran, and the workers' are joined after. A maximum does not depend on the
 * order it is taken in (from 0, by '>': no NaN and no -0 wins), so the
 * result is the same for any worker count and any split. Used by the
 * finishes' deepest-overlap stats (finish.c's cr_max_penetration over the
 * broad pairs and the bodies against the planes, rigid_finish.c's over the
 * contacts). Internal. */
#ifndef CAROM_ITEM_MAX_H
#define CAROM_ITEM_MAX_H

#include "world_internal.h"

/* Item item's value (the largest of its things, from 0); called from any
 * worker, it may only read what the items share. */
typedef double cr_item_max_fn(const void *ctx, uint32_t item);

/* The largest of fn over items [0, items), 0 for none: over the workers
 * where the world has them and there is more than one item. */
double cr_max_over_items(cr_world *w, uint32_t items, cr_item_max_fn *fn, const void *ctx);

#endif
