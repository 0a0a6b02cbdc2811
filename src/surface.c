/* Parametric surfaces: creation, normal and curvature, closest point
 * (seed 004 §3, eq. 27-34). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "surface_internal.h"

/* The support of a bump: beyond 8.5 widths it is below double precision. */
#define CR_HILL_REACH 8.5

/* The bounds {x0, x1, y0, y1} of the bumps' supports so far, grown by h's:
 * index_hills's grid spans them (the validator checks their span). */
static void hill_box_add(double box[4], const cr_hill *h)
{
    double r = CR_HILL_REACH * h->width;
    box[0] = fmin(box[0], h->x - r);
    box[1] = fmax(box[1], h->x + r);
    box[2] = fmin(box[2], h->y - r);
    box[3] = fmax(box[3], h->y + r);
}

/* A wave's number 2 pi / L (the hills' waves, eval_hills). */
static double wave_number(double length) { return 6.283185307179586 / length; }

cr_surface_def cr_default_surface_def(void)
{
    cr_surface_def d;
    memset(&d, 0, sizeof d);
    d.type = CR_SURFACE_PLANE;
    d.normal = cr_v3(0, 0, 1);
    d.degree = 3;
    d.u_min = d.v_min = -1.0;
    d.u_max = d.v_max = 1.0;
    d.radius = 1.0;
    d.restitution = 1.0; /* statics default to 1: the ball's coefficient decides */
    d.friction = 1.0;
    d.rolling_friction = 0.0;
    d.internal_magic = CR_MAGIC_SURFACE_DEF;
    return d;
}

static cr_status bad(char *msg, size_t size, const char *text)
{
    if (msg && size) snprintf(msg, size, "%s", text);
    return CR_ERR_INVALID_ARGUMENT;
}

