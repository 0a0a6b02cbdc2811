/* The narrow phase of a world of spheres only on the sub-stepped solver
 * (cr_rigid_sphere_path; docs/physics/substep.md, "Spheres"): one point per
 * broad-phase pair within the speculative margin and per body and plane,
 * in the order of rigid_contacts.c's (the pairs in the broad phase's
 * order, then each moving body against the planes), with the same points,
 * normals and separations. What it leaves out is what spheres do not
 * need: the frames carried in the bodies' (la, lb, nb: zero; the finish
 * measures a sphere's contacts by the centres, rigid_finish.c), carried
 * manifolds and pairs kept apart (hulls), the manifold
 * buffers of the threaded jobs (a sphere pair has one point, written
 * straight into the contact list), and the warm start's binary search over
 * all of last step's contacts: while the pair list stays, the last step's
 * contacts are walked in the list's order (warm_of, below); otherwise a
 * body's few contacts are scanned, in the range the key sort's counters
 * give.
 *
 * Over the workers, in work items of pairs and then of bodies (against the
 * planes): one pass counts each item's points (and lists the pairs, and
 * the pairs of a body and a plane, that have one), a serial sum gives each
 * item its first index in the contact list, and a second pass writes them
 * there, taking only the listed pairs: the same list, in the same order,
 * on any worker count. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "contact_keys.h"
#include "prefetch.h"
#include "rigid.h"
#include "soft_sections.h"
#include "sphere_pairs.h"

/* Broad-phase pairs, and bodies, a work item takes. Only the split over
 * the workers depends on them, never the contacts. */
#define CR_SPHERE_PAIR_ITEM 2048
#define CR_SPHERE_BODY_ITEM 1024
/* Pass two fetches the material entry of the pair's second ball this many
 * hits ahead: at random among 27,000 balls, it missed a core's L2 on most
 * contacts. */
#define CR_MATERIAL_AHEAD 8
/* and the walk's last-step contact (its identity and warm start, the
 * first 48 bytes) this many contacts ahead */
#define CR_PREV_AHEAD 16
/* and pass one the second ball's entry, this many pairs ahead */
#define CR_BALL_AHEAD 16

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

/* The warm start by the list's order. While the pair list is not built
 * again, a listed pair keeps its entry, and the contacts come in the
 * list's order (the pairs', then each body's against the planes in body
 * and plane order): each contact's key (sphere_pairs.h: its list entry, or
 * 1 << 63 | a << 32 | k on plane k) rises along the contact list, this
 * step's as the last's. A contact's last-step contact is then the one of
 * the same key, found by walking the last step's keys forward beside the
 * item's (from the first at or after the item's first key, by a binary
 * search) instead of looking each up among all of body a's keys: the same
 * contact as cr_rigid_find_pair's (same bodies, same plane, same feature),
 * read in order. */

/* Where an item's contacts find their warm start: by the walk (prev_key)
 * or by the look-up (prev_key NULL). */
typedef struct warm_walk {
    const cr_rigid *r;
    const uint64_t *prev_key;
    uint32_t at; /* the walk's place in prev_key */
} warm_walk;

/* The last step's contact of key (a, b, is_plane, feature), if any; keys
 * come rising. */
static const cr_rigid_contact *warm_of(warm_walk *k, uint64_t key, uint32_t a, bool is_plane, uint32_t b,
                                       uint32_t feature)
{
    const cr_rigid *r = k->r;
    if (!k->prev_key) return find_prev(r, a, is_plane, b, feature);
    while (k->at < r->prev_count && k->prev_key[k->at] < key) ++k->at;
    const cr_rigid_contact *old = k->at < r->prev_count && k->prev_key[k->at] == key ? &r->prev[k->at] : NULL;
    return old && old->feature == feature ? old : NULL;
}

