/* Version 4's rigid-body parts of a checkpoint (src/checkpoint_rigid.h;
 * the layout in docs/checkpoint-format.md, what each field is for in
 * src/rigid_state.c). */
#include "checkpoint_rigid.h"
#include "checkpoint_shape.h"
#include "message.h"

void cr_ckpt_write_rigid_settings(writer *o, const cr_world_def *d)
{
    put_u32(o, (uint32_t)d->collision_order);
    put_f64(o, d->sleep_time);
    put_f64(o, d->sleep_speed);
    put_u32(o, (uint32_t)d->pgs_iterations);
    put_u32(o, (uint32_t)d->drift_iterations);
    put_f64(o, d->drift_tolerance);
    put_f64(o, d->drift_max_speed);
    put_u32(o, (uint32_t)d->rigid_substeps);
    put_u32(o, (uint32_t)d->substep_iterations);
    put_f64(o, d->contact_hertz);
    put_f64(o, d->contact_damping_ratio);
}

void cr_ckpt_read_rigid_settings(reader *r, cr_world_def *d)
{
    d->collision_order = (cr_collision_order)get_u32(r);
    d->sleep_time = get_f64(r);
    d->sleep_speed = get_f64(r);
    d->pgs_iterations = (int)get_u32(r);
    d->drift_iterations = (int)get_u32(r);
    d->drift_tolerance = get_f64(r);
    d->drift_max_speed = get_f64(r);
    d->rigid_substeps = (int)get_u32(r);
    d->substep_iterations = (int)get_u32(r);
    d->contact_hertz = get_f64(r);
    d->contact_damping_ratio = get_f64(r);
}

/* A contact: what any step reads of the last step's contacts (identity,
 * warm start, the frames of carried manifolds) and what the API reports
 * (point, normal, separation, impulses). */
static void write_contact(writer *o, const cr_rigid_contact *c)
{
    put_u32(o, c->a);
    put_u32(o, c->b);
    put_u32(o, c->is_plane);
    put_u32(o, c->feature);
    put_f64(o, c->rest_n);
    put_vec(o, c->rest_t);
    put_vec(o, c->point);
    put_vec(o, c->normal);
    put_f64(o, c->separation);
    put_f64(o, c->jn);
    put_vec(o, c->jt);
    put_vec(o, c->la);
    put_vec(o, c->lb);
    put_vec(o, c->nb);
    put_vec(o, c->ref_x);
    put_quat(o, c->ref_q);
    put_vec(o, c->rest_roll); /* version 6 */
}
#define CONTACT_BYTES(version) (8 * ((version) >= 6 ? 38 : 35))

static void read_contact(reader *r, cr_rigid_contact *c, uint64_t version)
{
    memset(c, 0, sizeof *c); /* t1, t2, restitution, friction: set by each step before they are read */
    c->a = get_u32(r);
    c->b = get_u32(r);
    uint32_t plane = get_u32(r);
    c->is_plane = plane != 0;
    if (plane > 1) r->bad = true;
    c->feature = get_u32(r);
    c->rest_n = get_f64(r);
    c->rest_t = get_vec(r);
    c->point = get_vec(r);
    c->normal = get_vec(r);
    c->separation = get_f64(r);
    c->jn = get_f64(r);
    c->jt = get_vec(r);
    c->la = get_vec(r);
    c->lb = get_vec(r);
    c->nb = get_vec(r);
    c->ref_x = get_vec(r);
    c->ref_q = get_quat(r);
    if (version >= 6) c->rest_roll = get_vec(r); /* before: no world resisted (memset: zero) */
}

/* The shapes of the live bodies, each once in the order of its first body
 * (bodies may share one), then per live slot its sleeping state, its
 * shape's number (0: none, k + 1: shape k) and its inertia tensor and
 * inverse in its own frame (a sphere's too: the rigid pipeline turns it
 * by them, and the inverse made when it was added, cr_m3_inverse of the
 * diagonal, need not be the diagonal of 1 / I to the bit). */
static void write_bodies(writer *o, const cr_world *w)
{
    const cr_bodies *b = &w->bodies;
    uint32_t *index = malloc(sizeof *index * (b->slot_count ? b->slot_count : 1));
    const cr_shape **table = malloc(sizeof *table * (b->slot_count ? b->slot_count : 1));
    if (!index || !table) {
        free(index), free(table);
        o->oom = true;
        return;
    }
    uint32_t shapes = 0;
    for (uint32_t i = 0; i < b->slot_count; ++i) {
        index[i] = 0;
        if (!cr_slot_alive(b, i) || !b->shape[i]) continue;
        uint32_t k = 0;
        while (k < shapes && table[k] != b->shape[i]) ++k; /* most worlds have a few shapes, the last one most often */
        if (k == shapes) table[shapes++] = b->shape[i];
        index[i] = k + 1;
    }
    put_u32(o, shapes);
    for (uint32_t k = 0; k < shapes; ++k) cr_ckpt_write_shape(o, table[k]);
    for (uint32_t i = 0; i < b->slot_count; ++i) {
        if (!cr_slot_alive(b, i)) continue;
        put_f64(o, b->still[i]);
        put_u32(o, b->asleep[i]);
        put_u32(o, b->island[i]);
        put_u32(o, index[i]);
        put_mat(o, &b->inertia_local[i]);
        put_mat(o, &b->inv_inertia_local[i]);
    }
    free(index), free(table);
}

