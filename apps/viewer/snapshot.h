/* carom viewer — a snapshot of a world for drawing: the display's own copy.
 *
 * Seed 004's main loop (Algorithm 1, Figure 4) keeps two sets of state:
 * simulate() advances set 1 (here: the cr_world), prepare() copies set 1
 * into set 2 (here: a view_snapshot), display() draws set 2. Because the
 * display reads only its snapshot, simulation and display run in parallel
 * and a frame never sees a half-stepped world.
 */
#ifndef CAROM_VIEWER_SNAPSHOT_H
#define CAROM_VIEWER_SNAPSHOT_H

#include <stdbool.h>
#include <stdint.h>

#include "carom/carom.h"
#include "draw_list.h"

typedef struct view_body {
    cr_vec3 position, velocity, angular_velocity;
    cr_quat orientation;
    double radius, mass;          /* radius: a polyhedron's bounding sphere */
    cr_vec3 half_extents;         /* a box's; zero for the other shapes */
    int32_t shape;                /* a hull's or mesh's triangles: index in view_snapshot.shapes; -1 none */
    uint32_t slot;    /* the body's world slot (= scene id while none was removed) */
    bool kinematic;
    cr_ball_state state; /* on a surface: rolling, sliding, still; else flying */
} view_body;

typedef draw_plane view_plane;

/* A hull's or mesh's triangles, copied from the shape once (the snapshot's
 * own copy: the display never touches the world's shapes or their
 * reference counts). key is the shape's address, for finding it again
 * while the world lives, never dereferenced; type, triangle count, volume
 * and bounding radius guard against a new shape at a freed one's address. */
typedef struct view_shape {
    const void *key;
    cr_shape_type type;
    uint32_t triangle_count;
    double volume, radius;
    cr_vec3 *triangles; /* 3 per triangle, body frame, counter-clockwise from outside */
    cr_vec3 *normals;   /* unit outward normal per triangle */
} view_shape;

typedef struct view_snapshot {
    view_body *bodies;
    uint32_t body_count, body_capacity;
    view_plane *planes;
    uint32_t plane_count, plane_capacity;
    /* The distinct hull and mesh shapes of the bodies, each copied once
     * while it lives (per world_key); entries no body uses are dropped. */
    view_shape *shapes;
    uint32_t shape_count, shape_capacity;
    uint64_t shapes_key;
    /* Parametric surfaces do not move: tessellated once per world (per
     * world_key) and kept. */
    draw_list surfaces;
    uint32_t surface_count;
    uint64_t surfaces_key;
    /* Where planes are drawn: the frame bounds of the world's first
     * snapshot, kept while the world lives so that floors and walls stay
     * put as bodies move (set when world_key changes). */
    cr_vec3 stage_lo, stage_hi;
    uint64_t stage_key;
    /* The world's figures at the moment of the copy. */
    double time, dt;
    uint64_t steps;
    cr_energy energy;
    uint32_t contacts, events; /* of the last step */
    double max_penetration;
    /* Filled in by whoever runs the world (the simulation thread). */
    double steps_per_second; /* measured over the last second of wall time */
    double speed;            /* simulated seconds per wall second asked for */
    bool paused;
    bool failed;             /* the world stopped (non-finite state); message in error */
    char error[256];
    uint64_t serial;         /* set by the runner: increases with every prepare() */
} view_snapshot;

/* prepare(): copies the world's bodies, planes and figures into s, growing
 * its arrays as needed. world_key names the world (a new key for a new
 * world, never 0): surfaces are tessellated again only when it changes.
 * 0, or -1 when out of memory. */
int snapshot_capture(view_snapshot *s, const cr_world *world, uint64_t world_key);
/* A deep copy, reusing dst's arrays. 0 or -1 (out of memory). */
int snapshot_copy(view_snapshot *dst, const view_snapshot *src);
void snapshot_free(view_snapshot *s);

/* The box around all bodies (centre +- radius) and surfaces; for a scene
 * with neither, a 2 m box around the origin. */
void snapshot_bounds(const view_snapshot *s, cr_vec3 *lo, cr_vec3 *hi);
/* The box a camera should frame: the bounds above, reaching down (or
 * across) to the nearby planes under the bodies, so that a lone ball is
 * seen with the floor it will land on, and at least ten radii wide. */
void snapshot_frame_bounds(const view_snapshot *s, cr_vec3 *lo, cr_vec3 *hi);
/* The radius a new ball should have: the median radius of the scene's
 * bodies, or 0.1 m when there are none. */
double snapshot_typical_radius(const view_snapshot *s, double *mass);

#endif
