/* Checkpoints of rigid-body worlds (version 4: boxes, convex hulls and
 * joints; version 5: the joints' collide flags; version 6: the contacts'
 * rolling resistance impulses; src/checkpoint_rigid.c, src/checkpoint_shape.c): a heap of
 * boxes and hulls thrown into an open box, on seed 003's multiplier solve
 * (with sleeping) and on the sub-stepped solver, and a chain of boxes on
 * hinges with a ball joint and a removed joint, saved at step k, restored
 * into a fresh world and run to step N hash the same, bit for bit, as the
 * run that never stopped, saved on 1 or 2 workers and restored on 2 or 1.
 * A loaded world holds every saved field as it was (shapes, inertia
 * tensors, joints, pairs apart, contacts with their carried frames);
 * out-of-range shapes, joints and pairs apart are refused, naming the
 * field. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint_bytes.h"
#include "checkpoint_calls.h"
#include "rigid.h"
#include "rigid_helpers.h"
#include "shape_internal.h"

enum { PIECES = 40 };

typedef enum kind { MULTIPLIERS, SUBSTEPS } kind;

/* 40 pieces in layers of 4 x 4 on a 0.14 m grid, turned at random, into an
 * open box 0.6 m square: boxes of 0.1 m and, every third, a hull of 12
 * random points (a shared box shape for half the boxes, the rest their
 * own), onto a static mesh (a tetrahedron), then four balls; on the
 * multiplier solve with sleeping after 0.3 s, or on 4 substeps. */
static cr_world *heap(kind k, uint32_t workers)
{
    cr_world_def d = cr_default_world_def();
    d.gravity = cr_v3(0, 0, -9.81);
    d.dt = 1.0 / 120.0;
    if (k == SUBSTEPS) d.rigid_substeps = 4;
    else
        d.sleep_time = 0.3;
    d.worker_count = workers;
    cr_world *w = make_world_def(&d);
    add_plane(w, cr_v3_zero(), cr_v3(0, 0, 1));
    add_side_walls(w, 0.3);
    uint64_t s = 3;
    char msg[256];
    cr_shape *shared;
    assert_int_equal(cr_shape_create_box(cr_v3(0.05, 0.05, 0.05), &shared, msg, sizeof msg), CR_OK);
    for (int n = 0; n < PIECES; ++n) {
        int layer = n / 16, i = (n % 16) / 4, j = n % 4;
        cr_vec3 x = cr_v3(-0.21 + 0.14 * i + test_rand(&s, -0.01, 0.01), -0.21 + 0.14 * j + test_rand(&s, -0.01, 0.01),
                          0.08 + 0.14 * layer);
        cr_quat q = axis_angle(test_rand_vec(&s, -1, 1), test_rand(&s, 0, 2 * PI));
        cr_body_def b = cr_default_body_def();
        b.position = x, b.orientation = q, b.mass = 0.4, b.restitution = 0.1, b.friction = 0.5;
        b.velocity = test_rand_vec(&s, -0.5, 0.5);
        if (n % 3 == 2) {
            cr_vec3 p[12];
            for (int m = 0; m < 12; ++m) p[m] = test_rand_vec(&s, -0.06, 0.06);
            assert_int_equal(cr_shape_create_hull(p, 12, &b.shape_ref, msg, sizeof msg), CR_OK);
            b.shape = CR_SHAPE_HULL;
        } else if (n % 2) {
            b.shape_ref = shared, b.shape = CR_SHAPE_BOX;
            cr_shape_retain(shared);
        } else {
            assert_int_equal(cr_shape_create_box(cr_v3(0.05, 0.04, 0.06), &b.shape_ref, msg, sizeof msg), CR_OK);
            b.shape = CR_SHAPE_BOX;
        }
        assert_int_equal(cr_world_add_body(w, &b, NULL), CR_OK);
        cr_shape_release(b.shape_ref);
    }
    cr_shape_release(shared);
    /* a static mesh, a tetrahedron on the floor in the middle */
    const cr_vec3 v[4] = {{0, 0, 0}, {0.2, 0, 0}, {0, 0.2, 0}, {0, 0, 0.2}};
    const uint32_t t[12] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};
    cr_body_def m = cr_default_body_def();
    assert_int_equal(cr_shape_create_mesh(v, 4, t, 4, &m.shape_ref, msg, sizeof msg), CR_OK);
    m.type = CR_BODY_STATIC, m.shape = CR_SHAPE_MESH, m.mass = 1.0;
    m.position = cr_v3(-0.05, -0.05, 0.05);
    assert_int_equal(cr_world_add_body(w, &m, NULL), CR_OK);
    cr_shape_release(m.shape_ref);
    /* and four balls on top, over the mesh (spheres in a rigid world turn
     * by their tensors) */
    for (int k = 0; k < 4; ++k)
        add_sphere(w, cr_v3(-0.05 + 0.03 * k, -0.05, 0.9 + 0.12 * k), test_rand_vec(&s, -0.2, 0.2), 0.05, 0.3,
                   CR_INERTIA_SOLID, 0.3, 0.5);
    return w;
}