static void write_joints(writer *o, const cr_rigid *r)
{
    uint32_t count = r ? r->joint_count : 0;
    put_u32(o, count);
    for (uint32_t k = 0; k < count; ++k) {
        const cr_joint *j = &r->joints[k];
        put_u32(o, (uint32_t)j->type);
        put_u32(o, j->generation);
        put_u32(o, j->a);
        put_u32(o, j->b);
        put_vec(o, j->la);
        put_vec(o, j->lb);
        put_vec(o, j->axis_a);
        put_vec(o, j->axis_b);
        put_vec(o, j->perp_a[0]);
        put_vec(o, j->perp_a[1]);
        put_quat(o, j->q_rel);
        put_f64(o, j->length);
        for (int m = 0; m < 6; ++m) put_f64(o, j->lambda[m]);
        put_u32(o, j->collide); /* version 5 */
    }
}
#define JOINT_BYTES (8 * 33) /* a version 4 joint; version 5's adds the collide flag */

void cr_ckpt_write_rigid(writer *o, const cr_world *w)
{
    put_u64(o, w->stats.lcp_fallbacks);
    put_u64(o, w->stats.lcp_inexact);
    write_bodies(o, w);
    write_joints(o, w->rigid);
    cr_rigid_carry c;
    cr_rigid_carry_get(w, &c);
    put_u32(o, c.contacts);
    put_u32(o, c.warm);
    for (uint32_t k = 0; k < c.contacts; ++k) write_contact(o, &c.c[k]);
    put_u32(o, c.apart);
    for (uint32_t k = 0; k < c.apart; ++k) {
        const cr_rigid_apart *p = &c.a[k];
        put_u32(o, p->a);
        put_u32(o, p->b);
        put_f64(o, p->gap);
        put_vec(o, p->ref_x);
        put_quat(o, p->ref_q);
    }
    put_u64(o, c.list_builds);
    put_u32(o, c.list_slots);
    put_f64(o, c.list_slots ? c.list_hint : 0.0);
    for (uint32_t i = 0; i < c.list_slots; ++i) {
        put_vec(o, c.lo[i]);
        put_vec(o, c.hi[i]);
    }
}

void cr_ckpt_rigid_carry_free(cr_rigid_carry *c)
{
    free(c->c), free(c->a), free(c->lo), free(c->hi);
    memset(c, 0, sizeof *c);
}

/* A value out of range: the message naming it (src/message.h), false. */
#define refuse(msg, size, ...) (cr_msgf((msg), (size), __VA_ARGS__), false)

/* A contact's bodies: a a body, b a plane or another body; live bodies in
 * a contact of the warm start (warm), slots in one only reported (after a
 * body was removed, the contacts of the last step that named it). */
static bool check_contact(const cr_world *w, const cr_rigid_contact *c, uint32_t k, bool warm, char *msg,
                          size_t size)
{
    const cr_bodies *b = &w->bodies;
    if (warm ? !cr_slot_alive(b, c->a) : c->a >= b->slot_count)
        return refuse(msg, size, "checkpoint: rigid state: contact %u: body a %u is not a %s", k, c->a,
                      warm ? "live body" : "slot");
    if (c->is_plane && c->b >= w->planes.count)
        return refuse(msg, size, "checkpoint: rigid state: contact %u: plane %u does not exist", k, c->b);
    if (!c->is_plane && ((warm ? !cr_slot_alive(b, c->b) : c->b >= b->slot_count) || c->b == c->a))
        return refuse(msg, size, "checkpoint: rigid state: contact %u: body b %u is not another %s", k, c->b,
                      warm ? "live body" : "slot");
    return true;
}

