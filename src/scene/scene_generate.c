/* carom scenes — generators: many spheres from one template.
 *
 * "lattice" puts spheres on a grid with optional seeded jitter; "random_fill"
 * places non-overlapping spheres uniformly in a box by rejection, with a
 * uniform grid so that each try costs O(1) (DESIGN: O(n), not O(n^2)).
 * Both draw from splitmix64 seeded by the scene, never rand(), so that a
 * scene file gives the same bodies on every machine and every run.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene.h"
#include "scene_internal.h"

static const char *const entry_keys[] = {"lattice", "random_fill", "body", NULL};
static const char *const lattice_keys[] = {"count", "origin", "spacing", "jitter", "speed", "seed", NULL};
static const char *const fill_keys[] = {"count", "min", "max", "speed", "seed", NULL};

/* Seeds are JSON numbers, exact as integers up to 2^53. */
#define SC_MAX_SEED 9007199254740992.0

/* ---- PRNG: splitmix64 (Steele, Lea, Flood 2014), public domain ----------- */

typedef struct sc_rng { uint64_t s; } sc_rng;

static uint64_t rng_next(sc_rng *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [0, 1) from the top 53 bits: every value a double can hold. */
static double rng_uniform(sc_rng *r) { return (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0); }

/* Velocities come from their own stream, so that adding "speed" to a
 * generator does not move its bodies. */
static sc_rng velocity_rng(double seed) { return (sc_rng){(uint64_t)seed ^ 0x5DEECE66DA3B1F27ull}; }

/* The template's velocity plus speed along a direction uniform on the
 * sphere, by Marsaglia's (1972) method: only arithmetic and sqrt, which
 * IEEE 754 rounds exactly, so the directions do not depend on the libm. */
static cr_vec3 random_velocity(sc_rng *r, cr_vec3 base, double speed)
{
    if (speed == 0.0) return base;
    double a, b, s;
    do {
        a = 2.0 * rng_uniform(r) - 1.0;
        b = 2.0 * rng_uniform(r) - 1.0;
        s = a * a + b * b;
    } while (s >= 1.0 || s == 0.0);
    double q = 2.0 * sqrt(1.0 - s);
    return cr_v3_add(base, cr_v3(speed * a * q, speed * b * q, speed * (1.0 - 2.0 * s)));
}

/* ---- lattice ------------------------------------------------------------ */

static int read_counts(sc_ctx *c, const cJSON *obj, uint32_t n[3])
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, "count");
    if (v == NULL) return sc_fail_missing(c, "count", "an array of 3 integers, e.g. [10, 10, 10]");
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 3) return sc_fail_value(c, "count", v, "expected an array of 3 integers");
    int i = 0;
    for (const cJSON *e = v->child; e; e = e->next, ++i) {
        double d = e->valuedouble;
        if (!cJSON_IsNumber(e) || !isfinite(d) || d != floor(d) || d < 0 || d > CR_SCENE_MAX_BODIES)
            return sc_fail_value(c, "count", v, "expected an array of 3 integers in [0, 10000000]");
        n[i] = (uint32_t)d;
    }
    return 0;
}

static int lattice(sc_ctx *c, const cJSON *spec, const cr_body_def *tmpl, sc_bodies *b)
{
    uint32_t n[3];
    cr_vec3 origin = cr_v3_zero(), spacing = cr_v3_zero();
    double jitter = 0.0, speed = 0.0, seed = 0.0;
    if (sc_expect_object(c, spec, NULL) || sc_check_keys(c, spec, lattice_keys) || read_counts(c, spec, n) ||
        sc_read_vec3(c, spec, "origin", &origin) ||
        sc_read_positive_vec3_or_number(c, spec, "spacing", &spacing) ||
        sc_read_number(c, spec, "jitter", SC_NONNEG, &jitter) || sc_read_number(c, spec, "speed", SC_NONNEG, &speed) ||
        sc_read_integer(c, spec, "seed", 0, SC_MAX_SEED, &seed))
        return -1;
    if (cJSON_GetObjectItemCaseSensitive(spec, "spacing") == NULL)
        return sc_fail_missing(c, "spacing", "a number or an array of 3 numbers, m");
    double total = (double)n[0] * n[1] * n[2];
    if (total + b->count > CR_SCENE_MAX_BODIES)
        return sc_fail_value(c, "count", cJSON_GetObjectItemCaseSensitive(spec, "count"),
                             "makes more bodies than the limit of 10000000");

    sc_rng rng = {(uint64_t)seed}, vrng = velocity_rng(seed);
    cr_body_def def = *tmpl;
    /* x varies fastest, then y, then z: ids run along rows, then layers. */
    for (uint32_t k = 0; k < n[2]; ++k)
        for (uint32_t j = 0; j < n[1]; ++j)
            for (uint32_t i = 0; i < n[0]; ++i) {
                def.position = cr_v3(origin.x + spacing.x * i, origin.y + spacing.y * j, origin.z + spacing.z * k);
                if (jitter > 0.0) {
                    /* Three draws per body in a fixed order: reproducible. */
                    def.position.x += jitter * (2.0 * rng_uniform(&rng) - 1.0);
                    def.position.y += jitter * (2.0 * rng_uniform(&rng) - 1.0);
                    def.position.z += jitter * (2.0 * rng_uniform(&rng) - 1.0);
                }
                def.velocity = random_velocity(&vrng, tmpl->velocity, speed);
                if (!cr_v3_isfinite(def.position) || !cr_v3_isfinite(def.velocity))
                    return sc_fail(c, "body %u gets a non-finite position or velocity", b->count);
                if (sc_add_body(c, b, &def)) return -1;
            }
    return 0;
}

