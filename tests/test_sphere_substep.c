/* Worlds of spheres only on the sub-stepped soft contact solver
 * (rigid_substeps > 0: src/sphere_contacts.c, src/sphere_substep.c;
 * docs/physics/substep.md, "Spheres"), against closed forms and
 * invariants.
 *
 * Balls of r = 0.05 m and 0.5 kg (the ball pit's), dt = 1/240, g = 9.81.
 * The resting closed forms are test_rigid_substep.c's: a point at rest
 * carrying the impulse lambda a substep h sits at the overlap lambda /
 * (m_eff h omega^2). A ball's normal row moves no spin, so m_eff = m
 * against the floor (omega = 2 pi (2 hertz), the stiffer softness against
 * what cannot move) and m / 2 between two balls (omega = 2 pi hertz). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rigid.h"
#include "rigid_helpers.h"
#include "simd.h"
#include "sphere_points.h"

#define G 9.81
#define DT (1.0 / 240.0)
#define R 0.05
#define MASS 0.5

/* A ball resting on the floor settles to rest at the overlap g / omega^2,
 * omega = 2 pi (2 hertz), whatever the substeps. */
static void test_ball_rests_at_soft_overlap(void **state)
{
    (void)state;
    const int substeps[] = {1, 4, 8};
    for (int k = 0; k < 3; ++k) {
        cr_world_def def = substep_world_def(substeps[k], 30.0);
        cr_world *w = make_world_def(&def);
        add_plane(w, cr_v3_zero(), cr_v3(0, 0, 1));
        cr_body_id b = add_sphere(w, cr_v3(0, 0, R), cr_v3_zero(), R, MASS, CR_INERTIA_SOLID, 0.0, 0.5);
        step_n(w, 480);
        cr_body_state s = state_of(w, b);
        double expected = G / soft_omega2(60.0); /* 6.9e-5 m */
        printf("ball on the floor, %d substeps: overlap %.6g m (closed form %.6g), speed %.3g m/s\n", substeps[k],
               R - s.position.z, expected, cr_v3_len(s.velocity));
        assert_near(R - s.position.z, expected, 1e-3 * expected);
        assert_near(cr_world_stats(w)->max_penetration, expected, 1e-3 * expected);
        assert_true(cr_v3_len(s.velocity) < 1e-9 && cr_v3_len(s.angular_velocity) < 1e-9);
        assert_int_equal(cr_world_contact_count(w), 1);
        cr_world_destroy(w);
    }
}

/* A column of 10 balls: the top sinks by the sum of the soft overlaps, 2 g
 * / omega^2 (1 + ... + 9) between balls (m_eff = m / 2 under k m g) and 10
 * g / omega_floor^2 at the floor, and comes to rest on the axis. */
static void test_column_sags_by_closed_form(void **state)
{
    (void)state;
    const int substeps[] = {4, 8};
    const double hertz[] = {120.0, 240.0};
    for (int k = 0; k < 2; ++k) {
        cr_world_def def = substep_world_def(substeps[k], hertz[k]);
        cr_world *w = make_world_def(&def);
        add_plane(w, cr_v3_zero(), cr_v3(0, 0, 1));
        cr_body_id ids[10];
        for (int i = 0; i < 10; ++i)
            ids[i] = add_sphere(w, cr_v3(0, 0, R + 2 * R * i), cr_v3_zero(), R, MASS, CR_INERTIA_SOLID, 0.0, 0.5);
        step_n(w, 480);
        double sag = 90.0 * G / soft_omega2(hertz[k]) + 10.0 * G / soft_omega2(2.0 * hertz[k]);
        cr_body_state top = state_of(w, ids[9]);
        double sideways = 0.0, speed = 0.0;
        for (int i = 0; i < 10; ++i) {
            cr_body_state s = state_of(w, ids[i]);
            sideways = fmax(sideways, hypot(s.position.x, s.position.y));
            speed = fmax(speed, cr_v3_len(s.velocity));
        }
        printf("column of 10 balls, %d substeps at %g Hz: top sank %.6g m (closed form %.6g), sideways %.3g m, "
               "speed %.3g m/s\n",
               substeps[k], hertz[k], 19 * R - top.position.z, sag, sideways, speed);
        assert_near(19 * R - top.position.z, sag, 1e-3 * sag);
        assert_true(sideways == 0.0);
        assert_true(speed < 1e-6);
        cr_world_destroy(w);
    }
}

