/* Rolling and spin resistance (src/soft_resist.h, docs/physics/substep.md
 * "Rolling resistance"): a ball's rolling_friction nu bounds the torque of
 * its contact to nu R* N, against closed forms on the three rigid-body
 * solvers: the sub-stepped one's sphere kernel (sphere_substep.c) and
 * general kernel (rigid_substep.c, taken here by a static box far away),
 * and seed 003's multipliers (rigid_solve.c, rigid_substeps 0, the box
 * making it a rigid-body world).
 *
 * A solid ball (I = 2/5 m r^2) rolling on a plane under a resisting torque
 * nu r N, N = m g, with friction enough to keep it rolling:
 *   m dv/dt = f,  I dw/dt = -f r - nu r m g,  v = w r
 *   =>  dv/dt = -nu g / (1 + I / (m r^2)) = -(5/7) nu g;
 * spinning about the normal: I dw/dt = -nu r m g, dw/dt = -(5/2) nu g / r;
 * on a slope theta it holds while m g sin(theta) r <= nu r m g cos(theta),
 * tan(theta) <= nu, and beyond rolls down at (5/7) g (sin - nu cos). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "carom/checkpoint.h"
#include "rigid.h"
#include "rigid_helpers.h"
#include "simd.h"

#define G 9.81
#define R 0.05
#define MASS 0.5
#define NU 0.1
#define DT (1.0 / 240.0)

/* A static box far from everything: the world becomes a rigid-body one (on
 * substeps, the general kernel). */
static void add_far_box(cr_world *w)
{
    cr_shape *box = NULL;
    assert_int_equal(cr_shape_create_box(cr_v3(0.1, 0.1, 0.1), &box, NULL, 0), CR_OK);
    cr_body_def d = cr_default_body_def();
    d.type = CR_BODY_STATIC;
    d.shape = CR_SHAPE_BOX;
    d.shape_ref = box;
    d.mass = 1.0;
    d.position = cr_v3(100, 100, 100);
    cr_body_id id;
    assert_int_equal(cr_world_add_body(w, &d, &id), CR_OK);
    cr_shape_release(box);
}

enum { SPHERE_KERNEL, GENERAL_KERNEL, MULTIPLIERS, SOLVERS };

/* A world at 240 Hz on workers threads, of 4 substeps but with
 * MULTIPLIERS; but for SPHERE_KERNEL a static box far away takes it to the
 * general kernel or makes it a rigid-body world. */
static cr_world *world_of(int solver, double sleep_time, uint32_t workers)
{
    cr_world_def def = substep_world_def(solver == MULTIPLIERS ? 0 : 4, 30.0);
    def.sleep_time = sleep_time;
    test_use_tasks(&def, workers, NULL);
    cr_world *w = make_world_def(&def);
    if (solver != SPHERE_KERNEL) add_far_box(w);
    return w;
}

static cr_body_id add_ball(cr_world *w, cr_vec3 x, cr_vec3 v, cr_vec3 spin, double nu)
{
    cr_body_def d = cr_default_body_def();
    d.position = x;
    d.velocity = v;
    d.angular_velocity = spin;
    d.radius = R;
    d.mass = MASS;
    d.inertia_kind = CR_INERTIA_SOLID;
    d.restitution = 0.0;
    d.friction = 0.5;
    d.rolling_friction = nu;
    cr_body_id id;
    assert_int_equal(cr_world_add_body(w, &d, &id), CR_OK);
    return id;
}

/* The ball's resting height over the floor: on substeps less the soft
 * overlap (test_sphere_substep.c's closed form at 4 x 240 Hz, 60 Hz
 * against what cannot move); the multipliers' contact is rigid. */
static double resting_height(int solver) { return solver == MULTIPLIERS ? R : R - G / soft_omega2(60.0); }

/* Which solver the world took. */
static void check_kernel(const cr_world *w, int solver)
{
    const cr_rigid *r = w->rigid;
    assert_true(solver == SPHERE_KERNEL    ? r->sphere_substep != NULL && r->substep == NULL
                : solver == GENERAL_KERNEL ? r->substep != NULL && r->sphere_substep == NULL
                                           : r->substep == NULL && r->sphere_substep == NULL);
}

