/* Body storage: structure of arrays indexed by slot, ids with generations. */
#include <string.h>

#include "shape_internal.h"
#include "surface_internal.h"
#include "rigid.h"
#include "world_internal.h"

/* Every per-slot array, so that growing and freeing treat them alike. */
#define CR_BODY_ARRAYS(X)                                                                               \
    X(generation) X(type) X(inertia_kind) X(x) X(v) X(w) X(q) X(mass) X(inv_mass) X(inertia)            \
    X(inv_inertia) X(radius) X(restitution) X(friction) X(user_data) X(acc) X(alpha) X(t_local) X(stamp) \
    X(events) X(visit) X(rolling_friction) X(inner_radius) X(surface) X(ball_state) X(su) X(sv) X(vpath)    \
    X(dvel) X(t_state) X(energy_on) X(energy_acc) X(energy_drag) X(replanned) X(rest) X(energy_before)    \
    X(plan_end_x) X(plan_end_n) X(plan_end_u) X(plan_end_v) X(plan_end_on) X(shape) X(inertia_local)       \
    X(inv_inertia_local) X(still) X(asleep) X(island) X(island_next) X(x_before)

static bool grow_bodies(cr_world *w, uint32_t need)
{
    cr_bodies *b = &w->bodies;
    if (need <= b->capacity) return true;
    uint32_t cap = b->capacity ? b->capacity : 64;
    while (cap < need) cap *= 2;
#define GROW(field)                                                                  \
    {                                                                                \
        uint32_t c = b->capacity;                                                    \
        if (!cr_grow(w, (void **)&b->field, &c, cap, sizeof *b->field)) return false; \
    }
    CR_BODY_ARRAYS(GROW)
#undef GROW
    /* slots filled in place (checkpoint loading) have no shape until told */
    for (uint32_t i = b->capacity; i < cap; ++i) b->shape[i] = NULL;
    uint32_t c = b->capacity;
    if (!cr_grow(w, (void **)&b->free_slots, &c, cap, sizeof *b->free_slots)) return false;
    b->capacity = cap;
    return true;
}

bool cr_bodies_reserve(cr_world *w, uint32_t n) { return grow_bodies(w, n); }

void cr_bodies_free(cr_world *w)
{
    cr_bodies *b = &w->bodies;
    for (uint32_t i = 0; i < b->slot_count; ++i)
        if (cr_slot_alive(b, i)) cr_shape_release(b->shape[i]);
#define FREE(field) cr_free(w, b->field);
    CR_BODY_ARRAYS(FREE)
#undef FREE
    cr_free(w, b->free_slots);
    memset(b, 0, sizeof *b);
}

/* Mass, inertia (scalar for the sphere pipeline, tensor for the rigid one)
 * and their inverses; static and kinematic bodies have zero inverses. */
static void body_set_mass(cr_bodies *b, uint32_t i, const cr_body_def *def)
{
    bool dynamic = def->type == CR_BODY_DYNAMIC;
    if (def->shape == CR_SHAPE_SPHERE) {
        double r = def->radius, m = def->density > 0.0 ? def->density * 4.0 / 3.0 * 3.14159265358979323846 * r * r * r
                                                         : def->mass;
        b->mass[i] = m;
        b->radius[i] = r;
        b->inertia[i] = def->inertia_kind == CR_INERTIA_HOLLOW && def->inner_radius > 0.0
                            ? cr_hollow_sphere_inertia(m, r, def->inner_radius)
                            : cr_sphere_inertia(def->inertia_kind, m, r, def->inertia);
        b->inertia_local[i] = cr_m3_diag(b->inertia[i], b->inertia[i], b->inertia[i]);
    } else {
        const cr_mass_properties *mp = cr_shape_mass_properties(def->shape_ref);
        double m = def->density > 0.0 ? def->density * mp->volume : def->mass;
        b->mass[i] = m;
        b->radius[i] = cr_shape_bounding_radius(def->shape_ref);
        b->inertia_local[i] = cr_m3_scale(mp->inertia_unit, m / mp->volume);
        /* the scalar stands for the tensor where a scalar is asked for (energy of
         * spheres; never used for a polyhedron's dynamics) */
        b->inertia[i] = (b->inertia_local[i].m[0][0] + b->inertia_local[i].m[1][1] + b->inertia_local[i].m[2][2]) / 3.0;
    }
    b->inv_mass[i] = dynamic ? 1.0 / b->mass[i] : 0.0;
    b->inv_inertia[i] = dynamic && b->inertia[i] > 0.0 ? 1.0 / b->inertia[i] : 0.0;
    bool ok = true;
    b->inv_inertia_local[i] = dynamic && def->inertia_kind != CR_INERTIA_PARTICLE
                                  ? cr_m3_inverse(b->inertia_local[i], &ok)
                                  : cr_m3_zero();
    if (!ok) b->inv_inertia_local[i] = cr_m3_zero();
}