/* Writes the point p of a and b (a plane when is_plane) to c; e, mu: the
 * pair's restitution and friction (the product of the two sides'); old:
 * its last-step contact (warm_of) or NULL. No frames (la, lb, nb zero):
 * nothing on the sphere path reads them (the finish measures by the
 * centres), and their transforms by both balls' matrices, with each
 * ball's matrix made and fetched, were about a third of this stage at
 * 27,000 balls (docs/benchmarks.md, pit21). c's frames are already a
 * sphere contact's (lean_frames), so they are not written again: 176 of
 * its 328 bytes, whose cache lines this pass then neither reads for
 * ownership nor writes back (docs/benchmarks.md, pit26). */
static void set_contact(cr_rigid_contact *c, uint32_t a, uint32_t b, bool is_plane, const cr_contact_point *p,
                        double e, double mu, const cr_rigid_contact *old)
{
    c->a = a, c->b = b, c->is_plane = is_plane, c->feature = p->id;
    c->point = p->point, c->normal = p->normal, c->separation = p->separation;
    c->jt = cr_v3_zero();
    c->restitution = e, c->friction = mu;
    c->jn = 0.0;
    c->rest_n = old ? old->rest_n : 0.0;
    c->rest_t = old ? old->rest_t : cr_v3_zero();
    c->rest_roll = old ? old->rest_roll : cr_v3_zero();
}

typedef struct narrow {
    cr_world *w;
    double fall;            /* |g| dt: the speed gravity adds in the step */
    uint32_t pair_items;    /* items [0, pair_items) take pairs, the rest bodies */
    cr_sphere_ball *ball;   /* per slot */
    cr_sphere_material *material; /* per slot */
    double *reach;          /* per slot: |v| + |w| r */
    uint32_t *first;        /* per item: its first contact */
    uint32_t *hits;         /* per item: its points */
    uint32_t *hit;          /* per pair: pass one's list of the pairs with a point, each item's at its own pairs' place */
    double *dist;           /* ... and their centres' distances */
    uint64_t *plane_hit;    /* per body and plane: pass one's (body << 32 | plane) with a point, as hit */
    const uint32_t *entry;  /* per pair: its list entry (sphere_pairs.h) */
    uint64_t *key;          /* per contact: its key (the warm start's walk) */
    const uint64_t *prev_key; /* per last-step contact: its key; NULL: the warm start by the look-up */
    bool fill;              /* the second pass */
} narrow;

/* The speculative margin of a contact (rigid_contacts.c's pair_margin, its
 * speeds summed per body): the smaller radius's base share and how far the
 * surfaces can close in a step, reach the bodies' summed surface speeds. */
static inline double contact_margin(double radius, double reach, double fall, double dt)
{
    return CR_BASE_MARGIN * radius + (reach + fall) * dt;
}

/* Whether a ball moves (cr_sphere_ball's radius: its sign), and its
 * radius. */
static inline bool ball_moves(const cr_sphere_ball *A) { return !signbit(A->radius); }
static inline double ball_radius(const cr_sphere_ball *A) { return fabs(A->radius); }

/* Broad-phase pair (a, b) has a point: something moves and the balls are
 * within the speculative margin (rigid_contacts.c's pair_margin), the
 * test of cr_collide_sphere_sphere; reach: the two balls' summed; *dist:
 * the centres' distance, which pass two's point takes
 * (cr_sphere_sphere_point) instead of a second square root. (cr_box_fmin:
 * fmin's value for radii, without libm's call.) */
static bool pair_hit(const cr_sphere_ball *A, const cr_sphere_ball *B, double reach, double fall, double dt,
                     double *dist)
{
    double ra = ball_radius(A), rb = ball_radius(B);
    double margin = contact_margin(cr_box_fmin(ra, rb), reach, fall, dt);
    *dist = cr_v3_len(cr_v3_sub(A->x, B->x));
    /* static, kinematic or asleep both: none */
    return (ball_moves(A) | ball_moves(B)) & !(*dist - ra - rb > margin);
}

/* Pass one counts the points of items [start, end) (and lists the pairs
 * that have one in hit, the bodies' in plane_hit, at the item's own
 * places); pass two writes them. */
