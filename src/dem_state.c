/* The DEM's carry for checkpoints (src/dem_state.h).
 *
 * What a step of method dem takes from the last (src/dem.c): the bodies'
 * state, the last step's forces and torques (velocity Verlet's first half
 * kick), the contact history of the touching pairs (pair gran/hooke/history's
 * shear), and the neighbour list, whose order is the order in which each
 * body's forces are summed, and whose build positions decide when the list
 * is built again.
 *
 * The list is not saved: it is rebuilt. cr_dem_build is a pure function of
 * the live bodies at the build (slots, centres, radii, masses, types; the
 * sort is a counting sort by cell with slot order inside a cell, the cell
 * grid from the box and the centres' extent), so the list built from the
 * centres the bodies had at the last build (x_build) is that list, pair for
 * pair and in the same order; the history is carried into it by body pair
 * as a build carries it, and the centres are then put back. A restored
 * world therefore steps as the saved one would, bit for bit
 * (tests/test_checkpoint.c); were the build ever to depend on more (an
 * earlier order, say), that test would fail. */
#include <stdlib.h>
#include <string.h>

#include "dem_internal.h"
#include "dem_state.h"

void cr_dem_carry_free(cr_dem_carry *c)
{
    free(c->a), free(c->b), free(c->shear), free(c->roll), free(c->x_build), free(c->f), free(c->t);
    memset(c, 0, sizeof *c);
}

/* Every live slot is in the DEM's sorted arrays (true after a build until
 * a body is added). */
static bool all_sorted(const cr_world *w, const cr_dem *d)
{
    const cr_bodies *b = &w->bodies;
    if (d->map_slots != b->slot_count) return false;
    for (uint32_t i = 0; i < b->slot_count; ++i)
        if (cr_slot_alive(b, i) && (d->sorted_of[i] == UINT32_MAX || d->sorted_of[i] >= d->n)) return false;
    return true;
}

bool cr_dem_carry_get(const cr_world *w, cr_dem_carry *c)
{
    memset(c, 0, sizeof *c);
    const cr_dem *d = w->dem;
    if (!d || !d->start || !d->chunk) return true;
    cr_dem_sync(w);
    const uint32_t chunks = cr_dem_chunks(d, d->n);
    uint32_t m = 0;
    for (uint32_t k = 0; k < chunks; ++k) m += d->pcount[k];
    c->mode = CR_DEM_CARRY_HISTORY;
    c->contacts = m;
    c->a = malloc(sizeof *c->a * (m ? m : 1));
    c->b = malloc(sizeof *c->b * (m ? m : 1));
    c->shear = malloc(sizeof *c->shear * (m ? m : 1));
    if (d->rolling) c->roll = malloc(sizeof *c->roll * (m ? m : 1));
    if (!c->a || !c->b || !c->shear || (d->rolling && !c->roll)) {
        cr_dem_carry_free(c);
        return false;
    }
    /* the last step's contacts (pk, pi, phist), item by item from each
     * item's first pair: list order */
    for (uint32_t k = 0, h = 0; k < chunks; ++k)
        for (uint32_t e = d->start[k * d->chunk], e1 = e + d->pcount[k]; e < e1; ++e, ++h) {
            c->a[h] = d->slot[d->pi[e]];
            c->b[h] = d->slot[d->nb[d->pk[e]]];
            c->shear[h] = d->phist[e];
            if (c->roll) c->roll[h] = d->prhist[e];
        }
    if (!(d->list_valid && d->forces_valid && all_sorted(w, d))) return true;
    const uint32_t slots = w->bodies.slot_count;
    c->slots = slots;
    c->x_build = calloc(slots ? slots : 1, sizeof *c->x_build);
    c->f = calloc(slots ? slots : 1, sizeof *c->f);
    c->t = calloc(slots ? slots : 1, sizeof *c->t);
    if (!c->x_build || !c->f || !c->t) {
        cr_dem_carry_free(c);
        return false;
    }
    for (uint32_t i = 0; i < slots; ++i) {
        if (!cr_slot_alive(&w->bodies, i)) continue;
        const uint32_t s = d->sorted_of[i];
        c->x_build[i] = d->x_build[s], c->f[i] = d->f[s], c->t[i] = d->t[s];
    }
    c->mode = CR_DEM_CARRY_FORCES;
    return true;
}

