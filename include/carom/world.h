/* carom — the world: bodies, statics and the staged step.
 *
 * A world owns every object in it. Objects are created from defs filled by a
 * default function and then adjusted, so that a def that was never
 * initialised is caught (CR_ERR_UNINITIALIZED_DEF) instead of read as junk.
 */
#ifndef CAROM_WORLD_H
#define CAROM_WORLD_H

#include "carom/types.h"

struct cr_surface_def;
struct cr_surface;

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cr_world cr_world;

/* One impact the step resolved, reported after its impulse was applied.
 * For a body–static impact, b is the null id and static_id names the plane. */
typedef struct cr_impact {
    double time;                 /* world time of the impact */
    cr_body_id a, b;
    cr_static_id static_id;
    cr_vec3 normal;              /* unit, from b (or the plane) towards a */
    cr_vec3 impulse;             /* acting on a; -impulse acts on b */
    cr_vec3 va_before, va_after; /* a's centre velocity */
    cr_vec3 vb_before, vb_after; /* b's centre velocity (zero for statics) */
    double normal_speed;         /* relative normal speed before, < 0 when approaching */
} cr_impact;

typedef void cr_impact_fn(const cr_impact *impact, void *ctx);
typedef void *cr_alloc_fn(size_t size, void *ctx);
typedef void cr_free_fn(void *ptr, void *ctx);

/* Task system (as Box2D v3's): carom hands parallel work to the
 * application as items [0, item_count); the scheduler calls task on
 * sub-ranges [start, end) from any threads (worker < worker_count), and
 * finish_task waits until every item is done. enqueue_task may run the
 * task itself and return NULL (then finish_task is not called). min_range
 * is the smallest sub-range worth a thread. carom's results never depend on
 * how the items are split or on the number of workers: every item writes
 * its own data and the sums are made in a fixed order. Used by
 * CR_METHOD_DEM. */
typedef void cr_task_fn(uint32_t start, uint32_t end, uint32_t worker, void *task_ctx);
typedef void *cr_enqueue_task_fn(cr_task_fn *task, uint32_t item_count, uint32_t min_range, void *task_ctx,
                                 void *user_ctx);
typedef void cr_finish_task_fn(void *user_task, void *user_ctx);

/* Which spring-dashpot law CR_METHOD_DEM applies (cr_hooke.model). */
typedef enum cr_dem_model {
    CR_DEM_HOOKE = 0, /* LAMMPS pair gran/hooke/history (the default) */
    CR_DEM_HERTZ      /* LAMMPS pair gran/hooke/history's every term times
                         sqrt(delta R*): pair gran/hertz/history */
} cr_dem_model;

/* The spring-dashpot law of CR_METHOD_DEM (LAMMPS pair gran/hooke/history,
 * docs/physics.md "DEM"): for two spheres overlapping by delta, with
 * m_eff = m_a m_b / (m_a + m_b) (the other's mass when one is kinematic),
 *   F_n = kn delta n - m_eff gamma_n v_n,
 *   F_t = -(kt s + m_eff gamma_t v_t), |F_t| <= mu |F_n| (s rescaled to fit),
 * s the shear displacement accumulated while the pair touches. With model
 * CR_DEM_HERTZ (LAMMPS pair gran/hertz/history) both forces are multiplied
 * by sqrt(delta R*), R* = r_a r_b / (r_a + r_b):
 *   F_n = sqrt(delta R*) (kn delta n - m_eff gamma_n v_n),
 *   F_t = -sqrt(delta R*) (kt s + m_eff gamma_t v_t), the same Coulomb cap;
 * kn is then in N/m^2 (LJ: force/distance^2). The same values hold at every
 * contact (bodies' restitution and friction are not used). */
