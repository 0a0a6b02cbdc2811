/* carom CLI — a progress bar with steps/s and ETA, on a terminal only. */
#ifndef CAROM_CLI_PROGRESS_H
#define CAROM_CLI_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct progress {
    FILE *out;          /* NULL: disabled */
    uint64_t total;     /* steps */
    double start, last_draw;
} progress;

/* Seconds on a monotonic clock. */
double progress_now(void);
/* Enables the bar only when enabled and out is a terminal: piped or
 * redirected output (logs, CI) gets no carriage-return noise. */
void progress_start(progress *p, FILE *out, uint64_t total, bool enabled);
/* Redraws at most ten times a second, so that drawing costs nothing. */
void progress_update(progress *p, uint64_t done);
/* Erases the bar. */
void progress_finish(progress *p);

#endif
