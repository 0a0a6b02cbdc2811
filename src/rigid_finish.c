/* The end of a rigid-body step: motion over the step, then the drift
 * correction of joints and overlaps, then the guards. */
#include <string.h>

#include "item_max.h"
#include "rigid.h"
#include "soft_sections.h" /* cr_soft_run, cr_soft_item_range */
#include "sphere_pairs.h"  /* the contacts' keys */

/* Joint passes of the drift correction: the joint error is nonlinear in the
 * poses, so a few Newton steps take it to rounding. */
#define CR_JOINT_PROJECTIONS 3
/* Islands of the drift correction solved by the direct method: joints
 * (exact, so that they do not come apart); the overlaps of a big pile are
 * taken out by Gauss-Seidel, a fraction k_p a step anyway, with the world's
 * drift_iterations passes. They are its own, not the contact solve's
 * pgs_iterations: its rows are the overlapping contacts only (a third of
 * the contact solve's rows on the 50-row box pyramid, so a pass costs about
 * a quarter of one there), and with few passes it leaves most of a tall
 * pile's sag in place (seed 000 c.5's k_p share of an overlap is reached
 * only when the position-level system is solved): the 50-row box pyramid
 * at 8 contact passes overlaps 59 mm at worst with 8 drift passes, 3.2 mm
 * with 50 (docs/benchmarks.md, branch pyr9). A settled pile needs far fewer
 * passes than a sagging one: the passes stop after one that moved no
 * contact by more than the world's drift_tolerance along its normal (1e-5 m
 * by default; the 20-row pyramid then takes about 18 passes a step on
 * average instead of 50 with the same deepest overlap, the 50-row one
 * nearly all 50). */
#define CR_PROJECTION_DENSE_ROWS 64

/* Free motion over dt: x by v; q by the constant angular velocity; then the
 * angular velocity that keeps the angular momentum I w of the torque-free
 * body (its world inertia turned with it), never with more spin energy. */
static void move(cr_world *w, uint32_t i, double dt)
{
    cr_bodies *b = &w->bodies;
    b->x[i] = cr_v3_madd(b->x[i], b->v[i], dt);
    if (!cr_slot_dynamic(b, i)) {
        b->q[i] = cr_q_integrate(b->q[i], b->w[i], dt);
        return;
    }
    cr_vec3 L = cr_body_spin_momentum(w, i, b->w[i]);
    double spin = cr_v3_dot(L, b->w[i]);
    b->q[i] = cr_q_integrate(b->q[i], b->w[i], dt);
    cr_mat3 R = cr_q_to_m3(b->q[i]);
    cr_vec3 om = cr_m3_mul_v(R, cr_m3_mul_v(b->inv_inertia_local[i], cr_m3_mul_v(cr_m3_transpose(R), L)));
    double spin_after = cr_v3_dot(L, om);
    if (spin_after > spin && spin_after > 0.0) om = cr_v3_scale(om, sqrt(spin / spin_after));
    b->w[i] = om;
}

/* Separation of a contact at the bodies' present poses, from its surface
 * points and normal carried in each body's frame. poses: every slot's
 * present pose (fill_poses), or NULL to make the two here. */
static double separation_now(const cr_world *w, const cr_pose *poses, const cr_rigid_contact *c, cr_vec3 *normal)
{
    if (poses) /* read in place: a copy of each pose (96 bytes) a contact took a fifth of the time */
        return cr_carry_point(poses[c->a], c->is_plane ? NULL : &poses[c->b], c->la, c->lb, c->nb, NULL, normal);
    cr_pose pa = cr_rigid_pose(w, c->a);
    if (c->is_plane) return cr_carry_point(pa, NULL, c->la, c->lb, c->nb, NULL, normal);
    cr_pose pb = cr_rigid_pose(w, c->b);
    return cr_carry_point(pa, &pb, c->la, c->lb, c->nb, NULL, normal);
}

/* A contact of the sphere path (cr_rigid_sphere_path: two spheres, or a
 * sphere and a plane) at the bodies' present positions: the centres'
 * distance less the radii, or the centre's height over the plane less the
 * radius (the narrow phase's own tests, sphere_contacts.c). No pose: the
 * carried points (separation_now) need both bodies' orientations, and at
 * 27,000 balls their poses (2.6 MB written a step) and the 69,000 contacts'
 * transforms were most of the finish (docs/benchmarks.md, pit21). Exact for
 * spheres, where the carried points turn with a rolling ball and so drift
 * off the line of centres. */
