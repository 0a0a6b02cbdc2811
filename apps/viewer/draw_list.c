/* carom viewer — building the draw list (see draw_list.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "draw_list.h"

#define PI 3.14159265358979323846

void draw_list_init(draw_list *dl) { memset(dl, 0, sizeof *dl); }

void draw_list_clear(draw_list *dl)
{
    dl->sphere_count = 0;
    dl->vertex_count = 0;
    dl->index_count = 0;
}

void draw_list_free(draw_list *dl)
{
    free(dl->spheres);
    free(dl->vertices);
    free(dl->indices);
    draw_list_init(dl);
}

static int reserve(void **p, size_t *capacity, size_t need, size_t size)
{
    if (need <= *capacity) return 0;
    size_t cap = *capacity ? *capacity : 256;
    while (cap < need) cap *= 2;
    void *q = realloc(*p, cap * size);
    if (q == NULL) return -1;
    *p = q;
    *capacity = cap;
    return 0;
}

static void set3(float d[3], cr_vec3 v)
{
    d[0] = (float)v.x;
    d[1] = (float)v.y;
    d[2] = (float)v.z;
}

int draw_list_add_sphere(draw_list *dl, cr_vec3 center, double radius, const float color[3], cr_quat q)
{
    if (reserve((void **)&dl->spheres, &dl->sphere_capacity, dl->sphere_count + 1, sizeof *dl->spheres)) return -1;
    draw_sphere *s = &dl->spheres[dl->sphere_count++];
    set3(s->center, center);
    s->radius = (float)radius;
    memcpy(s->color, color, sizeof s->color);
    q = cr_q_normalize(q);
    s->orientation[0] = (float)q.w;
    s->orientation[1] = (float)q.x;
    s->orientation[2] = (float)q.y;
    s->orientation[3] = (float)q.z;
    return 0;
}

static int add_vertices(draw_list *dl, size_t n, size_t indices)
{
    if (dl->vertex_count + n > UINT32_MAX) return -1;
    if (reserve((void **)&dl->vertices, &dl->vertex_capacity, dl->vertex_count + n, sizeof *dl->vertices) ||
        reserve((void **)&dl->indices, &dl->index_capacity, dl->index_count + indices, sizeof *dl->indices))
        return -1;
    return 0;
}

static void put_vertex(draw_vertex *v, cr_vec3 p, cr_vec3 n, const float color[3], double u, double w, double grid)
{
    set3(v->position, p);
    set3(v->normal, n);
    memcpy(v->color, color, sizeof v->color);
    v->uv[0] = (float)u;
    v->uv[1] = (float)w;
    v->grid = (float)grid;
}

/* Orders a, b, c so that the triangle faces n (counter-clockwise seen from n). */
static void put_triangle(draw_list *dl, uint32_t a, uint32_t b, uint32_t c, cr_vec3 n)
{
    const float *pa = dl->vertices[a].position, *pb = dl->vertices[b].position, *pc = dl->vertices[c].position;
    cr_vec3 e1 = cr_v3(pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2]);
    cr_vec3 e2 = cr_v3(pc[0] - pa[0], pc[1] - pa[1], pc[2] - pa[2]);
    bool flip = cr_v3_dot(cr_v3_cross(e1, e2), n) < 0.0;
    uint32_t *ix = &dl->indices[dl->index_count];
    ix[0] = a;
    ix[1] = flip ? c : b;
    ix[2] = flip ? b : c;
    dl->index_count += 3;
}

int draw_list_add_polygon(draw_list *dl, const cr_vec3 *points, int n, cr_vec3 normal, const float color[3],
                          cr_vec3 origin, cr_vec3 t1, cr_vec3 t2, double grid)
{
    if (n < 3) return 0;
    if (add_vertices(dl, (size_t)n, 3 * (size_t)(n - 2))) return -1;
    uint32_t base = (uint32_t)dl->vertex_count;
    for (int i = 0; i < n; ++i) {
        cr_vec3 d = cr_v3_sub(points[i], origin);
        put_vertex(&dl->vertices[base + i], points[i], normal, color, cr_v3_dot(d, t1), cr_v3_dot(d, t2), grid);
    }
    dl->vertex_count += (size_t)n;
    for (int i = 1; i + 1 < n; ++i) put_triangle(dl, base, base + (uint32_t)i, base + (uint32_t)i + 1, normal);
    return 0;
}

