/* Checkpoints of method dem (version 3; its contact model, version 7; rolling, version 8): a small chute (tests/dem_chute.h)
 * saved at step k, restored into a fresh world and run to step N hashes
 * the same, bit for bit, as the run that never stopped; saved on 1 or 2
 * workers and restored on 2 or 1. Saved before the first step, right after
 * a list build, between builds, and after bodies were set, removed and
 * added (when the next step sets up again). Corrupt, truncated and out of
 * range DEM parts are refused whole, with a message. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint_bytes.h"
#include "checkpoint_calls.h"
#include "dem_chute.h"
#include "dem_state.h"
#include "test_helpers.h"

enum { STEPS = 400 };

static cr_dem_carry_mode carry_mode(const cr_world *w)
{
    cr_dem_carry c;
    assert_true(cr_dem_carry_get(w, &c));
    cr_dem_carry_mode m = c.mode;
    cr_dem_carry_free(&c);
    return m;
}

/* The buffer restored on workers threads, run to step STEPS: its hash. */
static uint64_t resumed_hash(const unsigned char *data, size_t size, uint32_t workers)
{
    cr_world *r = ckpt_load(data, size, workers);
    assert_int_equal(cr_world_get_def(r)->worker_count, workers);
    return ckpt_hash_at(r, STEPS);
}

/* w saved where it stands (step `at`), run on to step STEPS: the saved
 * bytes resume to the same hash on 1 and 2 workers. w is destroyed; the
 * bytes are returned (free them). */
static unsigned char *saved_resumes(cr_world *w, long at, size_t *size)
{
    unsigned char *data = ckpt_save(w, size);
    step_n(w, STEPS - at);
    const uint64_t want = cr_world_state_hash(w);
    cr_world_destroy(w);
    assert_true(resumed_hash(data, *size, 1) == want);
    assert_true(resumed_hash(data, *size, 2) == want);
    return data;
}

typedef struct saved { unsigned char *data; size_t size; long step; } saved;

static void test_resume_chute(void **state)
{
    (void)state;
    for (uint32_t workers = 1; workers <= 2; ++workers) {
        cr_world *ref = test_chute(workers, NULL);
        step_n(ref, STEPS);
        const uint64_t want = cr_world_state_hash(ref);
        cr_world_destroy(ref);

        /* one run, saved on the way: before the first step, after steps
         * 1 and 150, and after the first two steps that built the list */
        cr_world *w = test_chute(workers, NULL);
        saved s[5];
        int n = 0, built = 0;
        s[n].data = ckpt_save(w, &s[n].size), s[n++].step = 0;
        assert_int_equal(carry_mode(w), CR_DEM_CARRY_NONE);
        for (long k = 1; k < STEPS; ++k) {
            uint64_t b = cr_dem_build_count(w);
            step_n(w, 1);
            bool now_built = cr_dem_build_count(w) > b && k > 1;
            if (k == 1 || k == 150 || (now_built && built < 2)) {
                assert_int_equal(carry_mode(w), CR_DEM_CARRY_FORCES);
                built += now_built;
                s[n].data = ckpt_save(w, &s[n].size), s[n++].step = k;
            }
        }
        assert_int_equal(built, 2);
        step_n(w, 1);
        assert_true(cr_world_state_hash(w) == want); /* saving changed nothing */
        cr_world_destroy(w);
        for (int m = 0; m < n; ++m) {
            for (uint32_t on = 1; on <= 2; ++on)
                if (resumed_hash(s[m].data, s[m].size, on) != want)
                    fail_msg("saved at step %ld on %u workers, resumed on %u: another run", s[m].step, workers, on);
            free(s[m].data);
        }
    }
}

/* Saved after a body was set, one removed and one added: the next step
 * sets up again, and only the contact history carries over (mode
 * HISTORY); the resumed run is still the same. */
static void test_resume_after_changes(void **state)
{
    (void)state;
    cr_world *w = test_chute(2, NULL);
    step_n(w, 120);
    cr_body_id a = cr_world_body_at(w, 300), gone = cr_world_body_at(w, 500);
    cr_body_state st = state_of(w, a);
    st.velocity.x += 1.0;
    assert_int_equal(cr_body_set_state(w, a, &st), CR_OK);
    assert_int_equal(cr_world_remove_body(w, gone), CR_OK);
    cr_body_def d = cr_default_body_def();
    d.radius = 0.5;
    d.mass = 1.0;
    d.position = cr_v3(6.0, 6.0, 12.0);
    assert_int_equal(cr_world_add_body(w, &d, NULL), CR_OK);
    assert_int_equal(carry_mode(w), CR_DEM_CARRY_HISTORY);
    size_t size;
    free(saved_resumes(w, 120, &size));
}

/* Version 7 keeps the contact model: the Hertz chute saved at step 150
 * resumes bit for bit on 1 and 2 workers (loaded as Hooke it would run
 * another flow); the same bytes made into version 6 (the model's word,
 * after the world settings of versions 1 to 4, and version 8's three
 * rolling words after it, taken out) load as Hooke. */