static void narrow_items(uint32_t start, uint32_t end, uint32_t worker, void *ctx)
{
    (void)worker;
    const narrow *t = ctx;
    cr_world *w = t->w;
    const cr_bodies *bs = &w->bodies;
    cr_rigid *r = w->rigid;
    const cr_sphere_ball *ball = t->ball;
    const cr_sphere_material *material = t->material;
    const double *reach = t->reach;
    cr_manifold m;
    double margin;
    for (uint32_t item = start; item < end; ++item) {
        cr_rigid_contact *c = t->fill ? r->contacts + t->first[item] : NULL;
        uint32_t count = 0;
        if (item < t->pair_items) {
            uint32_t k0 = item * CR_SPHERE_PAIR_ITEM, k1 = k0 + CR_SPHERE_PAIR_ITEM;
            if (k1 > w->broad.pair_count) k1 = w->broad.pair_count;
            uint32_t *hit = t->hit + k0;
            double *hit_dist = t->dist + k0;
            if (!c) {
                for (uint32_t k = k0; k < k1; ++k) {
                    /* written always, kept on a hit (no branch to guess) */
                    uint32_t a = w->broad.pairs[k].a, b = w->broad.pairs[k].b;
                    if (k + CR_BALL_AHEAD < k1) CR_PREFETCH(&ball[w->broad.pairs[k + CR_BALL_AHEAD].b], 0);
                    bool h = pair_hit(&ball[a], &ball[b], reach[a] + reach[b], t->fall, w->def.dt, &hit_dist[count]);
                    hit[count] = k;
                    count += h;
                }
            } else {
                uint64_t *key = t->key + t->first[item];
                warm_walk walk = {r, t->prev_key, 0};
                if (walk.prev_key && t->hits[item])
                    walk.at = cr_keys_first_at(walk.prev_key, r->prev_count, t->entry[hit[0]]);
                for (uint32_t h = 0; h < t->hits[item]; ++h) {
                    uint32_t a = w->broad.pairs[hit[h]].a, b = w->broad.pairs[hit[h]].b;
                    if (h + CR_MATERIAL_AHEAD < t->hits[item])
                        CR_PREFETCH(&material[w->broad.pairs[hit[h + CR_MATERIAL_AHEAD]].b], 0);
                    if (walk.prev_key && walk.at + CR_PREV_AHEAD < r->prev_count)
                        CR_PREFETCH(&r->prev[walk.at + CR_PREV_AHEAD], 0);
                    cr_contact_point p;
                    cr_sphere_sphere_point(ball[a].x, ball_radius(&ball[a]), ball[b].x, ball_radius(&ball[b]), hit_dist[h],
                                           &p);
                    key[h] = t->entry[hit[h]];
                    set_contact(c++, a, b, false, &p, material[a].restitution * material[b].restitution,
                                material[a].friction * material[b].friction, warm_of(&walk, key[h], a, false, b, p.id));
                }
            }
        } else {
            uint32_t a0 = (item - t->pair_items) * CR_SPHERE_BODY_ITEM, a1 = a0 + CR_SPHERE_BODY_ITEM;
            if (a1 > bs->slot_count) a1 = bs->slot_count;
            uint64_t *hit = t->plane_hit + (uint64_t)a0 * w->planes.count;
            if (!c) {
                for (uint32_t a = a0; a < a1; ++a) {
                    if (!cr_slot_alive(bs, a) || !ball_moves(&ball[a])) continue;
                    margin = contact_margin(bs->radius[a], reach[a], t->fall, w->def.dt);
                    for (uint32_t k = 0; k < w->planes.count; ++k) {
                        const cr_plane_def *p = &w->planes.def[k];
                        double offset = cr_v3_dot(p->normal, p->point);
                        /* as the pairs': written always, kept on a hit */
                        hit[count] = (uint64_t)a << 32 | k;
                        count += !(cr_v3_dot(p->normal, bs->x[a]) - offset - bs->radius[a] > margin);
                    }
                }
            } else {
                /* only the (body, plane) hits of pass one (most balls touch
                 * no plane), in its order: the same test, true again */
                uint64_t *key = t->key + t->first[item];
                warm_walk walk = {r, t->prev_key, 0};
                if (walk.prev_key) walk.at = cr_keys_first_at(walk.prev_key, r->prev_count, cr_sphere_plane_key(a0, 0));
                for (uint32_t h = 0; h < t->hits[item]; ++h) {
                    uint32_t a = (uint32_t)(hit[h] >> 32), k = (uint32_t)hit[h];
                    const cr_plane_def *p = &w->planes.def[k];
                    margin = contact_margin(bs->radius[a], reach[a], t->fall, w->def.dt);
                    cr_collide_sphere_plane(bs->x[a], bs->radius[a], p->normal, cr_v3_dot(p->normal, p->point), margin,
                                            &m);
                    key[h] = cr_sphere_plane_key(a, k);
                    set_contact(c++, a, k, true, &m.p[0], material[a].restitution * p->restitution,
                                material[a].friction * p->friction, warm_of(&walk, key[h], a, true, k, m.p[0].id));
                }
            }
        }
        if (!c) t->hits[item] = count;
    }
}

