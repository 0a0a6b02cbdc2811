/* carom viewer — draws a draw list with OpenGL 3.3 core.
 *
 * The same code draws into a GLFW window (carom view) and into an
 * offscreen framebuffer of a headless EGL context (carom render): whatever
 * context is current when renderer_create is called.
 */
#ifndef CAROM_VIEWER_RENDERER_H
#define CAROM_VIEWER_RENDERER_H

#include <stddef.h>

#include "camera.h"
#include "draw_list.h"

/* The background colour, 8-bit sRGB values as written to images. */
#define RENDER_BACKGROUND_R 34
#define RENDER_BACKGROUND_G 37
#define RENDER_BACKGROUND_B 43

typedef struct renderer renderer;

/* Needs a current OpenGL 3.3 core context. 0, or -1 with a message. */
int renderer_create(renderer **out, char *err, size_t err_size);
void renderer_destroy(renderer *r);

/* Clears the bound framebuffer's width x height viewport to the background
 * and draws dl seen by camera. */
void renderer_draw(renderer *r, const draw_list *dl, const view_camera *camera, int width, int height);

#endif
