/* The rigid pipeline's carry for checkpoints (src/rigid_state.h).
 *
 * What a step of the rigid pipeline takes from the last besides the
 * bodies (rigid_step.c's stages): the last step's contacts, whose
 * impulses warm-start the next step's solve (rest_n, rest_t, looked up by
 * body pair and feature: rigid_contacts.c's find_prev, sphere_contacts.c's
 * warm_of) and whose frames carry resting hulls' manifolds over
 * (collide_carry.c); the pairs of hulls found apart, which the next
 * narrow phase skips while they cannot have met (collide_apart.c); and on
 * the sphere path (cr_rigid_sphere_path) the
 * pair list with a skin, whose order is the order of the step's contacts,
 * so of the solve's colouring and passes, and whose grown boxes decide
 * when it is built again (sphere_pairs.h).
 *
 * The contacts are saved whole but for what each step sets afresh before
 * reading it (the friction axes t1, t2, restitution and friction). The
 * sorted keys of the look-up are not saved: the next step sorts them from
 * the contacts (cr_rigid_sort_prev_keys), the keys the saved run had. The
 * sphere path's walk over its own keys (sphere_contacts.c) is not taken
 * on the first step after a load (its keys are marked as made in no
 * step): the look-up gives each contact the same last-step contact, so
 * the same bits (tests/test_checkpoint_substep.c, and warm_by_keys in
 * tests/test_sphere_substep.c).
 *
 * The pair list is not saved: it is built again. cr_broad_build is a pure
 * function of the boxes of the slots it covers and the size hint (a grid
 * counting-sorted by cell, slot order inside a cell), so the grown boxes of
 * the last build give that list, pair for pair and in the same order. */
#include <string.h>

#include "rigid_state.h"
#include "sphere_pairs.h"

void cr_rigid_carry_get(const cr_world *w, cr_rigid_carry *c)
{
    memset(c, 0, sizeof *c);
    const cr_rigid *r = w->rigid;
    if (!r) return;
    if (r->kept) {
        /* kept_count: 0 once a body was removed since (its slot may be
         * reused), the contacts still reported */
        c->contacts = r->contact_count, c->warm = r->kept_count, c->c = r->contacts;
    } else {
        /* between steps only before the first, or after a step that
         * failed: the next step warm-starts from prev as it is */
        c->contacts = c->warm = r->prev_count, c->c = r->prev;
    }
    c->apart = r->apart_prev_count, c->a = r->apart_prev;
    const cr_sphere_pairs *L = r->sphere_pairs;
    if (!L) return;
    c->list_builds = L->builds;
    c->list_slots = L->n;
    c->list_hint = L->grid.size_hint;
    c->lo = L->grid.lo, c->hi = L->grid.hi;
}

cr_status cr_rigid_carry_set(cr_world *w, const cr_rigid_carry *c)
{
    if (!c->contacts && !c->apart && !c->list_slots && !c->list_builds) return CR_OK;
    cr_status s = cr_rigid_ensure(w);
    if (s != CR_OK) return s;
    cr_rigid *r = w->rigid;
    if (!cr_grow(w, (void **)&r->contacts, &r->contact_capacity, c->contacts ? c->contacts : 1, sizeof *r->contacts))
        goto oom;
    if (c->contacts) memcpy(r->contacts, c->c, sizeof *r->contacts * c->contacts);
    r->contacts_lean = 0; /* the frames as restored */
    /* as cr_rigid_keep_contacts left them: the next narrow phase takes the
     * first warm of them as the last step's */
    r->contact_count = c->contacts;
    r->kept = true;
    r->kept_count = c->warm;
    r->prev_count = 0;
    r->prev_sorted = false;
    /* the pairs apart as note_apart left them: sorted, and where each
     * body's entries end (a body made since has none either way) */
    uint32_t slots = w->bodies.slot_count;
    if (!cr_grow(w, (void **)&r->apart_prev, &r->apart_prev_capacity, c->apart ? c->apart : 1, sizeof *r->apart_prev) ||
        !cr_grow(w, (void **)&r->apart_end, &r->apart_end_capacity, slots ? slots : 1, sizeof *r->apart_end))
        goto oom;
    if (c->apart) memcpy(r->apart_prev, c->a, sizeof *r->apart_prev * c->apart);
    r->apart_prev_count = c->apart;
    for (uint32_t i = 0, k = 0; i < slots; ++i) {
        while (k < c->apart && c->a[k].a == i) ++k;
        r->apart_end[i] = k;
    }
    r->apart_buckets = slots;
    if (!c->list_slots && !c->list_builds) return CR_OK;
    cr_sphere_pairs *L = cr_sphere_pairs_ensure(w);
    if (!L) goto oom;
    if (c->list_slots) {
        if (!cr_broad_reserve(w, &L->grid, c->list_slots)) goto oom;
        memcpy(L->grid.lo, c->lo, sizeof *c->lo * c->list_slots);
        memcpy(L->grid.hi, c->hi, sizeof *c->hi * c->list_slots);
        L->grid.size_hint = c->list_hint;
        if (!cr_broad_build(w, &L->grid, c->list_slots)) goto oom;
        L->n = c->list_slots;
    }
    L->builds = c->list_builds;
    return CR_OK;
oom:
    return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "rigid state: out of memory");
}
