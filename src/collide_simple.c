/* Contacts of hulls and spheres with planes and spheres: a hull's vertices
 * against a plane (seed 003's vertex/face case, the plane being the face),
 * and the closest point of a hull to a sphere's centre. */
#include "collide_poly.h"

static void set_point(cr_contact_point *c, cr_vec3 on_a, cr_vec3 on_b, cr_vec3 n, double sep, uint8_t kind,
                      uint32_t id)
{
    c->point = cr_v3_scale(cr_v3_add(on_a, on_b), 0.5);
    c->normal = n;
    c->separation = sep;
    c->kind = kind;
    c->id = id;
}

uint32_t cr_collide_hull_plane(const cr_hull *a, cr_pose pa, cr_vec3 n, double offset, double margin, cr_manifold *m)
{
    cr_collector col;
    col.n = 0;
    col.keep = 4;
    col.eps = 0.0;
    for (uint32_t i = 0; i < a->vertex_count; ++i) {
        cr_vec3 v = cr_pose_point(pa, a->vertices[i]);
        double s = cr_v3_dot(n, v) - offset;
        if (s > margin) continue;
        cr_contact_point c;
        set_point(&c, v, cr_v3_madd(v, n, -s), n, s, CR_FEATURE_VERTEX_FACE,
                  cr_feature_id(CR_FEATURE_VERTEX_FACE, i, 0, 0));
        cr_collect(&col, &c);
    }
    return cr_collect_finish(&col, 4, m);
}

/* Closest point of face f (local frame) to q, with the feature it lies on
 * (the face index, an edge's two vertices or a vertex, tagged apart in the
 * top bits) for the contact id. */
static cr_vec3 closest_on_face(const cr_hull *h, uint32_t f, cr_vec3 q, uint64_t *feature)
{
    const cr_hull_face *fc = &h->faces[f];
    cr_vec3 proj = cr_v3_madd(q, fc->normal, -(cr_v3_dot(fc->normal, q) - fc->offset));
    bool inside = true;
    double best = HUGE_VAL;
    cr_vec3 out = proj;
    for (uint32_t k = 0; k < fc->count; ++k) {
        uint32_t i0 = h->face_vertices[fc->first + k], i1 = h->face_vertices[fc->first + (k + 1) % fc->count];
        cr_vec3 v0 = h->vertices[i0], v1 = h->vertices[i1], e = cr_v3_sub(v1, v0);
        if (cr_v3_dot(cr_v3_cross(e, fc->normal), cr_v3_sub(proj, v0)) <= 0.0) continue;
        inside = false;
        double t = fmin(1.0, fmax(0.0, cr_v3_dot(cr_v3_sub(q, v0), e) / cr_v3_len2(e)));
        cr_vec3 p = cr_v3_madd(v0, e, t);
        double d = cr_v3_len2(cr_v3_sub(q, p));
        if (d < best) {
            best = d;
            out = p;
            uint32_t lo = i0 < i1 ? i0 : i1, hi = i0 < i1 ? i1 : i0;
            *feature = t <= 0.0 ? (2ull << 62 | i0) : t >= 1.0 ? (2ull << 62 | i1) : (1ull << 62 | (uint64_t)lo << 31 | hi);
        }
    }
    if (inside) *feature = f;
    return out;
}

uint32_t cr_collide_hull_sphere(const cr_hull *a, cr_pose pa, cr_vec3 c, double r, double margin, cr_manifold *m)
{
    m->count = 0;
    cr_vec3 q = cr_pose_local_point(pa, c);
    uint32_t fmax_i = 0;
    double dmax = -HUGE_VAL;
    for (uint32_t f = 0; f < a->face_count; ++f) {
        double d = cr_v3_dot(a->faces[f].normal, q) - a->faces[f].offset;
        if (d > dmax) {
            dmax = d;
            fmax_i = f;
        }
    }
    if (dmax - r > margin) return 0; /* a face plane already separates them */
    cr_vec3 nf = cr_pose_dir(pa, a->faces[fmax_i].normal);
    if (dmax <= 0.0) { /* centre inside: push out through the nearest face */
        set_point(&m->p[0], cr_v3_madd(c, nf, -dmax), cr_v3_madd(c, nf, -r), cr_v3_neg(nf), dmax - r,
                  CR_FEATURE_SMOOTH, cr_feature_id(CR_FEATURE_SMOOTH, fmax_i, 0, 0));
        return m->count = 1;
    }
    /* Outside: the closest point lies on a face whose plane has q in front. */
    double best = HUGE_VAL;
    cr_vec3 cp = q;
    uint64_t feature = 0;
    for (uint32_t f = 0; f < a->face_count; ++f) {
        if (cr_v3_dot(a->faces[f].normal, q) - a->faces[f].offset <= 0.0) continue;
        uint64_t ft = 0;
        cr_vec3 p = closest_on_face(a, f, q, &ft);
        double d = cr_v3_len2(cr_v3_sub(q, p));
        if (d < best) {
            best = d;
            cp = p;
            feature = ft;
        }
    }
    double dist = sqrt(best);
    if (dist - r > margin) return 0;
    cr_vec3 on_a = cr_pose_point(pa, cp);
    cr_vec3 n = dist > 0.0 ? cr_v3_scale(cr_v3_sub(on_a, c), 1.0 / dist) : cr_v3_neg(nf); /* sphere towards hull */
    set_point(&m->p[0], on_a, cr_v3_madd(c, n, r), n, dist - r, CR_FEATURE_SMOOTH,
              cr_feature_id(CR_FEATURE_SMOOTH, 1, 0, feature));
    return m->count = 1;
}

void cr_sphere_sphere_point(cr_vec3 ca, double ra, cr_vec3 cb, double rb, double l, cr_contact_point *p)
{
    cr_vec3 n = l > 0.0 ? cr_v3_scale(cr_v3_sub(ca, cb), 1.0 / l) : cr_v3(0, 0, 1); /* concentric: any direction will do */
    set_point(p, cr_v3_madd(ca, n, -ra), cr_v3_madd(cb, n, rb), n, l - ra - rb, CR_FEATURE_SMOOTH,
              cr_feature_id(CR_FEATURE_SMOOTH, 0, 0, 0));
}

uint32_t cr_collide_sphere_sphere(cr_vec3 ca, double ra, cr_vec3 cb, double rb, double margin, cr_manifold *m)
{
    double l = cr_v3_len(cr_v3_sub(ca, cb));
    m->count = 0;
    if (l - ra - rb > margin) return 0;
    cr_sphere_sphere_point(ca, ra, cb, rb, l, &m->p[0]);
    return m->count = 1;
}

uint32_t cr_collide_sphere_plane(cr_vec3 c, double r, cr_vec3 n, double offset, double margin, cr_manifold *m)
{
    double h = cr_v3_dot(n, c) - offset;
    m->count = 0;
    if (h - r > margin) return 0;
    set_point(&m->p[0], cr_v3_madd(c, n, -r), cr_v3_madd(c, n, -h), n, h - r, CR_FEATURE_SMOOTH,
              cr_feature_id(CR_FEATURE_SMOOTH, 0, 0, 0));
    return m->count = 1;
}
