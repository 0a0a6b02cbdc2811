/* Checkpoints of sub-stepped worlds of spheres (version 4: rigid_substeps
 * > 0, src/rigid_state.c): a small ball pit saved at step k, restored
 * into a fresh world and run to step N hashes the same, bit for bit, as
 * the run that never stopped; saved on 1 or 2 workers and restored on 2 or
 * 1. Saved before the first step, after steps 1 and 100, right after the
 * first two rebuilds of the pair list, after a body was removed and one
 * added, and with islands asleep (woken by hand after the load: the
 * islands must be the saved ones). A loaded world holds every saved field
 * as it was (the contacts, the list, the sleeping state, the settings);
 * corrupt, truncated and out-of-range rigid parts are refused whole, with
 * a message naming the field. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint_bytes.h"
#include "checkpoint_calls.h"
#include "rigid.h"
#include "rigid_helpers.h"
#include "sphere_pairs.h"

enum { BALLS = 216, STEPS = 240 };

/* Balls of 4 cm in layers of 6 x 6 on a 9 cm grid, jittered and thrown
 * about a little, into an open box 0.6 m square, four substeps at 240 Hz;
 * sleep_time 0: never asleep. The settings that the sphere path does not
 * read, and the fallback counts it never adds to, are not the defaults:
 * a load that dropped one would show. */
static cr_world *pit(uint32_t workers, double sleep_time)
{
    cr_world_def d = cr_default_world_def();
    d.gravity = cr_v3(0, 0, -9.81);
    d.dt = 1.0 / 240.0;
    d.rigid_substeps = 4;
    d.substep_iterations = 2;
    d.contact_hertz = 90.0;
    d.sleep_time = sleep_time;
    d.sleep_speed = 0.02;
    d.collision_order = CR_ORDER_SIMULTANEOUS;
    d.pgs_iterations = 40;
    d.drift_iterations = 30;
    d.drift_tolerance = 2e-5;
    d.drift_max_speed = 0.5;
    d.worker_count = workers;
    cr_world *w = make_world_def(&d);
    w->stats.lcp_fallbacks = 3, w->stats.lcp_inexact = 5;
    add_plane(w, cr_v3_zero(), cr_v3(0, 0, 1));
    add_side_walls(w, 0.3);
    uint64_t s = 5;
    for (int k = 0; k < BALLS; ++k) {
        int layer = k / 36, i = (k % 36) / 6, j = k % 6;
        cr_vec3 x = cr_v3(-0.225 + 0.09 * i + test_rand(&s, -0.01, 0.01), -0.225 + 0.09 * j + test_rand(&s, -0.01, 0.01),
                          0.05 + 0.09 * layer);
        add_sphere(w, x, test_rand_vec(&s, -0.3, 0.3), 0.04, 0.2, CR_INERTIA_SOLID, 0.3, 0.5);
    }
    return w;
}

/* Every saved field of the loaded world r is the original w's, to the bit:
 * the settings, the fallback counts, the bodies' sleeping state, the last
 * step's contacts (all but what each step sets before reading: t1, t2,
 * restitution, friction), and the pair list (the list built again from
 * the saved boxes: the same pairs in the same order). */