static inline double balls_apart(const cr_bodies *b, uint32_t i, uint32_t j)
{
    return cr_v3_len(cr_v3_sub(b->x[i], b->x[j])) - b->radius[i] - b->radius[j];
}
static inline double ball_above(const cr_world *w, uint32_t i, uint32_t k)
{
    const cr_plane_def *p = &w->planes.def[k];
    return cr_v3_dot(p->normal, w->bodies.x[i]) - cr_v3_dot(p->normal, p->point) - w->bodies.radius[i];
}
static double sphere_separation(const cr_world *w, const cr_rigid_contact *c)
{
    return c->is_plane ? ball_above(w, c->a, c->b) : balls_apart(&w->bodies, c->a, c->b);
}

/* Whether a contact was made by the sphere path (sphere_contacts.c), which
 * carries no frames: its nb is zero, where a carried normal is a unit
 * vector. Such a contact is measured by sphere_separation, also when a box
 * has come into the world since (cr_world_max_overlap between steps). */
static bool by_centres(const cr_rigid_contact *c) { return c->nb.x == 0.0 && c->nb.y == 0.0 && c->nb.z == 0.0; }

/* n things split for the workers into at most max_items items of at least
 * min_size things: the item size, and the items in *items. Fixed by n, not
 * by the workers, so each item's result is the same on any worker count. */
static uint32_t item_size(uint32_t n, uint32_t min_size, uint32_t max_items, uint32_t *items)
{
    uint32_t size = (n + max_items - 1) / max_items;
    if (size < min_size) size = min_size;
    *items = (n + size - 1) / size;
    return size;
}

/* The poses and the finiteness check over the workers, in at most
 * CR_POSE_ITEMS items of at least CR_POSE_ITEM bodies; each pose is
 * written by one item only, and each item says whether it saw a body that
 * is not finite: the same on any worker count. */
#define CR_POSE_ITEM 2048
#define CR_POSE_ITEMS 64
typedef struct pose_run {
    cr_world *w;
    bool poses; /* fill r->poses too */
    uint32_t item_size;
    bool bad[CR_POSE_ITEMS];
} pose_run;

static void pose_items(uint32_t start, uint32_t end, uint32_t worker, void *ctx)
{
    (void)worker;
    pose_run *t = ctx;
    const cr_bodies *b = &t->w->bodies;
    cr_pose *poses = t->w->rigid->poses;
    for (uint32_t item = start; item < end; ++item) {
        uint32_t i0, i1;
        cr_soft_item_range(item, item + 1, t->item_size, b->slot_count, &i0, &i1);
        bool bad = false;
        for (uint32_t i = i0; i < i1; ++i) {
            if (!cr_slot_alive(b, i)) continue;
            if (t->poses) poses[i] = cr_rigid_pose(t->w, i);
            bad |= !(cr_v3_isfinite(b->x[i]) && cr_v3_isfinite(b->v[i]) && cr_v3_isfinite(b->w[i]));
        }
        t->bad[item] = bad;
    }
}

/* Every live slot's pose (when poses), once: the contacts then read them
 * instead of turning both bodies' quaternions into matrices per contact (a
 * body of a resting stack has a dozen contacts or more). The same
 * matrices, so the same separations to the bit. *finite: whether every
 * live body's position and velocities are finite (cr_check_finite's test,
 * which then names the first that is not). False when out of memory. */
static bool fill_poses(cr_world *w, bool poses, bool *finite)
{
    cr_rigid *r = w->rigid;
    uint32_t n = w->bodies.slot_count;
    if (poses && !cr_grow(w, (void **)&r->poses, &r->pose_capacity, n, sizeof *r->poses)) return false;
    uint32_t items;
    pose_run t = {w, poses, item_size(n, CR_POSE_ITEM, CR_POSE_ITEMS, &items), {false}};
    cr_soft_run(w, pose_items, items, &t);
    *finite = true;
    for (uint32_t k = 0; k < items; ++k) *finite = *finite && !t.bad[k];
    return true;
}

static void load_pseudo(cr_world *w)
{
    cr_rigid *r = w->rigid;
    const cr_bodies *b = &w->bodies;
    for (uint32_t i = 0; i < b->slot_count; ++i) {
        bool live = cr_slot_alive(b, i) && cr_slot_dynamic(b, i);
        cr_mat3 R = cr_q_to_m3(b->q[i]);
        r->lb[i].inv_mass = live ? b->inv_mass[i] : 0.0;
        r->lb[i].inv_inertia = live ? cr_m3_mul(cr_m3_mul(R, b->inv_inertia_local[i]), cr_m3_transpose(R)) : cr_m3_zero();
        r->lb[i].v = r->lb[i].w = cr_v3_zero();
    }
}

