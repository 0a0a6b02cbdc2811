/* carom fuzzing — a deterministic sweep of the checkpoint target: every
 * 8-byte number of each input (from the version on, up to the checksum)
 * set in turn to each of a few values that cross checks, sealed with the
 * loader's own frame (src/checkpoint_seal.h), and run through the same
 * entry and contract as fuzz_checkpoint (fuzz/fuzz_checkpoint.c). Where
 * libFuzzer samples, this visits every field of the seeds once: on a
 * shared 2-core machine it reached what the fuzzer had not (docs/
 * reliability.md). Built with the fuzz targets (make fuzz), under
 * ASan+UBSan:
 *   build-fuzz/fuzz/sweep_checkpoint FILE...   (the seeds: fuzz/corpus/checkpoint)
 * prints each broken contract (file, byte, value, why) and per input its
 * runs; exits 1 when any broke. */
#include <string.h>

#include "checkpoint_seal.h"
#include "fuzz_checkpoint.c"

/* One input swept in place (restored after); the number of broken runs. */
static unsigned fz_sweep(const char *name, uint8_t *data, size_t size, unsigned *runs)
{
    unsigned broken = 0;
    for (size_t at = 8; size >= CR_CKPT_FRAME_SIZE && at + 16 <= size; at += 8) {
        if (at == 16) continue; /* the payload length: the seal writes it */
        const uint64_t was = cr_ckpt_le64(data + at);
        const double d = fz_real(was);
        const uint64_t values[] = {was + 1, was - 1, 0, 1, 2, 0xffffffffull, fz_bits(-0.0), fz_bits(-1.0),
                                   fz_bits(1e300), fz_bits(-d), fz_bits(2.0 * d),
                                   fz_bits(4.9406564584124654e-324), fz_bits(0.5)};
        for (size_t k = 0; k < sizeof values / sizeof values[0]; ++k) {
            if (values[k] == was) continue;
            cr_ckpt_set_le64(data + at, values[k]);
            cr_ckpt_seal(data, size);
            char why[512];
            ++*runs;
            if (carom_fuzz_checkpoint(data, size, why, sizeof why) == CAROM_FUZZ_BROKEN) {
                ++broken;
                printf("%s: byte %zu = %llu (%.17g): %s\n", name, at, (unsigned long long)values[k],
                       fz_real(values[k]), why);
                fflush(stdout);
            }
        }
        cr_ckpt_set_le64(data + at, was);
    }
    cr_ckpt_seal(data, size);
    return broken;
}

int main(int argc, char **argv)
{
    unsigned broken = 0;
    for (int a = 1; a < argc; ++a) {
        FILE *f = fopen(argv[a], "rb");
        if (!f) {
            fprintf(stderr, "sweep_checkpoint: cannot open %s\n", argv[a]);
            return 2;
        }
        size_t cap = 1 << 16, n = 0;
        uint8_t *data = malloc(cap);
        for (size_t got; data && (got = fread(data + n, 1, cap - n, f)) > 0;)
            if ((n += got) == cap) data = realloc(data, cap *= 2);
        fclose(f);
        if (!data) return 2;
        unsigned runs = 0, b = fz_sweep(argv[a], data, n, &runs);
        fprintf(stderr, "%s: %u runs, %u broke the contract\n", argv[a], runs, b);
        broken += b;
        free(data);
    }
    return broken ? 1 : 0;
}
