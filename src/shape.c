/* Shapes: allocation, reference counting, spheres and boxes (closed-form
 * mass properties), and the hull bookkeeping every polyhedron shares. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shape_internal.h"

static cr_status bad(char *msg, size_t size, const char *text, double value)
{
    if (msg && size) snprintf(msg, size, "%s, got %.17g", text, value);
    return CR_ERR_INVALID_ARGUMENT;
}

static cr_status out_of_memory(char *msg, size_t size)
{
    if (msg && size) snprintf(msg, size, "out of memory");
    return CR_ERR_OUT_OF_MEMORY;
}

cr_shape *cr_shape_alloc(cr_shape_type type)
{
    cr_shape *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->type = type;
    s->refcount = 1;
    return s;
}

void cr_hull_free(cr_hull *h)
{
    free(h->vertices);
    free(h->faces);
    free(h->face_vertices);
    free(h->edges);
    free(h->edge_faces);
    memset(h, 0, sizeof *h);
}

void cr_mesh_free(cr_mesh *m)
{
    free(m->vertices);
    free(m->triangles);
    free(m->normals);
    free(m->nodes);
    free(m->order);
    memset(m, 0, sizeof *m);
}

void cr_shape_retain(cr_shape *s)
{
    if (s) s->refcount++;
}

void cr_shape_release(cr_shape *s)
{
    if (!s || --s->refcount > 0) return;
    cr_hull_free(&s->hull);
    cr_mesh_free(&s->mesh);
    free(s);
}

cr_shape_type cr_shape_get_type(const cr_shape *s) { return s->type; }
const cr_mass_properties *cr_shape_mass_properties(const cr_shape *s) { return &s->mass; }
cr_vec3 cr_shape_offset(const cr_shape *s) { return s->offset; }
double cr_shape_bounding_radius(const cr_shape *s) { return s->radius; }
/* A mesh's inner ball about its centroid (the origin of its frame). The
 * centroid of a concave solid may lie outside it (a bowl's lies in the
 * hollow): inside when the triangles' solid angles seen from it sum to
 * 4 pi (the winding number, each angle by Van Oosterom and Strackee's
 * tan(omega / 2) = a . (b x c) / (|a||b||c| + (a . b)|c| + (a . c)|b| +
 * (b . c)|a|)), outside when they sum to 0. Inside, the ball reaches no
 * triangle's plane: a triangle is no nearer than its plane, so the ball
 * lies inside, if smaller than the largest one where a plane passes near
 * the centroid outside its triangle. */
static double mesh_inner_radius(const cr_mesh *m)
{
    double winding = 0.0, r = INFINITY;
    for (uint32_t t = 0; t < m->triangle_count; ++t) {
        cr_vec3 a = m->vertices[m->triangles[3 * t]], b = m->vertices[m->triangles[3 * t + 1]],
                c = m->vertices[m->triangles[3 * t + 2]];
        double la = cr_v3_len(a), lb = cr_v3_len(b), lc = cr_v3_len(c);
        double den = la * lb * lc + cr_v3_dot(a, b) * lc + cr_v3_dot(a, c) * lb + cr_v3_dot(b, c) * la;
        winding += 2.0 * atan2(cr_v3_dot(a, cr_v3_cross(b, c)), den);
        r = fmin(r, fabs(cr_v3_dot(m->normals[t], a)));
    }
    return winding > 2.0 * 3.14159265358979323846 && r < INFINITY ? r : 0.0;
}

double cr_shape_inner_radius(const cr_shape *s)
{
    if (s->type == CR_SHAPE_SPHERE) return s->radius;
    if (s->type == CR_SHAPE_MESH) return mesh_inner_radius(&s->mesh);
    double r = INFINITY;
    for (uint32_t f = 0; f < s->hull.face_count; ++f) r = fmin(r, s->hull.faces[f].offset);
    return r > 0.0 && r < INFINITY ? r : 0.0; /* the centroid is inside a convex solid */
}
cr_vec3 cr_shape_half_extents(const cr_shape *s) { return s->type == CR_SHAPE_BOX ? s->half_extents : cr_v3_zero(); }

cr_status cr_shape_create_sphere(double r, cr_shape **out, char *msg, size_t size)
{
    *out = NULL;
    if (!(r > 0.0 && isfinite(r))) return bad(msg, size, "sphere radius must be > 0 and finite", r);
    cr_shape *s = cr_shape_alloc(CR_SHAPE_SPHERE);
    if (!s) return out_of_memory(msg, size);
    s->radius = r;
    s->mass.volume = 4.0 / 3.0 * 3.14159265358979323846 * r * r * r;
    s->mass.inertia_unit = cr_m3_diag(0.4 * s->mass.volume * r * r, 0.4 * s->mass.volume * r * r,
                                      0.4 * s->mass.volume * r * r);
    *out = s;
    return CR_OK;
}

/* A half-edge a -> b of face f, keyed by its ends; seq is its place in the
 * faces' order, so that edges come out in order of first appearance. */
typedef struct half_edge {
    uint32_t lo, hi, seq, face, forward;
} half_edge;

static int half_edge_cmp(const void *pa, const void *pb)
{
    const half_edge *a = pa, *b = pb;
    if (a->lo != b->lo) return a->lo < b->lo ? -1 : 1;
    if (a->hi != b->hi) return a->hi < b->hi ? -1 : 1;
    return (a->seq > b->seq) - (a->seq < b->seq);
}

/* Each edge once, with the face on either side: the face that walks it
 * a -> b (a < b) first, the one that walks b -> a second. A closed convex
 * polyhedron has every edge walked once in each direction. Sorting the
 * half-edges keeps this O(E log E): a linear search per half-edge made a
 * 20000-point hull spend a second here. */
