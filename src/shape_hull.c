/* The convex hull of a point cloud (quickhull, Barber, Dobkin & Huhdanpaa
 * 1996) and cr_shape_create_hull.
 *
 * Robustness comes from one distance tolerance, eps = 1e-10 times the
 * cloud's bounding-box diagonal, with the cloud first moved to its box centre
 * so that rounding scales with the cloud's size rather than its distance
 * from the origin. A point within eps of the hull counts as on it (and is
 * dropped); the triangles quickhull leaves are merged into convex polygons
 * wherever they lie within eps of one plane, and a vertex left in fewer than
 * three polygons (the middle of a straight edge) is dropped. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shape_internal.h"

#define NONE UINT32_MAX

typedef struct qface {
    uint32_t v[3];
    uint32_t nb[3];   /* the face across edge v[k] -> v[k + 1] */
    cr_vec3 n;        /* unit outward normal */
    double off;
    double area2;     /* twice the area: merging seeds on the largest faces */
    uint32_t outside; /* head of the list of points above this face */
    bool alive, visible;
} qface;

typedef struct qh {
    const cr_vec3 *p; /* the cloud, moved to its box centre */
    uint32_t n;
    qface *f;
    uint32_t fn, fcap;
    uint32_t *next;   /* outside-list links, one per point */
    uint32_t *stack;  /* visible faces of the current step */
    uint32_t *horizon_face, *horizon_edge, *by_start;
    double eps;
} qh;

static double dist(const qface *f, cr_vec3 p) { return cr_v3_dot(f->n, p) - f->off; }

static uint32_t add_face(qh *q, uint32_t a, uint32_t b, uint32_t c)
{
    if (q->fn == q->fcap) {
        uint32_t cap = q->fcap ? 2 * q->fcap : 64;
        qface *f = realloc(q->f, sizeof *f * cap);
        uint32_t *s = realloc(q->stack, sizeof *s * cap);
        if (f) q->f = f;
        if (s) q->stack = s;
        if (!f || !s) return NONE;
        q->fcap = cap;
    }
    qface *f = &q->f[q->fn];
    f->v[0] = a, f->v[1] = b, f->v[2] = c;
    f->nb[0] = f->nb[1] = f->nb[2] = NONE;
    cr_vec3 nrm = cr_v3_cross(cr_v3_sub(q->p[b], q->p[a]), cr_v3_sub(q->p[c], q->p[a]));
    f->area2 = cr_v3_len(nrm);
    f->n = cr_v3_normalize(nrm);
    f->off = cr_v3_dot(f->n, cr_v3_scale(cr_v3_add(cr_v3_add(q->p[a], q->p[b]), q->p[c]), 1.0 / 3.0));
    f->outside = NONE;
    f->alive = true;
    f->visible = false;
    return q->fn++;
}

/* Puts point i on the outside list of the face among [from, to) it is
 * farthest above; false when it is above none (inside, or on within eps). */
static bool assign(qh *q, uint32_t i, uint32_t from, uint32_t to)
{
    uint32_t best = NONE;
    double far = q->eps;
    for (uint32_t k = from; k < to; ++k) {
        if (!q->f[k].alive) continue;
        double d = dist(&q->f[k], q->p[i]);
        if (d > far) far = d, best = k;
    }
    if (best == NONE) return false;
    q->next[i] = q->f[best].outside;
    q->f[best].outside = i;
    return true;
}

static cr_status fail(char *msg, size_t size, cr_status st, const char *text)
{
    if (msg && size) snprintf(msg, size, "%s", text);
    return st;
}

/* The first tetrahedron: the two extremes along the widest axis, the point
 * farthest from their line, the point farthest from their plane. */
