/* carom scenes — JSON scene loading: world settings, statics, bodies.
 *
 * The loader reads the tree once, in the order of the format's reference
 * (docs/scene-format.md): world settings, run settings, statics, bodies,
 * generators, then the overlap check. It stops at the first error, whose
 * message names the JSON path and the value (DESIGN: errors name the
 * culprit; invalid input never becomes NaN further down). Unknown keys are
 * errors everywhere, because a misspelt key silently left at its default
 * is the hardest scene bug to find.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene.h"
#include "scene_internal.h"
#include "default_scene.h"

static const char *const top_keys[] = {
    "description", "gravity", "dt", "duration", "output", "method", "law", "k_p", "toi_tolerance",
    "resting_speed", "solver_iterations", "pgs_iterations", "drift_iterations", "drift_tolerance", "drift_max_speed",
    "rigid_substeps",
    "substep_iterations", "contact_hertz", "contact_damping_ratio", "projection_passes", "projection_shock",
    "max_events_per_body", "hooke",
    "periodic", "allow_overlap", "statics", "bodies", "generate", "joints", "collision_order", "sleep_time",
    "sleep_speed", "integrate_orientation", NULL};
static const char *const hooke_keys[] = {"kn",     "kt",         "gamma_n", "gamma_t", "mu",
                                             "model", "k_roll", "gamma_roll", "mu_roll", NULL};
static const char *const dem_model_names[] = {"hooke", "hertz", NULL}; /* cr_dem_model's order */
static const char *const periodic_keys[] = {"x", "y", "z", "lo", "hi", NULL};
static const char *const output_keys[] = {"every", NULL};
static const char *const plane_keys[] = {"shape", "point", "normal", "restitution", "friction", NULL};
static const char *const body_keys[] = {"shape", "radius", "mass", "inertia", "inner_radius", "position", "velocity",
                                        "angular_velocity", "restitution", "friction", "rolling_friction", "type",
                                        "half_extents", "points", "file", "density", "orientation", NULL};
static const char *const method_names[] = {"impulse", "event", "dem", NULL};
static const char *const law_names[] = {"newton", "stronge", "rolling", NULL};
static const char *const order_names[] = {"rounds", "simultaneous", NULL};
static const char *const static_shapes[] = {"plane", "surface", NULL};
static const char *const body_shapes[] = {"sphere", "box", "hull", "mesh", NULL};
static const char *const body_types[] = {"dynamic", "kinematic", "static", NULL};

/* ---- world and run settings ---------------------------------------------- */