cr_status cr_surface_def_validate(const cr_surface_def *d, char *msg, size_t size)
{
    char buf[200];
    if (!d || d->internal_magic != CR_MAGIC_SURFACE_DEF) {
        if (msg && size) snprintf(msg, size, "surface def: not made by cr_default_surface_def()");
        return CR_ERR_UNINITIALIZED_DEF;
    }
    if (!(d->restitution >= 0.0 && d->restitution <= 1.0)) {
        snprintf(buf, sizeof buf, "restitution: must be in [0, 1], got %.17g", d->restitution);
        return bad(msg, size, buf);
    }
    if (!(d->friction >= 0.0 && isfinite(d->friction))) {
        snprintf(buf, sizeof buf, "friction: must be >= 0 and finite, got %.17g", d->friction);
        return bad(msg, size, buf);
    }
    if (!(d->rolling_friction >= 0.0 && isfinite(d->rolling_friction))) {
        snprintf(buf, sizeof buf, "rolling_friction: must be >= 0 and finite, got %.17g", d->rolling_friction);
        return bad(msg, size, buf);
    }
    switch (d->type) {
    case CR_SURFACE_PLANE: {
        double l = cr_v3_len(d->normal);
        if (!cr_v3_isfinite(d->point)) return bad(msg, size, "point: must be finite");
        if (!(l > 0.0 && isfinite(l))) return bad(msg, size, "normal: must be non-zero and finite");
        return CR_OK;
    }
    case CR_SURFACE_HILLS:
        if (!(isfinite(d->height))) return bad(msg, size, "height: must be finite");
        if (d->hill_count > 0 && !d->hills) return bad(msg, size, "hills: missing");
        double box[4] = {INFINITY, -INFINITY, INFINITY, -INFINITY};
        for (uint32_t k = 0; k < d->hill_count; ++k) {
            const cr_hill *h = &d->hills[k];
            if (!(isfinite(h->amplitude) && isfinite(h->x) && isfinite(h->y))) {
                snprintf(buf, sizeof buf, "hills[%u]: amplitude and centre must be finite", k);
                return bad(msg, size, buf);
            }
            if (!(h->width > 0.0 && isfinite(h->width))) {
                snprintf(buf, sizeof buf, "hills[%u].width: must be > 0, got %.17g", k, h->width);
                return bad(msg, size, buf);
            }
            /* the supports' bounds (index_hills's grid) must span a finite
             * extent: centres near +-1.8e308 made it infinite and its cells
             * not a number */
            hill_box_add(box, h);
            if (!(isfinite(box[1] - box[0]) && isfinite(box[3] - box[2]))) {
                snprintf(buf, sizeof buf,
                         "hills[%u]: centre (%.17g, %.17g) and width %.17g make the bumps' supports (%g widths) "
                         "span beyond the range of a double",
                         k, h->x, h->y, h->width, CR_HILL_REACH);
                return bad(msg, size, buf);
            }
        }
        if (!isfinite(d->wave_amplitude)) return bad(msg, size, "wave_amplitude: must be finite");
        if (d->wave_amplitude != 0.0 && !(d->wave_length_x > 0.0 && d->wave_length_y > 0.0 &&
                                          isfinite(d->wave_length_x) && isfinite(d->wave_length_y)))
            return bad(msg, size, "wave_length: both must be > 0 when wave_amplitude is not 0");
        /* the wave numbers 2 pi / L must be finite too (a subnormal L made
         * them infinite and the waves' sines not a number) */
        if (d->wave_amplitude != 0.0 &&
            !(isfinite(wave_number(d->wave_length_x)) && isfinite(wave_number(d->wave_length_y)))) {
            snprintf(buf, sizeof buf, "wave_length: (%.17g, %.17g) too short: 2 pi / L must be finite",
                     d->wave_length_x, d->wave_length_y);
            return bad(msg, size, buf);
        }
        break;
    case CR_SURFACE_BOWL:
        if (!cr_v3_isfinite(d->center)) return bad(msg, size, "center: must be finite");
        if (!(d->radius > 0.0 && isfinite(d->radius))) {
            snprintf(buf, sizeof buf, "radius: must be > 0, got %.17g", d->radius);
            return bad(msg, size, buf);
        }
        return CR_OK;
    case CR_SURFACE_BSPLINE:
        if (d->degree < 1 || d->degree > CR_BSPLINE_MAX_DEGREE) {
            snprintf(buf, sizeof buf, "degree: must be in [1, %d], got %d", CR_BSPLINE_MAX_DEGREE, d->degree);
            return bad(msg, size, buf);
        }
        if (d->count_u < (uint32_t)d->degree + 1 || d->count_v < (uint32_t)d->degree + 1) {
            snprintf(buf, sizeof buf, "control_points: a degree-%d grid needs at least %d x %d points, got %u x %u",
                     d->degree, d->degree + 1, d->degree + 1, d->count_u, d->count_v);
            return bad(msg, size, buf);
        }
        if (!d->control_points) return bad(msg, size, "control_points: missing");
        for (uint32_t k = 0; k < d->count_u * d->count_v; ++k)
            if (!cr_v3_isfinite(d->control_points[k])) {
                snprintf(buf, sizeof buf, "control_points[%u][%u]: must be finite", k / d->count_v, k % d->count_v);
                return bad(msg, size, buf);
            }
        return CR_OK;
    case CR_SURFACE_CUSTOM:
        if (!d->eval) return bad(msg, size, "eval: a custom surface needs its callback");
        break;
    default: return bad(msg, size, "type: unknown surface type");
    }
    if (!(d->u_min < d->u_max && d->v_min < d->v_max && isfinite(d->u_min) && isfinite(d->u_max) &&
          isfinite(d->v_min) && isfinite(d->v_max)))
        return bad(msg, size, "domain: needs finite u_min < u_max and v_min < v_max");
    return CR_OK;
}

void cr_surface_destroy(cr_surface *s)
{
    if (!s) return;
    free(s->grid_start);
    free(s->grid_terms);
    free(s->lattice_col_start);
    free(s->lattice_row_start);
    free(s->lattice_cols);
    free(s->lattice_rows);
    free(s->lattice_amp_start);
    free(s->lattice_amp);
    free(s->hills);
    free(s->control);
    free(s->knots_u);
    free(s->knots_v);
    free(s);
}

static int clampi(double v, int hi) { return !(v > 0.0) ? 0 : (v > hi ? hi : (int)v); }