static cr_status simplex(qh *q, uint32_t t[4], char *msg, size_t size)
{
    cr_vec3 lo = q->p[0], hi = q->p[0];
    for (uint32_t i = 1; i < q->n; ++i) lo = cr_v3_min(lo, q->p[i]), hi = cr_v3_max(hi, q->p[i]);
    cr_vec3 ext = cr_v3_sub(hi, lo);
    int axis = ext.x >= ext.y && ext.x >= ext.z ? 0 : (ext.y >= ext.z ? 1 : 2);
    t[0] = t[1] = 0;
    for (uint32_t i = 1; i < q->n; ++i) {
        if (cr_v3_get(q->p[i], axis) < cr_v3_get(q->p[t[0]], axis)) t[0] = i;
        if (cr_v3_get(q->p[i], axis) > cr_v3_get(q->p[t[1]], axis)) t[1] = i;
    }
    if (cr_v3_len(cr_v3_sub(q->p[t[1]], q->p[t[0]])) <= q->eps)
        return fail(msg, size, CR_ERR_INVALID_ARGUMENT, "hull points all (nearly) coincide: they span no volume");
    cr_vec3 u = cr_v3_normalize(cr_v3_sub(q->p[t[1]], q->p[t[0]]));
    double far = -1.0;
    for (uint32_t i = 0; i < q->n; ++i) {
        double d = cr_v3_len(cr_v3_reject(cr_v3_sub(q->p[i], q->p[t[0]]), u));
        if (d > far) far = d, t[2] = i;
    }
    if (far <= q->eps)
        return fail(msg, size, CR_ERR_INVALID_ARGUMENT, "hull points are all (nearly) collinear: they span no volume");
    cr_vec3 w = cr_v3_normalize(cr_v3_cross(cr_v3_sub(q->p[t[1]], q->p[t[0]]), cr_v3_sub(q->p[t[2]], q->p[t[0]])));
    double signed_far = 0.0;
    far = -1.0;
    for (uint32_t i = 0; i < q->n; ++i) {
        double d = cr_v3_dot(w, cr_v3_sub(q->p[i], q->p[t[0]]));
        if (fabs(d) > far) far = fabs(d), signed_far = d, t[3] = i;
    }
    if (far <= q->eps)
        return fail(msg, size, CR_ERR_INVALID_ARGUMENT, "hull points are all (nearly) coplanar: they span no volume");
    if (signed_far > 0.0) { /* t[3] must lie behind face (t0, t1, t2) */
        uint32_t s = t[1];
        t[1] = t[2], t[2] = s;
    }
    return CR_OK;
}

/* Links the faces [from, fn) whose edges meet, by brute force (the first
 * tetrahedron only). */
static void link_all(qh *q)
{
    for (uint32_t f = 0; f < q->fn; ++f)
        for (int k = 0; k < 3; ++k)
            for (uint32_t g = 0; g < q->fn; ++g)
                for (int j = 0; j < 3; ++j)
                    if (q->f[g].v[j] == q->f[f].v[(k + 1) % 3] && q->f[g].v[(j + 1) % 3] == q->f[f].v[k])
                        q->f[f].nb[k] = g;
}

/* The edge of f that runs a -> b. */
static int edge_of(const qface *f, uint32_t a, uint32_t b)
{
    for (int k = 0; k < 3; ++k)
        if (f->v[k] == a && f->v[(k + 1) % 3] == b) return k;
    return 0; /* unreachable: the faces are linked */
}

/* Adds the point farthest above face fi: removes every face it sees (found
 * by flooding from fi, so the removed region is connected), fans new faces
 * from the horizon to the point and hands the orphaned points on. */
