/* Internal layout of cr_world, shared by the stage files. Not public. */
#ifndef CAROM_WORLD_INTERNAL_H
#define CAROM_WORLD_INTERNAL_H

#include <stdio.h>

#include "carom/carom.h"
#include "broad_phase.h"
#include "event_queue.h"

#define CR_MAGIC_WORLD_DEF 0x43525744u
#define CR_MAGIC_BODY_DEF 0x43524244u
#define CR_MAGIC_PLANE_DEF 0x43525044u
#define CR_MAGIC_JOINT_DEF 0x43524a44u

/* A touching contact solved at velocity level in the impulse method. */
typedef struct cr_contact {
    uint32_t a, b;        /* body slots; b = plane index when is_plane */
    bool is_plane;
    cr_vec3 n;            /* from b towards a */
    double gap;           /* < 0 overlapping, > 0 apart (within the contact margin) */
    double restitution, friction;
    double vn0;           /* normal velocity when the solve began */
    double knn, ktt;      /* effective inverse masses, normal and tangential */
    double jn;            /* accumulated normal impulse */
    cr_vec3 jt;           /* accumulated friction impulse */
    double ra, rb;        /* radii (rb = 0 for a plane) */
    double ima, imb;      /* inverse masses */
    double iia, iib;      /* inverse moments of inertia */
} cr_contact;

/* The contact solver's row of a resting contact, and its view of a body
 * (contact_solve.c). */
typedef struct cr_contact_row {
    cr_vec3 n;
    double target;        /* v_n' >= target: 0 touching, -gap/dt apart */
    double inv_knn;       /* 1 / effective inverse mass along n */
    double neg_inv_ktt;   /* -1/k_tt; 0: no friction */
    double mu;
    double jn;            /* accumulated impulses */
    cr_vec3 jt;
    uint32_t a, b;        /* body slots; b = slot_count (the ground) for a plane */
} cr_contact_row;
typedef struct cr_solver_body {
    cr_vec3 v, w;         /* velocity and spin during the solve */
    double r, im, spin;   /* radius, 1/m, -r/I */
} cr_solver_body;

/* A row of the projection's extra passes (projection.c). */
typedef struct cr_projection_row {
    uint32_t i, j;        /* bodies; j = plane index | top bit for a plane */
    double ki, kj;        /* k_p m_red of each side (seed 000 eq. B.18) */
    double ri, rj;        /* radii */
} cr_projection_row;

/* Directions a ball leans on this step: a ball on a surface on other balls
 * and walls, a flying ball (event method) on balls bound to a surface. Its
 * plan may not accelerate or move into them (seed 001 §3.2's resting
 * contact force, released when it would pull). */
#define CR_REST_MAX 6
typedef struct cr_rest_set {
    uint32_t count;
    /* bit k: the ball's present plan holds its velocity out of n[k] (it
     * approached it no faster than resting: cr_rest_slow), what the events
     * then count as resting (cr_rest_holds); set by each plan */
    uint32_t held;
    cr_vec3 n[CR_REST_MAX]; /* unit, pointing away from what it leans on */
    /* what n[k] leans on: a body's slot, or a plane's index | CR_REST_PLANE
     * (cr_rest_add: one direction per contact) */
    uint32_t on[CR_REST_MAX];
} cr_rest_set;
/* A rest direction's plane (cr_rest_set.on): its index with this bit. */
#define CR_REST_PLANE 0x80000000u

/* Bodies are stored as structure of arrays, indexed by slot. A field the
 * events loop changes must be in event_groups.c's CR_EVENT_BODY_STATE
 * (a group run again starts from the bodies it kept). */