typedef struct cr_hooke {
    double kn;                  /* normal stiffness, N/m (LJ: force/distance), > 0 with DEM */
    double kt;                  /* tangential stiffness, >= 0 (LAMMPS's NULL: 2/7 kn) */
    double gamma_n, gamma_t;    /* damping rates, 1/s, >= 0 (scaled by m_eff) */
    double mu;                  /* Coulomb coefficient, >= 0 */
    cr_dem_model model;         /* CR_DEM_HOOKE (default) or CR_DEM_HERTZ */
    /* Rolling resistance, LAMMPS pair granular's "rolling sds k_roll
     * gamma_roll mu_roll" (src/dem_rolling.h, docs/physics.md "DEM"): per
     * contact a rolling displacement xi_r, advanced by
     * v_roll = R* (w_a - w_b) x n, and F_roll = -(k_roll xi_r + gamma_roll
     * v_roll), |F_roll| <= mu_roll |F_n| (xi_r rescaled to fit); torque
     * R* n x F_roll on a, its negation on b. All 0 (default): off. */
    double k_roll;              /* N/m, >= 0; > 0 turns it on (then needed) */
    double gamma_roll;          /* N s/m, >= 0 (not scaled by the mass) */
    double mu_roll;             /* >= 0 */
} cr_hooke;

/* Periodic boundaries (CR_METHOD_DEM only): along each flagged axis the
 * world repeats with period hi - lo. Centres are wrapped into [lo, hi) at
 * the end of each step; contacts across the boundary use the minimum image.
 * Each periodic extent must hold at least 3 neighbour-cutoffs for the grid
 * (smaller boxes fall back to testing all pairs). Default: none. */
typedef struct cr_periodic {
    bool x, y, z;
    cr_vec3 lo, hi;
} cr_periodic;

