/* carom viewer — the draw list: what to draw, independent of how.
 *
 * Everything the renderer draws goes through two kinds of item:
 *   - spheres, drawn instanced (one record per ball: centre, radius,
 *     colour, orientation);
 *   - triangles with per-vertex position, normal, colour and a surface
 *     coordinate for grid lines: planes (clipped to large finite polygons)
 *     today, and tessellated parametric surfaces, boxes and meshes through
 *     the same batch as the engine grows them.
 * Adding a shape means adding a function here that emits one of the two;
 * the renderer does not change. No OpenGL here: tests check what is drawn
 * without a context.
 */
#ifndef CAROM_VIEWER_DRAW_LIST_H
#define CAROM_VIEWER_DRAW_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "carom/carom.h"

typedef struct draw_sphere {
    float center[3];
    float radius;
    float color[3];
    float orientation[4]; /* unit quaternion w, x, y, z: the body's frame, for its pattern */
} draw_sphere;

typedef struct draw_vertex {
    float position[3];
    float normal[3];      /* towards the visible (free) side */
    float color[3];
    float uv[2];          /* surface coordinates, m, for the grid lines */
    float grid;           /* grid line spacing in uv units; 0: no lines */
} draw_vertex;

typedef struct draw_list {
    draw_sphere *spheres;
    size_t sphere_count, sphere_capacity;
    draw_vertex *vertices;
    size_t vertex_count, vertex_capacity;
    uint32_t *indices;    /* triangles, counter-clockwise seen from the normal side */
    size_t index_count, index_capacity;
} draw_list;

typedef enum draw_color_mode {
    DRAW_COLOR_ID = 0, /* a fixed colour per body slot */
    DRAW_COLOR_SPEED,  /* blue (still) to red (fastest of the scene) */
    DRAW_COLOR_STATE   /* seed 004's ball state: flying, rolling, sliding, still */
} draw_color_mode;

typedef enum draw_surface_shading {
    DRAW_SHADE_HEIGHT = 0,   /* colour by z */
    DRAW_SHADE_CURVATURE     /* colour by the larger principal curvature */
} draw_surface_shading;

typedef struct draw_options {
    draw_color_mode color;
    int64_t highlight_slot; /* a body drawn in white (being dragged); -1 none */
} draw_options;

void draw_list_init(draw_list *dl);
void draw_list_clear(draw_list *dl);
void draw_list_free(draw_list *dl);

/* Each returns 0, or -1 when out of memory. */
int draw_list_add_sphere(draw_list *dl, cr_vec3 center, double radius, const float color[3], cr_quat orientation);
/* A convex polygon (n >= 3 points in order, counter-clockwise seen from
 * normal's side); uv measured from origin along t1 and t2. */
int draw_list_add_polygon(draw_list *dl, const cr_vec3 *points, int n, cr_vec3 normal, const float color[3],
                          cr_vec3 origin, cr_vec3 t1, cr_vec3 t2, double grid);
/* The plane as a square of half-size half_size around the point nearest to
 * centre, cut by the free sides of the clip planes (where the plane runs
 * into another plane's solid side it is hidden, so an open box shows as a
 * box and not as five crossing sheets). */
typedef struct draw_plane {
    cr_vec3 point, normal; /* normal towards the free side, unit */
} draw_plane;
int draw_list_add_plane(draw_list *dl, const draw_plane *plane, const draw_plane *clip, uint32_t clip_count,
                        cr_vec3 centre, double half_size, const float color[3]);
/* A box (for rigid bodies): centre, half extents along its axes, orientation. */
int draw_list_add_box(draw_list *dl, cr_vec3 centre, cr_vec3 half, cr_quat orientation, const float color[3]);
/* A polyhedron's triangles (3 points each, in the body's frame,
 * counter-clockwise from outside; normals: one unit outward normal per
 * triangle) placed at centre with the orientation, flat-shaded. */
int draw_list_add_triangles(draw_list *dl, const cr_vec3 *triangles, const cr_vec3 *normals, uint32_t count,
                            cr_vec3 centre, cr_quat orientation, const float color[3]);
/* A parametric surface tessellated n x n over its domain (a bowl in polar
 * rings), coloured by height or curvature, normals towards the free side. */
int draw_list_add_surface(draw_list *dl, const cr_surface *surface, int n, draw_surface_shading shading);

/* Appends src's triangles (and spheres) to dst. */
int draw_list_append(draw_list *dst, const draw_list *src);

/* The box around everything in the list (spheres and vertices); false when
 * the list is empty. */
bool draw_list_bounds(const draw_list *dl, cr_vec3 *lo, cr_vec3 *hi);

/* Colours: a body's colour by slot (distinct for neighbours, stable over
 * runs), and a cold-to-hot map of t in [0, 1]. */
void draw_color_for_slot(uint32_t slot, float rgb[3]);
void draw_color_map(double t, float rgb[3]);

#endif