typedef struct cr_bodies {
    uint32_t capacity, slot_count, live_count;
    uint32_t *generation;       /* odd: alive; even: free (never 0 for a live one) */
    uint32_t *free_slots, free_count;
    uint8_t *type, *inertia_kind;
    cr_vec3 *x, *v, *w;
    cr_quat *q;
    double *mass, *inv_mass, *inertia, *inv_inertia, *radius, *restitution, *friction;
    void **user_data;
    double *rolling_friction;   /* nu_b (seed 004 eq. 11) */
    double *inner_radius;       /* hollow balls (seed 004 eq. 17); 0: thin shell or solid */
    /* ball-on-surface state (seed 004 §2) */
    uint32_t *surface;          /* surface index the ball is on; CR_NO_SURFACE when free */
    uint8_t *ball_state;        /* cr_ball_state */
    double *su, *sv;            /* the closest point's warm start: the last search's anchor (cr_closest) */
    /* per-step plan: x(t) = x + vpath h + acc h^2 / 2, v(t) = v + dvel h,
     * w(t) = w + alpha h, with h = t - t_local. A free body has vpath = v and
     * dvel = acc; a ball on a surface moves along the chord of its step
     * (seed 004 eq. 44's step vector) with acc = 0. */
    cr_vec3 *acc, *alpha;
    cr_vec3 *vpath, *dvel;
    double *t_state;            /* a state change of a surface ball planned at this time (INFINITY: none) */
    uint8_t *energy_on;         /* seed 004 eq. 43 sets the speed along the plan */
    uint8_t *replanned;         /* planned again after the broad phase: 1 events ask the grid,
                                   2 the new path stayed inside the body's box */
    cr_rest_set *rest;          /* what a ball leans on this step (cr_rest_set) */
    double *energy_before;      /* a surface ball's energy before the end-of-step corrections */
    cr_vec3 *energy_acc;        /* ... from this effective acceleration and drag:        */
    double *energy_drag;        /* |v|^2 = |v0|^2 + 2 (a.d - drag |d|)                   */
    double *t_local;            /* time inside the step the state refers to */
    cr_vec3 *x_before;          /* a surface world's ball: where the step's advance took it from */
    /* where a surface ball's plan ends at the step's end, when it does
     * (plan_end_on): the position the step's advance gives, and the closest
     * point the moving algorithm put it on there (its normal, and its
     * search's anchor, the next search's warm start) */
    cr_vec3 *plan_end_x, *plan_end_n;
    double *plan_end_u, *plan_end_v;
    uint8_t *plan_end_on;
    uint32_t *stamp;            /* bumped at every event: older predictions are stale */
    uint32_t *events;           /* impacts this step (inelastic collapse guard) */
    uint32_t *visit;            /* query dedupe marks */
    /* rigid bodies (seed 003): the shape (NULL for a sphere without one) and
     * the inertia tensor about the centre of mass in the body frame */
    struct cr_shape **shape;
    cr_mat3 *inertia_local, *inv_inertia_local;
    /* rigid-body sleeping: time spent still, asleep, and the island it was
     * in when it fell asleep (wakes together) */
    double *still;
    uint8_t *asleep;
    uint32_t *island;
    /* ball sleeping (event method, ball_sleep.c): the next member of a
     * sleeping island, a ring through its balls, so that waking costs the
     * island, not the world; UINT32_MAX: in no sleeping island */
    uint32_t *island_next;
} cr_bodies;

#define CR_NO_SURFACE UINT32_MAX

typedef struct cr_surfaces {
    uint32_t count, capacity;
    cr_surface **surface;
} cr_surfaces;

typedef struct cr_planes {
    uint32_t count, capacity;
    cr_plane_def *def;          /* normal stored unit length */
    uint32_t *generation;
} cr_planes;

typedef struct cr_dem cr_dem; /* dem.c: CR_METHOD_DEM's forces, list and history */

