/* carom — definitions, ids and enums shared by the whole public API. */
#ifndef CAROM_TYPES_H
#define CAROM_TYPES_H

#include <stddef.h>
#include <stdint.h>

#include "carom/math.h"

/* Status of every public function that can fail. The world keeps a message
 * naming the culprit (cr_world_last_error). */
typedef enum cr_status {
    CR_OK = 0,
    CR_ERR_INVALID_ARGUMENT, /* a def or argument is out of range, NaN, ... */
    CR_ERR_UNINITIALIZED_DEF, /* a def was not made by its cr_default_*_def() */
    CR_ERR_STALE_ID,         /* an id whose object was removed (or never existed) */
    CR_ERR_OUT_OF_MEMORY,
    CR_ERR_NON_FINITE,       /* the simulation produced a non-finite value; the world stopped */
    CR_ERR_REENTRANT         /* a world function called from inside the world's own callback */
} cr_status;

const char *cr_status_string(cr_status s);

/* Objects are named by ids passed by value: a slot index and a generation.
 * Generation 0 is never used, so a zeroed id is the null id and a removed
 * object's id is caught as stale (DESIGN: conventions, after Box2D v3). */
typedef struct cr_body_id { uint32_t index, generation; } cr_body_id;

/* Body shapes (include/carom/shape.h): spheres are the balls and particles
 * of seeds 000-004; boxes, convex hulls and closed triangle meshes are the
 * polyhedral rigid bodies of seed 003. */
typedef enum cr_shape_type { CR_SHAPE_SPHERE = 0, CR_SHAPE_BOX, CR_SHAPE_HULL, CR_SHAPE_MESH } cr_shape_type;
typedef enum cr_static_type { CR_STATIC_PLANE = 0, CR_STATIC_SURFACE } cr_static_type;
/* A static: a plane (type CR_STATIC_PLANE) or a surface, each numbered from 0. */
typedef struct cr_static_id { uint32_t index, generation; cr_static_type type; } cr_static_id;

/* The four states of a ball on a surface (seed 004 §2). A ball that touches
 * no surface is flying. */
typedef enum cr_ball_state {
    CR_BALL_FLYING = 0,
    CR_BALL_ROLLING,  /* the contact point does not move */
    CR_BALL_SLIDING,  /* the contact point slides; friction at |R|max */
    CR_BALL_STILL     /* lying still */
} cr_ball_state;

/* How a sphere turns (seed 000/001 particles do not; seed 004 balls do). */
typedef enum cr_inertia_kind {
    CR_INERTIA_PARTICLE = 0, /* no rotational degree of freedom */
    CR_INERTIA_SOLID,        /* I = 2/5 m r^2 */
    CR_INERTIA_HOLLOW,       /* hollow: seed 004 eq. 17 with the body's inner radius;
                                a thin shell (I = 2/3 m r^2) when that is 0 */
    CR_INERTIA_CUSTOM        /* I given in cr_body_def.inertia */
} cr_inertia_kind;

typedef enum cr_body_type {
    CR_BODY_DYNAMIC = 0,  /* moved by forces and impulses */
    CR_BODY_KINEMATIC,    /* moved by its velocity only (the user sets it): infinite mass to others */
    CR_BODY_STATIC        /* never moves: infinite mass, velocity zero */
} cr_body_type;

/* Joints between rigid bodies (seed 003: "real" constraints solved in the
 * same system as the contacts). */
typedef enum cr_joint_type {
    CR_JOINT_BALL = 0,    /* ball and socket: the anchor points coincide */
    CR_JOINT_HINGE,       /* ball and socket, and the bodies turn only about the axis */
    CR_JOINT_FIXED,       /* no relative motion */
    CR_JOINT_DISTANCE     /* the anchor points keep their distance */
} cr_joint_type;
typedef struct cr_joint_id { uint32_t index, generation; } cr_joint_id;

/* Which regime the step uses (DESIGN: "plan for both from the start").
 * IMPULSE: fixed step, seed 000 impulses and position projection for bodies
 *   that touch, time-of-impact events for bodies that meet inside the step.
 * EVENT:   exact ballistic motion between time-ordered impacts (seed 004 §5-9);
 *   exact for gases and bouncing, not meant for dense piles.
 * DEM:     soft spheres: a spring-dashpot contact force with tangential
 *   history (LAMMPS gran/hooke/history or gran/hertz/history,
 *   cr_world_def.hooke) and velocity
 *   Verlet (LAMMPS fix nve/sphere); spheres only, no planes or surfaces.
 *   The only method that supports periodic boundaries. */
typedef enum cr_method { CR_METHOD_IMPULSE = 0, CR_METHOD_EVENT, CR_METHOD_DEM } cr_method;

/* The law that turns one impacting contact into an impulse.
 * NEWTON:  seeds 000/001, restitution and clipped Coulomb friction;
 * STRONGE: seed 002, the exact frictional impulse;
 * ROLLING: seed 004 eq. 49-56 for ball-ball impacts: frictionless and central,
 *          a ball rolling on a surface weighing m + I/r^2 (its spin follows);
 *          Newton's law for every other contact. */
typedef enum cr_law { CR_LAW_NEWTON = 0, CR_LAW_STRONGE, CR_LAW_ROLLING } cr_law;

/* Which contacts a round of seed 003's colliding contact takes together
 * (rigid-body worlds; docs/physics/rigid.md, Newton's cradle).
 * ROUNDS:       the colliding ones (c-dot < 0), as the seed writes it; a
 *               contact that merely touches joins a later round once it
 *               collides, so an impact runs down a row of touching bodies
 *               one contact at a time (the cradle's last ball flies off).
 * SIMULTANEOUS: the colliding ones and every touching one in one system
 *               (a touching contact may not close): the row moves off
 *               together, momentum and (e = 1) energy kept. */
typedef enum cr_collision_order { CR_ORDER_ROUNDS = 0, CR_ORDER_SIMULTANEOUS } cr_collision_order;

#endif
