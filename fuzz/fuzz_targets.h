/* carom fuzzing — the entry points shared by the libFuzzer targets
 * (fuzz_main.c, built with -DCAROM_FUZZ=ON and clang) and by the regression
 * test (tests/test_fuzz_regressions.c, built by every compiler).
 *
 * Each entry point takes one input and checks the contract of the code it
 * drives, not only that it does not crash:
 *   CAROM_FUZZ_ACCEPTED  the input was taken and the result obeys the
 *                        documented invariants (finite numbers, ...);
 *   CAROM_FUZZ_REFUSED   the input was refused with a clear message (copied
 *                        to why), as documented;
 *   CAROM_FUZZ_SKIPPED   the input asks for more work than a fuzz iteration
 *                        may take (e.g. a generator of 10^7 bodies), so it
 *                        was not run; the limits are in the entry's file;
 *   CAROM_FUZZ_BROKEN    a contract was broken: why says which. The fuzz
 *                        targets abort() on it, so libFuzzer keeps the input.
 * docs/reliability.md describes the targets, their corpora and how to add one.
 */
#ifndef CAROM_FUZZ_TARGETS_H
#define CAROM_FUZZ_TARGETS_H

#include <stddef.h>
#include <stdint.h>

enum {
    CAROM_FUZZ_BROKEN = -1,
    CAROM_FUZZ_ACCEPTED = 0,
    CAROM_FUZZ_REFUSED = 1,
    CAROM_FUZZ_SKIPPED = 2
};

/* The signature of every entry point. why receives a message (at least a
 * NUL) in every case; why_size must be > 0. */
typedef int carom_fuzz_entry(const uint8_t *data, size_t size, char *why, size_t why_size);

/* fuzz_scene.c: the bytes as scene JSON through cr_scene_load_string. */
carom_fuzz_entry carom_fuzz_scene;
/* fuzz_scene.c: the same, then a few steps of the loaded world. */
carom_fuzz_entry carom_fuzz_scene_step;
/* fuzz_shape.c: the bytes as an OBJ file, or ('H' first) a hull's points. */
carom_fuzz_entry carom_fuzz_shape;
/* fuzz_collide.c: the bytes as `carom collide` input (the CLI's own parser). */
carom_fuzz_entry carom_fuzz_collide;
/* fuzz_checkpoint.c: the bytes as a checkpoint through cr_world_load_buffer. */
carom_fuzz_entry carom_fuzz_checkpoint;
/* fuzz_stronge.c: the bytes decoded (no JSON) into a call of
 * cr_law_stronge_contact_ex, cr_law_stronge_ex, cr_law_stronge_2d or
 * cr_law_stronge_2d_body. */
carom_fuzz_entry carom_fuzz_stronge;

#endif