static bool id_alive(const cr_world *w, cr_body_id id)
{
    return id.generation != 0 && id.index < w->bodies.slot_count && w->bodies.generation[id.index] == id.generation &&
           (id.generation & 1u);
}

bool cr_body_is_valid(const cr_world *w, cr_body_id id) { return w && id_alive(w, id); }

cr_status cr_world_add_body(cr_world *w, const cr_body_def *def, cr_body_id *out)
{
    char msg[256];
    if (w->in_callback) return cr_fail(w, CR_ERR_REENTRANT, "cr_world_add_body: called from a world callback");
    cr_dem_sync(w); /* the other bodies' state, before the next step gathers it */
    cr_status s = cr_body_def_validate(def, msg, sizeof msg);
    if (s != CR_OK) return cr_fail(w, s, "body def: %s", msg);
    bool polyhedron = def->shape != CR_SHAPE_SPHERE;
    if (polyhedron && w->surfaces.count > 0)
        return cr_fail(w, CR_ERR_INVALID_ARGUMENT,
                       "body def: shape: a box, hull or mesh cannot join a world with parametric surfaces (seed 004 "
                       "surfaces are for balls)");
    if (polyhedron && w->def.method != CR_METHOD_IMPULSE)
        return cr_fail(w, CR_ERR_INVALID_ARGUMENT,
                       "body def: shape: rigid bodies step with the impulse method only (world method is event)");
    for (uint32_t k = 0; k < w->surfaces.count; ++k) {
        const cr_surface *sf = w->surfaces.surface[k];
        double ku = sf->max_curvature_u, kv = sf->max_curvature_v, kmax = sf->max_curvature;
        if (kmax * def->radius >= 1.0)
            return cr_fail(w, CR_ERR_INVALID_ARGUMENT,
                           "body def: radius %.17g is larger than surface %u's radius of curvature %.17g at (u, v) = "
                           "(%.6g, %.6g): seed 004 needs a single contact point (k r < 1)",
                           def->radius, k, 1.0 / kmax, ku, kv);
    }
    cr_bodies *b = &w->bodies;
    uint32_t i;
    if (b->free_count > 0) {
        i = b->free_slots[--b->free_count];
    } else {
        if (!grow_bodies(w, b->slot_count + 1)) return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "cr_world_add_body: out of memory");
        i = b->slot_count++;
        b->generation[i] = 0;
    }
    b->generation[i] += 1; /* odd: alive */
    b->type[i] = (uint8_t)def->type;
    b->inertia_kind[i] = (uint8_t)def->inertia_kind;
    b->x[i] = def->position;
    b->v[i] = def->type == CR_BODY_STATIC ? cr_v3_zero() : def->velocity;
    b->q[i] = cr_q_normalize(def->orientation);
    bool dynamic = def->type == CR_BODY_DYNAMIC;
    body_set_mass(b, i, def);
    /* A particle has no rotational degree of freedom: it never spins. */
    b->w[i] = def->inertia_kind == CR_INERTIA_PARTICLE || def->type == CR_BODY_STATIC ? cr_v3_zero()
                                                                                      : def->angular_velocity;
    b->shape[i] = def->shape_ref;
    b->still[i] = 0.0;
    b->asleep[i] = 0;
    b->island[i] = i;
    b->island_next[i] = UINT32_MAX;
    cr_shape_retain(def->shape_ref);
    if (polyhedron) w->polyhedra++;
    (void)dynamic;
    b->restitution[i] = def->restitution;
    b->friction[i] = def->friction;
    b->user_data[i] = def->user_data;
    b->rolling_friction[i] = def->rolling_friction;
    b->inner_radius[i] = def->inner_radius;
    b->surface[i] = CR_NO_SURFACE;
    b->ball_state[i] = CR_BALL_FLYING;
    b->su[i] = b->sv[i] = 0.0;
    b->acc[i] = b->alpha[i] = b->dvel[i] = cr_v3_zero();
    b->vpath[i] = b->v[i];
    b->t_state[i] = INFINITY;
    b->energy_on[i] = b->replanned[i] = b->plan_end_on[i] = 0;
    b->rest[i].count = b->rest[i].held = 0;
    b->energy_acc[i] = cr_v3_zero();
    b->energy_drag[i] = 0.0;
    b->t_local[i] = 0.0;
    b->stamp[i] = b->events[i] = b->visit[i] = 0;
    b->live_count++;
    cr_dem_touch(w);
    if (out) {
        out->index = i;
        out->generation = b->generation[i];
    }
    return CR_OK;
}

