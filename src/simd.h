/* Where the core's AVX2 paths can be built, and the run-time question
 * (src/lcp_pgs.c's sweep, the DEM's kernels through src/dem_avx2.h).
 * Every AVX2 path does the same IEEE operations in the same order as its
 * plain loop (no fused multiply-add: -ffp-contract=off, and the target is
 * AVX2 without FMA), so both give the same bits. Internal. */
#ifndef CAROM_SIMD_H
#define CAROM_SIMD_H

#include <stdbool.h>

/* AVX2 functions where the compiler can build them for a target of their
 * own and ask the processor at run time (GCC, Clang on x86-64). */
#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
#define CR_AVX2 1
#define CR_AVX2_FN __attribute__((target("avx2")))
#include <immintrin.h>
#else
#define CR_AVX2 0
#endif

/* Whether to take the AVX2 paths: built for them, the processor has them,
 * and the caller did not ask for the plain loops (portable: the tests). */
static inline bool cr_use_avx2(bool portable)
{
#if CR_AVX2
    return !portable && __builtin_cpu_supports("avx2");
#else
    (void)portable;
    return false;
#endif
}

#endif
