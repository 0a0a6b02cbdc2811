/* Contact manifold of two convex hulls (seed 003: vertex/face and edge/edge
 * contacts, each with its contact-plane normal).
 *
 * The separating-axis test (collide_sat.c) picks the axis of least
 * penetration. A face axis gives a patch: the incident face of the other
 * hull (the one most anti-parallel to the reference face) is clipped by the
 * reference face's side planes (Sutherland-Hodgman) and the clipped points
 * within the margin become vertex/face contacts with the face normal. An
 * edge axis gives one edge/edge contact at the closest points of the two
 * edges, normal along their cross product.
 *
 * Seed 003 sets the parallel-edge case aside ("a case we will ignore for
 * now"); we do not: parallel edges have no edge axis of their own, so a face
 * axis wins, but when the clipped patch is degenerate (fewer than three
 * points, or all on a line) the supporting features may be two parallel
 * edges. parallel_edges() finds such a pair (each edge's normal cone on the
 * Gauss map must hold the contact direction) and reports the two ends of
 * their shared interval. */
#include "collide_poly.h"

#define CLIP_MAX CR_PATCH_MAX /* incident + reference face vertices clipped at once */

/* Feature tags of clipped points: an incident vertex is its index; a point
 * cut by reference side plane j from the polygon edge with tag e is
 * CLIP_BIT | e << 24 | j. A polygon edge is the incident edge leaving vertex
 * v (EDGE_ORIG | v) or a stretch along side plane j (EDGE_SIDE | j). */
#define CLIP_BIT (1ull << 63)
#define EDGE_ORIG (1ull << 30)
#define EDGE_SIDE (2ull << 30)

typedef struct clip_vertex {
    cr_vec3 p;
    uint64_t tag;  /* the point's features */
    uint64_t etag; /* the features of the edge leaving it */
} clip_vertex;

/* Keeps the part of the convex polygon in[0..n) with sn . p <= sd. */
static uint32_t clip_polygon(const clip_vertex *in, uint32_t n, clip_vertex *out, cr_vec3 sn, double sd,
                             uint32_t plane)
{
    uint32_t m = 0;
    for (uint32_t i = 0; i < n && m + 2 <= CLIP_MAX; ++i) {
        const clip_vertex *a = &in[i], *b = &in[(i + 1) % n];
        double da = cr_v3_dot(sn, a->p) - sd, db = cr_v3_dot(sn, b->p) - sd;
        if (da <= 0.0) out[m++] = *a;
        if ((da <= 0.0) != (db <= 0.0)) {
            clip_vertex c;
            c.p = cr_v3_madd(a->p, cr_v3_sub(b->p, a->p), da / (da - db));
            c.tag = CLIP_BIT | (a->etag & 0xFFFFFFFFFull) << 24 | (plane & 0xFFFFFFu);
            c.etag = da <= 0.0 ? (EDGE_SIDE | plane) : a->etag; /* leaving: runs along the plane */
            out[m++] = c;
        }
    }
    return m;
}

static uint32_t incident_face(const cr_hull *h, cr_pose p, cr_vec3 nref)
{
    uint32_t best = 0;
    double lo = HUGE_VAL;
    for (uint32_t f = 0; f < h->face_count; ++f) {
        double d = cr_v3_dot(cr_pose_dir(p, h->faces[f].normal), nref);
        if (d < lo) {
            lo = d;
            best = f;
        }
    }
    return best;
}