cr_status cr_world_remove_body(cr_world *w, cr_body_id id)
{
    if (w->in_callback) return cr_fail(w, CR_ERR_REENTRANT, "cr_world_remove_body: called from a world callback");
    if (!id_alive(w, id))
        return cr_fail(w, CR_ERR_STALE_ID, "cr_world_remove_body: stale body id {index %u, generation %u}", id.index,
                       id.generation);
    cr_dem_sync(w); /* the other bodies' state, before the next step gathers it */
    cr_bodies *b = &w->bodies;
    cr_ball_wake(w, id.index); /* out of its sleeping island's ring */
    if (w->rigid && !cr_rigid_body_removed(w, id.index))
        return cr_fail(w, CR_ERR_INVALID_ARGUMENT, "cr_world_remove_body: body %u is held by a joint; remove the joint first",
                       id.index);
    if (b->shape[id.index] && cr_shape_get_type(b->shape[id.index]) != CR_SHAPE_SPHERE) w->polyhedra--;
    cr_shape_release(b->shape[id.index]);
    b->shape[id.index] = NULL;
    b->generation[id.index] += 1; /* even: free; the old id is now stale */
    b->free_slots[b->free_count++] = id.index;
    b->live_count--;
    w->prev_count = 0; /* the slot may be reused: forget warm-start impulses */
    if (w->rigid) {
        w->rigid->prev_count = 0;       /* and carried manifolds (src/collide_carry.c) */
        w->rigid->kept_count = 0;       /* (the last step's, not yet swapped in) */
        w->rigid->apart_prev_count = 0; /* and pairs kept apart (src/collide_apart.c) */
    }
    cr_dem_body_removed(w, id.index);
    return CR_OK;
}

uint32_t cr_world_body_capacity(const cr_world *w) { return w->bodies.slot_count; }
uint32_t cr_world_body_count(const cr_world *w) { return w->bodies.live_count; }

cr_body_id cr_world_body_at(const cr_world *w, uint32_t slot)
{
    cr_body_id id = {0, 0};
    if (cr_slot_alive(&w->bodies, slot)) {
        id.index = slot;
        id.generation = w->bodies.generation[slot];
    }
    return id;
}

cr_status cr_body_get_state(const cr_world *w, cr_body_id id, cr_body_state *out)
{
    if (!id_alive(w, id)) return CR_ERR_STALE_ID;
    cr_dem_sync(w);
    const cr_bodies *b = &w->bodies;
    out->position = b->x[id.index];
    out->velocity = b->v[id.index];
    out->angular_velocity = b->w[id.index];
    out->orientation = b->q[id.index];
    return CR_OK;
}

cr_status cr_body_set_state(cr_world *w, cr_body_id id, const cr_body_state *s)
{
    if (w->in_callback) return cr_fail(w, CR_ERR_REENTRANT, "cr_body_set_state: called from a world callback");
    if (!id_alive(w, id))
        return cr_fail(w, CR_ERR_STALE_ID, "cr_body_set_state: stale body id {index %u, generation %u}", id.index,
                       id.generation);
    if (!cr_v3_isfinite(s->position) || !cr_v3_isfinite(s->velocity) || !cr_v3_isfinite(s->angular_velocity))
        return cr_fail(w, CR_ERR_INVALID_ARGUMENT, "cr_body_set_state: body %u: state must be finite", id.index);
    cr_dem_sync(w); /* the other bodies' state, before the next step gathers it */
    cr_bodies *b = &w->bodies;
    if (cr_balls_sleep(w)) cr_ball_wake(w, id.index);
    else if (w->rigid) cr_rigid_wake(w, id.index);
    bool still = b->type[id.index] == CR_BODY_STATIC;
    b->x[id.index] = s->position;
    b->v[id.index] = still ? cr_v3_zero() : s->velocity;
    b->w[id.index] = b->inertia_kind[id.index] == CR_INERTIA_PARTICLE || still ? cr_v3_zero() : s->angular_velocity;
    b->q[id.index] = cr_q_normalize(s->orientation);
    cr_dem_touch(w);
    return CR_OK;
}

