/* A checkpoint's frame (docs/checkpoint-format.md): a 24-byte header
 * ("CAROMCKP", the version, the payload's length) and, after the payload,
 * the FNV-1a 64 of everything before it, both little-endian. The saver
 * seals what it wrote with cr_ckpt_seal and the loader checks exactly what
 * it writes; the fuzzer's mutator (fuzz/fuzz_checkpoint_mutator.c) seals
 * its mutations with it too, so that they reach the content checks.
 * Internal. */
#ifndef CAROM_CHECKPOINT_SEAL_H
#define CAROM_CHECKPOINT_SEAL_H

#include <stddef.h>
#include <stdint.h>

#include "carom/checkpoint.h"

#define CR_CKPT_HEADER_SIZE 24 /* magic, version, payload length */
#define CR_CKPT_FRAME_SIZE (CR_CKPT_HEADER_SIZE + 8) /* and the checksum */

static inline uint64_t cr_ckpt_le64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static inline void cr_ckpt_set_le64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; ++i) p[i] = (unsigned char)(v >> (8 * i));
}

/* The payload length a frame of n bytes holds in its header, and its
 * checksum: what a sealed checkpoint of n >= CR_CKPT_FRAME_SIZE bytes
 * holds at bytes 16 and n - 8. */
static inline uint64_t cr_ckpt_payload_length(size_t n) { return (uint64_t)(n - CR_CKPT_FRAME_SIZE); }
static inline uint64_t cr_ckpt_checksum(const unsigned char *p, size_t n) { return cr_fnv1a64(p, n - 8); }

/* Writes both into p[n] (n >= CR_CKPT_FRAME_SIZE): the header's payload
 * length and the last 8 bytes' checksum. */
static inline void cr_ckpt_seal(unsigned char *p, size_t n)
{
    cr_ckpt_set_le64(p + 16, cr_ckpt_payload_length(n));
    cr_ckpt_set_le64(p + n - 8, cr_ckpt_checksum(p, n));
}

#endif