uint32_t cr_face_patch(const cr_hull *ref, cr_pose pr, uint32_t fr, const cr_hull *inc, cr_pose pi, bool ref_is_a,
                           double margin, cr_contact_point *out)
{
    static const uint32_t cap = CLIP_MAX;
    const cr_hull_face *rf = &ref->faces[fr];
    cr_vec3 nref = cr_pose_dir(pr, rf->normal);
    double dref = cr_v3_dot(nref, pr.x) + rf->offset;
    uint32_t fi = incident_face(inc, pi, nref);
    const cr_hull_face *ifc = &inc->faces[fi];
    clip_vertex buf[2][CLIP_MAX];
    uint32_t n = 0, cur = 0;
    for (uint32_t k = 0; k < ifc->count && n < cap; ++k, ++n) {
        uint32_t v = inc->face_vertices[ifc->first + k];
        buf[0][n].p = cr_pose_point(pi, inc->vertices[v]);
        buf[0][n].tag = v;
        buf[0][n].etag = EDGE_ORIG | v;
    }
    for (uint32_t k = 0; k < rf->count && n > 0; ++k) {
        cr_vec3 v0 = cr_pose_point(pr, ref->vertices[ref->face_vertices[rf->first + k]]);
        cr_vec3 v1 = cr_pose_point(pr, ref->vertices[ref->face_vertices[rf->first + (k + 1) % rf->count]]);
        cr_vec3 sn = cr_v3_normalize(cr_v3_cross(cr_v3_sub(v1, v0), nref)); /* outward for a CCW face */
        n = clip_polygon(buf[cur], n, buf[1 - cur], sn, cr_v3_dot(sn, v0), k);
        cur = 1 - cur;
    }
    uint32_t kind = ref_is_a ? CR_FEATURE_FACE_VERTEX : CR_FEATURE_VERTEX_FACE;
    uint32_t count = 0;
    for (uint32_t i = 0; i < n; ++i) {
        double s = cr_v3_dot(nref, buf[cur][i].p) - dref;
        if (s > margin) continue;
        cr_contact_point *c = &out[count++];
        c->point = cr_v3_madd(buf[cur][i].p, nref, -0.5 * s);
        c->normal = ref_is_a ? cr_v3_neg(nref) : nref;
        c->separation = s;
        c->kind = (uint8_t)kind;
        c->id = cr_feature_id(kind, fr, fi, buf[cur][i].tag);
    }
    return count;
}

/* Is the patch a segment (or less)? Then it may be two parallel edges. */
static bool patch_is_thin(const cr_contact_point *p, uint32_t n, double eps)
{
    if (n < 3) return true;
    uint32_t i0 = 0, i1 = 0;
    double far = -1.0;
    for (uint32_t i = 0; i < n; ++i)
        for (uint32_t j = i + 1; j < n; ++j) {
            double d = cr_v3_len2(cr_v3_sub(p[i].point, p[j].point));
            if (d > far) {
                far = d;
                i0 = i;
                i1 = j;
            }
        }
    cr_vec3 u = cr_v3_normalize(cr_v3_sub(p[i1].point, p[i0].point));
    for (uint32_t i = 0; i < n; ++i)
        if (cr_v3_len(cr_v3_reject(cr_v3_sub(p[i].point, p[i0].point), u)) > eps) return false;
    return true;
}

/* Does the direction x (world) lie in the normal cone of edge e, the set of
 * directions in which e is the hull's support? Closed, with slack. */
static bool in_edge_cone(const cr_hull *h, cr_pose p, uint32_t e, cr_vec3 x)
{
    const double slack = 1e-7;
    cr_vec3 u = cr_pose_dir(p, h->faces[h->edge_faces[2 * e]].normal);
    cr_vec3 v = cr_pose_dir(p, h->faces[h->edge_faces[2 * e + 1]].normal);
    cr_vec3 c = cr_v3_cross(u, v);
    if (cr_v3_len2(c) < 1e-18) { /* flat hull: the half-space of the edge's outward in-plane direction */
        cr_vec3 p0 = h->vertices[h->edges[2 * e]], p1 = h->vertices[h->edges[2 * e + 1]];
        cr_vec3 mid = cr_v3_sub(cr_v3_scale(cr_v3_add(p0, p1), 0.5), cr_hull_vertex_average(h));
        cr_vec3 m = cr_pose_dir(p, cr_v3_reject(mid, cr_v3_normalize(cr_v3_sub(p1, p0))));
        return cr_v3_dot(m, x) >= -slack * cr_v3_len(m);
    }
    double lc = cr_v3_len(c);
    return cr_v3_dot(cr_v3_cross(u, x), c) >= -slack * lc && cr_v3_dot(cr_v3_cross(x, v), c) >= -slack * lc;
}