cr_status cr_body_get_def(const cr_world *w, cr_body_id id, cr_body_def *out)
{
    if (!id_alive(w, id)) return CR_ERR_STALE_ID;
    cr_dem_sync(w);
    const cr_bodies *b = &w->bodies;
    uint32_t i = id.index;
    *out = cr_default_body_def();
    out->type = (cr_body_type)b->type[i];
    out->radius = b->radius[i];
    out->mass = b->mass[i];
    out->inertia_kind = (cr_inertia_kind)b->inertia_kind[i];
    out->inertia = b->inertia[i];
    out->position = b->x[i];
    out->velocity = b->v[i];
    out->angular_velocity = b->w[i];
    out->orientation = b->q[i];
    out->restitution = b->restitution[i];
    out->friction = b->friction[i];
    out->rolling_friction = b->rolling_friction[i];
    out->inner_radius = b->inner_radius[i];
    out->user_data = b->user_data[i];
    out->shape_ref = b->shape[i];
    out->shape = b->shape[i] ? cr_shape_get_type(b->shape[i]) : CR_SHAPE_SPHERE;
    return CR_OK;
}

cr_status cr_body_get_inertia(const cr_world *w, cr_body_id id, double *mass, cr_mat3 *inertia_world)
{
    if (!id_alive(w, id)) return CR_ERR_STALE_ID;
    cr_dem_sync(w);
    const cr_bodies *b = &w->bodies;
    uint32_t i = id.index;
    if (mass) *mass = b->mass[i];
    if (inertia_world) {
        cr_mat3 R = cr_q_to_m3(b->q[i]);
        *inertia_world = cr_m3_mul(cr_m3_mul(R, b->inertia_local[i]), cr_m3_transpose(R));
    }
    return CR_OK;
}

cr_contact_side cr_body_side(const cr_world *w, uint32_t i, cr_vec3 r)
{
    const cr_bodies *b = &w->bodies;
    cr_contact_side s;
    s.inv_mass = b->inv_mass[i];
    s.inv_inertia = cr_m3_diag(b->inv_inertia[i], b->inv_inertia[i], b->inv_inertia[i]);
    s.r = r;
    s.v = b->v[i];
    s.w = b->w[i];
    return s;
}

void cr_body_store_side(cr_world *w, uint32_t i, const cr_contact_side *s)
{
    w->bodies.v[i] = s->v;
    w->bodies.w[i] = s->w;
}

void cr_body_plan_free(cr_world *w, uint32_t i)
{
    cr_bodies *b = &w->bodies;
    b->vpath[i] = b->v[i];
    b->dvel[i] = b->acc[i];
    b->t_state[i] = INFINITY;
}

void cr_body_advance(cr_world *w, uint32_t i, double t)
{
    cr_bodies *b = &w->bodies;
    double h = t - b->t_local[i];
    if (h <= 0.0) return;
    /* Exact for constant acceleration over the interval (seed 001: the ODE
     * restarts at each impact with the new velocity); a surface ball follows
     * its planned chord and keeps its energy (seed 004 eq. 43). */
    cr_vec3 x0 = b->x[i], v0 = b->v[i], w0 = b->w[i];
    b->x[i] = cr_body_position_at(w, i, t);
    cr_vec3 w_mid = cr_v3_madd(b->w[i], b->alpha[i], 0.5 * h);
    b->vpath[i] = cr_v3_madd(b->vpath[i], b->acc[i], h);
    b->v[i] = cr_v3_madd(b->v[i], b->dvel[i], h);
    b->w[i] = cr_v3_madd(b->w[i], b->alpha[i], h);
    b->q[i] = cr_q_integrate(b->q[i], w_mid, h);
    b->t_local[i] = t;
    if (b->surface[i] != CR_NO_SURFACE) cr_ball_correct_speed(w, i, v0, w0, cr_v3_sub(b->x[i], x0));
}

cr_status cr_body_get_ball_state(const cr_world *w, cr_body_id id, cr_ball_state *state, cr_static_id *surface)
{
    if (!id_alive(w, id)) return CR_ERR_STALE_ID;
    const cr_bodies *b = &w->bodies;
    if (state) *state = (cr_ball_state)b->ball_state[id.index];
    if (surface) {
        bool on = b->surface[id.index] != CR_NO_SURFACE;
        surface->index = on ? b->surface[id.index] : 0;
        surface->generation = on ? 1 : 0;
        surface->type = CR_STATIC_SURFACE;
    }
    return CR_OK;
}
