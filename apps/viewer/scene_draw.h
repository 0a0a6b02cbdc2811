/* carom viewer — a snapshot turned into a draw list: every ball a sphere,
 * every box, hull and mesh its lit triangles at the body's pose, every
 * plane a large polygon cut by the others, every surface its cached
 * tessellation. Shared by the window and the headless renderer. */
#ifndef CAROM_VIEWER_SCENE_DRAW_H
#define CAROM_VIEWER_SCENE_DRAW_H

#include "draw_list.h"
#include "snapshot.h"

/* dl is cleared first. 0, or -1 when out of memory. */
int scene_draw_build(draw_list *dl, const view_snapshot *s, const draw_options *options);

#endif