/* ---- random fill -------------------------------------------------------- */

/* A uniform grid of cells no smaller than the largest contact distance, so
 * that a candidate meets only bodies in its own and the 26 neighbouring
 * cells. Bodies are chained through next[] by their index in ids[]. */
typedef struct sc_grid {
    cr_vec3 lo;      /* corner of cell (0,0,0) */
    double h;        /* cell size */
    int n[3];
    int32_t *head;   /* per cell: first entry or -1 */
    int32_t *next;   /* per entry */
    uint32_t *ids;   /* per entry: body id */
    uint32_t entries, capacity;
} sc_grid;

static int grid_cell_of(const sc_grid *g, cr_vec3 p, int axis)
{
    double v = axis == 0 ? p.x - g->lo.x : axis == 1 ? p.y - g->lo.y : p.z - g->lo.z;
    int i = (int)floor(v / g->h);
    return i < 0 ? 0 : (i >= g->n[axis] ? g->n[axis] - 1 : i);
}

static size_t grid_index(const sc_grid *g, int i, int j, int k)
{
    return ((size_t)k * (size_t)g->n[1] + (size_t)j) * (size_t)g->n[0] + (size_t)i;
}

static void grid_insert(sc_grid *g, const sc_bodies *b, uint32_t id)
{
    cr_vec3 p = b->position[id];
    size_t cell = grid_index(g, grid_cell_of(g, p, 0), grid_cell_of(g, p, 1), grid_cell_of(g, p, 2));
    g->ids[g->entries] = id;
    g->next[g->entries] = g->head[cell];
    g->head[cell] = (int32_t)g->entries;
    g->entries++;
}

static bool grid_clear(const sc_grid *g, const sc_bodies *b, cr_vec3 p, double r)
{
    int ci = grid_cell_of(g, p, 0), cj = grid_cell_of(g, p, 1), ck = grid_cell_of(g, p, 2);
    for (int k = ck - 1; k <= ck + 1; ++k)
        for (int j = cj - 1; j <= cj + 1; ++j)
            for (int i = ci - 1; i <= ci + 1; ++i) {
                if (i < 0 || j < 0 || k < 0 || i >= g->n[0] || j >= g->n[1] || k >= g->n[2]) continue;
                for (int32_t e = g->head[grid_index(g, i, j, k)]; e >= 0; e = g->next[e]) {
                    uint32_t id = g->ids[e];
                    double d = r + b->radius[id];
                    if (cr_v3_len2(cr_v3_sub(p, b->position[id])) < d * d) return false;
                }
            }
    return true;
}

static bool inside(cr_vec3 p, cr_vec3 lo, cr_vec3 hi)
{
    return p.x >= lo.x && p.x <= hi.x && p.y >= lo.y && p.y <= hi.y && p.z >= lo.z && p.z <= hi.z;
}

/* Existing bodies that a sphere placed inside [min, max] could touch. */
static bool near_box(const sc_bodies *b, uint32_t id, cr_vec3 min, cr_vec3 max)
{
    double q = b->radius[id];
    return inside(b->position[id], cr_v3_sub(min, cr_v3(q, q, q)), cr_v3_add(max, cr_v3(q, q, q)));
}

