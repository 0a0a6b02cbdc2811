/* carom fuzzing — checkpoints: the bytes through cr_world_load_buffer
 * (include/carom/checkpoint.h).
 *
 * Contract checked (docs/checkpoint-format.md):
 * - a refusal returns CR_ERR_INVALID_ARGUMENT (or out of memory) with a
 *   message that starts with "checkpoint:", and creates no world;
 * - a checkpoint that loads gives a world every body of which is finite, that
 *   saves back (a version 7 checkpoint to exactly the same bytes, the
 *   caller's bytes passed back; older versions save as version 7), and that
 *   steps (up to a few bodies) either with finite bodies, or with
 *   CR_ERR_NON_FINITE and a message that the world stopped (finish.c's
 *   names the body, the rigid solve's its multipliers), or refused as the
 *   same world built through the API would be (" takes no ": the
 *   sub-stepped solver with joints).
 * fuzz_checkpoint_mutator.c seals the fuzzer's mutations with the loader's
 * checksum, so that they reach the content checks; the seed corpus
 * (fuzz/seed_corpus.py) holds valid checkpoints of every kind of world. */
#include "fuzz_util.h"

#include "carom/carom.h"

#define FZ_CKPT_STEP_MAX_BODIES 256u

int carom_fuzz_checkpoint(const uint8_t *data, size_t size, char *why, size_t why_size)
{
    cr_world *w = NULL;
    char msg[256] = "";
    void *app = NULL;
    size_t app_size = 0;
    cr_status s = cr_world_load_buffer(data, size, NULL, &w, &app, &app_size, msg, sizeof msg);
    if (s != CR_OK) {
        if (w) return fz_say(CAROM_FUZZ_BROKEN, why, why_size, "refused, yet a world was created");
        if (strncmp(msg, "checkpoint:", 11) != 0)
            return fz_say(CAROM_FUZZ_BROKEN, why, why_size, "refusal without a checkpoint message: '%s'", msg);
        return fz_say(CAROM_FUZZ_REFUSED, why, why_size, "%s", msg);
    }
    int rc = CAROM_FUZZ_ACCEPTED;
    unsigned char *again = NULL;
    size_t again_size = 0;
    if (cr_world_save_buffer(w, app, app_size, &again, &again_size, msg, sizeof msg) != CR_OK) {
        rc = fz_say(CAROM_FUZZ_BROKEN, why, why_size, "loaded but cannot be saved again: %s", msg);
    } else if (data[8] == CR_CHECKPOINT_VERSION && (again_size != size || memcmp(again, data, size) != 0)) {
        size_t at = 0;
        while (at < size && at < again_size && again[at] == data[at]) ++at;
        rc = fz_say(CAROM_FUZZ_BROKEN, why, why_size, "saves back differently: %zu bytes against %zu, first at byte %zu",
                    again_size, size, at);
    } else if (cr_world_body_count(w) <= FZ_CKPT_STEP_MAX_BODIES) {
        cr_status st = cr_world_step(w);
        /* a world the API can build but its step refuses (the sub-stepped
         * solver with joints): refused the same after a load, and said so */
        bool refused = st == CR_ERR_INVALID_ARGUMENT && strstr(cr_world_last_error(w), " takes no ");
        if (st != CR_OK && st != CR_ERR_NON_FINITE && !refused)
            rc = fz_say(CAROM_FUZZ_BROKEN, why, why_size, "step failed with status %d: %s", (int)st,
                        cr_world_last_error(w));
        else if (st == CR_ERR_NON_FINITE && !strstr(cr_world_last_error(w), "the world stopped"))
            rc = fz_say(CAROM_FUZZ_BROKEN, why, why_size, "non-finite without saying the world stopped: '%s'",
                        cr_world_last_error(w));
    }
    if (rc == CAROM_FUZZ_ACCEPTED) fz_say(rc, why, why_size, "loaded %u bodies", cr_world_body_count(w));
    free(again);
    free(app);
    cr_world_destroy(w);
    return rc;
}
