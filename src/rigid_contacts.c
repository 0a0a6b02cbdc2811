/* Rigid-body narrow phase: the contact points of every broad-phase pair and
 * every body against every plane (seed 003's vertex/face and edge/edge
 * contacts, from collide_poly), with the previous step's multipliers
 * carried over to the contacts that persist. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "contact_keys.h"
#include "prefetch.h"
#include "rigid.h"
#include "dem_internal.h"

cr_pose cr_rigid_pose(const cr_world *w, uint32_t i)
{
    cr_pose p = {w->bodies.x[i], cr_q_to_m3(w->bodies.q[i])};
    return p;
}

/* What body i collides with: its convex hull, its triangles (a mesh that
 * does not move under impulses), or a sphere of its radius. */
typedef enum { GEOM_SPHERE, GEOM_HULL, GEOM_MESH } geom_kind;

static geom_kind geom_of(const cr_world *w, uint32_t i)
{
    const cr_shape *s = w->bodies.shape[i];
    if (!s || s->type == CR_SHAPE_SPHERE) return GEOM_SPHERE;
    if (s->type == CR_SHAPE_MESH && !cr_slot_dynamic(&w->bodies, i)) return GEOM_MESH;
    return GEOM_HULL;
}

static void flip(cr_manifold *m)
{
    for (uint32_t k = 0; k < m->count; ++k) {
        m->p[k].normal = cr_v3_neg(m->p[k].normal);
        if (m->p[k].kind == CR_FEATURE_VERTEX_FACE) m->p[k].kind = CR_FEATURE_FACE_VERTEX;
        else if (m->p[k].kind == CR_FEATURE_FACE_VERTEX) m->p[k].kind = CR_FEATURE_VERTEX_FACE;
    }
}

/* The speculative margin lets in pairs that are still apart; seed 001
 * §3.3's time of impact (conservative advancement) keeps only those that
 * meet within the step, so that a fast body passing beside a face is not
 * stopped by it (a "ghost" contact). Pairs within the margin every contact
 * gets (CR_BASE_MARGIN: resting and nearly resting ones) always stay. The
 * motion is taken with the step's gravity. */
static void keep_meeting_hulls(const cr_world *w, uint32_t a, uint32_t b, cr_manifold *m)
{
    const cr_bodies *bs = &w->bodies;
    double base = CR_BASE_MARGIN * fmin(bs->radius[a], bs->radius[b]);
    for (uint32_t k = 0; k < m->count; ++k)
        if (!(m->p[k].separation > base)) return;
    if (m->count == 0) return;
    double dt = w->def.dt;
    cr_vec3 va = cr_slot_dynamic(bs, a) ? cr_v3_madd(bs->v[a], w->def.gravity, dt) : bs->v[a];
    cr_vec3 vb = cr_slot_dynamic(bs, b) ? cr_v3_madd(bs->v[b], w->def.gravity, dt) : bs->v[b];
    double t = cr_toi_hulls(&bs->shape[a]->hull, cr_rigid_pose(w, a), va, bs->w[a], &bs->shape[b]->hull,
                            cr_rigid_pose(w, b), vb, bs->w[b], dt, cr_touch_margin(fmin(bs->radius[a], bs->radius[b])));
    if (!(t < dt)) m->count = 0;
}

/* The manifold of bodies a and b, normal from b towards a; *gap: a lower
 * bound of their distance when a separating-axis query found two hulls
 * apart, -HUGE_VAL otherwise. */
static void collide_pair(const cr_world *w, uint32_t a, uint32_t b, double margin, cr_manifold *m, double *gap)
{
    geom_kind ga = geom_of(w, a), gb = geom_of(w, b);
    const cr_bodies *bs = &w->bodies;
    m->count = 0;
    *gap = -HUGE_VAL;
    if (ga == GEOM_MESH && gb == GEOM_MESH) return; /* neither moves */
    bool swap = ga < gb;                            /* order: mesh, hull, sphere */
    uint32_t i = swap ? b : a, j = swap ? a : b;
    geom_kind gi = swap ? gb : ga, gj = swap ? ga : gb;
    cr_pose pi = cr_rigid_pose(w, i), pj = cr_rigid_pose(w, j);
    if (gi == GEOM_SPHERE)
        cr_collide_sphere_sphere(bs->x[i], bs->radius[i], bs->x[j], bs->radius[j], margin, m);
    else if (gi == GEOM_HULL && gj == GEOM_HULL) {
        cr_collide_hull_hull_gap(&bs->shape[i]->hull, pi, &bs->shape[j]->hull, pj, margin, m, gap);
        keep_meeting_hulls(w, i, j, m);
    }
    else if (gi == GEOM_HULL)
        cr_collide_hull_sphere(&bs->shape[i]->hull, pi, bs->x[j], bs->radius[j], margin, m);
    else if (gj == GEOM_HULL)
        cr_collide_mesh_hull(&bs->shape[i]->mesh, pi, &bs->shape[j]->hull, pj, margin, m);
    else
        cr_collide_mesh_sphere(&bs->shape[i]->mesh, pi, bs->x[j], bs->radius[j], margin, m);
    if (swap) flip(m);
}