/* Eight boxes on hinges, the first hinged to the world, swinging down onto
 * a static box, a ball on a ball joint at the end; a distance joint added
 * and removed (a stale joint slot in the list). */
static cr_world *chain(uint32_t workers)
{
    cr_world_def d = cr_default_world_def();
    d.gravity = cr_v3(0, 0, -9.81);
    d.dt = 1.0 / 240.0;
    d.worker_count = workers;
    cr_world *w = make_world_def(&d);
    add_plane(w, cr_v3_zero(), cr_v3(0, 0, 1));
    char msg[256];
    cr_body_def st = cr_default_body_def();
    st.type = CR_BODY_STATIC, st.shape = CR_SHAPE_BOX, st.mass = 1.0, st.friction = 0.5;
    st.position = cr_v3(0.9, 0, 0.3);
    assert_int_equal(cr_shape_create_box(cr_v3(0.3, 0.3, 0.3), &st.shape_ref, msg, sizeof msg), CR_OK);
    cr_body_id base;
    assert_int_equal(cr_world_add_body(w, &st, &base), CR_OK);
    cr_shape_release(st.shape_ref);
    cr_body_id prev = {0, 0};
    cr_joint_def j = cr_default_joint_def();
    for (int k = 0; k < 8; ++k) {
        cr_body_id link = add_box(w, cr_v3(0.075, 0.02, 0.02), cr_v3(0.075 + 0.15 * k, 0, 1.0), cr_q_identity(), 0.1,
                                  0.2, 0.5);
        j.type = CR_JOINT_HINGE;
        j.a = link, j.b = prev;
        j.anchor = cr_v3(0.15 * k, 0, 1.0);
        j.axis = cr_v3(0, 1, 0);
        assert_int_equal(cr_world_add_joint(w, &j, NULL), CR_OK);
        prev = link;
    }
    cr_body_id ball = add_sphere(w, cr_v3(1.25, 0, 1.0), cr_v3_zero(), 0.05, 0.2, CR_INERTIA_SOLID, 0.2, 0.5);
    j.type = CR_JOINT_BALL;
    j.a = ball, j.b = prev;
    j.anchor = cr_v3(1.2, 0, 1.0);
    j.collide = true; /* the ball and the last link touch; the hinges' pairs are filtered */
    assert_int_equal(cr_world_add_joint(w, &j, NULL), CR_OK);
    j.collide = false;
    cr_joint_id gone;
    j.type = CR_JOINT_DISTANCE;
    j.a = ball, j.b = base;
    j.anchor = cr_v3(1.25, 0, 1.0), j.anchor_b = cr_v3(0.9, 0, 0.6), j.length = -1.0;
    assert_int_equal(cr_world_add_joint(w, &j, &gone), CR_OK);
    assert_int_equal(cr_world_remove_joint(w, gone), CR_OK);
    return w;
}