/* A ball dropped on the floor leaves with e times the speed it had at the
 * start of the step it hit in (restitution's pass on the one point), a
 * plastic one (e = 0) stays down; no box in the world. */
static void test_ball_bounces_at_minus_e_v(void **state)
{
    (void)state;
    const double es[] = {0.0, 0.5, 0.9};
    for (int k = 0; k < 3; ++k) {
        cr_world_def def = substep_world_def(4, 30.0);
        cr_world *w = make_world_def(&def);
        add_plane(w, cr_v3_zero(), cr_v3(0, 0, 1));
        cr_body_id b = add_sphere(w, cr_v3(0, 0, 0.3), cr_v3(0, 0, -2.0), R, MASS, CR_INERTIA_SOLID, es[k], 0.5);
        double before = 0.0, after = 0.0, later = -INFINITY;
        for (int n = 0; n < 60; ++n) {
            double v = state_of(w, b).velocity.z;
            assert_int_equal(cr_world_step(w), CR_OK);
            double u = state_of(w, b).velocity.z;
            if (before == 0.0 && u > v + 1.0) before = v, after = u; /* the step of the impact */
            else if (before != 0.0 && es[k] == 0.0) later = fmax(later, u);
        }
        printf("ball dropped with e = %g: left at %.12g m/s from %.12g m/s\n", es[k], after, before);
        assert_true(before < -2.0);
        if (es[k] > 0.0) {
            assert_near(after, -es[k] * before, 1e-9);
        } else {
            assert_true(after <= 0.0 && later <= 1e-12);
        }
        cr_world_destroy(w);
    }
}

/* A solid ball thrown sliding along the floor without spin: friction
 * (the tangential row, its arm r) slows it at mu g and spins it up at 5 mu
 * g / (2 r) until it rolls, at 5/7 of its speed (angular momentum about
 * the contact point is kept), then it rolls on at that speed. */
static void test_sliding_ball_rolls_at_five_sevenths(void **state)
{
    (void)state;
    const double mu = 0.2, v0 = 2.0;
    cr_world_def def = substep_world_def(4, 60.0);
    cr_world *w = make_world_def(&def);
    add_plane(w, cr_v3_zero(), cr_v3(0, 0, 1));
    cr_body_id b = add_sphere(w, cr_v3(0, 0, R), cr_v3_zero(), R, MASS, CR_INERTIA_SOLID, 0.0, mu);
    step_n(w, 24); /* settle onto the soft contact */
    cr_body_state s = state_of(w, b);
    s.velocity = cr_v3(0.6 * v0, 0.8 * v0, 0.0);
    assert_int_equal(cr_body_set_state(w, b, &s), CR_OK);
    const int sliding = 48; /* 0.2 s; it rolls at 2 v0 / (7 mu g) = 0.29 s */
    step_n(w, sliding);
    cr_body_state e = state_of(w, b);
    double speed = hypot(e.velocity.x, e.velocity.y), expected = v0 - mu * G * sliding * DT;
    printf("sliding ball: %.9g m/s after %.3g s (closed form %.9g), spin %.9g rad/s (closed form %.9g)\n", speed,
           sliding * DT, expected, cr_v3_len(e.angular_velocity), 2.5 * mu * G * sliding * DT / R);
    assert_near(speed, expected, 1e-3 * v0);
    assert_near(cr_v3_len(e.angular_velocity), 2.5 * mu * G * sliding * DT / R, 1e-3 * v0 / R);
    assert_near(atan2(e.velocity.y, e.velocity.x), atan2(0.8, 0.6), 1e-9);
    step_n(w, 72); /* rolling by 0.5 s */
    e = state_of(w, b);
    speed = hypot(e.velocity.x, e.velocity.y);
    /* rolling: the contact point at rest, w x (-a z) + v = 0, with the arm
     * a to the contact point midway through the soft overlap g / omega^2 */
    double arm = R - 0.5 * G / soft_omega2(120.0);
    cr_vec3 slip = cr_v3_add(e.velocity, cr_v3_cross(e.angular_velocity, cr_v3(0, 0, -arm)));
    printf("rolling ball: %.9g m/s (closed form %.9g), slip %.3g m/s\n", speed, 5.0 / 7.0 * v0,
           hypot(slip.x, slip.y));
    assert_near(speed, 5.0 / 7.0 * v0, 1e-3 * v0);
    assert_true(hypot(slip.x, slip.y) < 1e-6);
    cr_world_destroy(w);
}