static void same_state(const cr_world *w, const cr_world *r)
{
    const cr_world_def *a = cr_world_get_def(w), *b = cr_world_get_def(r);
    assert_true(SAME(a->collision_order, b->collision_order) && SAME(a->sleep_time, b->sleep_time) &&
                SAME(a->sleep_speed, b->sleep_speed) && SAME(a->pgs_iterations, b->pgs_iterations) &&
                SAME(a->drift_iterations, b->drift_iterations) && SAME(a->drift_tolerance, b->drift_tolerance) &&
                SAME(a->drift_max_speed, b->drift_max_speed) && SAME(a->rigid_substeps, b->rigid_substeps) &&
                SAME(a->substep_iterations, b->substep_iterations) && SAME(a->contact_hertz, b->contact_hertz) &&
                SAME(a->contact_damping_ratio, b->contact_damping_ratio));
    assert_true(w->stats.lcp_fallbacks == r->stats.lcp_fallbacks && w->stats.lcp_inexact == r->stats.lcp_inexact);
    const cr_bodies *wb = &w->bodies, *rb = &r->bodies;
    assert_int_equal(wb->slot_count, rb->slot_count);
    for (uint32_t i = 0; i < wb->slot_count; ++i) {
        if (!cr_slot_alive(wb, i)) continue;
        if (!SAME(wb->still[i], rb->still[i]) || wb->asleep[i] != rb->asleep[i] || wb->island[i] != rb->island[i])
            fail_msg("body %u's sleeping state differs", (unsigned)i);
    }
    const cr_rigid *x = w->rigid, *y = r->rigid;
    uint32_t contacts = x ? x->contact_count : 0;
    assert_int_equal(contacts, y ? y->contact_count : 0);
    assert_int_equal(x ? x->kept_count : 0, y ? y->kept_count : 0);
    for (uint32_t k = 0; k < contacts; ++k) {
        const cr_rigid_contact *p = &x->contacts[k], *q = &y->contacts[k];
        if (!(p->a == q->a && p->b == q->b && p->is_plane == q->is_plane && p->feature == q->feature &&
              SAME(p->rest_n, q->rest_n) && SAME(p->rest_t, q->rest_t) && SAME(p->point, q->point) &&
              SAME(p->normal, q->normal) && SAME(p->separation, q->separation) && SAME(p->jn, q->jn) &&
              SAME(p->jt, q->jt) && SAME(p->la, q->la) && SAME(p->lb, q->lb) && SAME(p->nb, q->nb) &&
              SAME(p->ref_x, q->ref_x) && SAME(p->ref_q, q->ref_q)))
            fail_msg("contact %u differs", (unsigned)k);
    }
    assert_true(cr_sphere_pair_builds(w) == cr_sphere_pair_builds(r));
    const cr_sphere_pairs *L = x ? x->sphere_pairs : NULL, *M = y ? y->sphere_pairs : NULL;
    uint32_t listed = L ? L->n : 0;
    assert_int_equal(listed, M ? M->n : 0);
    if (!listed) return;
    assert_true(SAME(L->grid.size_hint, M->grid.size_hint));
    assert_int_equal(L->grid.pair_count, M->grid.pair_count);
    assert_memory_equal(L->grid.pairs, M->grid.pairs, sizeof *L->grid.pairs * L->grid.pair_count);
    assert_memory_equal(L->grid.lo, M->grid.lo, sizeof *L->grid.lo * listed);
    assert_memory_equal(L->grid.hi, M->grid.hi, sizeof *L->grid.hi * listed);
}

/* The buffer restored on workers threads (its saved fields checked
 * against w, the world it was saved from, when given), run to step
 * STEPS: its hash. */
static uint64_t resumed_hash(const unsigned char *data, size_t size, uint32_t workers, const cr_world *w)
{
    cr_world *r = ckpt_load(data, size, workers);
    if (w) same_state(w, r);
    return ckpt_hash_at(r, STEPS);
}

typedef struct saved { unsigned char *data; size_t size; long step; } saved;

