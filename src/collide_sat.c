/* Separating-axis test of two convex hulls: the face normals of A, of B and
 * the cross products of edge pairs (seed 003: vertex/face and edge/edge are
 * the only ways polyhedra touch, so these axes suffice to detect overlap).
 * Edge pairs are pruned on the Gauss map (Gregorius, "The separating axis
 * test between convex polyhedra", GDC 2013): only pairs whose arcs cross
 * build a face of the Minkowski difference, and only those can be the
 * supporting features along their cross product. */
#include <float.h>

#include "collide_poly.h"

double cr_hull_radius(const cr_hull *h)
{
    double r2 = 0.0;
    for (uint32_t i = 0; i < h->vertex_count; ++i) r2 = fmax(r2, cr_v3_len2(h->vertices[i]));
    return sqrt(r2);
}

cr_vec3 cr_hull_vertex_average(const cr_hull *h)
{
    cr_vec3 c = cr_v3_zero();
    for (uint32_t i = 0; i < h->vertex_count; ++i) c = cr_v3_add(c, h->vertices[i]);
    return h->vertex_count ? cr_v3_scale(c, 1.0 / h->vertex_count) : c;
}

/* Best face of a against b: for each face plane of a, the lowest vertex of b
 * above it. The face normal is taken into b's frame so that b's vertices are
 * used as stored. Stops at the first face that separates by more than
 * cutoff: the pair is then apart whatever the other axes say. */
static double face_query(const cr_hull *a, cr_pose pa, const cr_hull *b, cr_pose pb, double cutoff, uint32_t *best)
{
    double sep = -HUGE_VAL;
    *best = 0;
    for (uint32_t f = 0; f < a->face_count; ++f) {
        cr_vec3 n = cr_pose_dir(pa, a->faces[f].normal);
        double d = cr_v3_dot(n, pa.x) + a->faces[f].offset - cr_v3_dot(n, pb.x);
        cr_vec3 nb = cr_pose_local_dir(pb, n);
        double lo = HUGE_VAL;
        for (uint32_t i = 0; i < b->vertex_count; ++i) lo = fmin(lo, cr_v3_dot(nb, b->vertices[i]));
        if (lo - d > sep) {
            sep = lo - d;
            *best = f;
            if (sep > cutoff) break;
        }
    }
    return sep;
}

/* An edge's arcs on the Gauss map: the great arc between its two face
 * normals. A flat hull (a triangle) has antipodal normals n, -n; its arc is
 * split at the edge's outward in-plane direction so that each half is < 180°. */
typedef struct arc {
    cr_vec3 a, b;
} arc;

static uint32_t edge_arcs(const cr_hull *h, cr_pose p, cr_vec3 centre, uint32_t e, arc out[2])
{
    cr_vec3 u = cr_pose_dir(p, h->faces[h->edge_faces[2 * e]].normal);
    cr_vec3 v = cr_pose_dir(p, h->faces[h->edge_faces[2 * e + 1]].normal);
    if (cr_v3_len2(cr_v3_cross(u, v)) > 1e-18 || cr_v3_dot(u, v) > 0.0) {
        out[0].a = u;
        out[0].b = v;
        return 1;
    }
    cr_vec3 p0 = h->vertices[h->edges[2 * e]], p1 = h->vertices[h->edges[2 * e + 1]];
    cr_vec3 mid = cr_v3_sub(cr_v3_scale(cr_v3_add(p0, p1), 0.5), centre);
    cr_vec3 m = cr_pose_dir(p, cr_v3_normalize(cr_v3_reject(mid, cr_v3_normalize(cr_v3_sub(p1, p0)))));
    out[0].a = u;
    out[0].b = m;
    out[1].a = m;
    out[1].b = v;
    return 2;
}

/* Do arcs AB and CD cross on the unit sphere? (Gregorius' IsMinkowskiFace.) */
static bool arcs_cross(cr_vec3 a, cr_vec3 b, cr_vec3 c, cr_vec3 d)
{
    cr_vec3 bxa = cr_v3_cross(b, a), dxc = cr_v3_cross(d, c);
    double cba = cr_v3_dot(c, bxa), dba = cr_v3_dot(d, bxa);
    double adc = cr_v3_dot(a, dxc), bdc = cr_v3_dot(b, dxc);
    return cba * dba < 0.0 && adc * bdc < 0.0 && cba * bdc > 0.0;
}

/* Arc of a's edge that crosses the negated arc of b's edge (the Minkowski
 * difference A - B); returns its midpoint direction, or zero when none. */