/* Buckets the hills' bumps by the grid cells their supports reach. */
static bool index_hills(cr_surface *s)
{
    uint32_t n = s->def.hill_count;
    if (n == 0) return true;
    double box[4] = {INFINITY, -INFINITY, INFINITY, -INFINITY}, wmax = 0.0;
    for (uint32_t k = 0; k < n; ++k) {
        hill_box_add(box, &s->hills[k]);
        wmax = fmax(wmax, s->hills[k].width);
    }
    double x0 = box[0], x1 = box[1], y0 = box[2], y1 = box[3];
    /* Cells of a few widths, at most 256 x 256. */
    double cell = fmax(2.0 * wmax, fmax(x1 - x0, y1 - y0) / 256.0);
    s->grid_x0 = x0;
    s->grid_y0 = y0;
    s->grid_cell = cell;
    s->grid_inv_cell = 1.0 / cell;
    s->grid_nx = (int)ceil((x1 - x0) / cell) + 1;
    s->grid_ny = (int)ceil((y1 - y0) / cell) + 1;
    size_t cells = (size_t)s->grid_nx * (size_t)s->grid_ny;
    s->grid_start = calloc(cells + 1, sizeof *s->grid_start);
    if (!s->grid_start) return false;
    for (int pass = 0; pass < 2; ++pass) {
        for (uint32_t k = 0; k < n; ++k) {
            double r = CR_HILL_REACH * s->hills[k].width;
            int ia = clampi((s->hills[k].x - r - x0) / cell, s->grid_nx - 1);
            int ib = clampi((s->hills[k].x + r - x0) / cell, s->grid_nx - 1);
            int ja = clampi((s->hills[k].y - r - y0) / cell, s->grid_ny - 1);
            int jb = clampi((s->hills[k].y + r - y0) / cell, s->grid_ny - 1);
            for (int i = ia; i <= ib; ++i)
                for (int j = ja; j <= jb; ++j) {
                    size_t c = (size_t)j * (size_t)s->grid_nx + (size_t)i;
                    if (pass == 0) {
                        s->grid_start[c + 1]++;
                    } else {
                        const cr_hill *h = &s->hills[k];
                        s->grid_terms[s->grid_start[c]++] =
                            (cr_hill_term){h->x, h->y, 1.0 / (h->width * h->width), h->amplitude};
                    }
                }
        }
        if (pass == 0) {
            for (size_t c = 0; c < cells; ++c) s->grid_start[c + 1] += s->grid_start[c];
            s->grid_terms = malloc(sizeof *s->grid_terms * (s->grid_start[cells] ? s->grid_start[cells] : 1));
            if (!s->grid_terms) return false;
        }
    }
    for (size_t c = cells; c > 0; --c) s->grid_start[c] = s->grid_start[c - 1];
    s->grid_start[0] = 0;
    return true;
}

/* The waves' factors eval_hills multiplies by (surface_internal.h). */
static void hills_waves(cr_surface *s)
{
    const cr_surface_def *d = &s->def;
    if (d->wave_amplitude == 0.0) return; /* no waves (their lengths may be 0) */
    double ka = wave_number(d->wave_length_x), kb = wave_number(d->wave_length_y), W = d->wave_amplitude;
    s->wave_kx = ka;
    s->wave_ky = kb;
    s->wave_f[0] = W * ka;
    s->wave_f[1] = W * kb;
    s->wave_f[2] = -W * ka * ka;
    s->wave_f[3] = -W * kb * kb;
    s->wave_f[4] = W * ka * kb;
}

/* Clamped uniform knots: p+1 zeros, the interior evenly spaced, p+1 ones. */
static double *clamped_knots(int n, int p)
{
    double *k = malloc(sizeof *k * (size_t)(n + p + 1));
    if (!k) return NULL;
    for (int i = 0; i <= n + p; ++i) {
        if (i <= p) k[i] = 0.0;
        else if (i >= n) k[i] = 1.0;
        else k[i] = (double)(i - p) / (double)(n - p);
    }
    return k;
}

