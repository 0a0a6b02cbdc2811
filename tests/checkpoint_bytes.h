/* Checkpoint bytes for the tests that edit them (docs/checkpoint-format.md):
 * numbers are 8 bytes little-endian, the last 8 the FNV-1a of the rest. */
#ifndef CAROM_TEST_CHECKPOINT_BYTES_H
#define CAROM_TEST_CHECKPOINT_BYTES_H

#include <stdint.h>
#include <string.h>

#include "carom/checkpoint.h"

static inline void ckpt_put_u64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; ++i) p[i] = (unsigned char)(v >> (8 * i));
}

static inline void ckpt_put_f64(unsigned char *p, double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    ckpt_put_u64(p, u);
}

static inline uint64_t ckpt_get_u64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* The checksum made right again after an edit (the content checks are
 * then what refuses the file). */
static inline void ckpt_fix_checksum(unsigned char *data, size_t size)
{
    ckpt_put_u64(data + size - 8, cr_fnv1a64(data, size - 8));
}

#endif