struct cr_world {
    cr_world_def def;
    cr_dem *dem;                /* CR_METHOD_DEM only; created by the first step */
    double resting_speed;       /* resolved from def.resting_speed */
    cr_bodies bodies;
    cr_planes planes;
    cr_surfaces surfaces;
    double closest_iterations;  /* running total, for the mean */
    uint64_t closest_calls;
    cr_broad_phase broad;
    cr_event_queue queue;
    struct cr_event_groups *groups; /* the events' groups and their runs (event_groups.c); NULL until used */
    struct cr_closest_memo *closest_memo; /* each slot's last closest point on a surface (rolling.c,
                                   cr_surface_closest_memo), written only where ball i is searched for
                                   (its plan, landing checks, its events group's run); a cache that is
                                   right for its key whatever the ball does, so not in the groups' kept
                                   state; grown with the slots while there are surfaces */
    uint32_t closest_memo_capacity;
    double *landing;            /* scratch: each flying ball's landing time on each surface at the
                                   events' start (slot * surface count + surface; events.c) */
    uint32_t landing_capacity;
    double *pair_time;          /* scratch: each broad pair's impact time at the events' start, over
                                   the workers (events.c; INFINITY: none) */
    uint32_t pair_time_capacity;
    double *plane_time;         /* scratch: each body's impact time on each plane at the events' start,
                                   over the workers (slot * plane count + plane; events.c) */
    uint32_t plane_time_capacity;
    cr_contact *contacts;       /* this step's contacts, sorted by key */
    uint32_t contact_count, contact_capacity;
    cr_contact_row *rows;       /* this step's solver rows */
    uint32_t row_count, row_capacity;
    cr_solver_body *solver_bodies; /* the bodies in the solve, and the ground after them */
    uint32_t solver_capacity;
    cr_contact *plane_contacts; /* scratch: this step's plane contacts before the merge */
    uint32_t plane_contact_capacity;
    cr_contact *prev_contacts;  /* last step's, for warm starting */
    uint32_t prev_count, prev_capacity;
    struct cr_projection_row *near; /* projection: plane contacts and pairs near touching */
    uint32_t near_count, near_capacity;
    cr_vec3 *near_x;            /* ... and the positions they move (projection.c) */
    uint32_t near_x_capacity;
    struct cr_projection_row *near_sorted; /* scratch: the rows ordered by height (projection_order.c) */
    uint32_t near_sorted_capacity;
    uint32_t *near_key;         /* scratch: each row's height bucket, then the buckets' starts */
    uint32_t near_key_capacity;
    uint32_t *near_body_start;  /* each body's rows of near (projection_active.c) ... */
    uint32_t near_body_start_capacity;
    uint32_t *near_body_rows;   /* ... listed here */
    uint32_t near_body_rows_capacity;
    uint64_t *near_active;      /* the rows to visit in this pass and in the next (bit sets) */
    uint32_t near_active_capacity;
    uint32_t *query;            /* scratch list of bodies from a grid query */
    uint32_t query_capacity;
    uint32_t visit_mark;
    struct cr_energy_share *cap_share; /* scratch of the energy control (finish.c): one per slot */
    uint32_t cap_share_capacity;
    double *sleep_least;        /* scratch of ball sleeping (ball_sleep.c): each island's least still time */
    uint32_t sleep_least_capacity;
    uint32_t *sleep_ring;       /* ... each island's first and last member as its ring is threaded */
    uint32_t sleep_ring_capacity;
    uint32_t *sleep_awake;      /* ... the awake balls in slot order */
    uint32_t sleep_awake_capacity;
    uint32_t polyhedra;         /* live box, hull and mesh bodies */
    struct cr_rigid *rigid;     /* rigid-body state (rigid.h): joints, contacts, solver; NULL until needed */
    struct cr_dem_pool *pool;   /* carom's worker threads (dem_pool.c, cr_run_items): started by the
                                   first parallel work when worker_count > 1; NULL otherwise */
    cr_step_stats stats;
    double time;
    uint64_t steps;
    double time_base;           /* time and steps when dt last changed: */
    uint64_t steps_base;        /* time = time_base + (steps - steps_base) dt */
    bool failed;
    bool in_callback;
    char error[512];
};