/* A pit of balls in an open box, as the ball pit's (bench/peers/scene.c):
 * layers of per_row x per_row on a 0.11 m lattice with 4 mm of jitter, the
 * box one lattice wide, e 0.5 and mu 0.3 at every contact; thrown at up to
 * throw_speed each way. Stepped for steps: the largest rise of the total
 * energy over its start, the deepest overlap seen, the balls that left the
 * box (or are not finite), and the end states. */
typedef struct pit_run {
    double rise, deepest;
    int lost;
    uint32_t colours; /* the most colours of a step's coloured passes */
    uint32_t blocks;  /* the most blocks of a step (sphere_blocks.h) */
} pit_run;

#define PIT_MAX 1200

/* The lanes the passes may take: plain (none, even where the processor
 * has AVX2), four (AVX2, even where it has AVX-512), or the widest it has;
 * the same bits on each. */
typedef enum pit_lanes { LANES_PLAIN, LANES_FOUR, LANES_WIDEST } pit_lanes;

/* per_block: the solver's bodies a block (0: its default, which makes no
 * blocks of these pits). */
static pit_run run_pit_on(const cr_world_def *def, int per_row, int layers, int steps, double throw_speed,
                          cr_body_state *end, pit_lanes lanes, uint32_t per_block)
{
    cr_world *w = make_world_def(def);
    assert_int_equal(cr_rigid_ensure(w), CR_OK);
    w->rigid->substep_portable = lanes == LANES_PLAIN;
    w->rigid->substep_lanes4 = lanes == LANES_FOUR;
    w->rigid->sphere_block_bodies = per_block;
    const double spacing = 0.11, side = per_row * spacing;
    int n = per_row * per_row * layers;
    cr_plane_def pd = cr_default_plane_def();
    pd.restitution = sqrt(0.5), pd.friction = sqrt(0.3);
    const cr_vec3 pp[5] = {{0, 0, 0}, {0, 0, 0}, {side, 0, 0}, {0, 0, 0}, {0, side, 0}};
    const cr_vec3 pn[5] = {{0, 0, 1}, {1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}};
    for (int k = 0; k < 5; ++k) {
        pd.point = pp[k], pd.normal = pn[k];
        assert_int_equal(cr_world_add_plane(w, &pd, NULL), CR_OK);
    }
    cr_body_id ids[PIT_MAX];
    assert_true(n <= PIT_MAX);
    uint64_t s = 12345;
    for (int i = 0; i < n; ++i) {
        int layer = i / (per_row * per_row), in = i % (per_row * per_row);
        cr_vec3 x = cr_v3(R + 0.005 + spacing * (in % per_row) + test_rand(&s, -0.004, 0.004),
                          R + 0.005 + spacing * (in / per_row) + test_rand(&s, -0.004, 0.004), R + 0.01 + spacing * layer);
        ids[i] = add_sphere(w, x, test_rand_vec(&s, -throw_speed, throw_speed), R, MASS, CR_INERTIA_SOLID, sqrt(0.5),
                            sqrt(0.3));
    }
    pit_run out = {-INFINITY, 0.0, 0, 0, 0};
    double e0 = cr_world_energy(w).total;
    for (int k = 0; k < steps; ++k) {
        assert_int_equal(cr_world_step(w), CR_OK);
        if (cr_sphere_substep_colours(w) > out.colours) out.colours = cr_sphere_substep_colours(w);
        if (cr_sphere_substep_blocks(w) > out.blocks) out.blocks = cr_sphere_substep_blocks(w);
        out.rise = fmax(out.rise, cr_world_energy(w).total - e0);
        out.deepest = fmax(out.deepest, cr_world_stats(w)->max_penetration);
    }
    for (int i = 0; i < n; ++i) {
        cr_body_state b = state_of(w, ids[i]);
        cr_vec3 x = b.position;
        if (!cr_v3_isfinite(x) || x.x < -R || x.x > side + R || x.y < -R || x.y > side + R || x.z < -R) ++out.lost;
        if (end) end[i] = b;
    }
    cr_world_destroy(w);
    return out;
}

