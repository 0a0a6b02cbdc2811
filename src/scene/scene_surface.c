/* carom scenes — surface statics (seed 004): plane, hills, bowl, B-spline,
 * their material, and friction maps over (u, v).
 *
 * A surface entry is read into a cr_surface_def whose arrays (bumps, control
 * points) the loader owns until the world has copied them, and into a
 * cr_surface of its own, so that generators can place balls on it before
 * the world gets it (surfaces are added after the bodies, so that the
 * world's curvature check sees every ball). A friction map is the one thing
 * the world keeps a pointer to: it belongs to the scene (sc_owned) and lives
 * as long as the world.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene_internal.h"

static const char *const surface_types[] = {"plane", "hills", "bowl", "bspline", NULL};
static const cr_surface_type surface_type_of[] = {CR_SURFACE_PLANE, CR_SURFACE_HILLS, CR_SURFACE_BOWL,
                                                  CR_SURFACE_BSPLINE};

#define SC_SURFACE_COMMON_KEYS "shape", "type", "restitution", "friction", "rolling_friction", "friction_map"
static const char *const plane_keys[] = {SC_SURFACE_COMMON_KEYS, "point", "normal", NULL};
static const char *const hills_keys[] = {SC_SURFACE_COMMON_KEYS, "height", "min", "max", "hills", "waves", NULL};
static const char *const bowl_keys[] = {SC_SURFACE_COMMON_KEYS, "center", "radius", NULL};
static const char *const bspline_keys[] = {SC_SURFACE_COMMON_KEYS, "degree", "control_points", "flip_normal", NULL};
static const char *const *const keys_of[] = {plane_keys, hills_keys, bowl_keys, bspline_keys};
static const char *const hill_keys[] = {"amplitude", "center", "width", NULL};
static const char *const wave_keys[] = {"amplitude", "length", NULL};
static const char *const map_keys[] = {"min", "max", "friction", "rolling_friction", NULL};

/* Bounds that turn a typo into a message rather than an exhausted machine. */
#define SC_MAX_HILLS 100000
#define SC_MAX_GRID 1000000 /* points of a control grid, values of a friction map grid */

/* ---- owned data ----------------------------------------------------------- */

int sc_owned_add(sc_owned *o, void *p)
{
    if (o->count == o->capacity) {
        uint32_t cap = o->capacity ? 2 * o->capacity : 4;
        void **items = realloc(o->items, cap * sizeof *items);
        if (items == NULL) {
            free(p);
            return -1;
        }
        o->items = items;
        o->capacity = cap;
    }
    o->items[o->count++] = p;
    return 0;
}

void sc_owned_free(sc_owned *o)
{
    if (o == NULL) return;
    for (uint32_t i = 0; i < o->count; ++i) free(o->items[i]);
    free(o->items);
    memset(o, 0, sizeof *o);
}

void sc_static_release(sc_static *st)
{
    free(st->hills);
    free(st->control);
    cr_surface_destroy(st->eval);
    st->hills = NULL;
    st->control = NULL;
    st->eval = NULL;
    st->surface.hills = NULL;
    st->surface.control_points = NULL;
}

double sc_static_penetration(const sc_static *st, cr_vec3 p, double r)
{
    if (!st->is_surface) return cr_penetration_sphere_plane(p, r, st->plane.point, st->plane.normal);
    double u, v;
    cr_surface_start(st->eval, p, &u, &v);
    cr_closest cl = cr_surface_closest(st->eval, p, u, v, 1e-12);
    /* Only where the surface lies under (or over) the centre: when the
     * closest point sits on the domain's edge with the centre off to the
     * side, the ball is beside the surface, not behind it. */
    cr_vec3 d = cr_v3_sub(p, cl.point);
    double side = cr_v3_len(cr_v3_reject(d, cl.normal));
    if (side > 1e-6 * fmax(cr_v3_len(d), r)) return -INFINITY;
    return r - cl.distance;
}

/* ---- friction maps -------------------------------------------------------- */

/* Grids of values at u_i = u0 + i (u1 - u0) / (nu - 1) (rows) and
 * v_j = v0 + j (v1 - v0) / (nv - 1) (columns), bilinear in between and
 * clamped to the edges outside; a grid of one row (column) is constant
 * along u (v). nu == 0: that coefficient is not mapped. */
typedef struct sc_friction_map {
    double u0, v0, u1, v1;
    uint32_t f_nu, f_nv, r_nu, r_nv;
    double *f, *r; /* point into data */
    double data[];
} sc_friction_map;