static void collide_plane(const cr_world *w, uint32_t a, uint32_t k, double margin, cr_manifold *m)
{
    const cr_plane_def *p = &w->planes.def[k];
    double offset = cr_v3_dot(p->normal, p->point);
    m->count = 0;
    switch (geom_of(w, a)) {
    case GEOM_SPHERE: cr_collide_sphere_plane(w->bodies.x[a], w->bodies.radius[a], p->normal, offset, margin, m); break;
    case GEOM_HULL: cr_collide_hull_plane(&w->bodies.shape[a]->hull, cr_rigid_pose(w, a), p->normal, offset, margin, m); break;
    case GEOM_MESH: break; /* a mesh that does not move never meets a plane that does not either */
    }
}

/* The warm start's look-up: the last step's contacts (r->prev, in the
 * order they were made) through r->keys, their sort keys (contact_keys.h)
 * in the order of pair (a, planes after bodies, b), then feature, then
 * index (so that equal contacts keep their order, as a stable sort of the
 * contacts would). */

static uint64_t pair_key(uint32_t a, bool is_plane, uint32_t b)
{
    return (uint64_t)a << 33 | (uint64_t)is_plane << 32 | b;
}

/* The contact at sorted position k. */
static const cr_rigid_contact *prev_at(const cr_rigid *r, uint32_t k) { return &r->prev[(uint32_t)r->keys[k].rank]; }

static const cr_rigid_contact *find_prev(const cr_rigid *r, const cr_rigid_contact *c)
{
    uint64_t pair = pair_key(c->a, c->is_plane, c->b);
    uint32_t lo = 0, hi = r->prev_count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        const cr_contact_key *k = &r->keys[mid];
        uint32_t feature = (uint32_t)(k->rank >> 32);
        if (k->pair == pair && feature == c->feature) return prev_at(r, mid);
        if (k->pair < pair || (k->pair == pair && feature < c->feature)) lo = mid + 1;
        else hi = mid;
    }
    return NULL;
}

/* Speculative margin of a pair: what it can close in one step, plus a
 * little, so that a contact is in the system before the bodies meet and
 * nothing passes through a thin body between steps. */
static double pair_margin(const cr_world *w, uint32_t a, uint32_t b)
{
    const cr_bodies *bs = &w->bodies;
    double ra = bs->radius[a], rb = b == CR_NO_BODY ? INFINITY : bs->radius[b];
    double speed = cr_v3_len(bs->v[a]) + cr_v3_len(bs->w[a]) * ra;
    if (b != CR_NO_BODY) speed += cr_v3_len(bs->v[b]) + cr_v3_len(bs->w[b]) * rb;
    return CR_BASE_MARGIN * fmin(ra, rb) + (speed + cr_v3_len(w->def.gravity) * w->def.dt) * w->def.dt;
}

/* Carried manifolds (src/collide_carry.c): a pair of hulls whose relative
 * pose is within CR_CARRY_TOLERANCE (of the smaller bounding radius, and
 * radians) of the pose its manifold was made at keeps that manifold: the
 * separating-axis query and the clipping are skipped, the points and
 * separations follow the bodies. The error this leaves is of the order of
 * the tolerance times the contact's size in the points, and its square in
 * the separations of face contacts (tests/test_collide_poly.c). Bodies held
 * by a joint are left to the narrow phase: a joint and contacts on the same
 * bodies make a redundant system whose active-set solve is sensitive to the
 * order and identity of the contacts (the chain of
 * tests/test_rigid_joints.c hits the iteration bound there), and carrying
 * changes both. */
#define CR_CARRY_TOLERANCE 1e-3

