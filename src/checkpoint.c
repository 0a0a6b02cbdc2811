/* Checkpoints: the world's complete state in a versioned, checksummed,
 * byte-order-independent format (include/carom/checkpoint.h,
 * docs/checkpoint-format.md).
 *
 * What a step carries into the next is exactly what is saved: every body's
 * state and material, the surfaces' contact parameters (warm starts of the
 * closest-point iteration, which change its result in the last bits), the
 * impulses of the last step's contacts (warm starting), time and the step
 * counters; with method dem (version 3) the contact history, the last
 * step's forces and the centres of the last list build (src/dem_state.c:
 * the list is rebuilt from those, the same list); on the rigid pipeline
 * (version 4) the bodies' shapes, tensors and sleeping state, the joints,
 * the last step's contacts, the pairs apart and the sphere path's pair
 * list (src/rigid_state.c, src/checkpoint_rigid.c, src/checkpoint_shape.c:
 * the list is rebuilt from its grown boxes). Everything else is
 * rebuilt at the start of each step (plans, broad phase, events), so a
 * resumed run is bit-identical. The surfaces' defs are written and read
 * in src/checkpoint_surface.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carom/checkpoint.h"
#include "checkpoint_io.h"
#include "checkpoint_rigid.h"
#include "checkpoint_seal.h"
#include "checkpoint_surface.h"
#include "dem_state.h"
#include "message.h"
#include "world_internal.h"

static const char magic[8] = {'C', 'A', 'R', 'O', 'M', 'C', 'K', 'P'};

uint64_t cr_fnv1a64(const void *data, size_t size)
{
    const unsigned char *p = data;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < size; ++i) h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

static cr_status fail(char *msg, size_t size, cr_status s, const char *text)
{
    cr_msgf(msg, size, "checkpoint: %s", text);
    return s;
}

static cr_status failn(char *msg, size_t size, const char *fmt, unsigned long long a)
{
    cr_msgf(msg, size, fmt, a);
    return CR_ERR_INVALID_ARGUMENT;
}

/* ---- the payload -------------------------------------------------------- */

static void write_bodies(writer *o, const cr_world *w)
{
    const cr_bodies *b = &w->bodies;
    put_u32(o, b->slot_count);
    put_u32(o, b->free_count);
    for (uint32_t k = 0; k < b->free_count; ++k) put_u32(o, b->free_slots[k]);
    for (uint32_t i = 0; i < b->slot_count; ++i) {
        put_u32(o, b->generation[i]);
        if (!cr_slot_alive(b, i)) continue;
        put_u32(o, b->type[i]);
        put_u32(o, b->inertia_kind[i]);
        put_vec(o, b->x[i]);
        put_vec(o, b->v[i]);
        put_vec(o, b->w[i]);
        put_quat(o, b->q[i]);
        put_f64(o, b->mass[i]);
        put_f64(o, b->inv_mass[i]);
        put_f64(o, b->inertia[i]);
        put_f64(o, b->inv_inertia[i]);
        put_f64(o, b->radius[i]);
        put_f64(o, b->restitution[i]);
        put_f64(o, b->friction[i]);
        put_f64(o, b->rolling_friction[i]);
        put_f64(o, b->inner_radius[i]);
        put_u32(o, b->surface[i]);
        put_u32(o, b->ball_state[i]);
        put_f64(o, b->su[i]);
        put_f64(o, b->sv[i]);
    }
}

/* Version 3: method dem's settings (saved for every method; the defaults
 * where unused). */
static void write_dem_settings(writer *o, const cr_world_def *d)
{
    put_f64(o, d->hooke.kn);
    put_f64(o, d->hooke.kt);
    put_f64(o, d->hooke.gamma_n);
    put_f64(o, d->hooke.gamma_t);
    put_f64(o, d->hooke.mu);
    put_u32(o, d->periodic.x);
    put_u32(o, d->periodic.y);
    put_u32(o, d->periodic.z);
    put_vec(o, d->periodic.lo);
    put_vec(o, d->periodic.hi);
    put_u32(o, d->integrate_orientation);
}

/* Version 3: what method dem carries between steps (src/dem_state.h); mode
 * 0 alone for other methods. */