static double unit_clamp(double s) { return s > 0.0 ? (s < 1.0 ? s : 1.0) : 0.0; } /* NaN -> 0 */

static double bilinear(const double *g, uint32_t nu, uint32_t nv, double s, double t)
{
    double x = s * (double)(nu - 1), y = t * (double)(nv - 1);
    uint32_t i = 0, j = 0;
    double a = 0.0, b = 0.0;
    if (nu > 1) {
        i = (uint32_t)floor(x);
        if (i > nu - 2) i = nu - 2;
        a = x - (double)i;
    }
    if (nv > 1) {
        j = (uint32_t)floor(y);
        if (j > nv - 2) j = nv - 2;
        b = y - (double)j;
    }
    uint32_t i1 = nu > 1 ? i + 1 : i, j1 = nv > 1 ? j + 1 : j;
    double g00 = g[i * nv + j], g10 = g[i1 * nv + j], g01 = g[i * nv + j1], g11 = g[i1 * nv + j1];
    return (1.0 - a) * ((1.0 - b) * g00 + b * g01) + a * ((1.0 - b) * g10 + b * g11);
}

static void map_coefficients(double u, double v, void *ctx, double *friction, double *rolling_friction)
{
    const sc_friction_map *m = ctx;
    double s = unit_clamp((u - m->u0) / (m->u1 - m->u0)), t = unit_clamp((v - m->v0) / (m->v1 - m->v0));
    if (m->f_nu) *friction = bilinear(m->f, m->f_nu, m->f_nv, s, t);
    if (m->r_nu) *rolling_friction = bilinear(m->r, m->r_nu, m->r_nv, s, t);
}

/* The size of obj[key], a non-empty array of equally long non-empty rows of
 * numbers >= 0; fails naming the first bad row or value. */
static int grid_shape(sc_ctx *c, const cJSON *grid, const char *key, uint32_t *nu, uint32_t *nv)
{
    static const char *const what = "expected a non-empty array of equally long rows of numbers >= 0, e.g. [[0.1, 0.2], [0.3, 0.4]]";
    if (!cJSON_IsArray(grid) || grid->child == NULL || !cJSON_IsArray(grid->child) || grid->child->child == NULL)
        return sc_fail_value(c, key, grid, what);
    int rows = cJSON_GetArraySize(grid), cols = cJSON_GetArraySize(grid->child);
    if ((double)rows * (double)cols > SC_MAX_GRID)
        return sc_fail(c, "%s: %d x %d values, more than the limit of %d", key, rows, cols, SC_MAX_GRID);
    size_t mark = sc_push_key(c, key);
    int i = 0;
    for (const cJSON *row = grid->child; row; row = row->next, ++i) {
        size_t m2 = sc_push_index(c, (size_t)i);
        if (!cJSON_IsArray(row)) return sc_fail_value(c, NULL, row, "expected an array of numbers >= 0");
        int n = cJSON_GetArraySize(row);
        if (n != cols)
            return sc_fail(c, "has %d values, but row 0 has %d (every row needs the same number)", n, cols);
        int j = 0;
        for (const cJSON *e = row->child; e; e = e->next, ++j) {
            size_t m3 = sc_push_index(c, (size_t)j);
            if (!cJSON_IsNumber(e)) return sc_fail_value(c, NULL, e, "expected a number >= 0");
            if (!(isfinite(e->valuedouble) && e->valuedouble >= 0.0))
                return sc_fail_number(c, NULL, e->valuedouble, isfinite(e->valuedouble) ? "must be >= 0" : "must be a finite number");
            sc_pop(c, m3);
        }
        sc_pop(c, m2);
    }
    sc_pop(c, mark);
    *nu = (uint32_t)rows;
    *nv = (uint32_t)cols;
    return 0;
}

static void grid_copy(const cJSON *grid, double *out)
{
    size_t k = 0;
    for (const cJSON *row = grid->child; row; row = row->next)
        for (const cJSON *e = row->child; e; e = e->next) out[k++] = e->valuedouble;
}

/* Fails unless lo < hi on both axes (with a finite extent). */
static int check_box2(sc_ctx *c, const cJSON *obj, const double lo[2], const double hi[2], const char *what)
{
    if (lo[0] < hi[0] && lo[1] < hi[1] && isfinite(hi[0] - lo[0]) && isfinite(hi[1] - lo[1])) return 0;
    char mins[120], maxs[120];
    sc_format_value(cJSON_GetObjectItemCaseSensitive(obj, "min"), mins, sizeof mins);
    sc_format_value(cJSON_GetObjectItemCaseSensitive(obj, "max"), maxs, sizeof maxs);
    return sc_fail(c, "%s needs min < max on both axes, got min %s, max %s", what, mins, maxs);
}

