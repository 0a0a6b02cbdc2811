/* Shapes in a checkpoint (src/checkpoint_shape.h). A hull read back is
 * checked so that every index the narrow phase follows stays inside its
 * arrays (faces' vertex runs, their vertices, the edges' vertices and
 * faces); its geometry is taken as saved. */
#include "checkpoint_shape.h"
#include "message.h"

/* The length of a hull's face_vertices: the end of its last run. */
static uint32_t face_vertex_count(const cr_hull *h)
{
    uint32_t n = 0;
    for (uint32_t f = 0; f < h->face_count; ++f)
        if (h->faces[f].first + h->faces[f].count > n) n = h->faces[f].first + h->faces[f].count;
    return n;
}

void cr_ckpt_write_shape(writer *o, const cr_shape *s)
{
    put_u32(o, (uint32_t)s->type);
    if (s->type == CR_SHAPE_SPHERE) {
        put_f64(o, s->radius);
        return;
    }
    if (s->type == CR_SHAPE_BOX) {
        put_vec(o, s->half_extents);
        return;
    }
    const cr_hull *h = &s->hull; /* a hull's, or a mesh's convex hull (what it collides with moving) */
    put_f64(o, s->radius);
    put_vec(o, s->offset);
    put_f64(o, s->mass.volume);
    put_vec(o, s->mass.centroid);
    put_mat(o, &s->mass.inertia_unit);
    uint32_t fv = face_vertex_count(h);
    put_u32(o, h->vertex_count);
    put_u32(o, h->face_count);
    put_u32(o, fv);
    put_u32(o, h->edge_count);
    for (uint32_t v = 0; v < h->vertex_count; ++v) put_vec(o, h->vertices[v]);
    for (uint32_t f = 0; f < h->face_count; ++f) {
        put_u32(o, h->faces[f].first);
        put_u32(o, h->faces[f].count);
        put_vec(o, h->faces[f].normal);
        put_f64(o, h->faces[f].offset);
    }
    for (uint32_t k = 0; k < fv; ++k) put_u32(o, h->face_vertices[k]);
    for (uint32_t e = 0; e < 2 * h->edge_count; ++e) put_u32(o, h->edges[e]);
    for (uint32_t e = 0; e < 2 * h->edge_count; ++e) put_u32(o, h->edge_faces[e]);
    if (s->type != CR_SHAPE_MESH) return;
    const cr_mesh *m = &s->mesh;
    put_u32(o, m->vertex_count);
    put_u32(o, m->triangle_count);
    put_u32(o, m->node_count);
    for (uint32_t v = 0; v < m->vertex_count; ++v) put_vec(o, m->vertices[v]);
    for (uint32_t t = 0; t < 3 * m->triangle_count; ++t) put_u32(o, m->triangles[t]);
    for (uint32_t t = 0; t < m->triangle_count; ++t) put_vec(o, m->normals[t]);
    for (uint32_t k = 0; k < m->node_count; ++k) {
        put_vec(o, m->nodes[k].lo);
        put_vec(o, m->nodes[k].hi);
        put_u32(o, m->nodes[k].first);
        put_u32(o, m->nodes[k].count);
    }
    for (uint32_t t = 0; t < m->triangle_count; ++t) put_u32(o, m->order[t]);
}

/* A value out of range: the message naming it (src/message.h; formatted
 * first, its arguments may read s), shape s (may be NULL) released, NULL. */
#define refuse(s, msg, size, ...) (cr_msgf((msg), (size), __VA_ARGS__), cr_shape_release(s), (cr_shape *)NULL)

/* The depth of the tree below node k of nodes that each name children
 * after themselves (checked before), deepest first: at most limit + 1. */
static uint32_t tree_depth(const cr_bvh_node *nodes, uint32_t n, uint32_t limit)
{
    uint32_t *depth = malloc(sizeof *depth * (n ? n : 1)), most = 0;
    if (!depth) return limit + 1;
    for (uint32_t k = n; k-- > 0;) {
        depth[k] = 1;
        if (!nodes[k].count) {
            uint32_t a = depth[nodes[k].first], b = depth[nodes[k].first + 1];
            depth[k] = 1 + (a > b ? a : b);
            if (depth[k] > limit) depth[k] = limit + 1;
        }
    }
    most = n ? depth[0] : 0;
    free(depth);
    return most;
}

/* A mesh's arrays after its hull's, read and checked: triangles of its
 * vertices, leaves of its triangles, inner nodes naming two children
 * after themselves (no cycle), and no deeper than the queries' stacks
 * (shape_mesh.c's cr_bvh_query: 64 entries, one pending sibling a level;
 * a balanced tree of 2^32 triangles is 33 deep). */
