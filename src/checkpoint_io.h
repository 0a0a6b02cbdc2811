/* The checkpoint's numbers (docs/checkpoint-format.md): every one 8 bytes,
 * little-endian whatever the machine, integers as unsigned 64-bit, reals
 * as their IEEE-754 bit pattern (finite). A writer that grows its buffer,
 * a reader that marks itself bad at the first number that is missing or
 * out of range and reads zeros after. Internal, for src/checkpoint*.c. */
#ifndef CAROM_CHECKPOINT_IO_H
#define CAROM_CHECKPOINT_IO_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "carom/math.h"

/* ---- writing ------------------------------------------------------------ */

typedef struct writer { unsigned char *p; size_t n, cap; bool oom; } writer;

static inline void put_bytes(writer *w, const void *src, size_t n)
{
    if (w->oom) return;
    if (w->n + n > w->cap) {
        size_t cap = w->cap ? w->cap : 4096;
        while (cap < w->n + n) cap *= 2;
        unsigned char *np = realloc(w->p, cap);
        if (!np) {
            w->oom = true;
            return;
        }
        w->p = np;
        w->cap = cap;
    }
    memcpy(w->p + w->n, src, n);
    w->n += n;
}

static inline void put_u64(writer *w, uint64_t v)
{
    unsigned char b[8];
    for (int i = 0; i < 8; ++i) b[i] = (unsigned char)(v >> (8 * i)); /* little-endian */
    put_bytes(w, b, 8);
}
static inline void put_u32(writer *w, uint32_t v) { put_u64(w, v); }
static inline void put_f64(writer *w, double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    put_u64(w, u);
}
static inline void put_vec(writer *w, cr_vec3 v)
{
    put_f64(w, v.x);
    put_f64(w, v.y);
    put_f64(w, v.z);
}
static inline void put_quat(writer *w, cr_quat q)
{
    put_f64(w, q.w);
    put_f64(w, q.x);
    put_f64(w, q.y);
    put_f64(w, q.z);
}
static inline void put_mat(writer *w, const cr_mat3 *m)
{
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) put_f64(w, m->m[i][j]);
}

/* ---- reading ------------------------------------------------------------ */

typedef struct reader { const unsigned char *p; size_t n, off; bool bad; } reader;

static inline uint64_t get_u64(reader *r)
{
    if (r->bad || r->n - r->off < 8) {
        r->bad = true;
        return 0;
    }
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= (uint64_t)r->p[r->off + i] << (8 * i);
    r->off += 8;
    return v;
}
static inline uint32_t get_u32(reader *r)
{
    uint64_t v = get_u64(r);
    if (v > UINT32_MAX) r->bad = true;
    return (uint32_t)v;
}
static inline double get_f64(reader *r)
{
    uint64_t u = get_u64(r);
    double d;
    memcpy(&d, &u, sizeof d);
    if (!isfinite(d)) r->bad = true; /* every number in a checkpoint is finite */
    return d;
}
static inline cr_vec3 get_vec(reader *r)
{
    double x = get_f64(r), y = get_f64(r);
    return cr_v3(x, y, get_f64(r));
}
static inline cr_quat get_quat(reader *r)
{
    cr_quat q;
    q.w = get_f64(r);
    q.x = get_f64(r);
    q.y = get_f64(r);
    q.z = get_f64(r);
    return q;
}
static inline void get_mat(reader *r, cr_mat3 *m)
{
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) m->m[i][j] = get_f64(r);
}
/* A count of records of at least min_size bytes each must fit what is left. */
static inline uint32_t get_count(reader *r, size_t min_size)
{
    uint32_t c = get_u32(r);
    if (!r->bad && (size_t)c > (r->n - r->off) / min_size) r->bad = true;
    return r->bad ? 0 : c;
}

#endif
