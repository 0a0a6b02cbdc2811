/* A static (or kinematic) triangle mesh against a convex hull or a sphere.
 * The other shape's bounds, taken into the mesh frame and grown by the
 * margin, select triangles through the mesh's BVH; each triangle is a thin
 * convex piece (two faces, three edges) run through the hull-hull narrow
 * phase. Only its outward side counts: the mesh is closed, so whatever lies
 * behind a triangle is the business of the triangles facing it. */
#include "collide_poly.h"

#define BVH_STACK 64

typedef void tri_visit(const cr_mesh *mesh, uint32_t tri, void *ctx);

/* Every triangle whose leaf box meets [lo, hi] (mesh frame). Walks the tree
 * generically; a mesh without nodes is scanned whole. */
static void bvh_query(const cr_mesh *mesh, cr_vec3 lo, cr_vec3 hi, tri_visit *visit, void *ctx)
{
    if (mesh->node_count == 0) {
        for (uint32_t t = 0; t < mesh->triangle_count; ++t) visit(mesh, t, ctx);
        return;
    }
    uint32_t stack[BVH_STACK], sp = 0;
    stack[sp++] = 0;
    while (sp > 0) {
        const cr_bvh_node *nd = &mesh->nodes[stack[--sp]];
        if (nd->lo.x > hi.x || nd->lo.y > hi.y || nd->lo.z > hi.z || nd->hi.x < lo.x || nd->hi.y < lo.y ||
            nd->hi.z < lo.z)
            continue;
        if (nd->count > 0) {
            for (uint32_t k = nd->first; k < nd->first + nd->count; ++k) visit(mesh, mesh->order[k], ctx);
        } else if (sp + 2 <= BVH_STACK) { /* a balanced tree over 2^62 triangles never gets here */
            stack[sp++] = nd->first;
            stack[sp++] = nd->first + 1;
        }
    }
}

/* A triangle as a flat hull: front face (outward normal) and back face. */
typedef struct tri_hull {
    cr_hull h;
    cr_vec3 v[3];
    cr_hull_face f[2];
    uint32_t fv[6], e[6], ef[6];
} tri_hull;

static void tri_hull_init(tri_hull *t, const cr_mesh *mesh, uint32_t tri)
{
    static const uint32_t fv[6] = {0, 1, 2, 0, 2, 1};
    /* edges (0,1), (1,2), (0,2): the face walking lo -> hi first */
    static const uint32_t e[6] = {0, 1, 1, 2, 0, 2}, ef[6] = {0, 1, 0, 1, 1, 0};
    for (int k = 0; k < 3; ++k) t->v[k] = mesh->vertices[mesh->triangles[3 * tri + k]];
    cr_vec3 n = mesh->normals[tri];
    t->f[0].first = 0;
    t->f[0].count = 3;
    t->f[0].normal = n;
    t->f[0].offset = cr_v3_dot(n, t->v[0]);
    t->f[1].first = 3;
    t->f[1].count = 3;
    t->f[1].normal = cr_v3_neg(n);
    t->f[1].offset = -t->f[0].offset;
    for (int k = 0; k < 6; ++k) {
        t->fv[k] = fv[k];
        t->e[k] = e[k];
        t->ef[k] = ef[k];
    }
    t->h.vertex_count = 3;
    t->h.face_count = 2;
    t->h.edge_count = 3;
    t->h.vertices = t->v;
    t->h.faces = t->f;
    t->h.face_vertices = t->fv;
    t->h.edges = t->e;
    t->h.edge_faces = t->ef;
}

typedef struct hull_ctx {
    cr_pose pa, pb;
    const cr_hull *b;
    cr_vec3 b_centre; /* mesh frame */
    double margin;
    cr_collector col;
} hull_ctx;

static void visit_hull(const cr_mesh *mesh, uint32_t tri, void *p)
{
    hull_ctx *c = p;
    tri_hull t;
    tri_hull_init(&t, mesh, tri);
    cr_vec3 n = mesh->normals[tri];
    if (cr_v3_dot(n, cr_v3_sub(c->b_centre, t.v[0])) < 0.0) return; /* behind: not this triangle's business */
    cr_vec3 nw = cr_pose_dir(c->pa, n);
    cr_manifold tm;
    cr_collide_hull_hull(&t.h, c->pa, c->b, c->pb, c->margin, &tm);
    bool front = tm.count > 0;
    for (uint32_t i = 0; i < tm.count; ++i) front = front && cr_v3_dot(tm.p[i].normal, nw) < 0.0;
    if (tm.count > 0 && !front) {
        /* The least penetration was through the back face, or sideways out
         * of an edge: push out through the front instead. */
        cr_contact_point pts[CR_PATCH_MAX];
        tm.count = cr_face_patch(&t.h, c->pa, 0, c->b, c->pb, true, c->margin, pts);
        if (tm.count > CR_MANIFOLD_MAX) tm.count = cr_reduce_points(pts, tm.count, 4);
        for (uint32_t i = 0; i < tm.count; ++i) tm.p[i] = pts[i];
    }
    for (uint32_t i = 0; i < tm.count; ++i) {
        tm.p[i].id = cr_feature_id(tm.p[i].kind, tri, 0, tm.p[i].id);
        cr_collect(&c->col, &tm.p[i]);
    }
}

static void collector_init(cr_collector *col, uint32_t keep, double eps)
{
    col->n = 0;
    col->keep = keep;
    col->eps = eps;
}