static void write_dem_carry(writer *o, const cr_world *w, const cr_dem_carry *c)
{
    put_u32(o, (uint32_t)c->mode);
    if (c->mode == CR_DEM_CARRY_NONE) return;
    put_u32(o, c->contacts);
    for (uint32_t k = 0; k < c->contacts; ++k) {
        put_u32(o, c->a[k]);
        put_u32(o, c->b[k]);
        put_vec(o, c->shear[k]);
        if (c->roll) put_vec(o, c->roll[k]); /* version 8, with k_roll > 0 */
    }
    if (c->mode != CR_DEM_CARRY_FORCES) return;
    for (uint32_t i = 0; i < c->slots; ++i) {
        if (!cr_slot_alive(&w->bodies, i)) continue;
        put_vec(o, c->x_build[i]);
        put_vec(o, c->f[i]);
        put_vec(o, c->t[i]);
    }
}

cr_status cr_world_save_buffer(const cr_world *w, const void *app, size_t app_size, unsigned char **data, size_t *size,
                               char *msg, size_t msg_size)
{
    *data = NULL;
    *size = 0;
    if (w->in_callback) return fail(msg, msg_size, CR_ERR_REENTRANT, "called from a world callback");
    cr_dem_sync(w); /* method dem: the bodies' state into the world's slots */
    cr_dem_carry carry;
    if (!cr_dem_carry_get(w, &carry)) return fail(msg, msg_size, CR_ERR_OUT_OF_MEMORY, "out of memory");
    writer o = {0};
    put_bytes(&o, magic, sizeof magic);
    put_u32(&o, CR_CHECKPOINT_VERSION);
    put_u64(&o, 0); /* the payload length: cr_ckpt_seal below */
    const cr_world_def *d = &w->def;
    put_vec(&o, d->gravity);
    put_f64(&o, d->dt);
    put_u32(&o, (uint32_t)d->method);
    put_u32(&o, (uint32_t)d->law);
    put_f64(&o, d->k_p);
    put_f64(&o, d->toi_tolerance);
    put_f64(&o, d->resting_speed);
    put_u32(&o, (uint32_t)d->solver_iterations);
    put_u32(&o, (uint32_t)d->max_events_per_body);
    put_u32(&o, (uint32_t)d->projection_passes); /* version 2 */
    put_u32(&o, d->projection_shock ? 1u : 0u);
    write_dem_settings(&o, d); /* version 3 */
    cr_ckpt_write_rigid_settings(&o, d); /* version 4 */
    put_u32(&o, (uint32_t)d->hooke.model); /* version 7 */
    put_f64(&o, d->hooke.k_roll);          /* version 8 */
    put_f64(&o, d->hooke.gamma_roll);
    put_f64(&o, d->hooke.mu_roll);
    put_f64(&o, w->resting_speed);
    put_f64(&o, w->time);
    put_u64(&o, w->steps);
    put_f64(&o, w->time_base);
    put_u64(&o, w->steps_base);
    put_f64(&o, w->closest_iterations);
    put_u64(&o, w->closest_calls);
    put_u64(&o, w->stats.total_contacts);
    put_u64(&o, w->stats.total_events);
    put_u64(&o, w->stats.law_fallbacks);
    put_u32(&o, w->failed);
    put_u32(&o, w->planes.count);
    for (uint32_t k = 0; k < w->planes.count; ++k) {
        put_vec(&o, w->planes.def[k].point);
        put_vec(&o, w->planes.def[k].normal);
        put_f64(&o, w->planes.def[k].restitution);
        put_f64(&o, w->planes.def[k].friction);
    }
    cr_status s = cr_ckpt_write_surfaces(&o, w, msg, msg_size);
    if (s != CR_OK) {
        cr_dem_carry_free(&carry);
        free(o.p);
        return s;
    }
    write_bodies(&o, w);
    put_u32(&o, w->prev_count);
    for (uint32_t k = 0; k < w->prev_count; ++k) {
        const cr_contact *c = &w->prev_contacts[k];
        put_u32(&o, c->a);
        put_u32(&o, c->b);
        put_u32(&o, c->is_plane);
        put_f64(&o, c->jn);
        put_vec(&o, c->jt);
    }
    write_dem_carry(&o, w, &carry); /* version 3 */
    cr_dem_carry_free(&carry);
    cr_ckpt_write_rigid(&o, w); /* version 4 */
    put_u64(&o, app_size);
    if (app_size) put_bytes(&o, app, app_size);
    if (o.oom) {
        free(o.p);
        return fail(msg, msg_size, CR_ERR_OUT_OF_MEMORY, "out of memory");
    }
    put_u64(&o, 0); /* the checksum */
    if (o.oom) {
        free(o.p);
        return fail(msg, msg_size, CR_ERR_OUT_OF_MEMORY, "out of memory");
    }
    cr_ckpt_seal(o.p, o.n);
    *data = o.p;
    *size = o.n;
    return CR_OK;
}

