/* Sleeping islands (issue 8: "bodies at rest sleep in islands"). A body is
 * still while its centre and the points of its bounding sphere move slower
 * than def.sleep_speed; an island (bodies joined by this step's contacts and
 * by joints; static and kinematic bodies do not join islands) whose bodies
 * have all been still for def.sleep_time falls asleep: velocities zero, no
 * motion, no contacts among sleeping bodies, no rows. It wakes whole when an
 * awake moving body comes within touching range (the broad phase's boxes
 * overlap), when a joint is added to one of its bodies, or when the user
 * sets a body's state. */
#include <string.h>

#include "rigid.h"
#include "union_find.h"

static bool awake_mover(const cr_world *w, uint32_t i)
{
    const cr_bodies *b = &w->bodies;
    if (b->type[i] == CR_BODY_KINEMATIC) return cr_v3_len2(b->v[i]) > 0.0 || cr_v3_len2(b->w[i]) > 0.0;
    return cr_rigid_moves(b, i);
}

void cr_rigid_wake(cr_world *w, uint32_t i)
{
    cr_bodies *b = &w->bodies;
    if (!b->asleep[i]) return;
    uint32_t island = b->island[i];
    for (uint32_t k = 0; k < b->slot_count; ++k)
        if (cr_slot_alive(b, k) && b->asleep[k] && b->island[k] == island) {
            b->asleep[k] = 0;
            b->still[k] = 0.0;
        }
}

void cr_rigid_wake_touched(cr_world *w)
{
    if (w->def.sleep_time <= 0.0) return;
    const cr_bodies *b = &w->bodies;
    for (uint32_t p = 0; p < w->broad.pair_count; ++p) {
        uint32_t i = w->broad.pairs[p].a, j = w->broad.pairs[p].b;
        if (b->asleep[i] && awake_mover(w, j)) cr_rigid_wake(w, i);
        else if (b->asleep[j] && awake_mover(w, i)) cr_rigid_wake(w, j);
    }
}

/* union-find over body slots, in r->colliding's storage is not enough: the
 * islands use the bodies' own island array as the parent links */

static void join(const cr_bodies *b, uint32_t *parent, uint32_t i, uint32_t j)
{
    if (i == CR_NO_BODY || j == CR_NO_BODY || !cr_rigid_moves(b, i) || !cr_rigid_moves(b, j)) return;
    cr_uf_union(parent, i, j); /* the smaller slot is the root: deterministic */
}

cr_status cr_rigid_update_sleep(cr_world *w)
{
    cr_bodies *b = &w->bodies;
    cr_rigid *r = w->rigid;
    uint32_t sleeping = 0;
    if (w->def.sleep_time <= 0.0) {
        w->stats.sleeping = 0;
        return CR_OK;
    }
    uint32_t *parent = b->island;
    for (uint32_t i = 0; i < b->slot_count; ++i) {
        if (!cr_slot_alive(b, i) || !cr_rigid_moves(b, i)) continue;
        parent[i] = i;
        double speed = cr_v3_len(b->v[i]) + cr_v3_len(b->w[i]) * b->radius[i];
        b->still[i] = speed < w->def.sleep_speed ? b->still[i] + w->def.dt : 0.0;
    }
    for (uint32_t k = 0; k < r->contact_count; ++k)
        if (!r->contacts[k].is_plane) join(b, parent, r->contacts[k].a, r->contacts[k].b);
    for (uint32_t k = 0; k < r->joint_count; ++k)
        if (r->joints[k].generation & 1u) join(b, parent, r->joints[k].a, r->joints[k].b);
    /* an island's stillness is its least still body's; roots come first in
     * slot order, so one pass up and one pass down settle every body */
    double *least = r->island_still;
    for (uint32_t i = 0; i < b->slot_count; ++i)
        if (cr_slot_alive(b, i) && cr_rigid_moves(b, i)) {
            parent[i] = cr_uf_find(parent, i);
            least[i] = b->still[i];
        }
    for (uint32_t i = 0; i < b->slot_count; ++i)
        if (cr_slot_alive(b, i) && cr_rigid_moves(b, i) && parent[i] != i && b->still[i] < least[parent[i]])
            least[parent[i]] = b->still[i];
    for (uint32_t i = 0; i < b->slot_count; ++i) {
        if (!cr_slot_alive(b, i) || b->type[i] != CR_BODY_DYNAMIC) continue;
        if (!b->asleep[i] && least[parent[i]] >= w->def.sleep_time) {
            b->asleep[i] = 1;
            b->v[i] = b->w[i] = cr_v3_zero();
        }
        sleeping += b->asleep[i];
    }
    w->stats.sleeping = sleeping;
    return CR_OK;
}

bool cr_body_is_asleep(const cr_world *w, cr_body_id id)
{
    return cr_body_is_valid(w, id) && w->bodies.asleep[id.index];
}