typedef struct cr_world_def {
    cr_vec3 gravity;            /* m/s^2, default (0, 0, -9.81) */
    double dt;                  /* step, s, > 0; default 1e-3 */
    cr_method method;           /* default CR_METHOD_IMPULSE */
    cr_law law;                 /* impact law; default CR_LAW_NEWTON */
    double k_p;                 /* position projection factor in [0, 1] (seed 000 eq. 5.27); default 0.8 */
    double toi_tolerance;       /* collision-time tolerance epsilon, m (seed 001 §3.3); default 1e-9 */
    double resting_speed;       /* |v_n| below this is resting contact, not an impact
                                   (seed 000 b.2); < 0 means automatic: 2 |g| dt */
    int solver_iterations;      /* Gauss-Seidel passes over touching contacts; default 10 */
    int projection_passes;      /* sphere worlds (impulse, event): passes of the position projection over
                                   overlapping pairs, in [1, 1000]; 1 (default) is seed 000's
                                   single pass, more stop early once no overlap exceeds 0.1% r; a
                                   world with surfaces runs at least 16 (docs/physics.md) */
    bool projection_shock;      /* with projection_passes > 1: the extra passes run from the ground up
                                   and a pair stacked one above the other moves only its upper ball
                                   (shock propagation; docs/physics.md step 5); default false */
    int max_events_per_body;    /* impacts per body per step before the rest are deferred
                                   (inelastic collapse guard; the event method still resolves
                                   them, and stops predicting the body past 4 times it);
                                   default 64 */
    cr_hooke hooke;             /* CR_METHOD_DEM's contact law; default all 0 */
    cr_periodic periodic;       /* default off */
    bool integrate_orientation; /* method dem: turn each body's orientation by its spin every step
                                   (default true); false leaves orientations as they were given and
                                   saves the step that work (the law never reads them; LAMMPS's
                                   atom_style sphere keeps none); other methods need true */
    cr_collision_order collision_order; /* rigid-body worlds: default CR_ORDER_ROUNDS (seed 003) */
    double sleep_time;          /* rigid-body and event-method worlds: an island whose bodies all stayed
                                   slower than sleep_speed this long sleeps until touched; 0 (default):
                                   never. Event method (balls on surfaces, flying balls, planes): an
                                   island is the balls touching at the step's end; it wakes whole when
                                   an awake moving body's box overlaps it at the step's start, when an
                                   impact meets one of its balls (that ball at once, the island at the
                                   step's end), or when a ball's state is set or it is removed
                                   (docs/physics.md "Sleeping balls"). The impulse method's sphere
                                   worlds (no polyhedra, joints or substeps) never sleep */
    double sleep_speed;         /* m/s, speed of a point at the bounding radius (centre speed plus spin
                                   times radius; a flying ball leaning on balls on surfaces: its centre
                                   only, nothing brakes its spin there); default 0.01 */
    int pgs_iterations;         /* rigid-body worlds: Gauss-Seidel passes of the contact solve for
                                   islands too big for the direct method; in [1, 100000], default 50 */
    int drift_iterations;       /* rigid-body worlds: Gauss-Seidel passes of the drift correction
                                   (overlaps taken out at position level) for islands too big for
                                   the direct method; in [1, 100000], default 50 */
    double drift_tolerance;     /* m: the drift correction's Gauss-Seidel stops after a pass that moved no
                                   contact by more than this along its normal, before drift_iterations;
                                   >= 0 and finite, 0: every pass; default 1e-5 */
    double drift_max_speed;     /* m/s: the drift correction moves an overlapping contact apart by at most
                                   this times dt a step (k_p of the overlap below that); >= 0 and finite,
                                   0: no cap; default 1 */
    int rigid_substeps;         /* 0 (default): rigid-body worlds solve contact with seed 003's
                                   multiplier system, worlds of spheres only with `method`; S in
                                   [1, 64]: every world (spheres only too) steps through the rigid
                                   pipeline with the sub-stepped soft contact solver (Box2D v3's
                                   soft step: contacts found once per step, S substeps of dt/S,
                                   each one Gauss-Seidel pass with a soft position bias and one
                                   relax pass; spheres only: a path of its own, friction in a
                                   cone). No joints (refused at the step), no parametric surfaces
                                   (refused when added); method and law are not used;
                                   docs/physics/substep.md */
    int substep_iterations;     /* rigid_substeps > 0: Gauss-Seidel passes with the soft bias in
                                   each substep, in [1, 1000], default 1 (then one relax pass) */
    double contact_hertz;       /* rigid_substeps > 0: contact stiffness as a frequency, Hz, > 0
                                   (default 120; capped at a quarter of the substep rate; twice
                                   this against static, kinematic and sleeping bodies) */
    double contact_damping_ratio; /* rigid_substeps > 0: the soft contact's damping ratio, >= 0
                                     (default 10) */
    cr_impact_fn *on_impact;    /* optional: called for every resolved impact (not with DEM) */
    void *callback_ctx;
    cr_alloc_fn *alloc;         /* optional allocator; default malloc/free */
    cr_free_fn *free;
    void *alloc_ctx;
    /* threads (CR_METHOD_DEM's steps, the rigid-body narrow phase):
     * worker_count in [1, 64], default 1. With
     * enqueue_task and finish_task set, carom's parallel work goes to them;
     * with both NULL and worker_count > 1, carom starts worker_count - 1
     * threads of its own (pthreads; none in a build without them, where the
     * work runs on the caller's thread). Same results either way. */
    uint32_t worker_count;
    cr_enqueue_task_fn *enqueue_task;
    cr_finish_task_fn *finish_task;
    void *user_task_context;
    uint32_t internal_magic;    /* set by cr_default_world_def; do not touch */
} cr_world_def;

