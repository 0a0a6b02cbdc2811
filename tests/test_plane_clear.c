/* The events stage's cheap plane bound (plane_event.h): over random balls
 * and planes (both methods, with and without gravity, tilted planes, fast
 * and slow balls, bodies part-way through the step), a path the bound calls
 * clear of a plane has no impact with it (cr_plane_impact_time: INFINITY)
 * and its gap stays above the touching gap at every sampled point. The
 * cases include balls placed so that the box's deepest corner is just clear
 * and just not, and the bound must rule out most far planes (it is the
 * point of it). */
#include <math.h>

#include "plane_event.h"
#include "test_helpers.h"

/* Body i's gap to plane k at time t of the step (seed 000 eq. 5.9). */
static double gap_at(const cr_world *w, uint32_t i, uint32_t k, double t)
{
    const cr_plane_def *pl = &w->planes.def[k];
    return cr_v3_dot(pl->normal, cr_v3_sub(cr_body_position_at(w, i, t), pl->point)) - w->bodies.radius[i];
}

/* Every body against every plane: the bound's claim checked; counts the
 * pairs called clear and those with an impact. */
static void check_world(cr_world *w, int *clear, int *impacts)
{
    const cr_bodies *b = &w->bodies;
    for (uint32_t i = 0; i < b->slot_count; ++i) {
        cr_path_bound pb;
        cr_path_bound_of(w, i, NULL, &pb);
        for (uint32_t k = 0; k < w->planes.count; ++k) {
            double t = cr_plane_impact_time(w, i, k);
            if (t != INFINITY) ++*impacts;
            if (!cr_plane_clear(w, k, &pb)) continue;
            ++*clear;
            assert_true(t == INFINITY);
            for (int s = 0; s <= 64; ++s) {
                double ts = b->t_local[i] + (w->def.dt - b->t_local[i]) * s / 64.0;
                assert_true(gap_at(w, i, k, ts) > cr_touching_gap(w, b->radius[i]));
            }
        }
    }
}

static void test_clear_paths_have_no_impact(void **state)
{
    (void)state;
    uint64_t seed = 404;
    int clear = 0, impacts = 0, pairs = 0;
    for (int round = 0; round < 60; ++round) {
        cr_method method = round % 2 ? CR_METHOD_EVENT : CR_METHOD_IMPULSE;
        cr_vec3 g = round % 3 == 0 ? cr_v3_zero() : test_rand_vec(&seed, -12.0, 12.0);
        cr_world *w = make_world(g, 0.01, method);
        for (int k = 0; k < 4; ++k) {
            cr_vec3 n = test_rand_vec(&seed, -1.0, 1.0);
            if (k == 0) n = cr_v3(0.0, 0.0, 1.0); /* an axis: the box's corner is the ball's nearest point */
            if (cr_v3_len(n) < 1e-3) n = cr_v3(1.0, 0.0, 0.0);
            add_plane(w, test_rand_vec(&seed, -1.0, 1.0), n);
        }
        for (int i = 0; i < 80; ++i) {
            double r = test_rand(&seed, 0.01, 0.2);
            cr_vec3 v = test_rand_vec(&seed, -1.0, 1.0);
            if (i % 5 == 0) v = cr_v3_scale(v, 40.0); /* paths of up to 0.4 in the step */
            add_sphere(w, test_rand_vec(&seed, -1.5, 1.5), v, r, 1.0, CR_INERTIA_SOLID, 0.5, 0.3);
        }
        cr_stage_predict(w);
        cr_bodies *b = &w->bodies;
        /* part-way through the step: the box and the impact time from there */
        for (uint32_t i = 0; i < b->slot_count; i += 3) b->t_local[i] = test_rand(&seed, 0.0, 0.9 * w->def.dt);
        check_world(w, &clear, &impacts);
        /* Each ball moved along plane k's normal so that its box's deepest
         * corner sits at the bound's threshold, a hair in front of it or
         * behind it, or within a few touching gaps of the plane on either
         * side (a bound that let those through would be caught). */
        for (uint32_t i = 0; i < b->slot_count; ++i) {
            uint32_t k = i % w->planes.count;
            const cr_plane_def *pl = &w->planes.def[k];
            cr_path_bound pb;
            cr_path_bound_of(w, i, NULL, &pb);
            cr_vec3 c = cr_v3(pl->normal.x >= 0.0 ? pb.lo.x : pb.hi.x, pl->normal.y >= 0.0 ? pb.lo.y : pb.hi.y,
                              pl->normal.z >= 0.0 ? pb.lo.z : pb.hi.z);
            double s = cr_v3_dot(pl->normal, cr_v3_sub(c, pl->point));
            double target = i % 2 ? pb.clear * (1.0 + test_rand(&seed, -1e-6, 1e-6))
                                  : cr_touching_gap(w, b->radius[i]) * test_rand(&seed, -1.5, 2.5);
            b->x[i] = cr_v3_madd(b->x[i], pl->normal, target - s);
        }
        check_world(w, &clear, &impacts);
        pairs += 2 * (int)(b->slot_count * w->planes.count);
        cr_world_destroy(w);
    }
    /* The bound did its job on many pairs, and many others had impacts to
     * find (which a wrong bound would have hidden). */
    assert_true(clear > pairs / 4);
    assert_true(impacts > pairs / 50);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clear_paths_have_no_impact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
