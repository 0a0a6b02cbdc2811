/* carom viewer — a text panel over the scene (simulated time, rates,
 * counts, energy), drawn with stb_easy_font's quads: no font files, no
 * textures. */
#ifndef CAROM_VIEWER_OVERLAY_H
#define CAROM_VIEWER_OVERLAY_H

#include <stddef.h>

typedef struct overlay overlay;

/* Needs a current OpenGL 3.3 core context. 0, or -1 with a message. */
int overlay_create(overlay **out, char *err, size_t err_size);
void overlay_destroy(overlay *o);
/* Draws text (lines separated by '\n') in a translucent panel at the
 * top-left corner of a width x height viewport, scaled by scale (1: the
 * font's own 8-pixel lines). */
void overlay_draw(overlay *o, const char *text, int width, int height, float scale);

#endif