cr_status cr_surface_create(const cr_surface_def *def, cr_surface **out, char *msg, size_t size)
{
    *out = NULL;
    cr_status st = cr_surface_def_validate(def, msg, size);
    if (st != CR_OK) return st;
    cr_surface *s = calloc(1, sizeof *s);
    if (!s) return CR_ERR_OUT_OF_MEMORY;
    s->def = *def;
    s->orientation = def->flip_normal ? -1.0 : 1.0;
    switch (def->type) {
    case CR_SURFACE_PLANE: {
        cr_vec3 n = cr_v3_normalize(def->normal);
        cr_vec3 helper = fabs(n.x) < 0.9 ? cr_v3(1, 0, 0) : cr_v3(0, 1, 0);
        s->e1 = cr_v3_normalize(cr_v3_reject(helper, n));
        s->e2 = cr_v3_cross(n, s->e1);
        s->def.normal = n;
        s->def.u_min = s->def.v_min = -INFINITY;
        s->def.u_max = s->def.v_max = INFINITY;
        s->size = 1.0;
        break;
    }
    case CR_SURFACE_HILLS:
        if (def->hill_count) {
            s->hills = malloc(sizeof *s->hills * def->hill_count);
            if (!s->hills) goto oom;
            memcpy(s->hills, def->hills, sizeof *s->hills * def->hill_count);
        }
        s->def.hills = s->hills;
        s->size = fmax(def->u_max - def->u_min, def->v_max - def->v_min);
        if (!index_hills(s) || !cr_hills_factor(s)) goto oom;
        hills_waves(s);
        break;
    case CR_SURFACE_BOWL:
        s->def.u_min = def->center.x - def->radius;
        s->def.u_max = def->center.x + def->radius;
        s->def.v_min = def->center.y - def->radius;
        s->def.v_max = def->center.y + def->radius;
        s->size = def->radius;
        break;
    case CR_SURFACE_BSPLINE: {
        size_t n = (size_t)def->count_u * def->count_v;
        s->control = malloc(sizeof *s->control * n);
        s->knots_u = clamped_knots((int)def->count_u, def->degree);
        s->knots_v = clamped_knots((int)def->count_v, def->degree);
        if (!s->control || !s->knots_u || !s->knots_v) goto oom;
        memcpy(s->control, def->control_points, sizeof *s->control * n);
        s->def.control_points = s->control;
        s->def.u_min = s->def.v_min = 0.0;
        s->def.u_max = s->def.v_max = 1.0;
        cr_vec3 lo = s->control[0], hi = s->control[0];
        for (size_t k = 1; k < n; ++k) {
            lo = cr_v3_min(lo, s->control[k]);
            hi = cr_v3_max(hi, s->control[k]);
        }
        s->size = fmax(cr_v3_len(cr_v3_sub(hi, lo)), 1e-300);
        break;
    }
    case CR_SURFACE_CUSTOM: s->size = fmax(def->u_max - def->u_min, def->v_max - def->v_min); break;
    }
    s->max_curvature = cr_surface_max_curvature(s, 64, &s->max_curvature_u, &s->max_curvature_v);
    *out = s;
    return CR_OK;
oom:
    cr_surface_destroy(s);
    return CR_ERR_OUT_OF_MEMORY;
}

const cr_surface_def *cr_surface_get_def(const cr_surface *s) { return &s->def; }

/* The unit normal towards the free side. */
static inline cr_vec3 normal_of(const cr_surface *s, const cr_surface_eval *e)
{
    return cr_v3_scale(cr_v3_normalize(cr_v3_cross(e->su, e->sv)), s->orientation);
}

void cr_surface_evaluate(const cr_surface *s, double u, double v, cr_surface_eval *out, cr_vec3 *normal)
{
    cr_surface_eval_raw(s, u, v, out);
    if (normal) *normal = normal_of(s, out);
}

void cr_surface_curvature_of(const cr_surface_eval *e, cr_vec3 n, double *k1, double *k2, double *gaussian)
{
    /* First and second fundamental forms (do Carmo §3-3); with n towards the
     * free side, L = s_uu.n > 0 where the surface bends towards it. */
    double E = cr_v3_dot(e->su, e->su), F = cr_v3_dot(e->su, e->sv), G = cr_v3_dot(e->sv, e->sv);
    double L = cr_v3_dot(e->suu, n), M = cr_v3_dot(e->suv, n), N = cr_v3_dot(e->svv, n);
    double det = E * G - F * F;
    double K = det > 0.0 ? (L * N - M * M) / det : 0.0;
    double H = det > 0.0 ? (E * N - 2.0 * F * M + G * L) / (2.0 * det) : 0.0;
    double disc = sqrt(fmax(H * H - K, 0.0));
    if (k1) *k1 = H - disc;
    if (k2) *k2 = H + disc;
    if (gaussian) *gaussian = K;
}

void cr_surface_curvature(const cr_surface *s, double u, double v, double *k1, double *k2, double *gaussian)
{
    cr_surface_eval e;
    cr_vec3 n;
    cr_surface_evaluate(s, u, v, &e, &n);
    cr_surface_curvature_of(&e, n, k1, k2, gaussian);
}

static void clamp_domain(const cr_surface *s, double *u, double *v)
{
    if (*u < s->def.u_min) *u = s->def.u_min;
    if (*u > s->def.u_max) *u = s->def.u_max;
    if (*v < s->def.v_min) *v = s->def.v_min;
    if (*v > s->def.v_max) *v = s->def.v_max;
}

