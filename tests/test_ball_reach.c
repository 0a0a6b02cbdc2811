/* cr_balls_apart (src/ball_reach.h), which lets an event group's run pass
 * over a body of another group whose box only its box's corner meets
 * (event_groups.c): closed-form cases (two balls across a diagonal whose
 * boxes overlap, a face neighbour, boxes too small or NaN), and over many
 * random pairs of swept balls: when it says apart, no two centres in the
 * shrunk boxes come within the radii and the gap (checked at random points
 * and at the boxes' nearest points); when it does not, the nearest points
 * do. */
#include <math.h>

#include "ball_reach.h"
#include "test_helpers.h"

static cr_vec3 lo_of(cr_vec3 c, double pad) { return cr_v3(c.x - pad, c.y - pad, c.z - pad); }
static cr_vec3 hi_of(cr_vec3 c, double pad) { return cr_v3(c.x + pad, c.y + pad, c.z + pad); }

static void test_closed_form(void **state)
{
    (void)state;
    /* two unit balls 1.5 sqrt(2) = 2.1213 apart across a diagonal: their
     * cubes overlap (x and y in [0.5, 1], z in [-1, 1]) */
    cr_vec3 a = cr_v3(0, 0, 0), b = cr_v3(1.5, 1.5, 0);
    assert_true(cr_balls_apart(lo_of(a, 1), hi_of(a, 1), 1, lo_of(b, 1), hi_of(b, 1), 1, 0.1));
    assert_true(cr_balls_apart(lo_of(b, 1), hi_of(b, 1), 1, lo_of(a, 1), hi_of(a, 1), 1, 0.1));
    assert_false(cr_balls_apart(lo_of(a, 1), hi_of(a, 1), 1, lo_of(b, 1), hi_of(b, 1), 1, 0.13)); /* 2.13 > 2.1213 */
    /* padded boxes: the pad beyond the radius is room to move */
    assert_false(cr_balls_apart(lo_of(a, 1.1), hi_of(a, 1.1), 1, lo_of(b, 1), hi_of(b, 1), 1, 0.0));
    /* a face neighbour just touching */
    cr_vec3 c = cr_v3(2, 0, 0);
    assert_false(cr_balls_apart(lo_of(a, 1), hi_of(a, 1), 1, lo_of(c, 1), hi_of(c, 1), 1, 0.0));
    cr_vec3 e = cr_v3(2.5, 0, 0);
    assert_true(cr_balls_apart(lo_of(a, 1), hi_of(a, 1), 1, lo_of(e, 1), hi_of(e, 1), 1, 0.4));
    assert_false(cr_balls_apart(lo_of(a, 1), hi_of(a, 1), 1, lo_of(e, 1), hi_of(e, 1), 1, 0.5));
    /* a box that cannot hold its ball, or NaN: no claim */
    cr_vec3 far = cr_v3(10, 10, 10);
    assert_false(cr_balls_apart(lo_of(a, 0.9), hi_of(a, 0.9), 1, lo_of(far, 1), hi_of(far, 1), 1, 0.0));
    assert_false(cr_balls_apart(lo_of(a, 1), hi_of(a, 1), 1, lo_of(far, 1), cr_v3(NAN, 11, 11), 1, 0.0));
    assert_true(cr_balls_apart(lo_of(a, 1), hi_of(a, 1), 1, lo_of(far, 1), hi_of(far, 1), 1, 0.0));
}

static uint64_t rng = 4242;
static double uniform(double lo, double hi)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return lo + (hi - lo) * (double)(rng >> 11) / 9007199254740992.0;
}

/* A ball's swept box: from a random centre on to a second one within its
 * diameter, padded by its radius and a little more. */
static void swept_box(double r, cr_vec3 *lo, cr_vec3 *hi)
{
    cr_vec3 x0 = cr_v3(uniform(-3, 3), uniform(-3, 3), uniform(-3, 3));
    cr_vec3 x1 = cr_v3(x0.x + uniform(-r, r), x0.y + uniform(-r, r), x0.z + uniform(-r, r));
    double pad = r * (1 + uniform(0, 0.05));
    *lo = cr_v3(fmin(x0.x, x1.x) - pad, fmin(x0.y, x1.y) - pad, fmin(x0.z, x1.z) - pad);
    *hi = cr_v3(fmax(x0.x, x1.x) + pad, fmax(x0.y, x1.y) + pad, fmax(x0.z, x1.z) + pad);
}

/* The nearest points of [a, b] and [c, d] along one axis. */
static void nearest(double a, double b, double c, double d, double *p, double *q)
{
    if (b < c) *p = b, *q = c;
    else if (d < a) *p = a, *q = d;
    else *p = *q = fmax(a, c);
}

static void test_random_pairs(void **state)
{
    (void)state;
    int apart = 0, near = 0, overlapping_apart = 0;
    for (int k = 0; k < 200000; ++k) {
        double ri = uniform(0.2, 1), rj = uniform(0.2, 1), gap = uniform(0, 0.1);
        cr_vec3 ilo, ihi, jlo, jhi;
        swept_box(ri, &ilo, &ihi);
        swept_box(rj, &jlo, &jhi);
        bool says = cr_balls_apart(ilo, ihi, ri, jlo, jhi, rj, gap);
        double reach = ri + rj + gap;
        double a[3] = {ilo.x + ri, ilo.y + ri, ilo.z + ri}, b[3] = {ihi.x - ri, ihi.y - ri, ihi.z - ri};
        double c[3] = {jlo.x + rj, jlo.y + rj, jlo.z + rj}, d[3] = {jhi.x - rj, jhi.y - rj, jhi.z - rj};
        double d2 = 0;
        for (int ax = 0; ax < 3; ++ax) {
            double p, q;
            nearest(a[ax], b[ax], c[ax], d[ax], &p, &q);
            d2 += (p - q) * (p - q);
        }
        if (says) {
            apart++;
            overlapping_apart += ilo.x <= jhi.x && jlo.x <= ihi.x && ilo.y <= jhi.y && jlo.y <= ihi.y &&
                                 ilo.z <= jhi.z && jlo.z <= ihi.z;
            if (!(d2 > reach * reach)) fail_msg("case %d: apart, but the nearest centres are %g from %g", k, sqrt(d2), reach);
            for (int s = 0; s < 4; ++s) { /* and any two centres */
                cr_vec3 pi = cr_v3(uniform(a[0], b[0]), uniform(a[1], b[1]), uniform(a[2], b[2]));
                cr_vec3 pj = cr_v3(uniform(c[0], d[0]), uniform(c[1], d[1]), uniform(c[2], d[2]));
                assert_true(cr_v3_len(cr_v3_sub(pi, pj)) > reach);
            }
        } else if (d2 > reach * reach) {
            fail_msg("case %d: not apart, but the nearest centres are %g from %g", k, sqrt(d2), reach);
        } else {
            near++;
        }
    }
    print_message("apart %d (%d of them with overlapping boxes), near %d\n", apart, overlapping_apart, near);
    assert_true(overlapping_apart > 100 && near > 100);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_closed_form),
        cmocka_unit_test(test_random_pairs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
