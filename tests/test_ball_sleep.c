/* Sleeping balls in event-method worlds (src/ball_sleep.c, issue 8), on
 * the boiling scene of bench/boiling_scene.h at 100 balls, 60 Hz, sleep
 * after 0.5 s still (the pile is one island: its balls are all below
 * 1 mm/s by 4 s, and it sleeps whole soon after; the tests wait SETTLE):
 * - a settled pile sleeps: after SETTLE at least 95 of the 100 balls are
 *   asleep; a sleeping ball's position does not change by one bit while it
 *   sleeps; the total energy never grows over a step;
 * - a ball rolled into the sleeping pile wakes it, and the next second
 *   matches the same run without sleep in what the physics keeps: total
 *   energy within 2 % of the no-sleep run's, the momentum's change within
 *   25 % of the no-sleep run's (the piles' small motions differ, the
 *   impact does not), and no overlap deeper than the no-sleep run's
 *   deepest plus 0.1 mm;
 * - a flying ball that sleeps on balls on the surface does not float when
 *   they wake and roll away: it comes down;
 * - the same bits on 1, 2 and 3 workers with sleep on, and a checkpoint
 *   saved while the pile sleeps resumes to the same bits and the same
 *   sleeping balls. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "boiling_scene.h"
#include "carom/checkpoint.h"
#include "test_helpers.h"

#define BALLS 100
#define HZ 60.0
#define SLEEP 0.5
#define SETTLE 6.0 /* s: the pile at rest and asleep, with margin */

static double uniform(void *state, double lo, double hi)
{
    uint64_t *r = state;
    *r = *r * 6364136223846793005ull + 1442695040888963407ull;
    return lo + (hi - lo) * (double)(*r >> 11) / 9007199254740992.0;
}

static cr_world *pile_of(int balls, double sleep_time, uint32_t workers, double sleep_speed)
{
    cr_world_def wd = boiling_world_def(HZ);
    wd.sleep_speed = sleep_speed;
    wd.worker_count = workers;
    wd.sleep_time = sleep_time;
    cr_world *w = make_world_def(&wd);
    uint64_t rng = 99;
    assert_int_equal(boiling_scene_add(w, balls, uniform, &rng), CR_OK);
    return w;
}

static cr_world *pile(double sleep_time, uint32_t workers) { return pile_of(BALLS, sleep_time, workers, 0.01); }

static void step(cr_world *w, int steps)
{
    for (int k = 0; k < steps; ++k) assert_int_equal(cr_world_step(w), CR_OK);
}

static cr_body_id ball(const cr_world *w, uint32_t i) { return cr_world_body_at(w, i); }

static cr_vec3 position(const cr_world *w, uint32_t i)
{
    cr_body_state s;
    assert_int_equal(cr_body_get_state(w, ball(w, i), &s), CR_OK);
    return s.position;
}

static bool same_bits(cr_vec3 a, cr_vec3 b) { return memcmp(&a, &b, sizeof a) == 0; }

static uint32_t asleep_count(const cr_world *w)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < cr_world_body_capacity(w); ++i) n += cr_body_is_asleep(w, ball(w, i));
    return n;
}

static void settled_pile_sleeps(void **state)
{
    (void)state;
    /* 5 cm/s: balls fall asleep still rolling, and must stop */
    cr_world *w = pile_of(BALLS, SLEEP, 1, 0.05);
    cr_vec3 was[BALLS];
    bool slept[BALLS];
    double e = cr_world_energy(w).total, e0 = e;
    uint32_t moved = 0, slept_steps = 0;
    for (int k = 0; k < (int)(SETTLE * HZ); ++k) {
        for (uint32_t i = 0; i < BALLS; ++i) {
            was[i] = position(w, i);
            slept[i] = cr_body_is_asleep(w, ball(w, i));
        }
        step(w, 1);
        for (uint32_t i = 0; i < BALLS; ++i)
            if (slept[i] && cr_body_is_asleep(w, ball(w, i))) {
                slept_steps++;
                moved += !same_bits(was[i], position(w, i));
            }
        double e1 = cr_world_energy(w).total;
        assert_true(e1 <= e + 1e-9 * fabs(e0)); /* sleeping makes no energy */
        e = e1;
    }
    assert_int_equal(moved, 0);
    assert_true(slept_steps > 0);
    assert_true(cr_world_stats(w)->sleeping >= 95);
    assert_int_equal(cr_world_stats(w)->sleeping, asleep_count(w));
    cr_world_destroy(w);
}

/* Adds a ball rolling at 1 m/s towards the pile's centre from the first
 * free place 0.45 m away from it (the same in every run: the pile's
 * positions are those after SETTLE without sleep, passed in). */
