/* Default defs and their validation: every message names the field and value. */
#include <stdio.h>

#include "message.h"
#include "shape_internal.h"
#include "world_internal.h"

cr_world_def cr_default_world_def(void)
{
    cr_world_def d = {0};
    d.gravity = cr_v3(0.0, 0.0, -9.81);
    d.dt = 1e-3;
    d.method = CR_METHOD_IMPULSE;
    d.law = CR_LAW_NEWTON;
    d.k_p = 0.8; /* seed 000: k_p < 1 softens; 0.8 removes most overlap per step */
    d.toi_tolerance = 1e-9;
    d.resting_speed = -1.0;
    d.solver_iterations = 10;
    d.pgs_iterations = 50;
    d.drift_iterations = 50; /* pgs_iterations' default, which the drift correction took before */
    d.drift_tolerance = 1e-5; /* m: a hundredth of a millimetre a pass (src/rigid_finish.c) */
    d.drift_max_speed = 1.0;  /* m/s: the lift out of an overlap a step is capped (src/rigid_finish.c) */
    d.rigid_substeps = 0;          /* seed 003's multiplier system */
    d.substep_iterations = 1;      /* Box2D v3: one biased pass and one relax pass a substep */
    /* Box2D v3 takes 30 Hz at 60 steps/s; a soft contact under load w
     * overlaps w / (m_eff omega^2), and carom's piles at 240 steps/s sank
     * 44 mm at 30 Hz (20-row pyramid), 1.9 mm at 120 (docs/physics/substep.md) */
    d.contact_hertz = 120.0;
    d.contact_damping_ratio = 10.0; /* Box2D v3's contact damping ratio */
    d.projection_passes = 1; /* seed 000 c.5: one pass */
    d.projection_shock = false; /* seed 000's mass ratios in every pass */
    d.max_events_per_body = 64;
    d.sleep_speed = 0.01;
    d.integrate_orientation = true;
    d.worker_count = 1;
    d.internal_magic = CR_MAGIC_WORLD_DEF;
    return d;
}

cr_body_def cr_default_body_def(void)
{
    cr_body_def d = {0};
    d.type = CR_BODY_DYNAMIC;
    d.shape = CR_SHAPE_SPHERE;
    d.radius = 0.1;
    d.mass = 1.0;
    d.inertia_kind = CR_INERTIA_SOLID;
    d.orientation = cr_q_identity();
    d.restitution = 0.5;
    d.friction = 0.3;
    d.internal_magic = CR_MAGIC_BODY_DEF;
    return d;
}

cr_joint_def cr_default_joint_def(void)
{
    cr_joint_def d = {0};
    d.type = CR_JOINT_BALL;
    d.axis = cr_v3(0.0, 0.0, 1.0);
    d.length = -1.0;
    d.internal_magic = CR_MAGIC_JOINT_DEF;
    return d;
}

cr_plane_def cr_default_plane_def(void)
{
    cr_plane_def d = {0};
    d.normal = cr_v3(0.0, 0.0, 1.0);
    d.restitution = 1.0; /* statics default to 1: the body's coefficient decides */
    d.friction = 1.0;
    d.internal_magic = CR_MAGIC_PLANE_DEF;
    return d;
}

/* A refusal: the message (src/message.h), CR_ERR_INVALID_ARGUMENT. */
#define bad(msg, size, ...) (cr_msgf((msg), (size), __VA_ARGS__), CR_ERR_INVALID_ARGUMENT)

#define VEC_FMT "[%.17g, %.17g, %.17g]"
#define VEC_ARG(v) (v).x, (v).y, (v).z

