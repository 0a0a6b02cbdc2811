/* CR_METHOD_DEM internals shared by src/dem*.c. */
#ifndef CAROM_DEM_INTERNAL_H
#define CAROM_DEM_INTERNAL_H

#include "world_internal.h"

/* carom's own thread pool (src/dem_pool.c), used when cr_world_def asks for
 * worker_count > 1 without its own enqueue_task: worker_count - 1 threads
 * plus the caller. NULL when threads are not available (built with
 * CAROM_NO_THREADS or without <pthread.h>) or cannot be started: the caller
 * then runs the items itself. */
typedef struct cr_dem_pool cr_dem_pool;
cr_dem_pool *cr_dem_pool_create(cr_world *w, uint32_t workers);
/* Runs fn over items [0, items), one item per call, spread over the
 * workers; returns when all are done. */
void cr_dem_pool_run(cr_dem_pool *p, cr_task_fn *fn, uint32_t items, void *ctx);
void cr_dem_pool_destroy(cr_world *w, cr_dem_pool *p);
/* Runs fn over items [0, items) the way the world definition asks: through
 * its enqueue_task / finish_task, else on *pool (started on first use with
 * worker_count - 1 threads), else on the caller's thread. Used by the DEM
 * and by the rigid-body narrow phase; their items write disjoint data, so
 * results never depend on which of these runs them. */
void cr_run_items(cr_world *w, cr_dem_pool **pool, cr_task_fn *fn, uint32_t items, void *ctx);

#endif
