/* Mass properties of a closed triangle surface by volume integrals.
 *
 * The divergence theorem turns each volume integral into a sum over the
 * boundary triangles; written per triangle it is the signed integral over
 * the tetrahedron (ref, a, b, c), so that the closed surface's cones add up to
 * the solid (Mirtich 1996; Eberly, "Polyhedral Mass Properties (Revisited)";
 * the tetrahedron moments are Tonon 2004, J. Math. Stat. 1(1)). With a, b, c
 * relative to ref and d = a . (b x c) (six times the signed volume):
 *
 *   int 1    = d / 6
 *   int x    = d / 24  (a + b + c)
 *   int x xT = d / 120 (a aT + b bT + c cT + s sT),  s = a + b + c
 *
 * and the inertia about the centroid is I = tr(C) 1 - C with C the second
 * moment about the centroid, i.e. I = int (r^2 delta - r rT).
 *
 * Accuracy far from the origin: the products above cancel badly when the
 * coordinates are large next to the body, so a first pass relative to the
 * mean of the corners finds the centroid and a second pass takes the second
 * moments relative to the centroid itself. */
#include <stdlib.h>

#include "shape_internal.h"

typedef struct moments {
    double volume;
    cr_vec3 first;   /* int (x - ref) */
    cr_mat3 second;  /* int (x - ref)(x - ref)T */
} moments;

static moments integrate(const cr_vec3 *v, const uint32_t *tri, uint32_t n, cr_vec3 ref)
{
    moments m = {0.0, cr_v3_zero(), cr_m3_zero()};
    for (uint32_t t = 0; t < n; ++t) {
        cr_vec3 a = cr_v3_sub(v[tri[3 * t]], ref), b = cr_v3_sub(v[tri[3 * t + 1]], ref),
                c = cr_v3_sub(v[tri[3 * t + 2]], ref);
        double d = cr_v3_dot(a, cr_v3_cross(b, c));
        cr_vec3 s = cr_v3_add(cr_v3_add(a, b), c);
        m.volume += d / 6.0;
        m.first = cr_v3_madd(m.first, s, d / 24.0);
        double pa[3] = {a.x, a.y, a.z}, pb[3] = {b.x, b.y, b.z}, pc[3] = {c.x, c.y, c.z}, ps[3] = {s.x, s.y, s.z};
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j)
                m.second.m[i][j] += d / 120.0 * (pa[i] * pa[j] + pb[i] * pb[j] + pc[i] * pc[j] + ps[i] * ps[j]);
    }
    return m;
}

void cr_mass_from_triangles(const cr_vec3 *v, const uint32_t *tri, uint32_t n, cr_mass_properties *out)
{
    cr_vec3 mean = cr_v3_zero();
    for (uint32_t k = 0; k < 3 * n; ++k) mean = cr_v3_add(mean, v[tri[k]]);
    if (n > 0) mean = cr_v3_scale(mean, 1.0 / (3.0 * n));

    moments m = integrate(v, tri, n, mean);
    out->volume = m.volume;
    out->centroid = m.volume != 0.0 ? cr_v3_madd(mean, m.first, 1.0 / m.volume) : mean;

    /* Second pass about the centroid; what little first moment is left
     * (rounding) is removed by the parallel-axis term. */
    m = integrate(v, tri, n, out->centroid);
    cr_vec3 e = m.volume != 0.0 ? cr_v3_scale(m.first, 1.0 / m.volume) : cr_v3_zero();
    double pe[3] = {e.x, e.y, e.z};
    cr_mat3 c;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) c.m[i][j] = m.second.m[i][j] - m.volume * pe[i] * pe[j];
    out->centroid = cr_v3_add(out->centroid, e);
    double tr = c.m[0][0] + c.m[1][1] + c.m[2][2];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) out->inertia_unit.m[i][j] = (i == j ? tr : 0.0) - c.m[i][j];
    /* Symmetric by construction; make it exactly so. */
    for (int i = 0; i < 3; ++i)
        for (int j = i + 1; j < 3; ++j)
            out->inertia_unit.m[i][j] = out->inertia_unit.m[j][i] =
                0.5 * (out->inertia_unit.m[i][j] + out->inertia_unit.m[j][i]);
}

bool cr_mass_from_hull(const cr_hull *h, cr_mass_properties *out)
{
    uint32_t n = 0;
    for (uint32_t f = 0; f < h->face_count; ++f) n += h->faces[f].count - 2;
    uint32_t *tri = malloc(sizeof *tri * 3 * (n ? n : 1));
    if (!tri) return false;
    uint32_t k = 0;
    for (uint32_t f = 0; f < h->face_count; ++f) {
        const uint32_t *fv = &h->face_vertices[h->faces[f].first];
        for (uint32_t i = 1; i + 1 < h->faces[f].count; ++i) {
            tri[k++] = fv[0];
            tri[k++] = fv[i];
            tri[k++] = fv[i + 1];
        }
    }
    cr_mass_from_triangles(h->vertices, tri, n, out);
    free(tri);
    return true;
}
