/* Shared set-up for the cmocka tests: small worlds built in a few lines. */
#ifndef CAROM_TEST_HELPERS_H
#define CAROM_TEST_HELPERS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "carom/carom.h"

static inline cr_world *make_world(cr_vec3 gravity, double dt, cr_method method)
{
    cr_world_def def = cr_default_world_def();
    def.gravity = gravity;
    def.dt = dt;
    def.method = method;
    cr_world *w = NULL;
    assert_int_equal(cr_world_create(&def, &w), CR_OK);
    return w;
}

static inline cr_world *make_world_def(const cr_world_def *def)
{
    cr_world *w = NULL;
    assert_int_equal(cr_world_create(def, &w), CR_OK);
    return w;
}

/* A CR_METHOD_DEM world: Hooke with history, kt = 2/7 kn, no tangential
 * damping, mu = 0.5 (tests change what they need). */
static inline cr_world_def test_dem_def(double dt, cr_vec3 gravity, double kn, double gamma_n)
{
    cr_world_def d = cr_default_world_def();
    d.method = CR_METHOD_DEM;
    d.dt = dt;
    d.gravity = gravity;
    d.hooke.kn = kn;
    d.hooke.kt = 2.0 / 7.0 * kn;
    d.hooke.gamma_n = gamma_n;
    d.hooke.gamma_t = 0.0;
    d.hooke.mu = 0.5;
    return d;
}

static inline cr_static_id add_plane(cr_world *w, cr_vec3 point, cr_vec3 normal)
{
    cr_plane_def p = cr_default_plane_def();
    p.point = point;
    p.normal = normal;
    cr_static_id id;
    assert_int_equal(cr_world_add_plane(w, &p, &id), CR_OK);
    return id;
}

/* The ground as a seed 004 surface: the plane z = 0 (a CR_SURFACE_PLANE
 * that balls are bound to, not a wall), normal +z, friction 1. */
static inline void add_flat_surface(cr_world *w)
{
    cr_surface_def sd = cr_default_surface_def();
    sd.type = CR_SURFACE_PLANE;
    sd.point = cr_v3(0, 0, 0);
    sd.normal = cr_v3(0, 0, 1);
    sd.friction = 1.0;
    assert_int_equal(cr_world_add_surface(w, &sd, NULL), CR_OK);
}

/* The four side walls x = +-half, y = +-half, facing in (in that order:
 * -x, +x, -y, +y). */
/* A seed 004 event-method world at 60 Hz on a bowl (a sphere's inside) of
 * the given radius whose lowest point is the origin, friction 1. */
static inline cr_world *make_bowl_world(double radius)
{
    cr_world_def wd = cr_default_world_def();
    wd.dt = 1.0 / 60.0;
    wd.method = CR_METHOD_EVENT;
    cr_world *w = make_world_def(&wd);
    cr_surface_def sd = cr_default_surface_def();
    sd.type = CR_SURFACE_BOWL;
    sd.center = cr_v3(0, 0, radius);
    sd.radius = radius;
    sd.friction = 1.0;
    assert_int_equal(cr_world_add_surface(w, &sd, NULL), CR_OK);
    return w;
}

/* A seed 004 hills surface of the count bumps h (kept by the caller until
 * the surface is added or created) over [-half, half]^2: the caller sets
 * the rest (friction, waves) and adds it. */
static inline cr_surface_def hills_def(const cr_hill *h, uint32_t count, double half)
{
    cr_surface_def sd = cr_default_surface_def();
    sd.type = CR_SURFACE_HILLS;
    sd.u_min = sd.v_min = -half;
    sd.u_max = sd.v_max = half;
    sd.hills = h;
    sd.hill_count = count;
    return sd;
}

static inline void add_side_walls(cr_world *w, double half)
{
    add_plane(w, cr_v3(-half, 0, 0), cr_v3(1, 0, 0));
    add_plane(w, cr_v3(half, 0, 0), cr_v3(-1, 0, 0));
    add_plane(w, cr_v3(0, -half, 0), cr_v3(0, 1, 0));
    add_plane(w, cr_v3(0, half, 0), cr_v3(0, -1, 0));
}

