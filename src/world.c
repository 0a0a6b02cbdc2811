/* World lifecycle and cr_world_step: one call per stage, nothing else.
 *
 * One step (DESIGN "One step"):
 *   1. predict      each body's motion over the step (seed 000 leapfrog kick
 *                   in the impulse method; constant accelerations with
 *                   seed 001 resting-contact forces in the event method)
 *   2. broad phase  swept bounds -> candidate pairs (uniform grid, O(n))
 *   3. contacts     touching contacts solved at velocity level (seed 000
 *                   appendix B with seed 001 §3.2 resting contact)
 *   4. events       impacts inside the step in time order (seed 004 §6-9,
 *                   seed 004 eq. 47, seed 001 §3.3): nothing tunnels
 *   5. finish       advance to the end of the step, position projection
 *                   (seed 000 c.5), finiteness check
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dem_internal.h"
#include "rigid.h"
#include "shape_internal.h"
#include "surface_internal.h"
#include "world_internal.h"

void cr_bodies_free(cr_world *w);

static void *default_alloc(size_t size, void *ctx)
{
    (void)ctx;
    return malloc(size);
}
static void default_free(void *p, void *ctx)
{
    (void)ctx;
    free(p);
}

void *cr_alloc(cr_world *w, size_t size) { return w->def.alloc(size, w->def.alloc_ctx); }
void cr_free(cr_world *w, void *p)
{
    if (p) w->def.free(p, w->def.alloc_ctx);
}

bool cr_grow(cr_world *w, void **p, uint32_t *capacity, uint32_t need, size_t elem)
{
    if (need <= *capacity) return true;
    uint64_t cap = *capacity ? *capacity : 16;
    while (cap < need) cap *= 2;
    if (cap > UINT32_MAX || cap * elem > SIZE_MAX / 2) return false;
    void *np = cr_alloc(w, (size_t)cap * elem);
    if (!np) return false;
    if (*p) {
        memcpy(np, *p, (size_t)*capacity * elem);
        cr_free(w, *p);
    }
    *p = np;
    *capacity = (uint32_t)cap;
    return true;
}

cr_status cr_fail(cr_world *w, cr_status s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->error, sizeof w->error, fmt, ap);
    va_end(ap);
    return s;
}

const char *cr_world_last_error(const cr_world *w) { return w->error; }

cr_status cr_world_create(const cr_world_def *def, cr_world **out)
{
    char msg[256];
    *out = NULL;
    cr_status s = cr_world_def_validate(def, msg, sizeof msg);
    if (s != CR_OK) return s;
    cr_alloc_fn *alloc = def->alloc ? def->alloc : default_alloc;
    cr_world *w = alloc(sizeof *w, def->alloc_ctx);
    if (!w) return CR_ERR_OUT_OF_MEMORY;
    memset(w, 0, sizeof *w);
    w->def = *def;
    if (!def->alloc) {
        w->def.alloc = default_alloc;
        w->def.free = default_free;
    }
    /* Seed 000 b.2 leaves "resting" as v_n = 0 exactly; with a finite step a
     * resting body gains |g| dt into the surface every step, so anything below
     * two steps' worth of gravity is resting contact, not an impact. */
    w->resting_speed = def->resting_speed >= 0.0 ? def->resting_speed : 2.0 * cr_v3_len(def->gravity) * def->dt;
    *out = w;
    return CR_OK;
}

cr_status cr_world_set_dt(cr_world *w, double dt)
{
    if (w->in_callback) return cr_fail(w, CR_ERR_REENTRANT, "cr_world_set_dt: called from a world callback");
    if (!(dt > 0.0 && isfinite(dt)))
        return cr_fail(w, CR_ERR_INVALID_ARGUMENT, "cr_world_set_dt: dt must be > 0 and finite, got %.17g", dt);
    w->time_base = w->time;
    w->steps_base = w->steps;
    w->def.dt = dt;
    if (w->def.resting_speed < 0.0) w->resting_speed = 2.0 * cr_v3_len(w->def.gravity) * dt;
    return CR_OK;
}