static void same_shape(const cr_shape *s, const cr_shape *t)
{
    assert_int_equal(s->type, t->type);
    assert_true(SAME(s->radius, t->radius) && SAME(s->half_extents, t->half_extents) && SAME(s->offset, t->offset) &&
                SAME(s->mass.volume, t->mass.volume) && SAME(s->mass.centroid, t->mass.centroid) &&
                SAME(s->mass.inertia_unit, t->mass.inertia_unit));
    const cr_hull *h = &s->hull, *g = &t->hull;
    assert_true(h->vertex_count == g->vertex_count && h->face_count == g->face_count && h->edge_count == g->edge_count);
    uint32_t fv = 0;
    for (uint32_t f = 0; f < h->face_count; ++f) {
        const cr_hull_face *a = &h->faces[f], *b = &g->faces[f];
        assert_true(a->first == b->first && a->count == b->count && SAME(a->normal, b->normal) &&
                    SAME(a->offset, b->offset));
        fv = a->first + a->count > fv ? a->first + a->count : fv;
    }
    assert_true(SAME_N(h->vertices, g->vertices, h->vertex_count) && SAME_N(h->face_vertices, g->face_vertices, fv) &&
                SAME_N(h->edges, g->edges, 2 * h->edge_count) && SAME_N(h->edge_faces, g->edge_faces, 2 * h->edge_count));
    const cr_mesh *m = &s->mesh, *n = &t->mesh;
    assert_true(m->vertex_count == n->vertex_count && m->triangle_count == n->triangle_count &&
                m->node_count == n->node_count);
    assert_true(SAME_N(m->vertices, n->vertices, m->vertex_count) &&
                SAME_N(m->triangles, n->triangles, 3 * m->triangle_count) &&
                SAME_N(m->normals, n->normals, m->triangle_count) && SAME_N(m->order, n->order, m->triangle_count));
    for (uint32_t k = 0; k < m->node_count; ++k)
        assert_true(SAME(m->nodes[k].lo, n->nodes[k].lo) && SAME(m->nodes[k].hi, n->nodes[k].hi) &&
                    m->nodes[k].first == n->nodes[k].first && m->nodes[k].count == n->nodes[k].count);
}

/* Every field the rigid part saves, in the loaded world r as in w: the
 * shapes (shared where they were), the tensors, the joints, the pairs
 * apart and the contacts (tests/test_checkpoint_substep.c checks the
 * rest of the part). */
static void same_state(const cr_world *w, const cr_world *r)
{
    const cr_bodies *wb = &w->bodies, *rb = &r->bodies;
    assert_int_equal(w->polyhedra, r->polyhedra);
    for (uint32_t i = 0; i < wb->slot_count; ++i) {
        if (!cr_slot_alive(wb, i)) continue;
        if (!SAME(wb->inertia_local[i], rb->inertia_local[i]) || !SAME(wb->inv_inertia_local[i], rb->inv_inertia_local[i]))
            fail_msg("body %u's tensors differ", (unsigned)i);
        if (!SAME(wb->still[i], rb->still[i]) || wb->asleep[i] != rb->asleep[i] || wb->island[i] != rb->island[i])
            fail_msg("body %u's sleeping state differs", (unsigned)i);
        assert_true((wb->shape[i] == NULL) == (rb->shape[i] == NULL));
        if (!wb->shape[i]) continue;
        same_shape(wb->shape[i], rb->shape[i]);
        for (uint32_t k = 0; k < i; ++k) /* shared as before */
            if (cr_slot_alive(wb, k)) assert_true((wb->shape[k] == wb->shape[i]) == (rb->shape[k] == rb->shape[i]));
    }
    const cr_rigid *x = w->rigid, *y = r->rigid;
    assert_true(x && y);
    assert_true(x->joint_count == y->joint_count && x->joint_live == y->joint_live);
    for (uint32_t k = 0; k < x->joint_count; ++k) {
        const cr_joint *p = &x->joints[k], *q = &y->joints[k];
        if (!(p->type == q->type && p->generation == q->generation && p->a == q->a && p->b == q->b &&
              SAME(p->la, q->la) && SAME(p->lb, q->lb) && SAME(p->axis_a, q->axis_a) && SAME(p->axis_b, q->axis_b) &&
              SAME(p->perp_a, q->perp_a) && SAME(p->q_rel, q->q_rel) && SAME(p->length, q->length) &&
              SAME(p->lambda, q->lambda) && p->collide == q->collide))
            fail_msg("joint %u differs", (unsigned)k);
    }
    assert_int_equal(x->apart_prev_count, y->apart_prev_count);
    for (uint32_t k = 0; k < x->apart_prev_count; ++k) {
        const cr_rigid_apart *p = &x->apart_prev[k], *q = &y->apart_prev[k];
        if (!(p->a == q->a && p->b == q->b && SAME(p->gap, q->gap) && SAME(p->ref_x, q->ref_x) && SAME(p->ref_q, q->ref_q)))
            fail_msg("pair apart %u differs", (unsigned)k);
    }
    assert_true(x->contact_count == y->contact_count && x->kept_count == y->kept_count);
    for (uint32_t k = 0; k < x->contact_count; ++k) {
        const cr_rigid_contact *p = &x->contacts[k], *q = &y->contacts[k];
        if (!(p->a == q->a && p->b == q->b && p->is_plane == q->is_plane && p->feature == q->feature &&
              SAME(p->rest_n, q->rest_n) && SAME(p->rest_t, q->rest_t) && SAME(p->la, q->la) && SAME(p->lb, q->lb) &&
              SAME(p->nb, q->nb) && SAME(p->ref_x, q->ref_x) && SAME(p->ref_q, q->ref_q)))
            fail_msg("contact %u differs", (unsigned)k);
    }
}