static pit_run run_pit(const cr_world_def *def, int per_row, int layers, int steps, double throw_speed,
                       cr_body_state *end, uint32_t per_block)
{
    return run_pit_on(def, per_row, layers, steps, throw_speed, end, LANES_WIDEST, per_block);
}

/* A pit of 360 balls (10 layers) thrown in at random (up to 0.5 m/s each way) never
 * gains energy (kinetic + potential over its start: the soft push-out and
 * the restitution pass must not pump) and loses none; dropped as the ball
 * pit's are, at the settings docs/benchmarks.md gives for it (8 substeps,
 * 480 Hz), it overlaps less than 1 % of r. The same in blocks of 60 balls
 * (branch pit20: six columns, their points block by block, then those
 * across them). */
static void test_pit_never_gains_energy_nor_loses_balls(void **state)
{
    (void)state;
    const int substeps[] = {4, 8, 8, 4, 8};
    const double hertz[] = {120.0, 480.0, 480.0, 120.0, 480.0}, thrown[] = {0.5, 0.5, 0.0, 0.5, 0.0};
    const uint32_t per_block[] = {0, 0, 0, 60, 60};
    for (int k = 0; k < 5; ++k) {
        cr_world_def def = substep_world_def(substeps[k], hertz[k]);
        pit_run r = run_pit(&def, 6, 10, 240, thrown[k], NULL, per_block[k]);
        printf("pit of 360 thrown at %g m/s, %d substeps at %g Hz, %u blocks: energy rose by at most %.3g J, deepest "
               "overlap %.3g m, lost %d\n",
               thrown[k], substeps[k], hertz[k], (unsigned)r.blocks, r.rise, r.deepest, r.lost);
        assert_true(per_block[k] ? r.blocks >= 4 : r.blocks == 0);
        assert_true(r.rise <= 0.0);
        assert_int_equal(r.lost, 0);
        if (thrown[k] == 0.0) assert_true(r.deepest <= 0.01 * R);
    }
}

/* Same bits on 1, 2 and 3 workers, for a task system that runs the items
 * backwards one at a time, and on AVX-512 lanes, AVX2 lanes or plain
 * (branch pit14: eight lanes, two quads at a time; the coloured
 * restitution pass over the workers): the coloured passes
 * (branch pit10; docs/physics/substep.md, "Spheres") take a colour's
 * points in any order on any worker, four at a time on the lanes (the
 * warm start too, branch pit12), with the same IEEE operations; the passes
 * over the bodies and the contacts (branch pit12: the set-up, gravity,
 * positions, the store) write each its own entries. A pit of 360 balls (up
 * to 6 colours) and one of 1,152, over several items of 512 bodies; each
 * without blocks and in blocks of 100 balls (branch pit20: 3 and 11
 * blocks, each block's points on one worker, the blocks at once, then the
 * points across them coloured). */