static void roll_in(cr_world *w, const cr_vec3 *x)
{
    cr_vec3 c = cr_v3_zero();
    for (uint32_t i = 0; i < BALLS; ++i) c = cr_v3_add(c, cr_v3_scale(x[i], 1.0 / BALLS));
    const cr_surface *s = cr_world_surface(w, 0);
    double r = 0.03, half = boiling_half(BALLS);
    for (int a = 0; a < 64; ++a) {
        double t = 2.0 * 3.14159265358979 * a / 64.0;
        double u = c.x + 0.45 * cos(t), v = c.y + 0.45 * sin(t);
        if (fabs(u) > half - 2.0 * r || fabs(v) > half - 2.0 * r) continue;
        cr_surface_eval ev;
        cr_vec3 n;
        cr_surface_evaluate(s, u, v, &ev, &n);
        cr_vec3 p = cr_v3_madd(ev.s, n, r);
        bool free_place = true;
        for (uint32_t i = 0; i < BALLS && free_place; ++i) free_place = cr_v3_len(cr_v3_sub(p, x[i])) > r + 0.05;
        if (!free_place) continue;
        cr_body_def d = cr_default_body_def();
        d.radius = r;
        d.mass = 1000.0 * 4.0 / 3.0 * 3.14159 * r * r * r;
        d.position = p;
        cr_vec3 to = cr_v3_reject(cr_v3_sub(c, p), n);
        d.velocity = cr_v3_scale(to, 1.0 / cr_v3_len(to));
        assert_int_equal(cr_world_add_body(w, &d, NULL), CR_OK);
        return;
    }
    fail_msg("no free place to roll a ball in from");
}

typedef struct wake_run {
    double energy, deepest;
    cr_vec3 dp;          /* momentum change over the second */
    uint32_t least_asleep;
} wake_run;

static wake_run roll_into(double sleep_time, const cr_vec3 *x)
{
    cr_world *w = pile(sleep_time, 1);
    step(w, (int)(SETTLE * HZ));
    roll_in(w, x);
    wake_run out = {0.0, 0.0, cr_v3_zero(), asleep_count(w)};
    cr_vec3 p0 = cr_world_energy(w).momentum;
    for (int k = 0; k < (int)HZ; ++k) {
        step(w, 1);
        double d = cr_world_stats(w)->max_penetration;
        out.deepest = d > out.deepest ? d : out.deepest;
        uint32_t a = asleep_count(w);
        out.least_asleep = a < out.least_asleep ? a : out.least_asleep;
    }
    out.energy = cr_world_energy(w).total;
    out.dp = cr_v3_sub(cr_world_energy(w).momentum, p0);
    cr_world_destroy(w);
    return out;
}

static void rolled_ball_wakes_the_pile(void **state)
{
    (void)state;
    cr_world *w = pile(0.0, 1);
    step(w, (int)(SETTLE * HZ));
    cr_vec3 x[BALLS];
    for (uint32_t i = 0; i < BALLS; ++i) x[i] = position(w, i);
    cr_world_destroy(w);
    wake_run awake = roll_into(0.0, x), sleeping = roll_into(SLEEP, x);
    assert_true(sleeping.least_asleep < 10); /* it woke (from >= 95 asleep) */
    assert_true(fabs(sleeping.energy - awake.energy) <= 0.02 * fabs(awake.energy));
    assert_true(cr_v3_len(cr_v3_sub(sleeping.dp, awake.dp)) <= 0.25 * cr_v3_len(awake.dp));
    assert_true(sleeping.deepest <= awake.deepest + 1e-4);
}

/* Three balls at the bottom of a hollow, touching, and a fourth laid on
 * them (a flying ball that leans on balls on the surface). */
static cr_world *three_and_one(cr_body_id id[4])
{
    cr_world_def wd = boiling_world_def(HZ);
    wd.sleep_time = 0.3;
    cr_world *w = make_world_def(&wd);
    static const cr_hill hollow = {-0.1, 0.0, 0.0, 0.3};
    cr_surface_def sd = hills_def(&hollow, 1, 0.5);
    sd.friction = 1.0;
    sd.rolling_friction = 0.01;
    assert_int_equal(cr_world_add_surface(w, &sd, NULL), CR_OK);
    const cr_surface *s = cr_world_surface(w, 0);
    double r = 0.03, c = 2.0 * r / sqrt(3.0) * (1.0 + 1e-4);
    for (int k = 0; k < 4; ++k) {
        double t = 2.0 * 3.14159265358979 * k / 3.0;
        cr_body_def d = cr_default_body_def();
        d.radius = r;
        d.mass = 0.1;
        d.friction = 0.5;
        if (k < 3) {
            cr_surface_eval ev;
            cr_vec3 n;
            cr_surface_evaluate(s, c * cos(t), c * sin(t), &ev, &n);
            d.position = cr_v3_madd(ev.s, n, r);
        } else {
            /* on the three, touching each (within 1e-7 m) */
            double z = 0.0;
            for (int q = 0; q < 3; ++q) {
                cr_body_state b3;
                assert_int_equal(cr_body_get_state(w, id[q], &b3), CR_OK);
                z += b3.position.z / 3.0;
            }
            d.position = cr_v3(0.0, 0.0, z + sqrt(4.0 * r * r - c * c) + 1e-7);
        }
        assert_int_equal(cr_world_add_body(w, &d, &id[k]), CR_OK);
    }
    return w;
}

