/* Resting contacts of balls on surfaces.
 *
 * Seed 004 plans each ball on its own, under gravity and the surface. Two
 * balls that lie against each other in a valley, or a ball against a wall,
 * would then be driven into each other every step and pushed apart again
 * by position projection, which costs energy it has not got. Seed 001 §3.2
 * gives the missing piece: a resting contact exerts the force that stops
 * the acceleration into it, f_c = -n.F_ext, and nothing when it would pull.
 * So each ball collects the directions it leans on (touching balls and
 * walls), and its plan removes the parts of its velocity and acceleration
 * that point into them (rolling.c). These forces do no work along the path,
 * so the energy balance of eq. 43 is unchanged.
 */
#include "world_internal.h"

void cr_rest_add(cr_world *w, uint32_t i, cr_vec3 n)
{
    cr_rest_set *r = &w->bodies.rest[i];
    if (r->count < CR_REST_MAX) r->n[r->count++] = n;
}

/* Touching within a millionth of the radii: a resting contact. */
static bool leaning(double gap, double scale) { return gap <= 1e-6 * scale; }

cr_status cr_surface_resting_contacts(cr_world *w)
{
    cr_bodies *b = &w->bodies;
    if (w->surfaces.count == 0) return CR_OK;
    for (uint32_t k = 0; k < w->broad.pair_count; ++k) {
        uint32_t i = w->broad.pairs[k].a, j = w->broad.pairs[k].b;
        bool on_i = b->surface[i] != CR_NO_SURFACE, on_j = b->surface[j] != CR_NO_SURFACE;
        if (!on_i && !on_j) continue;
        cr_vec3 n;
        double gap = -cr_overlap_sphere_sphere(b->x[i], b->radius[i], b->x[j], b->radius[j], &n);
        if (!leaning(gap, b->radius[i] + b->radius[j])) continue;
        if (on_i && cr_slot_dynamic(b, i)) cr_rest_add(w, i, n);
        if (on_j && cr_slot_dynamic(b, j)) cr_rest_add(w, j, cr_v3_neg(n));
    }
    for (uint32_t i = 0; i < b->slot_count; ++i) {
        if (!cr_slot_alive(b, i) || b->surface[i] == CR_NO_SURFACE || !cr_slot_dynamic(b, i)) continue;
        for (uint32_t k = 0; k < w->planes.count; ++k) {
            const cr_plane_def *pl = &w->planes.def[k];
            if (leaning(-cr_penetration_sphere_plane(b->x[i], b->radius[i], pl->point, pl->normal), b->radius[i]))
                cr_rest_add(w, i, pl->normal);
        }
        if (b->rest[i].count == 0) continue;
        cr_body_plan(w, i);
        b->replanned[i] = 1;
        double dt = w->def.dt, pad = b->radius[i] * (1.0 + 1e-3);
        cr_vec3 x0 = b->x[i], x1 = cr_body_position_at(w, i, dt);
        if (!cr_broad_extend(w, &w->broad, i, cr_v3_sub(cr_v3_min(x0, x1), cr_v3(pad, pad, pad)),
                             cr_v3_add(cr_v3_max(x0, x1), cr_v3(pad, pad, pad))))
            return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "contacts: out of memory");
    }
    return CR_OK;
}
