/* Rigid bodies: the state of seed 003's pipeline kept in the world (joints,
 * this step's contacts, the multiplier rows) and the stages it runs.
 * Internal. A world steps through it once it holds a box, hull or mesh body
 * or a joint (cr_world_is_rigid); spheres then go through it too. */
#ifndef CAROM_RIGID_H
#define CAROM_RIGID_H

#include "collide_poly.h"
#include "lcp.h"
#include "world_internal.h"

#define CR_NO_BODY UINT32_MAX

typedef struct cr_joint {
    cr_joint_type type;
    uint32_t generation;        /* odd: alive */
    uint32_t a, b;              /* body slots; b = CR_NO_BODY for the fixed world */
    cr_vec3 la, lb;             /* anchors in each body's frame (b's in world when b is the world) */
    cr_vec3 axis_a, axis_b;     /* hinge axis in each frame */
    cr_vec3 perp_a[2];          /* hinge: two directions normal to the axis, in a's frame */
    cr_quat q_rel;              /* fixed: q_b^-1 q_a when made */
    double length;              /* distance */
    double lambda[6];           /* last step's multipliers (warm start) */
    bool collide;               /* a and b make contacts with each other (cr_joint_def.collide) */
} cr_joint;

/* A contact point between two bodies, or a body and a plane. The members
 * in the order the sphere path's passes read them (sphere_contacts.c,
 * sphere_substep.c, rigid_finish.c): the identity and the warm start (the
 * next step's walk reads these alone), what the solver's set-up reads,
 * then its impulses, the frames (the deepest overlap), and last what only
 * the general path reads. */
typedef struct cr_rigid_contact {
    uint32_t a, b;              /* body slots; b = plane index when is_plane */
    bool is_plane;
    uint32_t feature;           /* the narrow phase's feature key: with a, b, the contact's identity */
    double rest_n;              /* resting-phase normal multiplier (warm start) */
    cr_vec3 rest_t;             /* resting-phase friction impulse, world (warm start) */
    cr_vec3 rest_roll;          /* rolling resistance's angular impulse on a, world (warm start; the
                                 * sub-stepped solver's, soft_resist.h; zero where the world resists not) */
    cr_vec3 point, normal;      /* world; normal from b towards a */
    double separation;          /* at the step's start */
    double restitution, friction;
    double jn;                  /* normal impulse of the step: collisions plus resting contact */
    cr_vec3 jt;                 /* friction impulse of the step on a, world */
    cr_vec3 la, lb, nb;         /* A's and B's surface points and the normal in their own frames (projection);
                                 * zero on the sphere path's contacts, measured by the centres (rigid_finish.c) */
    cr_vec3 t1, t2;             /* friction directions */
    /* two hulls: the relative pose (a's position in b's frame, conj(q_b) q_a)
     * when the narrow phase made the manifold; the manifold is carried over
     * while the pose stays near it (src/collide_carry.c) */
    cr_vec3 ref_x;
    cr_quat ref_q;
} cr_rigid_contact;

/* A pair of bodies that a separating-axis query found apart: the narrow
 * phase skips it while it cannot have closed its gap since
 * (src/collide_apart.c). */
typedef struct cr_rigid_apart {
    uint32_t a, b;
    double gap;                 /* lower bound of the distance at the query */
    cr_vec3 ref_x;              /* the relative pose then, as cr_rigid_contact's */
    cr_quat ref_q;
} cr_rigid_apart;