cr_status cr_world_save(const cr_world *w, const char *path, const void *app, size_t app_size, char *msg,
                        size_t msg_size)
{
    unsigned char *data;
    size_t size;
    cr_status s = cr_world_save_buffer(w, app, app_size, &data, &size, msg, msg_size);
    if (s != CR_OK) return s;
    size_t len = strlen(path);
    char *tmp = malloc(len + 5);
    if (!tmp) {
        free(data);
        return fail(msg, msg_size, CR_ERR_OUT_OF_MEMORY, "out of memory");
    }
    memcpy(tmp, path, len);
    memcpy(tmp + len, ".tmp", 5);
    FILE *f = fopen(tmp, "wb");
    bool ok = f && fwrite(data, 1, size, f) == size;
    if (f && fclose(f) != 0) ok = false;
    /* Written in full under another name, then renamed: a reader sees the
     * old checkpoint or the new one, never a part. */
    if (ok && rename(tmp, path) != 0) ok = false;
    if (!ok) {
        remove(tmp);
        cr_msgf(msg, msg_size, "checkpoint: cannot write '%s'", path);
    }
    free(tmp);
    free(data);
    return ok ? CR_OK : CR_ERR_INVALID_ARGUMENT;
}

/* ---- loading ------------------------------------------------------------ */

/* A live body's values as cr_body_def_validate checks a body added
 * (restitution in [0, 1], friction >= 0, a unit orientation, ...): what a
 * world holds, so what a step may rely on (a friction of -0.3 made the
 * rigid solve's multipliers non-finite). */
static bool body_in_range(const cr_bodies *b, uint32_t i, char *msg, size_t size)
{
    cr_body_def d = cr_default_body_def();
    d.type = (cr_body_type)b->type[i];
    d.radius = b->radius[i];
    d.mass = b->mass[i];
    d.inertia_kind = (cr_inertia_kind)b->inertia_kind[i];
    d.inertia = b->inertia[i];
    d.position = b->x[i], d.velocity = b->v[i], d.angular_velocity = b->w[i];
    d.orientation = b->q[i];
    d.restitution = b->restitution[i];
    d.friction = b->friction[i];
    d.rolling_friction = b->rolling_friction[i];
    d.inner_radius = b->inner_radius[i];
    char why[200];
    if (cr_body_def_validate(&d, why, sizeof why) == CR_OK) return true;
    cr_msgf(msg, size, "checkpoint: body %u: %s", i, why);
    return false;
}

/* Restores the slots as they were (same indices, generations and free
 * list). False when the bytes end early (r->bad) or, with a message, when
 * a body's value is out of range. */
