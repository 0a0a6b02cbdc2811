/* carom viewer — an OpenGL context without a display, for carom render.
 *
 * EGL on Mesa's surfaceless platform (llvmpipe on a machine without a GPU,
 * the GPU's driver where there is one), or on an EGL device, or EGL's
 * default display, whichever initialises first; no X server, no window.
 * Drawing goes into a multisampled framebuffer object, resolved and read
 * back as RGB rows, top row first.
 */
#ifndef CAROM_VIEWER_HEADLESS_H
#define CAROM_VIEWER_HEADLESS_H

#include <stddef.h>

typedef struct headless headless;

/* Makes a current OpenGL 3.3 core context with a width x height framebuffer
 * of `samples` samples per pixel (1: no multisampling). 0, or -1 with a
 * message that names the EGL call that failed and its error. */
int headless_create(int width, int height, int samples, headless **out, char *err, size_t err_size);
/* Binds the framebuffer to draw into. */
void headless_bind(headless *h);
/* Resolves the samples and copies the image into rgb (width * height * 3
 * bytes, top row first). 0, or -1 with a message. */
int headless_read_rgb(headless *h, unsigned char *rgb, char *err, size_t err_size);
/* A short description of the OpenGL implementation ("llvmpipe ..."). */
const char *headless_renderer_name(headless *h);
void headless_destroy(headless *h);

#endif
