/* carom viewer — the overlay's text: what the simulation is doing. */
#ifndef CAROM_VIEWER_HUD_H
#define CAROM_VIEWER_HUD_H

#include <stddef.h>

#include "snapshot.h"

/* Writes lines like
 *   t = 1.234 s   x0.25 (paused)
 *   1520 steps/s   dt 1 ms   60 fps
 *   2940 bodies   812 contacts
 *   E = -12.3456 J (K 1.2 + U -13.5)
 * into buf; fps < 0 leaves the frame rate out (a still image). */
void hud_format(const view_snapshot *s, double fps, char *buf, size_t size);

#endif
