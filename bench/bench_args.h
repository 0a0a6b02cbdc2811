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

/* The sizes text[0 .. count) as integers in [1, 10000000] into out (room
 * for 64); false, with the message, at the first bad one or too many. */
static inline int bench_sizes(const char *prog, int count, char **text, int *out)
{
    if (count > 64) {
        fprintf(stderr, "%s: at most 64 sizes, got %d\n", prog, count);
        return 0;
    }
    for (int i = 0; i < count; ++i)
        if (!bench_int(prog, "N", text[i], 1, 10000000, &out[i])) return 0;
    return 1;
}

/* The same for an environment variable, left as *out when it is unset. */
static inline int bench_env_int(const char *prog, const char *name, long lo, long hi, int *out)
{
    const char *text = getenv(name);
    return !text || bench_int(prog, name, text, lo, hi, out);
}

#endif
