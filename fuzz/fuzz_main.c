/* carom fuzzing — the libFuzzer entry of one target. CMake compiles this file
 * once per target with CAROM_FUZZ_ENTRY naming the target's entry point
 * (fuzz_targets.h); a broken contract aborts so that libFuzzer keeps the
 * input as a crasher. */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_targets.h"

#ifndef CAROM_FUZZ_ENTRY
#error "define CAROM_FUZZ_ENTRY as one of the entry points of fuzz_targets.h"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char why[1024];
    if (CAROM_FUZZ_ENTRY(data, size, why, sizeof why) == CAROM_FUZZ_BROKEN) {
        fprintf(stderr, "carom fuzz: contract broken: %s\n", why);
        abort();
    }
    return 0;
}
