/* The rigid-body step (seed 003), stage by stage:
 *   predict      world-frame inverse inertia of every body
 *   broad phase  swept bounding spheres -> candidate pairs (the uniform grid)
 *   contacts     narrow phase: vertex/face, edge/edge, sphere and plane points
 *   solve        colliding contact: impulses from -J M^-1 J^T lambda = E J v
 *                with the joints, repeated while new contacts collide; then
 *                gravity, and resting contact with friction and the joints in
 *                one multiplier system (negative multipliers dropped)
 *   finish       positions and orientations, drift correction of joints and
 *                overlaps (seed 000 c.5's projection with k_p), energy guard,
 *                finiteness check
 * Velocities are solved as impulses over the step (force = lambda / dt). */
#include <string.h>

#include "shape_internal.h"
#include "rigid.h"
#include "sphere_pairs.h"

cr_status cr_rigid_ensure(cr_world *w)
{
    if (w->rigid) return CR_OK;
    w->rigid = cr_alloc(w, sizeof *w->rigid);
    if (!w->rigid) return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "rigid bodies: out of memory");
    memset(w->rigid, 0, sizeof *w->rigid);
    w->rigid->ws = cr_lcp_workspace_create();
    if (!w->rigid->ws) {
        cr_free(w, w->rigid);
        w->rigid = NULL;
        return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "rigid bodies: out of memory");
    }
    return CR_OK;
}

void cr_rigid_free(cr_world *w)
{
    cr_rigid *r = w->rigid;
    if (!r) return;
    cr_free(w, r->joints);
    cr_free(w, r->contacts);
    cr_free(w, r->prev);
    cr_free(w, r->keys);
    cr_free(w, r->key_tmp);
    cr_free(w, r->key_count);
    cr_free(w, r->rows);
    cr_free(w, r->lb);
    cr_free(w, r->poses);
    cr_free(w, r->colliding);
    cr_free(w, r->in_round);
    cr_free(w, r->inv_inertia_world);
    cr_free(w, r->island_still);
    cr_free(w, r->jobs);
    cr_free(w, r->manifolds);
    cr_free(w, r->jointed);
    cr_free(w, r->joined);
    cr_free(w, r->apart);
    cr_free(w, r->apart_prev);
    cr_free(w, r->apart_end);
    cr_rigid_substep_free(w);
    cr_sphere_substep_free(w);
    cr_sphere_pairs_free(w);
    cr_lcp_workspace_destroy(r->ws);
    cr_free(w, r);
    w->rigid = NULL;
}

bool cr_rigid_reserve_rows(cr_world *w, uint32_t n)
{
    return cr_grow(w, (void **)&w->rigid->rows, &w->rigid->row_capacity, n, sizeof *w->rigid->rows);
}

static cr_mat3 world_tensor(cr_quat q, cr_mat3 local)
{
    cr_mat3 R = cr_q_to_m3(q);
    return cr_m3_mul(cr_m3_mul(R, local), cr_m3_transpose(R));
}

cr_status cr_rigid_predict(cr_world *w)
{
    cr_status s = cr_rigid_ensure(w);
    if (s != CR_OK) return s;
    cr_rigid *r = w->rigid;
    cr_bodies *b = &w->bodies;
    uint32_t n = b->slot_count;
    uint32_t c1 = r->inertia_capacity;
    if (!cr_grow(w, (void **)&r->inv_inertia_world, &c1, n, sizeof *r->inv_inertia_world) ||
        !cr_grow(w, (void **)&r->lb, &r->lb_capacity, n, sizeof *r->lb) ||
        !cr_grow(w, (void **)&r->island_still, &r->island_capacity, n, sizeof *r->island_still))
        return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "rigid bodies: out of memory");
    r->inertia_capacity = c1;
    /* the sphere path reads none (a sphere's inverse inertia is a scalar) */
    for (uint32_t i = 0; i < n && !cr_rigid_sphere_path(w); ++i)
        r->inv_inertia_world[i] = cr_slot_alive(b, i) ? world_tensor(b->q[i], b->inv_inertia_local[i]) : cr_m3_zero();
    return CR_OK;
}

/* The bounding sphere swept over the step, with the speculative margin. The
 * grid's cell follows the moving bodies: a large static mesh goes on the
 * broad phase's list of large boxes. */
static double rigid_box(const cr_world *w, uint32_t i, cr_vec3 *lo, cr_vec3 *hi)
{
    const cr_bodies *b = &w->bodies;
    double dt = w->def.dt;
    cr_vec3 x0 = b->x[i], x1 = cr_v3_madd(x0, cr_v3_madd(b->v[i], w->def.gravity, dt), dt);
    double pad = b->radius[i] * 1.02 + cr_v3_len(b->w[i]) * b->radius[i] * dt;
    cr_vec3 padv = cr_v3(pad, pad, pad);
    *lo = cr_v3_sub(cr_v3_min(x0, x1), padv);
    *hi = cr_v3_add(cr_v3_max(x0, x1), padv);
    return cr_rigid_moves(b, i) ? b->radius[i] : 0.0;
}

/* A world of spheres only keeps a pair list with a skin (sphere_pairs.h):
 * the same pairs, the grid asked only when a box leaves the list's. */
cr_status cr_rigid_broad_phase(cr_world *w)
{
    return cr_rigid_sphere_path(w) ? cr_sphere_broad_phase(w, rigid_box) : cr_broad_phase_boxes(w, rigid_box);
}

cr_status cr_rigid_contacts(cr_world *w)
{
    return cr_rigid_sphere_path(w) ? cr_sphere_find_contacts(w) : cr_rigid_find_contacts(w);
}