void cr_world_destroy(cr_world *w)
{
    if (!w) return;
    if (w->in_callback) { /* the step still runs on it: refused, as the header says */
        cr_fail(w, CR_ERR_REENTRANT, "cr_world_destroy: called from a world callback; ignored");
        return;
    }
    cr_bodies_free(w);
    cr_dem_free(w);
    cr_rigid_free(w);
    cr_dem_pool_destroy(w, w->pool);
    cr_free(w, w->planes.def);
    cr_free(w, w->planes.generation);
    for (uint32_t k = 0; k < w->surfaces.count; ++k) cr_surface_destroy(w->surfaces.surface[k]);
    cr_free(w, w->surfaces.surface);
    cr_broad_free(w, &w->broad);
    cr_event_free(w, &w->queue);
    cr_events_groups_free(w);
    cr_free(w, w->closest_memo);
    cr_free(w, w->landing);
    cr_free(w, w->pair_time);
    cr_free(w, w->plane_time);
    cr_free(w, w->contacts);
    cr_free(w, w->prev_contacts);
    cr_free(w, w->rows);
    cr_free(w, w->plane_contacts);
    cr_free(w, w->solver_bodies);
    cr_free(w, w->query);
    cr_free(w, w->cap_share);
    cr_free(w, w->sleep_least);
    cr_free(w, w->sleep_ring);
    cr_free(w, w->sleep_awake);
    cr_free(w, w->near);
    cr_free(w, w->near_x);
    cr_free(w, w->near_sorted);
    cr_free(w, w->near_key);
    cr_free(w, w->near_body_start);
    cr_free(w, w->near_body_rows);
    cr_free(w, w->near_active);
    cr_free_fn *fr = w->def.free;
    void *ctx = w->def.alloc_ctx;
    fr(w, ctx);
}

const cr_world_def *cr_world_get_def(const cr_world *w) { return &w->def; }
double cr_world_time(const cr_world *w) { return w->time; }
uint64_t cr_world_step_count(const cr_world *w) { return w->steps; }
const cr_step_stats *cr_world_stats(const cr_world *w) { return &w->stats; }
uint32_t cr_world_plane_count(const cr_world *w) { return w->planes.count; }

const char *cr_stage_name(int stage)
{
    static const char *names[CR_STAGE_COUNT] = {"predict", "broad_phase", "contacts", "events", "finish"};
    return stage >= 0 && stage < CR_STAGE_COUNT ? names[stage] : "?";
}

cr_status cr_world_add_plane(cr_world *w, const cr_plane_def *def, cr_static_id *out)
{
    char msg[256];
    if (w->in_callback) return cr_fail(w, CR_ERR_REENTRANT, "cr_world_add_plane: called from a world callback");
    cr_status s = cr_plane_def_validate(def, msg, sizeof msg);
    if (s != CR_OK) return cr_fail(w, s, "plane def: %s", msg);
    if (w->def.method == CR_METHOD_DEM)
        return cr_fail(w, CR_ERR_INVALID_ARGUMENT, "cr_world_add_plane: method dem has no planes (spheres only; a "
                                                   "wall of kinematic spheres works)");
    cr_planes *p = &w->planes;
    uint32_t cap = p->capacity;
    if (!cr_grow(w, (void **)&p->def, &cap, p->count + 1, sizeof *p->def) ||
        !cr_grow(w, (void **)&p->generation, &p->capacity, p->count + 1, sizeof *p->generation))
        return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "cr_world_add_plane: out of memory");
    p->def[p->count] = *def;
    p->def[p->count].normal = cr_v3_normalize(def->normal);
    p->generation[p->count] = 1;
    if (out) {
        out->index = p->count;
        out->generation = 1;
        out->type = CR_STATIC_PLANE;
    }
    p->count++;
    return CR_OK;
}

cr_status cr_world_add_surface(cr_world *w, const cr_surface_def *def, cr_static_id *out)
{
    char msg[256];
    if (w->in_callback) return cr_fail(w, CR_ERR_REENTRANT, "cr_world_add_surface: called from a world callback");
    if (w->def.method == CR_METHOD_DEM)
        return cr_fail(w, CR_ERR_INVALID_ARGUMENT, "cr_world_add_surface: method dem has no surfaces (spheres only)");
    if (w->def.rigid_substeps > 0) /* its contacts are points of shapes (docs/physics/substep.md) */
        return cr_fail(w, CR_ERR_INVALID_ARGUMENT,
                       "cr_world_add_surface: rigid_substeps %d: the sub-stepped contact solver takes no parametric "
                       "surfaces; use rigid_substeps 0",
                       w->def.rigid_substeps);
    if (cr_world_is_rigid(w))
        return cr_fail(w, CR_ERR_INVALID_ARGUMENT,
                       "cr_world_add_surface: a world with rigid bodies (boxes, hulls, meshes or joints) takes no "
                       "parametric surfaces");
    cr_surface *surface;
    cr_status s = cr_surface_create(def, &surface, msg, sizeof msg);
    if (s != CR_OK) return cr_fail(w, s, "surface def: %s", msg);
    /* Seed 004 §1: no principal curvature sharper than the biggest ball, so
     * that a ball touches the surface at a single point. */
    double rmax = 0.0, ku = surface->max_curvature_u, kv = surface->max_curvature_v;
    for (uint32_t i = 0; i < w->bodies.slot_count; ++i)
        if (cr_slot_alive(&w->bodies, i) && w->bodies.radius[i] > rmax) rmax = w->bodies.radius[i];
    double kmax = surface->max_curvature;
    if (rmax > 0.0 && kmax * rmax >= 1.0) {
        cr_surface_destroy(surface);
        return cr_fail(w, CR_ERR_INVALID_ARGUMENT,
                       "surface def: principal curvature %.6g at (u, v) = (%.6g, %.6g) is sharper than the largest "
                       "ball (radius %.6g): seed 004 needs k r < 1",
                       kmax, ku, kv, rmax);
    }
    cr_surfaces *ss = &w->surfaces;
    if (!cr_grow(w, (void **)&ss->surface, &ss->capacity, ss->count + 1, sizeof *ss->surface)) {
        cr_surface_destroy(surface);
        return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "cr_world_add_surface: out of memory");
    }
    ss->surface[ss->count] = surface;
    if (out) {
        out->index = ss->count;
        out->generation = 1;
        out->type = CR_STATIC_SURFACE;
    }
    ss->count++;
    return CR_OK;
}

