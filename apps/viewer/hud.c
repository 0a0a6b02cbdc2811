/* carom viewer — overlay text (see hud.h). */
#include <stdio.h>

#include "hud.h"

void hud_format(const view_snapshot *s, double fps, char *buf, size_t size)
{
    char rate[64] = "", state[64] = "";
    if (fps >= 0.0) snprintf(rate, sizeof rate, "   %.0f fps", fps);
    if (s->failed) snprintf(state, sizeof state, "   STOPPED");
    else if (s->paused) snprintf(state, sizeof state, "   paused");
    if (s->speed > 0.0 && s->speed != 1.0) {
        size_t n = 0;
        while (n < sizeof state && state[n]) ++n;
        snprintf(state + n, sizeof state - n, "   x%g", s->speed);
    }
    snprintf(buf, size,
             "t = %.4f s%s\n"
             "%.0f steps/s   dt %.3g ms%s\n"
             "%u bodies   %u contacts   %u impacts\n"
             "E = %.6g J  (K %.4g + U %.4g)%s%s",
             s->time, state, s->steps_per_second, 1e3 * s->dt, rate, s->body_count, s->contacts, s->events, s->energy.total,
             s->energy.kinetic, s->energy.potential, s->failed ? "\n" : "", s->failed ? s->error : "");
}
