/* carom viewer — headless still images (see render.h). */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "headless.h"
#include "hud.h"
#include "overlay.h"
#include "png_out.h"
#include "render.h"
#include "renderer.h"
#include "scene_draw.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int render_png(const view_snapshot *s, const render_settings *rs, const char *path, render_figures *figures, char *err,
               size_t err_size)
{
    double t0 = now();
    draw_list dl;
    draw_list_init(&dl);
    unsigned char *rgb = malloc((size_t)rs->width * (size_t)rs->height * 3);
    if (rgb == NULL || scene_draw_build(&dl, s, &rs->draw)) {
        snprintf(err, err_size, "out of memory for a %dx%d image of %u bodies", rs->width, rs->height, s->body_count);
        free(rgb);
        draw_list_free(&dl);
        return -1;
    }
    headless *h = NULL;
    renderer *r = NULL;
    overlay *o = NULL;
    int rc = headless_create(rs->width, rs->height, rs->samples, &h, err, err_size);
    if (rc == 0) rc = renderer_create(&r, err, err_size);
    if (rc == 0 && rs->overlay) rc = overlay_create(&o, err, err_size);
    if (rc == 0) {
        headless_bind(h);
        renderer_draw(r, &dl, &rs->camera, rs->width, rs->height);
        if (o) {
            char text[512];
            hud_format(s, -1.0, text, sizeof text);
            overlay_draw(o, text, rs->width, rs->height, rs->height >= 1000 ? 2.0f : 1.5f);
        }
        rc = headless_read_rgb(h, rgb, err, err_size);
    }
    if (figures && h) snprintf(figures->renderer, sizeof figures->renderer, "%s", headless_renderer_name(h));
    overlay_destroy(o);
    renderer_destroy(r);
    headless_destroy(h);
    draw_list_free(&dl);
    if (rc == 0) rc = png_write_rgb(path, rgb, rs->width, rs->height, err, err_size);
    free(rgb);
    if (figures) figures->seconds = now() - t0;
    return rc;
}
