/* carom fuzzing — the checkpoint target's custom mutator
 * (LLVMFuzzerCustomMutator), linked into fuzz_checkpoint only: the
 * regression test replays inputs and has no LLVMFuzzerMutate.
 *
 * libFuzzer's own mutations of a checkpoint almost always break its frame
 * (the payload length in the header, the checksum at the end), so the
 * loader refused them before it read any content. Each mutation here is
 * sealed again with the loader's own cr_ckpt_seal (src/checkpoint_seal.h),
 * but for 1 in 16 left as it is so that the frame's checks stay fuzzed.
 * Half the mutations are libFuzzer's (bytes, insertions, erasures,
 * cross-overs); the other half change one to three of the format's 8-byte
 * numbers (8-aligned from the version on; only the caller's bytes at the end
 * break the alignment) to a value chosen to cross a check: small integers,
 * the number's neighbours (counts and indices off by one), 2^32 - 1 and
 * 2^32, reals at the edges (0, -0, +-1, tiny, huge, subnormal, NaN,
 * infinity), the number's own value halved, doubled or negated, or another
 * number of the input. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "checkpoint_seal.h"
#include "fuzz_util.h"

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

static uint64_t fz_ckpt_next(uint64_t *s) /* splitmix64 */
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A new value for the number v. */
static uint64_t fz_ckpt_value(uint64_t v, const uint8_t *data, size_t words, uint64_t *rng)
{
    static const double edges[] = {0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 1e-300, -1e-300, 1e300, -1e300, DBL_MAX,
                                   -DBL_MAX, DBL_MIN, 4.9406564584124654e-324, 1e-9, 1e9, NAN, INFINITY, -INFINITY};
    uint64_t r = fz_ckpt_next(rng);
    switch (r % 10) {
    case 0: return v + 1;
    case 1: return v - 1;
    case 2: return (r >> 8) % 8;
    case 3: return (r >> 8) & 1 ? 0xffffffffull : 0x100000000ull;
    case 4: return fz_bits(edges[(r >> 8) % (sizeof edges / sizeof edges[0])]);
    case 5: return fz_bits(fz_real(v) * 0.5);
    case 6: return fz_bits(fz_real(v) * 2.0);
    case 7: return v ^ 0x8000000000000000ull; /* the sign of a real */
    case 8: return v ^ (1ull << ((r >> 8) % 52)); /* one bit of a real's mantissa, or of a count */
    default: return cr_ckpt_le64(data + 8 + 8 * ((r >> 8) % words));
    }
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
    uint64_t rng = seed;
    uint64_t r = fz_ckpt_next(&rng);
    size_t words = size >= CR_CKPT_FRAME_SIZE ? (size - 16) / 8 : 0; /* from the version to the checksum */
    if ((r & 1) || words == 0) {
        size = LLVMFuzzerMutate(data, size, max_size);
    } else {
        for (uint64_t n = 1 + (r >> 1) % 3; n-- > 0;) {
            uint8_t *p = data + 8 + 8 * (fz_ckpt_next(&rng) % words);
            cr_ckpt_set_le64(p, fz_ckpt_value(cr_ckpt_le64(p), data, words, &rng));
        }
    }
    if (size >= CR_CKPT_FRAME_SIZE && (r >> 8) % 16 != 0) cr_ckpt_seal(data, size);
    return size;
}
