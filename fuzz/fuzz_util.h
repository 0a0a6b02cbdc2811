/* carom fuzzing — small helpers shared by the entry points (static inline so
 * that the regression test can include every entry file in one program). */
#ifndef CAROM_FUZZ_UTIL_H
#define CAROM_FUZZ_UTIL_H

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_targets.h"

/* Writes the message to why and returns code. */
static inline int fz_say(int code, char *why, size_t why_size, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static inline int fz_say(int code, char *why, size_t why_size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, why_size, fmt, ap);
    va_end(ap);
    return code;
}

/* The input as a NUL-terminated string (a NUL inside ends it, as it would
 * for a C caller); NULL when out of memory. */
static inline char *fz_text(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (s == NULL) return NULL;
    if (size) memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

static inline bool fz_finite3(double x, double y, double z) { return isfinite(x) && isfinite(y) && isfinite(z); }

/* A double's IEEE-754 bit pattern, and back (the checkpoint format's reals). */
static inline uint64_t fz_bits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}
static inline double fz_real(uint64_t u)
{
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

#endif