static bool read_bodies(reader *r, cr_world *w, char *msg, size_t size)
{
    cr_bodies *b = &w->bodies;
    uint32_t slots = get_count(r, 8);
    uint32_t free_count = get_count(r, 8);
    if (r->bad || free_count > slots) {
        r->bad = true;
        return false;
    }
    if (!cr_bodies_reserve(w, slots)) {
        cr_msgf(msg, size, "checkpoint: bodies: out of memory");
        return false;
    }
    b->slot_count = slots;
    b->free_count = free_count;
    for (uint32_t k = 0; k < free_count; ++k) b->free_slots[k] = get_u32(r);
    uint32_t live = 0;
    for (uint32_t i = 0; i < slots && !r->bad; ++i) {
        b->generation[i] = get_u32(r);
        b->type[i] = CR_BODY_DYNAMIC;
        b->radius[i] = 1.0;
        if (!(b->generation[i] & 1u)) continue;
        ++live;
        uint32_t type = get_u32(r), kind = get_u32(r);
        if (type > CR_BODY_STATIC || kind > CR_INERTIA_CUSTOM) r->bad = true;
        b->type[i] = (uint8_t)type;
        b->inertia_kind[i] = (uint8_t)kind;
        b->x[i] = get_vec(r);
        b->v[i] = get_vec(r);
        b->w[i] = get_vec(r);
        b->q[i] = get_quat(r);
        b->mass[i] = get_f64(r);
        b->inv_mass[i] = get_f64(r);
        b->inertia[i] = get_f64(r);
        b->inv_inertia[i] = get_f64(r);
        b->radius[i] = get_f64(r);
        b->restitution[i] = get_f64(r);
        b->friction[i] = get_f64(r);
        b->rolling_friction[i] = get_f64(r);
        b->inner_radius[i] = get_f64(r);
        b->surface[i] = get_u32(r);
        uint32_t state = get_u32(r);
        b->su[i] = get_f64(r);
        b->sv[i] = get_f64(r);
        if (state > CR_BALL_STILL || !(b->mass[i] > 0.0) || !(b->radius[i] > 0.0) || b->inv_mass[i] < 0.0 ||
            b->inertia[i] < 0.0 || b->inv_inertia[i] < 0.0 ||
            (b->surface[i] != CR_NO_SURFACE && b->surface[i] >= w->surfaces.count))
            r->bad = true;
        b->ball_state[i] = (uint8_t)state;
        /* a sphere's (scalar inertia); version 4's rigid state gives
         * boxes and hulls their shapes and tensors */
        b->shape[i] = NULL;
        b->still[i] = 0.0;
        b->asleep[i] = 0;
        b->island[i] = i;
        b->island_next[i] = UINT32_MAX;
        b->inertia_local[i] = cr_m3_diag(b->inertia[i], b->inertia[i], b->inertia[i]);
        b->inv_inertia_local[i] = cr_m3_diag(b->inv_inertia[i], b->inv_inertia[i], b->inv_inertia[i]);
        /* What each step rebuilds. */
        b->user_data[i] = NULL;
        b->acc[i] = b->alpha[i] = b->dvel[i] = b->energy_acc[i] = cr_v3_zero();
        b->vpath[i] = b->v[i];
        b->t_local[i] = b->energy_drag[i] = b->energy_before[i] = 0.0;
        b->t_state[i] = INFINITY;
        b->stamp[i] = b->events[i] = b->visit[i] = 0;
        b->energy_on[i] = b->replanned[i] = b->plan_end_on[i] = 0;
        b->rest[i].count = b->rest[i].held = 0;
        if (!r->bad && !body_in_range(b, i, msg, size)) return false; /* the slot set up: the world can be destroyed */
    }
    /* The free list names exactly the free slots, each once. */
    for (uint32_t k = 0; k < free_count && !r->bad; ++k) {
        uint32_t s = b->free_slots[k];
        if (s >= slots || (b->generation[s] & 1u)) r->bad = true;
        for (uint32_t m = 0; m < k && !r->bad; ++m)
            if (b->free_slots[m] == s) r->bad = true;
    }
    if (live + free_count != slots) r->bad = true;
    b->live_count = live;
    return !r->bad;
}

static bool read_contacts(reader *r, cr_world *w)
{
    uint32_t count = get_count(r, 48);
    if (r->bad || !cr_grow(w, (void **)&w->prev_contacts, &w->prev_capacity, count ? count : 1, sizeof *w->prev_contacts))
        return false;
    for (uint32_t k = 0; k < count && !r->bad; ++k) {
        cr_contact *c = &w->prev_contacts[k];
        memset(c, 0, sizeof *c);
        c->a = get_u32(r);
        c->b = get_u32(r);
        uint32_t plane = get_u32(r);
        c->is_plane = plane != 0;
        c->jn = get_f64(r);
        c->jt = get_vec(r);
        if (plane > 1 || c->a >= w->bodies.slot_count || c->b >= (c->is_plane ? w->planes.count : w->bodies.slot_count))
            r->bad = true;
    }
    w->prev_count = r->bad ? 0 : count;
    return !r->bad;
}

/* Version 3's DEM settings into d; false with a message when a flag is
 * neither 0 nor 1 (the values are checked with the rest of the def, and
 * bytes that end early with the rest of the settings). */