typedef struct cr_rigid {
    cr_joint *joints;
    uint32_t joint_count, joint_capacity, joint_live;
    cr_rigid_contact *contacts, *prev;
    uint32_t contact_count, contact_capacity, prev_count, prev_capacity;
    /* the leading slots of contacts and of prev (each count goes with its
     * array) whose frames hold a sphere contact's: la, lb, nb, t1, t2 and
     * ref_x zero, ref_q the identity. The sphere path's narrow phase
     * writes only the fields before them there (sphere_contacts.c,
     * lean_frames): 152 of a contact's 328 bytes. The general narrow
     * phase and a restored state set their array's to 0. */
    uint32_t contacts_lean, prev_lean;
    /* the warm start (src/rigid_contacts.c): prev's sort keys; kept when
     * the last step's end sorted the keys of r->contacts (kept_count of
     * them), which the next narrow phase then swaps into prev */
    struct cr_contact_key *keys;
    uint32_t key_capacity, kept_count;
    struct cr_contact_key *key_tmp; /* the key sort's scratch (contact_keys.h) */
    uint32_t key_tmp_capacity;
    uint32_t *key_count; /* the key sort's counters, one per body slot and one: after it,
                          * key_count[a] is where body a's keys end (a + 1's begin) */
    uint32_t key_count_capacity;
    uint32_t key_buckets; /* the bodies key_count covers: the slots at the sort, 0 for no keys */
    bool kept;
    bool prev_sorted; /* keys hold prev's, sorted (cr_rigid_sort_prev_keys) */
    cr_lcp_row *rows;
    uint32_t row_capacity;
    cr_lcp_body *lb;            /* one per body slot */
    uint32_t lb_capacity;
    uint32_t *colliding;        /* contact indices of a collision round */
    uint8_t *in_round;          /* contact took part in the current round */
    uint32_t colliding_capacity;
    cr_mat3 *inv_inertia_world; /* per slot, this step */
    uint32_t inertia_capacity;
    double *island_still;       /* per slot: an island's least still time (sleeping) */
    uint32_t island_capacity;
    cr_lcp_workspace *ws;
    /* the narrow phase's jobs (a pair, or a body against every plane) and
     * their manifolds, filled in parallel and read in job order */
    struct cr_narrow_job *jobs;
    struct cr_manifold *manifolds;
    uint32_t job_capacity, manifold_capacity;
    uint8_t *jointed;           /* per slot, while joints live: held by a joint (no carried manifolds) */
    uint32_t jointed_capacity;
    uint64_t *joined;           /* this step's pairs of bodies held by a live joint with collide false,
                                 * sorted (rigid_contacts.c's joined_key): the narrow phase makes no job of them */
    uint32_t joined_count, joined_capacity;
    cr_pose *poses;             /* per slot: the poses the step's end measures its contacts at (rigid_finish.c;
                                 * not the sphere path's, which measures by the centres) */
    uint32_t pose_capacity;
    /* pairs found apart: this step's, and the last step's sorted by pair */
    cr_rigid_apart *apart, *apart_prev;
    uint32_t apart_count, apart_capacity, apart_prev_count, apart_prev_capacity;
    uint32_t *apart_end; /* apart_end[a]: where body a's entries of apart_prev end (a + 1's begin) */
    uint32_t apart_end_capacity;
    uint32_t apart_buckets; /* the bodies apart_end covers: the slots when it was made */
    struct cr_substep *substep; /* the sub-stepped solver's arrays (rigid_substep.c), made on first use */
    struct cr_sphere_substep *sphere_substep; /* the same for worlds of spheres only (sphere_substep.c) */
    struct cr_sphere_pairs *sphere_pairs; /* their broad phase's pair list with a skin (sphere_pairs.c) */
    bool substep_portable;      /* tests: the sub-stepped solve without AVX2 even where it is (the same bits) */
    bool substep_lanes4;        /* tests: the sphere passes on AVX2 lanes even where AVX-512 is (the same bits) */
    uint32_t sphere_block_bodies; /* tests: the sphere solver's bodies a block (sphere_blocks.h); 0: its default */
} cr_rigid;

static inline bool cr_world_is_rigid(const cr_world *w)
{
    return w->polyhedra > 0 || (w->rigid && w->rigid->joint_live > 0) || w->def.rigid_substeps > 0;
}

/* A world of spheres only on the sub-stepped solver: its own narrow phase
 * (sphere_contacts.c) and solver (sphere_substep.c). */
static inline bool cr_rigid_sphere_path(const cr_world *w)
{
    return w->def.rigid_substeps > 0 && w->polyhedra == 0;
}

/* The margin every pair gets, relative to the smaller bounding radius. */
#define CR_BASE_MARGIN 0.02

/* Creates the world's rigid state on first use. */
cr_status cr_rigid_ensure(cr_world *w);
void cr_rigid_free(cr_world *w);
/* False when a joint still holds body slot i (it may not be removed). */
bool cr_rigid_body_removed(cr_world *w, uint32_t i);