static cr_status add_point(qh *q, uint32_t fi)
{
    uint32_t ep = NONE;
    double far = -1.0;
    for (uint32_t i = q->f[fi].outside; i != NONE; i = q->next[i]) {
        double d = dist(&q->f[fi], q->p[i]);
        if (d > far) far = d, ep = i;
    }
    cr_vec3 p = q->p[ep];
    uint32_t nvis = 0, nhor = 0;
    q->f[fi].visible = true;
    q->stack[nvis++] = fi;
    for (uint32_t s = 0; s < nvis; ++s) {
        qface *f = &q->f[q->stack[s]];
        for (int k = 0; k < 3; ++k) {
            qface *g = &q->f[f->nb[k]];
            if (!g->visible && dist(g, p) > q->eps) {
                g->visible = true;
                q->stack[nvis++] = f->nb[k];
            } else if (!g->visible) {
                q->horizon_face[nhor] = q->stack[s];
                q->horizon_edge[nhor++] = (uint32_t)k;
            }
        }
    }
    uint32_t first_new = q->fn;
    cr_status st = CR_OK;
    for (uint32_t h = 0; h < nhor && st == CR_OK; ++h) {
        const qface *f = &q->f[q->horizon_face[h]];
        uint32_t k = q->horizon_edge[h], a = f->v[k], b = f->v[(k + 1) % 3], other = f->nb[k];
        if (q->by_start[a] != NONE) {
            st = CR_ERR_INVALID_ARGUMENT; /* the horizon is not one loop */
            break;
        }
        uint32_t nf = add_face(q, a, b, ep);
        if (nf == NONE) {
            st = CR_ERR_OUT_OF_MEMORY;
            break;
        }
        q->f[nf].nb[0] = other;
        q->f[other].nb[edge_of(&q->f[other], b, a)] = nf;
        q->by_start[a] = nf;
    }
    for (uint32_t nf = first_new; nf < q->fn && st == CR_OK; ++nf) {
        uint32_t g = q->by_start[q->f[nf].v[1]];
        if (g == NONE) {
            st = CR_ERR_INVALID_ARGUMENT;
            break;
        }
        q->f[nf].nb[1] = g;
        q->f[g].nb[2] = nf;
    }
    for (uint32_t nf = first_new; nf < q->fn; ++nf) q->by_start[q->f[nf].v[0]] = NONE;
    if (st != CR_OK) return st;
    for (uint32_t s = 0; s < nvis; ++s) {
        qface *f = &q->f[q->stack[s]];
        f->alive = false;
        for (uint32_t i = f->outside, nx; i != NONE; i = nx) {
            nx = q->next[i];
            if (i != ep) assign(q, i, first_new, q->fn);
        }
        f->outside = NONE;
    }
    return CR_OK;
}

static int by_area_desc(const void *a, const void *b)
{
    double x = ((const qface *const *)a)[0]->area2, y = ((const qface *const *)b)[0]->area2;
    return (x < y) - (x > y);
}

