/* Stage 5, finish: every body to the end of the step, position projection
 * (seed 000 c.5-c.6, eq. 5.27/5.28 with k_p; projection.c), and the
 * finiteness check. */
#include "world_internal.h"

static double max_penetration(const cr_world *w)
{
    const cr_bodies *b = &w->bodies;
    double worst = 0.0;
    for (uint32_t k = 0; k < w->broad.pair_count; ++k) {
        uint32_t i = w->broad.pairs[k].a, j = w->broad.pairs[k].b;
        double reach = b->radius[i] + b->radius[j];
        /* apart (with room for rounding): nothing to add */
        if (cr_v3_len2(cr_v3_sub(b->x[i], b->x[j])) > reach * reach * (1.0 + 1e-9)) continue;
        worst = fmax(worst, cr_overlap_sphere_sphere(b->x[i], b->radius[i], b->x[j], b->radius[j], NULL));
    }
    for (uint32_t i = 0; i < b->slot_count; ++i) {
        if (!cr_slot_alive(b, i) || !cr_slot_dynamic(b, i)) continue;
        for (uint32_t k = 0; k < w->planes.count; ++k)
            worst = fmax(worst, cr_penetration_sphere_plane(b->x[i], b->radius[i], w->planes.def[k].point,
                                                            w->planes.def[k].normal));
    }
    return worst;
}

cr_status cr_check_finite(cr_world *w, const char *hint)
{
    const cr_bodies *b = &w->bodies;
    for (uint32_t i = 0; i < b->slot_count; ++i) {
        if (!cr_slot_alive(b, i)) continue;
        const char *what = !cr_v3_isfinite(b->x[i])   ? "position"
                           : !cr_v3_isfinite(b->v[i]) ? "velocity"
                           : !cr_v3_isfinite(b->w[i]) ? "angular velocity"
                                                      : NULL;
        if (what) {
            w->failed = true;
            return cr_fail(w, CR_ERR_NON_FINITE, "body %u: non-finite %s at step %llu (t = %.17g); the world stopped%s",
                           i, what, (unsigned long long)w->steps + 1, w->time + w->def.dt, hint);
        }
    }
    return CR_OK;
}

/* Seed 004 §4's energy control through the end-of-step position
 * corrections in a world with surfaces: what a ball gained is taken out of
 * its own kinetic energy; what a ball lying (almost) still cannot pay is
 * taken from all of them in proportion, so the corrections never make
 * energy. */
static void cap_surface_energy(cr_world *w)
{
    cr_bodies *b = &w->bodies;
    double owed = 0.0, kinetic = 0.0;
    for (uint32_t i = 0; i < b->slot_count; ++i)
        if (cr_slot_alive(b, i) && cr_slot_dynamic(b, i)) {
            owed += cr_body_cap_energy(w, i, b->energy_before[i]);
            kinetic += cr_body_kinetic(w, i);
        }
    if (!(owed > 0.0)) return;
    double k = kinetic > owed ? sqrt((kinetic - owed) / kinetic) : 0.0;
    for (uint32_t i = 0; i < b->slot_count; ++i)
        if (cr_slot_alive(b, i) && cr_slot_dynamic(b, i)) cr_body_scale_kinetic(w, i, k);
}

cr_status cr_stage_finish(cr_world *w)
{
    cr_bodies *b = &w->bodies;
    double dt = w->def.dt;
    /* In a world with surfaces, seed 004 §4's energy control holds through
     * the end of the step: the last stretch of each plan and the position
     * corrections below may move balls, never give them energy. */
    bool surfaces = w->surfaces.count > 0;
    if (surfaces)
        for (uint32_t i = 0; i < b->slot_count; ++i)
            if (cr_slot_alive(b, i) && cr_slot_dynamic(b, i)) b->energy_before[i] = cr_body_energy(w, i);
    for (uint32_t i = 0; i < b->slot_count; ++i)
        if (cr_slot_alive(b, i)) cr_body_advance(w, i, dt);
    cr_status s = cr_project_positions(w);
    if (s != CR_OK) return s;
    cr_balls_keep_above_surfaces(w);
    if (surfaces) cap_surface_energy(w);
    s = cr_check_finite(w, "");
    if (s != CR_OK) return s;
    w->stats.max_penetration = max_penetration(w);
    w->steps++;
    w->time = w->time_base + (double)(w->steps - w->steps_base) * dt;
    return CR_OK;
}