static int read_world_def(sc_ctx *c, const cJSON *root, cr_world_def *wd)
{
    int method = (int)wd->method, law = (int)wd->law, order = (int)wd->collision_order;
    double iterations = wd->solver_iterations, max_events = wd->max_events_per_body, pgs = wd->pgs_iterations,
           drift = wd->drift_iterations, passes = wd->projection_passes, substeps = wd->rigid_substeps,
           substep_passes = wd->substep_iterations;
    if (sc_read_vec3(c, root, "gravity", &wd->gravity) || sc_read_number(c, root, "dt", SC_POSITIVE, &wd->dt) ||
        sc_read_enum(c, root, "method", method_names, &method) || sc_read_enum(c, root, "law", law_names, &law) ||
        sc_read_number(c, root, "k_p", SC_UNIT, &wd->k_p) ||
        sc_read_number(c, root, "toi_tolerance", SC_POSITIVE, &wd->toi_tolerance) ||
        sc_read_number(c, root, "resting_speed", SC_ANY, &wd->resting_speed) ||
        sc_read_integer(c, root, "solver_iterations", 1, 1000, &iterations) ||
        sc_read_integer(c, root, "pgs_iterations", 1, 100000, &pgs) ||
        sc_read_integer(c, root, "drift_iterations", 1, 100000, &drift) ||
        sc_read_number(c, root, "drift_tolerance", SC_NONNEG, &wd->drift_tolerance) ||
        sc_read_number(c, root, "drift_max_speed", SC_NONNEG, &wd->drift_max_speed) ||
        sc_read_integer(c, root, "rigid_substeps", 0, 64, &substeps) ||
        sc_read_integer(c, root, "substep_iterations", 1, 1000, &substep_passes) ||
        sc_read_number(c, root, "contact_hertz", SC_POSITIVE, &wd->contact_hertz) ||
        sc_read_number(c, root, "contact_damping_ratio", SC_NONNEG, &wd->contact_damping_ratio) ||
        sc_read_integer(c, root, "max_events_per_body", 1, 1e6, &max_events) ||
        sc_read_integer(c, root, "projection_passes", 1, 1000, &passes) ||
        sc_read_bool(c, root, "projection_shock", &wd->projection_shock) ||
        sc_read_enum(c, root, "collision_order", order_names, &order) ||
        sc_read_number(c, root, "sleep_time", SC_NONNEG, &wd->sleep_time) ||
        sc_read_number(c, root, "sleep_speed", SC_NONNEG, &wd->sleep_speed) ||
        sc_read_bool(c, root, "integrate_orientation", &wd->integrate_orientation))
        return -1;
    wd->collision_order = (cr_collision_order)order;
    const cJSON *hooke = cJSON_GetObjectItemCaseSensitive(root, "hooke");
    if (hooke) {
        if (sc_expect_object(c, hooke, "hooke")) return -1;
        size_t mark = sc_push_key(c, "hooke");
        int model = (int)wd->hooke.model;
        int rc = sc_check_keys(c, hooke, hooke_keys) || sc_read_number(c, hooke, "kn", SC_POSITIVE, &wd->hooke.kn) ||
                 sc_read_number(c, hooke, "kt", SC_NONNEG, &wd->hooke.kt) ||
                 sc_read_number(c, hooke, "gamma_n", SC_NONNEG, &wd->hooke.gamma_n) ||
                 sc_read_number(c, hooke, "gamma_t", SC_NONNEG, &wd->hooke.gamma_t) ||
                 sc_read_number(c, hooke, "mu", SC_NONNEG, &wd->hooke.mu) ||
                 sc_read_number(c, hooke, "k_roll", SC_NONNEG, &wd->hooke.k_roll) ||
                 sc_read_number(c, hooke, "gamma_roll", SC_NONNEG, &wd->hooke.gamma_roll) ||
                 sc_read_number(c, hooke, "mu_roll", SC_NONNEG, &wd->hooke.mu_roll) ||
                 sc_read_enum(c, hooke, "model", dem_model_names, &model);
        wd->hooke.model = (cr_dem_model)model;
        sc_pop(c, mark);
        if (rc) return -1;
    }
    const cJSON *periodic = cJSON_GetObjectItemCaseSensitive(root, "periodic");
    if (periodic) {
        if (sc_expect_object(c, periodic, "periodic")) return -1;
        size_t mark = sc_push_key(c, "periodic");
        cr_periodic *p = &wd->periodic;
        int rc = sc_check_keys(c, periodic, periodic_keys) || sc_read_bool(c, periodic, "x", &p->x) ||
                 sc_read_bool(c, periodic, "y", &p->y) || sc_read_bool(c, periodic, "z", &p->z) ||
                 sc_read_vec3(c, periodic, "lo", &p->lo) || sc_read_vec3(c, periodic, "hi", &p->hi);
        sc_pop(c, mark);
        if (rc) return -1;
    }
    wd->method = (cr_method)method;
    wd->law = (cr_law)law;
    wd->solver_iterations = (int)iterations;
    wd->pgs_iterations = (int)pgs;
    wd->drift_iterations = (int)drift;
    wd->rigid_substeps = (int)substeps;
    wd->substep_iterations = (int)substep_passes;
    /* the sub-stepped solver has no joint rows (docs/physics/substep.md) */
    const cJSON *joints = cJSON_GetObjectItemCaseSensitive(root, "joints");
    if (wd->rigid_substeps > 0 && cJSON_IsArray(joints) && cJSON_GetArraySize(joints) > 0) {
        size_t mark = sc_push_key(c, "joints");
        int rc = sc_fail(c, "rigid_substeps %d: the sub-stepped contact solver takes no joints (this scene has %d); "
                            "use rigid_substeps 0",
                         wd->rigid_substeps, cJSON_GetArraySize(joints));
        sc_pop(c, mark);
        return rc;
    }
    wd->max_events_per_body = (int)max_events;
    wd->projection_passes = (int)passes;

    /* The core's own check is the last word on what a world accepts; its
     * message names the field, which is also the JSON key. */
    char msg[256];
    if (cr_world_def_validate(wd, msg, sizeof msg) != CR_OK) return sc_fail_core(c, msg);
    return 0;
}

/* duration, output.every, allow_overlap: how the scene is run, not physics. */
static int read_run_settings(sc_ctx *c, const cJSON *root, double dt, cr_scene *out)
{
    out->duration = 1.0;
    out->output_every = dt > 0.01 ? dt : 0.01;
    if (sc_read_number(c, root, "duration", SC_NONNEG, &out->duration) ||
        sc_read_bool(c, root, "allow_overlap", &out->allow_overlap))
        return -1;
    const cJSON *output = cJSON_GetObjectItemCaseSensitive(root, "output");
    if (output) {
        if (sc_expect_object(c, output, "output")) return -1;
        size_t mark = sc_push_key(c, "output");
        int rc = sc_check_keys(c, output, output_keys) || sc_read_number(c, output, "every", SC_POSITIVE, &out->output_every);
        if (rc == 0 && out->output_every < dt) {
            char what[80], dts[40];
            sc_format_number(dt, dts, sizeof dts);
            snprintf(what, sizeof what, "must be >= dt (%s)", dts);
            rc = sc_fail_number(c, "every", out->output_every, what);
        }
        sc_pop(c, mark);
        if (rc) return -1;
    }
    double steps = round(out->duration / dt);
    if (steps > CR_SCENE_MAX_STEPS) {
        char what[120];
        snprintf(what, sizeof what, "needs %.3g steps of dt, more than the limit of %.3g", steps, CR_SCENE_MAX_STEPS);
        return sc_fail_number(c, "duration", out->duration, what);
    }
    out->steps = (uint64_t)steps;
    double stride = round(out->output_every / dt);
    /* A stride longer than the run samples t = 0 only; capping it keeps the
     * conversion to an integer defined for any "every". */
    if (stride > steps) stride = steps + 1.0;
    out->output_stride = stride < 1.0 ? 1u : (uint64_t)stride;
    return 0;
}