/* Merges the live triangles into polygons and writes the hull. */
static cr_status polygons(qh *q, const cr_vec3 *input, cr_hull *h)
{
    cr_status st = CR_ERR_OUT_OF_MEMORY;
    uint32_t live = 0;
    for (uint32_t f = 0; f < q->fn; ++f) live += q->f[f].alive;
    qface **sorted = malloc(sizeof *sorted * live);
    uint32_t *group = malloc(sizeof *group * q->fn);
    uint32_t *succ = malloc(sizeof *succ * q->n);
    uint32_t *degree = calloc(q->n, sizeof *degree);
    uint32_t *loop = malloc(sizeof *loop * 3 * live);      /* every polygon's boundary, back to back */
    uint32_t *loop_first = malloc(sizeof *loop_first * (live + 1));
    cr_vec3 *normal = malloc(sizeof *normal * live);
    uint32_t *remap = malloc(sizeof *remap * q->n);
    if (!sorted || !group || !succ || !degree || !loop || !loop_first || !normal || !remap) goto done;
    live = 0;
    for (uint32_t f = 0; f < q->fn; ++f)
        if (q->f[f].alive) sorted[live++] = &q->f[f];
    qsort(sorted, live, sizeof *sorted, by_area_desc);
    for (uint32_t f = 0; f < q->fn; ++f) group[f] = NONE;
    for (uint32_t i = 0; i < q->n; ++i) succ[i] = remap[i] = NONE;

    uint32_t ng = 0, nloop = 0;
    st = CR_ERR_INVALID_ARGUMENT;
    for (uint32_t s = 0; s < live; ++s) {
        uint32_t seed = (uint32_t)(sorted[s] - q->f);
        if (group[seed] != NONE) continue;
        /* Flood the neighbours lying in the seed's plane; q->stack holds them. */
        const qface *sf = &q->f[seed];
        uint32_t n = 0, boundary = 0;
        group[seed] = ng;
        q->stack[n++] = seed;
        for (uint32_t k = 0; k < n; ++k) {
            const qface *f = &q->f[q->stack[k]];
            for (int e = 0; e < 3; ++e) {
                uint32_t g = f->nb[e];
                if (group[g] == ng) continue;
                const qface *gf = &q->f[g];
                bool flat = group[g] == NONE && cr_v3_dot(gf->n, sf->n) > 0.0;
                for (int j = 0; j < 3 && flat; ++j) flat = fabs(dist(sf, q->p[gf->v[j]])) <= q->eps;
                if (flat) {
                    group[g] = ng;
                    q->stack[n++] = g;
                }
            }
        }
        uint32_t start = NONE;
        for (uint32_t k = 0; k < n; ++k) {
            const qface *f = &q->f[q->stack[k]];
            for (int e = 0; e < 3; ++e)
                if (group[f->nb[e]] != ng) {
                    if (succ[f->v[e]] != NONE) goto done; /* pinched polygon */
                    succ[f->v[e]] = f->v[(e + 1) % 3];
                    start = f->v[e];
                    ++boundary;
                }
        }
        /* Walk the boundary; Newell's normal is exact for a planar polygon
         * and well-conditioned for slivers. */
        loop_first[ng] = nloop;
        if (start == NONE) goto done;
        cr_vec3 nw = cr_v3_zero();
        uint32_t walked = 0;
        for (uint32_t v = start;;) {
            uint32_t w = succ[v];
            if (w == NONE || walked == boundary) goto done;
            loop[nloop++] = v;
            ++walked;
            cr_vec3 a = q->p[v], b = q->p[w];
            nw = cr_v3_add(nw, cr_v3_cross(a, b));
            succ[v] = NONE;
            v = w;
            if (v == start) break;
        }
        if (walked != boundary) goto done;
        normal[ng] = cr_v3_normalize(nw);
        for (uint32_t k = loop_first[ng]; k < nloop; ++k) degree[loop[k]]++;
        ++ng;
    }
    loop_first[ng] = nloop;

    /* Drop vertices of fewer than three polygons: they sit inside an edge. */
    uint32_t nv = 0, nfv = 0;
    for (uint32_t k = 0; k < nloop; ++k)
        if (degree[loop[k]] >= 3 && remap[loop[k]] == NONE) remap[loop[k]] = nv++;
    memset(h, 0, sizeof *h);
    h->vertices = malloc(sizeof *h->vertices * nv);
    h->faces = malloc(sizeof *h->faces * ng);
    h->face_vertices = malloc(sizeof *h->face_vertices * nloop);
    if (!h->vertices || !h->faces || !h->face_vertices) {
        st = CR_ERR_OUT_OF_MEMORY;
        goto done;
    }
    for (uint32_t i = 0; i < q->n; ++i)
        if (remap[i] != NONE) h->vertices[remap[i]] = input[i];
    for (uint32_t g = 0; g < ng; ++g) {
        cr_hull_face *fc = &h->faces[g];
        fc->first = nfv;
        for (uint32_t k = loop_first[g]; k < loop_first[g + 1]; ++k)
            if (degree[loop[k]] >= 3) h->face_vertices[nfv++] = remap[loop[k]];
        fc->count = nfv - fc->first;
        if (fc->count < 3) goto done;
        fc->normal = normal[g];
    }
    h->vertex_count = nv;
    h->face_count = ng;
    cr_hull_translate(h, cr_v3_zero());
    st = cr_hull_build_edges(h) ? CR_OK : CR_ERR_OUT_OF_MEMORY;
done:
    free(sorted);
    free(group);
    free(succ);
    free(degree);
    free(loop);
    free(loop_first);
    free(normal);
    free(remap);
    if (st != CR_OK) cr_hull_free(h);
    return st;
}

void cr_hull_translate(cr_hull *h, cr_vec3 d)
{
    for (uint32_t i = 0; i < h->vertex_count; ++i) h->vertices[i] = cr_v3_add(h->vertices[i], d);
    for (uint32_t f = 0; f < h->face_count; ++f) {
        cr_hull_face *fc = &h->faces[f];
        double s = 0.0;
        for (uint32_t k = 0; k < fc->count; ++k) s += cr_v3_dot(fc->normal, h->vertices[h->face_vertices[fc->first + k]]);
        fc->offset = s / fc->count;
    }
}