/* memory through the world's allocator */
void *cr_alloc(cr_world *w, size_t size);
void cr_free(cr_world *w, void *p);
/* Grows *p (elements of size elem) to hold at least need; keeps contents. */
bool cr_grow(cr_world *w, void **p, uint32_t *capacity, uint32_t need, size_t elem);
cr_status cr_fail(cr_world *w, cr_status s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static inline bool cr_slot_alive(const cr_bodies *b, uint32_t i) { return i < b->slot_count && (b->generation[i] & 1u); }
static inline bool cr_slot_dynamic(const cr_bodies *b, uint32_t i) { return b->type[i] == CR_BODY_DYNAMIC; }

/* Room for n body slots (checkpoint loading restores slots in place). */
bool cr_bodies_reserve(cr_world *w, uint32_t n);

/* Contact side of body i for a contact point at offset r from its centre. */
cr_contact_side cr_body_side(const cr_world *w, uint32_t i, cr_vec3 r);
/* Writes a side's velocities back to body i. */
void cr_body_store_side(cr_world *w, uint32_t i, const cr_contact_side *s);

/* Position, path velocity and velocity of body i at time t in the step (t >= t_local). */
/* (inline: the events stage asks for them for every candidate pair) */
static inline cr_vec3 cr_body_position_at(const cr_world *w, uint32_t i, double t)
{
    const cr_bodies *b = &w->bodies;
    double h = t - b->t_local[i];
    return cr_v3_madd(cr_v3_madd(b->x[i], b->vpath[i], h), b->acc[i], 0.5 * h * h);
}
static inline cr_vec3 cr_body_path_velocity_at(const cr_world *w, uint32_t i, double t)
{
    return cr_v3_madd(w->bodies.vpath[i], w->bodies.acc[i], t - w->bodies.t_local[i]);
}
static inline cr_vec3 cr_body_velocity_at(const cr_world *w, uint32_t i, double t)
{
    return cr_v3_madd(w->bodies.v[i], w->bodies.dvel[i], t - w->bodies.t_local[i]);
}
/* A free body's plan: it moves with its velocity and acceleration. */
void cr_body_plan_free(cr_world *w, uint32_t i);
/* Plans body i from its local time to the end of the step: free motion, or
 * seed 004's moving algorithm on its surface. May bind a ball to a surface it
 * touches or free one that leaves; sets t_state when its state will change
 * within the step. */
void cr_body_plan(cr_world *w, uint32_t i);
/* Moves body i's state forward to time t inside the step. */
void cr_body_advance(cr_world *w, uint32_t i, double t);

/* Gap under which two surfaces count as touching (scale: a radius). */
static inline double cr_touch_margin(double scale) { return 1e-9 * scale; }

/* Gap under which a pair is a contact of the impulse method's velocity
 * solver rather than a future impact: bodies in a pile sit within it, so a
 * pile is solved as a whole instead of as a cascade of tiny impacts. The
 * solver lets such a contact close its gap but not more (a speculative
 * contact). The event method has no solver: there it is the touch margin. */
static inline double cr_contact_margin(const cr_world *w, double scale)
{
    return w->def.method == CR_METHOD_IMPULSE ? 1e-2 * scale : cr_touch_margin(scale);
}

/* Within this gap a pair (or a ball and a static) touches: an impact now if
 * it approaches, none if not. It covers the time-of-impact tolerance, so
 * that conservative advancement (which calls anything within the tolerance
 * a contact) is only asked about pairs that are apart. */
static inline double cr_touching_gap(const cr_world *w, double scale)
{
    /* both finite: a comparison, not libm's fmax (a call, with NaN rules) */
    double m = cr_touch_margin(scale);
    return m > w->def.toi_tolerance ? m : w->def.toi_tolerance;
}

/* The normal speed under which a ball stays on (or joins) a surface: the
 * resting speed, but never below rounding (1e-9 of the speeds around), so
 * that an elastic world (resting speed 0) still lets balls roll. */
static inline double cr_surface_bind_speed(const cr_world *w, cr_vec3 v)
{
    double floor_speed = 1e-9 * (cr_v3_len(v) + cr_v3_len(w->def.gravity) * w->def.dt);
    return w->resting_speed > floor_speed ? w->resting_speed : floor_speed;
}

/* Event method: body i's constant accelerations from its state now (gravity
 * and seed 001 resting-contact forces); used at the step start and again
 * after every impact the body takes part in. */
void cr_body_predict_forces(cr_world *w, uint32_t i);

/* Fills the broad phase with each live body's box (box returns the radius
 * that sizes the grid, 0 for a body that should not) and builds the pairs. */
typedef double cr_body_box_fn(const cr_world *w, uint32_t i, cr_vec3 *lo, cr_vec3 *hi);
cr_status cr_broad_phase_boxes(cr_world *w, cr_body_box_fn *box);

/* Box of body i's path from its local time to the end of the step, padded
 * by its radius: what an event prediction must ask the grid about. */
void cr_body_path_box(const cr_world *w, uint32_t i, cr_vec3 *lo, cr_vec3 *hi);

/* the stages of cr_world_step, one file each */
void cr_stage_predict(cr_world *w);
cr_status cr_stage_broad_phase(cr_world *w);
cr_status cr_stage_contacts(cr_world *w);
cr_status cr_stage_events(cr_world *w);
cr_status cr_stage_finish(cr_world *w);
/* The finish's max_penetration stat: the deepest overlap of the broad
 * pairs and of the dynamic bodies with the planes, from 0 (finish.c). */
double cr_max_penetration(cr_world *w);
/* Position projection of sphere worlds (projection.c, seed 000 c.5). */
cr_status cr_project_positions(cr_world *w);
/* shock propagation for the extra projection passes (projection_order.c) */
#define CR_PROJECTION_PLANE 0x80000000u /* cr_projection_row.j of a plane row: plane index | this bit */
bool cr_projection_up(const cr_world *w, cr_vec3 *up);
void cr_projection_shock_ratios(cr_vec3 up, cr_vec3 xi, cr_vec3 xj, double *mi, double *mj);
cr_status cr_projection_order(cr_world *w, cr_vec3 up, const cr_vec3 *x);
/* The extra passes stop once no overlap exceeds this fraction of r_a + r_b
 * (2 r against a plane): 0.1% of the radius of two equal balls. */
#define CR_PROJECTION_TOLERANCE 5e-4
/* The fewest projection passes of a world with surfaces (projection.c):
 * a flying ball wedged between a surface ball and a wall, 3 mm into
 * each, meets the tolerance (tests/test_squeeze.c; 8 leave up to 87 um). */
#define CR_PROJECTION_SURFACE_PASSES 16
/* Passes 2 .. passes over the rows of near, moving x
 * (projection_active.c); sets stats.projection_passes. */
cr_status cr_projection_extra_passes(cr_world *w, cr_vec3 *x, int passes);

/* Seed 004 surfaces (rolling.c). */
/* Room in w->closest_memo for every slot, the new entries empty (false: out
 * of memory; the slots without room then search without a memo). */
bool cr_ball_memo_reserve(cr_world *w);
/* Signed gap between ball i at position x and surface k (closest point
 * warm-started from the ball's parameters; updates them when keep is set). */
double cr_ball_surface_gap(cr_world *w, uint32_t i, uint32_t k, cr_vec3 x, cr_vec3 *normal, bool keep);
/* The landing of a flying ball on surface k at its current state: impact law,
 * then bound to the surface when it does not bounce off. */
void cr_ball_land(cr_world *w, uint32_t i, uint32_t k, cr_impact *report);
/* Speed of a surface ball after advancing along its plan by displacement d
 * from velocity v0 and spin w0: seed 004 eq. 43's energy balance (rolling,
 * and sliding without friction); with sliding friction, the kinetic energy
 * is capped at what the balance allows, friction only takes. */
void cr_ball_correct_speed(cr_world *w, uint32_t i, cr_vec3 v0, cr_vec3 w0, cr_vec3 d);
/* Kinetic plus potential energy of body i. */
double cr_body_energy(const cr_world *w, uint32_t i);
/* Takes what body i gained over energy e0 out of its kinetic energy (as far
 * as it has any: returns what it could not cover). */
double cr_body_cap_energy(cr_world *w, uint32_t i, double e0);
double cr_body_kinetic(const cr_world *w, uint32_t i);
/* Kinetic energy body i would have with velocity v and angular velocity om
 * (its inertia tensor for a polyhedron). */
double cr_body_kinetic_of(const cr_world *w, uint32_t i, cr_vec3 v, cr_vec3 om);
/* Angular momentum about the centre, I_world om. */
cr_vec3 cr_body_spin_momentum(const cr_world *w, uint32_t i, cr_vec3 om);
/* A finiteness check of every body's state; stops the world naming the body.
 * hint: added to the message after "the world stopped" ("" for none; the
 * DEM's asks about dt). */
cr_status cr_check_finite(cr_world *w, const char *hint);
void cr_body_scale_kinetic(cr_world *w, uint32_t i, double k);
/* Resting contacts of balls on surfaces (rolling_rest.c): the balls and
 * walls each one leans on, found from the broad phase's pairs, and their
 * plans made again with them. */
cr_status cr_surface_resting_contacts(cr_world *w);
/* Adds direction n (unit, away from what it leans on: on, a body's slot or
 * a plane's index | CR_REST_PLANE) to ball i's set; a contact already in
 * it takes the new direction in its own place. */
void cr_rest_add(cr_world *w, uint32_t i, cr_vec3 n, uint32_t on);
/* The walls (planes) ball i touches now into its set: a ball leans on them
 * from the resting contacts stage on where it is a surface ball or leans on
 * one then, and from the events on where it becomes one inside the step
 * (rolling_rest.c). */
void cr_rest_add_walls(cr_world *w, uint32_t i);
/* Whether ball i leans on what it rests against (walls included): it is on
 * a surface, or a flying ball that leans on a surface ball (a flying
 * ball's rest set holds only those). */
static inline bool cr_ball_leans(const cr_bodies *b, uint32_t i)
{
    return b->surface[i] != CR_NO_SURFACE || b->rest[i].count > 0;
}
/* The vector nearest to a whose part along each of r's directions is at
 * least lo[k] (seed 001 §3.2 for several contacts; rolling_rest.c). */
cr_vec3 cr_rest_hold(const cr_rest_set *r, const double *lo, cr_vec3 a);
/* r's directions in the tangent plane of normal n, into d (d->n[k]: r->n[k]
 * less its part along n, unit; d->held 0): where a ball on a surface leans,
 * taken once a plan, which leans its velocity and accelerations on them. */
void cr_rest_in_plane(const cr_rest_set *r, cr_vec3 n, cr_rest_set *d);
/* The directions of r that a approaches no faster than limit (along the
 * direction itself, -a.n_k, as the events measure an approach), into held:
 * each stored as in_plane's (r's in a tangent plane, cr_rest_in_plane: a
 * ball on a surface) when given, whole when NULL. Faster is an impact, for
 * the events. Returns them as a mask of r's directions (bit k: n[k]). */
uint32_t cr_rest_slow(const cr_rest_set *r, const cr_rest_set *in_plane, cr_vec3 a, double limit, cr_rest_set *held);
/* A flying ball's plan held by the balls on surfaces it leans on. */
void cr_rest_hold_flying(cr_world *w, uint32_t i);
/* Ball i is flying (event method) and may lean on j, bound to a surface. */
bool cr_rest_flying_on(const cr_world *w, uint32_t i, uint32_t j);
/* End-of-step guard of ball i (a world with surfaces): a free ball found
 * behind a surface is put back on it, a surface ball back on its surface
 * and off the walls. Writes ball i only: run over the workers. */
void cr_ball_keep_above(cr_world *w, uint32_t i);
/* The world runs work items on threads (its own workers or its task
 * system: cr_run_items), so that work worth spreading is cut into items. */
static inline bool cr_parallel(const cr_world *w)
{
    return w->def.worker_count > 1 || (w->def.enqueue_task && w->def.finish_task);
}
/* Runs fn(w, i) for every body slot i but the parked sleeping balls
 * (cr_broad_sleeps: a ball function leaves a sleeping ball as it is, and
 * planned it asleep already), over the world's workers where it has
 * surfaces (ball_items.c); fn must write body i's state only and count
 * closest points with cr_count_closest. */
typedef void cr_ball_fn(cr_world *w, uint32_t i);
void cr_run_balls(cr_world *w, cr_ball_fn *fn);
/* Ball i's deepest penetration of the world's planes, from 0 (finish.c:
 * the max_penetration stat). */
static inline double cr_ball_plane_depth(const cr_world *w, uint32_t i)
{
    const cr_bodies *b = &w->bodies;
    double worst = 0.0;
    for (uint32_t k = 0; k < w->planes.count; ++k)
        worst = fmax(worst, cr_penetration_sphere_plane(b->x[i], b->radius[i], w->planes.def[k].point,
                                                        w->planes.def[k].normal));
    return worst;
}
/* Adds one closest-point query to the mean in cr_step_stats. */
void cr_count_closest(cr_world *w, int iterations);
/* Closest points counted apart (whole numbers: the same sums in any
 * order): cr_count_closest on this thread counts into t from now (NULL:
 * into the world); returns the tally it counted into before. */
typedef struct cr_closest_tally {
    double iterations;
    uint64_t calls;
} cr_closest_tally;
cr_closest_tally *cr_closest_tally_use(cr_closest_tally *t);
/* Ball sleeping in event-method worlds (ball_sleep.c; issue 8). */
static inline bool cr_balls_sleep(const cr_world *w)
{
    return w->def.sleep_time > 0.0 && w->def.method == CR_METHOD_EVENT;
}
/* Within this gap two balls touch: they lean on each other
 * (rolling_rest.c) and join one sleeping island (ball_sleep.c). */
static inline bool cr_rest_touching(double gap, double scale) { return gap <= 1e-6 * scale; }
/* Wakes ball i and every ball of its sleeping island (O(island)). */
void cr_ball_wake(cr_world *w, uint32_t i);
/* After the broad phase: the sleeping islands an awake moving body's box
 * overlaps wake (their balls planned again, replanned 1), and the pairs of
 * two bodies that cannot move (asleep, or static) leave the pairs. */
cr_status cr_ball_sleep_broad(cr_world *w);
/* After the finish: islands woken by impacts wake whole, still times, and
 * the islands that stayed still sleep; stats.sleeping. */
cr_status cr_ball_update_sleep(cr_world *w);
/* The sleeping islands' rings again from island ids (checkpoint loading). */
cr_status cr_ball_sleep_rings(cr_world *w);
/* Body i's plan for the coming step from the step's start (predict.c). */
void cr_body_predict(cr_world *w, uint32_t i);
/* Frees the events' groups (event_groups.c). */
void cr_events_groups_free(cr_world *w);

/* CR_METHOD_DEM (dem.c): the whole step; state changes from outside the
 * step (bodies added, moved, removed) make it evaluate the forces again
 * before the next one, and a removed body's contacts lose their history. */
cr_status cr_dem_step(cr_world *w);
cr_status cr_dem_prepare(cr_world *w); /* the set-up of the next step, now (cr_world_prepare) */
/* The step leaves the bodies' state in the DEM's own arrays; the world's
 * (x, v, w, q by slot) are written when first needed: every function that
 * reads them calls cr_dem_sync first, every function that changes a body
 * calls it before the change (then cr_dem_touch). A no-op for other
 * methods and when the world's arrays are current. Not safe to call from
 * two threads at once on the same world. */
void cr_dem_sync(const cr_world *w);
void cr_dem_touch(cr_world *w);
void cr_dem_body_removed(cr_world *w, uint32_t i);
void cr_dem_free(cr_world *w);
uint32_t cr_dem_pair_count(const cr_world *w);
/* List builds of a DEM world so far, the set-up's included (tests). */
uint64_t cr_dem_build_count(const cr_world *w);

/* the impact law chosen for the world, applied to one contact */
cr_vec3 cr_world_impact_impulse(cr_world *w, const cr_contact_side *a, const cr_contact_side *b,
                                cr_vec3 n, double restitution, double friction);

#endif
