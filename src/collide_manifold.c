/* Manifold bookkeeping shared by the polyhedral narrow phase: feature keys
 * for warm starting and the reduction of a contact patch to a few points. */
#include "collide_poly.h"

static void swap_points(cr_contact_point *p, uint32_t i, uint32_t j)
{
    cr_contact_point t = p[i];
    p[i] = p[j];
    p[j] = t;
}

/* Twice the area of triangle (a, b, c) projected on n, signed (CCW about n > 0). */
static double signed_area(cr_vec3 a, cr_vec3 b, cr_vec3 c, cr_vec3 n)
{
    return cr_v3_dot(cr_v3_cross(cr_v3_sub(b, a), cr_v3_sub(c, a)), n);
}

/* Why this order: the deepest point carries the most penetration to resolve;
 * the others are chosen to span the largest support polygon, which is what
 * keeps a resting body from rocking (the usual 4-point reduction). */
uint32_t cr_reduce_points(cr_contact_point *p, uint32_t n, uint32_t keep)
{
    if (n <= keep) return n;
    uint32_t best = 0;
    for (uint32_t i = 1; i < n; ++i)
        if (p[i].separation < p[best].separation) best = i;
    swap_points(p, 0, best);
    if (keep == 1) return 1;
    best = 1;
    for (uint32_t i = 2; i < n; ++i)
        if (cr_v3_len2(cr_v3_sub(p[i].point, p[0].point)) > cr_v3_len2(cr_v3_sub(p[best].point, p[0].point))) best = i;
    swap_points(p, 1, best);
    if (keep == 2) return 2;
    best = 2;
    double area = -1.0;
    for (uint32_t i = 2; i < n; ++i) {
        double a = cr_v3_len(cr_v3_cross(cr_v3_sub(p[1].point, p[0].point), cr_v3_sub(p[i].point, p[0].point)));
        if (a > area) {
            area = a;
            best = i;
        }
    }
    swap_points(p, 2, best);
    if (keep == 3) return 3;
    /* The fourth: the point outside the triangle that adds the most area. */
    cr_vec3 nrm = cr_v3_cross(cr_v3_sub(p[1].point, p[0].point), cr_v3_sub(p[2].point, p[0].point));
    if (cr_v3_len2(nrm) == 0.0) nrm = p[0].normal;
    best = 3;
    area = -HUGE_VAL;
    for (uint32_t i = 3; i < n; ++i) {
        double add = 0.0;
        for (uint32_t k = 0; k < 3; ++k)
            add = fmax(add, -signed_area(p[k].point, p[(k + 1) % 3].point, p[i].point, nrm));
        if (add > area) {
            area = add;
            best = i;
        }
    }
    swap_points(p, 3, best);
    /* Any further: farthest from those kept. */
    for (uint32_t k = 4; k < keep; ++k) {
        best = k;
        double far = -1.0;
        for (uint32_t i = k; i < n; ++i) {
            double d = HUGE_VAL;
            for (uint32_t j = 0; j < k; ++j) d = fmin(d, cr_v3_len2(cr_v3_sub(p[i].point, p[j].point)));
            if (d > far) {
                far = d;
                best = i;
            }
        }
        swap_points(p, k, best);
    }
    return keep;
}

void cr_collect(cr_collector *c, const cr_contact_point *p)
{
    for (uint32_t i = 0; i < c->n; ++i)
        if (cr_v3_len2(cr_v3_sub(c->p[i].point, p->point)) <= c->eps * c->eps &&
            cr_v3_dot(c->p[i].normal, p->normal) > 1.0 - 1e-9) {
            if (p->separation < c->p[i].separation) c->p[i] = *p;
            return;
        }
    if (c->n == CR_COLLECT_MAX) c->n = cr_reduce_points(c->p, c->n, c->keep);
    c->p[c->n++] = *p;
}

uint32_t cr_collect_finish(cr_collector *c, uint32_t keep, cr_manifold *m)
{
    if (keep > CR_MANIFOLD_MAX) keep = CR_MANIFOLD_MAX;
    uint32_t n = cr_reduce_points(c->p, c->n, keep);
    for (uint32_t i = 0; i < n; ++i) m->p[i] = c->p[i];
    return m->count = n;
}