#define CR_CKPT_BVH_DEPTH 60
static cr_shape *read_mesh(reader *r, cr_shape *s, uint32_t k, char *msg, size_t size)
{
    cr_mesh *m = &s->mesh;
    uint32_t vc = get_count(r, 24), tc = get_count(r, 24 + 24 + 8), nc = get_count(r, 64);
    if (r->bad) return refuse(s, NULL, 0, "%s", "");
    if (vc < 4 || tc < 4 || nc < 1)
        return refuse(s, msg, size, "checkpoint: shape %u: a mesh of %u vertices, %u triangles, %u nodes", k, vc, tc, nc);
    m->vertex_count = vc, m->triangle_count = tc, m->node_count = nc;
    m->vertices = malloc(sizeof *m->vertices * vc);
    m->triangles = malloc(sizeof *m->triangles * 3 * (size_t)tc);
    m->normals = malloc(sizeof *m->normals * tc);
    m->nodes = malloc(sizeof *m->nodes * nc);
    m->order = malloc(sizeof *m->order * tc);
    if (!m->vertices || !m->triangles || !m->normals || !m->nodes || !m->order)
        return refuse(s, msg, size, "checkpoint: shape %u: out of memory", k);
    for (uint32_t v = 0; v < vc; ++v) m->vertices[v] = get_vec(r);
    for (uint32_t t = 0; t < 3 * tc && !r->bad; ++t)
        if ((m->triangles[t] = get_u32(r)) >= vc && !r->bad)
            return refuse(s, msg, size, "checkpoint: shape %u: triangle %u's vertex %u of %u", k, t / 3, m->triangles[t], vc);
    for (uint32_t t = 0; t < tc; ++t) m->normals[t] = get_vec(r);
    for (uint32_t n = 0; n < nc && !r->bad; ++n) {
        cr_bvh_node *nd = &m->nodes[n];
        nd->lo = get_vec(r);
        nd->hi = get_vec(r);
        nd->first = get_u32(r);
        nd->count = get_u32(r);
        if (r->bad) break;
        if (nd->count ? nd->first > tc || nd->count > tc - nd->first : nd->first <= n || nd->first >= nc - 1)
            return refuse(s, msg, size, "checkpoint: shape %u: tree node %u (first %u, count %u) out of range", k, n,
                          nd->first, nd->count);
    }
    for (uint32_t t = 0; t < tc && !r->bad; ++t)
        if ((m->order[t] = get_u32(r)) >= tc && !r->bad)
            return refuse(s, msg, size, "checkpoint: shape %u: tree leaf entry %u is triangle %u of %u", k, t, m->order[t],
                          tc);
    if (r->bad) return refuse(s, NULL, 0, "%s", "");
    if (tree_depth(m->nodes, nc, CR_CKPT_BVH_DEPTH) > CR_CKPT_BVH_DEPTH)
        return refuse(s, msg, size, "checkpoint: shape %u: a tree deeper than %d", k, CR_CKPT_BVH_DEPTH);
    return s;
}

/* A hull's arrays (a hull's, or a mesh's before its own), read and
 * checked. */