/* How far the drift correction moves a contact overlapping by -sep apart
 * this step: seed 000 c.5's share k_p of the overlap, but at most
 * drift_max_speed dt. The projection moves positions without velocity, so
 * whatever it lifts a resting body by is potential energy from nothing
 * (the kinetic energy it would take is not there): k_p d alone put up to
 * M g k_p d into a body resting in a deep overlap d in one step. Capped,
 * a step adds at most M g drift_max_speed dt, and the overlap is taken out
 * at that speed (a deep one over several steps) before k_p's geometric
 * decay takes over. 0: no cap. */
static double lift_target(const cr_world *w, double sep)
{
    double lift = -w->def.k_p * sep, cap = w->def.drift_max_speed * w->def.dt;
    return cap > 0.0 && lift > cap ? cap : lift;
}

/* One projection: rows at position level solved for displacements
 * (J dx = -c), applied to positions and orientations. */
static cr_status project(cr_world *w, uint32_t rows)
{
    cr_rigid *r = w->rigid;
    cr_bodies *b = &w->bodies;
    cr_lcp_options opt = cr_rigid_lcp_options(w);
    opt.dense_max_rows = CR_PROJECTION_DENSE_ROWS;
    opt.pgs_iterations = (uint32_t)w->def.drift_iterations;
    opt.pgs_stop = w->def.drift_tolerance;
    /* Jointed drift islands stay with the PGS fallback: those that cycle
     * are nearly all a resting chain's roundoff conflicts (lifts of at most
     * 4.1e-14 m against its hinges, docs/physics/contact-lagrange.md),
     * where Lemke's method ends in a ray on all three covering vectors and
     * PGS follows anyway; scenes/chain.json ran 13 % faster so, at the
     * same rest energy (tests/test_rigid_joints.c). */
    opt.lemke_joints = false;
    load_pseudo(w);
    cr_lcp_stats st;
    cr_status s = cr_lcp_solve(r->rows, rows, r->lb, b->slot_count, &opt, r->ws, &st);
    cr_rigid_count_fallbacks(w, &st);
    if (s == CR_ERR_OUT_OF_MEMORY) return cr_fail(w, s, "rigid drift correction: out of memory");
    if (s != CR_OK) return CR_OK; /* no correction this step; the finiteness check follows */
    for (uint32_t i = 0; i < b->slot_count; ++i) {
        if (!cr_slot_alive(b, i) || !cr_slot_dynamic(b, i)) continue;
        b->x[i] = cr_v3_add(b->x[i], r->lb[i].v);
        b->q[i] = cr_q_integrate(b->q[i], r->lb[i].w, 1.0);
    }
    return CR_OK;
}

/* Seed 000 c.5's position projection generalised to rigid bodies: overlaps
 * are taken out by the fraction k_p, through the bodies' masses and inertias
 * (the multiplier system at position level); joints are put back together
 * whole. Energy it would add is taken out of each body's kinetic energy. */
static cr_status correct_drift(cr_world *w)
{
    cr_rigid *r = w->rigid;
    cr_bodies *b = &w->bodies;
    for (uint32_t i = 0; i < b->slot_count; ++i)
        if (cr_slot_alive(b, i) && cr_slot_dynamic(b, i)) b->energy_before[i] = cr_body_energy(w, i);
    for (int pass = 0; pass < CR_JOINT_PROJECTIONS; ++pass) {
        uint32_t n = cr_joint_rows(w, r->rows, true);
        bool finite;
        if (pass == 0 && w->def.k_p > 0.0 && r->contact_count > 0 && !fill_poses(w, true, &finite))
            return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "rigid drift correction: out of memory");
        if (pass == 0 && w->def.k_p > 0.0)
            for (uint32_t k = 0; k < r->contact_count; ++k) {
                cr_rigid_contact *c = &r->contacts[k];
                cr_vec3 nrm;
                double sep = separation_now(w, r->poses, c, &nrm);
                if (!(sep < 0.0)) continue;
                cr_lcp_row *row = &r->rows[n++];
                memset(row, 0, sizeof *row);
                row->kind = CR_ROW_NORMAL;
                row->a = c->a;
                row->b = c->is_plane ? CR_LCP_FIXED : c->b;
                cr_vec3 pa = cr_v3_add(b->x[c->a], cr_m3_mul_v(cr_q_to_m3(b->q[c->a]), c->la));
                row->ja_lin = nrm;
                row->ja_ang = cr_v3_cross(cr_v3_sub(pa, b->x[c->a]), nrm);
                if (!c->is_plane) {
                    row->jb_lin = cr_v3_neg(nrm);
                    row->jb_ang = cr_v3_neg(cr_v3_cross(cr_v3_sub(pa, b->x[c->b]), nrm));
                }
                row->target = lift_target(w, sep);
            }
        if (n == 0) break;
        cr_status s = project(w, n);
        if (s != CR_OK) return s;
        if (r->joint_live == 0) break;
    }
    for (uint32_t i = 0; i < b->slot_count; ++i)
        if (cr_slot_alive(b, i) && cr_slot_dynamic(b, i)) cr_body_cap_energy(w, i, b->energy_before[i]);
    return CR_OK;
}