/* Saved on the way (before the first step and after steps 30 and 90),
 * each load checked against the world, and resumed on 1 and 2 workers to
 * step steps: the uninterrupted run's hash. */
static void check_resume(cr_world *(*make)(kind, uint32_t), kind k, long steps, bool want_apart)
{
    for (uint32_t workers = 1; workers <= 2; ++workers) {
        cr_world *ref = make(k, workers);
        step_n(ref, steps);
        const uint64_t want = cr_world_state_hash(ref);
        cr_world_destroy(ref);
        cr_world *w = make(k, workers);
        const long at[3] = {0, 30, 90};
        unsigned char *data[3];
        size_t size[3];
        bool apart = false, carried = false;
        for (int m = 0; m < 3; ++m) {
            step_n(w, at[m] - (long)cr_world_step_count(w));
            apart |= w->rigid && w->rigid->apart_prev_count > 0;
            carried |= cr_world_stats(w)->carried_contacts > 0;
            data[m] = ckpt_save(w, &size[m]);
            cr_world *r = ckpt_load(data[m], size[m], 1);
            if (m) same_state(w, r);
            cr_world_destroy(r);
        }
        if (want_apart) assert_true(apart);
        assert_true(carried || k == SUBSTEPS || !want_apart); /* hulls' manifolds carried on the multiplier solve */
        step_n(w, steps - 90);
        assert_true(cr_world_state_hash(w) == want);
        cr_world_destroy(w);
        for (int m = 0; m < 3; ++m) {
            for (uint32_t on = 1; on <= 2; ++on) {
                if (ckpt_hash_at(ckpt_load(data[m], size[m], on), steps) != want)
                    fail_msg("saved at step %ld on %u workers, resumed on %u: another run", at[m], workers, on);
            }
            free(data[m]);
        }
    }
}

static void test_resume_heap(void **state)
{
    (void)state;
    check_resume(heap, MULTIPLIERS, 110, true);
}

static void test_resume_heap_substeps(void **state)
{
    (void)state;
    check_resume(heap, SUBSTEPS, 110, true);
}

static cr_world *chain_of(kind k, uint32_t workers)
{
    (void)k;
    return chain(workers);
}

static void test_resume_chain(void **state)
{
    (void)state;
    check_resume(chain_of, MULTIPLIERS, 150, false);
}

/* The first bytes of value v (8 bytes) at or after from: its offset. */
static size_t find_u64(const unsigned char *data, size_t size, size_t from, uint64_t v)
{
    for (size_t k = from; k + 8 <= size; ++k)
        if (ckpt_get_u64(data + k) == v) return k;
    fail_msg("value %llu not found", (unsigned long long)v);
    return 0;
}

/* Out-of-range shapes, joints and pairs apart, the checksum made right:
 * each refused with a message naming the field; truncations and flipped
 * bytes refused. The rigid part starts after the application-independent
 * parts: found here by its contents (the first hull's type 2 after the
 * shape count, the chain's joints by their types). */
