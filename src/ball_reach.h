/* Whether two balls, each anywhere in a box that holds its sphere along its
 * path, can come to touch. Internal (the event groups' queries and escaped
 * boxes, event_groups.c).
 *
 * A box that holds a ball of radius r (a path box, cr_body_path_box; a grid
 * box, stage_broad.c sphere_box; a union of those) holds its centre inside
 * the box shrunk by r on every side. The two balls touch only where their
 * centres come within r_i + r_j, so where the two shrunk boxes lie further
 * apart than r_i + r_j + gap they never do, however each moves inside its
 * box. Two boxes that overlap at a corner often hold balls that are apart:
 * a ball's box is a cube about its sphere, and the cubes of two balls
 * sqrt(2) (r_i + r_j) apart across a diagonal still overlap. */
#ifndef CAROM_BALL_REACH_H
#define CAROM_BALL_REACH_H

#include <stdbool.h>

#include "carom/math.h"

/* The gap along one axis between [alo, ahi] and [blo, bhi] (0 where they
 * overlap): comparisons, no libm call on the queries' path. */
static inline double cr_axis_gap(double alo, double ahi, double blo, double bhi)
{
    double g = blo - ahi, h = alo - bhi;
    g = g > h ? g : h;
    return g > 0.0 ? g : 0.0;
}

/* Ball i (radius ri) in box [ilo, ihi] and ball j (rj) in [jlo, jhi] stay
 * further apart than gap: true only when no placement of the two centres in
 * their shrunk boxes comes within ri + rj + gap. A box too small to hold
 * its ball (or NaN) says nothing: false. */
static inline bool cr_balls_apart(cr_vec3 ilo, cr_vec3 ihi, double ri, cr_vec3 jlo, cr_vec3 jhi, double rj, double gap)
{
    cr_vec3 a = cr_v3(ilo.x + ri, ilo.y + ri, ilo.z + ri), b = cr_v3(ihi.x - ri, ihi.y - ri, ihi.z - ri);
    cr_vec3 c = cr_v3(jlo.x + rj, jlo.y + rj, jlo.z + rj), d = cr_v3(jhi.x - rj, jhi.y - rj, jhi.z - rj);
    if (!(a.x <= b.x && a.y <= b.y && a.z <= b.z && c.x <= d.x && c.y <= d.y && c.z <= d.z)) return false;
    double gx = cr_axis_gap(a.x, b.x, c.x, d.x), gy = cr_axis_gap(a.y, b.y, c.y, d.y), gz = cr_axis_gap(a.z, b.z, c.z, d.z);
    double reach = ri + rj + gap;
    return gx * gx + gy * gy + gz * gz > reach * reach;
}

#endif