/* The stages of a rigid-body step (rigid_step.c), as cr_world_step calls them. */
cr_status cr_rigid_predict(cr_world *w);
cr_status cr_rigid_broad_phase(cr_world *w);
cr_status cr_rigid_contacts(cr_world *w);
cr_status cr_rigid_solve(cr_world *w);
cr_status cr_rigid_finish(cr_world *w);

/* Narrow phase over the broad phase's pairs and the planes (rigid_contacts.c). */
cr_status cr_rigid_find_contacts(cr_world *w);
/* At the step's end: this step's contacts are kept for the next step's
 * warm start. */
void cr_rigid_keep_contacts(cr_world *w);
/* The last step's contacts, kept, become the warm start (r->prev). */
void cr_rigid_take_prev(cr_rigid *r);
/* r->keys: the sort keys of r->prev, sorted (once after each take_prev),
 * for cr_rigid_find_pair. False when out of memory. */
bool cr_rigid_sort_prev_keys(cr_world *w);
/* The previous step's first contact of pair (a, b) (is_plane: b a plane):
 * its sorted position in r->keys, or CR_NO_BODY. The search runs over body
 * a's keys only, which the sort's counters delimit (a's pairs are all
 * there): the same first position as a search of all the keys, in a few
 * probes instead of 14 in a pile of 15 000 contacts. A body made since the
 * sort has no keys. */
uint32_t cr_rigid_find_pair(const cr_rigid *r, uint32_t a, bool is_plane, uint32_t b);
/* The narrow phase of cr_rigid_sphere_path (sphere_contacts.c). */
cr_status cr_sphere_find_contacts(cr_world *w);
/* A body's pose for the narrow phase. */
cr_pose cr_rigid_pose(const cr_world *w, uint32_t i);

/* Joint rows (joint.c): appends the velocity rows of every joint to rows
 * (target 0 + bias); returns the number appended. */
uint32_t cr_joint_rows(cr_world *w, cr_lcp_row *rows, bool position_level);
/* Stores the joint rows' multipliers back for warm starting. */
void cr_joint_store(cr_world *w, const cr_lcp_row *rows);
/* Rows a joint needs. */
uint32_t cr_joint_row_count(const cr_joint *j);
double cr_joint_error(const cr_world *w, const cr_joint *j);

/* The solver's settings for rigid bodies: the direct method's active-set
 * loop is cut short (CR_RIGID_ACTIVE_SET_ITERATIONS), then projected
 * Gauss-Seidel finishes from the nearest point to a solution it met or
 * from the warm start, whichever is nearer (docs/physics/rigid.md); big
 * islands get the world's pgs_iterations passes. */
#define CR_RIGID_ACTIVE_SET_ITERATIONS 32
/* Cycling islands of up to this many rows go to Lemke's method
 * (src/lcp_lemke.c), which since branch rigid7 solves every one measured
 * (no rays; tests/test_lcp.c): 1e-12 where the PGS fallback left up to
 * 3.5e-3. Its cost, the whole solve of one of the 80 cycling random
 * islands of test_cycling_solved (15 to 120 rows): 0.0-7.4 ms, 68 ms for
 * all 80, against 23 ms with the PGS fallback; the 17-box tall stack (204
 * rows) 28 ms. Islands with joints too since branch rigid8 (lemke_joints):
 * scenes/chain.json (with "collide": true on its joints since branch
 * rigid9, which filters jointed pairs by default) then stops on the box with overlaps of 0.3 um instead
 * of 5.5 mm, its largest rise of energy in a step is 1.6e-5 J instead of
 * 0.028 J, and it comes to rest at the same energy (17.1163516789 J). That
 * rise, 2.9 M g d for the deepest overlap d where the test had allowed
 * M g d, is the drift correction's correct answer, not the solve's: an
 * overlap between two hinged links at r = 0.02 m from their hinge is taken
 * out by turning the hinge k_p d / r, which lifts the chain by up to its
 * length times that; the overlap was the correction's own, which bends a
 * hinge over onto contacts that only touch (docs/physics/contact-lagrange.md,
 * "Joints and the drift correction's lever"). The drift correction keeps
 * jointed islands from it (rigid_finish.c's project: its resting chain's
 * roundoff conflicts end in rays, and cost chain.json 16 %). */