bool cr_hull_build_edges(cr_hull *h)
{
    uint32_t half = 0;
    for (uint32_t f = 0; f < h->face_count; ++f) half += h->faces[f].count;
    free(h->edges);
    free(h->edge_faces);
    h->edges = malloc(sizeof *h->edges * (half ? half : 1));
    h->edge_faces = malloc(sizeof *h->edge_faces * (half ? half : 1));
    half_edge *he = malloc(sizeof *he * (half ? half : 1));
    uint32_t *edge_of_seq = malloc(sizeof *edge_of_seq * (half ? half : 1));
    if (!h->edges || !h->edge_faces || !he || !edge_of_seq) {
        free(he);
        free(edge_of_seq);
        return false;
    }
    uint32_t n = 0;
    for (uint32_t f = 0; f < h->face_count; ++f) {
        const cr_hull_face *fc = &h->faces[f];
        for (uint32_t k = 0; k < fc->count; ++k, ++n) {
            uint32_t a = h->face_vertices[fc->first + k], b = h->face_vertices[fc->first + (k + 1) % fc->count];
            half_edge e = {a < b ? a : b, a < b ? b : a, n, f, a < b};
            he[n] = e;
            edge_of_seq[n] = UINT32_MAX;
        }
    }
    qsort(he, half, sizeof *he, half_edge_cmp);
    /* Mark each group's first half-edge, then number the groups in seq order. */
    for (uint32_t i = 0; i < half; ++i)
        if (i == 0 || he[i].lo != he[i - 1].lo || he[i].hi != he[i - 1].hi) edge_of_seq[he[i].seq] = 0;
    h->edge_count = 0;
    for (uint32_t q = 0; q < half; ++q)
        if (edge_of_seq[q] == 0) edge_of_seq[q] = ++h->edge_count; /* 1-based while marking */
    for (uint32_t i = 0, e = 0; i < half; ++i) {
        if (i == 0 || he[i].lo != he[i - 1].lo || he[i].hi != he[i - 1].hi) {
            e = edge_of_seq[he[i].seq] - 1;
            h->edges[2 * e] = he[i].lo;
            h->edges[2 * e + 1] = he[i].hi;
            h->edge_faces[2 * e] = h->edge_faces[2 * e + 1] = UINT32_MAX;
        }
        h->edge_faces[2 * e + (he[i].forward ? 0 : 1)] = he[i].face;
    }
    free(he);
    free(edge_of_seq);
    return true;
}

bool cr_hull_init_box(cr_hull *h, cr_vec3 e)
{
    /* vertex i has +x when bit 0 is set, +y bit 1, +z bit 2; faces listed
     * counter-clockwise from outside: +x, -x, +y, -y, +z, -z */
    static const uint32_t quads[6][4] = {{1, 3, 7, 5}, {0, 4, 6, 2}, {2, 6, 7, 3},
                                         {0, 1, 5, 4}, {4, 5, 7, 6}, {0, 2, 3, 1}};
    static const double normals[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
    memset(h, 0, sizeof *h);
    h->vertices = malloc(8 * sizeof *h->vertices);
    h->faces = malloc(6 * sizeof *h->faces);
    h->face_vertices = malloc(24 * sizeof *h->face_vertices);
    if (!h->vertices || !h->faces || !h->face_vertices) {
        cr_hull_free(h);
        return false;
    }
    h->vertex_count = 8;
    h->face_count = 6;
    for (uint32_t i = 0; i < 8; ++i)
        h->vertices[i] = cr_v3(i & 1u ? e.x : -e.x, i & 2u ? e.y : -e.y, i & 4u ? e.z : -e.z);
    for (uint32_t f = 0; f < 6; ++f) {
        h->faces[f].first = 4 * f;
        h->faces[f].count = 4;
        h->faces[f].normal = cr_v3(normals[f][0], normals[f][1], normals[f][2]);
        h->faces[f].offset = fabs(normals[f][0]) * e.x + fabs(normals[f][1]) * e.y + fabs(normals[f][2]) * e.z;
        memcpy(&h->face_vertices[4 * f], quads[f], sizeof quads[f]);
    }
    if (!cr_hull_build_edges(h)) {
        cr_hull_free(h);
        return false;
    }
    return true;
}

cr_status cr_shape_create_box(cr_vec3 e, cr_shape **out, char *msg, size_t size)
{
    *out = NULL;
    if (!(e.x > 0.0 && isfinite(e.x))) return bad(msg, size, "box half_extents[0] must be > 0 and finite", e.x);
    if (!(e.y > 0.0 && isfinite(e.y))) return bad(msg, size, "box half_extents[1] must be > 0 and finite", e.y);
    if (!(e.z > 0.0 && isfinite(e.z))) return bad(msg, size, "box half_extents[2] must be > 0 and finite", e.z);
    cr_shape *s = cr_shape_alloc(CR_SHAPE_BOX);
    if (!s) return out_of_memory(msg, size);
    if (!cr_hull_init_box(&s->hull, e)) {
        cr_shape_release(s);
        return out_of_memory(msg, size);
    }
    s->half_extents = e;
    s->radius = cr_v3_len(e);
    double v = 8.0 * e.x * e.y * e.z;
    s->mass.volume = v;
    s->mass.inertia_unit = cr_m3_diag(v / 3.0 * (e.y * e.y + e.z * e.z), v / 3.0 * (e.x * e.x + e.z * e.z),
                                      v / 3.0 * (e.x * e.x + e.y * e.y));
    *out = s;
    return CR_OK;
}
