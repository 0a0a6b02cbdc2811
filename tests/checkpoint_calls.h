/* The save and load calls the checkpoint tests share: a call that fails
 * fails the test with the library's message. */
#ifndef CAROM_TEST_CHECKPOINT_CALLS_H
#define CAROM_TEST_CHECKPOINT_CALLS_H

#include <string.h>

#include "checkpoint_bytes.h"
#include "test_helpers.h"
#include "carom/checkpoint.h"

static inline unsigned char *ckpt_save(const cr_world *w, size_t *size)
{
    unsigned char *data;
    char msg[256];
    if (cr_world_save_buffer(w, NULL, 0, &data, size, msg, sizeof msg) != CR_OK) fail_msg("%s", msg);
    return data;
}

/* The buffer restored on workers threads. */
static inline cr_world *ckpt_load(const unsigned char *data, size_t size, uint32_t workers)
{
    cr_world_def threads = cr_default_world_def();
    threads.worker_count = workers;
    cr_world *r;
    char msg[256];
    if (cr_world_load_buffer(data, size, &threads, &r, NULL, NULL, msg, sizeof msg) != CR_OK) fail_msg("%s", msg);
    return r;
}

/* A restored world r run on to step `to` (from the step it was saved
 * at): its state hash. r is destroyed. */
static inline uint64_t ckpt_hash_at(cr_world *r, long to)
{
    step_n(r, to - (long)cr_world_step_count(r));
    uint64_t h = cr_world_state_hash(r);
    cr_world_destroy(r);
    return h;
}

/* The buffer is refused as invalid, no world made, with why in the message. */
static inline void ckpt_refused(const unsigned char *data, size_t size, const char *why)
{
    cr_world *r = NULL;
    char msg[256] = "";
    assert_int_equal(cr_world_load_buffer(data, size, NULL, &r, NULL, NULL, msg, sizeof msg), CR_ERR_INVALID_ARGUMENT);
    assert_null(r);
    if (!strstr(msg, why)) fail_msg("message '%s', want '%s' in it", msg, why);
}

/* Every cut of the buffer and every byte flipped (a sample of each): refused. */
static inline void ckpt_refuse_damage(unsigned char *data, size_t size)
{
    for (size_t cut = 0; cut < size; cut += size / 97 + 1) ckpt_refused(data, cut, "checkpoint: ");
    for (size_t k = 0; k < size; k += size / 61 + 1) {
        data[k] ^= 0x5a;
        ckpt_refused(data, size, "checkpoint: ");
        data[k] ^= 0x5a;
    }
}

/* An out-of-range value at byte at: the number value, or the double d
 * where real; why is what the refusal must say. */
typedef struct ckpt_edit { size_t at; uint64_t value; bool real; double d; const char *why; } ckpt_edit;

/* Each edit alone, the checksum made right so that the content checks are
 * what refuse it, is refused naming why; the bytes are restored after. */
static inline void ckpt_refuse_edits(unsigned char *data, size_t size, const ckpt_edit *e, size_t n)
{
    for (size_t k = 0; k < n; ++k) {
        unsigned char was[8];
        memcpy(was, data + e[k].at, 8);
        if (e[k].real)
            ckpt_put_f64(data + e[k].at, e[k].d);
        else
            ckpt_put_u64(data + e[k].at, e[k].value);
        ckpt_fix_checksum(data, size);
        ckpt_refused(data, size, e[k].why);
        memcpy(data + e[k].at, was, 8);
        ckpt_fix_checksum(data, size);
    }
}

/* A saved field and its loaded copy are the same to the bit (one value, or
 * n elements). */
#define SAME(x, y) (memcmp(&(x), &(y), sizeof(x)) == 0)
#define SAME_N(p, q, n) ((n) == 0 || memcmp((p), (q), sizeof *(p) * (n)) == 0)

#endif