static void flyer_comes_down(void **state)
{
    (void)state;
    cr_body_id id[4];
    cr_world *w = three_and_one(id);
    step(w, 2 * (int)HZ);
    cr_ball_state bs;
    assert_int_equal(cr_body_get_ball_state(w, id[3], &bs, NULL), CR_OK);
    for (int k = 0; k < 4; ++k) assert_true(cr_body_is_asleep(w, id[k]));
    assert_int_equal(bs, CR_BALL_FLYING);
    cr_body_state top;
    assert_int_equal(cr_body_get_state(w, id[3], &top), CR_OK);
    /* the three roll away from under it, outwards */
    for (int k = 0; k < 3; ++k) {
        cr_body_state s;
        assert_int_equal(cr_body_get_state(w, id[k], &s), CR_OK);
        cr_vec3 out = cr_v3(s.position.x, s.position.y, 0.0);
        s.velocity = cr_v3_scale(out, 0.6 / cr_v3_len(out));
        assert_int_equal(cr_body_set_state(w, id[k], &s), CR_OK);
    }
    step(w, (int)HZ / 4);
    /* it fell: more than a centimetre lower (floating, it would keep its
     * height to the bit) */
    cr_body_state now;
    assert_int_equal(cr_body_get_state(w, id[3], &now), CR_OK);
    assert_true(now.position.z < top.position.z - 0.01);
    cr_world_destroy(w);
}

static void same_bits_on_workers_and_checkpoints(void **state)
{
    (void)state;
    uint64_t hash[3];
    uint32_t sleeping[3];
    for (uint32_t t = 1; t <= 3; ++t) {
        cr_world *w = pile(SLEEP, t);
        step(w, (int)((SETTLE + 0.5) * HZ));
        hash[t - 1] = cr_world_state_hash(w);
        sleeping[t - 1] = asleep_count(w);
        cr_world_destroy(w);
    }
    assert_true(hash[0] == hash[1] && hash[1] == hash[2]);
    assert_true(sleeping[0] == sleeping[1] && sleeping[1] == sleeping[2]);
    /* saved asleep, resumed, then woken by a ball set moving: the same as
     * the run that never stopped */
    cr_world *w = pile(SLEEP, 1);
    step(w, (int)(SETTLE * HZ));
    assert_true(asleep_count(w) >= 95);
    unsigned char *data;
    size_t size;
    char msg[256];
    assert_int_equal(cr_world_save_buffer(w, NULL, 0, &data, &size, msg, sizeof msg), CR_OK);
    cr_world *r;
    assert_int_equal(cr_world_load_buffer(data, size, NULL, &r, NULL, NULL, msg, sizeof msg), CR_OK);
    free(data);
    assert_int_equal(asleep_count(r), asleep_count(w));
    cr_world *both[2] = {w, r};
    for (int k = 0; k < 2; ++k) {
        step(both[k], 10);
        cr_body_state s;
        assert_int_equal(cr_body_get_state(both[k], ball(both[k], 7), &s), CR_OK);
        s.velocity = cr_v3(0.5, 0.0, 0.0);
        assert_int_equal(cr_body_set_state(both[k], ball(both[k], 7), &s), CR_OK);
        step(both[k], (int)HZ / 2);
    }
    assert_true(cr_world_state_hash(w) == cr_world_state_hash(r));
    for (uint32_t i = 0; i < BALLS; ++i)
        assert_int_equal(cr_body_is_asleep(w, ball(w, i)), cr_body_is_asleep(r, ball(r, i)));
    cr_world_destroy(w);
    cr_world_destroy(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(settled_pile_sleeps),
        cmocka_unit_test(rolled_ball_wakes_the_pile),
        cmocka_unit_test(flyer_comes_down),
        cmocka_unit_test(same_bits_on_workers_and_checkpoints),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
