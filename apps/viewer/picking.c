/* carom viewer — mouse picking (see picking.h). */
#include <math.h>

#include "picking.h"

/* Smallest t > 0 with |o + t d - c| = r, or INFINITY. */
static double ray_sphere(cr_vec3 o, cr_vec3 d, cr_vec3 c, double r)
{
    cr_vec3 oc = cr_v3_sub(o, c);
    double b = cr_v3_dot(oc, d), q = cr_v3_len2(oc) - r * r;
    double disc = b * b - q;
    if (disc < 0.0) return INFINITY;
    double s = sqrt(disc);
    double t = -b - s;
    if (t > 0.0) return t;
    t = -b + s; /* the eye is inside the ball */
    return t > 0.0 ? t : INFINITY;
}

static bool on_free_side_of_others(const view_snapshot *s, uint32_t self, cr_vec3 p)
{
    for (uint32_t j = 0; j < s->plane_count; ++j) {
        if (j == self) continue;
        const view_plane *q = &s->planes[j];
        if (cr_v3_dot(q->normal, s->planes[self].normal) > 1.0 - 1e-12) continue;
        if (cr_v3_dot(cr_v3_sub(p, q->point), q->normal) < -1e-9) return false;
    }
    return true;
}

/* Möller–Trumbore: t > 0 where the ray meets triangle (a, b, c) from its
 * front (counter-clockwise) side, or INFINITY. */
static double ray_triangle(cr_vec3 o, cr_vec3 d, cr_vec3 a, cr_vec3 b, cr_vec3 c, cr_vec3 *normal)
{
    cr_vec3 e1 = cr_v3_sub(b, a), e2 = cr_v3_sub(c, a);
    cr_vec3 p = cr_v3_cross(d, e2);
    double det = cr_v3_dot(e1, p);
    if (!(det < 0.0) && !(det > 0.0)) return INFINITY;
    cr_vec3 n = cr_v3_cross(e1, e2);
    if (cr_v3_dot(n, d) >= 0.0) return INFINITY; /* seen from behind: not drawn */
    double inv = 1.0 / det;
    cr_vec3 s = cr_v3_sub(o, a);
    double u = cr_v3_dot(s, p) * inv;
    if (u < 0.0 || u > 1.0) return INFINITY;
    cr_vec3 q = cr_v3_cross(s, e1);
    double v = cr_v3_dot(d, q) * inv;
    if (v < 0.0 || u + v > 1.0) return INFINITY;
    double t = cr_v3_dot(e2, q) * inv;
    if (!(t > 0.0)) return INFINITY;
    *normal = cr_v3_normalize(n);
    return t;
}

static cr_vec3 vertex(const draw_list *dl, uint32_t i)
{
    const float *p = dl->vertices[i].position;
    return cr_v3(p[0], p[1], p[2]);
}

pick_hit pick_ray(const view_snapshot *s, cr_vec3 o, cr_vec3 d)
{
    pick_hit h = {.hit = false, .t = INFINITY, .body = -1, .plane = -1};
    for (uint32_t i = 0; i < s->body_count; ++i) {
        const view_body *b = &s->bodies[i];
        double t = ray_sphere(o, d, b->position, b->radius);
        if (t < h.t) {
            h.t = t;
            h.body = i;
        }
    }
    for (uint32_t i = 0; i < s->plane_count; ++i) {
        const view_plane *pl = &s->planes[i];
        double dn = cr_v3_dot(d, pl->normal);
        if (!(dn < 0.0)) continue; /* seen from the solid side, or edge-on: not drawn */
        double t = cr_v3_dot(cr_v3_sub(pl->point, o), pl->normal) / dn;
        if (!(t > 0.0) || !(t < h.t)) continue;
        if (!on_free_side_of_others(s, i, cr_v3_madd(o, d, t))) continue;
        h.t = t;
        h.plane = i;
        h.body = -1;
    }
    /* Surfaces, through their drawn triangles. */
    const draw_list *m = &s->surfaces;
    bool on_surface = false;
    cr_vec3 surface_normal = cr_v3(0, 0, 1);
    for (size_t k = 0; k + 2 < m->index_count; k += 3) {
        cr_vec3 n;
        double t = ray_triangle(o, d, vertex(m, m->indices[k]), vertex(m, m->indices[k + 1]),
                                vertex(m, m->indices[k + 2]), &n);
        if (t < h.t) {
            h.t = t;
            h.body = h.plane = -1;
            on_surface = true;
            surface_normal = n;
        }
    }
    if (h.t < INFINITY) {
        h.hit = true;
        h.point = cr_v3_madd(o, d, h.t);
        if (h.plane >= 0) h.normal = s->planes[h.plane].normal;
        else if (h.body >= 0) h.normal = cr_v3_normalize(cr_v3_sub(h.point, s->bodies[h.body].position));
        else h.normal = on_surface ? surface_normal : cr_v3(0, 0, 1);
    }
    return h;
}

/* The deepest overlap of a ball (c, r) with the snapshot, and the direction
 * to push it out; 0 when free. */
static double overlap(const view_snapshot *s, cr_vec3 c, double r, cr_vec3 *away)
{
    double worst = 0.0;
    for (uint32_t i = 0; i < s->body_count; ++i) {
        const view_body *b = &s->bodies[i];
        cr_vec3 dv = cr_v3_sub(c, b->position);
        double dist = cr_v3_len(dv), depth = r + b->radius - dist;
        if (depth > worst) {
            worst = depth;
            *away = dist > 0.0 ? cr_v3_scale(dv, 1.0 / dist) : cr_v3(0, 0, 1);
        }
    }
    for (uint32_t i = 0; i < s->plane_count; ++i) {
        const view_plane *p = &s->planes[i];
        double depth = r - cr_v3_dot(cr_v3_sub(c, p->point), p->normal);
        /* Only planes the ball is near and in front of (drawn there). */
        if (depth > worst && depth < 2.0 * r && on_free_side_of_others(s, i, c)) {
            worst = depth;
            *away = p->normal;
        }
    }
    return worst;
}

cr_vec3 pick_spawn_position(const view_snapshot *s, const pick_hit *h, cr_vec3 o, cr_vec3 d, double r,
                            double fallback_t)
{
    cr_vec3 c = h->hit ? cr_v3_madd(h->point, h->normal, r * 1.001) : cr_v3_madd(o, d, fallback_t);
    /* Push out of whatever it overlaps, a bounded number of times: a click
     * into a dense pile puts the ball on top of it rather than inside. */
    for (int k = 0; k < 64; ++k) {
        cr_vec3 away = cr_v3(0, 0, 1);
        double depth = overlap(s, c, r, &away);
        if (depth <= 1e-9 * r) break;
        c = cr_v3_madd(c, away, depth + 1e-3 * r);
    }
    return c;
}

bool pick_ray_plane(cr_vec3 o, cr_vec3 d, cr_vec3 p, cr_vec3 n, cr_vec3 *out)
{
    double dn = cr_v3_dot(d, n);
    if (fabs(dn) < 1e-12) return false;
    double t = cr_v3_dot(cr_v3_sub(p, o), n) / dn;
    if (!(t > 0.0)) return false;
    *out = cr_v3_madd(o, d, t);
    return true;
}