static void test_same_bits_for_any_worker_count(void **state)
{
    (void)state;
    enum { WORLDS = 8 };
    static cr_body_state end[WORLDS][PIT_MAX];
    const uint32_t workers[WORLDS] = {1, 2, 3, 2, 1, 3, 1, 3};
    const bool backwards[WORLDS] = {false, false, false, true, false, false, false, false};
    const pit_lanes lanes[WORLDS] = {LANES_WIDEST, LANES_WIDEST, LANES_WIDEST, LANES_WIDEST,
                                     LANES_PLAIN,  LANES_PLAIN,  LANES_FOUR,   LANES_FOUR};
    const int per_row[2] = {6, 12}, layers[2] = {10, 8}, steps[2] = {120, 40};
    for (int run = 0; run < 4; ++run) {
        int size = run % 2, enqueued = 0, balls = per_row[size] * per_row[size] * layers[size];
        uint32_t per_block = run < 2 ? 0 : 100;
        for (int k = 0; k < WORLDS; ++k) {
            cr_world_def def = substep_world_def(4, 120.0);
            test_use_tasks(&def, workers[k], backwards[k] ? &enqueued : NULL);
            pit_run r = run_pit_on(&def, per_row[size], layers[size], steps[size], 0.5, end[k], lanes[k], per_block);
            if (k == 0) {
                print_message("pit of %d: up to %u colours, %u blocks; AVX2 %s, AVX-512 %s\n", balls,
                              (unsigned)r.colours, (unsigned)r.blocks,
                              cr_use_avx2(false) ? "taken" : "not available: plain on all",
                              cr_use_avx2(false) && cr_sphere_lanes8() ? "taken" : "not available");
                assert_true(r.colours >= 3); /* the coloured passes ran, over several items */
                assert_true(per_block ? r.blocks >= 3 : r.blocks == 0);
            }
        }
        assert_true(enqueued > 0);
        for (int k = 1; k < WORLDS; ++k)
            for (int i = 0; i < balls; ++i) {
                assert_memory_equal(&end[0][i].position, &end[k][i].position, sizeof(cr_vec3));
                assert_memory_equal(&end[0][i].velocity, &end[k][i].velocity, sizeof(cr_vec3));
                assert_memory_equal(&end[0][i].angular_velocity, &end[k][i].angular_velocity, sizeof(cr_vec3));
                assert_memory_equal(&end[0][i].orientation, &end[k][i].orientation, sizeof(cr_quat));
            }
    }
}

/* What the sub-stepped solver cannot take is refused with the reason: a
 * parametric surface (when added), a joint (at the step). */
static void test_surfaces_and_joints_refused(void **state)
{
    (void)state;
    cr_world_def def = substep_world_def(4, 120.0);
    cr_world *w = make_world_def(&def);
    cr_surface_def sd = cr_default_surface_def();
    assert_int_equal(cr_world_add_surface(w, &sd, NULL), CR_ERR_INVALID_ARGUMENT);
    printf("surface: %s\n", cr_world_last_error(w));
    assert_non_null(strstr(cr_world_last_error(w), "rigid_substeps 4"));
    assert_non_null(strstr(cr_world_last_error(w), "surface"));
    cr_body_id a = add_sphere(w, cr_v3(0, 0, 1), cr_v3_zero(), R, MASS, CR_INERTIA_SOLID, 0.0, 0.5);
    cr_joint_def j = cr_default_joint_def();
    j.a = a;
    j.anchor = cr_v3(0, 0, 1.1);
    assert_int_equal(cr_world_add_joint(w, &j, NULL), CR_OK);
    assert_int_equal(cr_world_step(w), CR_ERR_INVALID_ARGUMENT);
    printf("joint: %s\n", cr_world_last_error(w));
    assert_non_null(strstr(cr_world_last_error(w), "joint"));
    assert_non_null(strstr(cr_world_last_error(w), "rigid_substeps"));
    cr_world_destroy(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ball_rests_at_soft_overlap),
        cmocka_unit_test(test_column_sags_by_closed_form),
        cmocka_unit_test(test_ball_bounces_at_minus_e_v),
        cmocka_unit_test(test_sliding_ball_rolls_at_five_sevenths),
        cmocka_unit_test(test_pit_never_gains_energy_nor_loses_balls),
        cmocka_unit_test(test_same_bits_for_any_worker_count),
        cmocka_unit_test(test_surfaces_and_joints_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