typedef struct cr_body_def {
    cr_body_type type;
    cr_shape_type shape;        /* CR_SHAPE_SPHERE uses radius; the others need shape_ref */
    double radius;              /* m, > 0 (spheres) */
    struct cr_shape *shape_ref; /* a box, hull or mesh (carom/shape.h); the world keeps a reference */
    double mass;                /* kg, > 0 */
    double density;             /* kg/m^3; > 0: mass = density x the shape's volume (mass ignored) */
    cr_inertia_kind inertia_kind;
    double inertia;             /* kg m^2, with CR_INERTIA_CUSTOM only */
    cr_vec3 position, velocity, angular_velocity; /* position: the centre of mass */
    cr_quat orientation;
    double restitution;         /* in [0, 1]; a contact uses the product of both sides */
    double friction;            /* >= 0; a contact uses the product of both sides */
    double rolling_friction;    /* nu_b >= 0, default 0: on surfaces seed 004 eq. 11's; in a
                                   rigid-body world the rolling and spin resistance of the body's
                                   contacts, a torque of at most (nu_a + nu_b) R* N (docs/physics/
                                   substep.md, "Rolling resistance"); ignored by method dem (which
                                   takes cr_hooke's k_roll, gamma_roll, mu_roll) and,
                                   against planes, by the particle methods */
    double inner_radius;        /* CR_INERTIA_HOLLOW: in [0, radius); 0 is a thin shell */
    void *user_data;
    uint32_t internal_magic;
} cr_body_def;

typedef struct cr_plane_def {
    cr_vec3 point;              /* any point on the plane */
    cr_vec3 normal;             /* towards the free side; the other side is solid */
    double restitution;         /* default 1: the body's own coefficient decides */
    double friction;            /* default 1 */
    uint32_t internal_magic;
} cr_plane_def;

/* A joint between body a and body b, or between a and the fixed world when b
 * is the null id. The anchor (and axis) are given in world coordinates at
 * the bodies' current poses; the world keeps them in each body's frame. */
typedef struct cr_joint_def {
    cr_joint_type type;
    cr_body_id a, b;
    cr_vec3 anchor;             /* world point the joint holds together (BALL, HINGE, FIXED) */
    cr_vec3 anchor_b;           /* DISTANCE: b's anchor (a's is anchor) */
    cr_vec3 axis;               /* HINGE: the turning axis, non-zero */
    double length;              /* DISTANCE: < 0 means the anchors' current distance */
    bool collide;               /* default false: a and b make no contacts with each other (the
                                   pair is dropped before the narrow phase, as Box2D's
                                   collideConnected, Bullet's disableCollisionsBetweenLinkedBodies);
                                   true: they collide as any two bodies. A joint to the world
                                   filters nothing (docs/physics/rigid.md, "Jointed pairs") */
    uint32_t internal_magic;
} cr_joint_def;

cr_world_def cr_default_world_def(void);
cr_body_def cr_default_body_def(void);
cr_plane_def cr_default_plane_def(void);
cr_joint_def cr_default_joint_def(void);

/* Checks a def without creating anything; on failure *message (if given)
 * says which field is wrong and its value. */
cr_status cr_world_def_validate(const cr_world_def *def, char *message, size_t message_size);
cr_status cr_body_def_validate(const cr_body_def *def, char *message, size_t message_size);
cr_status cr_plane_def_validate(const cr_plane_def *def, char *message, size_t message_size);
cr_status cr_joint_def_validate(const cr_joint_def *def, char *message, size_t message_size);

cr_status cr_world_create(const cr_world_def *def, cr_world **out);
/* Frees the world and everything in it. From inside the world's own callback
 * it does nothing (the step is still running) and sets the last error. */
void cr_world_destroy(cr_world *world);

/* The message of the last failed call on this world ("" if none). */
const char *cr_world_last_error(const cr_world *world);

cr_status cr_world_add_body(cr_world *world, const cr_body_def *def, cr_body_id *out);
cr_status cr_world_remove_body(cr_world *world, cr_body_id id);
cr_status cr_world_add_plane(cr_world *world, const cr_plane_def *def, cr_static_id *out);
/* Adds a parametric surface (carom/surface.h). Fails, naming the place, when
 * a principal curvature towards the free side is sharper than the largest
 * ball already in the world (seed 004's restriction, k r < 1); balls added
 * later are checked against every surface too. */