uint32_t cr_collide_mesh_hull(const cr_mesh *a, cr_pose pa, const cr_hull *b, cr_pose pb, double margin,
                              cr_manifold *m)
{
    hull_ctx c;
    c.pa = pa;
    c.pb = pb;
    c.b = b;
    c.margin = margin;
    c.b_centre = cr_pose_local_point(pa, pb.x);
    cr_vec3 lo = cr_v3(HUGE_VAL, HUGE_VAL, HUGE_VAL), hi = cr_v3_neg(lo);
    for (uint32_t i = 0; i < b->vertex_count; ++i) {
        cr_vec3 v = cr_pose_local_point(pa, cr_pose_point(pb, b->vertices[i]));
        lo = cr_v3_min(lo, v);
        hi = cr_v3_max(hi, v);
    }
    cr_vec3 g = cr_v3(fmax(margin, 0.0), fmax(margin, 0.0), fmax(margin, 0.0));
    collector_init(&c.col, CR_MANIFOLD_MAX, 1e-9 * (1.0 + cr_hull_radius(b)));
    bvh_query(a, cr_v3_sub(lo, g), cr_v3_add(hi, g), visit_hull, &c);
    return cr_collect_finish(&c.col, CR_MANIFOLD_MAX, m);
}

/* Closest point of triangle (a, b, c) to p (Ericson 5.1.5); *region: 0 the
 * face, 1..3 the vertices, 4..6 the edges ab, bc, ca. */
static cr_vec3 closest_on_triangle(cr_vec3 p, cr_vec3 a, cr_vec3 b, cr_vec3 c, uint32_t *region)
{
    cr_vec3 ab = cr_v3_sub(b, a), ac = cr_v3_sub(c, a), ap = cr_v3_sub(p, a);
    double d1 = cr_v3_dot(ab, ap), d2 = cr_v3_dot(ac, ap);
    if (d1 <= 0.0 && d2 <= 0.0) return *region = 1, a;
    cr_vec3 bp = cr_v3_sub(p, b);
    double d3 = cr_v3_dot(ab, bp), d4 = cr_v3_dot(ac, bp);
    if (d3 >= 0.0 && d4 <= d3) return *region = 2, b;
    double vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) return *region = 4, cr_v3_madd(a, ab, d1 / (d1 - d3));
    cr_vec3 cp = cr_v3_sub(p, c);
    double d5 = cr_v3_dot(ab, cp), d6 = cr_v3_dot(ac, cp);
    if (d6 >= 0.0 && d5 <= d6) return *region = 3, c;
    double vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) return *region = 6, cr_v3_madd(a, ac, d2 / (d2 - d6));
    double va = d3 * d6 - d5 * d4;
    if (va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0)
        return *region = 5, cr_v3_madd(b, cr_v3_sub(c, b), (d4 - d3) / ((d4 - d3) + (d5 - d6)));
    double den = 1.0 / (va + vb + vc);
    *region = 0;
    return cr_v3_add(a, cr_v3_add(cr_v3_scale(ab, vb * den), cr_v3_scale(ac, vc * den)));
}

typedef struct sphere_ctx {
    cr_pose pa;
    cr_vec3 q; /* centre, mesh frame */
    double r, margin;
    cr_collector col;
} sphere_ctx;

static void visit_sphere(const cr_mesh *mesh, uint32_t tri, void *p)
{
    sphere_ctx *c = p;
    const uint32_t *t = &mesh->triangles[3 * tri];
    cr_vec3 v0 = mesh->vertices[t[0]], n = mesh->normals[tri];
    uint32_t region;
    cr_vec3 cp = closest_on_triangle(c->q, v0, mesh->vertices[t[1]], mesh->vertices[t[2]], &region);
    double side = cr_v3_dot(n, cr_v3_sub(c->q, v0)), dist = cr_v3_len(cr_v3_sub(c->q, cp));
    cr_vec3 nl; /* sphere towards mesh, mesh frame */
    double sep;
    if (side >= 0.0 && dist > 0.0) {
        nl = cr_v3_scale(cr_v3_sub(cp, c->q), 1.0 / dist);
        sep = dist - c->r;
    } else if (region == 0) { /* centre on or behind the face: push out the front */
        nl = cr_v3_neg(n);
        sep = side - c->r;
    } else {
        return; /* behind an edge or vertex: the neighbours facing it answer */
    }
    if (sep > c->margin) return;
    cr_contact_point pt;
    cr_vec3 on_a = cr_pose_point(c->pa, cp), nw = cr_pose_dir(c->pa, nl);
    cr_vec3 on_b = cr_v3_madd(cr_pose_point(c->pa, c->q), nw, c->r);
    pt.point = cr_v3_scale(cr_v3_add(on_a, on_b), 0.5);
    pt.normal = nw;
    pt.separation = sep;
    pt.kind = CR_FEATURE_SMOOTH;
    pt.id = cr_feature_id(CR_FEATURE_SMOOTH, tri, region, 0);
    cr_collect(&c->col, &pt);
}

uint32_t cr_collide_mesh_sphere(const cr_mesh *a, cr_pose pa, cr_vec3 c, double r, double margin, cr_manifold *m)
{
    sphere_ctx s;
    s.pa = pa;
    s.q = cr_pose_local_point(pa, c);
    s.r = r;
    s.margin = margin;
    collector_init(&s.col, CR_MANIFOLD_MAX, 1e-9 * (1.0 + r));
    double g = r + fmax(margin, 0.0);
    bvh_query(a, cr_v3_sub(s.q, cr_v3(g, g, g)), cr_v3_add(s.q, cr_v3(g, g, g)), visit_sphere, &s);
    return cr_collect_finish(&s.col, CR_MANIFOLD_MAX, m);
}