/* Sizes the grid over the box grown by one cell on every side and inserts
 * the existing bodies near the box, so that new spheres avoid them too. */
static int grid_init(sc_grid *g, const sc_bodies *b, cr_vec3 min, cr_vec3 max, double r, uint32_t count)
{
    memset(g, 0, sizeof *g);
    double rmax = r;
    uint32_t near = 0;
    for (uint32_t id = 0; id < b->count; ++id)
        if (near_box(b, id, min, max)) {
            near++;
            if (b->radius[id] > rmax) rmax = b->radius[id];
        }
    cr_vec3 size = cr_v3_sub(max, min);
    /* Cells at least r + rmax wide (the largest contact distance); wider when
     * the box is large and sparse, so that cells number about the bodies. */
    g->h = r + rmax;
    double sparse = cbrt(size.x * size.y * size.z / ((double)count + near + 1.0));
    if (isfinite(sparse) && sparse > g->h) g->h = sparse;
    for (;;) {
        double cells = 1.0;
        for (int a = 0; a < 3; ++a) cells *= floor(cr_v3_get(size, a) / g->h) + 3.0;
        if (cells <= 8.0 * ((double)count + near) + 64.0) break;
        g->h *= 1.5;
    }
    g->lo = cr_v3_sub(min, cr_v3(g->h, g->h, g->h));
    for (int a = 0; a < 3; ++a) g->n[a] = (int)floor(cr_v3_get(size, a) / g->h) + 3;
    size_t cells = (size_t)g->n[0] * (size_t)g->n[1] * (size_t)g->n[2];
    g->capacity = count + near;
    g->head = malloc(cells * sizeof *g->head);
    g->next = malloc(((size_t)g->capacity + 1) * sizeof *g->next);
    g->ids = malloc(((size_t)g->capacity + 1) * sizeof *g->ids);
    if (!g->head || !g->next || !g->ids) return -1;
    for (size_t i = 0; i < cells; ++i) g->head[i] = -1;
    for (uint32_t id = 0; id < b->count; ++id)
        if (near_box(b, id, min, max)) grid_insert(g, b, id);
    return 0;
}

static void grid_free(sc_grid *g)
{
    free(g->head);
    free(g->next);
    free(g->ids);
}

static bool clear_of_planes(cr_vec3 p, double r, const cr_plane_def *planes, uint32_t plane_count)
{
    for (uint32_t j = 0; j < plane_count; ++j)
        if (cr_penetration_sphere_plane(p, r, planes[j].point, planes[j].normal) > 0.0) return false;
    return true;
}