void cr_surface_start(const cr_surface *s, cr_vec3 p, double *u, double *v)
{
    if (s->def.type == CR_SURFACE_PLANE) {
        cr_vec3 d = cr_v3_sub(p, s->def.point);
        *u = cr_v3_dot(d, s->e1);
        *v = cr_v3_dot(d, s->e2);
        return;
    }
    if (s->def.type == CR_SURFACE_HILLS || s->def.type == CR_SURFACE_BOWL) { /* graphs over (x, y) */
        *u = p.x;
        *v = p.y;
        clamp_domain(s, u, v);
        return;
    }
    /* A coarse grid search for the nearest sample. */
    const int n = 16;
    double best = INFINITY;
    *u = s->def.u_min;
    *v = s->def.v_min;
    for (int i = 0; i <= n; ++i)
        for (int j = 0; j <= n; ++j) {
            double uu = s->def.u_min + (s->def.u_max - s->def.u_min) * i / n;
            double vv = s->def.v_min + (s->def.v_max - s->def.v_min) * j / n;
            cr_surface_eval e;
            cr_surface_eval_raw(s, uu, vv, &e);
            double d = cr_v3_len2(cr_v3_sub(e.s, p));
            if (d < best) {
                best = d;
                *u = uu;
                *v = vv;
            }
        }
}

/* Graphs over (x, y): su = (1, 0, z_x), sv = (0, 1, z_y), the second
 * derivatives along z only (surface_builtin.c writes those 0s and 1s). */
static bool graph(const cr_surface *s) { return s->def.type == CR_SURFACE_HILLS || s->def.type == CR_SURFACE_BOWL; }

/* A graph's evaluation e with its 0s and 1s written as constants, so that
 * the compiler multiplies them out where it is used (only the folds IEEE
 * allows, x * 1 and 1 * 1: the same bits as e itself). */
static inline __attribute__((always_inline)) cr_surface_eval graph_eval(const cr_surface_eval *e)
{
    return (cr_surface_eval){e->s,
                             cr_v3(1, 0, e->su.z),
                             cr_v3(0, 1, e->sv.z),
                             cr_v3(0, 0, e->suu.z),
                             cr_v3(0, 0, e->suv.z),
                             cr_v3(0, 0, e->svv.z)};
}

/* One Newton step of seed 004 eq. 31-34 at (u, v), the surface there e:
 * the next (u, v) in *nu, *nv (clamped to the domain) and the square of
 * how far it moves the point (newton compares squares: no square root
 * between the step and the branch on it); false when A is not positive
 * definite. Inlined into both of
 * newton's calls so that, on a graph, the 0s and 1s of e are constants the
 * compiler multiplies out (only the folds IEEE allows, x * 1 and 1 * 1:
 * the same bits as the general evaluation). */
static inline __attribute__((always_inline)) bool newton_step(const cr_surface *s, const cr_surface_eval *e, cr_vec3 p,
                                                              double u, double v, double *nu, double *nv, double *moved2)
{
    cr_vec3 d = cr_v3_sub(e->s, p);
    double a11 = cr_v3_dot(d, e->suu) + cr_v3_dot(e->su, e->su); /* eq. 33 */
    double a12 = cr_v3_dot(d, e->suv) + cr_v3_dot(e->su, e->sv);
    double a22 = cr_v3_dot(d, e->svv) + cr_v3_dot(e->sv, e->sv);
    double b1 = -cr_v3_dot(d, e->su), b2 = -cr_v3_dot(d, e->sv); /* eq. 34 */
    double det = a11 * a22 - a12 * a12;
    if (!(a11 > 0.0 && det > 0.0)) return false; /* not a minimum nearby */
    double du = (a22 * b1 - a12 * b2) / det, dv = (a11 * b2 - a12 * b1) / det;
    *nu = u + du;
    *nv = v + dv;
    clamp_domain(s, nu, nv);
    *moved2 = cr_v3_len2(cr_v3_madd(cr_v3_scale(e->su, *nu - u), e->sv, *nv - v));
    return true;
}

