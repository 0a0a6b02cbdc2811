/* A small persistent thread pool for CR_METHOD_DEM (src/dem_internal.h).
 * Optional: define CAROM_NO_THREADS (or build where <pthread.h> is absent)
 * and cr_dem_pool_create returns NULL, so that the DEM runs on the caller's
 * thread. Results never depend on it: the DEM's work items write disjoint
 * data and are reduced in a fixed order. */
#define _POSIX_C_SOURCE 200809L

#include "dem_internal.h"

#if !defined(CAROM_NO_THREADS) && defined(__has_include)
#if __has_include(<pthread.h>) && !defined(__STDC_NO_ATOMICS__)
#define CR_DEM_THREADS 1
#endif
#endif

#ifdef CR_DEM_THREADS
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>

#define CR_DEM_MAX_WORKERS 64

struct cr_dem_pool {
    pthread_t thread[CR_DEM_MAX_WORKERS];
    uint32_t threads; /* started, besides the caller */
    pthread_mutex_t mutex;
    pthread_cond_t wake;
    atomic_uint generation, next, done;
    atomic_bool quit;
    cr_task_fn *fn;
    void *ctx;
    uint32_t items;
};

typedef struct worker_arg {
    cr_dem_pool *p;
    uint32_t index;
} worker_arg;

static void work(cr_dem_pool *p, uint32_t worker)
{
    uint32_t it;
    while ((it = atomic_fetch_add(&p->next, 1u)) < p->items) p->fn(it, it + 1, worker, p->ctx);
}

static void *worker_main(void *arg)
{
    cr_dem_pool *p = ((worker_arg *)arg)->p;
    uint32_t index = ((worker_arg *)arg)->index;
    unsigned seen = 0;
    for (;;) {
        /* spin a little: the DEM's parallel sections come close together */
        for (int k = 0; k < 20000 && atomic_load(&p->generation) == seen && !atomic_load(&p->quit); ++k) {
        }
        if (atomic_load(&p->generation) == seen && !atomic_load(&p->quit)) {
            pthread_mutex_lock(&p->mutex);
            while (atomic_load(&p->generation) == seen && !atomic_load(&p->quit)) pthread_cond_wait(&p->wake, &p->mutex);
            pthread_mutex_unlock(&p->mutex);
        }
        if (atomic_load(&p->quit)) return NULL;
        seen = atomic_load(&p->generation);
        work(p, index);
        atomic_fetch_add(&p->done, 1u);
    }
}


cr_dem_pool *cr_dem_pool_create(cr_world *w, uint32_t workers)
{
    if (workers < 2) return NULL;
    if (workers > CR_DEM_MAX_WORKERS) workers = CR_DEM_MAX_WORKERS;
    size_t size = sizeof(cr_dem_pool) + sizeof(worker_arg) * workers;
    cr_dem_pool *p = cr_alloc(w, size);
    if (!p) return NULL;
    memset(p, 0, size);
    worker_arg *wa = (worker_arg *)(p + 1);
    atomic_init(&p->generation, 0u);
    atomic_init(&p->next, 0u);
    atomic_init(&p->done, 0u);
    atomic_init(&p->quit, false);
    if (pthread_mutex_init(&p->mutex, NULL) != 0) {
        cr_free(w, p);
        return NULL;
    }
    if (pthread_cond_init(&p->wake, NULL) != 0) {
        pthread_mutex_destroy(&p->mutex);
        cr_free(w, p);
        return NULL;
    }
    for (uint32_t k = 0; k + 1 < workers; ++k) {
        wa[k].p = p, wa[k].index = k + 1;
        if (pthread_create(&p->thread[k], NULL, worker_main, &wa[k]) != 0) break;
        p->threads++;
    }
    if (p->threads == 0) {
        cr_dem_pool_destroy(w, p);
        return NULL;
    }
    return p;
}

void cr_dem_pool_run(cr_dem_pool *p, cr_task_fn *fn, uint32_t items, void *ctx)
{
    p->fn = fn, p->ctx = ctx, p->items = items;
    atomic_store(&p->next, 0u);
    atomic_store(&p->done, 0u);
    pthread_mutex_lock(&p->mutex);
    atomic_fetch_add(&p->generation, 1u);
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mutex);
    work(p, 0);
    for (unsigned k = 0; atomic_load(&p->done) < p->threads; ++k)
        if (k > 1000) sched_yield();
}

void cr_dem_pool_destroy(cr_world *w, cr_dem_pool *p)
{
    if (!p) return;
    pthread_mutex_lock(&p->mutex);
    atomic_store(&p->quit, true);
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mutex);
    for (uint32_t k = 0; k < p->threads; ++k) pthread_join(p->thread[k], NULL);
    pthread_cond_destroy(&p->wake);
    pthread_mutex_destroy(&p->mutex);
    cr_free(w, p);
}

#else

cr_dem_pool *cr_dem_pool_create(cr_world *w, uint32_t workers)
{
    (void)w, (void)workers;
    return NULL;
}

void cr_dem_pool_run(cr_dem_pool *p, cr_task_fn *fn, uint32_t items, void *ctx)
{
    (void)p;
    fn(0, items, 0, ctx);
}

void cr_dem_pool_destroy(cr_world *w, cr_dem_pool *p) { (void)w, (void)p; }

#endif

void cr_run_items(cr_world *w, cr_task_fn *fn, uint32_t items, void *ctx)
{
    if (items == 0) return;
    const cr_world_def *def = &w->def;
    if (def->enqueue_task && def->finish_task && items > 1) {
        void *task = def->enqueue_task(fn, items, 1, ctx, def->user_task_context);
        if (task) def->finish_task(task, def->user_task_context);
        return;
    }
    if (def->worker_count > 1 && items > 1) {
        if (!w->pool) w->pool = cr_dem_pool_create(w, def->worker_count);
        if (w->pool) {
            cr_dem_pool_run(w->pool, fn, items, ctx);
            return;
        }
    }
    fn(0, items, 0, ctx);
}
