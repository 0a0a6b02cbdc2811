/* carom scenes — generators: many spheres from one template or a weighted
 * mix of them.
 *
 * "lattice" puts spheres on a grid with optional seeded jitter; "random_fill"
 * places non-overlapping spheres uniformly in a box by rejection, with a
 * uniform grid so that each try costs O(1) (DESIGN: O(n), not O(n^2));
 * "on_surface" places balls touching a surface static at random (u, v), by
 * the same rejection and grid (seed 004's balls on a freeform surface).
 * All draw from splitmix64 seeded by the scene, never rand(), so that a
 * scene file gives the same bodies on every machine and every run.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene.h"
#include "scene_internal.h"

static const char *const entry_keys[] = {"lattice", "random_fill", "on_surface", "body", "bodies", NULL};
static const char *const lattice_keys[] = {"count", "origin", "spacing", "jitter", "speed", "seed", NULL};
static const char *const fill_keys[] = {"count", "min", "max", "speed", "seed", NULL};
static const char *const on_surface_keys[] = {"surface", "count", "min", "max", "lift", "speed", "roll", "seed", NULL};
static const char *const weighted_keys[] = {"weight", "body", NULL};

/* Templates in one generator's "bodies". */
#define SC_MAX_TEMPLATES 1000

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
 * generator does not move its bodies; so do the template choices, so that
 * a mix of templates places its first body where a single one would. */
static sc_rng velocity_rng(double seed) { return (sc_rng){(uint64_t)seed ^ 0x5DEECE66DA3B1F27ull}; }
static sc_rng template_rng(double seed) { return (sc_rng){(uint64_t)seed ^ 0x2545F4914F6CDD1Dull}; }

/* ---- templates ------------------------------------------------------------ */

/* A generator's body templates: "body" (one) or "bodies" (weighted). */
typedef struct sc_templates {
    uint32_t count;
    cr_body_def *defs;
    double *cumulative; /* cumulative weights, the last one 1 */
    double rmax;        /* the largest radius */
} sc_templates;

static void templates_free(sc_templates *t)
{
    free(t->defs);
    free(t->cumulative);
}

/* Index of a template drawn by weight; draws nothing for a single one. */
static uint32_t pick(const sc_templates *t, sc_rng *r)
{
    if (t->count == 1) return 0;
    double x = rng_uniform(r);
    for (uint32_t k = 0; k + 1 < t->count; ++k)
        if (x < t->cumulative[k]) return k;
    return t->count - 1;
}

static int read_templates(sc_ctx *c, const cJSON *entry, sc_templates *t)
{
    memset(t, 0, sizeof *t);
    const cJSON *body = cJSON_GetObjectItemCaseSensitive(entry, "body");
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(entry, "bodies");
    if (body && list) return sc_fail(c, "expected \"body\" or \"bodies\", got both");
    int n = 1;
    if (list) {
        if (!cJSON_IsArray(list) || cJSON_GetArraySize(list) == 0)
            return sc_fail_value(c, "bodies", list, "expected a non-empty array of {\"weight\": w, \"body\": {...}}");
        n = cJSON_GetArraySize(list);
        if (n > SC_MAX_TEMPLATES) return sc_fail(c, "bodies: %d templates, more than the limit of %d", n, SC_MAX_TEMPLATES);
    }
    t->defs = malloc((size_t)n * sizeof *t->defs);
    t->cumulative = malloc((size_t)n * sizeof *t->cumulative);
    if (t->defs == NULL || t->cumulative == NULL) return sc_fail(c, "out of memory for %d body templates", n);
    t->count = (uint32_t)n;
    for (int k = 0; k < n; ++k) t->defs[k] = cr_default_body_def();
    if (!list) {
        t->cumulative[0] = 1.0;
        if (body) {
            size_t mark = sc_push_key(c, "body");
            if (sc_read_body(c, body, true, &t->defs[0])) return -1;
            sc_pop(c, mark);
        }
    } else {
        size_t mark = sc_push_key(c, "bodies");
        double total = 0.0;
        int k = 0;
        for (const cJSON *e = list->child; e; e = e->next, ++k) {
            size_t m2 = sc_push_index(c, (size_t)k);
            double w = 1.0;
            if (sc_expect_object(c, e, NULL) || sc_check_keys(c, e, weighted_keys) ||
                sc_read_number(c, e, "weight", SC_POSITIVE, &w))
                return -1;
            const cJSON *b = cJSON_GetObjectItemCaseSensitive(e, "body");
            if (b) {
                size_t m3 = sc_push_key(c, "body");
                if (sc_read_body(c, b, true, &t->defs[k])) return -1;
                sc_pop(c, m3);
            }
            total += w;
            t->cumulative[k] = total;
            sc_pop(c, m2);
        }
        if (!isfinite(total)) return sc_fail(c, "the weights add up to %g; keep them finite", total);
        for (k = 0; k < n; ++k) t->cumulative[k] /= total;
        t->cumulative[n - 1] = 1.0;
        sc_pop(c, mark);
    }
    for (int k = 0; k < n; ++k)
        if (t->defs[k].radius > t->rmax) t->rmax = t->defs[k].radius;
    return 0;
}