/* Keeps the part of the convex polygon p[0..n) on the side (x - q)·m >= 0
 * (Sutherland–Hodgman against one plane); out has room for n + 1 points. */
static int clip_polygon(const cr_vec3 *p, int n, cr_vec3 q, cr_vec3 m, cr_vec3 *out)
{
    int k = 0;
    for (int i = 0; i < n; ++i) {
        cr_vec3 a = p[i], b = p[(i + 1) % n];
        double da = cr_v3_dot(cr_v3_sub(a, q), m), db = cr_v3_dot(cr_v3_sub(b, q), m);
        if (da >= 0.0) out[k++] = a;
        if ((da >= 0.0) != (db >= 0.0)) out[k++] = cr_v3_madd(a, cr_v3_sub(b, a), da / (da - db));
    }
    return k;
}

static void tangents(cr_vec3 n, cr_vec3 *t1, cr_vec3 *t2)
{
    /* Prefer world axes so that grid lines on a floor run along x and y. */
    cr_vec3 helper = fabs(n.x) < 0.9 ? cr_v3(1, 0, 0) : cr_v3(0, 1, 0);
    *t1 = cr_v3_normalize(cr_v3_reject(helper, n));
    *t2 = cr_v3_cross(n, *t1);
}

/* Grid lines every power of ten that gives some ten to a hundred lines. */
static double grid_spacing(double half_size) { return pow(10.0, floor(log10(fmax(half_size, 1e-6) / 5.0))); }

int draw_list_add_plane(draw_list *dl, const draw_plane *plane, const draw_plane *clip, uint32_t clip_count,
                        cr_vec3 centre, double half_size, const float color[3])
{
    cr_vec3 n = plane->normal, t1, t2;
    tangents(n, &t1, &t2);
    cr_vec3 c = cr_v3_madd(centre, n, -cr_v3_dot(cr_v3_sub(centre, plane->point), n));
    size_t cap = 4 + (size_t)clip_count + 1;
    cr_vec3 *a = malloc(cap * sizeof *a), *b = malloc(cap * sizeof *b);
    if (a == NULL || b == NULL) {
        free(a);
        free(b);
        return -1;
    }
    int k = 4;
    a[0] = cr_v3_add(c, cr_v3_add(cr_v3_scale(t1, -half_size), cr_v3_scale(t2, -half_size)));
    a[1] = cr_v3_add(c, cr_v3_add(cr_v3_scale(t1, half_size), cr_v3_scale(t2, -half_size)));
    a[2] = cr_v3_add(c, cr_v3_add(cr_v3_scale(t1, half_size), cr_v3_scale(t2, half_size)));
    a[3] = cr_v3_add(c, cr_v3_add(cr_v3_scale(t1, -half_size), cr_v3_scale(t2, half_size)));
    for (uint32_t i = 0; i < clip_count && k >= 3; ++i) {
        const draw_plane *q = &clip[i];
        if (q == plane) continue;
        /* A parallel plane facing the same way clips nothing useful. */
        if (cr_v3_dot(q->normal, n) > 1.0 - 1e-12) continue;
        k = clip_polygon(a, k, q->point, q->normal, b);
        cr_vec3 *t = a;
        a = b;
        b = t;
    }
    int rc = k >= 3 ? draw_list_add_polygon(dl, a, k, n, color, plane->point, t1, t2, grid_spacing(half_size)) : 0;
    free(a);
    free(b);
    return rc;
}

int draw_list_add_box(draw_list *dl, cr_vec3 centre, cr_vec3 half, cr_quat orientation, const float color[3])
{
    cr_mat3 r = cr_q_to_m3(cr_q_normalize(orientation));
    cr_vec3 axis[3] = {cr_v3(r.m[0][0], r.m[1][0], r.m[2][0]), cr_v3(r.m[0][1], r.m[1][1], r.m[2][1]),
                       cr_v3(r.m[0][2], r.m[1][2], r.m[2][2])};
    double h[3] = {half.x, half.y, half.z};
    for (int f = 0; f < 6; ++f) {
        int i = f / 2, j = (i + 1) % 3, k = (i + 2) % 3;
        double s = f % 2 ? -1.0 : 1.0;
        cr_vec3 n = cr_v3_scale(axis[i], s);
        cr_vec3 fc = cr_v3_madd(centre, n, h[i]);
        cr_vec3 u = cr_v3_scale(axis[j], h[j]), v = cr_v3_scale(axis[k], h[k]);
        cr_vec3 p[4] = {cr_v3_sub(cr_v3_sub(fc, u), v), cr_v3_sub(cr_v3_add(fc, u), v), cr_v3_add(cr_v3_add(fc, u), v),
                        cr_v3_add(cr_v3_sub(fc, u), v)};
        if (draw_list_add_polygon(dl, p, 4, n, color, fc, axis[j], axis[k], 0.0)) return -1;
    }
    return 0;
}