static void test_resume_pit(void **state)
{
    (void)state;
    for (uint32_t workers = 1; workers <= 2; ++workers) {
        cr_world *ref = pit(workers, 0.0);
        step_n(ref, STEPS);
        const uint64_t want = cr_world_state_hash(ref);
        cr_world_destroy(ref);

        /* one run, saved on the way: before the first step, after steps 1
         * and 100, and after the first two steps that built the list
         * again; each load checked against the world as it was saved */
        cr_world *w = pit(workers, 0.0);
        saved s[6];
        int n = 0, built = 0;
        s[n].data = ckpt_save(w, &s[n].size), s[n++].step = 0;
        cr_world_destroy(ckpt_load(s[0].data, s[0].size, 1));
        for (long k = 1; k < STEPS; ++k) {
            uint64_t b = cr_sphere_pair_builds(w);
            step_n(w, 1);
            /* one of the first two rebuilds after step 1 (counted once,
             * also when it falls on step 100) */
            bool counted = cr_sphere_pair_builds(w) > b && k > 1 && built < 2;
            if (k == 1 || k == 100 || counted) {
                built += counted;
                s[n].data = ckpt_save(w, &s[n].size), s[n].step = k;
                cr_world *r = ckpt_load(s[n].data, s[n].size, 1);
                same_state(w, r);
                cr_world_destroy(r);
                ++n;
            }
        }
        assert_int_equal(built, 2);
        step_n(w, 1);
        assert_true(cr_world_state_hash(w) == want); /* saving changed nothing */
        cr_world_destroy(w);
        for (int m = 0; m < n; ++m) {
            for (uint32_t on = 1; on <= 2; ++on)
                if (resumed_hash(s[m].data, s[m].size, on, NULL) != want)
                    fail_msg("saved at step %ld on %u workers, resumed on %u: another run", s[m].step, workers, on);
            free(s[m].data);
        }
    }
}

/* Saved after a body was removed (the last step's contacts no longer warm
 * start: their slots may be reused) and one added in its slot (the list
 * is built again): the resumed run is still the same. */
static void test_resume_after_changes(void **state)
{
    (void)state;
    cr_world *w = pit(2, 0.0);
    step_n(w, 60);
    assert_int_equal(cr_world_remove_body(w, cr_world_body_at(w, 100)), CR_OK);
    /* the reference poses of hulls' carried manifolds, which the sphere
     * path never reads, given values the load must keep */
    for (uint32_t k = 0; k < w->rigid->contact_count; ++k) {
        w->rigid->contacts[k].ref_x = cr_v3(k, 1.0, 2.0);
        w->rigid->contacts[k].ref_q = (cr_quat){0.5, 0.5, -0.5, 0.5};
    }
    size_t size;
    unsigned char *removed = ckpt_save(w, &size);
    cr_world *r = ckpt_load(removed, size, 1);
    same_state(w, r);
    assert_int_equal(r->rigid->kept_count, 0);
    cr_world_destroy(r);
    add_sphere(w, cr_v3(0.0, 0.0, 0.6), cr_v3_zero(), 0.04, 0.2, CR_INERTIA_SOLID, 0.3, 0.5);
    size_t size2;
    unsigned char *added = ckpt_save(w, &size2);
    step_n(w, STEPS - 60);
    const uint64_t want = cr_world_state_hash(w);
    assert_true(resumed_hash(added, size2, 1, NULL) == want);
    assert_true(resumed_hash(added, size2, 2, NULL) == want);
    free(added);
    free(removed);
    cr_world_destroy(w);
}

/* Saved with islands asleep; in both runs one sleeping ball is then set by
 * hand, which wakes its island: the islands, still times and sleep flags
 * must be the saved ones for the runs to stay the same. */
static void test_resume_asleep(void **state)
{
    (void)state;
    cr_world *w = pit(1, 0.15);
    long k = 0;
    while (cr_world_stats(w)->sleeping < 20 && k < 2000) step_n(w, 1), ++k;
    assert_true(cr_world_stats(w)->sleeping >= 20);
    size_t size;
    unsigned char *data = ckpt_save(w, &size);
    cr_world *r = ckpt_load(data, size, 2);
    same_state(w, r);
    cr_world *both[2] = {w, r};
    uint32_t woken = UINT32_MAX;
    for (uint32_t i = 0; i < w->bodies.slot_count && woken == UINT32_MAX; ++i)
        if (w->bodies.asleep[i]) woken = i;
    for (int m = 0; m < 2; ++m) {
        cr_body_id id = cr_world_body_at(both[m], woken);
        cr_body_state st = state_of(both[m], id);
        st.velocity.z += 0.5;
        assert_int_equal(cr_body_set_state(both[m], id, &st), CR_OK);
        step_n(both[m], 120);
    }
    assert_true(cr_world_state_hash(w) == cr_world_state_hash(r));
    assert_true(cr_world_stats(w)->sleeping == cr_world_stats(r)->sleeping);
    free(data);
    cr_world_destroy(r);
    cr_world_destroy(w);
}