static void relative_pose(const cr_world *w, uint32_t a, uint32_t b, cr_vec3 *x, cr_quat *q)
{
    const cr_bodies *bs = &w->bodies;
    cr_quat qb = bs->q[b], qa = bs->q[a];
    cr_quat conj = {qb.w, -qb.x, -qb.y, -qb.z};
    /* R(qb)^T (x_a - x_b), the products and sums of cr_pose_local_point's
     * in its order, written by columns of R: through cr_mat3 GCC stored R
     * as scalars and read it back in pairs (a failed store forwarding,
     * 70 % of this function's samples) */
    cr_mat3 R = cr_q_to_m3(qb);
    cr_vec3 d = cr_v3_sub(bs->x[a], bs->x[b]);
    *x = cr_v3(R.m[0][0] * d.x + R.m[1][0] * d.y + R.m[2][0] * d.z, R.m[0][1] * d.x + R.m[1][1] * d.y + R.m[2][1] * d.z,
               R.m[0][2] * d.x + R.m[1][2] * d.y + R.m[2][2] * d.z);
    *q = cr_q_mul(conj, qa);
}

uint32_t cr_rigid_find_pair(const cr_rigid *r, uint32_t a, bool is_plane, uint32_t b)
{
    if (a >= r->key_buckets) return CR_NO_BODY;
    uint64_t pair = pair_key(a, is_plane, b);
    uint32_t end = r->key_count[a] < r->prev_count ? r->key_count[a] : r->prev_count; /* 0 once a body is removed */
    uint32_t lo = a ? r->key_count[a - 1] : 0, hi = end;
    if (lo > hi) lo = hi;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (r->keys[mid].pair < pair) lo = mid + 1;
        else hi = mid;
    }
    return lo < end && r->keys[lo].pair == pair ? lo : CR_NO_BODY;
}

/* Carries pair (a, b)'s manifold over when it may (see above): returns the
 * previous step's first contact of the pair, CR_NO_BODY when the narrow
 * phase must look afresh. */
static uint32_t carry_pair(const cr_world *w, uint32_t a, uint32_t b, cr_manifold *m)
{
    const cr_rigid *r = w->rigid;
    if (geom_of(w, a) != GEOM_HULL || geom_of(w, b) != GEOM_HULL) return CR_NO_BODY;
    if (r->joint_live && (r->jointed[a] || r->jointed[b])) return CR_NO_BODY;
    uint32_t first = cr_rigid_find_pair(r, a, false, b), count = 0;
    if (first == CR_NO_BODY) return CR_NO_BODY;
    while (first + count < r->prev_count && r->keys[first + count].pair == r->keys[first].pair) ++count;
    if (count > CR_MANIFOLD_MAX) return CR_NO_BODY;
    cr_vec3 x;
    cr_quat q;
    relative_pose(w, a, b, &x, &q);
    const cr_rigid_contact *p = prev_at(r, first);
    double length = fmin(w->bodies.radius[a], w->bodies.radius[b]);
    if (!cr_carry_close(p->ref_x, p->ref_q, x, q, length, CR_CARRY_TOLERANCE)) return CR_NO_BODY;
    cr_pose pa = cr_rigid_pose(w, a), pb = cr_rigid_pose(w, b);
    m->count = count;
    for (uint32_t k = 0; k < count; ++k) {
        cr_contact_point *c = &m->p[k];
        const cr_rigid_contact *o = prev_at(r, first + k);
        c->separation = cr_carry_point(pa, &pb, o->la, o->lb, o->nb, &c->point, &c->normal);
        c->id = o->feature;
        c->kind = CR_FEATURE_VERTEX_FACE;
    }
    return first;
}

/* Pairs kept apart (src/collide_apart.c): a pair of hulls that the last
 * step's query found apart, or kept apart since, is skipped while the gap
 * found then, less how far A's points can have moved in B's frame since,
 * exceeds the margin a fresh query would use: the bodies are then farther
 * apart than that margin, which covers what they can close in the step.
 * Returns the last step's entry of the pair, CR_NO_BODY when the narrow
 * phase must look. */
