/* src/message.h. */
#include <stdarg.h>
#include <stdio.h>

#include "message.h"

void cr_msgf(char *msg, size_t size, const char *fmt, ...)
{
    if (!msg || !size) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, size, fmt, ap);
    va_end(ap);
}
