/* carom — collision shapes of rigid bodies: spheres, boxes, convex hulls and
 * closed triangle meshes (issue 5, seed 003's polyhedral bodies).
 *
 * A shape is created once, reference-counted, and may be shared by many
 * bodies (and worlds): cr_world_add_body retains it, removing the body or
 * destroying the world releases it. The creator releases its own reference
 * when done. A shape is immutable after creation.
 *
 * Frames: a shape is stored centred on its centroid (centre of mass at
 * uniform density). cr_shape_offset() gives what was subtracted from the
 * input coordinates, so that a body placed at p with orientation q puts the
 * input point y at p + R(q) (y - offset).
 */
#ifndef CAROM_SHAPE_H
#define CAROM_SHAPE_H

#include "carom/types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cr_shape cr_shape;

/* Volume, centroid (in the input frame) and inertia tensor about the
 * centroid at unit density, in the shape's (centred) frame. Mass m at
 * density rho: m = rho volume, inertia = rho * inertia_unit. */
typedef struct cr_mass_properties {
    double volume;
    cr_vec3 centroid;
    cr_mat3 inertia_unit;
} cr_mass_properties;

/* Each create function validates its input and, on failure, writes a message
 * naming what is wrong (and where: the point, the triangle, the edge) into
 * message and returns CR_ERR_INVALID_ARGUMENT (or CR_ERR_OUT_OF_MEMORY). */
cr_status cr_shape_create_sphere(double radius, cr_shape **out, char *message, size_t message_size);
cr_status cr_shape_create_box(cr_vec3 half_extents, cr_shape **out, char *message, size_t message_size);
/* The convex hull of count points (duplicates and interior points allowed;
 * coplanar faces merged into polygons). Fails for fewer than 4 points or
 * points that span no volume. */
cr_status cr_shape_create_hull(const cr_vec3 *points, uint32_t count, cr_shape **out, char *message,
                               size_t message_size);
/* A closed, consistently oriented triangle mesh (3 indices per triangle,
 * counter-clockwise seen from outside). Fails, naming the culprit, for an
 * index out of range, a degenerate triangle, an edge not shared by exactly
 * two triangles in opposite directions, or a non-positive volume. */
cr_status cr_shape_create_mesh(const cr_vec3 *vertices, uint32_t vertex_count, const uint32_t *indices,
                               uint32_t triangle_count, cr_shape **out, char *message, size_t message_size);
/* A Wavefront OBJ file's v and f lines (polygons fanned into triangles,
 * negative indices, v/vt/vn forms); errors name the file and line. */
cr_status cr_shape_load_obj(const char *path, cr_shape **out, char *message, size_t message_size);

void cr_shape_retain(cr_shape *shape);
/* Frees the shape when the last reference goes. NULL is ignored. */
void cr_shape_release(cr_shape *shape);

cr_shape_type cr_shape_get_type(const cr_shape *shape);
const cr_mass_properties *cr_shape_mass_properties(const cr_shape *shape);
cr_vec3 cr_shape_offset(const cr_shape *shape);
/* Largest distance of the shape from its centroid. */
double cr_shape_bounding_radius(const cr_shape *shape);
/* Radius of a ball about the centroid that lies inside the shape: a
 * sphere's radius; a box's or hull's least distance from the centroid to
 * a face plane (the largest such ball); a mesh's least distance from the
 * centroid to a triangle's plane when the centroid is inside the solid (a
 * concave one's need not be), else 0. Two shapes whose centroids are
 * closer than the sum of their inner radii certainly overlap. */
double cr_shape_inner_radius(const cr_shape *shape);
/* A box's half extents; zero for the other shapes. */
cr_vec3 cr_shape_half_extents(const cr_shape *shape);
/* The shape's surface as triangles, for drawing: 3 vertices each in the
 * shape's frame (= the body's frame), counter-clockwise seen from outside. A
 * box or hull gives its polygon faces fanned, a mesh its triangles as they
 * are, a sphere none. Writes at most capacity triangles (3 capacity points)
 * to out and returns how many the shape has: call with out NULL to ask. */
uint32_t cr_shape_triangles(const cr_shape *shape, cr_vec3 *out, uint32_t capacity);

#ifdef __cplusplus
}
#endif
#endif