/* Newton's last step is taken by Taylor when CR_TAYLOR_REACH max(k_max, 1)
 * |step|^2 <= tol size (newton). 4 would bound the next step by the
 * curvatures with a margin, but the step's surface keeps the second
 * derivatives of the evaluation before, off by about |z'''| |step|: at 4
 * the steps reach 5e-7 m and the curvatures are off by up to 7e-6, enough
 * to shift which balls take off or lie still (the boiling scene's energy
 * after 1 s moved by 0.8 J over 12 runs, where the search's tolerance from
 * 1e-13 to 1e-15 moves it by 0.5). 400 keeps the steps ten times shorter
 * (4e-8 m in a 3 m scene) and the energy within that band, for 5 % of the
 * instructions where 4 saved 9 % (docs/benchmarks.md, "taylor"). */
#define CR_TAYLOR_REACH 400.0

/* Taylor's step is taken on the hills only. They are smooth everywhere
 * (bumps and waves) and their evaluation is the expensive one. The bowl's
 * is a square root and a division, and as a graph over (x, y) it is
 * singular at its rim (z''' grows without bound; beyond the rim the
 * evaluation is clamped to it), where the series went wrong by up to
 * 2.8e-7 in the normal; B-splines and planes keep their exact evaluations
 * too, and custom surfaces bypass all this. */
static bool taylor_surface(const cr_surface *s) { return s->def.type == CR_SURFACE_HILLS; }

/* The surface a short step (du, dv) from e's point on a graph (the
 * hills), by its Taylor series from e (seed 004 eq. 1's s(u, v) expanded
 * about the anchor): s and z_x, z_y to second order, the second
 * derivatives kept. Its error is |step|^3 |z'''| in s, |step|^2 |z'''| in
 * the slopes (the tolerance's own order in the normal) and |step| |z'''|
 * in the second derivatives (newton; docs/benchmarks.md "taylor"). out
 * may be e. */
static void taylor_graph(const cr_surface_eval *e, double du, double dv, cr_surface_eval *out)
{
    double zx = e->su.z, zy = e->sv.z, zxx = e->suu.z, zxy = e->suv.z, zyy = e->svv.z;
    double z = e->s.z + (zx * du + zy * dv) + 0.5 * (zxx * du * du + 2.0 * zxy * du * dv + zyy * dv * dv);
    out->s = cr_v3(e->s.x + du, e->s.y + dv, z);
    out->su = cr_v3(1, 0, zx + zxx * du + zxy * dv);
    out->sv = cr_v3(0, 1, zy + zxy * du + zyy * dv);
    out->suu = cr_v3(0, 0, zxx);
    out->suv = cr_v3(0, 0, zxy);
    out->svv = cr_v3(0, 0, zyy);
}

/* Newton's iteration of seed 004 eq. 31-34 from (c->u, c->v); false when A
 * is not positive definite or the iteration does not settle. Converged when
 * the next step would move the point by at most tol * size: the point it
 * stands on is then within the tolerance of the closest one, and is kept
 * with its evaluation in *at, so that no evaluation is spent on a step
 * below the tolerance. On the hills (taylor_surface), also converged when
 * the step is so short that the one after it would be below the tolerance
 * (Newton converges quadratically, the next step about k |step|^2 for
 * curvatures k: CR_TAYLOR_REACH max(max_curvature, 1) |step|^2 <= tol *
 * size): the step is taken and the surface at its end is taylor_graph's
 * from the evaluation before, which is not made again to confirm it.
 * Either way c->anchor_u, anchor_v is where the last evaluation was made,
 * and *anchor (when not NULL) that evaluation when it is not *at's. first,
 * when not NULL, is the surface at the starting (u, v). */
static bool newton(const cr_surface *s, cr_vec3 p, double tol, const cr_surface_eval *first, cr_closest *c,
                   cr_surface_eval *at, cr_surface_eval *anchor)
{
    bool flat = graph(s);
    double near = tol * s->size, near2 = near * near;
    double taylor = taylor_surface(s) ? near / (CR_TAYLOR_REACH * (s->max_curvature > 1.0 ? s->max_curvature : 1.0)) : -1.0;
    for (int it = 0; it < 32; ++it) {
        /* Evaluated into *at (no copy when it is the answer), or read from
         * first, the surface at the start (u, v) already at hand. */
        const cr_surface_eval *e = at;
        if (it == 0 && first) e = first;
        else cr_surface_eval_raw(s, c->u, c->v, at);
        ++c->iterations;
        c->anchor_u = c->u;
        c->anchor_v = c->v;
        double nu, nv, moved2;
        bool ok;
        if (flat) {
            const cr_surface_eval g = graph_eval(e);
            ok = newton_step(s, &g, p, c->u, c->v, &nu, &nv, &moved2);
        } else {
            ok = newton_step(s, e, p, c->u, c->v, &nu, &nv, &moved2);
        }
        if (!ok) return false;
        if (moved2 <= near2) {
            if (e != at) *at = *e;
            return true;
        }
        if (moved2 <= taylor) { /* (never off the hills: taylor < 0) */
            if (anchor) *anchor = *e;
            taylor_graph(e, nu - c->u, nv - c->v, at);
            c->u = nu;
            c->v = nv;
            return true;
        }
        c->u = nu;
        c->v = nv;
    }
    return false;
}