int draw_list_add_triangles(draw_list *dl, const cr_vec3 *tri, const cr_vec3 *normals, uint32_t count,
                            cr_vec3 centre, cr_quat orientation, const float color[3])
{
    if (count == 0) return 0;
    if (add_vertices(dl, 3 * (size_t)count, 3 * (size_t)count)) return -1;
    cr_mat3 r = cr_q_to_m3(cr_q_normalize(orientation));
    uint32_t base = (uint32_t)dl->vertex_count;
    for (uint32_t t = 0; t < count; ++t) {
        cr_vec3 n = cr_m3_mul_v(r, normals[t]);
        for (uint32_t k = 0; k < 3; ++k) {
            cr_vec3 p = cr_v3_add(centre, cr_m3_mul_v(r, tri[3 * t + k]));
            put_vertex(&dl->vertices[base + 3 * t + k], p, n, color, 0.0, 0.0, 0.0);
            dl->indices[dl->index_count++] = base + 3 * t + k;
        }
    }
    dl->vertex_count += 3 * (size_t)count;
    return 0;
}

/* ---- parametric surfaces ---------------------------------------------------- */

typedef struct surface_sample {
    cr_vec3 p, n;
    double value; /* height or curvature, for the colour */
} surface_sample;

static void sample_surface(const cr_surface *s, double u, double v, draw_surface_shading shading, surface_sample *o)
{
    cr_surface_eval e;
    cr_surface_evaluate(s, u, v, &e, &o->n);
    o->p = e.s;
    if (shading == DRAW_SHADE_CURVATURE) {
        double k1, k2, gauss;
        cr_surface_curvature(s, u, v, &k1, &k2, &gauss);
        o->value = fabs(k1) > fabs(k2) ? k1 : k2;
    } else
        o->value = e.s.z;
}

int draw_list_add_surface(draw_list *dl, const cr_surface *surface, int n, draw_surface_shading shading)
{
    const cr_surface_def *d = cr_surface_get_def(surface);
    if (n < 2) n = 2;
    if (!(isfinite(d->u_min) && isfinite(d->u_max) && isfinite(d->v_min) && isfinite(d->v_max))) return 0;
    size_t count = (size_t)(n + 1) * (size_t)(n + 1);
    surface_sample *g = malloc(count * sizeof *g);
    if (g == NULL) return -1;
    bool bowl = d->type == CR_SURFACE_BOWL;
    double lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i <= n; ++i)
        for (int j = 0; j <= n; ++j) {
            double u, v;
            if (bowl) { /* polar rings, so that the rim is round: rho in [0, R), theta around */
                double rho = d->radius * (1.0 - 1e-6) * i / n, th = 2.0 * PI * j / n;
                u = d->center.x + rho * cos(th);
                v = d->center.y + rho * sin(th);
            } else {
                u = d->u_min + (d->u_max - d->u_min) * i / n;
                v = d->v_min + (d->v_max - d->v_min) * j / n;
            }
            surface_sample *o = &g[(size_t)i * (n + 1) + j];
            sample_surface(surface, u, v, shading, o);
            lo = fmin(lo, o->value);
            hi = fmax(hi, o->value);
        }
    if (add_vertices(dl, count, 6 * (size_t)n * (size_t)n)) {
        free(g);
        return -1;
    }
    /* Curvature maps symmetric around zero (valleys blue, ridges red). */
    if (shading == DRAW_SHADE_CURVATURE) {
        double m = fmax(fabs(lo), fabs(hi));
        lo = -m;
        hi = m;
    }
    double span = hi - lo > 0.0 ? hi - lo : 1.0;
    uint32_t base = (uint32_t)dl->vertex_count;
    for (size_t k = 0; k < count; ++k) {
        float c[3];
        draw_color_map((g[k].value - lo) / span, c);
        put_vertex(&dl->vertices[base + k], g[k].p, g[k].n, c, 0.0, 0.0, 0.0);
    }
    dl->vertex_count += count;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            uint32_t a = base + (uint32_t)(i * (n + 1) + j), b = a + (uint32_t)(n + 1);
            cr_vec3 nn = cr_v3_add(g[a - base].n, g[b + 1 - base].n);
            put_triangle(dl, a, b, b + 1, nn);
            put_triangle(dl, a, b + 1, a + 1, nn);
        }
    free(g);
    return 0;
}