static void test_bad_checkpoints(void **state)
{
    (void)state;
    cr_world *w = heap(MULTIPLIERS, 1);
    step_n(w, 20);
    size_t size;
    unsigned char *data = ckpt_save(w, &size);
    ckpt_refuse_damage(data, size);
    /* the shapes: their count (the heap's 13 hulls, 13 boxes of their own,
     * the shared one and the mesh: 28), then in the order of their first
     * bodies a box of its own (type 1, half extents), the shared box, a
     * hull (type 2, radius, offset, volume, centroid, inertia, counts, ...),
     * ..., the mesh last */
    const size_t shapes_at = find_u64(data, size, 24 + 39 * 8, 28);
    const size_t box_at = shapes_at + 8, hull_at = box_at + 64;
    assert_int_equal(ckpt_get_u64(data + box_at), CR_SHAPE_BOX);
    assert_int_equal(ckpt_get_u64(data + hull_at), CR_SHAPE_HULL);
    const size_t counts_at = hull_at + 8 + 8 * (1 + 3 + 1 + 3 + 9), vertices_at = counts_at + 32;
    const uint32_t vc = (uint32_t)ckpt_get_u64(data + counts_at), fc = (uint32_t)ckpt_get_u64(data + counts_at + 8);
    const size_t faces_at = vertices_at + 24 * (size_t)vc, fv_at = faces_at + 48 * (size_t)fc;
    ckpt_edit bad[] = {
        {box_at, 4, false, 0, "shape 0: type 4 is not a sphere, box, hull or mesh"},
        {box_at + 8, 0, true, -0.05, "shape 0: box half_extents[0] must be > 0"},
        {hull_at + 8, 0, true, 0.0, "shape 2: hull radius 0"},
        {counts_at, 3, false, 0, "shape 2: a hull of 3 vertices"},
        {faces_at + 8, 2, false, 0, "shape 2: face 0's vertices"},
        {fv_at, vc, false, 0, "shape 2: face vertex 0 is vertex"},
        {vertices_at, 0, true, 10.0, "shape 2: vertex 0 at 10"},                     /* outside its radius */
        {faces_at + 16, 0, true, 2.0, "shape 2: face 0's normal (length"},            /* not unit */
        {faces_at + 40, 0, true, 1e3, "shape 2: face 0's normal (length 1) or offset 1000"}, /* past the radius */
        {shapes_at, 1u << 30, false, 0, "malformed rigid state"},
        {24 + 4 * 8, CR_METHOD_EVENT, false, 0, "needs the impulse method"}, /* the world's method: boxes refused */
    };
    ckpt_refuse_edits(data, size, bad, sizeof bad / sizeof bad[0]);
    cr_world_destroy(ckpt_load(data, size, 1));
    free(data);
    cr_world_destroy(w);

    /* the chain's joints: 10 (the removed one last), each type, generation,
     * a, b, ...; the first a hinge (type 1) of generation 1 */
    w = chain(1);
    step_n(w, 10);
    data = ckpt_save(w, &size);
    size_t joints_at = 0;
    for (size_t k = 24; k + 24 < size && !joints_at; k += 8)
        if (ckpt_get_u64(data + k) == 10 && ckpt_get_u64(data + k + 8) == CR_JOINT_HINGE && ckpt_get_u64(data + k + 16) == 1)
            joints_at = k;
    assert_true(joints_at > 0);
    const size_t j0 = joints_at + 8;
    ckpt_edit badj[] = {
        {j0, 4, false, 0, "joint 0: type 4 is not a joint type"},
        {j0 + 8, 0, false, 0, "joint 0: generation 0"},
        {j0 + 16, 100, false, 0, "joint 0: body a 100 is not a live body"},
        {j0 + 24, ckpt_get_u64(data + j0 + 16), false, 0, "joint 0: body b"},
        {j0 + 33 * 8, 2, false, 0, "joint 0: collide flag 2, not 0 or 1"},
        {joints_at, 1u << 30, false, 0, "malformed rigid state"},
    };
    ckpt_refuse_edits(data, size, badj, sizeof badj / sizeof badj[0]);
    cr_world_destroy(ckpt_load(data, size, 1));
    free(data);
    cr_world_destroy(w);
}

/* Version 5 added each joint's collide flag (its last 8 bytes). A version
 * 4 file, made here from a version 8 one by taking the flags out, each
 * contact's rolling resistance impulse (its last 24 bytes, version 6's)
 * and the DEM model and rolling settings (versions 7 and 8's),
 * loads with collide true on every joint, which is what its jointed bodies
 * did (they made contacts with each other), and saves back as version 8
 * with the flags set; the version 8 file keeps each joint's own (the
 * hinges false, the ball true). */