/* Fallback: damped steepest descent on |s - p|^2 from the best coarse sample. */
static void descend(const cr_surface *s, cr_vec3 p, double *u, double *v, int *iterations)
{
    cr_surface_start(s, p, u, v);
    double step = 1.0;
    for (int it = 0; it < 200; ++it) {
        cr_surface_eval e;
        cr_surface_eval_raw(s, *u, *v, &e);
        cr_vec3 d = cr_v3_sub(e.s, p);
        double f = cr_v3_len2(d), gu = 2.0 * cr_v3_dot(d, e.su), gv = 2.0 * cr_v3_dot(d, e.sv);
        double g2 = gu * gu + gv * gv;
        ++*iterations;
        if (g2 == 0.0) return;
        for (int k = 0; k < 40; ++k, step *= 0.5) {
            double nu = *u - step * gu, nv = *v - step * gv;
            clamp_domain(s, &nu, &nv);
            cr_surface_eval en;
            cr_surface_eval_raw(s, nu, nv, &en);
            if (cr_v3_len2(cr_v3_sub(en.s, p)) < f) {
                *u = nu;
                *v = nv;
                step *= 2.0;
                break;
            }
        }
    }
}

cr_closest cr_surface_closest(const cr_surface *s, cr_vec3 p, double u0, double v0, double tol)
{
    cr_surface_eval e;
    return cr_surface_closest_eval(s, p, u0, v0, tol, &e);
}

/* The search of cr_surface_closest_eval from the clamped start in c (first:
 * the surface there, when at hand): c's parameters, anchor, iterations and
 * convergence, the surface at the answer in *at and, when not NULL and the
 * answer is not the anchor (newton), at the anchor in *anchor. */
static void search(const cr_surface *s, cr_vec3 p, double tol, const cr_surface_eval *first, cr_closest *c,
                   cr_surface_eval *at, cr_surface_eval *anchor)
{
    c->converged = newton(s, p, tol, first, c, at, anchor);
    if (!c->converged) {
        descend(s, p, &c->u, &c->v, &c->iterations);
        c->converged = newton(s, p, tol, NULL, c, at, anchor);
    }
    if (!c->converged) {
        cr_surface_eval_raw(s, c->u, c->v, at);
        c->anchor_u = c->u;
        c->anchor_v = c->v;
    }
}

/* The rest of the answer from its parameters and the surface there. */
static void answer(const cr_surface *s, cr_vec3 p, const cr_surface_eval *at, cr_closest *c)
{
    if (graph(s)) { /* su = (1, 0, z_x), sv = (0, 1, z_y) as constants */
        const cr_surface_eval g = graph_eval(at);
        c->normal = normal_of(s, &g);
    } else {
        c->normal = normal_of(s, at);
    }
    c->point = at->s;
    cr_vec3 off = cr_v3_sub(p, at->s);
    c->distance = cr_v3_dot(off, c->normal);
    /* Clamped to the domain's edge with an offset that is not along the
     * normal: p is beside the surface. Its signed distance would say "behind"
     * for a point far off to the side; the true distance is to the edge. */
    bool clamped = c->u <= s->def.u_min || c->u >= s->def.u_max || c->v <= s->def.v_min || c->v >= s->def.v_max;
    c->on_edge = clamped && cr_v3_len(cr_v3_reject(off, c->normal)) > 1e-9 * (s->size + cr_v3_len(off));
    if (c->on_edge) c->distance = cr_v3_len(off);
}

static cr_closest start(const cr_surface *s, double u0, double v0)
{
    cr_closest c;
    memset(&c, 0, sizeof c);
    c.u = u0;
    c.v = v0;
    clamp_domain(s, &c.u, &c.v);
    c.anchor_u = c.u;
    c.anchor_v = c.v;
    return c;
}

