/* The broad phase of a world of spheres only on the sub-stepped solver
 * (cr_rigid_sphere_path; docs/physics/substep.md, "Spheres"): a pair list
 * with a skin (a Verlet list) kept across steps. Internal.
 *
 * Each step every body gets its box as before (rigid_step.c's swept
 * bounding sphere); the list holds every pair whose boxes, grown by the
 * skin on every side when the list was built, overlap. While each body's
 * box stays inside its grown box of the build, any two boxes that overlap
 * now overlapped grown, so their pair is on the list: the step's pairs are
 * the listed pairs whose boxes overlap now, the same set the grid gives
 * (in the list's order), and the grid is asked again only when a box
 * leaves its grown box, a slot is emptied or filled, or slots are added. */
#ifndef CAROM_SPHERE_PAIRS_H
#define CAROM_SPHERE_PAIRS_H

#include "broad_phase.h"
#include "world_internal.h"

/* What the narrow phase's tests read of a ball, in one place
 * (sphere_contacts.c): 32 bytes, 32-byte aligned, so that an entry is half
 * a cache line (the 48-byte entry with the reach and whether it moves
 * straddled two lines every other ball, and 27,000 of them did not fit a
 * core's L2). */
typedef struct cr_sphere_ball {
    cr_vec3 x;
    double radius; /* negative (-0.0 for 0) when the ball does not move: static, kinematic or asleep */
} cr_sphere_ball;

/* What pass two of the narrow phase (sphere_contacts.c) reads of a ball
 * besides its entry: its restitution and friction, in one place (two
 * arrays at random before; until branch pit21 its orientation too, for the
 * contact's carried frames, which the sphere path does not make). */
typedef struct cr_sphere_material {
    double restitution, friction;
} cr_sphere_material;

/* A contact's key on a plane (above: the pair list's entries are below):
 * CR_SPHERE_PLANE_KEY | a << 32 | k for body a on plane k, made and read
 * back by the three helpers (the body only for a < 2^31: the finish reads
 * keys back only for fewer slots). */
#define CR_SPHERE_PLANE_KEY (UINT64_C(1) << 63)
static inline uint64_t cr_sphere_plane_key(uint32_t a, uint32_t k)
{
    return CR_SPHERE_PLANE_KEY | (uint64_t)a << 32 | k;
}
static inline uint32_t cr_sphere_plane_key_body(uint64_t key) { return (uint32_t)(key >> 32) & INT32_MAX; }
static inline uint32_t cr_sphere_plane_key_plane(uint64_t key) { return (uint32_t)key; }

typedef struct cr_sphere_pairs {
    cr_broad_phase grid; /* the grown boxes (lo, hi per slot; empty for an empty slot) and their pairs: the list */
    uint32_t n;          /* the slots the list covers; 0: no list */
    uint64_t builds;     /* lists built, for the benchmarks and tests */
    double *box_rmax;    /* per work item of the boxes: its largest radius, */
    uint8_t *box_keep;   /* and whether its boxes stay inside the list's */
    uint32_t box_capacity, keep_capacity;
    /* per work item: the filter's pairs kept; the narrow phase's
     * (sphere_contacts.c) first contact and count. The narrow phase's
     * pairs with a point, and their centres' distances */
    uint32_t *item_first, *hit;
    double *hit_dist;
    uint32_t item_capacity, hit_capacity, dist_capacity;
    uint64_t *plane_hit; /* per body and plane: the narrow phase's (body, plane) pairs with a point */
    uint32_t plane_hit_capacity;
    cr_sphere_ball *ball; /* per slot: the narrow phase's, 32-byte aligned in ball_block */
    void *ball_block;
    double *reach;        /* per slot: |v| + |w| r, the speculative margin's speed */
    cr_sphere_material *material; /* per slot */
    uint32_t ball_capacity, reach_capacity, material_capacity;
    uint64_t balls_step; /* the step (w->steps + 1) whose boxes' pass made ball, reach and material; 0: none */
    cr_vec3 *box;        /* per slot: its box (lo at 2 i, hi at 2 i + 1), as w->broad's, in one place for the filter */
    uint32_t box_copy_capacity;
    uint32_t *entry;     /* per pair of w->broad: its entry (index) in the list */
    uint32_t entry_capacity;
    /* The warm start by the list's order (sphere_contacts.c): per contact
     * of this step (key) and of the last (prev_key), its place in the
     * contact list's order: a pair's list entry, a (body a, plane k)'s
     * CR_SPHERE_PLANE_KEY | a << 32 | k; rising along each list. Each with
     * the step (w->steps) and list (builds) it was made in. The finish
     * reads the step's contacts' bodies from them (rigid_finish.c). */
    uint64_t *key, *prev_key;
    uint32_t key_capacity, prev_key_capacity;
    uint64_t key_step, prev_key_step, key_builds, prev_key_builds;
    uint64_t walks;    /* steps whose warm start took the walk, for the tests */
    bool warm_by_keys; /* tests: every step's warm start by the keys' look-up (cr_rigid_find_pair) */
} cr_sphere_pairs;

/* Fills w->broad's boxes with box (as cr_broad_phase_boxes) and its pairs
 * from the list, building the list first when it no longer covers them;
 * in the same pass over the bodies, the narrow phase's entries of each
 * live ball (cr_sphere_fill_ball; balls_step). */
cr_status cr_sphere_broad_phase(cr_world *w, cr_body_box_fn *box);
/* The narrow phase's per-slot entries (ball, 32-byte aligned; reach;
 * material) for n slots; false when out of memory. */
bool cr_sphere_balls_reserve(cr_world *w, cr_sphere_pairs *L, uint32_t n);
/* Live ball i's entries: its centre and radius (negative when it does not
 * move: static, kinematic or asleep), the speed its surface can reach
 * (|v| + |w| r) and its restitution and friction. */
void cr_sphere_fill_ball(const cr_bodies *bs, cr_sphere_pairs *L, uint32_t i);
/* The world's list, made (empty) on first use; NULL when out of memory. */
cr_sphere_pairs *cr_sphere_pairs_ensure(cr_world *w);
void cr_sphere_pairs_free(cr_world *w);
/* How many times the world's list has been built (0 without one). */
uint64_t cr_sphere_pair_builds(const cr_world *w);

#endif
