/* 1,000 spheres with e = 1, mu = 0 and no gravity in a closed box for 10 s
 * (issue 2): relative energy drift under 1e-9 with the event method, no
 * overlap at any sample, momentum conserved in every sphere-sphere impact. */
#include "test_helpers.h"

typedef struct impact_log {
    long pair_impacts, wall_impacts;
    double worst_momentum_error; /* |m_a dv_a + m_b dv_b| / (m |v_rel|) */
} impact_log;

static void on_impact(const cr_impact *im, void *ctx)
{
    impact_log *log = ctx;
    if (im->b.generation == 0) {
        log->wall_impacts++;
        return;
    }
    log->pair_impacts++;
    const double m = 0.2; /* every sphere's mass */
    cr_vec3 dp = cr_v3_add(cr_v3_scale(cr_v3_sub(im->va_after, im->va_before), m),
                           cr_v3_scale(cr_v3_sub(im->vb_after, im->vb_before), m));
    double scale = m * cr_v3_len(cr_v3_sub(im->va_before, im->vb_before));
    double err = scale > 0.0 ? cr_v3_len(dp) / scale : cr_v3_len(dp);
    if (err > log->worst_momentum_error) log->worst_momentum_error = err;
}

static void test_elastic_gas(void **state)
{
    (void)state;
    impact_log log = {0, 0, 0.0};
    cr_world_def def = cr_default_world_def();
    def.gravity = cr_v3_zero();
    def.dt = 0.01;
    def.method = CR_METHOD_EVENT;
    def.on_impact = on_impact;
    def.callback_ctx = &log;
    cr_world *w = make_world_def(&def);
    const double half = 1.0, r = 0.04;
    add_side_walls(w, half);
    add_plane(w, cr_v3(0, 0, -half), cr_v3(0, 0, 1));
    add_plane(w, cr_v3(0, 0, half), cr_v3(0, 0, -1));
    uint64_t seed = 42;
    for (int i = 0; i < 10; ++i)
        for (int j = 0; j < 10; ++j)
            for (int k = 0; k < 10; ++k) {
                cr_vec3 x = cr_v3(-0.9 + 0.2 * i, -0.9 + 0.2 * j, -0.9 + 0.2 * k);
                add_sphere(w, x, test_rand_vec(&seed, -1.0, 1.0), r, 0.2, CR_INERTIA_SOLID, 1.0, 0.0);
            }
    double e0 = cr_world_energy(w).total;
    double worst_drift = 0.0, worst_overlap = 0.0;
    for (int i = 0; i < 1000; ++i) {
        assert_int_equal(cr_world_step(w), CR_OK);
        if (i % 10 == 9) { /* every sample of a 0.1 s output */
            worst_drift = fmax(worst_drift, fabs(cr_world_energy(w).total - e0) / e0);
            worst_overlap = fmax(worst_overlap, cr_world_max_overlap(w, NULL, NULL));
        }
    }
    print_message("gas: %ld sphere impacts, %ld wall impacts, drift %.3g, overlap %.3g m, momentum err %.3g\n",
                  log.pair_impacts, log.wall_impacts, worst_drift, worst_overlap, log.worst_momentum_error);
    assert_true(log.pair_impacts > 1000); /* the test means something only if they collide */
    assert_true(worst_drift < 1e-9);
    assert_true(worst_overlap <= 1e-12);
    assert_true(log.worst_momentum_error < 1e-12);
    cr_world_destroy(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_elastic_gas)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