/* The shapes, then each live body's sleeping state and shape (write_bodies). */
static bool read_bodies(reader *r, cr_world *w, cr_shape **table, uint32_t shapes, char *msg, size_t size)
{
    cr_bodies *b = &w->bodies;
    uint32_t used = 0; /* shapes named so far: the table is in the order of first use (write_bodies) */
    for (uint32_t i = 0; i < b->slot_count && !r->bad; ++i) {
        if (!cr_slot_alive(b, i)) continue;
        b->still[i] = get_f64(r);
        uint32_t asleep = get_u32(r), island = get_u32(r), shape = get_u32(r);
        if (r->bad) return false;
        if (!(b->still[i] >= 0.0))
            return refuse(msg, size, "checkpoint: rigid state: body %u: still time %.17g, not >= 0", i, b->still[i]);
        if (asleep > 1) return refuse(msg, size, "checkpoint: rigid state: body %u: asleep flag %u, not 0 or 1", i, asleep);
        if (island >= b->slot_count)
            return refuse(msg, size, "checkpoint: rigid state: body %u: island %u is not a slot", i, island);
        if (shape > shapes)
            return refuse(msg, size, "checkpoint: rigid state: body %u: shape %u, there are %u", i, shape, shapes);
        if (shape > used + 1) /* so that the world saves back to the same bytes */
            return refuse(msg, size, "checkpoint: rigid state: body %u: shape %u before shape %u was used", i, shape,
                          used + 1);
        if (shape == used + 1) ++used;
        b->asleep[i] = (uint8_t)asleep;
        b->island[i] = island;
        get_mat(r, &b->inertia_local[i]);
        get_mat(r, &b->inv_inertia_local[i]);
        if (!shape) continue;
        cr_shape *s = table[shape - 1];
        /* what cr_world_add_body refuses, so no saved world holds it */
        if (s->type != CR_SHAPE_SPHERE && (w->surfaces.count || w->def.method != CR_METHOD_IMPULSE))
            return refuse(msg, size,
                          "checkpoint: rigid state: body %u: a box, hull or mesh needs the impulse method and no "
                          "parametric surfaces",
                          i);
        cr_shape_retain(s); /* the world's reference, released with the body */
        b->shape[i] = s;
        if (s->type != CR_SHAPE_SPHERE) w->polyhedra++;
    }
    if (!r->bad && used != shapes)
        return refuse(msg, size, "checkpoint: rigid state: %u shapes, the bodies use %u", shapes, used);
    return !r->bad;
}

/* Joints in place, as they were (slots with their generations: ids stay
 * valid); a live one holds live bodies, b another or the world. Version 4
 * had no collide flag, and its jointed bodies made contacts with each other:
 * its joints load with collide true, which keeps what the file meant (its
 * saved contacts between them stay valid, and it steps on as it would have). */
static bool read_joints(reader *r, cr_world *w, uint64_t version, char *msg, size_t size)
{
    uint32_t count = get_count(r, JOINT_BYTES + (version >= 5 ? 8 : 0));
    if (r->bad || !count) return !r->bad;
    if (cr_rigid_ensure(w) != CR_OK ||
        !cr_grow(w, (void **)&w->rigid->joints, &w->rigid->joint_capacity, count, sizeof *w->rigid->joints))
        return refuse(msg, size, "checkpoint: rigid state: out of memory");
    cr_rigid *rg = w->rigid;
    const cr_bodies *b = &w->bodies;
    for (uint32_t k = 0; k < count && !r->bad; ++k) {
        cr_joint *j = &rg->joints[k];
        uint32_t type = get_u32(r);
        j->type = (cr_joint_type)type;
        j->generation = get_u32(r);
        j->a = get_u32(r);
        j->b = get_u32(r);
        j->la = get_vec(r);
        j->lb = get_vec(r);
        j->axis_a = get_vec(r);
        j->axis_b = get_vec(r);
        j->perp_a[0] = get_vec(r);
        j->perp_a[1] = get_vec(r);
        j->q_rel = get_quat(r);
        j->length = get_f64(r);
        for (int m = 0; m < 6; ++m) j->lambda[m] = get_f64(r);
        uint32_t collide = version >= 5 ? get_u32(r) : 1u;
        j->collide = collide != 0;
        if (r->bad) return false;
        if (collide > 1)
            return refuse(msg, size, "checkpoint: rigid state: joint %u: collide flag %u, not 0 or 1", k, collide);
        if (type > CR_JOINT_DISTANCE)
            return refuse(msg, size, "checkpoint: rigid state: joint %u: type %u is not a joint type", k, type);
        if (j->generation == 0)
            return refuse(msg, size, "checkpoint: rigid state: joint %u: generation 0", k);
        rg->joint_count = k + 1;
        if (!(j->generation & 1u)) continue; /* removed: its id stays stale */
        if (w->surfaces.count || w->def.method != CR_METHOD_IMPULSE) /* as cr_world_add_joint refuses */
            return refuse(msg, size, "checkpoint: rigid state: joint %u: joints need the impulse method and no "
                                     "parametric surfaces", k);
        if (!cr_slot_alive(b, j->a))
            return refuse(msg, size, "checkpoint: rigid state: joint %u: body a %u is not a live body", k, j->a);
        if (j->b != CR_NO_BODY && (!cr_slot_alive(b, j->b) || j->b == j->a))
            return refuse(msg, size, "checkpoint: rigid state: joint %u: body b %u is not another live body", k, j->b);
        rg->joint_live++;
    }
    return !r->bad;
}

