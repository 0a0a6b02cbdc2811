/* carom viewer — the overlay text (see overlay.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wsign-compare"
#endif
#include <stb/stb_easy_font.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

#include "gl_util.h"
#include "overlay.h"
#include "shaders.h"

/* stb_easy_font's vertex: x, y, z, rgba. */
typedef struct font_vertex {
    float x, y, z;
    unsigned char rgba[4];
} font_vertex;

typedef struct overlay_vertex {
    float x, y;
    unsigned char rgba[4];
} overlay_vertex;

struct overlay {
    GLuint program, vao, vbo;
    GLint viewport;
    font_vertex *quads;
    size_t quad_capacity;          /* in quads */
    overlay_vertex *triangles;     /* 6 per quad */
};

int overlay_create(overlay **out, char *err, size_t err_size)
{
    overlay *o = calloc(1, sizeof *o);
    if (o == NULL) {
        snprintf(err, err_size, "out of memory");
        return -1;
    }
    o->program = gl_program("overlay", shader_overlay_vs, shader_overlay_fs, err, err_size);
    if (!o->program) {
        free(o);
        return -1;
    }
    o->viewport = glGetUniformLocation(o->program, "viewport");
    glGenVertexArrays(1, &o->vao);
    glBindVertexArray(o->vao);
    glGenBuffers(1, &o->vbo);
    glBindBuffer(GL_ARRAY_BUFFER, o->vbo);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, sizeof(overlay_vertex), (void *)offsetof(overlay_vertex, x));
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(1, 4, GL_UNSIGNED_BYTE, GL_TRUE, sizeof(overlay_vertex), (void *)offsetof(overlay_vertex, rgba));
    glBindVertexArray(0);
    *out = o;
    return 0;
}

void overlay_destroy(overlay *o)
{
    if (o == NULL) return;
    glDeleteBuffers(1, &o->vbo);
    glDeleteVertexArrays(1, &o->vao);
    glDeleteProgram(o->program);
    free(o->quads);
    free(o->triangles);
    free(o);
}

static void quad_to_triangles(const font_vertex *q, overlay_vertex *t, float scale, float ox, float oy)
{
    static const int order[6] = {0, 1, 2, 0, 2, 3};
    for (int k = 0; k < 6; ++k) {
        const font_vertex *v = &q[order[k]];
        t[k].x = ox + v->x * scale;
        t[k].y = oy + v->y * scale;
        memcpy(t[k].rgba, v->rgba, 4);
    }
}

void overlay_draw(overlay *o, const char *text, int width, int height, float scale)
{
    size_t len = strlen(text);
    /* stb_easy_font needs about 270 bytes (17 quads) per character. */
    size_t need = 20 * (len + 1) + 1;
    if (need > o->quad_capacity) {
        font_vertex *q = realloc(o->quads, need * 4 * sizeof *q);
        overlay_vertex *t = q ? realloc(o->triangles, (need + 1) * 6 * sizeof *t) : NULL;
        if (q) o->quads = q;
        if (t == NULL) return;
        o->triangles = t;
        o->quad_capacity = need;
    }
    char *copy = malloc(len + 1);
    if (copy == NULL) return;
    memcpy(copy, text, len + 1);
    unsigned char white[4] = {235, 238, 242, 255};
    int quads = stb_easy_font_print(0, 0, copy, white, o->quads, (int)(o->quad_capacity * 4 * sizeof *o->quads));
    float pad = 6.0f * scale, margin = 8.0f * scale;
    float w = (float)stb_easy_font_width(copy) * scale, h = (float)stb_easy_font_height(copy) * scale;
    free(copy);

    /* The panel first, then the glyphs on it. */
    font_vertex panel[4] = {{0, 0, 0, {0, 0, 0, 150}}, {0, 0, 0, {0, 0, 0, 150}}, {0, 0, 0, {0, 0, 0, 150}},
                            {0, 0, 0, {0, 0, 0, 150}}};
    panel[1].x = panel[2].x = w + 2 * pad;
    panel[2].y = panel[3].y = h + 2 * pad;
    quad_to_triangles(panel, o->triangles, 1.0f, margin, margin);
    for (int i = 0; i < quads; ++i)
        quad_to_triangles(&o->quads[4 * i], &o->triangles[6 * (i + 1)], scale, margin + pad, margin + pad);

    glDisable(GL_DEPTH_TEST);
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    glUseProgram(o->program);
    glUniform2f(o->viewport, (float)width, (float)height);
    glBindVertexArray(o->vao);
    glBindBuffer(GL_ARRAY_BUFFER, o->vbo);
    GLsizei vertices = 6 * (quads + 1);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)vertices * (GLsizeiptr)sizeof *o->triangles, o->triangles, GL_STREAM_DRAW);
    glDrawArrays(GL_TRIANGLES, 0, vertices);
    glBindVertexArray(0);
    glUseProgram(0);
    glDisable(GL_BLEND);
    glEnable(GL_DEPTH_TEST);
}