cr_status cr_world_def_validate(const cr_world_def *d, char *msg, size_t size)
{
    if (!d || d->internal_magic != CR_MAGIC_WORLD_DEF) {
        cr_msgf(msg, size, "world def: not made by cr_default_world_def()");
        return CR_ERR_UNINITIALIZED_DEF;
    }
    if (!cr_v3_isfinite(d->gravity)) return bad(msg, size, "gravity: must be finite, got " VEC_FMT, VEC_ARG(d->gravity));
    if (!(d->dt > 0.0 && isfinite(d->dt))) return bad(msg, size, "dt: must be > 0 and finite, got %.17g", d->dt);
    if (d->method != CR_METHOD_IMPULSE && d->method != CR_METHOD_EVENT && d->method != CR_METHOD_DEM)
        return bad(msg, size, "method: unknown value %d", (int)d->method);
    if (d->law != CR_LAW_NEWTON && d->law != CR_LAW_STRONGE && d->law != CR_LAW_ROLLING)
        return bad(msg, size, "law: unknown value %d", (int)d->law);
    if (d->worker_count < 1 || d->worker_count > 64)
        return bad(msg, size, "worker_count: must be in [1, 64], got %u", (unsigned)d->worker_count);
    if ((d->enqueue_task == NULL) != (d->finish_task == NULL))
        return bad(msg, size, "enqueue_task, finish_task: set both or neither");
    if (!(d->k_p >= 0.0 && d->k_p <= 1.0)) return bad(msg, size, "k_p: must be in [0, 1], got %.17g", d->k_p);
    if (!(d->toi_tolerance > 0.0 && isfinite(d->toi_tolerance)))
        return bad(msg, size, "toi_tolerance: must be > 0 and finite, got %.17g", d->toi_tolerance);
    if (!isfinite(d->resting_speed))
        return bad(msg, size, "resting_speed: must be finite (< 0 for automatic), got %.17g", d->resting_speed);
    if (d->solver_iterations < 1 || d->solver_iterations > 1000)
        return bad(msg, size, "solver_iterations: must be in [1, 1000], got %d", d->solver_iterations);
    if (d->pgs_iterations < 1 || d->pgs_iterations > 100000)
        return bad(msg, size, "pgs_iterations: must be in [1, 100000], got %d", d->pgs_iterations);
    if (d->drift_iterations < 1 || d->drift_iterations > 100000)
        return bad(msg, size, "drift_iterations: must be in [1, 100000], got %d", d->drift_iterations);
    if (!(d->drift_tolerance >= 0.0 && isfinite(d->drift_tolerance)))
        return bad(msg, size, "drift_tolerance: must be >= 0 and finite (0: every pass), got %.17g", d->drift_tolerance);
    if (!(d->drift_max_speed >= 0.0 && isfinite(d->drift_max_speed)))
        return bad(msg, size, "drift_max_speed: must be >= 0 and finite (0: no cap), got %.17g", d->drift_max_speed);
    if (d->rigid_substeps < 0 || d->rigid_substeps > 64)
        return bad(msg, size, "rigid_substeps: must be in [0, 64] (0: seed 003's solver), got %d", d->rigid_substeps);
    if (d->substep_iterations < 1 || d->substep_iterations > 1000)
        return bad(msg, size, "substep_iterations: must be in [1, 1000], got %d", d->substep_iterations);
    if (!(d->contact_hertz > 0.0 && isfinite(d->contact_hertz)))
        return bad(msg, size, "contact_hertz: must be > 0 and finite, got %.17g", d->contact_hertz);
    if (!(d->contact_damping_ratio >= 0.0 && isfinite(d->contact_damping_ratio)))
        return bad(msg, size, "contact_damping_ratio: must be >= 0 and finite, got %.17g", d->contact_damping_ratio);
    if (d->projection_passes < 1 || d->projection_passes > 1000)
        return bad(msg, size, "projection_passes: must be in [1, 1000], got %d", d->projection_passes);
    if (d->projection_shock && d->projection_passes < 2)
        return bad(msg, size, "projection_shock: needs projection_passes >= 2 (it orders the extra passes), got %d",
                   d->projection_passes);
    if (d->max_events_per_body < 1)
        return bad(msg, size, "max_events_per_body: must be >= 1, got %d", d->max_events_per_body);
    if (!(d->sleep_time >= 0.0 && isfinite(d->sleep_time)))
        return bad(msg, size, "sleep_time: must be >= 0 and finite (0: never), got %.17g", d->sleep_time);
    if (!(d->sleep_speed >= 0.0 && isfinite(d->sleep_speed)))
        return bad(msg, size, "sleep_speed: must be >= 0 and finite, got %.17g", d->sleep_speed);
    if (d->collision_order != CR_ORDER_ROUNDS && d->collision_order != CR_ORDER_SIMULTANEOUS)
        return bad(msg, size, "collision_order: unknown value %d", (int)d->collision_order);
    if ((d->alloc == NULL) != (d->free == NULL)) return bad(msg, size, "alloc/free: give both or neither");
    const cr_hooke *h = &d->hooke;
    if (d->method == CR_METHOD_DEM && !(h->kn > 0.0 && isfinite(h->kn)))
        return bad(msg, size, "hooke.kn: must be > 0 and finite with method dem, got %.17g", h->kn);
    if (!(h->kn >= 0.0 && isfinite(h->kn))) return bad(msg, size, "hooke.kn: must be >= 0 and finite, got %.17g", h->kn);
    if (!(h->kt >= 0.0 && isfinite(h->kt))) return bad(msg, size, "hooke.kt: must be >= 0 and finite, got %.17g", h->kt);
    if (!(h->gamma_n >= 0.0 && isfinite(h->gamma_n)))
        return bad(msg, size, "hooke.gamma_n: must be >= 0 and finite, got %.17g", h->gamma_n);
    if (!(h->gamma_t >= 0.0 && isfinite(h->gamma_t)))
        return bad(msg, size, "hooke.gamma_t: must be >= 0 and finite, got %.17g", h->gamma_t);
    if (!(h->mu >= 0.0 && isfinite(h->mu))) return bad(msg, size, "hooke.mu: must be >= 0 and finite, got %.17g", h->mu);
    if (!(h->k_roll >= 0.0 && isfinite(h->k_roll)))
        return bad(msg, size, "hooke.k_roll: must be >= 0 and finite, got %.17g", h->k_roll);
    if (!(h->gamma_roll >= 0.0 && isfinite(h->gamma_roll)))
        return bad(msg, size, "hooke.gamma_roll: must be >= 0 and finite, got %.17g", h->gamma_roll);
    if (!(h->mu_roll >= 0.0 && isfinite(h->mu_roll)))
        return bad(msg, size, "hooke.mu_roll: must be >= 0 and finite, got %.17g", h->mu_roll);
    /* the slider's rescale divides by k_roll (LAMMPS's too) */
    if ((h->gamma_roll > 0.0 || h->mu_roll > 0.0) && !(h->k_roll > 0.0))
        return bad(msg, size, "hooke.k_roll: must be > 0 with gamma_roll or mu_roll (rolling resistance on), got %.17g",
                   h->k_roll);
    if (h->model != CR_DEM_HOOKE && h->model != CR_DEM_HERTZ)
        return bad(msg, size, "hooke.model: unknown value %d (CR_DEM_HOOKE or CR_DEM_HERTZ)", (int)h->model);
    /* only the DEM step can leave it out (rigid bodies' contacts need it) */
    if (!d->integrate_orientation && d->method != CR_METHOD_DEM)
        return bad(msg, size, "integrate_orientation: false only with method dem");
    const cr_periodic *p = &d->periodic;
    if (p->x || p->y || p->z) {
        if (d->method != CR_METHOD_DEM) return bad(msg, size, "periodic: only with method dem");
        const bool axis[3] = {p->x, p->y, p->z};
        const double lo[3] = {p->lo.x, p->lo.y, p->lo.z}, hi[3] = {p->hi.x, p->hi.y, p->hi.z};
        for (int k = 0; k < 3; ++k)
            if (axis[k] && !(isfinite(lo[k]) && isfinite(hi[k]) && hi[k] > lo[k]))
                return bad(msg, size, "periodic: %c needs finite lo < hi, got lo %.17g, hi %.17g", 'x' + k, lo[k], hi[k]);
    }
    return CR_OK;
}