static cr_shape *read_hull(reader *r, cr_shape_type type, uint32_t k, char *msg, size_t size)
{
    cr_shape *s = cr_shape_alloc(type);
    if (!s) return refuse(s, msg, size, "checkpoint: shape %u: out of memory", k);
    cr_hull *h = &s->hull;
    s->radius = get_f64(r);
    s->offset = get_vec(r);
    s->mass.volume = get_f64(r);
    s->mass.centroid = get_vec(r);
    get_mat(r, &s->mass.inertia_unit);
    uint32_t vc = get_count(r, 24), fc = get_count(r, 48), fv = get_count(r, 8), ec = get_count(r, 32);
    if (r->bad) return refuse(s, NULL, 0, "%s", "");
    if (!(s->radius > 0.0) || !(s->mass.volume > 0.0))
        return refuse(s, msg, size, "checkpoint: shape %u: hull radius %.17g and volume %.17g, not > 0", k, s->radius,
                      s->mass.volume);
    if (vc < 4 || fc < 4 || ec < 6)
        return refuse(s, msg, size, "checkpoint: shape %u: a hull of %u vertices, %u faces, %u edges", k, vc, fc, ec);
    h->vertex_count = vc, h->face_count = fc, h->edge_count = ec;
    h->vertices = malloc(sizeof *h->vertices * vc);
    h->faces = malloc(sizeof *h->faces * fc);
    h->face_vertices = malloc(sizeof *h->face_vertices * (fv ? fv : 1));
    h->edges = malloc(sizeof *h->edges * 2 * (size_t)ec);
    h->edge_faces = malloc(sizeof *h->edge_faces * 2 * (size_t)ec);
    if (!h->vertices || !h->faces || !h->face_vertices || !h->edges || !h->edge_faces)
        return refuse(s, msg, size, "checkpoint: shape %u: out of memory", k);
    for (uint32_t v = 0; v < vc; ++v) h->vertices[v] = get_vec(r);
    for (uint32_t f = 0; f < fc && !r->bad; ++f) {
        cr_hull_face *F = &h->faces[f];
        F->first = get_u32(r);
        F->count = get_u32(r);
        F->normal = get_vec(r);
        F->offset = get_f64(r);
        if (!r->bad && (F->count < 3 || F->first > fv || F->count > fv - F->first))
            return refuse(s, msg, size, "checkpoint: shape %u: face %u's vertices [%u, +%u) are not in the %u listed", k, f,
                          F->first, F->count, fv);
    }
    if (!r->bad && face_vertex_count(h) != fv) /* what the saver writes: a longer list would save back shorter */
        return refuse(s, msg, size, "checkpoint: shape %u: %u face vertices listed, the faces use %u", k, fv,
                      face_vertex_count(h));
    for (uint32_t i = 0; i < fv && !r->bad; ++i)
        if ((h->face_vertices[i] = get_u32(r)) >= vc && !r->bad)
            return refuse(s, msg, size, "checkpoint: shape %u: face vertex %u is vertex %u of %u", k, i,
                          h->face_vertices[i], vc);
    for (uint32_t e = 0; e < 2 * ec && !r->bad; ++e)
        if ((h->edges[e] = get_u32(r)) >= vc && !r->bad)
            return refuse(s, msg, size, "checkpoint: shape %u: edge %u's vertex %u of %u", k, e / 2, h->edges[e], vc);
    for (uint32_t e = 0; e < 2 * ec && !r->bad; ++e)
        if ((h->edge_faces[e] = get_u32(r)) >= fc && !r->bad)
            return refuse(s, msg, size, "checkpoint: shape %u: edge %u's face %u of %u", k, e / 2, h->edge_faces[e], fc);
    if (r->bad) return refuse(s, NULL, 0, "%s", "");
    /* The geometry as the hull's builder leaves it (shape_hull.c), what the
     * narrow phase's bounds and planes rely on: the bounding radius is the
     * largest |vertex| (so every vertex within it, to the bit), each face
     * normal is unit and its plane passes within the radius. */
    for (uint32_t v = 0; v < vc; ++v)
        if (!(cr_v3_len(h->vertices[v]) <= s->radius))
            return refuse(s, msg, size, "checkpoint: shape %u: vertex %u at %.17g from the centre, outside the radius %.17g",
                          k, v, cr_v3_len(h->vertices[v]), s->radius);
    for (uint32_t f = 0; f < fc; ++f)
        if (!(fabs(cr_v3_len(h->faces[f].normal) - 1.0) <= 1e-9) || !(fabs(h->faces[f].offset) <= 1.000001 * s->radius))
            return refuse(s, msg, size, "checkpoint: shape %u: face %u's normal (length %.17g) or offset %.17g", k, f,
                          cr_v3_len(h->faces[f].normal), h->faces[f].offset);
    return type == CR_SHAPE_MESH ? read_mesh(r, s, k, msg, size) : s;
}

cr_shape *cr_ckpt_read_shape(reader *r, uint32_t k, char *msg, size_t size)
{
    uint32_t type = get_u32(r);
    if (r->bad) return NULL;
    cr_shape *s = NULL;
    char why[200];
    cr_status st = CR_OK;
    switch (type) {
    case CR_SHAPE_SPHERE: {
        double radius = get_f64(r);
        if (r->bad) return NULL;
        st = cr_shape_create_sphere(radius, &s, why, sizeof why);
        break;
    }
    case CR_SHAPE_BOX: {
        cr_vec3 h = get_vec(r);
        if (r->bad) return NULL;
        st = cr_shape_create_box(h, &s, why, sizeof why);
        break;
    }
    case CR_SHAPE_HULL:
    case CR_SHAPE_MESH: return read_hull(r, (cr_shape_type)type, k, msg, size);
    default: return refuse(NULL, msg, size, "checkpoint: shape %u: type %u is not a sphere, box, hull or mesh", k, type);
    }
    return st == CR_OK ? s : refuse(NULL, msg, size, "checkpoint: shape %u: %s", k, why);
}
