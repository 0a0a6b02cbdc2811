/* Closed triangle meshes: validation (naming the culprit), centring on the
 * centroid, per-triangle normals, the bounding-volume hierarchy over the
 * triangles and its box query, and the convex hull of the vertices (what a
 * moving mesh collides with). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shape_internal.h"

/* Writes the message (when there is room for one) and fails. */
#define FAIL(...) (snprintf(msg, msg ? size : 0, __VA_ARGS__), CR_ERR_INVALID_ARGUMENT)

/* One directed edge a -> b of triangle tri, keyed by its undirected ends. */
typedef struct half_edge {
    uint32_t lo, hi, tri, forward; /* forward: a < b */
} half_edge;

static int half_edge_cmp(const void *pa, const void *pb)
{
    const half_edge *a = pa, *b = pb;
    if (a->lo != b->lo) return a->lo < b->lo ? -1 : 1;
    if (a->hi != b->hi) return a->hi < b->hi ? -1 : 1;
    if (a->tri != b->tri) return a->tri < b->tri ? -1 : 1;
    return 0;
}

/* Every edge must be walked exactly once in each direction: then the
 * surface is closed and consistently oriented (a flipped triangle walks all
 * three of its edges the same way as its neighbours). */
static cr_status check_edges(const uint32_t *idx, uint32_t n, char *msg, size_t size)
{
    half_edge *he = malloc(sizeof *he * 3 * (size_t)n);
    if (!he) {
        if (msg && size) snprintf(msg, size, "out of memory");
        return CR_ERR_OUT_OF_MEMORY;
    }
    for (uint32_t t = 0; t < n; ++t)
        for (uint32_t k = 0; k < 3; ++k) {
            uint32_t a = idx[3 * t + k], b = idx[3 * t + (k + 1) % 3];
            half_edge e = {a < b ? a : b, a < b ? b : a, t, a < b};
            he[3 * t + k] = e;
        }
    qsort(he, 3 * (size_t)n, sizeof *he, half_edge_cmp);
    cr_status st = CR_OK;
    for (size_t i = 0; i < 3 * (size_t)n && st == CR_OK;) {
        size_t j = i;
        while (j < 3 * (size_t)n && he[j].lo == he[i].lo && he[j].hi == he[i].hi) ++j;
        uint32_t a = he[i].forward ? he[i].lo : he[i].hi, b = he[i].forward ? he[i].hi : he[i].lo;
        if (j - i == 1)
            st = FAIL("edge (%u, %u) of triangle %u borders no other triangle: the mesh is not closed", a, b, he[i].tri);
        else if (j - i > 2)
            st = FAIL("edge (%u, %u) is shared by %zu triangles (%u, %u, %u, ...): the mesh is not a manifold", he[i].lo,
                      he[i].hi, j - i, he[i].tri, he[i + 1].tri, he[i + 2].tri);
        else if (he[i].forward == he[i + 1].forward)
            st = FAIL("edge (%u, %u) is walked in the same direction by triangles %u and %u: one of them is flipped", a,
                      b, he[i].tri, he[i + 1].tri);
        i = j;
    }
    free(he);
    return st;
}

static cr_status validate(const cr_vec3 *v, uint32_t nv, const uint32_t *idx, uint32_t n, char *msg, size_t size)
{
    if (!v || !idx) return FAIL("mesh vertices or indices are NULL");
    if (n < 4) return FAIL("a closed mesh needs at least 4 triangles, got %u", n);
    if (n > UINT32_MAX / 3) return FAIL("too many triangles: %u", n);
    for (uint32_t i = 0; i < nv; ++i)
        if (!cr_v3_isfinite(v[i])) return FAIL("mesh vertex %u is not finite (%g, %g, %g)", i, v[i].x, v[i].y, v[i].z);
    for (uint32_t t = 0; t < n; ++t)
        for (uint32_t k = 0; k < 3; ++k)
            if (idx[3 * t + k] >= nv)
                return FAIL("triangle %u: vertex index %u out of range (%u vertices)", t, idx[3 * t + k], nv);
    /* Zero area relative to the mesh's size (rounding alone gives ~1e-16). */
    cr_vec3 lo = v[idx[0]], hi = v[idx[0]];
    for (uint32_t k = 1; k < 3 * n; ++k) lo = cr_v3_min(lo, v[idx[k]]), hi = cr_v3_max(hi, v[idx[k]]);
    double l2 = cr_v3_len2(cr_v3_sub(hi, lo));
    for (uint32_t t = 0; t < n; ++t) {
        uint32_t a = idx[3 * t], b = idx[3 * t + 1], c = idx[3 * t + 2];
        double area2 = cr_v3_len(cr_v3_cross(cr_v3_sub(v[b], v[a]), cr_v3_sub(v[c], v[a])));
        if (a == b || b == c || c == a || !(area2 > 1e-14 * l2))
            return FAIL("triangle %u (vertices %u, %u, %u) is degenerate: zero area", t, a, b, c);
    }
    return check_edges(idx, n, msg, size);
}

