/* The Hertz-Mindlin law (cr_hooke.model CR_DEM_HERTZ) against LAMMPS's own
 * pair gran/hertz/history: the small chute of tests/dem_hertz_lammps.h
 * (scripts/make_hertz_fixture.py ran it in LAMMPS and stored its thermo)
 * built as the bench's chute is (bench/peers/peer_carom.c: type 2, LAMMPS's
 * fix freeze group, as kinematic bodies at rest; x and y periodic over the
 * data file's box; orientations not turned), with tangential damping
 * (gamma_t = gamma_n / 2) and sliding contacts. Both integrate the same
 * equations term for term, so the kinetic energies differ by rounding
 * only: translational (thermo ke) and rotational (compute erotate/sphere,
 * I = 2/5 m r^2) within 1e-10 relative at every step 0 .. 100, on 1 and 2
 * threads (the same bits). */
#include <math.h>
#include <string.h>

#include "dem_hertz_lammps.h"
#include "dem_roll_lammps.h"
#include "test_helpers.h"

/* pair gran/hertz/history 2e5 NULL 50 NULL 0.5 1, or with CR_DEM_HOOKE
 * gran/hooke/history's */
static cr_hooke lammps_hertz(cr_dem_model model)
{
    cr_hooke h = cr_default_world_def().hooke;
    h.kn = 200000.0;
    h.kt = 200000.0 * 2.0 / 7.0; /* LAMMPS's NULL: kn * 2.0/7.0 */
    h.gamma_n = 50.0;
    h.gamma_t = 0.5 * 50.0; /* NULL with dampflag 1 */
    h.mu = 0.5;
    h.model = model;
    return h;
}

/* tests/dem_roll_lammps.h's pair granular: hooke 2e5 50 damping
 * mass_velocity, tangential linear_history 2e5*2/7 0.5 0 (no friction),
 * rolling sds 2000 5 0.002; k_roll 0: the same without rolling. */
static cr_hooke lammps_roll(double k_roll)
{
    cr_hooke h = lammps_hertz(CR_DEM_HOOKE);
    h.mu = 0.0;
    h.k_roll = k_roll;
    h.gamma_roll = k_roll > 0.0 ? 5.0 : 0.0;
    h.mu_roll = k_roll > 0.0 ? 0.002 : 0.0;
    return h;
}

static cr_world *lammps_chute(uint32_t workers, const cr_hooke *hooke)
{
    cr_world_def d = cr_default_world_def();
    d.method = CR_METHOD_DEM;
    d.dt = 1e-4;
    const double a = 26.0 * 3.14159265358979323846 / 180.0;
    d.gravity = cr_v3(sin(a), 0.0, -cos(a)); /* fix gravity 1.0 chute 26.0 */
    d.hooke = *hooke;
    d.periodic.x = d.periodic.y = true;
    d.periodic.lo = cr_v3(lmp_lo[0], lmp_lo[1], lmp_lo[2]);
    d.periodic.hi = cr_v3(lmp_hi[0], lmp_hi[1], lmp_hi[2]);
    d.integrate_orientation = false;
    test_use_tasks(&d, workers, NULL);
    cr_world *w = make_world_def(&d);
    cr_body_def b = cr_default_body_def();
    b.inertia_kind = CR_INERTIA_SOLID;
    for (int i = 0; i < LMP_ATOMS; ++i) {
        const struct lmp_atom *at = &lmp_atoms[i];
        b.type = at->type == 2 ? CR_BODY_KINEMATIC : CR_BODY_DYNAMIC;
        b.radius = at->radius;
        b.mass = at->mass;
        b.position = cr_v3(at->x[0], at->x[1], at->x[2]);
        b.velocity = cr_v3(at->v[0], at->v[1], at->v[2]);
        b.angular_velocity = cr_v3(at->w[0], at->w[1], at->w[2]);
        assert_int_equal(cr_world_add_body(w, &b, NULL), CR_OK);
    }
    return w;
}

/* The largest relative difference of carom's kinetic energies from
 * LAMMPS's (lmp_ke: translational, rotational) over steps 0 .. 100; *hash:
 * the state at the end; w_end (when not NULL): every sphere's angular
 * velocity then. */