static uint32_t keep_apart(const cr_world *w, uint32_t a, uint32_t b)
{
    const cr_rigid *r = w->rigid;
    /* body a's entries only (apart_end delimits them; sorted by a, then b):
     * the same entry as a search of them all, in a probe or two instead of
     * a dozen; a body made since has none */
    if (a >= r->apart_buckets) return CR_NO_BODY;
    uint32_t end = r->apart_end[a] < r->apart_prev_count ? r->apart_end[a] : r->apart_prev_count; /* 0 once a body is removed */
    uint32_t lo = a ? r->apart_end[a - 1] : 0, hi = end;
    if (lo > hi) lo = hi;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        const cr_rigid_apart *p = &r->apart_prev[mid];
        if (p->a < a || (p->a == a && p->b < b)) lo = mid + 1;
        else hi = mid;
    }
    if (lo == end || r->apart_prev[lo].a != a || r->apart_prev[lo].b != b) return CR_NO_BODY;
    const cr_rigid_apart *p = &r->apart_prev[lo];
    cr_vec3 x;
    cr_quat q;
    relative_pose(w, a, b, &x, &q);
    double motion = cr_apart_motion(p->ref_x, p->ref_q, x, q, w->bodies.radius[a]);
    return p->gap - motion > pair_margin(w, a, b) ? lo : CR_NO_BODY;
}

static int apart_cmp(const void *pa, const void *pb)
{
    const cr_rigid_apart *x = pa, *y = pb;
    if (x->a != y->a) return x->a < y->a ? -1 : 1;
    if (x->b != y->b) return x->b < y->b ? -1 : 1;
    return 0;
}

/* Appends manifold m of a and b; carry: the previous step's first contact
 * of the pair when m was carried over from it (the points keep their frames
 * and reference pose), CR_NO_BODY when m was found afresh. */
static bool add_points(cr_world *w, uint32_t a, uint32_t b, bool is_plane, const cr_manifold *m, uint32_t carry)
{
    cr_rigid *r = w->rigid;
    if (!cr_grow(w, (void **)&r->contacts, &r->contact_capacity, r->contact_count + m->count, sizeof *r->contacts))
        return false;
    const cr_bodies *bs = &w->bodies;
    /* the poses frame the points found afresh only: a carried manifold's
     * points keep their frames (most of a resting stack's, every step) */
    cr_pose pa = {cr_v3_zero(), cr_m3_identity()}, pb = pa;
    cr_vec3 ref_x = cr_v3_zero();
    cr_quat ref_q = cr_q_identity();
    if (carry == CR_NO_BODY) {
        pa = cr_rigid_pose(w, a);
        if (!is_plane) {
            pb = cr_rigid_pose(w, b);
            relative_pose(w, a, b, &ref_x, &ref_q);
        }
    }
    double e = bs->restitution[a] * (is_plane ? w->planes.def[b].restitution : bs->restitution[b]);
    double mu = bs->friction[a] * (is_plane ? w->planes.def[b].friction : bs->friction[b]);
    for (uint32_t k = 0; k < m->count; ++k) {
        const cr_contact_point *p = &m->p[k];
        cr_rigid_contact *c = &r->contacts[r->contact_count++];
        /* every member set once, no memset first: memset (a string
         * instruction, rep stos) and the stores after it wrote each contact
         * twice (a member added to cr_rigid_contact must be set here too);
         * t1, t2 are set by the solve, jn, jt are this step's */
        c->a = a, c->b = b, c->is_plane = is_plane, c->feature = p->id;
        c->point = p->point, c->normal = p->normal, c->separation = p->separation;
        c->t1 = c->t2 = c->jt = cr_v3_zero();
        c->restitution = e, c->friction = mu, c->jn = 0.0;
        if (carry != CR_NO_BODY) {
            const cr_rigid_contact *old = prev_at(r, carry + k);
            c->la = old->la, c->lb = old->lb, c->nb = old->nb;
            c->ref_x = old->ref_x, c->ref_q = old->ref_q;
            c->rest_n = old->rest_n, c->rest_t = old->rest_t, c->rest_roll = old->rest_roll;
            continue;
        }
        cr_carry_frames(&pa, &pb, p, &c->la, &c->lb, &c->nb);
        c->ref_x = ref_x, c->ref_q = ref_q;
        c->rest_n = 0.0, c->rest_t = c->rest_roll = cr_v3_zero();
        const cr_rigid_contact *old = find_prev(r, c);
        if (old) {
            c->rest_n = old->rest_n;
            c->rest_t = old->rest_t;
            c->rest_roll = old->rest_roll;
        }
    }
    return true;
}

/* The narrow phase runs as work items (cr_run_items: the world's task
 * system or carom's threads): each job writes only its own manifold, and
 * the contacts are then appended in job order on the caller's thread, so
 * the contact list (and the warm start) does not depend on the threads. */