cr_status cr_world_add_surface(cr_world *world, const struct cr_surface_def *def, cr_static_id *out);
uint32_t cr_world_surface_count(const cr_world *world);
const struct cr_surface *cr_world_surface(const cr_world *world, uint32_t index);
/* Which of the four states of seed 004 a ball is in, and on which surface
 * (type CR_STATIC_SURFACE; generation 0 when flying). */
cr_status cr_body_get_ball_state(const cr_world *world, cr_body_id id, cr_ball_state *state, cr_static_id *surface);

bool cr_body_is_valid(const cr_world *world, cr_body_id id);
/* Bodies in slot order: slot i holds the i-th body added while none was
 * removed. Returns the null id for a free slot or i >= capacity. */
uint32_t cr_world_body_capacity(const cr_world *world);
cr_body_id cr_world_body_at(const cr_world *world, uint32_t slot);
uint32_t cr_world_body_count(const cr_world *world);
uint32_t cr_world_plane_count(const cr_world *world);

typedef struct cr_body_state {
    cr_vec3 position, velocity, angular_velocity;
    cr_quat orientation;
} cr_body_state;

/* With method dem the first read after a step also writes the step's state
 * into the world (src/dem.c cr_dem_sync): do not read one DEM world from two
 * threads at once. */
cr_status cr_body_get_state(const cr_world *world, cr_body_id id, cr_body_state *out);
/* The body's mass and its inertia tensor about the centre of mass, in the
 * world frame at its current orientation (zero inverse for static and
 * kinematic bodies). */
cr_status cr_body_get_inertia(const cr_world *world, cr_body_id id, double *mass, cr_mat3 *inertia_world);

/* ---- rigid bodies: joints and contacts (seed 003) ------------------------
 * A world holding a box, hull or mesh body, or a joint, steps as a rigid-body
 * world: every body (spheres too) goes through seed 003's multiplier system
 * (docs/physics/rigid.md). Such a world takes no parametric surfaces and
 * only the impulse method. */
cr_status cr_world_add_joint(cr_world *world, const cr_joint_def *def, cr_joint_id *out);
cr_status cr_world_remove_joint(cr_world *world, cr_joint_id id);
uint32_t cr_world_joint_count(const cr_world *world);
/* How far a joint is from holding: the anchors' distance (BALL, HINGE,
 * FIXED), or |distance - length| (DISTANCE), m. */
cr_status cr_joint_get_error(const cr_world *world, cr_joint_id id, double *error);

/* A contact point of the last step, with the impulses that acted at it
 * (force = impulse / dt for resting contact). */
typedef struct cr_contact_report {
    cr_body_id a, b;             /* b null for a plane (static_id names it) */
    cr_static_id static_id;
    cr_vec3 point, normal;       /* normal from b (or the plane) towards a */
    double separation;           /* < 0 overlapping, at the step's start */
    double normal_impulse;       /* >= 0, resting and colliding phases together */
    cr_vec3 friction_impulse;    /* acting on a, in the contact plane */
} cr_contact_report;
uint32_t cr_world_contact_count(const cr_world *world);
/* Whether a body sleeps (def.sleep_time > 0): it keeps its pose, costs
 * nothing, and wakes with its island when an awake body touches it, a joint
 * is added to it, or its state is set. */
bool cr_body_is_asleep(const cr_world *world, cr_body_id id);
cr_status cr_world_get_contact(const cr_world *world, uint32_t k, cr_contact_report *out);
cr_status cr_body_set_state(cr_world *world, cr_body_id id, const cr_body_state *state);
cr_status cr_body_get_def(const cr_world *world, cr_body_id id, cr_body_def *out);
cr_status cr_plane_get_def(const cr_world *world, cr_static_id id, cr_plane_def *out);

/* Advances the world by def.dt. On CR_ERR_NON_FINITE the world names the body
 * in cr_world_last_error and refuses further steps. */