static int random_fill(sc_ctx *c, const cJSON *spec, const cr_body_def *tmpl, sc_bodies *b, const cr_plane_def *planes,
                       uint32_t plane_count)
{
    double count = 0.0, speed = 0.0, seed = 0.0;
    cr_vec3 min = cr_v3_zero(), max = cr_v3_zero();
    if (sc_expect_object(c, spec, NULL) || sc_check_keys(c, spec, fill_keys) ||
        sc_read_integer(c, spec, "count", 0, CR_SCENE_MAX_BODIES, &count) || sc_read_vec3(c, spec, "min", &min) ||
        sc_read_vec3(c, spec, "max", &max) || sc_read_number(c, spec, "speed", SC_NONNEG, &speed) ||
        sc_read_integer(c, spec, "seed", 0, SC_MAX_SEED, &seed))
        return -1;
    static const char *const required[] = {"count", "min", "max"};
    for (int i = 0; i < 3; ++i)
        if (cJSON_GetObjectItemCaseSensitive(spec, required[i]) == NULL)
            return sc_fail_missing(c, required[i], i == 0 ? "an integer" : "an array of 3 numbers, m");
    if (count + b->count > CR_SCENE_MAX_BODIES)
        return sc_fail_number(c, "count", count, "makes more bodies than the limit of 10000000");
    double r = tmpl->radius;
    /* Centres stay r inside the box so that whole spheres fit in it. */
    cr_vec3 lo = cr_v3_add(min, cr_v3(r, r, r)), hi = cr_v3_sub(max, cr_v3(r, r, r));
    if (!(lo.x <= hi.x && lo.y <= hi.y && lo.z <= hi.z) || !cr_v3_isfinite(cr_v3_sub(max, min))) {
        char rs[40], mins[120], maxs[120];
        sc_format_number(2 * r, rs, sizeof rs);
        sc_format_value(cJSON_GetObjectItemCaseSensitive(spec, "min"), mins, sizeof mins);
        sc_format_value(cJSON_GetObjectItemCaseSensitive(spec, "max"), maxs, sizeof maxs);
        return sc_fail(c, "the box must be at least the sphere diameter %s wide on every axis, got min %s, max %s", rs,
                       mins, maxs);
    }

    sc_grid g;
    if (grid_init(&g, b, min, max, r, (uint32_t)count)) {
        grid_free(&g);
        return sc_fail(c, "out of memory for the placement grid");
    }
    sc_rng rng = {(uint64_t)seed}, vrng = velocity_rng(seed);
    cr_body_def def = *tmpl;
    uint32_t want = (uint32_t)count, placed = 0;
    /* Bounded: random sequential placement jams near 38% volume fraction,
     * after which tries fail forever; give up with a message instead. */
    uint64_t max_tries = 1000u + 100u * (uint64_t)want, tries = 0;
    int rc = 0;
    while (placed < want && tries < max_tries) {
        ++tries;
        cr_vec3 p = cr_v3(lo.x + (hi.x - lo.x) * rng_uniform(&rng), lo.y + (hi.y - lo.y) * rng_uniform(&rng),
                          lo.z + (hi.z - lo.z) * rng_uniform(&rng));
        if (!clear_of_planes(p, r, planes, plane_count) || !grid_clear(&g, b, p, r)) continue;
        def.position = p;
        def.velocity = random_velocity(&vrng, tmpl->velocity, speed);
        if (!cr_v3_isfinite(def.velocity)) {
            rc = sc_fail(c, "body %u gets a non-finite velocity", b->count);
            break;
        }
        if ((rc = sc_add_body(c, b, &def)) != 0) break;
        grid_insert(&g, b, b->count - 1);
        ++placed;
    }
    grid_free(&g);
    if (rc) return rc;
    if (placed < want) {
        char rs[40];
        sc_format_number(r, rs, sizeof rs);
        sc_push_key(c, "count");
        return sc_fail(c, "placed only %u of %u spheres of radius %s after %llu tries; "
                          "the box is too crowded (enlarge it or lower count)",
                       placed, want, rs, (unsigned long long)tries);
    }
    return 0;
}

/* ---- "generate" --------------------------------------------------------- */

static int generate_one(sc_ctx *c, const cJSON *entry, sc_bodies *b, const cr_plane_def *planes, uint32_t plane_count)
{
    if (sc_expect_object(c, entry, NULL) || sc_check_keys(c, entry, entry_keys)) return -1;
    const cJSON *lat = cJSON_GetObjectItemCaseSensitive(entry, "lattice");
    const cJSON *fill = cJSON_GetObjectItemCaseSensitive(entry, "random_fill");
    if ((lat != NULL) == (fill != NULL))
        return sc_fail(c, "expected exactly one of \"lattice\" or \"random_fill\", got %s",
                       lat ? "both" : "neither");

    cr_body_def tmpl = cr_default_body_def();
    const cJSON *body = cJSON_GetObjectItemCaseSensitive(entry, "body");
    if (body) {
        size_t mark = sc_push_key(c, "body");
        if (sc_read_body(c, body, true, &tmpl)) return -1;
        sc_pop(c, mark);
    }
    size_t mark = sc_push_key(c, lat ? "lattice" : "random_fill");
    int rc = lat ? lattice(c, lat, &tmpl, b) : random_fill(c, fill, &tmpl, b, planes, plane_count);
    if (rc == 0) sc_pop(c, mark);
    return rc;
}

int sc_generate(sc_ctx *c, const cJSON *arr, sc_bodies *b, const cr_plane_def *planes, uint32_t plane_count)
{
    if (!cJSON_IsArray(arr)) return sc_fail_value(c, "generate", arr, "expected an array of objects");
    int n = cJSON_GetArraySize(arr);
    b->generator_first = calloc((size_t)n + 1, sizeof *b->generator_first);
    if (b->generator_first == NULL) return sc_fail(c, "out of memory");
    size_t mark = sc_push_key(c, "generate");
    int i = 0;
    for (const cJSON *e = arr->child; e; e = e->next, ++i) {
        size_t m2 = sc_push_index(c, (size_t)i);
        b->generator_first[i] = b->count;
        b->generator_count = (uint32_t)i + 1;
        if (generate_one(c, e, b, planes, plane_count)) return -1;
        sc_pop(c, m2);
    }
    sc_pop(c, mark);
    return 0;
}