/* ---- statics ------------------------------------------------------------ */

static int read_plane(sc_ctx *c, const cJSON *obj, cr_plane_def *def)
{
    int shape = 0;
    if (sc_expect_object(c, obj, NULL) || sc_check_keys(c, obj, plane_keys) ||
        sc_read_enum(c, obj, "shape", static_shapes, &shape) || sc_read_vec3(c, obj, "point", &def->point) ||
        sc_read_vec3(c, obj, "normal", &def->normal) ||
        sc_read_number(c, obj, "restitution", SC_UNIT, &def->restitution) ||
        sc_read_number(c, obj, "friction", SC_NONNEG, &def->friction))
        return -1;
    /* A zero normal has no direction; a huge one overflows its length. */
    double len = cr_v3_len(def->normal);
    if (!(len > 0.0) || !isfinite(len))
        return sc_fail_value(c, "normal", cJSON_GetObjectItemCaseSensitive(obj, "normal"),
                             "must be non-zero and finite");
    def->normal = cr_v3_scale(def->normal, 1.0 / len);
    char msg[256];
    if (cr_plane_def_validate(def, msg, sizeof msg) != CR_OK) return sc_fail_core(c, msg);
    return 0;
}

/* Reads "statics" into a new array (random_fill and on_surface need them
 * too); surfaces are validated here, in file order, and added to the world
 * after the bodies. */
static int read_statics(sc_ctx *c, const cJSON *root, sc_static **statics, uint32_t *count, sc_owned *owned)
{
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, "statics");
    *statics = NULL;
    *count = 0;
    if (arr == NULL) return 0;
    if (!cJSON_IsArray(arr)) return sc_fail_value(c, "statics", arr, "expected an array of objects");
    int n = cJSON_GetArraySize(arr);
    if (n == 0) return 0;
    *statics = calloc((size_t)n, sizeof **statics);
    if (*statics == NULL) return sc_fail(c, "out of memory for %d statics", n);
    *count = (uint32_t)n; /* every entry is released by the caller, read or not */
    size_t mark = sc_push_key(c, "statics");
    int i = 0;
    for (const cJSON *e = arr->child; e; e = e->next, ++i) {
        size_t m2 = sc_push_index(c, (size_t)i);
        sc_static *st = &(*statics)[i];
        int shape = 0;
        if (sc_expect_object(c, e, NULL) || sc_read_enum(c, e, "shape", static_shapes, &shape)) return -1;
        if (shape == 1) {
            if (sc_read_surface(c, e, st, owned)) return -1;
        } else {
            const cJSON *type = cJSON_GetObjectItemCaseSensitive(e, "type");
            if (type && cJSON_GetObjectItemCaseSensitive(e, "shape") == NULL)
                return sc_fail_value(c, "type", type, "unknown key for a plane; a surface needs \"shape\": \"surface\"");
            st->plane = cr_default_plane_def();
            if (read_plane(c, e, &st->plane)) return -1;
        }
        sc_pop(c, m2);
    }
    sc_pop(c, mark);
    return 0;
}

/* ---- bodies ------------------------------------------------------------- */

static int read_inertia(sc_ctx *c, const cJSON *obj, cr_body_def *def)
{
    static const char *const names[] = {"particle", "solid", "hollow", NULL};
    static const cr_inertia_kind kinds[] = {CR_INERTIA_PARTICLE, CR_INERTIA_SOLID, CR_INERTIA_HOLLOW};
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, "inertia");
    if (v == NULL) return 0;
    if (cJSON_IsNumber(v)) {
        if (!isfinite(v->valuedouble) || !(v->valuedouble > 0.0))
            return sc_fail_value(c, "inertia", v, "must be > 0 and finite (kg m^2)");
        def->inertia_kind = CR_INERTIA_CUSTOM;
        def->inertia = v->valuedouble;
        return 0;
    }
    if (cJSON_IsString(v))
        for (int i = 0; names[i]; ++i)
            if (strcmp(v->valuestring, names[i]) == 0) { def->inertia_kind = kinds[i]; return 0; }
    return sc_fail_value(c, "inertia", v, "expected \"particle\", \"solid\", \"hollow\" or a number > 0");
}

