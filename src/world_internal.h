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

/* Bodies are stored as structure of arrays, indexed by slot. */
typedef struct cr_bodies {
    uint32_t capacity, slot_count, live_count;
    uint32_t *generation;       /* odd: alive; even: free (never 0 for a live one) */
    uint32_t *free_slots, free_count;
    uint8_t *type, *inertia_kind;
    cr_vec3 *x, *v, *w;
    cr_quat *q;
    double *mass, *inv_mass, *inertia, *inv_inertia, *radius, *restitution, *friction;
    void **user_data;
    /* per-step state */
    cr_vec3 *acc, *alpha;       /* constant accelerations over the step (event method) */
    double *t_local;            /* time inside the step the state refers to */
    uint32_t *stamp;            /* bumped at every event: older predictions are stale */
    uint32_t *events;           /* impacts this step (inelastic collapse guard) */
    uint32_t *visit;            /* query dedupe marks */
} cr_bodies;

typedef struct cr_planes {
    uint32_t count, capacity;
    cr_plane_def *def;          /* normal stored unit length */
    uint32_t *generation;
} cr_planes;

struct cr_world {
    cr_world_def def;
    double resting_speed;       /* resolved from def.resting_speed */
    cr_bodies bodies;
    cr_planes planes;
    cr_broad_phase broad;
    cr_event_queue queue;
    cr_contact *contacts;       /* this step's contacts, sorted by key */
    uint32_t contact_count, contact_capacity;
    cr_contact *prev_contacts;  /* last step's, for warm starting */
    uint32_t prev_count, prev_capacity;
    uint32_t *query;            /* scratch list of bodies from a grid query */
    uint32_t query_capacity;
    uint32_t visit_mark;
    cr_step_stats stats;
    double time;
    uint64_t steps;
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

/* Contact side of body i for a contact point at offset r from its centre. */
cr_contact_side cr_body_side(const cr_world *w, uint32_t i, cr_vec3 r);
/* Writes a side's velocities back to body i. */
void cr_body_store_side(cr_world *w, uint32_t i, const cr_contact_side *s);

/* Position and velocity of body i at time t inside the step (t >= t_local). */
cr_vec3 cr_body_position_at(const cr_world *w, uint32_t i, double t);
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

/* Event method: body i's constant accelerations from its state now (gravity
 * and seed 001 resting-contact forces); used at the step start and again
 * after every impact the body takes part in. */
void cr_body_predict_forces(cr_world *w, uint32_t i);

/* the stages of cr_world_step, one file each */
void cr_stage_predict(cr_world *w);
cr_status cr_stage_broad_phase(cr_world *w);
cr_status cr_stage_contacts(cr_world *w);
cr_status cr_stage_events(cr_world *w);
cr_status cr_stage_finish(cr_world *w);

/* the impact law chosen for the world, applied to one contact */
cr_vec3 cr_world_impact_impulse(cr_world *w, const cr_contact_side *a, const cr_contact_side *b,
                                cr_vec3 n, double restitution, double friction);

#endif