/* Where the rigid parts of a pit's checkpoint (no application bytes) lie,
 * from the end: the application byte count and the checksum (16 bytes);
 * before them the pair list (its builds, slots and hint, then 48 bytes a
 * slot); before that the pairs apart (none: their count), the contacts
 * (their count, the warm count, 304 bytes each), the joints (none: their
 * count), each live body's sleeping state, shape number and inertia
 * tensors (176 bytes),
 * the shapes (none: their count) and the two fallback counts. The rigid
 * settings follow the DEM settings. */
static void test_bad_checkpoints(void **state)
{
    (void)state;
    cr_world *w = pit(1, 0.0);
    step_n(w, 30);
    size_t size;
    unsigned char *data = ckpt_save(w, &size);
    const uint32_t contacts = w->rigid->contact_count, listed = w->rigid->sphere_pairs->n,
                   live = cr_world_body_count(w);
    const size_t list_at = size - 16 - 8 * (3 + 6 * (size_t)listed),
                 contacts_at = list_at - 8 - 8 * (2 + 38 * (size_t)contacts),
                 sleep_at = contacts_at - 8 - 176 * (size_t)live, settings_at = 24 + 11 * 8 + 2 * 8 + 15 * 8;
    assert_true(contacts > 200 && listed == BALLS);
    assert_int_equal(ckpt_get_u64(data + contacts_at), contacts);
    assert_int_equal(ckpt_get_u64(data + list_at + 8), listed);
    assert_int_equal(ckpt_get_u64(data + settings_at + 7 * 8), 4); /* rigid_substeps */
    ckpt_refuse_damage(data, size);
    /* out of range, the checksum made right: each refused, naming the field */
    const size_t c0 = contacts_at + 16; /* the first contact */
    const size_t last = c0 + 304 * (size_t)(contacts - 1); /* the contacts: the pairs', then the planes' */
    assert_int_equal(ckpt_get_u64(data + c0 + 16), 0);
    assert_int_equal(ckpt_get_u64(data + last + 16), 1);
    ckpt_edit bad[] = {
        {settings_at + 7 * 8, 65, false, 0, "rigid_substeps"},
        {settings_at + 10 * 8, 0, true, -1.0, "contact_damping_ratio"},
        {sleep_at + 8, 2, false, 0, "body 0: asleep flag 2"},
        {sleep_at + 16, BALLS, false, 0, "body 0: island 216"},
        {sleep_at, 0, true, -1.0, "body 0: still time -1"},
        {sleep_at + 24, 1, false, 0, "body 0: shape 1, there are 0"},
        {sleep_at, 0, true, NAN, "malformed rigid state"}, /* a still time not finite */
        {contacts_at + 8, contacts + 1, false, 0, "warm start count"},
        {contacts_at, 1u << 30, false, 0, "malformed rigid state"}, /* more contacts than bytes */
        {c0, BALLS, false, 0, "contact 0: body a 216"},
        {c0 + 8, ckpt_get_u64(data + c0), false, 0, "contact 0: body b"}, /* a pair of one body */
        {c0 + 16, 2, false, 0, "malformed rigid state"},                    /* a plane flag 2 */
        {last + 8, 5, false, 0, "plane 5 does not exist"},
        {list_at + 8, BALLS + 1, false, 0, "the pair list covers 217 slots"},
        {list_at + 16, 0, true, 0.0, "size hint 0"},
        {list_at + 24, 0, true, NAN, "malformed rigid state"}, /* a grown box not finite */
    };
    ckpt_refuse_edits(data, size, bad, sizeof bad / sizeof bad[0]);
    /* and the buffer as it was still loads */
    cr_world_destroy(ckpt_load(data, size, 1));
    free(data);
    cr_world_destroy(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resume_pit),
        cmocka_unit_test(test_resume_after_changes),
        cmocka_unit_test(test_resume_asleep),
        cmocka_unit_test(test_bad_checkpoints),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
