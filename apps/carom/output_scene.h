/* carom CLI — DIR/scene.json: what a run's pictures need that the CSV does
 * not say (carom export-web reads it).
 *
 *   {"format": "carom-run-scene", "version": 1, "dt": 0.001, "gravity": [0, 0, -9.81],
 *    "statics": [{"shape": "plane", "point": [0, 0, 0], "normal": [0, 0, 1]},
 *                {"shape": "surface", "kind": "bowl", "mesh": {"positions": [...],
 *                 "normals": [...], "colors": [...], "indices": [...]}}],
 *    "bodies": [{"id": 0, "radius": 0.1, "mass": 1, "inertia": "solid", "type": "dynamic", "shape": "sphere"},
 *               {"id": 1, ..., "shape": "box", "half_extents": [0.5, 0.25, 0.1]},
 *               {"id": 2, ..., "shape": "hull", "shape_index": 0}],
 *    "shapes": [{"shape": "hull", "triangles": [x0, y0, z0, x1, ...]}]}
 *
 * Surfaces are given as the viewer's tessellation (positions, normals and
 * height colours as flat arrays, triangles as indices), so that a reader
 * needs no surface code. A body's "radius" is a polyhedron's bounding
 * radius; hulls and meshes are given by their triangles in the body frame
 * (9 numbers each, counter-clockwise from outside), once per shape that
 * bodies share, in "shapes". Written to a temporary when the run starts,
 * renamed with the other files when it ends.
 */
#ifndef CAROM_CLI_OUTPUT_SCENE_H
#define CAROM_CLI_OUTPUT_SCENE_H

#include <stddef.h>

#include "carom/carom.h"

/* Writes the world's statics and bodies to a temporary in dir; *tmp_path
 * gets its name. 0, or -1 with a message. */
int output_scene_write(const char *dir, const cr_world *world, char **tmp_path, char *err, size_t err_size);

#endif