/* What the tests read of each body in one place (a pair's test read five
 * arrays per ball): its centre, radius and whether it moves (the radius's
 * sign), and apart the speed its surface can reach (rigid_contacts.c's
 * pair_margin per pair, summed per body); and what pass two reads (its
 * restitution and friction); once, in items of bodies. The broad phase's
 * pass over the bodies makes them (cr_sphere_fill_ball); this pass only
 * when it did not, or a ball may have woken since (cr_rigid_wake_touched). */
static void body_items(uint32_t start, uint32_t end, uint32_t worker, void *ctx)
{
    (void)worker;
    const narrow *t = ctx;
    cr_world *w = t->w;
    const cr_bodies *bs = &w->bodies;
    uint32_t i1 = end * CR_SPHERE_BODY_ITEM < bs->slot_count ? end * CR_SPHERE_BODY_ITEM : bs->slot_count;
    for (uint32_t i = start * CR_SPHERE_BODY_ITEM; i < i1; ++i)
        if (cr_slot_alive(bs, i)) cr_sphere_fill_ball(bs, w->rigid->sphere_pairs, i);
}

/* Contacts [0, need) given a sphere contact's frames (cr_rigid's
 * contacts_lean), which set_contact then leaves as they are: each slot
 * once, when it is first used after the general narrow phase or a
 * restored state wrote the array. */
static void lean_frames(cr_rigid *r, uint32_t need)
{
    for (uint32_t k = r->contacts_lean; k < need; ++k) {
        cr_rigid_contact *c = &r->contacts[k];
        c->la = c->lb = c->nb = c->t1 = c->t2 = c->ref_x = cr_v3_zero();
        c->ref_q = cr_q_identity();
    }
    if (need > r->contacts_lean) r->contacts_lean = need;
}

/* The contacts and their keys for total points: at least one each, so
 * that the fill pass's offsets into them are never offsets from NULL
 * (undefined; a step with broad pairs and no contact, found by fuzzing a
 * checkpoint). */
static bool grow_contacts(cr_world *w, cr_sphere_pairs *L, uint64_t total)
{
    cr_rigid *r = w->rigid;
    uint32_t need = total ? (uint32_t)total : 1u;
    if (!(total <= UINT32_MAX && cr_grow(w, (void **)&r->contacts, &r->contact_capacity, need, sizeof *r->contacts) &&
          cr_grow(w, (void **)&L->key, &L->key_capacity, need, sizeof *L->key)))
        return false;
    lean_frames(r, need);
    return true;
}

