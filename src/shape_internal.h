/* Internal layout of shapes (include/carom/shape.h), shared by the shape
 * builders, the narrow phase and the rigid-body step. Not public. */
#ifndef CAROM_SHAPE_INTERNAL_H
#define CAROM_SHAPE_INTERNAL_H

#include "carom/shape.h"

/* A planar face of a convex polyhedron: vertices face_vertices[first ..
 * first + count), counter-clockwise seen from outside; plane normal . x =
 * offset with the unit normal pointing out. */
typedef struct cr_hull_face {
    uint32_t first, count;
    cr_vec3 normal;
    double offset;
} cr_hull_face;

/* A convex polyhedron in its shape frame (centroid at the origin). Every
 * edge is listed once (edges[2 e], edges[2 e + 1]), with the two faces it
 * borders (edge_faces[2 e], edge_faces[2 e + 1]). */
typedef struct cr_hull {
    uint32_t vertex_count, face_count, edge_count;
    cr_vec3 *vertices;
    cr_hull_face *faces;
    uint32_t *face_vertices;
    uint32_t *edges;
    uint32_t *edge_faces;
} cr_hull;

/* A node of a mesh's bounding-volume hierarchy: a leaf when count > 0,
 * holding triangles order[first .. first + count); otherwise its children
 * are nodes first and first + 1. */
typedef struct cr_bvh_node {
    cr_vec3 lo, hi;
    uint32_t first, count;
} cr_bvh_node;

/* A closed triangle mesh in its shape frame. */
typedef struct cr_mesh {
    uint32_t vertex_count, triangle_count, node_count;
    cr_vec3 *vertices;
    uint32_t *triangles;      /* 3 per triangle, counter-clockwise from outside */
    cr_vec3 *normals;         /* unit outward normal per triangle */
    cr_bvh_node *nodes;       /* root is nodes[0] */
    uint32_t *order;          /* triangle indices as the leaves hold them */
} cr_mesh;

struct cr_shape {
    cr_shape_type type;
    uint32_t refcount;
    double radius;            /* sphere radius; for the others, the bounding radius */
    cr_vec3 half_extents;     /* box */
    cr_vec3 offset;           /* subtracted from the input coordinates: the centroid */
    cr_mass_properties mass;
    cr_hull hull;             /* box and hull; a mesh's convex hull (what a moving mesh collides with) */
    cr_mesh mesh;             /* mesh only */
};

/* Allocates a zeroed shape with one reference (NULL when out of memory). */
cr_shape *cr_shape_alloc(cr_shape_type type);
/* Fills the hull of a box with half extents h: 8 vertices, 6 quads, 12 edges. */
bool cr_hull_init_box(cr_hull *hull, cr_vec3 h);
/* Lists every edge of a hull whose faces are filled in, with its two faces. */
bool cr_hull_build_edges(cr_hull *hull);
void cr_hull_free(cr_hull *hull);
void cr_mesh_free(cr_mesh *mesh);

/* Mass properties of a closed, outward-oriented triangle surface (3 indices
 * per triangle, counter-clockwise from outside) by volume integrals
 * (shape_mass.c): volume, centroid and inertia about the centroid at unit
 * density, in the vertices' frame. Unused vertices are ignored. */
void cr_mass_from_triangles(const cr_vec3 *vertices, const uint32_t *triangles, uint32_t triangle_count,
                            cr_mass_properties *out);
/* The same for a hull, its polygon faces fanned into triangles; false when
 * out of memory. */
bool cr_mass_from_hull(const cr_hull *hull, cr_mass_properties *out);

/* The convex hull of count points in their own frame (shape_hull.c):
 * coplanar triangles merged into convex polygons, unused points dropped,
 * edges listed. On failure writes a message naming the cause. */
cr_status cr_hull_build(cr_hull *hull, const cr_vec3 *points, uint32_t count, char *message, size_t message_size);
/* Moves every vertex by d and recomputes the face offsets. */
void cr_hull_translate(cr_hull *hull, cr_vec3 d);

/* Builds m->nodes and m->order over m's triangles (shape_mesh.c); false
 * when out of memory. */
bool cr_bvh_build(cr_mesh *m);
/* Calls visit(user, t) for every triangle t whose bounding box overlaps the
 * closed box [lo, hi], each once, in no particular order. */
typedef void (*cr_bvh_visit)(void *user, uint32_t triangle);
void cr_bvh_query(const cr_mesh *m, cr_vec3 lo, cr_vec3 hi, cr_bvh_visit visit, void *user);

#endif