static void test_version_4_joints_collide(void **state)
{
    (void)state;
    cr_world *w = chain(1);
    step_n(w, 10);
    size_t size;
    unsigned char *data = ckpt_save(w, &size);
    assert_int_equal(ckpt_get_u64(data + 8), 8);
    size_t joints_at = 0;
    for (size_t k = 24; k + 24 < size && !joints_at; k += 8)
        if (ckpt_get_u64(data + k) == 10 && ckpt_get_u64(data + k + 8) == CR_JOINT_HINGE && ckpt_get_u64(data + k + 16) == 1)
            joints_at = k;
    assert_true(joints_at > 0);
    const size_t joint_bytes = 34 * 8, count = 10;
    unsigned char *v4 = malloc(size);
    assert_non_null(v4);
    size_t at = joints_at + 8;
    memcpy(v4, data, at);
    for (size_t k = 0; k < count; ++k) {
        const unsigned char *jk = data + joints_at + 8 + k * joint_bytes;
        assert_int_equal(ckpt_get_u64(jk + 33 * 8), k == 8 ? 1u : 0u); /* the ball joint's flag alone is set */
        memcpy(v4 + at, jk, joint_bytes - 8);
        at += joint_bytes - 8;
    }
    /* the contacts follow the joints: their count, the warm count, 38 words each */
    const size_t contacts_at = joints_at + 8 + count * joint_bytes, contact_bytes = 38 * 8;
    const size_t contacts = ckpt_get_u64(data + contacts_at);
    memcpy(v4 + at, data + contacts_at, 16);
    at += 16;
    for (size_t k = 0; k < contacts; ++k) {
        memcpy(v4 + at, data + contacts_at + 16 + k * contact_bytes, contact_bytes - 24);
        at += contact_bytes - 24;
    }
    const size_t rest = contacts_at + 16 + contacts * contact_bytes;
    memcpy(v4 + at, data + rest, size - rest);
    size_t cut = 8 * count + 24 * contacts;
    assert_int_equal(at + size - rest, size - cut);
    /* and version 7's DEM model, the word after the world settings of
     * versions 1 to 4 (24 header bytes, 39 words), Hooke's 0 */
    const size_t model_at = 24 + 39 * 8;
    assert_int_equal(ckpt_get_u64(v4 + model_at), CR_DEM_HOOKE);
    memmove(v4 + model_at, v4 + model_at + 32, size - cut - model_at - 32);
    cut += 32;
    const size_t size4 = size - cut;
    ckpt_put_u64(v4 + 8, 4);
    ckpt_put_u64(v4 + 16, ckpt_get_u64(data + 16) - cut);
    ckpt_fix_checksum(v4, size4);
    cr_world *r6 = ckpt_load(data, size, 1), *r4 = ckpt_load(v4, size4, 1);
    for (uint32_t k = 0; k < count; ++k) {
        assert_int_equal(r6->rigid->joints[k].collide, k == 8);
        assert_true(r4->rigid->joints[k].collide);
    }
    /* saved again: version 8, the same bytes but for the flags */
    size_t again_size;
    unsigned char *again = ckpt_save(r4, &again_size);
    assert_int_equal(again_size, size);
    assert_int_equal(ckpt_get_u64(again + 8), 8);
    for (size_t k = 0; k < count; ++k) assert_int_equal(ckpt_get_u64(again + joints_at + 8 + k * joint_bytes + 33 * 8), 1u);
    free(again);
    cr_world_destroy(r4);
    cr_world_destroy(r6);
    free(v4);
    free(data);
    cr_world_destroy(w);
}

/* A mesh's tree and triangles out of range: refused, naming the field.
 * The world: a static cube of 12 triangles (a tree of a root and two
 * leaves) and a ball (no shape) falling on it; its one shape follows the
 * count 1 and the mesh's type 3. */