static const char *kernel(int solver)
{
    return solver == SPHERE_KERNEL ? "sphere kernel" : solver == GENERAL_KERNEL ? "general kernel" : "multipliers";
}

/* The integration step: positions move by each step's (each substep's)
 * new velocity, so a constant acceleration a covers a t (t + h) / 2 from
 * rest by time t, a t h / 2 more than a t^2 / 2. */
static double step_of(int solver) { return solver == MULTIPLIERS ? DT : DT / 4.0; }

/* Rolling at 1 m/s, the ball slows at (5/7) nu g: at 1 s its distance
 * v0 t - a t (t + h) / 2 and speed v0 - a t, and at 2 s at rest where it
 * stopped, v0^2 / (2 a) - v0 h / 2 (the steps' sum). Without resistance it
 * rolls on at 1 m/s. */
static void test_rolling_ball_stops_at_closed_form(void **state)
{
    (void)state;
    for (int solver = 0; solver < SOLVERS; ++solver) {
        cr_world *w = world_of(solver, 0.0, 1);
        add_plane(w, cr_v3_zero(), cr_v3(0, 0, 1));
        double v0 = 1.0, a = 5.0 / 7.0 * NU * G;
        double spin = v0 / R; /* rolling but for the soft overlap's share of the arm (1.4e-3) */
        cr_body_id ball = add_ball(w, cr_v3(0, 0, resting_height(solver)), cr_v3(v0, 0, 0), cr_v3(0, spin, 0), NU);
        cr_body_id free_ball = add_ball(w, cr_v3(0, 1, resting_height(solver)), cr_v3(v0, 0, 0), cr_v3(0, spin, 0), 0.0);
        step_n(w, 240);
        cr_body_state s = state_of(w, ball), f = state_of(w, free_ball);
        double h = step_of(solver), x1 = v0 - 0.5 * a * (1.0 + h), v1 = v0 - a;
        printf("%s: rolling ball at 1 s: x %.6f m (closed form %.6f), v %.6f m/s (%.6f); without resistance v "
               "%.9f\n",
               kernel(solver), s.position.x, x1, s.velocity.x, v1, f.velocity.x);
        assert_near(s.position.x, x1, 2e-4 * x1);
        assert_near(s.velocity.x, v1, 2e-4 * v0);
        assert_near(s.angular_velocity.y * R, s.velocity.x, 1e-3 * v0); /* still rolling */
        /* the soft overlap's slip (v0 delta / R) taken out by friction: (2/7) of it */
        assert_near(f.velocity.x, v0, 3e-4 * v0);
        step_n(w, 240);
        check_kernel(w, solver);
        s = state_of(w, ball);
        double stop = v0 * v0 / (2.0 * a) - 0.5 * v0 * h;
        printf("%s: at 2 s: x %.6f m (stops at %.6f), |v| %.3g m/s, |w| %.3g rad/s\n", kernel(solver),
               s.position.x, stop, cr_v3_len(s.velocity), cr_v3_len(s.angular_velocity));
        assert_near(s.position.x, stop, 2e-4 * stop);
        assert_true(cr_v3_len(s.velocity) < 1e-6 && cr_v3_len(s.angular_velocity) < 1e-6 / R);
        cr_world_destroy(w);
    }
}

/* Spinning about the vertical at 10 rad/s, the ball slows at (5/2) nu g /
 * r and stops after 0.204 s; then, with sleep_time 0.25 s, it sleeps.
 * Without resistance the spin stays (and the ball never sleeps). */