static bool read_dem_settings(reader *r, cr_world_def *d, char *msg, size_t size)
{
    d->hooke.kn = get_f64(r);
    d->hooke.kt = get_f64(r);
    d->hooke.gamma_n = get_f64(r);
    d->hooke.gamma_t = get_f64(r);
    d->hooke.mu = get_f64(r);
    uint32_t flag[4];
    flag[0] = get_u32(r), flag[1] = get_u32(r), flag[2] = get_u32(r);
    d->periodic.lo = get_vec(r);
    d->periodic.hi = get_vec(r);
    flag[3] = get_u32(r);
    static const char *const name[4] = {"periodic.x", "periodic.y", "periodic.z", "integrate_orientation"};
    for (int k = 0; k < 4 && !r->bad; ++k)
        if (flag[k] > 1) {
            cr_msgf(msg, size, "checkpoint: world settings: %s flag %u, not 0 or 1", name[k], flag[k]);
            return false;
        }
    d->periodic.x = flag[0] != 0, d->periodic.y = flag[1] != 0, d->periodic.z = flag[2] != 0;
    d->integrate_orientation = flag[3] != 0;
    return true; /* truncation shows as r->bad, reported with the settings */
}

/* Version 3's DEM carry (write_dem_carry): every body pair names two
 * different live slots; the mode is one of the three and, but for none,
 * the world's method is dem. */
static bool read_dem_carry(reader *r, const cr_world *w, cr_dem_carry *c, bool roll)
{
    const cr_bodies *b = &w->bodies;
    uint32_t mode = get_u32(r);
    if (r->bad || mode > CR_DEM_CARRY_FORCES || (mode != CR_DEM_CARRY_NONE && w->def.method != CR_METHOD_DEM))
        return false;
    c->mode = (cr_dem_carry_mode)mode;
    if (mode == CR_DEM_CARRY_NONE) return true;
    c->contacts = get_count(r, 40);
    uint32_t m = c->contacts ? c->contacts : 1;
    c->a = malloc(sizeof *c->a * m), c->b = malloc(sizeof *c->b * m), c->shear = malloc(sizeof *c->shear * m);
    if (roll) c->roll = malloc(sizeof *c->roll * m);
    if (r->bad || !c->a || !c->b || !c->shear || (roll && !c->roll)) return false;
    for (uint32_t k = 0; k < c->contacts && !r->bad; ++k) {
        c->a[k] = get_u32(r);
        c->b[k] = get_u32(r);
        c->shear[k] = get_vec(r);
        if (roll) c->roll[k] = get_vec(r);
        if (c->a[k] >= b->slot_count || c->b[k] >= b->slot_count || c->a[k] == c->b[k] ||
            !cr_slot_alive(b, c->a[k]) || !cr_slot_alive(b, c->b[k]))
            r->bad = true;
    }
    if (r->bad || mode != CR_DEM_CARRY_FORCES) return !r->bad;
    c->slots = b->slot_count;
    m = c->slots ? c->slots : 1;
    c->x_build = calloc(m, sizeof *c->x_build), c->f = calloc(m, sizeof *c->f), c->t = calloc(m, sizeof *c->t);
    if (!c->x_build || !c->f || !c->t) return false;
    for (uint32_t i = 0; i < c->slots && !r->bad; ++i) {
        if (!cr_slot_alive(b, i)) continue;
        c->x_build[i] = get_vec(r);
        c->f[i] = get_vec(r);
        c->t[i] = get_vec(r);
    }
    return !r->bad;
}

