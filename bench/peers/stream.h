/* A STREAM-like memory bandwidth measurement (after McCalpin's STREAM):
 * copy a[i] = b[i] and triad a[i] = b[i] + s c[i] over arrays far larger
 * than the caches, best of several passes, counted as STREAM counts them
 * (copy 16 bytes per element, triad 24; write-allocate traffic not counted). */
#ifndef CAROM_PEERS_STREAM_H
#define CAROM_PEERS_STREAM_H

#include <stddef.h>

typedef struct stream_result {
    int threads;
    size_t elements;     /* per array */
    double copy_gbs, triad_gbs;
} stream_result;

/* Returns 0 on success. */
int stream_measure(int threads, size_t elements, int passes, stream_result *out);

#endif