static void test_spinning_ball_stops_and_sleeps(void **state)
{
    (void)state;
    for (int solver = 0; solver < SOLVERS; ++solver) {
        cr_world *w = world_of(solver, 0.25, 1);
        add_plane(w, cr_v3_zero(), cr_v3(0, 0, 1));
        double w0 = 10.0, alpha = 2.5 * NU * G / R;
        cr_body_id ball = add_ball(w, cr_v3(0, 0, resting_height(solver)), cr_v3_zero(), cr_v3(0, 0, w0), NU);
        cr_body_id free_ball = add_ball(w, cr_v3(0, 1, resting_height(solver)), cr_v3_zero(), cr_v3(0, 0, w0), 0.0);
        step_n(w, 24);
        cr_body_state s = state_of(w, ball);
        double w1 = w0 - alpha * 0.1;
        printf("%s: spinning ball at 0.1 s: w %.6f rad/s (closed form %.6f)\n", kernel(solver),
               s.angular_velocity.z, w1);
        assert_near(s.angular_velocity.z, w1, 2e-3 * w0);
        step_n(w, 216);
        check_kernel(w, solver);
        s = state_of(w, ball);
        cr_body_state f = state_of(w, free_ball);
        printf("%s: at 1 s: |w| %.3g rad/s, asleep %d; without resistance w %.9f, asleep %d\n", kernel(solver),
               cr_v3_len(s.angular_velocity), cr_body_is_asleep(w, ball), f.angular_velocity.z,
               cr_body_is_asleep(w, free_ball));
        assert_true(cr_v3_len(s.angular_velocity) < 1e-6);
        assert_true(cr_body_is_asleep(w, ball));
        assert_near(f.angular_velocity.z, w0, 1e-9);
        assert_false(cr_body_is_asleep(w, free_ball));
        cr_world_destroy(w);
    }
}

/* On a slope of tan theta = nu / 2 the ball stays where it was put; on tan
 * theta = 2 nu it rolls down at (5/7) g (sin theta - nu cos theta). */
static void test_ball_on_slope(void **state)
{
    (void)state;
    for (int solver = 0; solver < SOLVERS; ++solver)
        for (int steep = 0; steep < 2; ++steep) {
            cr_world *w = world_of(solver, 0.0, 1);
            double theta = atan(steep ? 2.0 * NU : 0.5 * NU);
            /* gravity's part along the plane: g sin theta (cos theta, 0, -sin theta) */
            cr_vec3 n = cr_v3(sin(theta), 0, cos(theta)), down = cr_v3(cos(theta), 0, -sin(theta));
            add_plane(w, cr_v3_zero(), n);
            cr_vec3 x0 = cr_v3_scale(n, resting_height(solver));
            cr_body_id ball = add_ball(w, x0, cr_v3_zero(), cr_v3_zero(), NU);
            step_n(w, 120);
            double half = cr_v3_dot(cr_v3_sub(state_of(w, ball).position, x0), down);
            step_n(w, 120);
            check_kernel(w, solver);
            double along = cr_v3_dot(cr_v3_sub(state_of(w, ball).position, x0), down);
            double a = steep ? 5.0 / 7.0 * G * (sin(theta) - NU * cos(theta)) : 0.0;
            double x1 = 0.5 * a * (1.0 + step_of(solver));
            printf("%s, tan theta = %.2f: %.6g m down the slope in 1 s (closed form %.6g), %.3g m in the last "
                   "0.5 s\n",
                   kernel(solver), tan(theta), along, x1, along - half);
            if (steep) assert_near(along, x1, 5e-4 * x1);
            /* held: a settling of the first steps' soft contact, then no creep
             * (without rest_roll's warm start: 0.23 mm/s) */
            else assert_true(fabs(along) < 1e-5 && fabs(along - half) < 1e-9);
            cr_world_destroy(w);
        }
}

/* count bodies in a lattice of 5 x 5 a layer, jittered, dropped into an
 * open box 0.6 m wide: balls with rolling resistance spun at random or,
 * with boxes, every other one a cube turned at random; w's hash after 120
 * steps (w destroyed). */
static uint64_t heap_hash_of(cr_world *w, int count, uint64_t seed, bool boxes)
{
    add_plane(w, cr_v3_zero(), cr_v3(0, 0, 1));
    add_side_walls(w, 0.3);
    for (int k = 0; k < count; ++k) {
        cr_vec3 x = cr_v3(-0.25 + 0.11 * (k % 5) + test_rand(&seed, -0.005, 0.005),
                          -0.25 + 0.11 * ((k / 5) % 5) + test_rand(&seed, -0.005, 0.005), R + 0.11 * (k / 25));
        if (boxes && k % 2)
            add_box(w, cr_v3(0.04, 0.04, 0.04), x, axis_angle(test_rand_vec(&seed, -1, 1), test_rand(&seed, 0, 6)),
                    0.5, 0.0, 0.5);
        else
            add_ball(w, x, cr_v3_zero(), test_rand_vec(&seed, -20, 20), test_rand(&seed, 0.0, 0.2));
    }
    step_n(w, 120);
    uint64_t h = cr_world_state_hash(w);
    cr_world_destroy(w);
    return h;
}