cr_status cr_world_step(cr_world *world);
/* Optional: does now the set-up that the next step would otherwise begin
 * with, so that the step's own time is only the step's. Method dem: gathers
 * and sorts the bodies, builds the neighbour list and evaluates the forces
 * of the current state (LAMMPS's set-up before a run, which its "Loop time"
 * leaves out); the steps that follow give the same numbers as without it.
 * Another change to the world (a body added, removed or set) undoes it.
 * Other methods: nothing to do. */
cr_status cr_world_prepare(cr_world *world);
double cr_world_time(const cr_world *world);
/* Changes the step for the next steps: seed 004 Algorithm 1's global step
 * that follows the computation time (each step as long as the last one took
 * to compute). dt must be > 0 and finite; an automatic resting speed follows
 * it. Time then adds up step by step. */
cr_status cr_world_set_dt(cr_world *world, double dt);
uint64_t cr_world_step_count(const cr_world *world);
const cr_world_def *cr_world_get_def(const cr_world *world);

typedef struct cr_energy {
    double kinetic;   /* translational + rotational */
    double potential; /* -m g . x, zero at the origin */
    double total;
    cr_vec3 momentum;
    cr_vec3 angular_momentum; /* about the origin */
} cr_energy;
cr_energy cr_world_energy(const cr_world *world);

/* Figures of the last step (and running totals), for benchmarks and users. */
enum { CR_STAGE_PREDICT, CR_STAGE_BROAD_PHASE, CR_STAGE_CONTACTS, CR_STAGE_EVENTS,
       CR_STAGE_FINISH, CR_STAGE_COUNT };
typedef struct cr_step_stats {
    uint32_t candidate_pairs;   /* broad-phase pairs */
    uint32_t contacts;          /* touching contacts solved */
    uint32_t events;            /* impacts resolved as time-ordered events */
    uint32_t events_deferred;   /* impacts over max_events_per_body (event method: resolved,
                                   also in events) */
    uint32_t projection_passes; /* position projection passes run (sphere worlds) */
    double max_penetration;     /* deepest overlap left at the end of the step, m */
    double stage_seconds[CR_STAGE_COUNT];
    uint64_t total_contacts, total_events;
    uint64_t law_fallbacks;     /* stronge impacts that fell back to Newton's law (running total) */
    uint64_t lcp_fallbacks;     /* rigid-body worlds: islands of the direct method whose active set cycled or
                                 * hit its bound (running total, contact solves and drift correction) */
    uint64_t lcp_inexact;       /* of those, the ones not solved by Lemke's method, finished by Gauss-Seidel
                                 * from the nearest point met (running total; the world does not use Lemke's
                                 * method yet, docs/physics/contact-lagrange.md, so all of them) */
    double mean_closest_iterations; /* closest-point Newton iterations per call, all steps */
    uint32_t sleeping;          /* rigid-body and event-method worlds: bodies asleep after the step */
    uint32_t carried_contacts;  /* rigid-body worlds: contacts of manifolds carried over from an earlier
                                 * step (resting pairs of hulls), not found afresh */
    /* event method with surfaces on threads: the step's events taken in
     * independent groups of bodies (same results as one time-ordered loop) */
    uint32_t event_groups;       /* groups that had events */
    uint32_t event_group_largest; /* bodies in the largest of them */
    uint32_t event_groups_rerun; /* groups run again (they met another group, were met by one, or ran
                                  * out of room on a worker); with several workers the count
                                  * depends on their timing, the results do not */
} cr_step_stats;
const cr_step_stats *cr_world_stats(const cr_world *world);
const char *cr_stage_name(int stage);

/* The deepest overlap between two bodies or a body and a plane right now;
 * *a, *b name the pair (b null for a plane). Uses the broad phase: O(n).
 * In a rigid-body world: the deepest of the last step's contacts, measured
 * at the bodies' present poses (polyhedra are not their bounding spheres).
 * NaN (and CR_ERR_REENTRANT in the last error) from inside a callback. */
double cr_world_max_overlap(cr_world *world, cr_body_id *a, cr_body_id *b);

#ifdef __cplusplus
}
#endif
#endif