typedef struct cr_narrow_job {
    uint32_t a, b;  /* a pair; or body a against every plane when b is CR_NO_BODY */
    uint32_t first; /* its manifold (a plane job: the first of one per plane) */
    uint32_t carry; /* set by the job: the previous step's first contact of the pair when its
                     * manifold was carried over, CR_NO_BODY when found afresh */
    uint32_t kept;  /* set by the job: the last step's entry of a pair kept apart, else CR_NO_BODY */
    double gap;     /* set by the job: a lower bound of the distance of a pair found apart, else -HUGE_VAL */
} cr_narrow_job;

#define CR_NARROW_CHUNK 16u /* jobs per work item */

typedef struct narrow_ctx {
    const cr_world *w;
    cr_narrow_job *jobs;
    cr_manifold *m;
    uint32_t count;
} narrow_ctx;

static void narrow_items(uint32_t start, uint32_t end, uint32_t worker, void *ctx)
{
    (void)worker;
    const narrow_ctx *c = ctx;
    for (uint32_t item = start; item < end; ++item)
        for (uint32_t j = item * CR_NARROW_CHUNK; j < c->count && j < (item + 1) * CR_NARROW_CHUNK; ++j) {
            cr_narrow_job *job = &c->jobs[j];
            cr_manifold *m = &c->m[job->first];
            job->carry = job->kept = CR_NO_BODY;
            job->gap = -HUGE_VAL;
            m->count = 0;
            if (job->b != CR_NO_BODY) {
                job->carry = carry_pair(c->w, job->a, job->b, m);
                if (job->carry == CR_NO_BODY) job->kept = keep_apart(c->w, job->a, job->b);
                if (job->carry == CR_NO_BODY && job->kept == CR_NO_BODY)
                    collide_pair(c->w, job->a, job->b, pair_margin(c->w, job->a, job->b), m, &job->gap);
                continue;
            }
            double margin = pair_margin(c->w, job->a, CR_NO_BODY);
            for (uint32_t k = 0; k < c->w->planes.count; ++k) collide_plane(c->w, job->a, k, margin, &m[k]);
        }
}

/* This step's pairs kept or found apart become the next step's (sorted
 * by pair for keep_apart's search). */
static bool note_apart(cr_world *w, uint32_t jobs)
{
    cr_rigid *r = w->rigid;
    r->apart_count = 0;
    for (uint32_t j = 0; j < jobs; ++j) {
        const cr_narrow_job *job = &r->jobs[j];
        if (job->b == CR_NO_BODY || (job->kept == CR_NO_BODY && !(job->gap > -HUGE_VAL))) continue;
        if (!cr_grow(w, (void **)&r->apart, &r->apart_capacity, r->apart_count + 1, sizeof *r->apart)) return false;
        cr_rigid_apart *e = &r->apart[r->apart_count++];
        if (job->kept != CR_NO_BODY) {
            *e = r->apart_prev[job->kept];
            continue;
        }
        e->a = job->a, e->b = job->b, e->gap = job->gap;
        relative_pose(w, job->a, job->b, &e->ref_x, &e->ref_q);
    }
    if (r->apart_count) qsort(r->apart, r->apart_count, sizeof *r->apart, apart_cmp);
    cr_rigid_apart *t = r->apart;
    uint32_t tc = r->apart_capacity;
    r->apart = r->apart_prev, r->apart_capacity = r->apart_prev_capacity;
    r->apart_prev = t, r->apart_prev_capacity = tc, r->apart_prev_count = r->apart_count;
    /* where each body's entries end, for keep_apart's search */
    uint32_t bodies = w->bodies.slot_count;
    if (!cr_grow(w, (void **)&r->apart_end, &r->apart_end_capacity, bodies, sizeof *r->apart_end)) return false;
    for (uint32_t i = 0, k = 0; i < bodies; ++i) {
        while (k < r->apart_prev_count && r->apart_prev[k].a == i) ++k;
        r->apart_end[i] = k;
    }
    r->apart_buckets = bodies;
    return true;
}

/* The manifolds are read back job by job once the narrow phase has written
 * them all (several MB in a large pile: out of the core's cache by then),
 * at a stride of a whole manifold that the hardware does not follow: the
 * append fetches the manifold CR_APPEND_AHEAD jobs on, its count and first
 * four points (a box's face contact; more are fetched as used). */