static void test_bad_mesh(void **state)
{
    (void)state;
    cr_world_def d = cr_default_world_def();
    d.gravity = cr_v3(0, 0, -9.81);
    d.dt = 1.0 / 120.0;
    cr_world *w = make_world_def(&d);
    cr_vec3 v[8]; /* vertex x + 2 y + 4 z at (x, y, z) 0.2 */
    for (int k = 0; k < 8; ++k) v[k] = cr_v3(0.2 * (k & 1), 0.2 * ((k >> 1) & 1), 0.2 * (k >> 2));
    const uint32_t t[36] = {0, 2, 3, 0, 3, 1, 4, 5, 7, 4, 7, 6, 0, 1, 5, 0, 5, 4,
                            2, 6, 7, 2, 7, 3, 0, 4, 6, 0, 6, 2, 1, 3, 7, 1, 7, 5};
    char msg[256];
    cr_body_def m = cr_default_body_def();
    if (cr_shape_create_mesh(v, 8, t, 12, &m.shape_ref, msg, sizeof msg) != CR_OK) fail_msg("%s", msg);
    m.type = CR_BODY_STATIC, m.shape = CR_SHAPE_MESH, m.mass = 1.0;
    assert_int_equal(cr_world_add_body(w, &m, NULL), CR_OK);
    const cr_mesh mesh = m.shape_ref->mesh;
    const uint32_t hv = m.shape_ref->hull.vertex_count, hf = m.shape_ref->hull.face_count,
                   he = m.shape_ref->hull.edge_count;
    add_sphere(w, cr_v3(0.02, 0.02, 0.25), cr_v3_zero(), 0.05, 0.2, CR_INERTIA_SOLID, 0.2, 0.5);
    step_n(w, 30);
    size_t size;
    unsigned char *data = ckpt_save(w, &size);
    size_t at = 0;
    for (size_t k = 24; k + 16 < size && !at; k += 8)
        if (ckpt_get_u64(data + k) == 1 && ckpt_get_u64(data + k + 8) == CR_SHAPE_MESH) at = k + 16;
    assert_true(at > 0);
    /* the hull part: 17 numbers, 4 counts, vertices, faces, face vertices, edges, edges' faces */
    const size_t fv = ckpt_get_u64(data + at + 17 * 8 + 16);
    const size_t mesh_at = at + 8 * (17 + 4 + 3 * (size_t)hv + 6 * (size_t)hf + fv + 4 * (size_t)he);
    assert_int_equal(ckpt_get_u64(data + mesh_at), mesh.vertex_count);
    assert_int_equal(ckpt_get_u64(data + mesh_at + 8), mesh.triangle_count);
    assert_int_equal(ckpt_get_u64(data + mesh_at + 16), mesh.node_count);
    assert_true(mesh.node_count >= 3 && mesh.nodes[0].count == 0); /* a root with two children */
    const size_t tri_at = mesh_at + 24 + 24 * (size_t)mesh.vertex_count,
                 nodes_at = tri_at + 48 * (size_t)mesh.triangle_count,
                 order_at = nodes_at + 64 * (size_t)mesh.node_count;
    ckpt_edit bad[] = {
        {mesh_at, 3, false, 0, "shape 0: a mesh of 3 vertices"},
        {tri_at + 8, 8, false, 0, "shape 0: triangle 0's vertex 8 of 8"},
        {nodes_at + 48, 0, false, 0, "shape 0: tree node 0 (first 0, count 0) out of range"}, /* the root its own child */
        {nodes_at + 48, mesh.node_count - 1, false, 0, "tree node 0"},                        /* a child past the last */
        {order_at, mesh.triangle_count, false, 0, "shape 0: tree leaf entry 0 is triangle 12 of 12"},
    };
    ckpt_refuse_edits(data, size, bad, sizeof bad / sizeof bad[0]);
    cr_world *r = ckpt_load(data, size, 1);
    same_state(w, r);
    step_n(w, 30), step_n(r, 30);
    assert_true(cr_world_state_hash(w) == cr_world_state_hash(r));
    cr_world_destroy(r);
    cr_shape_release(m.shape_ref);
    free(data);
    cr_world_destroy(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resume_heap),
        cmocka_unit_test(test_resume_heap_substeps),
        cmocka_unit_test(test_resume_chain),
        cmocka_unit_test(test_bad_checkpoints),
        cmocka_unit_test(test_version_4_joints_collide),
        cmocka_unit_test(test_bad_mesh),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