/* ---- colours ------------------------------------------------------------------ */

static void hsv(double h, double s, double v, float rgb[3])
{
    h = fmod(h, 1.0) * 6.0;
    int i = (int)h;
    double f = h - i, p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f));
    double r[6] = {v, q, p, p, t, v}, g[6] = {t, v, v, q, p, p}, b[6] = {p, p, t, v, v, q};
    rgb[0] = (float)r[i % 6];
    rgb[1] = (float)g[i % 6];
    rgb[2] = (float)b[i % 6];
}

void draw_color_for_slot(uint32_t slot, float rgb[3])
{
    /* Golden-ratio steps in hue: neighbours differ, and no table to run out. */
    hsv(0.58 + 0.6180339887498949 * slot, 0.62, 0.92, rgb);
}

void draw_color_map(double t, float rgb[3])
{
    /* Moreland's cool-to-warm map, in three stops. */
    static const float stops[3][3] = {{0.230f, 0.299f, 0.754f}, {0.865f, 0.865f, 0.865f}, {0.706f, 0.016f, 0.150f}};
    if (!(t >= 0.0)) t = 0.0;
    if (t > 1.0) t = 1.0;
    int i = t < 0.5 ? 0 : 1;
    double f = t < 0.5 ? 2.0 * t : 2.0 * t - 1.0;
    for (int k = 0; k < 3; ++k) rgb[k] = (float)(stops[i][k] + (stops[i + 1][k] - stops[i][k]) * f);
}

int draw_list_append(draw_list *dst, const draw_list *src)
{
    if (add_vertices(dst, src->vertex_count, src->index_count) ||
        reserve((void **)&dst->spheres, &dst->sphere_capacity, dst->sphere_count + src->sphere_count,
                sizeof *dst->spheres))
        return -1;
    uint32_t base = (uint32_t)dst->vertex_count;
    if (src->vertex_count) memcpy(dst->vertices + base, src->vertices, src->vertex_count * sizeof *src->vertices);
    for (size_t k = 0; k < src->index_count; ++k) dst->indices[dst->index_count + k] = base + src->indices[k];
    if (src->sphere_count)
        memcpy(dst->spheres + dst->sphere_count, src->spheres, src->sphere_count * sizeof *src->spheres);
    dst->vertex_count += src->vertex_count;
    dst->index_count += src->index_count;
    dst->sphere_count += src->sphere_count;
    return 0;
}

bool draw_list_bounds(const draw_list *dl, cr_vec3 *lo, cr_vec3 *hi)
{
    cr_vec3 a = cr_v3(INFINITY, INFINITY, INFINITY), b = cr_v3(-INFINITY, -INFINITY, -INFINITY);
    for (size_t i = 0; i < dl->sphere_count; ++i) {
        const draw_sphere *s = &dl->spheres[i];
        cr_vec3 c = cr_v3(s->center[0], s->center[1], s->center[2]), r = cr_v3(s->radius, s->radius, s->radius);
        if (!cr_v3_isfinite(c)) continue;
        a = cr_v3_min(a, cr_v3_sub(c, r));
        b = cr_v3_max(b, cr_v3_add(c, r));
    }
    for (size_t i = 0; i < dl->vertex_count; ++i) {
        const float *p = dl->vertices[i].position;
        cr_vec3 c = cr_v3(p[0], p[1], p[2]);
        a = cr_v3_min(a, c);
        b = cr_v3_max(b, c);
    }
    *lo = a;
    *hi = b;
    return a.x <= b.x;
}