#define CR_RIGID_LEMKE_ROWS 240
static inline cr_lcp_options cr_rigid_lcp_options(const cr_world *w)
{
    cr_lcp_options o = cr_lcp_default_options();
    o.max_active_set_iterations = CR_RIGID_ACTIVE_SET_ITERATIONS;
    o.pgs_iterations = (uint32_t)w->def.pgs_iterations;
    o.residual = false; /* nothing reads it, and it is a pass over the rows */
    o.lemke_max_rows = CR_RIGID_LEMKE_ROWS;
    o.lemke_joints = true;
    return o;
}
/* The solve's fallbacks into the world's running totals (cr_step_stats). */
static inline void cr_rigid_count_fallbacks(cr_world *w, const cr_lcp_stats *st)
{
    w->stats.lcp_fallbacks += st->fallbacks;
    w->stats.lcp_inexact += st->pgs_fallbacks;
}

/* Sleeping (rigid_sleep.c). A body moves when it is dynamic and awake. */
static inline bool cr_rigid_moves(const cr_bodies *b, uint32_t i) { return b->type[i] == CR_BODY_DYNAMIC && !b->asleep[i]; }

/* A contact's rolling resistance coefficient, nu_a + nu_b (a plane has
 * none; soft_resist.h). */
static inline double cr_rigid_rolling_friction(const cr_bodies *b, const cr_rigid_contact *c)
{
    return b->rolling_friction[c->a] + (c->is_plane ? 0.0 : b->rolling_friction[c->b]);
}
/* Wakes body i's island (no-op for an awake body). */
void cr_rigid_wake(cr_world *w, uint32_t i);
/* Before the narrow phase: a sleeping body that an awake moving body (or a
 * moving kinematic one) may touch wakes with its island. */
void cr_rigid_wake_touched(cr_world *w);
/* After the step: still times, islands, and islands that fall asleep. */
cr_status cr_rigid_update_sleep(cr_world *w);

/* The deepest overlap among the last step's contacts at the bodies' present
 * poses, naming the pair (b null for a plane). */
double cr_rigid_max_overlap(const cr_world *w, cr_body_id *a, cr_body_id *b);

/* Friction directions of contact c: t1 along the slip vrel when it slips,
 * so that a sliding contact's pyramid is exact (a = g (sin - mu cos) on an
 * incline); t2 = n x t1. Inline: it runs once a contact a step in both
 * solvers' set-up, and out of line its vrel (by value) and the contact
 * went through memory on every call (branch pyr14). */
static inline void cr_rigid_friction_axes(cr_rigid_contact *c, cr_vec3 vrel)
{
    cr_vec3 vt = cr_v3_reject(vrel, c->normal);
    double s = cr_v3_len(vt);
    if (s > 1e-12 * (1.0 + cr_v3_len(vrel))) {
        c->t1 = cr_v3_scale(vt, 1.0 / s);
    } else {
        cr_vec3 n = c->normal;
        cr_vec3 t = fabs(n.x) < 0.57735 ? cr_v3(1, 0, 0) : (fabs(n.y) < 0.57735 ? cr_v3(0, 1, 0) : cr_v3(0, 0, 1));
        c->t1 = cr_v3_normalize(cr_v3_reject(t, n));
    }
    c->t2 = cr_v3_cross(c->normal, c->t1);
}

/* The sub-stepped soft contact solver (rigid_substep.c), with
 * def.rigid_substeps > 0: velocities and positions of the whole step, in
 * place of cr_rigid_solve's multiplier systems and cr_rigid_finish's motion
 * and drift correction. */
cr_status cr_rigid_substep_solve(cr_world *w);
void cr_rigid_substep_free(cr_world *w);
/* The same solver for a world of spheres only (sphere_substep.c: points
 * of spheres, whose K is diagonal). */
cr_status cr_sphere_substep_solve(cr_world *w);
void cr_sphere_substep_free(cr_world *w);
/* The colours kept at the last sphere sub-stepped step (tests). */
uint32_t cr_sphere_substep_colours(const cr_world *w);
/* The blocks (sphere_blocks.h) of the last sphere sub-stepped step (tests). */
uint32_t cr_sphere_substep_blocks(const cr_world *w);
/* The colours (soft_colour.h) the last sub-stepped solve kept, not counting
 * the overflow (tests). */
uint32_t cr_rigid_substep_colours(const cr_world *w);

/* Room for n rows. */
bool cr_rigid_reserve_rows(cr_world *w, uint32_t n);

#endif