int sc_read_body(sc_ctx *c, const cJSON *obj, bool template_mode, cr_body_def *def)
{
    int shape = 0, type = (int)def->type;
    if (sc_expect_object(c, obj, NULL) || sc_check_keys(c, obj, body_keys)) return -1;
    const cJSON *pos = cJSON_GetObjectItemCaseSensitive(obj, "position");
    if (template_mode && pos)
        return sc_fail_value(c, "position", pos, "not allowed in a generator's body (the generator places it)");
    if (sc_read_enum(c, obj, "shape", body_shapes, &shape) || sc_read_number(c, obj, "radius", SC_POSITIVE, &def->radius) ||
        sc_read_number(c, obj, "mass", SC_POSITIVE, &def->mass) || read_inertia(c, obj, def) ||
        sc_read_vec3(c, obj, "position", &def->position) || sc_read_vec3(c, obj, "velocity", &def->velocity) ||
        sc_read_vec3(c, obj, "angular_velocity", &def->angular_velocity) ||
        sc_read_number(c, obj, "restitution", SC_UNIT, &def->restitution) ||
        sc_read_number(c, obj, "friction", SC_NONNEG, &def->friction) ||
        sc_read_number(c, obj, "rolling_friction", SC_NONNEG, &def->rolling_friction) ||
        sc_read_number(c, obj, "inner_radius", SC_NONNEG, &def->inner_radius) ||
        sc_read_enum(c, obj, "type", body_types, &type))
        return -1;
    def->type = (cr_body_type)type;
    /* A particle has no rotational degree of freedom (seed 000/001); a spin
     * given to one would be dropped without a word. */
    if (def->inertia_kind == CR_INERTIA_PARTICLE && cr_v3_len2(def->angular_velocity) != 0.0)
        return sc_fail_value(c, "angular_velocity", cJSON_GetObjectItemCaseSensitive(obj, "angular_velocity"),
                             "must be zero for a particle (\"inertia\": \"particle\" has no rotation; "
                             "use \"solid\" or \"hollow\")");
    /* Seed 004 eq. 17: a hollow ball between inner_radius and radius. An
     * inner radius on any other ball would be ignored without a word. */
    const cJSON *inner = cJSON_GetObjectItemCaseSensitive(obj, "inner_radius");
    if (inner && def->inertia_kind != CR_INERTIA_HOLLOW)
        return sc_fail_value(c, "inner_radius", inner, "needs \"inertia\": \"hollow\"");
    if (def->inertia_kind == CR_INERTIA_HOLLOW && !(def->inner_radius < def->radius)) {
        char what[96], rs[40];
        sc_format_number(def->radius, rs, sizeof rs);
        snprintf(what, sizeof what, "must be in [0, radius) = [0, %s)", rs);
        return sc_fail_number(c, "inner_radius", def->inner_radius, what);
    }
    if (sc_read_body_shape(c, obj, shape, template_mode, def)) return -1;
    char msg[256];
    if (cr_body_def_validate(def, msg, sizeof msg) != CR_OK) {
        cr_shape_release(def->shape_ref);
        def->shape_ref = NULL;
        return sc_fail_core(c, msg);
    }
    return 0;
}

static int grow_bodies(sc_bodies *b)
{
    uint32_t cap = b->capacity ? b->capacity * 2 : 64;
    if (cap > CR_SCENE_MAX_BODIES) cap = CR_SCENE_MAX_BODIES;
    cr_vec3 *p = realloc(b->position, cap * sizeof *p);
    if (p) b->position = p;
    double *r = realloc(b->radius, cap * sizeof *r);
    if (r) b->radius = r;
    uint32_t *g = realloc(b->generator, cap * sizeof *g);
    if (g) b->generator = g;
    if (!p || !r || !g) return -1;
    b->capacity = cap;
    return 0;
}

int sc_add_body(sc_ctx *c, sc_bodies *b, const cr_body_def *def)
{
    if (b->count >= CR_SCENE_MAX_BODIES) return sc_fail(c, "more than %u bodies in the scene", CR_SCENE_MAX_BODIES);
    if (b->count == b->capacity && grow_bodies(b)) return sc_fail(c, "out of memory after %u bodies", b->count);
    cr_body_id id;
    if (cr_world_add_body(b->world, def, &id) != CR_OK) return sc_fail(c, "%s", cr_world_last_error(b->world));
    /* Scene ids are world slots (trajectory.csv relies on it); a fresh
     * world fills slots in order, so anything else is a core bug. */
    if (id.index != b->count) return sc_fail(c, "internal error: body got slot %u, expected %u", id.index, b->count);
    b->position[b->count] = def->position;
    b->radius[b->count] = def->radius;
    b->generator[b->count] = b->count < b->explicit_count ? UINT32_MAX : b->generator_count - 1;
    b->count++;
    return 0;
}

