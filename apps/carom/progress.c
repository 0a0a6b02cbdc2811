/* carom CLI — the progress bar of `carom run`. */
#define _POSIX_C_SOURCE 200809L

#include <time.h>
#include <unistd.h>

#include "progress.h"

#define BAR_WIDTH 30

double progress_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void progress_start(progress *p, FILE *out, uint64_t total, bool enabled)
{
    p->out = (enabled && out && isatty(fileno(out))) ? out : NULL;
    p->total = total;
    p->start = progress_now();
    p->last_draw = -1.0;
}

static void draw(progress *p, uint64_t done, double now)
{
    double frac = p->total ? (double)done / (double)p->total : 1.0;
    double elapsed = now - p->start;
    double rate = elapsed > 0.0 ? (double)done / elapsed : 0.0;
    char bar[BAR_WIDTH + 1];
    int filled = (int)(frac * BAR_WIDTH);
    for (int i = 0; i < BAR_WIDTH; ++i) bar[i] = i < filled ? '#' : '-';
    bar[BAR_WIDTH] = '\0';
    /* \r and erase-to-end-of-line: the bar redraws itself in place. */
    fprintf(p->out, "\r[%s] %5.1f%%  %llu/%llu steps  %.0f steps/s", bar, 100.0 * frac, (unsigned long long)done,
            (unsigned long long)p->total, rate);
    if (rate > 0.0 && done < p->total) fprintf(p->out, "  ETA %.1f s", (double)(p->total - done) / rate);
    fputs("\033[K", p->out);
    fflush(p->out);
}

void progress_update(progress *p, uint64_t done)
{
    if (p->out == NULL) return;
    double now = progress_now();
    if (p->last_draw >= 0.0 && now - p->last_draw < 0.1 && done < p->total) return;
    p->last_draw = now;
    draw(p, done, now);
}

void progress_finish(progress *p)
{
    if (p->out == NULL) return;
    fputs("\r\033[K", p->out);
    fflush(p->out);
}