static int read_friction_map(sc_ctx *c, const cJSON *surface, const cJSON *obj, cr_surface_def *def, sc_owned *owned)
{
    if (sc_expect_object(c, obj, NULL) || sc_check_keys(c, obj, map_keys)) return -1;
    double lo[2], hi[2];
    if (cJSON_GetObjectItemCaseSensitive(obj, "min") == NULL) return sc_fail_missing(c, "min", "[u0, v0]");
    if (cJSON_GetObjectItemCaseSensitive(obj, "max") == NULL) return sc_fail_missing(c, "max", "[u1, v1]");
    if (sc_read_numbers(c, obj, "min", 2, SC_ANY, lo) || sc_read_numbers(c, obj, "max", 2, SC_ANY, hi) ||
        check_box2(c, obj, lo, hi, "the map"))
        return -1;
    const cJSON *fg = cJSON_GetObjectItemCaseSensitive(obj, "friction");
    const cJSON *rg = cJSON_GetObjectItemCaseSensitive(obj, "rolling_friction");
    if (fg == NULL && rg == NULL)
        return sc_fail(c, "needs \"friction\" or \"rolling_friction\" (a grid of values over [min, max])");
    /* One value per coefficient: a number beside a map of it would be
     * silently ignored where the map applies, which is everywhere. */
    static const char *const coef[2] = {"friction", "rolling_friction"};
    for (int k = 0; k < 2; ++k)
        if ((k == 0 ? fg : rg) && cJSON_GetObjectItemCaseSensitive(surface, coef[k])) {
            size_t mark = sc_push_key(c, coef[k]);
            sc_fail(c, "given both here and as the surface's \"%s\"; give one or the other", coef[k]);
            sc_pop(c, mark);
            return -1;
        }
    uint32_t f_nu = 0, f_nv = 0, r_nu = 0, r_nv = 0;
    if ((fg && grid_shape(c, fg, "friction", &f_nu, &f_nv)) || (rg && grid_shape(c, rg, "rolling_friction", &r_nu, &r_nv)))
        return -1;
    size_t nf = (size_t)f_nu * f_nv, nr = (size_t)r_nu * r_nv;
    sc_friction_map *m = malloc(sizeof *m + (nf + nr) * sizeof(double));
    if (m == NULL || sc_owned_add(owned, m)) return sc_fail(c, "out of memory for the friction map");
    m->u0 = lo[0];
    m->v0 = lo[1];
    m->u1 = hi[0];
    m->v1 = hi[1];
    m->f_nu = f_nu;
    m->f_nv = f_nv;
    m->r_nu = r_nu;
    m->r_nv = r_nv;
    m->f = m->data;
    m->r = m->data + nf;
    if (fg) grid_copy(fg, m->f);
    if (rg) grid_copy(rg, m->r);
    def->coefficients = map_coefficients;
    def->coefficients_ctx = m;
    return 0;
}

/* ---- the surface types ---------------------------------------------------- */

static int read_surface_plane(sc_ctx *c, const cJSON *obj, cr_surface_def *d)
{
    if (sc_read_vec3(c, obj, "point", &d->point) || sc_read_vec3(c, obj, "normal", &d->normal)) return -1;
    double len = cr_v3_len(d->normal);
    if (!(len > 0.0) || !isfinite(len))
        return sc_fail_value(c, "normal", cJSON_GetObjectItemCaseSensitive(obj, "normal"), "must be non-zero and finite");
    d->normal = cr_v3_scale(d->normal, 1.0 / len);
    return 0;
}

static int read_hill(sc_ctx *c, const cJSON *obj, cr_hill *h)
{
    double center[2];
    if (sc_expect_object(c, obj, NULL) || sc_check_keys(c, obj, hill_keys)) return -1;
    if (cJSON_GetObjectItemCaseSensitive(obj, "amplitude") == NULL) return sc_fail_missing(c, "amplitude", "a number, m");
    if (cJSON_GetObjectItemCaseSensitive(obj, "center") == NULL) return sc_fail_missing(c, "center", "[x, y], m");
    if (cJSON_GetObjectItemCaseSensitive(obj, "width") == NULL) return sc_fail_missing(c, "width", "a number > 0, m");
    if (sc_read_number(c, obj, "amplitude", SC_ANY, &h->amplitude) ||
        sc_read_numbers(c, obj, "center", 2, SC_ANY, center) || sc_read_number(c, obj, "width", SC_POSITIVE, &h->width))
        return -1;
    h->x = center[0];
    h->y = center[1];
    return 0;
}