static void tri_bounds(const cr_mesh *m, uint32_t t, cr_vec3 *lo, cr_vec3 *hi)
{
    cr_vec3 a = m->vertices[m->triangles[3 * t]], b = m->vertices[m->triangles[3 * t + 1]],
            c = m->vertices[m->triangles[3 * t + 2]];
    *lo = cr_v3_min(cr_v3_min(a, b), c);
    *hi = cr_v3_max(cr_v3_max(a, b), c);
}

typedef struct keyed {
    double key;
    uint32_t tri;
} keyed;

static int keyed_cmp(const void *pa, const void *pb)
{
    const keyed *a = pa, *b = pb;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    return (a->tri > b->tri) - (a->tri < b->tri); /* qsort is not stable: ties by index keep it deterministic */
}

/* Median split on the longest axis of the triangles' centroid bounds: the
 * tree is balanced (depth about log2(n / 4)) whatever the mesh looks like. */
static void build_node(cr_mesh *m, keyed *tmp, uint32_t node, uint32_t first, uint32_t count)
{
    cr_bvh_node *nd = &m->nodes[node];
    cr_vec3 clo, chi;
    for (uint32_t k = 0; k < count; ++k) {
        cr_vec3 lo, hi, c;
        tri_bounds(m, m->order[first + k], &lo, &hi);
        c = cr_v3_scale(cr_v3_add(lo, hi), 0.5);
        nd->lo = k ? cr_v3_min(nd->lo, lo) : lo;
        nd->hi = k ? cr_v3_max(nd->hi, hi) : hi;
        clo = k ? cr_v3_min(clo, c) : c;
        chi = k ? cr_v3_max(chi, c) : c;
    }
    if (count <= 4) {
        nd->first = first;
        nd->count = count;
        return;
    }
    cr_vec3 ext = cr_v3_sub(chi, clo);
    int axis = ext.x >= ext.y && ext.x >= ext.z ? 0 : (ext.y >= ext.z ? 1 : 2);
    for (uint32_t k = 0; k < count; ++k) {
        cr_vec3 lo, hi;
        tri_bounds(m, m->order[first + k], &lo, &hi);
        tmp[k].key = cr_v3_get(lo, axis) + cr_v3_get(hi, axis);
        tmp[k].tri = m->order[first + k];
    }
    qsort(tmp, count, sizeof *tmp, keyed_cmp);
    for (uint32_t k = 0; k < count; ++k) m->order[first + k] = tmp[k].tri;
    uint32_t child = m->node_count, half = count / 2;
    m->node_count += 2;
    nd->first = child;
    nd->count = 0;
    build_node(m, tmp, child, first, half);
    build_node(m, tmp, child + 1, first + half, count - half);
}

bool cr_bvh_build(cr_mesh *m)
{
    free(m->nodes);
    free(m->order);
    m->nodes = malloc(sizeof *m->nodes * (2 * (size_t)m->triangle_count));
    m->order = malloc(sizeof *m->order * m->triangle_count);
    keyed *tmp = malloc(sizeof *tmp * m->triangle_count);
    if (!m->nodes || !m->order || !tmp) {
        free(tmp);
        return false;
    }
    for (uint32_t t = 0; t < m->triangle_count; ++t) m->order[t] = t;
    m->node_count = 1;
    build_node(m, tmp, 0, 0, m->triangle_count);
    free(tmp);
    return true;
}

static bool overlaps(cr_vec3 alo, cr_vec3 ahi, cr_vec3 blo, cr_vec3 bhi)
{
    return alo.x <= bhi.x && blo.x <= ahi.x && alo.y <= bhi.y && blo.y <= ahi.y && alo.z <= bhi.z && blo.z <= ahi.z;
}

void cr_bvh_query(const cr_mesh *m, cr_vec3 lo, cr_vec3 hi, cr_bvh_visit visit, void *user)
{
    /* Balanced tree of at most 2^32 triangles: depth < 32, and the stack
     * holds at most one pending sibling per level. */
    uint32_t stack[64], n = 0;
    if (!m->node_count || !overlaps(m->nodes[0].lo, m->nodes[0].hi, lo, hi)) return;
    stack[n++] = 0;
    while (n) {
        const cr_bvh_node *nd = &m->nodes[stack[--n]];
        if (nd->count) {
            for (uint32_t k = 0; k < nd->count; ++k) {
                cr_vec3 tlo, thi;
                tri_bounds(m, m->order[nd->first + k], &tlo, &thi);
                if (overlaps(tlo, thi, lo, hi)) visit(user, m->order[nd->first + k]);
            }
            continue;
        }
        for (uint32_t c = nd->first; c < nd->first + 2; ++c)
            if (overlaps(m->nodes[c].lo, m->nodes[c].hi, lo, hi)) stack[n++] = c;
    }
}

