/* Command-line and environment numbers for the bench programs: a value that
 * is not a whole number in range is refused with its name and text (atoi
 * took "-h" as a ball pit of 0 balls and "2x" as 2). */
#ifndef CAROM_BENCH_ARGS_H
#define CAROM_BENCH_ARGS_H

#include <stdio.h>
#include <stdlib.h>

/* *out = text as an integer in [lo, hi]; otherwise a message on stderr
 * naming the program, what and text, and false. */
static inline int bench_int(const char *prog, const char *what, const char *text, long lo, long hi, int *out)
{
    char *end;
    long v = strtol(text, &end, 10);
    if (end == text || *end || v < lo || v > hi) {
        fprintf(stderr, "%s: %s must be an integer in [%ld, %ld], got '%s'\n", prog, what, lo, hi, text);
        return 0;
    }
    *out = (int)v;
    return 1;
}

/* The same for an environment variable, left as *out when it is unset. */
static inline int bench_env_int(const char *prog, const char *name, long lo, long hi, int *out)
{
    const char *text = getenv(name);
    return !text || bench_int(prog, name, text, lo, hi, out);
}

#endif