static void test_resume_hertz(void **state)
{
    (void)state;
    cr_world *w = test_chute_model(1, NULL, CR_DEM_HERTZ);
    step_n(w, 150);
    size_t size;
    unsigned char *data = saved_resumes(w, 150, &size);
    const size_t model_at = 24 + 39 * 8;
    assert_int_equal(ckpt_get_u64(data + model_at), CR_DEM_HERTZ);
    unsigned char *v6 = malloc(size);
    assert_non_null(v6);
    memcpy(v6, data, model_at);
    memcpy(v6 + model_at, data + model_at + 32, size - model_at - 32);
    ckpt_put_u64(v6 + 8, 6);
    ckpt_put_u64(v6 + 16, ckpt_get_u64(data + 16) - 32);
    ckpt_fix_checksum(v6, size - 32);
    cr_world *r = ckpt_load(v6, size - 32, 1);
    assert_int_equal(cr_world_get_def(r)->hooke.model, CR_DEM_HOOKE);
    cr_world_destroy(r);
    free(v6);
    free(data);
}

/* Version 8 keeps the rolling resistance and each contact's rolling
 * history: the chute with rolling saved at step 150 (with nonzero
 * histories) resumes bit for bit on 1 and 2 workers. */
static void test_resume_rolling(void **state)
{
    (void)state;
    cr_world *w = test_chute_rolling(1, NULL, CR_DEM_HOOKE, 2e5 * 2.0 / 7.0, 0.1);
    step_n(w, 150);
    cr_dem_carry c;
    assert_true(cr_dem_carry_get(w, &c));
    assert_non_null(c.roll);
    uint32_t nonzero = 0;
    for (uint32_t k = 0; k < c.contacts; ++k) nonzero += c.roll[k].x != 0.0 || c.roll[k].y != 0.0 || c.roll[k].z != 0.0;
    assert_true(nonzero > c.contacts / 2);
    cr_dem_carry_free(&c);
    size_t size;
    free(saved_resumes(w, 150, &size));
}

/* Where the parts of a chute's checkpoint (no application bytes) lie:
 * from the end, the application byte count and the checksum (16 bytes),
 * before them the rigid pipeline's state (version 4: none here, 80 bytes
 * and each live body's sleeping state, shape and tensors, 176 bytes a
 * body), before that each
 * live body's build centre, force and torque (72 bytes a body), before
 * those the contacts (40 bytes each), their count and the mode. */
static void test_bad_dem_checkpoints(void **state)
{
    (void)state;
    cr_world *w = test_chute(1, NULL);
    step_n(w, 30);
    size_t size;
    unsigned char *data = ckpt_save(w, &size);
    cr_dem_carry c;
    assert_true(cr_dem_carry_get(w, &c));
    const size_t rigid_bytes = 80 + 176 * (size_t)cr_world_body_count(w),
                 bodies_at = size - 16 - rigid_bytes - 72 * (size_t)cr_world_body_count(w),
                 contacts_at = bodies_at - 40 * (size_t)c.contacts, mode_at = contacts_at - 16;
    assert_true(c.contacts > 1000);
    assert_int_equal(ckpt_get_u64(data + mode_at), CR_DEM_CARRY_FORCES);
    assert_int_equal(ckpt_get_u64(data + mode_at + 8), c.contacts);
    assert_int_equal(ckpt_get_u64(data + contacts_at), c.a[0]);
    cr_dem_carry_free(&c);
    ckpt_refuse_damage(data, size);
    /* out of range, the checksum made right: each refused with where */
    ckpt_edit bad[] = {
        {mode_at, 3, false, 0, "malformed dem state"},                             /* no such mode */
        {contacts_at, 1296, false, 0, "malformed dem state"},                      /* a slot past the last */
        {contacts_at + 8, ckpt_get_u64(data + contacts_at), false, 0, "malformed dem state"}, /* a pair of one body */
        {mode_at + 8, 1u << 30, false, 0, "malformed dem state"},                  /* more contacts than bytes */
        {bodies_at + 72 * (size_t)cr_world_body_count(w) - 8, 0, true, NAN, "malformed dem state"}, /* a torque NaN */
        {24 + 13 * 8 + 5 * 8, 2, false, 0, "periodic.x flag 2"},                   /* a flag not 0 or 1 */
        {24 + 39 * 8, 2, false, 0, "hooke.model: unknown value 2"},               /* no such model */
        {24 + 40 * 8, 0, true, -1.0, "hooke.k_roll: must be >= 0"},              /* version 8's */
    };
    ckpt_refuse_edits(data, size, bad, sizeof bad / sizeof bad[0]);
    /* and the buffer as it was still loads */
    cr_world *r = NULL;
    char msg[256];
    assert_int_equal(cr_world_load_buffer(data, size, NULL, &r, NULL, NULL, msg, sizeof msg), CR_OK);
    cr_world_destroy(r);
    free(data);
    cr_world_destroy(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resume_chute),
        cmocka_unit_test(test_resume_after_changes),
        cmocka_unit_test(test_resume_hertz),
        cmocka_unit_test(test_resume_rolling),
        cmocka_unit_test(test_bad_dem_checkpoints),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