cr_status cr_dem_carry_set(cr_world *w, const cr_dem_carry *c)
{
    if (c->mode == CR_DEM_CARRY_NONE) return CR_OK;
    cr_bodies *b = &w->bodies;
    const bool forces = c->mode == CR_DEM_CARRY_FORCES;
    if (forces && c->slots != b->slot_count)
        return cr_fail(w, CR_ERR_INVALID_ARGUMENT, "dem: the carry has %u slots, the world %u", c->slots,
                       b->slot_count);
    cr_vec3 *now = NULL; /* the centres, while the list is built at x_build */
    if (forces) {
        now = malloc(sizeof *now * (b->slot_count ? b->slot_count : 1));
        if (!now) return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "dem: out of memory");
        for (uint32_t i = 0; i < b->slot_count; ++i)
            if (cr_slot_alive(b, i)) now[i] = b->x[i], b->x[i] = c->x_build[i];
    }
    /* the DEM's arrays, from a first set-up (its list and forces are
     * replaced below) */
    cr_status s = cr_dem_prepare(w);
    cr_dem *d = w->dem;
    if (s == CR_OK && !cr_dem_reserve_history(w, d, c->contacts))
        s = cr_fail(w, CR_ERR_OUT_OF_MEMORY, "dem: out of memory");
    if (s == CR_OK) {
        memcpy(d->ha, c->a, sizeof *d->ha * c->contacts);
        memcpy(d->hb, c->b, sizeof *d->hb * c->contacts);
        memcpy(d->hs, c->shear, sizeof *d->hs * c->contacts);
        if (d->hr) {
            if (c->roll) memcpy(d->hr, c->roll, sizeof *d->hr * c->contacts);
            else memset(d->hr, 0, sizeof *d->hr * c->contacts);
        }
        d->hcount = c->contacts;
        const dem_box bx = cr_dem_box_of(w);
        s = cr_dem_build_carrying(w, &bx);
    }
    if (forces) {
        for (uint32_t i = 0; i < b->slot_count; ++i) {
            if (!cr_slot_alive(b, i)) continue;
            b->x[i] = now[i];
            if (s != CR_OK) continue;
            const uint32_t k = d->sorted_of[i];
            d->xr[4 * (size_t)k] = now[i].x, d->xr[4 * (size_t)k + 1] = now[i].y, d->xr[4 * (size_t)k + 2] = now[i].z;
            d->f[k] = c->f[i], d->t[k] = c->t[i];
        }
        free(now);
    }
    if (s != CR_OK) return s;
    /* FORCES: the next step starts from these; HISTORY: it sets up again,
     * carrying the history from this list */
    d->forces_valid = forces;
    d->world_stale = false;
    return CR_OK;
}

cr_status cr_dem_carry_kept(cr_world *w, const cr_dem_carry *c)
{
    cr_dem_carry now;
    if (!cr_dem_carry_get(w, &now)) return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "dem: out of memory");
    uint32_t k = 0;
    while (k < c->contacts && k < now.contacts && c->a[k] == now.a[k] && c->b[k] == now.b[k] &&
           memcmp(&c->shear[k], &now.shear[k], sizeof c->shear[k]) == 0 &&
           (!c->roll || !now.roll || memcmp(&c->roll[k], &now.roll[k], sizeof c->roll[k]) == 0))
        ++k;
    cr_status s = CR_OK;
    if (now.mode != c->mode)
        s = cr_fail(w, CR_ERR_INVALID_ARGUMENT, "dem: mode %u, the bodies and history give mode %u", (unsigned)c->mode,
                    (unsigned)now.mode);
    else if (k < c->contacts || now.contacts != c->contacts)
        s = cr_fail(w, CR_ERR_INVALID_ARGUMENT,
                    "dem: contact %u of %u (bodies %u, %u) is not the list's touching pair %u of %u (a pair the list "
                    "does not hold, twice, or out of list order)",
                    k, c->contacts, k < c->contacts ? c->a[k] : 0u, k < c->contacts ? c->b[k] : 0u, k, now.contacts);
    /* mode 2: each live body's build centre, force and torque (a centre
     * outside a periodic box comes back wrapped into it) */
    for (uint32_t i = 0; s == CR_OK && c->mode == CR_DEM_CARRY_FORCES && i < c->slots; ++i)
        if (cr_slot_alive(&w->bodies, i) && (memcmp(&c->x_build[i], &now.x_build[i], sizeof c->x_build[i]) != 0 ||
                                             memcmp(&c->f[i], &now.f[i], sizeof c->f[i]) != 0 ||
                                             memcmp(&c->t[i], &now.t[i], sizeof c->t[i]) != 0))
            s = cr_fail(w, CR_ERR_INVALID_ARGUMENT,
                        "dem: body %u's build centre, force or torque does not come back as read (a centre outside "
                        "the periodic box?)",
                        i);
    cr_dem_carry_free(&now);
    return s;
}