static double worst_difference(uint32_t workers, const cr_hooke *hooke, const double (*lmp_ke)[2], uint64_t *hash,
                               cr_vec3 *w_end)
{
    cr_world *w = lammps_chute(workers, hooke);
    double worst = 0.0;
    for (int step = 0; step <= LMP_STEPS; ++step) {
        if (step > 0) assert_int_equal(cr_world_step(w), CR_OK);
        double ke = 0.0, rot = 0.0;
        for (int i = 0; i < LMP_ATOMS; ++i) {
            cr_body_state s;
            assert_int_equal(cr_body_get_state(w, cr_world_body_at(w, (uint32_t)i), &s), CR_OK);
            const double m = lmp_atoms[i].mass, r = lmp_atoms[i].radius;
            ke += 0.5 * m * cr_v3_len2(s.velocity);
            rot += 0.5 * 0.4 * m * r * r * cr_v3_len2(s.angular_velocity);
        }
        worst = fmax(worst, fmax(fabs(ke - lmp_ke[step][0]) / lmp_ke[step][0],
                                 fabs(rot - lmp_ke[step][1]) / lmp_ke[step][1]));
    }
    for (int i = 0; w_end && i < LMP_ATOMS; ++i) {
        cr_body_state s;
        assert_int_equal(cr_body_get_state(w, cr_world_body_at(w, (uint32_t)i), &s), CR_OK);
        w_end[i] = s.angular_velocity;
    }
    *hash = cr_world_state_hash(w);
    cr_world_destroy(w);
    return worst;
}

static void test_hertz_matches_lammps(void **state)
{
    (void)state;
    uint64_t h1, h2, hooke;
    const cr_hooke hertz = lammps_hertz(CR_DEM_HERTZ), classic = lammps_hertz(CR_DEM_HOOKE);
    const double one = worst_difference(1, &hertz, lmp_ke, &h1, NULL),
                 two = worst_difference(2, &hertz, lmp_ke, &h2, NULL);
    /* the fixture tells the laws apart: Hooke's run is far from it */
    const double other = worst_difference(1, &classic, lmp_ke, &hooke, NULL);
    print_message("carom Hertz against LAMMPS gran/hertz/history: %.3g relative (1 thread), %.3g (2); "
                  "Hooke: %.3g\n", one, two, other);
    assert_true(one <= 1e-10);
    assert_true(h1 == h2 && one == two);
    assert_true(other > 1e-3);
}

/* Rolling resistance (cr_hooke.k_roll, src/dem_rolling.h) against LAMMPS's
 * pair granular rolling sds: the energies within 1e-10 relative at every
 * step and every angular velocity at step 100 within 1e-10 (absolute; they
 * are O(1)), on 1 and 2 threads; without rolling carom is far from it. */
static void test_rolling_matches_lammps(void **state)
{
    (void)state;
    uint64_t h1, h2, hoff;
    static cr_vec3 w1[LMP_ATOMS], w2[LMP_ATOMS];
    const cr_hooke on = lammps_roll(2000.0), off = lammps_roll(0.0);
    const double one = worst_difference(1, &on, lmp_roll_ke, &h1, w1),
                 two = worst_difference(2, &on, lmp_roll_ke, &h2, w2);
    const double other = worst_difference(1, &off, lmp_roll_ke, &hoff, NULL);
    double wmax = 0.0;
    for (int i = 0; i < LMP_ATOMS; ++i) {
        const cr_vec3 l = cr_v3(lmp_roll_w[i][0], lmp_roll_w[i][1], lmp_roll_w[i][2]);
        wmax = fmax(wmax, cr_v3_len(cr_v3_sub(w1[i], l)));
    }
    print_message("carom rolling against LAMMPS pair granular rolling sds: %.3g relative (1 thread), %.3g (2), "
                  "omega at step 100 within %.3g; without rolling: %.3g\n", one, two, wmax, other);
    assert_true(one <= 1e-10);
    assert_true(wmax <= 1e-10);
    assert_true(h1 == h2 && one == two && memcmp(w1, w2, sizeof w1) == 0);
    assert_true(other > 1e-3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hertz_matches_lammps),
        cmocka_unit_test(test_rolling_matches_lammps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