cr_status cr_body_def_validate(const cr_body_def *d, char *msg, size_t size)
{
    if (!d || d->internal_magic != CR_MAGIC_BODY_DEF) {
        cr_msgf(msg, size, "body def: not made by cr_default_body_def()");
        return CR_ERR_UNINITIALIZED_DEF;
    }
    if (d->type != CR_BODY_DYNAMIC && d->type != CR_BODY_KINEMATIC && d->type != CR_BODY_STATIC)
        return bad(msg, size, "type: unknown value %d", (int)d->type);
    if (d->shape > CR_SHAPE_MESH) return bad(msg, size, "shape: unknown value %d", (int)d->shape);
    if (d->shape == CR_SHAPE_SPHERE) {
        if (d->shape_ref && cr_shape_get_type(d->shape_ref) != CR_SHAPE_SPHERE)
            return bad(msg, size, "shape_ref: a sphere body takes no box, hull or mesh shape");
        if (!(d->radius > 0.0 && isfinite(d->radius)))
            return bad(msg, size, "radius: must be > 0 and finite, got %.17g", d->radius);
        if (d->shape_ref && cr_shape_bounding_radius(d->shape_ref) != d->radius)
            return bad(msg, size, "radius: %.17g differs from the sphere shape's %.17g", d->radius,
                       cr_shape_bounding_radius(d->shape_ref));
    } else {
        if (!d->shape_ref) return bad(msg, size, "shape_ref: a box, hull or mesh body needs its shape");
        if (cr_shape_get_type(d->shape_ref) != d->shape)
            return bad(msg, size, "shape: %d does not match shape_ref's type %d", (int)d->shape,
                       (int)cr_shape_get_type(d->shape_ref));
    }
    if (!(d->density >= 0.0 && isfinite(d->density)))
        return bad(msg, size, "density: must be >= 0 and finite (0: use mass), got %.17g", d->density);
    if (d->density == 0.0 && !(d->mass > 0.0 && isfinite(d->mass)))
        return bad(msg, size, "mass: must be > 0 and finite, got %.17g", d->mass);
    if (d->inertia_kind > CR_INERTIA_CUSTOM) return bad(msg, size, "inertia: unknown kind %d", (int)d->inertia_kind);
    if (d->inertia_kind == CR_INERTIA_CUSTOM && !(d->inertia > 0.0 && isfinite(d->inertia)))
        return bad(msg, size, "inertia: must be > 0 and finite, got %.17g", d->inertia);
    if (!cr_v3_isfinite(d->position)) return bad(msg, size, "position: must be finite, got " VEC_FMT, VEC_ARG(d->position));
    if (!cr_v3_isfinite(d->velocity)) return bad(msg, size, "velocity: must be finite, got " VEC_FMT, VEC_ARG(d->velocity));
    if (!cr_v3_isfinite(d->angular_velocity))
        return bad(msg, size, "angular_velocity: must be finite, got " VEC_FMT, VEC_ARG(d->angular_velocity));
    double ql = sqrt(d->orientation.w * d->orientation.w + d->orientation.x * d->orientation.x +
                     d->orientation.y * d->orientation.y + d->orientation.z * d->orientation.z);
    if (!(fabs(ql - 1.0) < 1e-6))
        return bad(msg, size, "orientation: must be a unit quaternion, got length %.17g", ql);
    if (!(d->restitution >= 0.0 && d->restitution <= 1.0))
        return bad(msg, size, "restitution: must be in [0, 1], got %.17g", d->restitution);
    if (!(d->friction >= 0.0 && isfinite(d->friction)))
        return bad(msg, size, "friction: must be >= 0 and finite, got %.17g", d->friction);
    if (!(d->rolling_friction >= 0.0 && isfinite(d->rolling_friction)))
        return bad(msg, size, "rolling_friction: must be >= 0 and finite, got %.17g", d->rolling_friction);
    if (!(d->inner_radius >= 0.0 && d->inner_radius < d->radius))
        return bad(msg, size, "inner_radius: must be in [0, radius), got %.17g", d->inner_radius);
    return CR_OK;
}

