/* The one formatted-message writer behind the validators' and the
 * checkpoint readers' refusals (src/defs.c, src/checkpoint_rigid.c,
 * src/checkpoint_shape.c): each wraps it in a one-line macro that returns
 * its own status. Internal. */
#ifndef CAROM_MESSAGE_H
#define CAROM_MESSAGE_H

#include <stddef.h>

/* printf-formats into msg[size]; nothing when msg is NULL or size 0 (the
 * callers' message buffers are optional). */
void cr_msgf(char *msg, size_t size, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#endif
