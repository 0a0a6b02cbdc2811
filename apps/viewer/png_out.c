/* carom viewer — PNG output (see png_out.h). */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <png.h>

#include "png_out.h"

typedef struct png_failure {
    jmp_buf jump;
    char message[200];
} png_failure;

static void on_error(png_structp png, png_const_charp message)
{
    png_failure *f = png_get_error_ptr(png);
    snprintf(f->message, sizeof f->message, "%s", message);
    longjmp(f->jump, 1);
}

static void on_warning(png_structp png, png_const_charp message)
{
    (void)png;
    (void)message;
}

/* libpng reports errors by longjmp; everything it may skip over lives in
 * the caller, so nothing leaks when it does. */
static int encode(FILE *f, const unsigned char *rgb, int width, int height, png_bytep *rows, png_failure *failure)
{
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, failure, on_error, on_warning);
    if (png == NULL) {
        snprintf(failure->message, sizeof failure->message, "out of memory");
        return -1;
    }
    png_infop info = png_create_info_struct(png);
    if (info == NULL || setjmp(failure->jump)) {
        png_destroy_write_struct(&png, &info);
        if (info == NULL) snprintf(failure->message, sizeof failure->message, "out of memory");
        return -1;
    }
    png_init_io(png, f);
    png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_compression_level(png, 6);
    for (int y = 0; y < height; ++y) rows[y] = (png_bytep)(rgb + (size_t)y * (size_t)width * 3);
    png_set_rows(png, info, rows);
    png_write_png(png, info, PNG_TRANSFORM_IDENTITY, NULL);
    png_destroy_write_struct(&png, &info);
    return 0;
}

int png_write_rgb(const char *path, const unsigned char *rgb, int width, int height, char *err, size_t err_size)
{
    size_t n = strlen(path) + 16;
    char *tmp = malloc(n);
    png_bytep *rows = malloc((size_t)height * sizeof *rows);
    if (tmp == NULL || rows == NULL) {
        free(tmp);
        free(rows);
        snprintf(err, err_size, "out of memory");
        return -1;
    }
    snprintf(tmp, n, "%s.XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        snprintf(err, err_size, "cannot create '%s': %s", path, strerror(errno));
        free(tmp);
        free(rows);
        return -1;
    }
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    FILE *f = fdopen(fd, "wb");
    png_failure failure = {.message = ""};
    int rc = f ? encode(f, rgb, width, height, rows, &failure) : -1;
    if (f == NULL) {
        snprintf(failure.message, sizeof failure.message, "%s", strerror(errno));
        close(fd);
    } else if (fclose(f) != 0 && rc == 0) {
        snprintf(failure.message, sizeof failure.message, "%s", strerror(errno));
        rc = -1;
    }
    if (rc == 0 && rename(tmp, path) != 0) {
        snprintf(failure.message, sizeof failure.message, "%s", strerror(errno));
        rc = -1;
    }
    if (rc != 0) {
        unlink(tmp);
        snprintf(err, err_size, "cannot write '%s': %s", path, failure.message);
    }
    free(tmp);
    free(rows);
    return rc;
}