cr_status cr_joint_def_validate(const cr_joint_def *d, char *msg, size_t size)
{
    if (!d || d->internal_magic != CR_MAGIC_JOINT_DEF) {
        cr_msgf(msg, size, "joint def: not made by cr_default_joint_def()");
        return CR_ERR_UNINITIALIZED_DEF;
    }
    if (d->type > CR_JOINT_DISTANCE) return bad(msg, size, "type: unknown value %d", (int)d->type);
    if (!cr_v3_isfinite(d->anchor)) return bad(msg, size, "anchor: must be finite, got " VEC_FMT, VEC_ARG(d->anchor));
    if (!cr_v3_isfinite(d->anchor_b))
        return bad(msg, size, "anchor_b: must be finite, got " VEC_FMT, VEC_ARG(d->anchor_b));
    double l = cr_v3_len(d->axis);
    if (d->type == CR_JOINT_HINGE && !(l > 0.0 && isfinite(l)))
        return bad(msg, size, "axis: must be non-zero and finite, got " VEC_FMT, VEC_ARG(d->axis));
    if (!isfinite(d->length)) return bad(msg, size, "length: must be finite (< 0: the current distance), got %.17g", d->length);
    return CR_OK;
}

cr_status cr_plane_def_validate(const cr_plane_def *d, char *msg, size_t size)
{
    if (!d || d->internal_magic != CR_MAGIC_PLANE_DEF) {
        cr_msgf(msg, size, "plane def: not made by cr_default_plane_def()");
        return CR_ERR_UNINITIALIZED_DEF;
    }
    if (!cr_v3_isfinite(d->point)) return bad(msg, size, "point: must be finite, got " VEC_FMT, VEC_ARG(d->point));
    double l = cr_v3_len(d->normal);
    if (!(l > 0.0 && isfinite(l)))
        return bad(msg, size, "normal: must be non-zero and finite, got " VEC_FMT, VEC_ARG(d->normal));
    if (!(d->restitution >= 0.0 && d->restitution <= 1.0))
        return bad(msg, size, "restitution: must be in [0, 1], got %.17g", d->restitution);
    if (!(d->friction >= 0.0 && isfinite(d->friction)))
        return bad(msg, size, "friction: must be >= 0 and finite, got %.17g", d->friction);
    return CR_OK;
}