static inline cr_body_id add_sphere(cr_world *w, cr_vec3 x, cr_vec3 v, double r, double m, cr_inertia_kind inertia,
                                    double e, double mu)
{
    cr_body_def d = cr_default_body_def();
    d.position = x;
    d.velocity = v;
    d.radius = r;
    d.mass = m;
    d.inertia_kind = inertia;
    d.restitution = e;
    d.friction = mu;
    cr_body_id id;
    assert_int_equal(cr_world_add_body(w, &d, &id), CR_OK);
    return id;
}

static inline cr_body_state state_of(cr_world *w, cr_body_id id)
{
    cr_body_state s;
    assert_int_equal(cr_body_get_state(w, id, &s), CR_OK);
    return s;
}

static inline void step_n(cr_world *w, long n)
{
    for (long i = 0; i < n; ++i) assert_int_equal(cr_world_step(w), CR_OK);
}

/* Tolerance check that prints both values on failure. */
#define assert_near(actual, expected, tol)                                                                   \
    do {                                                                                                     \
        double a_ = (actual), e_ = (expected), t_ = (tol);                                                   \
        if (!(fabs(a_ - e_) <= t_)) fail_msg("%s = %.17g, expected %.17g within %.3g", #actual, a_, e_, t_); \
    } while (0)

/* Deterministic generator for random cases (splitmix64). */
static inline uint64_t test_rand_u64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static inline double test_rand(uint64_t *s, double lo, double hi)
{
    return lo + (hi - lo) * (double)(test_rand_u64(s) >> 11) * (1.0 / 9007199254740992.0);
}
static inline cr_vec3 test_rand_vec(uint64_t *s, double lo, double hi)
{
    double x = test_rand(s, lo, hi), y = test_rand(s, lo, hi); /* sequenced: argument order is unspecified */
    return cr_v3(x, y, test_rand(s, lo, hi));
}

/* The boiling scene's hills (bench/boiling_scene.h) on a side x side
 * lattice from (first, first), 1 m apart, alternately hollows and hills,
 * plus its waves, over [-half, half]^2; h holds side^2 bumps. */
static inline cr_surface_def test_boiling_hills(cr_hill *h, int side, double first, double half)
{
    for (int i = 0; i < side; ++i)
        for (int j = 0; j < side; ++j) h[i * side + j] = (cr_hill){(i + j) % 2 ? 0.2 : -0.12, first + i, first + j, 0.3};
    cr_surface_def d = hills_def(h, (uint32_t)(side * side), half);
    d.wave_amplitude = 0.03;
    d.wave_length_x = 0.9;
    d.wave_length_y = 1.1;
    return d;
}

/* A task system (cr_world_def.enqueue_task) that runs the items
 * backwards, one at a time, counting its calls in *user_ctx; the order and
 * split of work items must not change a bit. It never defers, so
 * finish_task is never called. */
static inline void *test_reverse_enqueue(cr_task_fn *task, uint32_t count, uint32_t min_range, void *task_ctx,
                                         void *user_ctx)
{
    (void)min_range;
    ++*(int *)user_ctx;
    for (uint32_t i = count; i > 0; --i) task(i - 1, i, 0, task_ctx);
    return NULL;
}

static inline void test_never_finish(void *task, void *user_ctx)
{
    (void)task, (void)user_ctx;
    fail();
}

/* Threads for a world: workers of carom's own, or (enqueued not NULL) the
 * backwards task system above, counting its calls in *enqueued. */
static inline void test_use_tasks(cr_world_def *d, uint32_t workers, int *enqueued)
{
    d->worker_count = workers;
    if (enqueued) {
        d->enqueue_task = test_reverse_enqueue;
        d->finish_task = test_never_finish;
        d->user_task_context = enqueued;
    }
}

#endif
