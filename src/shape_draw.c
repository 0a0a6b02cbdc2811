/* Shapes as triangles, for pictures (see cr_shape_triangles in shape.h). */
#include "shape_internal.h"

static void put(cr_vec3 *out, uint32_t capacity, uint32_t t, cr_vec3 a, cr_vec3 b, cr_vec3 c)
{
    if (out == NULL || t >= capacity) return;
    out[3 * t] = a;
    out[3 * t + 1] = b;
    out[3 * t + 2] = c;
}

uint32_t cr_shape_triangles(const cr_shape *s, cr_vec3 *out, uint32_t capacity)
{
    if (s == NULL) return 0;
    uint32_t n = 0;
    if (s->type == CR_SHAPE_MESH) {
        const cr_mesh *m = &s->mesh;
        for (uint32_t t = 0; t < m->triangle_count; ++t, ++n)
            put(out, capacity, n, m->vertices[m->triangles[3 * t]], m->vertices[m->triangles[3 * t + 1]],
                m->vertices[m->triangles[3 * t + 2]]);
        return n;
    }
    if (s->type != CR_SHAPE_BOX && s->type != CR_SHAPE_HULL) return 0;
    /* A hull's faces are convex polygons, counter-clockwise from outside:
     * fanned from their first vertex. */
    const cr_hull *h = &s->hull;
    for (uint32_t f = 0; f < h->face_count; ++f) {
        const cr_hull_face *fc = &h->faces[f];
        const uint32_t *fv = &h->face_vertices[fc->first];
        for (uint32_t k = 1; k + 1 < fc->count; ++k, ++n)
            put(out, capacity, n, h->vertices[fv[0]], h->vertices[fv[k]], h->vertices[fv[k + 1]]);
    }
    return n;
}