/* A heap of 400 resisting balls: the same bits on 1 and 3 threads, on
 * every solver. */
static uint64_t heap_hash(int solver, uint32_t workers)
{
    return heap_hash_of(world_of(solver, 0.0, workers), 400, 5, false);
}

static void test_same_bits_on_threads(void **state)
{
    (void)state;
    for (int solver = 0; solver < SOLVERS; ++solver) {
        uint64_t one = heap_hash(solver, 1), three = heap_hash(solver, 3);
        printf("%s: heap of 400 resisting balls, hash %016llx on 1 thread, %016llx on 3\n", kernel(solver),
               (unsigned long long)one, (unsigned long long)three);
        assert_true(one == three);
    }
}

/* Boxes and resisting balls thrown into a box on the general kernel: the
 * lanes take the boxes' contacts and leave the balls' to the plain kernel
 * with their resistance rows (soft_lanes.h), and the run ends with the
 * bits of the plain kernel alone (substep_portable). Were the balls' runs
 * on the lanes, their rows would be skipped and the bits differ. */
static uint64_t mixed_heap_hash(bool portable)
{
    cr_world *w = world_of(SPHERE_KERNEL, 0.0, 1);
    assert_int_equal(cr_rigid_ensure(w), CR_OK);
    w->rigid->substep_portable = portable;
    return heap_hash_of(w, 150, 21, true);
}

static void test_lanes_leave_resisting_runs(void **state)
{
    (void)state;
    uint64_t lanes = mixed_heap_hash(false), plain = mixed_heap_hash(true);
    printf("boxes and resisting balls: hash %016llx with the lanes, %016llx plain (lanes here: %d)\n",
           (unsigned long long)lanes, (unsigned long long)plain, cr_use_avx2(false));
    assert_true(lanes == plain);
}

/* The resistance impulses warm-start the next step (cr_rigid_contact's
 * rest_roll) and so are kept by a checkpoint (version 6): the heap saved at
 * step 60, loaded and run to step 120 hashes as the run that never
 * stopped, on both kernels. */
static void test_checkpoint_keeps_resistance(void **state)
{
    (void)state;
    for (int solver = 0; solver < SOLVERS; ++solver) {
        cr_world *w = world_of(solver, 0.0, 1);
        add_plane(w, cr_v3_zero(), cr_v3(0, 0, 1));
        uint64_t seed = 9;
        for (int k = 0; k < 50; ++k)
            add_ball(w, cr_v3(0.11 * (k % 5), 0.11 * ((k / 5) % 5), R + 0.11 * (k / 25)),
                     test_rand_vec(&seed, -0.5, 0.5), test_rand_vec(&seed, -20, 20), NU);
        step_n(w, 60);
        unsigned char *data = NULL;
        size_t size = 0;
        char msg[256];
        assert_int_equal(cr_world_save_buffer(w, NULL, 0, &data, &size, msg, sizeof msg), CR_OK);
        cr_world *r = NULL;
        assert_int_equal(cr_world_load_buffer(data, size, NULL, &r, NULL, NULL, msg, sizeof msg), CR_OK);
        step_n(w, 60);
        step_n(r, 60);
        printf("%s: resisting balls, step 120 hash %016llx, restored at 60 %016llx\n", kernel(solver),
               (unsigned long long)cr_world_state_hash(w), (unsigned long long)cr_world_state_hash(r));
        assert_true(cr_world_state_hash(w) == cr_world_state_hash(r));
        free(data);
        cr_world_destroy(r);
        cr_world_destroy(w);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rolling_ball_stops_at_closed_form),
        cmocka_unit_test(test_spinning_ball_stops_and_sleeps),
        cmocka_unit_test(test_ball_on_slope),
        cmocka_unit_test(test_same_bits_on_threads),
        cmocka_unit_test(test_checkpoint_keeps_resistance),
        cmocka_unit_test(test_lanes_leave_resisting_runs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