#define CR_APPEND_AHEAD 4u

static void prefetch_manifold(const cr_manifold *m)
{
    const char *p = (const char *)m;
    size_t end = offsetof(cr_manifold, p) + 4 * sizeof m->p[0];
    for (size_t at = 0; at < end; at += 64) CR_PREFETCH(p + at, 0);
}

/* Jointed pairs (cr_joint_def.collide false: the default): two bodies held
 * by a joint make no contacts with each other, as in Box2D (collideConnected),
 * Bullet (disableCollisionsBetweenLinkedBodies) and MuJoCo (parent and
 * child). Links of a chain overlap near their hinge, and the drift
 * correction, given that overlap as a row, opens it by turning the hinge,
 * which lifts the chain by its length over the contact's arm times the
 * move (docs/physics/rigid.md, "Jointed pairs"). The pairs are kept as
 * sorted keys, a step's worth (a few per joint): a broad-phase pair is
 * looked up only when both its bodies are held by some joint (r->jointed),
 * so a world of loose bodies pays one test a pair. */
static uint64_t joined_key(uint32_t a, uint32_t b)
{
    return a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a;
}

static int u64_cmp(const void *pa, const void *pb)
{
    uint64_t x = *(const uint64_t *)pa, y = *(const uint64_t *)pb;
    return x < y ? -1 : x > y;
}

/* r->joined: the pairs of the live joints between two bodies with collide
 * false, sorted (duplicates, two joints on one pair, are harmless). */
static bool note_joined(cr_world *w)
{
    cr_rigid *r = w->rigid;
    r->joined_count = 0;
    if (!cr_grow(w, (void **)&r->joined, &r->joined_capacity, r->joint_count, sizeof *r->joined)) return false;
    for (uint32_t k = 0; k < r->joint_count; ++k) {
        const cr_joint *j = &r->joints[k];
        if ((j->generation & 1u) && j->b != CR_NO_BODY && !j->collide) r->joined[r->joined_count++] = joined_key(j->a, j->b);
    }
    if (r->joined_count > 1) qsort(r->joined, r->joined_count, sizeof *r->joined, u64_cmp);
    return true;
}

static bool joined(const cr_rigid *r, uint32_t a, uint32_t b)
{
    uint64_t key = joined_key(a, b);
    uint32_t at = cr_keys_first_at(r->joined, r->joined_count, key);
    return at < r->joined_count && r->joined[at] == key;
}

void cr_rigid_take_prev(cr_rigid *r)
{
    if (!r->kept) return;
    cr_rigid_contact *t = r->prev;
    uint32_t tc = r->prev_capacity;
    uint32_t lean = r->prev_lean;
    r->prev = r->contacts, r->prev_capacity = r->contact_capacity, r->prev_count = r->kept_count;
    r->prev_lean = r->contacts_lean;
    r->contacts = t, r->contact_capacity = tc, r->contacts_lean = lean;
    r->kept = false;
    r->prev_sorted = false;
}

