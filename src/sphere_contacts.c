/* The narrow phase of a world of spheres only on the sub-stepped solver
 * (cr_rigid_sphere_path; docs/physics/substep.md, "Spheres"): one point per
 * broad-phase pair within the speculative margin and per body and plane,
 * in the order of rigid_contacts.c's (the pairs in the broad phase's
 * order, then each moving body against the planes), with the same points,
 * normals, separations and frames. What it leaves out is what spheres do
 * not need: carried manifolds and pairs kept apart (hulls), the manifold
 * buffers of the threaded jobs (a sphere pair has one point, written
 * straight into the contact list), and the warm start's binary search over
 * all of last step's contacts (a body's few contacts are scanned instead,
 * in the range the key sort's counters give). It runs on the caller's
 * thread, so its contacts do not depend on the worker count. */
#include <string.h>

#include "contact_keys.h"
#include "rigid.h"

/* The last step's impulses of contact (a, b) (is_plane: b a plane) with
 * this feature: the first of the pair's keys (cr_rigid_find_pair) that has
 * it. */
static const cr_rigid_contact *find_prev(const cr_rigid *r, uint32_t a, bool is_plane, uint32_t b, uint32_t feature)
{
    uint32_t k = cr_rigid_find_pair(r, a, is_plane, b);
    if (k == CR_NO_BODY) return NULL;
    for (uint64_t pair = r->keys[k].pair; k < r->prev_count && r->keys[k].pair == pair; ++k)
        if ((uint32_t)(r->keys[k].rank >> 32) == feature) return &r->prev[(uint32_t)r->keys[k].rank];
    return NULL;
}

/* Appends the point p of a and b (a plane when is_plane); pa, pb: their
 * poses (pb identity at the origin for a plane). */
static bool add_point(cr_world *w, uint32_t a, uint32_t b, bool is_plane, const cr_contact_point *p, const cr_pose *pa,
                      const cr_pose *pb)
{
    cr_rigid *r = w->rigid;
    if (!cr_grow(w, (void **)&r->contacts, &r->contact_capacity, r->contact_count + 1, sizeof *r->contacts))
        return false;
    const cr_bodies *bs = &w->bodies;
    cr_rigid_contact *c = &r->contacts[r->contact_count++];
    c->a = a, c->b = b, c->is_plane = is_plane, c->feature = p->id;
    c->point = p->point, c->normal = p->normal, c->separation = p->separation;
    c->t1 = c->t2 = c->jt = cr_v3_zero();
    c->restitution = bs->restitution[a] * (is_plane ? w->planes.def[b].restitution : bs->restitution[b]);
    c->friction = bs->friction[a] * (is_plane ? w->planes.def[b].friction : bs->friction[b]);
    c->jn = 0.0;
    cr_carry_frames(*pa, *pb, p, &c->la, &c->lb, &c->nb);
    c->ref_x = cr_v3_zero(), c->ref_q = cr_q_identity();
    const cr_rigid_contact *old = find_prev(r, a, is_plane, b, c->feature);
    c->rest_n = old ? old->rest_n : 0.0;
    c->rest_t = old ? old->rest_t : cr_v3_zero();
    return true;
}

cr_status cr_sphere_find_contacts(cr_world *w)
{
    cr_rigid *r = w->rigid;
    const cr_bodies *bs = &w->bodies;
    cr_rigid_take_prev(r);
    r->contact_count = 0;
    r->apart_prev_count = 0; /* hulls' (rigid_contacts.c): none here, none stale if a box comes */
    cr_rigid_wake_touched(w);
    uint32_t n = bs->slot_count;
    if (!cr_grow(w, (void **)&r->poses, &r->pose_capacity, n, sizeof *r->poses) ||
        !cr_grow(w, (void **)&r->reach, &r->reach_capacity, n, sizeof *r->reach))
        goto oom;
    /* each body's pose (the frames) and the speed its surface can reach,
     * once: rigid_contacts.c's pair_margin per pair, summed per body */
    for (uint32_t i = 0; i < n; ++i) {
        if (!cr_slot_alive(bs, i)) continue;
        r->poses[i] = cr_rigid_pose(w, i);
        r->reach[i] = cr_v3_len(bs->v[i]) + cr_v3_len(bs->w[i]) * bs->radius[i];
    }
    double fall = cr_v3_len(w->def.gravity) * w->def.dt, dt = w->def.dt;
    cr_manifold m;
    for (uint32_t k = 0; k < w->broad.pair_count; ++k) {
        uint32_t a = w->broad.pairs[k].a, b = w->broad.pairs[k].b;
        if (!cr_rigid_moves(bs, a) && !cr_rigid_moves(bs, b)) continue; /* static, kinematic or asleep */
        double margin = CR_BASE_MARGIN * fmin(bs->radius[a], bs->radius[b]) + (r->reach[a] + r->reach[b] + fall) * dt;
        if (cr_collide_sphere_sphere(bs->x[a], bs->radius[a], bs->x[b], bs->radius[b], margin, &m) &&
            !add_point(w, a, b, false, &m.p[0], &r->poses[a], &r->poses[b]))
            goto oom;
    }
    const cr_pose world = {cr_v3_zero(), cr_m3_identity()};
    for (uint32_t a = 0; a < n && w->planes.count; ++a) {
        if (!cr_slot_alive(bs, a) || !cr_rigid_moves(bs, a)) continue;
        double margin = CR_BASE_MARGIN * bs->radius[a] + (r->reach[a] + fall) * dt;
        for (uint32_t k = 0; k < w->planes.count; ++k) {
            const cr_plane_def *p = &w->planes.def[k];
            if (cr_collide_sphere_plane(bs->x[a], bs->radius[a], p->normal, cr_v3_dot(p->normal, p->point), margin, &m) &&
                !add_point(w, a, k, true, &m.p[0], &r->poses[a], &world))
                goto oom;
        }
    }
    w->stats.contacts = r->contact_count;
    w->stats.carried_contacts = 0;
    return CR_OK;
oom:
    return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "sphere contacts: out of memory");
}