void sc_body_name(const sc_bodies *b, uint32_t id, char *buf, size_t size)
{
    if (id < b->explicit_count || b->generator[id] == UINT32_MAX) {
        snprintf(buf, size, "bodies[%u]", id);
        return;
    }
    uint32_t g = b->generator[id];
    snprintf(buf, size, "generate[%u] body %u (id %u)", g, id - b->generator_first[g], id);
}

static int read_bodies(sc_ctx *c, const cJSON *root, sc_bodies *b)
{
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, "bodies");
    if (arr == NULL) return 0;
    if (!cJSON_IsArray(arr)) return sc_fail_value(c, "bodies", arr, "expected an array of objects");
    b->explicit_count = (uint32_t)cJSON_GetArraySize(arr);
    size_t mark = sc_push_key(c, "bodies");
    size_t i = 0;
    for (const cJSON *e = arr->child; e; e = e->next, ++i) {
        size_t m2 = sc_push_index(c, i);
        cr_body_def def = cr_default_body_def();
        if (sc_read_body(c, e, false, &def)) return -1;
        int rc = sc_add_body(c, b, &def);
        cr_shape_release(def.shape_ref); /* the world holds its own reference */
        if (rc) return -1;
        sc_pop(c, m2);
    }
    sc_pop(c, mark);
    return 0;
}

/* ---- the starting overlap check ------------------------------------------ */

/* Bodies that start inside each other, a wall or behind a surface get
 * pushed apart in the first step, an explosion the author rarely meant.
 * Touching is fine: the tolerance is a billionth of the radii, above
 * rounding in the positions. */
static int check_overlap(sc_ctx *c, const sc_bodies *b, const sc_static *statics, uint32_t static_count)
{
    char na[96], nb[96];
    for (uint32_t i = 0; i < b->count; ++i)
        for (uint32_t j = 0; j < static_count; ++j) {
            double pen = sc_static_penetration(&statics[j], b->position[i], b->radius[i]);
            if (pen > 1e-9 * b->radius[i]) {
                sc_body_name(b, i, na, sizeof na);
                return sc_fail(c, "%s %s statics[%u] by %.3g m (set \"allow_overlap\": true to permit)", na,
                               statics[j].is_surface ? "is behind the surface" : "penetrates", j, pen);
            }
        }
    cr_body_id a = {0, 0}, o = {0, 0};
    double depth = cr_world_max_overlap(b->world, &a, &o);
    if (a.generation == 0 || o.generation == 0 || a.index >= b->count || o.index >= b->count) return 0;
    if (depth > 1e-9 * (b->radius[a.index] + b->radius[o.index])) {
        uint32_t hi = a.index > o.index ? a.index : o.index, lo = a.index > o.index ? o.index : a.index;
        sc_body_name(b, hi, na, sizeof na);
        sc_body_name(b, lo, nb, sizeof nb);
        return sc_fail(c, "%s overlaps %s by %.3g m (set \"allow_overlap\": true to permit)", na, nb, depth);
    }
    return 0;
}

/* ---- piles: too many overlapping pairs ----------------------------------- */

/* Every step solves each overlapping pair as a contact, so bodies piled onto
 * one another (10^5 coincident spheres) make a step O(n^2) in time and
 * memory: a run that never ends rather than an error. Such a scene is
 * refused, with or without allow_overlap, once its overlapping pairs exceed
 * SC_PILE_PAIRS(n); 12 touching neighbours per sphere is the most that
 * space allows, so a real scene stays far below. The count stops at the
 * limit (and after SC_PILE_WORK(n) distance tests, when it gives up and lets
 * the scene through), so that the check itself stays O(n). A pair counts
 * when the balls of the bodies' inner radii about their centres overlap
 * (cr_shape_inner_radius: a sphere's radius; a ball about a box's, hull's
 * or mesh's centroid inside it), which makes the bodies overlap for certain: a
 * polyhedron's bounding sphere would call a stack of thin plates a pile,
 * its inner ball does not (plates stacked face to face are two inner radii
 * apart, touching). Before, a rigid-body scene counted its spheres only,
 * and 3,000 coincident boxes loaded and took minutes a step. */
#define SC_PILE_PAIRS(n) (64.0 * (double)(n) + 1e5)
#define SC_PILE_WORK(n) (256.0 * (double)(n) + 1e7)

typedef struct sc_pile { uint64_t key; uint32_t id; } sc_pile;

static int pile_order(const void *a, const void *b)
{
    const sc_pile *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return x->id < y->id ? -1 : (x->id > y->id);
}

/* Cells of 2 r_max, 21 bits per axis (far bodies share the edge cells:
 * more distance tests, the same answer). */
static uint64_t pile_key(int64_t i, int64_t j, int64_t k)
{
    return (uint64_t)i | (uint64_t)j << 21 | (uint64_t)k << 42;
}

static int64_t pile_cell(double x, double lo, double h)
{
    double v = floor((x - lo) / h);
    return v < 0.0 ? 0 : (v > 2097151.0 ? 2097151 : (int64_t)v);
}

