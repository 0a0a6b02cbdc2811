/* Determinism: the same scene gives bit-identical states run after run
 * (-ffp-contract=off, stable orders, deterministic tie-breaking), in both
 * methods, through a pile's many contacts and impacts. */
#include <string.h>

#include "test_helpers.h"

static uint64_t run_pit(cr_method method, int steps)
{
    cr_world_def def = cr_default_world_def();
    def.dt = 1.0 / 240.0;
    def.method = method;
    cr_world *w = make_world_def(&def);
    add_plane(w, cr_v3_zero(), cr_v3(0, 0, 1));
    add_plane(w, cr_v3(-0.5, 0, 0), cr_v3(1, 0, 0));
    add_plane(w, cr_v3(0.5, 0, 0), cr_v3(-1, 0, 0));
    add_plane(w, cr_v3(0, -0.5, 0), cr_v3(0, 1, 0));
    add_plane(w, cr_v3(0, 0.5, 0), cr_v3(0, -1, 0));
    uint64_t seed = 1;
    for (int i = 0; i < 400; ++i) {
        cr_vec3 x = cr_v3(-0.4 + 0.1 * (i % 9) + test_rand(&seed, -0.004, 0.004),
                          -0.4 + 0.1 * ((i / 9) % 9) + test_rand(&seed, -0.004, 0.004), 0.06 + 0.11 * (i / 81));
        add_sphere(w, x, cr_v3_zero(), 0.045, 0.5, CR_INERTIA_SOLID, 0.5, 0.3);
    }
    step_n(w, steps);
    uint64_t h = cr_world_state_hash(w);
    cr_world_destroy(w);
    return h;
}

static void test_repeatable(void **state)
{
    (void)state;
    assert_true(run_pit(CR_METHOD_IMPULSE, 200) == run_pit(CR_METHOD_IMPULSE, 200));
    assert_true(run_pit(CR_METHOD_EVENT, 100) == run_pit(CR_METHOD_EVENT, 100));
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_repeatable)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