cr_status cr_rigid_find_contacts(cr_world *w)
{
    cr_rigid *r = w->rigid;
    const cr_bodies *bs = &w->bodies;
    cr_rigid_take_prev(r);
    if (!cr_rigid_sort_prev_keys(w)) goto oom;
    r->contact_count = 0;
    r->contacts_lean = 0; /* this narrow phase writes the frames */
    cr_rigid_wake_touched(w);
    /* the jobs: pairs where something moves, then moving bodies against the
     * planes (the order contacts are appended in) */
    uint32_t jobs = 0, manifolds = 0, planes = w->planes.count;
    uint32_t most = w->broad.pair_count + bs->slot_count;
    r->joined_count = 0;
    if (r->joint_live) {
        if (!cr_grow(w, (void **)&r->jointed, &r->jointed_capacity, bs->slot_count, sizeof *r->jointed)) goto oom;
        memset(r->jointed, 0, bs->slot_count * sizeof *r->jointed);
        for (uint32_t k = 0; k < r->joint_count; ++k) {
            const cr_joint *j = &r->joints[k];
            if (!(j->generation & 1u)) continue;
            r->jointed[j->a] = 1;
            if (j->b != CR_NO_BODY) r->jointed[j->b] = 1;
        }
        if (!note_joined(w)) goto oom;
    }
    if (!cr_grow(w, (void **)&r->jobs, &r->job_capacity, most, sizeof *r->jobs)) goto oom;
    for (uint32_t p = 0; p < w->broad.pair_count; ++p) {
        uint32_t a = w->broad.pairs[p].a, b = w->broad.pairs[p].b;
        if (!cr_rigid_moves(bs, a) && !cr_rigid_moves(bs, b)) continue; /* static, kinematic or asleep */
        if (r->joined_count && r->jointed[a] && r->jointed[b] && joined(r, a, b)) continue; /* a joint filters it */
        r->jobs[jobs++] = (cr_narrow_job){a, b, manifolds++, CR_NO_BODY, CR_NO_BODY, -HUGE_VAL};
    }
    for (uint32_t a = 0; a < bs->slot_count && planes; ++a) {
        if (!cr_slot_alive(bs, a) || !cr_rigid_moves(bs, a)) continue;
        r->jobs[jobs++] = (cr_narrow_job){a, CR_NO_BODY, manifolds, CR_NO_BODY, CR_NO_BODY, -HUGE_VAL};
        manifolds += planes;
    }
    if (!cr_grow(w, (void **)&r->manifolds, &r->manifold_capacity, manifolds, sizeof *r->manifolds)) goto oom;
    narrow_ctx ctx = {w, r->jobs, r->manifolds, jobs};
    cr_run_items(w, narrow_items, (jobs + CR_NARROW_CHUNK - 1) / CR_NARROW_CHUNK, &ctx);
    uint32_t carried = 0;
    for (uint32_t j = 0; j < jobs; ++j) {
        if (j + CR_APPEND_AHEAD < jobs) prefetch_manifold(&r->manifolds[r->jobs[j + CR_APPEND_AHEAD].first]);
        const cr_narrow_job *job = &r->jobs[j];
        const cr_manifold *m = &r->manifolds[job->first];
        if (job->b != CR_NO_BODY) {
            if (job->carry != CR_NO_BODY) carried += m->count;
            if (m->count && !add_points(w, job->a, job->b, false, m, job->carry)) goto oom;
            continue;
        }
        for (uint32_t k = 0; k < planes; ++k)
            if (m[k].count && !add_points(w, job->a, k, true, &m[k], CR_NO_BODY)) goto oom;
    }
    if (!note_apart(w, jobs)) goto oom;
    w->stats.contacts = r->contact_count;
    w->stats.carried_contacts = carried;
    return CR_OK;
oom:
    return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "rigid contacts: out of memory");
}

/* Keeps this step's contacts for the next step's warm start: they stay
 * where they are, in r->contacts (which the API reads until the next
 * step), until the next narrow phase swaps them into r->prev and sorts
 * their keys (cr_rigid_sort_prev_keys), if it looks them up that way: the
 * sphere path mostly does not (sphere_contacts.c). */
void cr_rigid_keep_contacts(cr_world *w)
{
    cr_rigid *r = w->rigid;
    r->kept = true;
    r->kept_count = r->contact_count;
}

/* Only the keys are sorted (16 bytes each, not the contacts' 300). The
 * same keys, ranks and order as when they were sorted at the end of the
 * step that made the contacts: a body added since has none either way
 * (its bucket is empty, or past key_buckets), and a removal forgets them
 * all (prev_count 0). */
bool cr_rigid_sort_prev_keys(cr_world *w)
{
    cr_rigid *r = w->rigid;
    if (r->prev_sorted) return true;
    uint32_t n = r->prev_count;
    uint32_t bodies = w->bodies.slot_count;
    if (!cr_grow(w, (void **)&r->keys, &r->key_capacity, n, sizeof *r->keys) ||
        !cr_grow(w, (void **)&r->key_tmp, &r->key_tmp_capacity, n, sizeof *r->key_tmp) ||
        !cr_grow(w, (void **)&r->key_count, &r->key_count_capacity, bodies + 1, sizeof *r->key_count))
        return false;
    for (uint32_t k = 0; k < n; ++k) {
        const cr_rigid_contact *c = &r->prev[k];
        r->keys[k].pair = pair_key(c->a, c->is_plane, c->b);
        r->keys[k].rank = (uint64_t)c->feature << 32 | k;
    }
    cr_contact_keys_sort(r->keys, r->key_tmp, r->key_count, n, bodies);
    r->key_buckets = n ? bodies : 0; /* the sort leaves the counters alone when there are no keys */
    r->prev_sorted = true;
    return true;
}