double cr_rigid_max_overlap(const cr_world *w, cr_body_id *a, cr_body_id *b)
{
    double worst = 0.0;
    for (uint32_t k = 0; w->rigid && k < w->rigid->contact_count; ++k) {
        const cr_rigid_contact *c = &w->rigid->contacts[k];
        double depth = -(by_centres(c) ? sphere_separation(w, c) : separation_now(w, NULL, c, NULL));
        if (!(depth > worst)) continue;
        worst = depth;
        if (a) *a = cr_world_body_at(w, c->a);
        if (b) *b = c->is_plane ? (cr_body_id){0, 0} : cr_world_body_at(w, c->b);
    }
    return worst;
}

/* The step's deepest overlap (the stat) over the workers: each item of
 * contacts its own maximum, joined after (item_max.h: the same for any
 * worker count). At 27,000 spheres the 69,000 contacts' separations were
 * ~3 % of a step, serial. */
#define CR_OVERLAP_ITEM 4096
#define CR_OVERLAP_ITEMS 64
typedef struct overlap_run {
    const cr_world *w;
    uint32_t item_size;
} overlap_run;

static double overlap_item(const void *ctx, uint32_t item)
{
    const overlap_run *t = ctx;
    const cr_rigid *r = t->w->rigid;
    uint32_t k0, k1;
    cr_soft_item_range(item, item + 1, t->item_size, r->contact_count, &k0, &k1);
    double worst = 0.0;
    for (uint32_t k = k0; k < k1; ++k) {
        double depth = -separation_now(t->w, r->poses, &r->contacts[k], NULL);
        if (depth > worst) worst = depth;
    }
    return worst;
}

static double deepest_overlap(cr_world *w)
{
    uint32_t items;
    overlap_run t = {w, item_size(w->rigid->contact_count, CR_OVERLAP_ITEM, CR_OVERLAP_ITEMS, &items)};
    return cr_max_over_items(w, items, overlap_item, &t);
}

/* The sphere path's end of the step in one run over the workers: items of
 * bodies (the finiteness check, each item's flag as pose_items') and then
 * items of contacts (their deepest overlap by sphere_separation, no poses
 * needed), the maximum joined by item_max.h: the same on any worker count.
 * One run where the general path takes two (the poses, then the contacts
 * at them). A contact's bodies are read from its key (sphere_pairs.h: 8
 * bytes, and the list's pair for two balls, in the list's order) rather
 * than from the contact, a 328-byte stride: a cache line of each of the
 * 69,000 contacts at 27,000 balls. */
typedef struct sphere_end_run {
    const cr_world *w;
    uint32_t body_items, body_size, contact_size;
    bool *bad;            /* per item of bodies */
    const uint64_t *key;  /* per contact: its key; NULL: read the contacts */
    const cr_broad_pair *list;
} sphere_end_run;

static double sphere_end_item(const void *ctx, uint32_t item)
{
    const sphere_end_run *t = ctx;
    const cr_bodies *b = &t->w->bodies;
    const cr_rigid *r = t->w->rigid;
    uint32_t i0, i1;
    if (item < t->body_items) {
        cr_soft_item_range(item, item + 1, t->body_size, b->slot_count, &i0, &i1);
        bool bad = false;
        for (uint32_t i = i0; i < i1; ++i)
            bad |= cr_slot_alive(b, i) &&
                   !(cr_v3_isfinite(b->x[i]) && cr_v3_isfinite(b->v[i]) && cr_v3_isfinite(b->w[i]));
        t->bad[item] = bad;
        return 0.0;
    }
    cr_soft_item_range(item - t->body_items, item - t->body_items + 1, t->contact_size, r->contact_count, &i0, &i1);
    double worst = 0.0;
    for (uint32_t k = i0; k < i1; ++k) {
        double depth;
        if (!t->key) {
            depth = -sphere_separation(t->w, &r->contacts[k]);
        } else if (t->key[k] & CR_SPHERE_PLANE_KEY) {
            depth = -ball_above(t->w, cr_sphere_plane_key_body(t->key[k]), cr_sphere_plane_key_plane(t->key[k]));
        } else {
            const cr_broad_pair *p = &t->list[t->key[k]];
            depth = -balls_apart(b, p->a, p->b);
        }
        if (depth > worst) worst = depth;
    }
    return worst;
}