cr_closest cr_surface_closest_eval(const cr_surface *s, cr_vec3 p, double u0, double v0, double tol, cr_surface_eval *at)
{
    cr_closest c = start(s, u0, v0);
    search(s, p, tol, NULL, &c, at, NULL);
    answer(s, p, at, &c);
    return c;
}

static bool same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

static void memo_keep(const cr_surface *s, cr_closest_memo *m, const cr_surface_eval *e)
{
    if (!graph(s)) return;
    double *g = m->graph;
    g[0] = e->s.x;
    g[1] = e->s.y;
    g[2] = e->s.z;
    g[3] = e->su.z;
    g[4] = e->sv.z;
    g[5] = e->suu.z;
    g[6] = e->suv.z;
    g[7] = e->svv.z;
}

/* The surface at the memo's (u, v), its last anchor: from its numbers (a
 * graph), else evaluated again. */
static void memo_eval(const cr_surface *s, const cr_closest_memo *m, cr_surface_eval *e)
{
    if (!graph(s)) {
        cr_surface_eval_raw(s, m->u, m->v, e);
        return;
    }
    const double *g = m->graph;
    e->s = cr_v3(g[0], g[1], g[2]);
    e->su = cr_v3(1, 0, g[3]);
    e->sv = cr_v3(0, 1, g[4]);
    e->suu = cr_v3(0, 0, g[5]);
    e->suv = cr_v3(0, 0, g[6]);
    e->svv = cr_v3(0, 0, g[7]);
}

cr_closest cr_surface_closest_memo(const cr_surface *s, uint32_t surface, cr_closest_memo *m, cr_vec3 p, double u0,
                                   double v0, double tol, cr_surface_eval *at)
{
    if (s->def.type == CR_SURFACE_CUSTOM) return cr_surface_closest_eval(s, p, u0, v0, tol, at);
    /* Compared bit for bit (the query has no padding): -0 is not +0 here. */
    cr_closest_query q = {p, u0, v0, tol};
    bool known = m->surface == surface;
    cr_closest c;
    if (known && memcmp(&q, &m->query, sizeof q) == 0) { /* asked again: the same search, done */
        /* Its last Newton step was made at the anchor, from the evaluation
         * the memo keeps: that step again (the same operations on the same
         * numbers) is the same answer, without the iterations before it. */
        c = start(s, m->u, m->v); /* (in the domain already: the same bits) */
        cr_surface_eval e;
        memo_eval(s, m, &e);
        if (m->converged) newton(s, p, tol, &e, &c, at, NULL);
        else *at = e; /* the fallback's answer, evaluated there */
        c.iterations = m->iterations;
        c.converged = m->converged;
    } else {
        c = start(s, u0, v0);
        bool there = known && same_bits(c.u, m->u) && same_bits(c.v, m->v); /* starts at the last anchor */
        cr_surface_eval first, anchor;
        if (there) memo_eval(s, m, &first);
        search(s, p, tol, there ? &first : NULL, &c, at, &anchor);
        bool stepped = !same_bits(c.u, c.anchor_u) || !same_bits(c.v, c.anchor_v); /* by Taylor (newton) */
        memo_keep(s, m, stepped ? &anchor : at); /* only exact evaluations: a pure function of (u, v) */
        m->query = q;
        m->u = c.anchor_u;
        m->v = c.anchor_v;
        m->iterations = c.iterations;
        m->converged = c.converged;
        m->surface = surface;
    }
    answer(s, p, at, &c);
    return c;
}

double cr_surface_max_curvature(const cr_surface *s, int n, double *at_u, double *at_v)
{
    double worst = -INFINITY;
    double u0 = s->def.u_min, u1 = s->def.u_max, v0 = s->def.v_min, v1 = s->def.v_max;
    if (!isfinite(u0)) return 0.0; /* a plane */
    for (int i = 0; i <= n; ++i)
        for (int j = 0; j <= n; ++j) {
            double u = u0 + (u1 - u0) * i / n, v = v0 + (v1 - v0) * j / n, k1, k2;
            cr_surface_curvature(s, u, v, &k1, &k2, NULL);
            if (k2 > worst) {
                worst = k2;
                if (at_u) *at_u = u;
                if (at_v) *at_v = v;
            }
        }
    return worst;
}

void cr_surface_coefficients(const cr_surface *s, double u, double v, double *friction, double *rolling_friction)
{
    *friction = s->def.friction;
    *rolling_friction = s->def.rolling_friction;
    if (s->def.coefficients) s->def.coefficients(u, v, s->def.coefficients_ctx, friction, rolling_friction);
}