uint32_t cr_world_surface_count(const cr_world *w) { return w->surfaces.count; }
const cr_surface *cr_world_surface(const cr_world *w, uint32_t index)
{
    return index < w->surfaces.count ? w->surfaces.surface[index] : NULL;
}

cr_status cr_plane_get_def(const cr_world *w, cr_static_id id, cr_plane_def *out)
{
    if (id.type != CR_STATIC_PLANE || id.index >= w->planes.count || id.generation != w->planes.generation[id.index])
        return CR_ERR_STALE_ID;
    *out = w->planes.def[id.index];
    return CR_OK;
}

static double now_seconds(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

cr_status cr_world_prepare(cr_world *w)
{
    if (w->in_callback) return cr_fail(w, CR_ERR_REENTRANT, "cr_world_prepare: called from a world callback");
    if (w->failed) return CR_ERR_NON_FINITE;
    return w->def.method == CR_METHOD_DEM ? cr_dem_prepare(w) : CR_OK;
}

cr_status cr_world_step(cr_world *w)
{
    if (w->in_callback) return cr_fail(w, CR_ERR_REENTRANT, "cr_world_step: called from a world callback");
    if (w->failed) return CR_ERR_NON_FINITE;
    cr_step_stats totals = w->stats;
    memset(&w->stats, 0, sizeof w->stats);
    w->stats.total_contacts = totals.total_contacts;
    w->stats.total_events = totals.total_events;
    w->stats.law_fallbacks = totals.law_fallbacks;
    w->stats.lcp_fallbacks = totals.lcp_fallbacks;
    w->stats.lcp_inexact = totals.lcp_inexact;
    w->stats.mean_closest_iterations = totals.mean_closest_iterations;

    if (w->def.method == CR_METHOD_DEM) {
        cr_status sd = cr_dem_step(w);
        if (sd != CR_OK) return sd;
        w->stats.total_contacts += w->stats.contacts;
        return CR_OK;
    }
    cr_status s = CR_OK;
    double t0 = now_seconds(), t1;
#define STAGE(id, call)                              \
    do {                                             \
        s = call;                                    \
        t1 = now_seconds();                          \
        w->stats.stage_seconds[id] = t1 - t0;        \
        t0 = t1;                                     \
        if (s != CR_OK) return s;                    \
    } while (0)
    if (cr_world_is_rigid(w)) {
        /* seed 003's pipeline; its solve is timed as the contacts stage and
         * the colliding-contact rounds inside it count as events */
        STAGE(CR_STAGE_PREDICT, cr_rigid_predict(w));
        STAGE(CR_STAGE_BROAD_PHASE, cr_rigid_broad_phase(w));
        STAGE(CR_STAGE_CONTACTS, cr_rigid_contacts(w));
        STAGE(CR_STAGE_EVENTS, cr_rigid_solve(w));
        STAGE(CR_STAGE_FINISH, cr_rigid_finish(w));
    } else {
        STAGE(CR_STAGE_PREDICT, (cr_stage_predict(w), CR_OK));
        STAGE(CR_STAGE_BROAD_PHASE, cr_stage_broad_phase(w));
        STAGE(CR_STAGE_CONTACTS, cr_stage_contacts(w));
        STAGE(CR_STAGE_EVENTS, cr_stage_events(w));
        STAGE(CR_STAGE_FINISH, cr_stage_finish(w));
    }
#undef STAGE
    if (w->closest_calls) w->stats.mean_closest_iterations = w->closest_iterations / (double)w->closest_calls;
    w->stats.total_contacts += w->stats.contacts;
    w->stats.total_events += w->stats.events;
    return CR_OK;
}

static bool has_tensor(const cr_bodies *b, uint32_t i)
{
    return b->shape[i] && cr_shape_get_type(b->shape[i]) != CR_SHAPE_SPHERE;
}

cr_vec3 cr_body_spin_momentum(const cr_world *w, uint32_t i, cr_vec3 om)
{
    const cr_bodies *b = &w->bodies;
    if (!has_tensor(b, i)) return cr_v3_scale(om, b->inertia[i]);
    cr_mat3 R = cr_q_to_m3(b->q[i]);
    return cr_m3_mul_v(R, cr_m3_mul_v(b->inertia_local[i], cr_m3_mul_v(cr_m3_transpose(R), om)));
}

double cr_body_kinetic_of(const cr_world *w, uint32_t i, cr_vec3 v, cr_vec3 om)
{
    const cr_bodies *b = &w->bodies;
    if (has_tensor(b, i)) return 0.5 * b->mass[i] * cr_v3_len2(v) + 0.5 * cr_v3_dot(om, cr_body_spin_momentum(w, i, om));
    return 0.5 * b->mass[i] * cr_v3_len2(v) + 0.5 * b->inertia[i] * cr_v3_len2(om);
}

double cr_body_energy(const cr_world *w, uint32_t i)
{
    const cr_bodies *b = &w->bodies;
    double e = cr_body_kinetic(w, i);
    return cr_slot_dynamic(b, i) ? e - b->mass[i] * cr_v3_dot(w->def.gravity, b->x[i]) : e;
}

double cr_body_kinetic(const cr_world *w, uint32_t i) { return cr_body_kinetic_of(w, i, w->bodies.v[i], w->bodies.w[i]); }

void cr_body_scale_kinetic(cr_world *w, uint32_t i, double k)
{
    w->bodies.v[i] = cr_v3_scale(w->bodies.v[i], k);
    w->bodies.w[i] = cr_v3_scale(w->bodies.w[i], k);
}

double cr_body_cap_energy(cr_world *w, uint32_t i, double e0)
{
    double gain = cr_body_energy(w, i) - e0;
    if (!(gain > 0.0)) return 0.0;
    double kin = cr_body_kinetic(w, i);
    cr_body_scale_kinetic(w, i, kin > gain ? sqrt((kin - gain) / kin) : 0.0);
    return kin > gain ? 0.0 : gain - kin;
}

cr_energy cr_world_energy(const cr_world *w)
{
    cr_dem_sync(w);
    const cr_bodies *b = &w->bodies;
    cr_energy e = {0.0, 0.0, 0.0, {0, 0, 0}, {0, 0, 0}};
    for (uint32_t i = 0; i < b->slot_count; ++i) {
        if (!cr_slot_alive(b, i)) continue;
        double m = b->mass[i];
        e.kinetic += cr_body_kinetic(w, i);
        if (cr_slot_dynamic(b, i)) e.potential -= m * cr_v3_dot(w->def.gravity, b->x[i]);
        cr_vec3 p = cr_v3_scale(b->v[i], m);
        e.momentum = cr_v3_add(e.momentum, p);
        e.angular_momentum = cr_v3_add(e.angular_momentum, cr_v3_add(cr_v3_cross(b->x[i], p), cr_body_spin_momentum(w, i, b->w[i])));
    }
    e.total = e.kinetic + e.potential;
    return e;
}

cr_vec3 cr_world_impact_impulse(cr_world *w, const cr_contact_side *a, const cr_contact_side *b, cr_vec3 n,
                                double restitution, double friction)
{
    if (w->def.law == CR_LAW_STRONGE) {
        /* Seed 002: exact frictional impulse. An impact slower than the
         * resting speed is resting contact there too (e = 0). */
        double vn = cr_v3_dot(n, cr_v3_sub(cr_contact_point_velocity(a), cr_contact_point_velocity(b)));
        double e = -vn <= w->resting_speed ? 0.0 : restitution;
        cr_stronge_result res;
        if (cr_law_stronge(a, b, n, e, friction, &res, NULL, 0) == CR_OK) return res.impulse;
        /* Only an integration that ran out of steps gets here (the inputs
         * are valid by construction): Newton's law keeps the run going, and
         * the stats count it. */
        w->stats.law_fallbacks++;
    }
    return cr_law_newton(a, b, n, restitution, friction, w->resting_speed).impulse;
}