cr_status cr_hull_build(cr_hull *h, const cr_vec3 *points, uint32_t count, char *msg, size_t size)
{
    memset(h, 0, sizeof *h);
    if (count < 4) {
        if (msg && size) snprintf(msg, size, "a hull needs at least 4 points, got %u", count);
        return CR_ERR_INVALID_ARGUMENT;
    }
    for (uint32_t i = 0; i < count; ++i)
        if (!cr_v3_isfinite(points[i])) {
            if (msg && size)
                snprintf(msg, size, "hull point %u is not finite (%g, %g, %g)", i, points[i].x, points[i].y, points[i].z);
            return CR_ERR_INVALID_ARGUMENT;
        }
    qh q = {0};
    q.n = count;
    cr_vec3 *p = malloc(sizeof *p * count);
    q.next = malloc(sizeof *q.next * count);
    q.horizon_face = malloc(sizeof *q.horizon_face * count * 3);
    q.horizon_edge = malloc(sizeof *q.horizon_edge * count * 3);
    q.by_start = malloc(sizeof *q.by_start * count);
    cr_status st = CR_ERR_OUT_OF_MEMORY;
    if (!p || !q.next || !q.horizon_face || !q.horizon_edge || !q.by_start) goto done;
    cr_vec3 lo = points[0], hi = points[0];
    for (uint32_t i = 1; i < count; ++i) lo = cr_v3_min(lo, points[i]), hi = cr_v3_max(hi, points[i]);
    cr_vec3 mid = cr_v3_scale(cr_v3_add(lo, hi), 0.5);
    for (uint32_t i = 0; i < count; ++i) {
        p[i] = cr_v3_sub(points[i], mid);
        q.by_start[i] = NONE;
    }
    q.p = p;
    q.eps = 1e-10 * cr_v3_len(cr_v3_sub(hi, lo));

    uint32_t t[4];
    st = simplex(&q, t, msg, size);
    if (st != CR_OK) goto done;
    st = CR_ERR_OUT_OF_MEMORY;
    static const int tri[4][3] = {{0, 1, 2}, {0, 3, 1}, {1, 3, 2}, {2, 3, 0}};
    for (int k = 0; k < 4; ++k)
        if (add_face(&q, t[tri[k][0]], t[tri[k][1]], t[tri[k][2]]) == NONE) goto done;
    link_all(&q);
    for (uint32_t i = 0; i < count; ++i)
        if (i != t[0] && i != t[1] && i != t[2] && i != t[3]) assign(&q, i, 0, 4);
    /* Faces are appended as they are made, so one pass reaches them all. */
    st = CR_OK;
    for (uint32_t f = 0; f < q.fn && st == CR_OK; ++f)
        if (q.f[f].alive && q.f[f].outside != NONE) st = add_point(&q, f);
    if (st == CR_OK) st = polygons(&q, points, h);
    if (st == CR_ERR_INVALID_ARGUMENT && msg && size)
        snprintf(msg, size, "convex hull construction failed: the points are too nearly degenerate for tolerance %g",
                 q.eps);
done:
    if (st == CR_ERR_OUT_OF_MEMORY && msg && size) snprintf(msg, size, "out of memory");
    free(p);
    free(q.f);
    free(q.next);
    free(q.stack);
    free(q.horizon_face);
    free(q.horizon_edge);
    free(q.by_start);
    return st;
}

cr_status cr_shape_create_hull(const cr_vec3 *points, uint32_t count, cr_shape **out, char *msg, size_t size)
{
    *out = NULL;
    cr_shape *s = cr_shape_alloc(CR_SHAPE_HULL);
    if (!s) return fail(msg, size, CR_ERR_OUT_OF_MEMORY, "out of memory");
    cr_status st = cr_hull_build(&s->hull, points, count, msg, size);
    if (st == CR_OK && !cr_mass_from_hull(&s->hull, &s->mass)) st = fail(msg, size, CR_ERR_OUT_OF_MEMORY, "out of memory");
    if (st != CR_OK) {
        cr_shape_release(s);
        return st;
    }
    /* Centre on the centroid: the body's position is its centre of mass. */
    s->offset = s->mass.centroid;
    cr_hull_translate(&s->hull, cr_v3_neg(s->offset));
    for (uint32_t i = 0; i < s->hull.vertex_count; ++i) s->radius = fmax(s->radius, cr_v3_len(s->hull.vertices[i]));
    *out = s;
    return CR_OK;
}