bool cr_ckpt_read_rigid(reader *r, cr_world *w, uint64_t version, cr_rigid_carry *c, char *msg, size_t size)
{
    const cr_bodies *b = &w->bodies;
    memset(c, 0, sizeof *c);
    w->stats.lcp_fallbacks = get_u64(r);
    w->stats.lcp_inexact = get_u64(r);
    uint32_t shapes = get_count(r, 16);
    if (r->bad) return false;
    cr_shape **table = calloc(shapes ? shapes : 1, sizeof *table);
    if (!table) return refuse(msg, size, "checkpoint: rigid state: out of memory");
    bool ok = true;
    for (uint32_t k = 0; k < shapes && ok; ++k) ok = (table[k] = cr_ckpt_read_shape(r, k, msg, size)) != NULL;
    ok = ok && read_bodies(r, w, table, shapes, msg, size);
    for (uint32_t k = 0; k < shapes; ++k) cr_shape_release(table[k]); /* the bodies hold theirs */
    free(table);
    if (!ok || !read_joints(r, w, version, msg, size)) return false;
    c->contacts = get_count(r, CONTACT_BYTES(version));
    c->warm = get_u32(r);
    if (r->bad) return false;
    if (c->warm > c->contacts)
        return refuse(msg, size, "checkpoint: rigid state: warm start count %u, more than the %u contacts", c->warm,
                      c->contacts);
    c->c = malloc(sizeof *c->c * (c->contacts ? c->contacts : 1));
    if (!c->c) return refuse(msg, size, "checkpoint: rigid state: out of memory");
    for (uint32_t k = 0; k < c->contacts && !r->bad; ++k) {
        read_contact(r, &c->c[k], version);
        if (!r->bad && !check_contact(w, &c->c[k], k, k < c->warm, msg, size)) return false;
    }
    c->apart = get_count(r, 80);
    c->a = malloc(sizeof *c->a * (c->apart ? c->apart : 1));
    if (r->bad || !c->a) return r->bad ? false : refuse(msg, size, "checkpoint: rigid state: out of memory");
    for (uint32_t k = 0; k < c->apart && !r->bad; ++k) {
        cr_rigid_apart *p = &c->a[k];
        p->a = get_u32(r);
        p->b = get_u32(r);
        p->gap = get_f64(r);
        p->ref_x = get_vec(r);
        p->ref_q = get_quat(r);
        if (r->bad) return false;
        /* two live bodies, sorted by pair (the narrow phase searches them) */
        if (!cr_slot_alive(b, p->a) || !cr_slot_alive(b, p->b) || p->a == p->b)
            return refuse(msg, size, "checkpoint: rigid state: pair apart %u: bodies %u, %u are not two live bodies", k,
                          p->a, p->b);
        if (k && (p[-1].a > p->a || (p[-1].a == p->a && p[-1].b >= p->b)))
            return refuse(msg, size, "checkpoint: rigid state: pair apart %u: (%u, %u) out of order", k, p->a, p->b);
    }
    c->list_builds = get_u64(r);
    c->list_slots = get_u32(r);
    c->list_hint = get_f64(r);
    if (r->bad) return false;
    if (c->list_slots > b->slot_count) /* the list covers the slots there were at its build */
        return refuse(msg, size, "checkpoint: rigid state: the pair list covers %u slots, the world has %u",
                      c->list_slots, b->slot_count);
    if (c->list_slots && !(c->list_hint > 0.0))
        return refuse(msg, size, "checkpoint: rigid state: the pair list's size hint %.17g, not > 0", c->list_hint);
    if (!c->list_slots && (c->list_hint != 0.0 || signbit(c->list_hint))) /* written as +0 without a list */
        return refuse(msg, size, "checkpoint: rigid state: a size hint %.17g without a pair list", c->list_hint);
    if (!c->list_slots) return true;
    if ((size_t)c->list_slots > (r->n - r->off) / 48) {
        r->bad = true;
        return false;
    }
    c->lo = malloc(sizeof *c->lo * c->list_slots), c->hi = malloc(sizeof *c->hi * c->list_slots);
    if (!c->lo || !c->hi) return refuse(msg, size, "checkpoint: rigid state: out of memory");
    for (uint32_t i = 0; i < c->list_slots && !r->bad; ++i) {
        c->lo[i] = get_vec(r);
        c->hi[i] = get_vec(r);
    }
    return !r->bad;
}