/* A point (a, b) uniform in the unit disk but its centre, by rejection;
 * returns s = a^2 + b^2, in (0, 1). */
static double unit_disk(sc_rng *r, double *a, double *b)
{
    double s;
    do {
        *a = 2.0 * rng_uniform(r) - 1.0;
        *b = 2.0 * rng_uniform(r) - 1.0;
        s = *a * *a + *b * *b;
    } while (s >= 1.0 || s == 0.0);
    return s;
}

/* The template's velocity plus speed along a direction uniform on the
 * sphere, by Marsaglia's (1972) method: only arithmetic and sqrt, which
 * IEEE 754 rounds exactly, so the directions do not depend on the libm. */
static cr_vec3 random_velocity(sc_rng *r, cr_vec3 base, double speed)
{
    if (speed == 0.0) return base;
    double a, b, s = unit_disk(r, &a, &b);
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

static int lattice(sc_ctx *c, const cJSON *spec, const sc_templates *t, sc_bodies *b)
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

    sc_rng rng = {(uint64_t)seed}, vrng = velocity_rng(seed), trng = template_rng(seed);
    /* x varies fastest, then y, then z: ids run along rows, then layers. */
    for (uint32_t k = 0; k < n[2]; ++k)
        for (uint32_t j = 0; j < n[1]; ++j)
            for (uint32_t i = 0; i < n[0]; ++i) {
                const cr_body_def *tmpl = &t->defs[pick(t, &trng)];
                cr_body_def def = *tmpl;
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

/* Clear of every static except skip (UINT32_MAX: none): not in a plane's
 * solid side, not behind a surface. */
static bool clear_of_statics(cr_vec3 p, double r, const sc_static *statics, uint32_t static_count, uint32_t skip)
{
    for (uint32_t j = 0; j < static_count; ++j)
        if (j != skip && sc_static_penetration(&statics[j], p, r) > 0.0) return false;
    return true;
}

/* A random placement (random_fill, on_surface): the grid of the bodies
 * placed so far, the three streams, the template of the next body, and
 * the counts of bodies and tries. */
typedef struct sc_placer {
    sc_grid g;
    sc_rng rng, vrng, trng;
    const cr_body_def *tmpl;
    uint32_t want, placed;
    uint64_t max_tries, tries;
} sc_placer;

/* count bodies in [min, max] (centres) from seed; 0, or the error. */
static int placer_init(sc_ctx *c, sc_placer *p, const sc_templates *t, const sc_bodies *b, cr_vec3 min, cr_vec3 max,
                       double count, double seed)
{
    if (grid_init(&p->g, b, min, max, t->rmax, (uint32_t)count)) {
        grid_free(&p->g);
        return sc_fail(c, "out of memory for the placement grid");
    }
    p->rng = (sc_rng){(uint64_t)seed}, p->vrng = velocity_rng(seed), p->trng = template_rng(seed);
    p->want = (uint32_t)count, p->placed = 0;
    /* Each body's template is drawn once and kept until it is placed, so
     * that crowding does not shift the mix towards the small ones. */
    p->tmpl = &t->defs[pick(t, &p->trng)];
    /* Bounded: random sequential placement jams near 38% volume fraction,
     * after which tries fail forever; give up with a message instead. */
    p->max_tries = 1000u + 100u * (uint64_t)p->want, p->tries = 0;
    return 0;
}

/* Whether to try once more (counted): bodies left to place, tries left. */
static bool placer_try(sc_placer *p)
{
    if (p->placed >= p->want || p->tries >= p->max_tries) return false;
    ++p->tries;
    return true;
}

/* Adds def, the current template placed, and draws the next template; 0,
 * or the error (a velocity gone non-finite: a template's own velocities
 * are finite, read so). */
static int placer_add(sc_ctx *c, sc_placer *p, const sc_templates *t, sc_bodies *b, const cr_body_def *def)
{
    if (!cr_v3_isfinite(def->velocity) || !cr_v3_isfinite(def->angular_velocity))
        return sc_fail(c, "body %u gets a non-finite velocity", b->count);
    int rc = sc_add_body(c, b, def);
    if (rc) return rc;
    grid_insert(&p->g, b, b->count - 1);
    ++p->placed;
    p->tmpl = &t->defs[pick(t, &p->trng)];
    return 0;
}

/* The placement over, after the tries ended with rc (0, or the error):
 * rc; or 1 when fewer bodies were placed than wanted, with the radius of
 * the one that did not fit in rs and the key "count" pushed for the
 * caller's message. */
static int placer_end(sc_ctx *c, sc_placer *p, int rc, char rs[40])
{
    grid_free(&p->g);
    if (rc || p->placed == p->want) return rc;
    sc_format_number(p->tmpl->radius, rs, 40);
    sc_push_key(c, "count");
    return 1;
}

static int random_fill(sc_ctx *c, const cJSON *spec, const sc_templates *t, sc_bodies *b, const sc_static *statics,
                       uint32_t static_count)
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
    double r = t->rmax;
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

    sc_placer pl;
    if (placer_init(c, &pl, t, b, min, max, count, seed)) return -1;
    int rc = 0;
    while (placer_try(&pl)) {
        r = pl.tmpl->radius;
        lo = cr_v3_add(min, cr_v3(r, r, r));
        hi = cr_v3_sub(max, cr_v3(r, r, r));
        cr_vec3 p = cr_v3(lo.x + (hi.x - lo.x) * rng_uniform(&pl.rng), lo.y + (hi.y - lo.y) * rng_uniform(&pl.rng),
                          lo.z + (hi.z - lo.z) * rng_uniform(&pl.rng));
        /* The cheap test first (a surface static costs a closest point). */
        if (!grid_clear(&pl.g, b, p, r) || !clear_of_statics(p, r, statics, static_count, UINT32_MAX)) continue;
        cr_body_def def = *pl.tmpl;
        def.position = p;
        def.velocity = random_velocity(&pl.vrng, pl.tmpl->velocity, speed);
        if ((rc = placer_add(c, &pl, t, b, &def)) != 0) break;
    }
    char rs[40];
    if ((rc = placer_end(c, &pl, rc, rs)) <= 0) return rc;
    return sc_fail(c, "placed only %u of %u spheres of radius %s after %llu tries; "
                      "the box is too crowded (enlarge it or lower count)",
                   pl.placed, pl.want, rs, (unsigned long long)pl.tries);
}

/* ---- on a surface -------------------------------------------------------- */

/* speed along a direction uniform in the tangent plane at the contact
 * (a point uniform in the unit disk by rejection, then scaled: arithmetic
 * and sqrt only, as random_velocity). */
static cr_vec3 tangent_velocity(sc_rng *r, cr_vec3 su, cr_vec3 n, double speed)
{
    if (speed == 0.0) return cr_v3_zero();
    double a, b, s = unit_disk(r, &a, &b);
    cr_vec3 e1 = cr_v3_normalize(cr_v3_reject(su, n)), e2 = cr_v3_cross(n, e1);
    double k = speed / sqrt(s);
    return cr_v3_add(cr_v3_scale(e1, k * a), cr_v3_scale(e2, k * b));
}

/* The box [lo, hi] in (u, v) from "min"/"max", by default the surface's
 * whole domain; it must lie inside the domain. */
static int surface_box(sc_ctx *c, const cJSON *spec, const cr_surface_def *d, double lo[2], double hi[2])
{
    double dlo[2] = {d->u_min, d->v_min}, dhi[2] = {d->u_max, d->v_max};
    bool bounded = isfinite(dlo[0]) && isfinite(dlo[1]) && isfinite(dhi[0]) && isfinite(dhi[1]);
    static const char *const keys[2] = {"min", "max"};
    for (int k = 0; k < 2; ++k)
        if (!bounded && cJSON_GetObjectItemCaseSensitive(spec, keys[k]) == NULL)
            return sc_fail_missing(c, keys[k], "[u, v]: a plane surface is unbounded, so the box must be given");
    memcpy(lo, dlo, sizeof dlo);
    memcpy(hi, dhi, sizeof dhi);
    if (sc_read_numbers(c, spec, "min", 2, SC_ANY, lo) || sc_read_numbers(c, spec, "max", 2, SC_ANY, hi)) return -1;
    char mins[120], maxs[120];
    sc_format_value(cJSON_GetObjectItemCaseSensitive(spec, "min"), mins, sizeof mins);
    sc_format_value(cJSON_GetObjectItemCaseSensitive(spec, "max"), maxs, sizeof maxs);
    if (!(lo[0] < hi[0] && lo[1] < hi[1] && isfinite(hi[0] - lo[0]) && isfinite(hi[1] - lo[1])))
        return sc_fail(c, "the box needs min < max on both axes, got min %s, max %s", mins, maxs);
    for (int k = 0; k < 2; ++k) {
        if (!(lo[k] >= dlo[k] && hi[k] <= dhi[k])) {
            char a[40], b2[40], e[40], f[40];
            sc_format_number(dlo[0], a, sizeof a);
            sc_format_number(dhi[0], b2, sizeof b2);
            sc_format_number(dlo[1], e, sizeof e);
            sc_format_number(dhi[1], f, sizeof f);
            return sc_fail(c, "the box must lie in the surface's domain [%s, %s] x [%s, %s], got min %s, max %s", a, b2,
                           e, f, mins, maxs);
        }
    }
    return 0;
}

/* Bounds of every centre the generator can place: the surface sampled over
 * the box, offset along the normal, grown by a margin for what lies between
 * the samples. The grid clamps points outside to its edge cells, so a loose
 * box costs speed, never correctness. */
static void centre_bounds(const cr_surface *s, const double lo[2], const double hi[2], double offset, cr_vec3 *min,
                          cr_vec3 *max)
{
    const int n = 32;
    *min = cr_v3(INFINITY, INFINITY, INFINITY);
    *max = cr_v3(-INFINITY, -INFINITY, -INFINITY);
    for (int i = 0; i <= n; ++i)
        for (int j = 0; j <= n; ++j) {
            cr_surface_eval e;
            cr_vec3 nrm;
            cr_surface_evaluate(s, lo[0] + (hi[0] - lo[0]) * i / n, lo[1] + (hi[1] - lo[1]) * j / n, &e, &nrm);
            cr_vec3 p = cr_v3_madd(e.s, nrm, offset);
            *min = cr_v3_min(*min, cr_v3_min(e.s, p));
            *max = cr_v3_max(*max, cr_v3_max(e.s, p));
        }
    cr_vec3 size = cr_v3_sub(*max, *min);
    double pad = offset + (size.x + size.y + size.z) / n;
    *min = cr_v3_sub(*min, cr_v3(pad, pad, pad));
    *max = cr_v3_add(*max, cr_v3(pad, pad, pad));
}

static int on_surface(sc_ctx *c, const cJSON *spec, const sc_templates *t, sc_bodies *b, const sc_static *statics,
                      uint32_t static_count)
{
    double index = 0.0, count = 0.0, lift = 0.0, speed = 0.0, seed = 0.0;
    bool roll = false;
    if (sc_expect_object(c, spec, NULL) || sc_check_keys(c, spec, on_surface_keys)) return -1;
    static const char *const required[] = {"surface", "count"};
    for (int i = 0; i < 2; ++i)
        if (cJSON_GetObjectItemCaseSensitive(spec, required[i]) == NULL)
            return sc_fail_missing(c, required[i], i == 0 ? "the index in \"statics\" of a \"shape\": \"surface\"" : "an integer");
    const cJSON *sv = cJSON_GetObjectItemCaseSensitive(spec, "surface");
    if (static_count == 0) return sc_fail_value(c, "surface", sv, "the scene has no statics");
    if (sc_read_integer(c, spec, "surface", 0, static_count - 1.0, &index) ||
        sc_read_integer(c, spec, "count", 0, CR_SCENE_MAX_BODIES, &count) ||
        sc_read_number(c, spec, "lift", SC_NONNEG, &lift) || sc_read_number(c, spec, "speed", SC_NONNEG, &speed) ||
        sc_read_bool(c, spec, "roll", &roll) || sc_read_integer(c, spec, "seed", 0, SC_MAX_SEED, &seed))
        return -1;
    uint32_t k = (uint32_t)index;
    if (!statics[k].is_surface) {
        char what[120];
        snprintf(what, sizeof what, "statics[%u] is a plane; on_surface needs a \"shape\": \"surface\"", k);
        return sc_fail_value(c, "surface", sv, what);
    }
    if (count + b->count > CR_SCENE_MAX_BODIES)
        return sc_fail_number(c, "count", count, "makes more bodies than the limit of 10000000");
    if (roll)
        for (uint32_t j = 0; j < t->count; ++j)
            if (t->defs[j].inertia_kind == CR_INERTIA_PARTICLE)
                return sc_fail_value(c, "roll", cJSON_GetObjectItemCaseSensitive(spec, "roll"),
                                     "a particle does not turn (\"inertia\": \"particle\" in a template)");
    const cr_surface *S = statics[k].eval;
    const cr_surface_def *sd = cr_surface_get_def(S);
    double lo[2], hi[2];
    if (surface_box(c, spec, sd, lo, hi)) return -1;

    cr_vec3 bmin, bmax;
    centre_bounds(S, lo, hi, t->rmax + lift, &bmin, &bmax);
    sc_placer pl;
    if (placer_init(c, &pl, t, b, bmin, bmax, count, seed)) return -1;
    int rc = 0;
    while (placer_try(&pl)) {
        double r = pl.tmpl->radius, h = r + lift;
        double u = lo[0] + (hi[0] - lo[0]) * rng_uniform(&pl.rng), v = lo[1] + (hi[1] - lo[1]) * rng_uniform(&pl.rng);
        if (sd->type == CR_SURFACE_BOWL) {
            /* Inside the rim's disk, with the centre below the rim. */
            double dx = u - sd->center.x, dy = v - sd->center.y;
            if (dx * dx + dy * dy >= sd->radius * sd->radius) continue;
        }
        cr_surface_eval e;
        cr_vec3 n;
        cr_surface_evaluate(S, u, v, &e, &n);
        cr_vec3 p = cr_v3_madd(e.s, n, h);
        if (!cr_v3_isfinite(p)) continue;
        if (sd->type == CR_SURFACE_BOWL && p.z > sd->center.z) continue;
        /* The cheap tests first: clear of the balls placed so far (the one
         * that fails when the box fills up) and of the other statics (a
         * plane is one dot product). The closest point on this surface
         * can take a coarse search, slow over 10^5 tries. */
        if (!grid_clear(&pl.g, b, p, r) || !clear_of_statics(p, r, statics, static_count, k)) continue;
        /* Touching the surface there and nowhere deeper nearby (a fold or a
         * valley narrower than the ball would put it behind the surface). */
        cr_closest cl = cr_surface_closest(S, p, u, v, 1e-12);
        if (cl.distance < h - 1e-9 * r) continue;
        cr_body_def def = *pl.tmpl;
        def.position = p;
        def.velocity = cr_v3_add(cr_v3_reject(pl.tmpl->velocity, n), tangent_velocity(&pl.vrng, e.su, n, speed));
        /* Rolling without slipping: the contact point at rest, w = n x v / r. */
        if (roll) def.angular_velocity = cr_v3_scale(cr_v3_cross(n, def.velocity), 1.0 / r);
        if ((rc = placer_add(c, &pl, t, b, &def)) != 0) break;
    }
    char rs[40];
    if ((rc = placer_end(c, &pl, rc, rs)) <= 0) return rc;
    return sc_fail(c, "placed only %u of %u balls on statics[%u] after %llu tries (the last of radius %s); "
                      "the box on the surface is too crowded (enlarge min and max or lower count)",
                   pl.placed, pl.want, k, (unsigned long long)pl.tries, rs);
}

/* ---- "generate" --------------------------------------------------------- */

static int generate_one(sc_ctx *c, const cJSON *entry, sc_bodies *b, const sc_static *statics, uint32_t static_count)
{
    if (sc_expect_object(c, entry, NULL) || sc_check_keys(c, entry, entry_keys)) return -1;
    static const char *const kinds[] = {"lattice", "random_fill", "on_surface"};
    const cJSON *spec = NULL;
    int kind = -1, found = 0;
    for (int i = 0; i < 3; ++i) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(entry, kinds[i]);
        if (v && found++ == 0) {
            spec = v;
            kind = i;
        }
    }
    if (found != 1)
        return sc_fail(c, "expected exactly one of \"lattice\", \"random_fill\" or \"on_surface\", got %s",
                       found ? "more than one" : "none");

    sc_templates t;
    if (read_templates(c, entry, &t)) {
        templates_free(&t);
        return -1;
    }
    size_t mark = sc_push_key(c, kinds[kind]);
    int rc = kind == 0 ? lattice(c, spec, &t, b)
                       : kind == 1 ? random_fill(c, spec, &t, b, statics, static_count)
                                   : on_surface(c, spec, &t, b, statics, static_count);
    templates_free(&t);
    if (rc == 0) sc_pop(c, mark);
    return rc;
}

int sc_generate(sc_ctx *c, const cJSON *arr, sc_bodies *b, const sc_static *statics, uint32_t static_count)
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
        if (generate_one(c, e, b, statics, static_count)) return -1;
        sc_pop(c, m2);
    }
    sc_pop(c, mark);
    return 0;
}
