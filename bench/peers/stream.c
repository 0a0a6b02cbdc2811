/* STREAM-like copy and triad bandwidth: see stream.h. Threads are POSIX
 * threads, each owning a contiguous slice it also first-touched. */
#define _POSIX_C_SOURCE 200809L
#include "stream.h"

#include <pthread.h>
#include <stdlib.h>
#include <time.h>

typedef struct slice {
    double *a, *b, *c;
    size_t lo, hi;
    int op; /* 0 init, 1 copy, 2 triad */
    pthread_barrier_t *start, *done;
    int passes;
    double *copy_t, *triad_t; /* per pass, written by thread 0 */
} slice;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void *worker(void *arg)
{
    slice *s = arg;
    double *a = s->a, *b = s->b, *c = s->c;
    const double scalar = 3.0;
    for (size_t i = s->lo; i < s->hi; ++i) a[i] = 1.0, b[i] = 2.0, c[i] = 0.5;
    for (int p = 0; p < s->passes; ++p) {
        double t0 = 0.0;
        pthread_barrier_wait(s->start);
        if (s->copy_t) t0 = now();
        for (size_t i = s->lo; i < s->hi; ++i) a[i] = b[i];
        pthread_barrier_wait(s->done);
        if (s->copy_t) s->copy_t[p] = now() - t0;
        pthread_barrier_wait(s->start);
        if (s->triad_t) t0 = now();
        for (size_t i = s->lo; i < s->hi; ++i) a[i] = b[i] + scalar * c[i];
        pthread_barrier_wait(s->done);
        if (s->triad_t) s->triad_t[p] = now() - t0;
    }
    return NULL;
}

int stream_measure(int threads, size_t elements, int passes, stream_result *out)
{
    if (threads < 1 || passes < 1 || elements < 1024) return 1;
    double *a = malloc(sizeof(double) * elements), *b = malloc(sizeof(double) * elements),
           *c = malloc(sizeof(double) * elements);
    double *ct = calloc((size_t)passes, sizeof(double)), *tt = calloc((size_t)passes, sizeof(double));
    slice *sl = calloc((size_t)threads, sizeof *sl);
    pthread_t *th = calloc((size_t)threads, sizeof *th);
    pthread_barrier_t start, done;
    int rc = 1;
    if (!a || !b || !c || !ct || !tt || !sl || !th) goto out;
    pthread_barrier_init(&start, NULL, (unsigned)threads);
    pthread_barrier_init(&done, NULL, (unsigned)threads);
    for (int t = 0; t < threads; ++t) {
        sl[t] = (slice){a, b, c, elements * (size_t)t / (size_t)threads, elements * (size_t)(t + 1) / (size_t)threads,
                        0, &start, &done, passes, t == 0 ? ct : NULL, t == 0 ? tt : NULL};
        if (t > 0 && pthread_create(&th[t], NULL, worker, &sl[t]) != 0) goto out_barrier; /* leaks threads: fatal anyway */
    }
    worker(&sl[0]);
    for (int t = 1; t < threads; ++t) pthread_join(th[t], NULL);
    double best_c = 1e300, best_t = 1e300;
    for (int p = 1; p < passes; ++p) { /* the first pass warms up, as in STREAM */
        if (ct[p] < best_c) best_c = ct[p];
        if (tt[p] < best_t) best_t = tt[p];
    }
    if (passes == 1) best_c = ct[0], best_t = tt[0];
    out->threads = threads;
    out->elements = elements;
    out->copy_gbs = 16.0 * (double)elements / best_c / 1e9;
    out->triad_gbs = 24.0 * (double)elements / best_t / 1e9;
    rc = 0;
out_barrier:
    pthread_barrier_destroy(&start);
    pthread_barrier_destroy(&done);
out:
    free(a), free(b), free(c), free(ct), free(tt), free(sl), free(th);
    return rc;
}