static cr_vec3 minkowski_mid(const arc *aa, uint32_t na, const arc *ab, uint32_t nb)
{
    for (uint32_t i = 0; i < na; ++i)
        for (uint32_t j = 0; j < nb; ++j)
            if (arcs_cross(aa[i].a, aa[i].b, cr_v3_neg(ab[j].a), cr_v3_neg(ab[j].b)))
                return cr_v3_add(aa[i].a, aa[i].b);
    return cr_v3_zero();
}

/* B's edges in world coordinates, once per query rather than once per edge
 * of A: the start point, the unit direction and the Gauss-map arcs. */
#define CR_EDGE_CACHE 64
typedef struct edge_world {
    cr_vec3 q0, dir;
    arc arcs[2];
    uint32_t arc_count;
} edge_world;

static edge_world edge_in_world(const cr_hull *h, cr_pose p, cr_vec3 centre, uint32_t e)
{
    edge_world w;
    w.q0 = cr_pose_point(p, h->vertices[h->edges[2 * e]]);
    w.dir = cr_v3_normalize(cr_v3_sub(cr_pose_point(p, h->vertices[h->edges[2 * e + 1]]), w.q0));
    w.arc_count = edge_arcs(h, p, centre, e, w.arcs);
    return w;
}

static void edge_query(const cr_hull *a, cr_pose pa, const cr_hull *b, cr_pose pb, cr_sat *s)
{
    cr_vec3 ca = cr_hull_vertex_average(a), cb = cr_hull_vertex_average(b);
    s->edge = -HUGE_VAL;
    s->ea = s->eb = 0;
    s->edge_axis = cr_v3(0, 0, 1);
    edge_world cache[CR_EDGE_CACHE];
    bool cached = b->edge_count <= CR_EDGE_CACHE;
    if (cached)
        for (uint32_t j = 0; j < b->edge_count; ++j) cache[j] = edge_in_world(b, pb, cb, j);
    for (uint32_t i = 0; i < a->edge_count; ++i) {
        edge_world ew = edge_in_world(a, pa, ca, i);
        for (uint32_t j = 0; j < b->edge_count; ++j) {
            edge_world eb = cached ? cache[j] : edge_in_world(b, pb, cb, j);
            /* the Gauss-map test first: it rejects most pairs, without a
             * square root */
            cr_vec3 mid = minkowski_mid(ew.arcs, ew.arc_count, eb.arcs, eb.arc_count);
            if (cr_v3_len2(mid) == 0.0) continue;
            cr_vec3 axis = cr_v3_cross(ew.dir, eb.dir);
            double len = cr_v3_len(axis);
            if (len < CR_PARALLEL_SIN) continue; /* parallel: covered by the face axes, see collide_hull.c */
            axis = cr_v3_scale(axis, 1.0 / len);
            if (cr_v3_dot(axis, mid) < 0.0) axis = cr_v3_neg(axis); /* the crossing lies on A's arc: outward */
            double sep = cr_v3_dot(axis, cr_v3_sub(eb.q0, ew.q0));
            if (sep > s->edge) {
                s->edge = sep;
                s->ea = i;
                s->eb = j;
                s->edge_axis = axis;
            }
        }
    }
}

void cr_sat_query(const cr_hull *a, cr_pose pa, const cr_hull *b, cr_pose pb, double cutoff, cr_sat *s)
{
    s->fb = 0;
    s->face_a = face_query(a, pa, b, pb, cutoff, &s->fa);
    s->face_b = s->face_a > cutoff ? -HUGE_VAL : face_query(b, pb, a, pa, cutoff, &s->fb);
    if (fmax(s->face_a, s->face_b) > cutoff) {
        s->edge = -HUGE_VAL;
        s->ea = s->eb = 0;
        s->edge_axis = cr_v3(0, 0, 1);
        s->radius_a = s->radius_b = 0.0;
        return;
    }
    s->radius_a = cr_hull_radius(a);
    s->radius_b = cr_hull_radius(b);
    edge_query(a, pa, b, pb, s);
}

double cr_sat_best(const cr_sat *s, const cr_hull *a, cr_pose pa, const cr_hull *b, cr_pose pb, cr_vec3 *axis)
{
    if (s->edge >= s->face_a && s->edge >= s->face_b) {
        *axis = s->edge_axis;
        return s->edge;
    }
    if (s->face_a >= s->face_b) {
        *axis = cr_pose_dir(pa, a->faces[s->fa].normal);
        return s->face_a;
    }
    *axis = cr_v3_neg(cr_pose_dir(pb, b->faces[s->fb].normal));
    return s->face_b;
}

double cr_hull_separation(const cr_hull *a, cr_pose pa, const cr_hull *b, cr_pose pb)
{
    cr_sat s;
    cr_vec3 axis;
    cr_sat_query(a, pa, b, pb, HUGE_VAL, &s);
    return cr_sat_best(&s, a, pa, b, pb, &axis);
}
