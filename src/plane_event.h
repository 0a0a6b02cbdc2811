/* A ball's impact with a plane inside the step (stage 4, events.c): the
 * quadratic gap of seed 000 eq. 5.9 along the body's path, and a cheap
 * bound that tells at once that a path keeps clear of a plane.
 *
 * Pure functions of the body's plan and the plane: they read the world and
 * write nothing, so that the events stage's first round can take the
 * bodies over the workers. Inline: the events stage asks about every plane
 * for each body it predicts, two bodies per impact. */
#ifndef CAROM_PLANE_EVENT_H
#define CAROM_PLANE_EVENT_H

#include "world_internal.h"

/* When body i meets plane k: INFINITY for never in the step. */
static inline double cr_plane_impact_time(const cr_world *w, uint32_t i, uint32_t k)
{
    const cr_bodies *b = &w->bodies;
    if (!cr_slot_dynamic(b, i)) return INFINITY; /* kinematic bodies ignore statics */
    const cr_plane_def *pl = &w->planes.def[k];
    double ts = b->t_local[i], r = b->radius[i];
    double gap = -cr_penetration_sphere_plane(b->x[i], r, pl->point, pl->normal);
    double vn = cr_v3_dot(pl->normal, b->v[i]), vpn = cr_v3_dot(pl->normal, b->vpath[i]);
    if (gap <= cr_touching_gap(w, r))
        /* Touching, or behind the plane (signed penetration, seed 000):
         * an impact if driving in; resting contact is not an event. */
        return -vn > w->resting_speed ? ts : INFINITY;
    if (gap <= cr_contact_margin(w, 2.0 * r) && -vn <= w->resting_speed) return INFINITY;
    double t;
    if (cr_toi_quadratic(gap, vpn, 0.5 * cr_v3_dot(pl->normal, b->acc[i]), 0.0, w->def.dt - ts, &t) != CR_TOI_HIT)
        return INFINITY;
    return ts + t;
}

/* Body i's path box (cr_body_path_box: it holds the ball of radius r +
 * touch margin, a cube of that half-edge, around every point of the body's
 * path in the rest of the step) and the clearance from a plane that rules
 * an impact out (cr_plane_clear). */
typedef struct cr_path_bound {
    cr_vec3 lo, hi;
    double clear;
} cr_path_bound;

static inline double cr_abs_max(double a, double b) { return fabs(a) > fabs(b) ? fabs(a) : fabs(b); }

/* box: body i's path box when at hand (lo, hi), else NULL (taken here). */
static inline void cr_path_bound_of(const cr_world *w, uint32_t i, const cr_vec3 *box, cr_path_bound *pb)
{
    if (box) {
        pb->lo = box[0];
        pb->hi = box[1];
    } else {
        cr_body_path_box(w, i, &pb->lo, &pb->hi);
    }
    double r = w->bodies.radius[i];
    double size = cr_abs_max(pb->lo.x, pb->hi.x) + cr_abs_max(pb->lo.y, pb->hi.y) + cr_abs_max(pb->lo.z, pb->hi.z) + r;
    pb->clear = cr_touching_gap(w, r) + 1e-9 * size;
}

/* Whether the path keeps clear of plane k: the box's corner deepest behind
 * the plane is in front of it by more than the touching gap, with room for
 * rounding (1e-9 of the coordinates' size, far above the roundings of the
 * box, of the gap and of the quadratic's root, a few 1e-16 of it). Every
 * point x(t) of the path has x(t) - (r + touch margin) n inside the box (n
 * a unit vector), so the gap n.(x(t) - p) - r (seed 000 eq. 5.9) stays
 * above the touching gap all along the path: cr_plane_impact_time finds no
 * impact. A dozen operations against its gap, speeds and root. A box with
 * a NaN or an infinity is never clear. */
static inline bool cr_plane_clear(const cr_world *w, uint32_t k, const cr_path_bound *pb)
{
    const cr_plane_def *pl = &w->planes.def[k];
    cr_vec3 n = pl->normal, p = pl->point; /* n: unit (cr_world_add_plane) */
    cr_vec3 c = cr_v3(n.x >= 0.0 ? pb->lo.x : pb->hi.x, n.y >= 0.0 ? pb->lo.y : pb->hi.y,
                      n.z >= 0.0 ? pb->lo.z : pb->hi.z);
    return cr_v3_dot(n, cr_v3_sub(c, p)) > pb->clear + 1e-9 * (fabs(p.x) + fabs(p.y) + fabs(p.z));
}

#endif