/* The closest pair of parallel edges that support A and B against each
 * other, reported as two contacts at the ends of their shared interval.
 * axis: the winning face axis, outward from A; sep: its separation. The
 * normal is the line between the edges when they are apart (then the gap is
 * the true distance), else the face axis (the penetration direction). */
static uint32_t parallel_edges(const cr_hull *a, cr_pose pa, const cr_hull *b, cr_pose pb, cr_vec3 axis, double sep,
                               double margin, double scale, cr_contact_point out[2])
{
    double best = HUGE_VAL;
    uint32_t found = 0;
    for (uint32_t i = 0; i < a->edge_count; ++i) {
        cr_vec3 p0 = cr_pose_point(pa, a->vertices[a->edges[2 * i]]);
        cr_vec3 u = cr_v3_sub(cr_pose_point(pa, a->vertices[a->edges[2 * i + 1]]), p0);
        double la = cr_v3_len(u);
        u = cr_v3_scale(u, 1.0 / la);
        for (uint32_t j = 0; j < b->edge_count; ++j) {
            cr_vec3 q0 = cr_pose_point(pb, b->vertices[b->edges[2 * j]]);
            cr_vec3 q1 = cr_pose_point(pb, b->vertices[b->edges[2 * j + 1]]);
            cr_vec3 ub = cr_v3_normalize(cr_v3_sub(q1, q0));
            if (cr_v3_len(cr_v3_cross(u, ub)) >= CR_PARALLEL_SIN) continue;
            double t0 = cr_v3_dot(u, cr_v3_sub(q0, p0)), t1 = cr_v3_dot(u, cr_v3_sub(q1, p0));
            double lo = fmax(0.0, fmin(t0, t1)), hi = fmin(la, fmax(t0, t1));
            if (hi - lo <= 1e-9 * scale) continue; /* they must share a stretch, not a point */
            cr_vec3 pm = cr_v3_madd(p0, u, 0.5 * (lo + hi));
            cr_vec3 w = cr_v3_sub(cr_v3_madd(q0, ub, cr_v3_dot(ub, cr_v3_sub(pm, q0))), pm); /* A's line to B's */
            double wl = cr_v3_len(w), gap = sep;
            cr_vec3 nab = axis;
            if (wl > 1e-9 * scale && cr_v3_dot(w, axis) > 0.0) {
                nab = cr_v3_scale(w, 1.0 / wl);
                gap = wl;
            } else if (wl > 4.0 * fabs(sep) + 1e-9 * scale) {
                continue; /* overlapping edges cross within the penetration depth; these are too far apart */
            }
            /* The closest lines win (every pair on the touching faces passes
             * the cone test with the face axis). */
            if (gap > margin || wl >= best) continue;
            if (!in_edge_cone(a, pa, i, nab) || !in_edge_cone(b, pb, j, cr_v3_neg(nab))) continue;
            best = wl;
            found = 2;
            double ends[2] = {lo, hi};
            uint64_t src[2] = {lo > 0.0 ? 1u : 0u, hi < la ? 3u : 2u}; /* which hull's endpoint bounds it */
            for (int k = 0; k < 2; ++k) {
                cr_vec3 pk = cr_v3_madd(p0, u, ends[k]);
                cr_vec3 qk = cr_v3_madd(q0, ub, cr_v3_dot(ub, cr_v3_sub(pk, q0)));
                out[k].point = cr_v3_scale(cr_v3_add(pk, qk), 0.5);
                out[k].normal = cr_v3_neg(nab);
                out[k].separation = gap;
                out[k].kind = CR_FEATURE_EDGE_EDGE;
                out[k].id = cr_feature_id(CR_FEATURE_EDGE_EDGE, i, j, src[k]);
            }
        }
    }
    return found;
}