cr_status cr_world_load_buffer(const unsigned char *data, size_t size, const cr_world_def *callbacks_from,
                               cr_world **out, void **app, size_t *app_size, char *msg, size_t msg_size)
{
    *out = NULL;
    if (app) *app = NULL;
    if (app_size) *app_size = 0;
    if (size < CR_CKPT_FRAME_SIZE || memcmp(data, magic, sizeof magic) != 0)
        return failn(msg, msg_size, "checkpoint: not a carom checkpoint (%llu bytes)", size);
    uint64_t version = cr_ckpt_le64(data + 8);
    if (version < 1 || version > CR_CHECKPOINT_VERSION)
        return failn(msg, msg_size, "checkpoint: version %llu, this carom reads versions 1 to 8", version);
    /* the frame cr_ckpt_seal writes */
    uint64_t payload = cr_ckpt_le64(data + 16);
    if (payload != cr_ckpt_payload_length(size))
        return failn(msg, msg_size, "checkpoint: truncated or padded (the header says %llu payload bytes)", payload);
    if (cr_ckpt_le64(data + size - 8) != cr_ckpt_checksum(data, size))
        return fail(msg, msg_size, CR_ERR_INVALID_ARGUMENT, "checksum mismatch: the file is corrupt");

    reader r = {data, size - 8, CR_CKPT_HEADER_SIZE, false};
    cr_world_def d = cr_default_world_def();
    if (callbacks_from && callbacks_from->internal_magic == CR_MAGIC_WORLD_DEF) {
        d.on_impact = callbacks_from->on_impact;
        d.callback_ctx = callbacks_from->callback_ctx;
        d.alloc = callbacks_from->alloc;
        d.free = callbacks_from->free;
        d.alloc_ctx = callbacks_from->alloc_ctx;
        /* threads are not state: any worker count gives the same bits */
        d.worker_count = callbacks_from->worker_count;
        d.enqueue_task = callbacks_from->enqueue_task;
        d.finish_task = callbacks_from->finish_task;
        d.user_task_context = callbacks_from->user_task_context;
    }
    d.gravity = get_vec(&r);
    d.dt = get_f64(&r);
    d.method = (cr_method)get_u32(&r);
    d.law = (cr_law)get_u32(&r);
    d.k_p = get_f64(&r);
    d.toi_tolerance = get_f64(&r);
    d.resting_speed = get_f64(&r);
    d.solver_iterations = (int)get_u32(&r);
    d.max_events_per_body = (int)get_u32(&r);
    if (version >= 2) { /* version 1 ran seed 000's single projection pass */
        d.projection_passes = (int)get_u32(&r);
        uint32_t shock = get_u32(&r);
        d.projection_shock = shock != 0;
        if (!r.bad && shock > 1)
            return failn(msg, msg_size, "checkpoint: world settings: projection_shock flag %llu, not 0 or 1", shock);
    }
    if (version >= 3 && !read_dem_settings(&r, &d, msg, msg_size)) return CR_ERR_INVALID_ARGUMENT;
    if (version >= 4) cr_ckpt_read_rigid_settings(&r, &d);
    /* version 7; earlier files ran Hooke (the default); a bad value is
     * named by the validation below */
    if (version >= 7) d.hooke.model = (cr_dem_model)get_u32(&r);
    if (version >= 8) {
        d.hooke.k_roll = get_f64(&r);
        d.hooke.gamma_roll = get_f64(&r);
        d.hooke.mu_roll = get_f64(&r);
    }
    char why[256];
    if (r.bad || cr_world_def_validate(&d, why, sizeof why) != CR_OK) {
        cr_msgf(msg, msg_size, "checkpoint: world settings: %s", r.bad ? "truncated" : why);
        return CR_ERR_INVALID_ARGUMENT;
    }
    cr_world *w;
    cr_status s = cr_world_create(&d, &w);
    if (s != CR_OK) return fail(msg, msg_size, s, "cannot create the world");
    w->resting_speed = get_f64(&r);
    w->time = get_f64(&r);
    w->steps = get_u64(&r);
    w->time_base = get_f64(&r);
    w->steps_base = get_u64(&r);
    w->closest_iterations = get_f64(&r);
    w->closest_calls = get_u64(&r);
    w->stats.total_contacts = get_u64(&r);
    w->stats.total_events = get_u64(&r);
    w->stats.law_fallbacks = get_u64(&r);
    uint32_t failed = get_u32(&r);
    if (failed > 1) r.bad = true; /* a flag: 0 or 1, as saved */
    w->failed = failed != 0;
    /* A world stopped by a non-finite step (its message was not saved)
     * refuses steps as it did; the message says why. */
    if (w->failed)
        (void)cr_fail(w, CR_ERR_NON_FINITE,
                      "the world stopped before this checkpoint was saved (a step met a non-finite value)");
    uint32_t planes = get_count(&r, 64);
    for (uint32_t k = 0; k < planes && !r.bad; ++k) {
        cr_plane_def p = cr_default_plane_def();
        p.point = get_vec(&r);
        p.normal = get_vec(&r);
        p.restitution = get_f64(&r);
        p.friction = get_f64(&r);
        if (!r.bad && cr_world_add_plane(w, &p, NULL) != CR_OK) r.bad = true;
        /* the world keeps the normal normalised, and saved it so: a normal
         * that normalises to other bits would save back otherwise */
        if (!r.bad && memcmp(&w->planes.def[k].normal, &p.normal, sizeof p.normal) != 0) {
            cr_msgf(msg, msg_size, "checkpoint: plane %u: normal [%.17g, %.17g, %.17g] is not of unit length", k,
                    p.normal.x, p.normal.y, p.normal.z);
            cr_world_destroy(w);
            return CR_ERR_INVALID_ARGUMENT;
        }
    }
    const char *where = "statics";
    if (!r.bad) {
        s = cr_ckpt_read_surfaces(&r, w, msg, msg_size);
        if (s != CR_OK) {
            cr_world_destroy(w);
            return s;
        }
    }
    if (!r.bad) where = "bodies";
    if (!r.bad && !read_bodies(&r, w, msg, msg_size) && !r.bad) { /* a value out of range: the message names it */
        cr_world_destroy(w);
        return CR_ERR_INVALID_ARGUMENT;
    }
    if (!r.bad) where = "contacts";
    if (!r.bad && !read_contacts(&r, w)) r.bad = true;
    cr_dem_carry carry = {0};
    if (!r.bad) where = "dem state";
    if (!r.bad && version >= 3 && !read_dem_carry(&r, w, &carry, version >= 8 && w->def.hooke.k_roll > 0.0))
        r.bad = true;
    cr_rigid_carry rigid = {0};
    if (!r.bad) where = "rigid state";
    if (!r.bad && version >= 4 && !cr_ckpt_read_rigid(&r, w, version, &rigid, msg, msg_size) && !r.bad) {
        /* a value out of range: the message names it */
        cr_ckpt_rigid_carry_free(&rigid);
        cr_dem_carry_free(&carry);
        cr_world_destroy(w);
        return CR_ERR_INVALID_ARGUMENT;
    }
    uint64_t extra = r.bad ? 0 : get_u64(&r);
    if (!r.bad) where = "application data";
    if (!r.bad && extra != r.n - r.off) r.bad = true;
    if (r.bad) {
        cr_ckpt_rigid_carry_free(&rigid);
        cr_dem_carry_free(&carry);
        cr_world_destroy(w);
        cr_msgf(msg, msg_size, "checkpoint: malformed %s (at byte %zu)", where, r.off);
        return CR_ERR_INVALID_ARGUMENT;
    }
    /* the DEM's list, history and forces, now that the bodies are in */
    s = cr_dem_carry_set(w, &carry);
    if (s == CR_OK && carry.mode != CR_DEM_CARRY_NONE) s = cr_dem_carry_kept(w, &carry);
    cr_dem_carry_free(&carry);
    if (s != CR_OK) {
        cr_ckpt_rigid_carry_free(&rigid);
        cr_msgf(msg, msg_size, "checkpoint: dem state: %s", w->error);
        cr_world_destroy(w);
        return s;
    }
    /* the rigid pipeline's contacts and pair list, the bodies in */
    s = cr_rigid_carry_set(w, &rigid);
    cr_ckpt_rigid_carry_free(&rigid);
    if (s == CR_OK) s = cr_ball_sleep_rings(w); /* the sleeping balls' islands from their ids */
    if (s != CR_OK) {
        cr_msgf(msg, msg_size, "checkpoint: rigid state: %s", w->error);
        cr_world_destroy(w);
        return s;
    }
    if (app && extra) {
        *app = malloc(extra);
        if (!*app) {
            cr_world_destroy(w);
            return fail(msg, msg_size, CR_ERR_OUT_OF_MEMORY, "out of memory");
        }
        memcpy(*app, r.p + r.off, extra);
    }
    if (app_size) *app_size = extra;
    *out = w;
    return CR_OK;
}

cr_status cr_world_load(const char *path, const cr_world_def *callbacks_from, cr_world **out, void **app,
                        size_t *app_size, char *msg, size_t msg_size)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) {
        cr_msgf(msg, msg_size, "checkpoint: cannot open '%s'", path);
        return CR_ERR_INVALID_ARGUMENT;
    }
    unsigned char *data = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n == cap) {
            size_t nc = cap ? 2 * cap : 65536;
            unsigned char *nd = realloc(data, nc);
            if (!nd) {
                free(data);
                fclose(f);
                return fail(msg, msg_size, CR_ERR_OUT_OF_MEMORY, "out of memory");
            }
            data = nd;
            cap = nc;
        }
        size_t got = fread(data + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
    }
    bool read_error = ferror(f) != 0;
    fclose(f);
    cr_status s = read_error ? fail(msg, msg_size, CR_ERR_INVALID_ARGUMENT, "read error")
                             : cr_world_load_buffer(data, n, callbacks_from, out, app, app_size, msg, msg_size);
    free(data);
    return s;
}