cr_status cr_sphere_find_contacts(cr_world *w)
{
    cr_rigid *r = w->rigid;
    const cr_bodies *bs = &w->bodies;
    cr_sphere_pairs *L = cr_sphere_pairs_ensure(w);
    if (!L) goto oom;
    if (r->kept) { /* the last step's contacts become prev: their keys with them */
        uint64_t *k = L->prev_key, step = L->prev_key_step, builds = L->prev_key_builds;
        uint32_t cap = L->prev_key_capacity;
        L->prev_key = L->key, L->prev_key_capacity = L->key_capacity;
        L->prev_key_step = L->key_step, L->prev_key_builds = L->key_builds;
        L->key = k, L->key_capacity = cap, L->key_step = step, L->key_builds = builds;
    } else {
        L->prev_key_step = 0; /* prev stays what it was, a step older than its keys say */
    }
    cr_rigid_take_prev(r);
    /* the walk when prev is the last step's contacts, made by this narrow
     * phase (not the general one: a box since) on the same list; else the
     * look-up, its keys sorted */
    bool walk = L->prev_key_step == w->steps && L->prev_key_step != 0 && L->prev_key_builds == L->builds &&
                bs->slot_count <= INT32_MAX && !L->warm_by_keys;
    if (!walk && !cr_rigid_sort_prev_keys(w)) goto oom;
    L->walks += walk;
    r->contact_count = 0;
    r->apart_prev_count = 0; /* hulls' (rigid_contacts.c): none here, none stale if a box comes */
    cr_rigid_wake_touched(w);
    uint32_t n = bs->slot_count;
    uint32_t bodies = (n + CR_SPHERE_BODY_ITEM - 1) / CR_SPHERE_BODY_ITEM;
    uint32_t pairs = (w->broad.pair_count + CR_SPHERE_PAIR_ITEM - 1) / CR_SPHERE_PAIR_ITEM;
    uint32_t items = pairs + (w->planes.count ? bodies : 0);
    if (!cr_sphere_balls_reserve(w, L, n) ||
        !cr_grow(w, (void **)&L->item_first, &L->item_capacity, 2 * items + 1, sizeof *L->item_first) ||
        !cr_grow(w, (void **)&L->hit, &L->hit_capacity, w->broad.pair_count + 1, sizeof *L->hit) ||
        !cr_grow(w, (void **)&L->hit_dist, &L->dist_capacity, w->broad.pair_count + 1, sizeof *L->hit_dist) ||
        (uint64_t)n * w->planes.count >= UINT32_MAX ||
        !cr_grow(w, (void **)&L->plane_hit, &L->plane_hit_capacity, n * w->planes.count + 1, sizeof *L->plane_hit))
        goto oom;
    narrow t = {w,        cr_v3_len(w->def.gravity) * w->def.dt,
                pairs,    L->ball, L->material, L->reach,
                L->item_first, L->item_first + items,
                L->hit,   L->hit_dist,
                L->plane_hit, L->entry,
                NULL,     walk ? L->prev_key : NULL,
                false};
    if (L->balls_step != w->steps + 1 || w->def.sleep_time > 0.0) cr_soft_run(w, body_items, bodies, &t);
    uint64_t total = 0;
    if (items > 1 && cr_parallel(w)) {
        cr_run_items(w, narrow_items, items, &t);
        /* each item's first contact: the counts of the items before it */
        for (uint32_t k = 0; k < items; ++k) {
            t.first[k] = (uint32_t)total;
            total += t.hits[k];
        }
        if (!grow_contacts(w, L, total)) goto oom;
        t.key = L->key;
        t.fill = true;
        cr_run_items(w, narrow_items, items, &t);
    } else {
        /* on the caller: each item's two passes one after the other, its
         * bodies still in the cache (the same points, in the same order) */
        for (uint32_t k = 0; k < items; ++k) {
            t.fill = false;
            narrow_items(k, k + 1, 0, &t);
            t.first[k] = (uint32_t)total;
            total += t.hits[k];
            if (!grow_contacts(w, L, total)) goto oom;
            t.key = L->key;
            t.fill = true;
            narrow_items(k, k + 1, 0, &t);
        }
    }
    r->contact_count = (uint32_t)total;
    L->key_step = w->steps + 1, L->key_builds = L->builds; /* 0: never made */
    w->stats.contacts = r->contact_count;
    w->stats.carried_contacts = 0;
    return CR_OK;
oom:
    return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "sphere contacts: out of memory");
}