/* A solid's second moment C = integral of r r^T is positive definite, and
 * I = tr(C) 1 - C; a closed, consistently oriented surface that crosses
 * itself (or holds inverted pockets) can have a positive volume and still
 * give a C no solid has, hence moments of inertia no body has (found by
 * fuzzing). Sylvester's criterion on C = tr(I)/2 1 - I, to rounding. */
static bool solid_inertia(const cr_mat3 *I)
{
    double half = 0.5 * (I->m[0][0] + I->m[1][1] + I->m[2][2]);
    cr_mat3 C = cr_m3_add(cr_m3_scale(*I, -1.0), cr_m3_diag(half, half, half));
    double tol = 1e-12 * half;
    double m1 = C.m[0][0], m2 = C.m[0][0] * C.m[1][1] - C.m[0][1] * C.m[1][0], m3 = cr_m3_det(C);
    return half > 0.0 && m1 > tol && m2 > tol * tol && m3 > tol * tol * tol;
}

cr_status cr_shape_create_mesh(const cr_vec3 *vertices, uint32_t nv, const uint32_t *idx, uint32_t n, cr_shape **out,
                               char *msg, size_t size)
{
    *out = NULL;
    cr_status st = validate(vertices, nv, idx, n, msg, size);
    if (st != CR_OK) return st;
    cr_mass_properties mass;
    cr_mass_from_triangles(vertices, idx, n, &mass);
    if (!(mass.volume > 0.0))
        return FAIL("mesh volume %g is not positive: the triangles are oriented inward (they must be "
                    "counter-clockwise seen from outside)",
                    mass.volume);
    if (!solid_inertia(&mass.inertia_unit))
        return FAIL("mesh inertia (%g, %g, %g on the diagonal) is not a solid's: the surface crosses itself or "
                    "encloses inverted parts",
                    mass.inertia_unit.m[0][0], mass.inertia_unit.m[1][1], mass.inertia_unit.m[2][2]);

    cr_shape *s = cr_shape_alloc(CR_SHAPE_MESH);
    if (!s) goto oom;
    cr_mesh *m = &s->mesh;
    s->mass = mass;
    s->offset = mass.centroid;
    m->vertex_count = nv;
    m->triangle_count = n;
    m->vertices = malloc(sizeof *m->vertices * nv);
    m->triangles = malloc(sizeof *m->triangles * 3 * n);
    m->normals = malloc(sizeof *m->normals * n);
    bool *used = calloc(nv, sizeof *used);
    cr_vec3 *hull_points = malloc(sizeof *hull_points * nv);
    if (!m->vertices || !m->triangles || !m->normals || !used || !hull_points) {
        free(used);
        free(hull_points);
        goto oom;
    }
    for (uint32_t i = 0; i < nv; ++i) m->vertices[i] = cr_v3_sub(vertices[i], s->offset);
    memcpy(m->triangles, idx, sizeof *m->triangles * 3 * n);
    for (uint32_t t = 0; t < n; ++t) {
        cr_vec3 a = m->vertices[idx[3 * t]], b = m->vertices[idx[3 * t + 1]], c = m->vertices[idx[3 * t + 2]];
        m->normals[t] = cr_v3_normalize(cr_v3_cross(cr_v3_sub(b, a), cr_v3_sub(c, a)));
        for (int k = 0; k < 3; ++k) used[idx[3 * t + k]] = true;
    }
    /* The hull of the vertices the triangles use, in the same centred frame. */
    uint32_t nh = 0;
    for (uint32_t i = 0; i < nv; ++i)
        if (used[i]) hull_points[nh++] = m->vertices[i];
    free(used);
    st = cr_hull_build(&s->hull, hull_points, nh, msg, size);
    free(hull_points);
    if (st != CR_OK) {
        cr_shape_release(s);
        return st;
    }
    for (uint32_t i = 0; i < s->hull.vertex_count; ++i) s->radius = fmax(s->radius, cr_v3_len(s->hull.vertices[i]));
    if (!cr_bvh_build(m)) goto oom;
    *out = s;
    return CR_OK;
oom:
    cr_shape_release(s);
    if (msg && size) snprintf(msg, size, "out of memory");
    return CR_ERR_OUT_OF_MEMORY;
}