/* Scene body id's inner radius (cr_shape_inner_radius; 0: not counted). */
static double pile_radius(const sc_bodies *b, uint32_t id)
{
    cr_body_def d;
    if (cr_body_get_def(b->world, cr_world_body_at(b->world, id), &d) != CR_OK) return 0.0;
    return d.shape == CR_SHAPE_SPHERE ? b->radius[id] : d.shape_ref ? cr_shape_inner_radius(d.shape_ref) : 0.0;
}

static int check_pileup(sc_ctx *c, const sc_bodies *b)
{
    /* who[k]: the scene id of the k-th body counted, radius[k] its inner
     * radius; below, i and j are indices into who */
    uint32_t *who = malloc((size_t)(b->count ? b->count : 1) * sizeof *who), n = 0;
    double *radius = malloc((size_t)(b->count ? b->count : 1) * sizeof *radius);
    if (!who || !radius) {
        free(who);
        free(radius);
        return sc_fail(c, "out of memory checking %u bodies for overlaps", b->count);
    }
    for (uint32_t id = 0; id < b->count; ++id) {
        double r = pile_radius(b, id);
        if (r > 0.0) radius[n] = r, who[n++] = id;
    }
    if (n < 2) {
        free(who);
        free(radius);
        return 0;
    }
    double rmax = 0.0;
    cr_vec3 lo = b->position[who[0]];
    for (uint32_t i = 0; i < n; ++i) {
        rmax = fmax(rmax, radius[i]);
        lo = cr_v3_min(lo, b->position[who[i]]);
    }
    double h = 2.0 * rmax;
    sc_pile *p = malloc((size_t)n * sizeof *p);
    int64_t (*cell)[3] = malloc((size_t)n * sizeof *cell);
    if (!p || !cell) {
        free(p);
        free(cell);
        free(who);
        free(radius);
        return sc_fail(c, "out of memory checking %u bodies for overlaps", n);
    }
    for (uint32_t i = 0; i < n; ++i) {
        const cr_vec3 x = b->position[who[i]];
        cell[i][0] = pile_cell(x.x, lo.x, h);
        cell[i][1] = pile_cell(x.y, lo.y, h);
        cell[i][2] = pile_cell(x.z, lo.z, h);
        p[i].key = pile_key(cell[i][0], cell[i][1], cell[i][2]);
        p[i].id = i;
    }
    qsort(p, n, sizeof *p, pile_order);
    /* For each body, its neighbours lie in 9 rows of 3 cells (dy, dz in
     * {-1, 0, 1}); in key order a row is one contiguous range, and its lower
     * end only grows from one body to the next, so one pointer per row
     * walks the array once: O(n) besides the sort. Each pair is counted
     * from its first body in sorted order. */
    size_t row[9] = {0};
    double pairs = 0.0, work = 0.0, limit = SC_PILE_PAIRS(n), work_limit = SC_PILE_WORK(n);
    uint32_t first_a = 0, first_b = 0;
    const int64_t top = 2097151;
    for (size_t s = 0; s < n && pairs <= limit && work <= work_limit; ++s) {
        uint32_t i = p[s].id;
        int64_t ci = cell[i][0], cj = cell[i][1], ck = cell[i][2];
        for (int r = 0; r < 9; ++r) {
            int64_t rj = cj + r % 3 - 1, rk = ck + r / 3 - 1;
            if (rj < 0 || rk < 0 || rj > top || rk > top) continue;
            uint64_t lo_key = pile_key(ci > 0 ? ci - 1 : 0, rj, rk), hi_key = pile_key(ci < top ? ci + 1 : top, rj, rk);
            while (row[r] < n && p[row[r]].key < lo_key) ++row[r];
            for (size_t t = row[r] > s + 1 ? row[r] : s + 1; t < n && p[t].key <= hi_key; ++t) {
                uint32_t j = p[t].id, bi = who[i], bj = who[j];
                double rr = radius[i] + radius[j];
                work += 1.0;
                if (rr - cr_v3_len(cr_v3_sub(b->position[bi], b->position[bj])) > 1e-9 * rr) {
                    if (pairs == 0.0) {
                        first_a = bi < bj ? bi : bj;
                        first_b = bi < bj ? bj : bi;
                    }
                    pairs += 1.0;
                }
                if (pairs > limit || work > work_limit) break;
            }
        }
    }
    free(p);
    free(cell);
    free(who);
    free(radius);
    if (pairs <= limit) return 0;
    char na[96], nb[96];
    sc_body_name(b, first_b, na, sizeof na);
    sc_body_name(b, first_a, nb, sizeof nb);
    return sc_fail(c,
                   "more than %.0f overlapping pairs among %u bodies (%s overlaps %s, ...): each step would solve "
                   "every pair, O(n^2); spread the bodies out (allow_overlap permits a few overlaps, not a pile)",
                   limit, n, na, nb);
}

