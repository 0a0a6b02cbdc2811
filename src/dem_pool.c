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

/* A section's items are claimed one at a time from one word: the section's
 * number in the high half, the next item in the low half (CLOSED while the
 * caller sets a section up). A worker reads the section (fn, ctx, items)
 * after loading the word and claims an item by a compare-and-swap from that
 * word: the swap fails unless the word is unchanged, so a claimed item is
 * always run with its own section's fn and ctx (they are rewritten only
 * after the word was closed, which a swap from an open word would see).
 * The caller waits for the section's items to be done, not for every
 * worker: a worker that was not scheduled (the machine busy with other
 * work) costs nothing but its share of the items. */
#define CLOSED UINT32_MAX

struct cr_dem_pool {
    pthread_t thread[CR_DEM_MAX_WORKERS];
    uint32_t threads; /* started, besides the caller */
    uint32_t section; /* the caller's count of sections */
    pthread_mutex_t mutex;
    pthread_cond_t wake;
    _Atomic uint64_t claim; /* section << 32 | next item (or CLOSED) */
    atomic_uint done;       /* items of the section done */
    atomic_uint sleepers;   /* workers waiting on wake */
    atomic_bool quit;
    _Atomic(cr_task_fn *) fn;
    _Atomic(void *) ctx;
    atomic_uint items;
};

typedef struct worker_arg {
    cr_dem_pool *p;
    uint32_t index;
} worker_arg;

/* Runs items of the open section while there are any to claim; returns the
 * claim word it found nothing in. */
static uint64_t work(cr_dem_pool *p, uint32_t worker)
{
    for (;;) {
        uint64_t c = atomic_load(&p->claim);
        uint32_t it = (uint32_t)c;
        cr_task_fn *fn = atomic_load_explicit(&p->fn, memory_order_relaxed);
        void *ctx = atomic_load_explicit(&p->ctx, memory_order_relaxed);
        uint32_t items = atomic_load_explicit(&p->items, memory_order_relaxed);
        if (it == CLOSED || it >= items) {
            /* nothing to claim, unless the section changed under the reads */
            if (atomic_load(&p->claim) == c) return c;
            continue;
        }
        if (!atomic_compare_exchange_weak(&p->claim, &c, c + 1)) continue;
        fn(it, it + 1, worker, ctx);
        atomic_fetch_add_explicit(&p->done, 1u, memory_order_release);
    }
}

static void *worker_main(void *arg)
{
    cr_dem_pool *p = ((worker_arg *)arg)->p;
    uint32_t index = ((worker_arg *)arg)->index;
    uint64_t seen = UINT64_MAX;
    for (;;) {
        /* spin a little: the parallel sections come close together */
        for (int k = 0; k < 20000 && atomic_load(&p->claim) == seen && !atomic_load(&p->quit); ++k) {
        }
        if (atomic_load(&p->claim) == seen && !atomic_load(&p->quit)) {
            pthread_mutex_lock(&p->mutex);
            atomic_fetch_add(&p->sleepers, 1u);
            while (atomic_load(&p->claim) == seen && !atomic_load(&p->quit)) pthread_cond_wait(&p->wake, &p->mutex);
            atomic_fetch_sub(&p->sleepers, 1u);
            pthread_mutex_unlock(&p->mutex);
        }
        if (atomic_load(&p->quit)) return NULL;
        seen = work(p, index);
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
    atomic_init(&p->claim, (uint64_t)CLOSED);
    atomic_init(&p->done, 0u);
    atomic_init(&p->sleepers, 0u);
    atomic_init(&p->quit, false);
    atomic_init(&p->fn, NULL);
    atomic_init(&p->ctx, NULL);
    atomic_init(&p->items, 0u);
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
    uint64_t section = (uint64_t)++p->section << 32;
    /* close the word first: no claim from the last section's word can
     * succeed while fn, ctx and items change */
    atomic_store(&p->claim, section | CLOSED);
    atomic_store_explicit(&p->fn, fn, memory_order_relaxed);
    atomic_store_explicit(&p->ctx, ctx, memory_order_relaxed);
    atomic_store_explicit(&p->items, items, memory_order_relaxed);
    atomic_store_explicit(&p->done, 0u, memory_order_relaxed);
    atomic_store(&p->claim, section); /* open: item 0 next */
    /* sleepers read after the open (both sequentially consistent): a worker
     * going to sleep either sees the open word or is counted here */
    if (atomic_load(&p->sleepers) > 0) {
        pthread_mutex_lock(&p->mutex);
        pthread_cond_broadcast(&p->wake);
        pthread_mutex_unlock(&p->mutex);
    }
    work(p, 0);
    for (unsigned k = 0; atomic_load_explicit(&p->done, memory_order_acquire) < items; ++k)
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

bool cr_runs_on_caller(const cr_world *w, uint32_t items)
{
    const cr_world_def *def = &w->def;
    return items <= 1 || (!(def->enqueue_task && def->finish_task) && def->worker_count <= 1);
}

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