static int read_surface_hills(sc_ctx *c, const cJSON *obj, sc_static *st)
{
    cr_surface_def *d = &st->surface;
    double lo[2], hi[2];
    if (cJSON_GetObjectItemCaseSensitive(obj, "min") == NULL) return sc_fail_missing(c, "min", "[x0, y0], m: a corner of the domain");
    if (cJSON_GetObjectItemCaseSensitive(obj, "max") == NULL) return sc_fail_missing(c, "max", "[x1, y1], m: a corner of the domain");
    if (sc_read_number(c, obj, "height", SC_ANY, &d->height) || sc_read_numbers(c, obj, "min", 2, SC_ANY, lo) ||
        sc_read_numbers(c, obj, "max", 2, SC_ANY, hi) || check_box2(c, obj, lo, hi, "the domain"))
        return -1;
    d->u_min = lo[0];
    d->v_min = lo[1];
    d->u_max = hi[0];
    d->v_max = hi[1];

    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(obj, "hills");
    if (arr) {
        if (!cJSON_IsArray(arr)) return sc_fail_value(c, "hills", arr, "expected an array of objects");
        int n = cJSON_GetArraySize(arr);
        if (n > SC_MAX_HILLS) return sc_fail(c, "hills: %d bumps, more than the limit of %d", n, SC_MAX_HILLS);
        if (n > 0) {
            st->hills = calloc((size_t)n, sizeof *st->hills);
            if (st->hills == NULL) return sc_fail(c, "out of memory for %d hills", n);
        }
        size_t mark = sc_push_key(c, "hills");
        int i = 0;
        for (const cJSON *e = arr->child; e; e = e->next, ++i) {
            size_t m2 = sc_push_index(c, (size_t)i);
            if (read_hill(c, e, &st->hills[i])) return -1;
            sc_pop(c, m2);
        }
        sc_pop(c, mark);
        d->hills = st->hills;
        d->hill_count = (uint32_t)n;
    }

    const cJSON *waves = cJSON_GetObjectItemCaseSensitive(obj, "waves");
    if (waves) {
        if (sc_expect_object(c, waves, "waves")) return -1;
        size_t mark = sc_push_key(c, "waves");
        double length[2];
        if (sc_check_keys(c, waves, wave_keys)) return -1;
        if (cJSON_GetObjectItemCaseSensitive(waves, "amplitude") == NULL) return sc_fail_missing(c, "amplitude", "a number, m");
        if (cJSON_GetObjectItemCaseSensitive(waves, "length") == NULL) return sc_fail_missing(c, "length", "[Lx, Ly], m, each > 0");
        if (sc_read_number(c, waves, "amplitude", SC_ANY, &d->wave_amplitude) ||
            sc_read_numbers(c, waves, "length", 2, SC_POSITIVE, length))
            return -1;
        d->wave_length_x = length[0];
        d->wave_length_y = length[1];
        sc_pop(c, mark);
    }
    return 0;
}

static int read_surface_bowl(sc_ctx *c, const cJSON *obj, cr_surface_def *d)
{
    if (cJSON_GetObjectItemCaseSensitive(obj, "center") == NULL) return sc_fail_missing(c, "center", "[x, y, z], m");
    if (cJSON_GetObjectItemCaseSensitive(obj, "radius") == NULL) return sc_fail_missing(c, "radius", "a number > 0, m");
    return sc_read_vec3(c, obj, "center", &d->center) || sc_read_number(c, obj, "radius", SC_POSITIVE, &d->radius);
}

