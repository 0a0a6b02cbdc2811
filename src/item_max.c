/* The maximum over work items, joined after (src/item_max.h). */
#include "item_max.h"

#include "soft_sections.h" /* cr_soft_run */

/* worker < worker_count <= 64 (cr_world_def_validate) */
#define CR_ITEM_MAX_WORKERS 64

typedef struct max_run {
    cr_item_max_fn *fn;
    const void *ctx;
    double worst[CR_ITEM_MAX_WORKERS]; /* each worker's largest so far */
} max_run;

static void max_items(uint32_t start, uint32_t end, uint32_t worker, void *ctx)
{
    max_run *m = ctx;
    double worst = m->worst[worker];
    for (uint32_t item = start; item < end; ++item) {
        double d = m->fn(m->ctx, item);
        if (d > worst) worst = d;
    }
    m->worst[worker] = worst;
}

double cr_max_over_items(cr_world *w, uint32_t items, cr_item_max_fn *fn, const void *ctx)
{
    max_run m = {fn, ctx, {0.0}};
    cr_soft_run(w, max_items, items, &m);
    double worst = 0.0;
    for (uint32_t k = 0; k < CR_ITEM_MAX_WORKERS; ++k)
        if (m.worst[k] > worst) worst = m.worst[k];
    return worst;
}