/* Closest points of segments p0 + s d1 and q0 + t d2 (Ericson 5.1.9). */
static void segment_closest(cr_vec3 p0, cr_vec3 p1, cr_vec3 q0, cr_vec3 q1, cr_vec3 *cp, cr_vec3 *cq)
{
    cr_vec3 d1 = cr_v3_sub(p1, p0), d2 = cr_v3_sub(q1, q0), r = cr_v3_sub(p0, q0);
    double a = cr_v3_dot(d1, d1), e = cr_v3_dot(d2, d2), f = cr_v3_dot(d2, r);
    double c = cr_v3_dot(d1, r), b = cr_v3_dot(d1, d2), den = a * e - b * b;
    double s = den > 0.0 ? fmin(1.0, fmax(0.0, (b * f - c * e) / den)) : 0.0;
    double t = (b * s + f) / e;
    if (t < 0.0) {
        t = 0.0;
        s = fmin(1.0, fmax(0.0, -c / a));
    } else if (t > 1.0) {
        t = 1.0;
        s = fmin(1.0, fmax(0.0, (b - c) / a));
    }
    *cp = cr_v3_madd(p0, d1, s);
    *cq = cr_v3_madd(q0, d2, t);
}

static uint32_t edge_contact(const cr_hull *a, cr_pose pa, const cr_hull *b, cr_pose pb, const cr_sat *s,
                             cr_manifold *m)
{
    cr_vec3 cp, cq;
    segment_closest(cr_pose_point(pa, a->vertices[a->edges[2 * s->ea]]),
                    cr_pose_point(pa, a->vertices[a->edges[2 * s->ea + 1]]),
                    cr_pose_point(pb, b->vertices[b->edges[2 * s->eb]]),
                    cr_pose_point(pb, b->vertices[b->edges[2 * s->eb + 1]]), &cp, &cq);
    cr_contact_point *c = &m->p[0];
    c->point = cr_v3_scale(cr_v3_add(cp, cq), 0.5);
    c->normal = cr_v3_neg(s->edge_axis);
    c->separation = s->edge;
    c->kind = CR_FEATURE_EDGE_EDGE;
    c->id = cr_feature_id(CR_FEATURE_EDGE_EDGE, s->ea, s->eb, 0);
    return m->count = 1;
}

uint32_t cr_collide_hull_hull(const cr_hull *a, cr_pose pa, const cr_hull *b, cr_pose pb, double margin,
                              cr_manifold *m)
{
    double gap;
    return cr_collide_hull_hull_gap(a, pa, b, pb, margin, m, &gap);
}

uint32_t cr_collide_hull_hull_gap(const cr_hull *a, cr_pose pa, const cr_hull *b, cr_pose pb, double margin,
                                  cr_manifold *m, double *gap)
{
    m->count = 0;
    *gap = -HUGE_VAL;
    cr_sat s;
    cr_sat_query(a, pa, b, pb, margin, &s);
    double scale = fmin(s.radius_a, s.radius_b);
    /* Hysteresis towards face axes (then towards A's faces): nearly tied axes
     * would otherwise flip from step to step and the manifold with them. */
    double tol = 1e-3 * scale;
    double face = fmax(s.face_a, s.face_b);
    if (face > margin) *gap = face; /* the gap of the projections on a unit axis */
    if (fmax(face, s.edge) > margin) return 0;
    if (s.edge > face + tol) return edge_contact(a, pa, b, pb, &s, m);
    bool ref_a = s.face_a >= s.face_b - 0.5 * tol;
    cr_contact_point pts[CLIP_MAX];
    uint32_t n = ref_a ? cr_face_patch(a, pa, s.fa, b, pb, true, margin, pts)
                       : cr_face_patch(b, pb, s.fb, a, pa, false, margin, pts);
    double sep = ref_a ? s.face_a : s.face_b;
    if (patch_is_thin(pts, n, 1e-6 * scale + 4.0 * fmax(0.0, -sep))) {
        cr_vec3 axis = ref_a ? cr_pose_dir(pa, a->faces[s.fa].normal) : cr_v3_neg(cr_pose_dir(pb, b->faces[s.fb].normal));
        cr_contact_point two[2];
        if (parallel_edges(a, pa, b, pb, axis, sep, margin, scale, two) == 2) {
            m->p[0] = two[0];
            m->p[1] = two[1];
            return m->count = 2;
        }
    }
    n = cr_reduce_points(pts, n, 4);
    for (uint32_t i = 0; i < n; ++i) m->p[i] = pts[i];
    return m->count = n;
}
