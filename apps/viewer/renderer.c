/* carom viewer — the OpenGL renderer: instanced sphere impostors and one
 * triangle batch (see shaders.c for the drawing itself). */
#include <stdio.h>
#include <stdlib.h>

#include "gl_util.h"
#include "renderer.h"
#include "shaders.h"

struct renderer {
    GLuint sphere_program, mesh_program;
    GLint sphere_view, sphere_proj, mesh_view, mesh_proj;
    GLuint sphere_vao, corner_vbo, instance_vbo;
    GLuint mesh_vao, mesh_vbo, mesh_ibo;
};

int renderer_create(renderer **out, char *err, size_t err_size)
{
    renderer *r = calloc(1, sizeof *r);
    if (r == NULL) {
        snprintf(err, err_size, "out of memory");
        return -1;
    }
    r->sphere_program = gl_program("sphere", shader_sphere_vs, shader_sphere_fs, err, err_size);
    r->mesh_program = r->sphere_program ? gl_program("mesh", shader_mesh_vs, shader_mesh_fs, err, err_size) : 0;
    if (!r->sphere_program || !r->mesh_program) {
        renderer_destroy(r);
        return -1;
    }
    r->sphere_view = glGetUniformLocation(r->sphere_program, "view");
    r->sphere_proj = glGetUniformLocation(r->sphere_program, "proj");
    r->mesh_view = glGetUniformLocation(r->mesh_program, "view");
    r->mesh_proj = glGetUniformLocation(r->mesh_program, "proj");

    /* Spheres: a unit square (two triangles) and one instance record per ball. */
    static const float corners[] = {-1, -1, 1, -1, 1, 1, -1, -1, 1, 1, -1, 1};
    glGenVertexArrays(1, &r->sphere_vao);
    glBindVertexArray(r->sphere_vao);
    glGenBuffers(1, &r->corner_vbo);
    glBindBuffer(GL_ARRAY_BUFFER, r->corner_vbo);
    glBufferData(GL_ARRAY_BUFFER, sizeof corners, corners, GL_STATIC_DRAW);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, (void *)0);
    glGenBuffers(1, &r->instance_vbo);
    glBindBuffer(GL_ARRAY_BUFFER, r->instance_vbo);
    GLsizei stride = sizeof(draw_sphere);
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, stride, (void *)offsetof(draw_sphere, center));
    glEnableVertexAttribArray(2);
    glVertexAttribPointer(2, 3, GL_FLOAT, GL_FALSE, stride, (void *)offsetof(draw_sphere, color));
    glEnableVertexAttribArray(3);
    glVertexAttribPointer(3, 4, GL_FLOAT, GL_FALSE, stride, (void *)offsetof(draw_sphere, orientation));
    for (GLuint a = 1; a <= 3; ++a) glVertexAttribDivisor(a, 1);

    /* Triangles: planes, surfaces, boxes, meshes. */
    glGenVertexArrays(1, &r->mesh_vao);
    glBindVertexArray(r->mesh_vao);
    glGenBuffers(1, &r->mesh_vbo);
    glGenBuffers(1, &r->mesh_ibo);
    glBindBuffer(GL_ARRAY_BUFFER, r->mesh_vbo);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, r->mesh_ibo);
    stride = sizeof(draw_vertex);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, stride, (void *)offsetof(draw_vertex, position));
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, stride, (void *)offsetof(draw_vertex, normal));
    glEnableVertexAttribArray(2);
    glVertexAttribPointer(2, 3, GL_FLOAT, GL_FALSE, stride, (void *)offsetof(draw_vertex, color));
    glEnableVertexAttribArray(3);
    glVertexAttribPointer(3, 2, GL_FLOAT, GL_FALSE, stride, (void *)offsetof(draw_vertex, uv));
    glEnableVertexAttribArray(4);
    glVertexAttribPointer(4, 1, GL_FLOAT, GL_FALSE, stride, (void *)offsetof(draw_vertex, grid));
    glBindVertexArray(0);

    GLenum e = glGetError();
    if (e != GL_NO_ERROR) {
        snprintf(err, err_size, "OpenGL error 0x%x while setting up the renderer", e);
        renderer_destroy(r);
        return -1;
    }
    *out = r;
    return 0;
}

void renderer_destroy(renderer *r)
{
    if (r == NULL) return;
    GLuint buffers[] = {r->corner_vbo, r->instance_vbo, r->mesh_vbo, r->mesh_ibo};
    glDeleteBuffers(4, buffers);
    GLuint arrays[] = {r->sphere_vao, r->mesh_vao};
    glDeleteVertexArrays(2, arrays);
    if (r->sphere_program) glDeleteProgram(r->sphere_program);
    if (r->mesh_program) glDeleteProgram(r->mesh_program);
    free(r);
}

void renderer_draw(renderer *r, const draw_list *dl, const view_camera *camera, int width, int height)
{
    glViewport(0, 0, width, height);
    glClearColor(RENDER_BACKGROUND_R / 255.0f, RENDER_BACKGROUND_G / 255.0f, RENDER_BACKGROUND_B / 255.0f, 1.0f);
    glClearDepth(1.0);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    glDisable(GL_BLEND);

    cr_vec3 lo, hi;
    if (!draw_list_bounds(dl, &lo, &hi)) return;
    double near_z, far_z;
    camera_clip(camera, lo, hi, &near_z, &far_z);
    float view[16], proj[16];
    camera_view_matrix(camera, view);
    camera_projection_matrix(camera, (double)width / height, near_z, far_z, proj);

    if (dl->index_count) {
        /* Statics have a free side and a solid one: seen from the solid side
         * (from behind a wall) they are not drawn, so a box is seen into. */
        glEnable(GL_CULL_FACE);
        glCullFace(GL_BACK);
        glFrontFace(GL_CCW);
        glUseProgram(r->mesh_program);
        glUniformMatrix4fv(r->mesh_view, 1, GL_FALSE, view);
        glUniformMatrix4fv(r->mesh_proj, 1, GL_FALSE, proj);
        glBindVertexArray(r->mesh_vao);
        glBindBuffer(GL_ARRAY_BUFFER, r->mesh_vbo);
        glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(dl->vertex_count * sizeof *dl->vertices), dl->vertices,
                     GL_STREAM_DRAW);
        glBufferData(GL_ELEMENT_ARRAY_BUFFER, (GLsizeiptr)(dl->index_count * sizeof *dl->indices), dl->indices,
                     GL_STREAM_DRAW);
        glDrawElements(GL_TRIANGLES, (GLsizei)dl->index_count, GL_UNSIGNED_INT, (void *)0);
        glDisable(GL_CULL_FACE);
    }
    if (dl->sphere_count) {
        glUseProgram(r->sphere_program);
        glUniformMatrix4fv(r->sphere_view, 1, GL_FALSE, view);
        glUniformMatrix4fv(r->sphere_proj, 1, GL_FALSE, proj);
        glBindVertexArray(r->sphere_vao);
        glBindBuffer(GL_ARRAY_BUFFER, r->instance_vbo);
        glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(dl->sphere_count * sizeof *dl->spheres), dl->spheres,
                     GL_STREAM_DRAW);
        glDrawArraysInstanced(GL_TRIANGLES, 0, 6, (GLsizei)dl->sphere_count);
    }
    glBindVertexArray(0);
    glUseProgram(0);
}
