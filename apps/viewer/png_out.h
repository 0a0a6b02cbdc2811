/* carom viewer — writing an RGB image as PNG through libpng, whole or not
 * at all: into a temporary next to the file, renamed over it on success. */
#ifndef CAROM_VIEWER_PNG_OUT_H
#define CAROM_VIEWER_PNG_OUT_H

#include <stddef.h>

/* rgb: width * height * 3 bytes, top row first. 0, or -1 with a message
 * naming the file. */
int png_write_rgb(const char *path, const unsigned char *rgb, int width, int height, char *err, size_t err_size);

#endif