/* ---- the whole scene ---------------------------------------------------- */

static void bodies_free(sc_bodies *b)
{
    free(b->position);
    free(b->radius);
    free(b->generator);
    free(b->generator_first);
}

static void statics_free(sc_static *statics, uint32_t count)
{
    for (uint32_t i = 0; i < count; ++i) sc_static_release(&statics[i]);
    free(statics);
}

/* Planes first, in file order among the planes; each entry's world id goes
 * to ids[i]. */
static int add_planes(sc_ctx *c, cr_world *world, sc_static *statics, uint32_t count, cr_static_id *ids)
{
    for (uint32_t i = 0; i < count; ++i) {
        if (statics[i].is_surface) continue;
        if (cr_world_add_plane(world, &statics[i].plane, &ids[i]) != CR_OK)
            return sc_fail(c, "statics[%u]: %s", i, cr_world_last_error(world));
        statics[i].world_index = ids[i].index;
    }
    return 0;
}

/* Surfaces after the bodies, so that the world checks each against the
 * largest ball (seed 004: no principal curvature sharper than the ball);
 * its message gets the JSON path, and the largest ball is named. */
static int add_surfaces(sc_ctx *c, const sc_bodies *b, sc_static *statics, uint32_t count, cr_static_id *ids)
{
    for (uint32_t i = 0; i < count; ++i) {
        if (!statics[i].is_surface) continue;
        if (cr_world_add_surface(b->world, &statics[i].surface, &ids[i]) != CR_OK) {
            const char *msg = cr_world_last_error(b->world);
            static const char prefix[] = "surface def: ";
            if (strncmp(msg, prefix, sizeof prefix - 1) == 0) msg += sizeof prefix - 1;
            uint32_t largest = UINT32_MAX;
            for (uint32_t k = 0; k < b->count; ++k)
                if (largest == UINT32_MAX || b->radius[k] > b->radius[largest]) largest = k;
            char name[128] = "";
            if (largest != UINT32_MAX && strstr(msg, "largest ball")) {
                char n[80];
                sc_body_name(b, largest, n, sizeof n);
                snprintf(name, sizeof name, " (the largest ball is %s)", n);
            }
            return sc_fail(c, "statics[%u]: %s%s", i, msg, name);
        }
        statics[i].world_index = ids[i].index;
    }
    return 0;
}

static bool rigid_scene(const cr_world *w)
{
    if (cr_world_joint_count(w) > 0) return true;
    for (uint32_t i = 0; i < cr_world_body_capacity(w); ++i) {
        cr_body_def d;
        if (cr_body_get_def(w, cr_world_body_at(w, i), &d) == CR_OK && d.shape != CR_SHAPE_SPHERE) return true;
    }
    return false;
}

static int load_tree(sc_ctx *c, const cJSON *root, cr_scene *out)
{
    if (!cJSON_IsObject(root)) return sc_fail_value(c, NULL, root, "expected a JSON object at the top level");
    if (sc_check_keys(c, root, top_keys)) return -1;
    const cJSON *desc = cJSON_GetObjectItemCaseSensitive(root, "description");
    if (desc && !cJSON_IsString(desc)) return sc_fail_value(c, "description", desc, "expected a string");

    cr_world_def wd = cr_default_world_def();
    if (read_world_def(c, root, &wd) || read_run_settings(c, root, wd.dt, out)) return -1;

    /* What the world points to (friction maps) belongs to the scene from
     * the moment it is made, so that cr_scene_free releases it on any path. */
    out->owned = calloc(1, sizeof *out->owned);
    if (out->owned == NULL) return sc_fail(c, "out of memory");
    sc_static *statics = NULL;
    uint32_t static_count = 0;
    sc_bodies b = {0};
    int rc = read_statics(c, root, &statics, &static_count, out->owned);
    if (rc == 0 && static_count) {
        out->statics = calloc(static_count, sizeof *out->statics);
        if (out->statics == NULL) rc = sc_fail(c, "out of memory for %u statics", static_count);
    }
    if (rc == 0 && cr_world_create(&wd, &out->world) != CR_OK) rc = sc_fail(c, "cannot create the world");
    if (rc == 0) rc = add_planes(c, out->world, statics, static_count, out->statics);
    b.world = out->world;
    if (rc == 0) rc = read_bodies(c, root, &b);
    const cJSON *gen = cJSON_GetObjectItemCaseSensitive(root, "generate");
    if (rc == 0 && gen) rc = sc_generate(c, gen, &b, statics, static_count);
    if (rc == 0) rc = add_surfaces(c, &b, statics, static_count, out->statics);
    if (rc == 0) rc = sc_read_joints(c, root, out->world, b.count);
    /* The overlap check compares spheres; a polyhedron's bounding sphere
     * would call a stack of boxes overlapping. Rigid-body overlaps are taken
     * out by the drift correction (docs/physics/rigid.md). The pile check
     * counts every body by its inner radius (check_pileup). */
    bool spheres_only = rc == 0 && !rigid_scene(out->world);
    if (rc == 0) rc = check_pileup(c, &b);
    if (rc == 0 && spheres_only && !out->allow_overlap) rc = check_overlap(c, &b, statics, static_count);
    out->body_count = b.count;
    out->static_count = static_count;
    bodies_free(&b);
    statics_free(statics, static_count);
    return rc;
}