/* *finite as fill_poses'; the step's deepest overlap. */
static double sphere_end(cr_world *w, bool *finite)
{
    bool bad[CR_POSE_ITEMS];
    uint32_t bodies, contacts;
    const cr_sphere_pairs *L = w->rigid->sphere_pairs;
    /* the keys of this step's contacts (made by this step's narrow phase),
     * a body's slot in 31 bits */
    bool keyed = L && L->key_step == w->steps + 1 && w->bodies.slot_count <= INT32_MAX;
    sphere_end_run t = {w,
                        0,
                        item_size(w->bodies.slot_count, CR_POSE_ITEM, CR_POSE_ITEMS, &bodies),
                        item_size(w->rigid->contact_count, CR_OVERLAP_ITEM, CR_OVERLAP_ITEMS, &contacts),
                        bad,
                        keyed ? L->key : NULL,
                        keyed ? L->grid.pairs : NULL};
    t.body_items = bodies;
    double worst = cr_max_over_items(w, bodies + contacts, sphere_end_item, &t);
    *finite = true;
    for (uint32_t k = 0; k < bodies; ++k) *finite = *finite && !bad[k];
    return worst;
}

cr_status cr_rigid_finish(cr_world *w)
{
    cr_bodies *b = &w->bodies;
    double dt = w->def.dt;
    cr_status s;
    /* the sub-stepped solver has moved the bodies, and its soft contacts
     * take overlap out themselves (rigid_substep.c) */
    if (w->def.rigid_substeps == 0) {
        for (uint32_t i = 0; i < b->slot_count; ++i)
            if (cr_slot_alive(b, i) && b->type[i] != CR_BODY_STATIC && !b->asleep[i]) move(w, i, dt);
        uint32_t need = 3 * w->rigid->contact_count;
        for (uint32_t k = 0; k < w->rigid->joint_count; ++k) need += 6;
        if (!cr_rigid_reserve_rows(w, need)) return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "rigid bodies: out of memory");
        if ((s = correct_drift(w)) != CR_OK) return s;
    }
    /* the poses after the drift correction, and the finiteness check in
     * the same pass over the bodies (cr_check_finite's error only when
     * something is not finite); the sphere path needs no poses */
    bool finite, spheres = cr_rigid_sphere_path(w);
    double deepest = spheres ? sphere_end(w, &finite) : 0.0;
    if (!spheres && !fill_poses(w, w->rigid->contact_count > 0, &finite))
        return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "rigid bodies: out of memory");
    if (!finite && (s = cr_check_finite(w, "")) != CR_OK) return s;
    w->stats.max_penetration = spheres ? deepest : deepest_overlap(w);
    if ((s = cr_rigid_update_sleep(w)) != CR_OK) return s;
    cr_rigid_keep_contacts(w);
    w->steps++;
    w->time = w->time_base + (double)(w->steps - w->steps_base) * dt;
    return CR_OK;
}

uint32_t cr_world_contact_count(const cr_world *w) { return w->rigid && cr_world_is_rigid(w) ? w->rigid->contact_count : 0; }

cr_status cr_world_get_contact(const cr_world *w, uint32_t k, cr_contact_report *out)
{
    if (k >= cr_world_contact_count(w)) return CR_ERR_INVALID_ARGUMENT;
    const cr_rigid_contact *c = &w->rigid->contacts[k];
    memset(out, 0, sizeof *out);
    out->a = cr_world_body_at(w, c->a);
    if (c->is_plane) {
        out->static_id.index = c->b;
        out->static_id.generation = 1;
        out->static_id.type = CR_STATIC_PLANE;
    } else {
        out->b = cr_world_body_at(w, c->b);
    }
    out->point = c->point;
    out->normal = c->normal;
    out->separation = c->separation;
    out->normal_impulse = c->jn;
    out->friction_impulse = c->jt;
    return CR_OK;
}