static int read_control_points(sc_ctx *c, const cJSON *obj, sc_static *st)
{
    static const char *const what = "expected a non-empty array of rows, each a non-empty array of [x, y, z] points";
    const cJSON *grid = cJSON_GetObjectItemCaseSensitive(obj, "control_points");
    if (grid == NULL) return sc_fail_missing(c, "control_points", "an array of rows of [x, y, z] points");
    if (!cJSON_IsArray(grid) || grid->child == NULL || !cJSON_IsArray(grid->child) || grid->child->child == NULL ||
        !cJSON_IsArray(grid->child->child))
        return sc_fail_value(c, "control_points", grid, what);
    int rows = cJSON_GetArraySize(grid), cols = cJSON_GetArraySize(grid->child);
    if ((double)rows * (double)cols > SC_MAX_GRID)
        return sc_fail(c, "control_points: %d x %d points, more than the limit of %d", rows, cols, SC_MAX_GRID);
    st->control = malloc((size_t)rows * (size_t)cols * sizeof *st->control);
    if (st->control == NULL) return sc_fail(c, "out of memory for %d x %d control points", rows, cols);
    size_t mark = sc_push_key(c, "control_points");
    int i = 0;
    for (const cJSON *row = grid->child; row; row = row->next, ++i) {
        size_t m2 = sc_push_index(c, (size_t)i);
        if (!cJSON_IsArray(row)) return sc_fail_value(c, NULL, row, "expected an array of [x, y, z] points");
        int n = cJSON_GetArraySize(row);
        if (n != cols)
            return sc_fail(c, "has %d points, but row 0 has %d (every row needs the same number of points)", n, cols);
        int j = 0;
        for (const cJSON *p = row->child; p; p = p->next, ++j) {
            size_t m3 = sc_push_index(c, (size_t)j);
            double xyz[3];
            if (sc_read_numbers_at(c, p, 3, SC_ANY, xyz)) return -1;
            st->control[(size_t)i * (size_t)cols + (size_t)j] = cr_v3(xyz[0], xyz[1], xyz[2]);
            sc_pop(c, m3);
        }
        sc_pop(c, m2);
    }
    sc_pop(c, mark);
    st->surface.control_points = st->control;
    st->surface.count_u = (uint32_t)rows;
    st->surface.count_v = (uint32_t)cols;
    return 0;
}

static int read_surface_bspline(sc_ctx *c, const cJSON *obj, sc_static *st)
{
    double degree = st->surface.degree;
    /* The range is the core's to say ("degree: must be in [1, 5]"); this
     * only keeps the conversion to int defined. */
    if (sc_read_integer(c, obj, "degree", -1e6, 1e6, &degree) ||
        sc_read_bool(c, obj, "flip_normal", &st->surface.flip_normal))
        return -1;
    st->surface.degree = (int)degree;
    return read_control_points(c, obj, st);
}

int sc_read_surface(sc_ctx *c, const cJSON *obj, sc_static *st, sc_owned *owned)
{
    st->is_surface = true;
    st->surface = cr_default_surface_def();
    cr_surface_def *d = &st->surface;
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(obj, "type");
    if (type == NULL) return sc_fail_missing(c, "type", "one of \"plane\", \"hills\", \"bowl\", \"bspline\"");
    if (cJSON_IsString(type) && strcmp(type->valuestring, "custom") == 0)
        return sc_fail_value(c, "type", type,
                             "a custom surface needs C callbacks (cr_world_add_surface); a scene file takes "
                             "\"plane\", \"hills\", \"bowl\" or \"bspline\"");
    int t = 0;
    if (sc_read_enum(c, obj, "type", surface_types, &t) || sc_check_keys(c, obj, keys_of[t])) return -1;
    d->type = surface_type_of[t];
    if (sc_read_number(c, obj, "restitution", SC_UNIT, &d->restitution) ||
        sc_read_number(c, obj, "friction", SC_NONNEG, &d->friction) ||
        sc_read_number(c, obj, "rolling_friction", SC_NONNEG, &d->rolling_friction))
        return -1;
    int rc = 0;
    switch (d->type) {
    case CR_SURFACE_PLANE: rc = read_surface_plane(c, obj, d); break;
    case CR_SURFACE_HILLS: rc = read_surface_hills(c, obj, st); break;
    case CR_SURFACE_BOWL: rc = read_surface_bowl(c, obj, d); break;
    case CR_SURFACE_BSPLINE: rc = read_surface_bspline(c, obj, st); break;
    case CR_SURFACE_CUSTOM: break;
    }
    if (rc) return -1;
    const cJSON *map = cJSON_GetObjectItemCaseSensitive(obj, "friction_map");
    if (map) {
        size_t mark = sc_push_key(c, "friction_map");
        if (read_friction_map(c, obj, map, d, owned)) return -1;
        sc_pop(c, mark);
    }
    /* The core's checks are the last word; its messages start with the
     * field's name, which is also the JSON key. */
    char msg[256];
    cr_status s = cr_surface_create(d, &st->eval, msg, sizeof msg);
    if (s == CR_ERR_OUT_OF_MEMORY) return sc_fail(c, "out of memory for the surface");
    if (s != CR_OK) return sc_fail_core(c, msg);
    return 0;
}