/* "line L, column C" of the byte at pos, for parse errors. */
static void locate(const char *json, const char *pos, int *line, int *col)
{
    *line = 1;
    *col = 1;
    for (const char *p = json; p < pos && *p; ++p) {
        if (*p == '\n') { ++*line; *col = 1; }
        else ++*col;
    }
}

static int parse_error(sc_ctx *c, const char *json, size_t len, const char *end)
{
    if (end == NULL || end < json || end > json + len) return sc_fail(c, "invalid JSON");
    int line, col;
    locate(json, end, &line, &col);
    char near[32];
    size_t n = 0;
    for (const char *p = end; *p && *p != '\n' && *p != '\r' && n + 1 < sizeof near; ++p) near[n++] = *p;
    near[n] = '\0';
    if (n == 0) return sc_fail(c, "line %d, column %d: invalid JSON near the end of the text", line, col);
    /* JSON has no NaN or Infinity; say so, since other tools write them. */
    bool nonfinite = strncmp(near, "NaN", 3) == 0 || strncmp(near, "nan", 3) == 0 || strncmp(near, "Inf", 3) == 0 ||
                     strncmp(near, "-Inf", 4) == 0 || strncmp(near, "inf", 3) == 0 || strncmp(near, "-inf", 4) == 0;
    return sc_fail(c, "line %d, column %d: invalid JSON near '%s'%s", line, col, near,
                   nonfinite ? " (JSON has no NaN or Infinity; numbers must be finite)" : "");
}

static int load_text(const char *json, const char *name, bool from_file, cr_scene *out, char *err, size_t err_size)
{
    sc_ctx c = {.name = name ? name : "scene", .scene_dir = from_file, .err = err, .err_size = err_size};
    if (err && err_size) err[0] = '\0';
    memset(out, 0, sizeof *out);
    if (json == NULL) return sc_fail(&c, "no scene text");
    size_t len = strlen(json);
    const char *end = NULL;
    /* The length counts the terminating NUL, as cJSON_ParseWithOpts does:
     * require_null_terminated looks for it inside the buffer. */
    cJSON *root = cJSON_ParseWithLengthOpts(json, len + 1, &end, 1);
    if (root == NULL) return parse_error(&c, json, len, end);
    int rc = load_tree(&c, root, out);
    cJSON_Delete(root);
    if (rc) cr_scene_free(out);
    return rc;
}

/* Reads a whole file; a pipe or /dev/stdin has no size to ask for first. */
static char *read_file(const char *path, int *error)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) { *error = errno; return NULL; }
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    while (buf) {
        len += fread(buf + len, 1, cap - len - 1, f);
        if (ferror(f) || feof(f)) break;
        char *grown = realloc(buf, cap * 2);
        if (grown == NULL) { free(buf); buf = NULL; break; }
        buf = grown;
        cap *= 2;
    }
    *error = buf == NULL ? ENOMEM : (ferror(f) ? (errno ? errno : EIO) : 0);
    fclose(f);
    if (*error) { free(buf); return NULL; }
    buf[len] = '\0';
    return buf;
}

int cr_scene_load_file(const char *path, cr_scene *out, char *err, size_t err_size)
{
    memset(out, 0, sizeof *out);
    int error = 0;
    char *text = read_file(path, &error);
    if (text == NULL) {
        if (err && err_size) snprintf(err, err_size, "%s: cannot read: %s", path, strerror(error));
        return -1;
    }
    if (strlen(text) == 0) {
        free(text);
        if (err && err_size) snprintf(err, err_size, "%s: empty file", path);
        return -1;
    }
    int rc = load_text(text, path, true, out, err, err_size);
    free(text);
    return rc;
}

int cr_scene_load_default(cr_scene *out, char *err, size_t err_size)
{
    return load_text(carom_default_scene, "scenes/default.json (embedded)", false, out, err, err_size);
}

void cr_scene_free(cr_scene *s)
{
    if (s == NULL) return;
    if (s->world) cr_world_destroy(s->world);
    /* After the world: its surfaces point into these. */
    sc_owned_free(s->owned);
    free(s->owned);
    free(s->statics);
    memset(s, 0, sizeof *s);
}

int cr_scene_load_string(const char *json, const char *name, cr_scene *out, char *err, size_t err_size)
{
    return load_text(json, name, false, out, err, err_size);
}

uint64_t cr_scene_sample_count(const cr_scene *s)
{
    return s->output_stride ? s->steps / s->output_stride + 1 : 1;
}
