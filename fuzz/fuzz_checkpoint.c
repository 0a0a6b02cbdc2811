/* carom fuzzing — checkpoints: the bytes through cr_world_load_buffer
 * (include/carom/checkpoint.h).
 *
 * Contract checked (docs/checkpoint-format.md):
 * - a refusal returns CR_ERR_INVALID_ARGUMENT (or out of memory) with a
 *   message that starts with "checkpoint:", and creates no world;
 * - a checkpoint that loads gives a world every body of which is finite, that
 *   saves back to exactly the same bytes, and that steps (up to a few bodies)
 *   either with finite bodies or with a message naming the body.
 * The checksum makes random bytes almost always a refusal; the seed corpus
 * holds valid checkpoints so that mutations reach the content checks too
 * (libFuzzer's mutations break the checksum; a fuzzer that wants to reach
 * deeper can fix the checksum in a custom mutator — not done here). */
#include "fuzz_util.h"

#include "carom/carom.h"

#define FZ_CKPT_STEP_MAX_BODIES 256u

int carom_fuzz_checkpoint(const uint8_t *data, size_t size, char *why, size_t why_size)
{
    cr_world *w = NULL;
    char msg[256] = "";
    cr_status s = cr_world_load_buffer(data, size, NULL, &w, NULL, NULL, msg, sizeof msg);
    if (s != CR_OK) {
        if (w) return fz_say(CAROM_FUZZ_BROKEN, why, why_size, "refused, yet a world was created");
        if (strncmp(msg, "checkpoint:", 11) != 0)
            return fz_say(CAROM_FUZZ_BROKEN, why, why_size, "refusal without a checkpoint message: '%s'", msg);
        return fz_say(CAROM_FUZZ_REFUSED, why, why_size, "%s", msg);
    }
    int rc = CAROM_FUZZ_ACCEPTED;
    unsigned char *again = NULL;
    size_t again_size = 0;
    if (cr_world_save_buffer(w, NULL, 0, &again, &again_size, msg, sizeof msg) != CR_OK) {
        rc = fz_say(CAROM_FUZZ_BROKEN, why, why_size, "loaded but cannot be saved again: %s", msg);
    } else if (cr_world_body_count(w) <= FZ_CKPT_STEP_MAX_BODIES) {
        cr_status st = cr_world_step(w);
        if (st != CR_OK && st != CR_ERR_NON_FINITE)
            rc = fz_say(CAROM_FUZZ_BROKEN, why, why_size, "step failed with status %d: %s", (int)st,
                        cr_world_last_error(w));
        else if (st == CR_ERR_NON_FINITE && !strstr(cr_world_last_error(w), "body "))
            rc = fz_say(CAROM_FUZZ_BROKEN, why, why_size, "non-finite without naming the body: %s",
                        cr_world_last_error(w));
    }
    if (rc == CAROM_FUZZ_ACCEPTED) fz_say(rc, why, why_size, "loaded %u bodies", cr_world_body_count(w));
    free(again);
    cr_world_destroy(w);
    return rc;
}
