/* Benchmark of the seed 002 collision law (`stronge`): collisions per second
 * for the closed-form paths and for the integrated path, with the accuracy
 * of the integrated path at the default tolerance against a reference at
 * 1e-13, and the seed's own Euler algorithm for comparison of cost.
 *
 * usage: build/bench/bench_stronge [N]   (N random collisions per case, default 200000)
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "carom/carom.h"

static uint64_t rng_state = 12345;
static double uniform(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1.0p-53;
}
static double normal(void)
{
    double u = uniform(), v = uniform();
    return sqrt(-2.0 * log(1.0 - u)) * cos(6.283185307179586 * v);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

typedef struct problem {
    cr_mat3 K;
    cr_vec3 u0;
    double e, mu;
} problem;

/* kind 0: general (integrated), 1: sticking from the start (closed forms),
 * 2: mu = 0 (Newton), 3: 2D */
static problem make(int kind)
{
    problem p;
    cr_mat3 A;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) A.m[i][j] = normal();
    p.K = cr_m3_mul(A, cr_m3_transpose(A));
    for (int i = 0; i < 3; ++i) p.K.m[i][i] += 0.02;
    p.u0 = cr_v3(normal(), normal(), -fabs(normal()) - 0.05);
    p.e = uniform();
    p.mu = 2.0 * uniform();
    if (kind == 1) p.u0.x = p.u0.y = 0.0;
    if (kind == 2) p.mu = 0.0;
    if (kind == 3) { /* planar: the 2D law reads K[0][0], K[0][2], K[2][2] */
        p.K.m[0][1] = p.K.m[1][0] = p.K.m[1][2] = p.K.m[2][1] = 0.0;
    }
    return p;
}

static volatile double sink;

static void run_case(const char *name, int kind, int n, const cr_stronge_options *opt)
{
    problem *ps = malloc(sizeof *ps * (size_t)n);
    if (!ps) return;
    for (int i = 0; i < n; ++i) ps[i] = make(kind);
    long steps = 0;
    int failures = 0;
    double t0 = now();
    for (int i = 0; i < n; ++i) {
        cr_stronge_result r;
        cr_status st;
        if (kind == 3) {
            const double K2[2][2] = {{ps[i].K.m[0][0], ps[i].K.m[0][2]}, {ps[i].K.m[2][0], ps[i].K.m[2][2]}};
            const double u[2] = {ps[i].u0.x, ps[i].u0.z};
            st = cr_law_stronge_2d(K2, u, ps[i].e, ps[i].mu, &r, NULL, 0);
        } else {
            st = cr_law_stronge_contact_ex(ps[i].K, ps[i].u0, ps[i].e, ps[i].mu, opt, &r, NULL, 0);
        }
        if (st != CR_OK) failures++;
        steps += r.steps;
        sink = r.impulse.z;
    }
    double dt = now() - t0;
    printf("%-44s %12.0f collisions/s  %8.3f us each  mean steps %6.1f%s\n", name, n / dt, 1e6 * dt / n,
           (double)steps / n, failures ? "  (FAILURES)" : "");
    free(ps);
}

static void accuracy(int n, double tol)
{
    cr_stronge_options o = cr_default_stronge_options(), ref = o;
    o.tolerance = tol;
    ref.tolerance = 1e-13;
    double worst = 0.0, sum = 0.0;
    int maxsteps = 0;
    long steps = 0;
    for (int i = 0; i < n; ++i) {
        problem p = make(0);
        cr_stronge_result r, rr;
        cr_law_stronge_contact_ex(p.K, p.u0, p.e, p.mu, &o, &r, NULL, 0);
        cr_law_stronge_contact_ex(p.K, p.u0, p.e, p.mu, &ref, &rr, NULL, 0);
        double d = cr_v3_len(cr_v3_sub(r.impulse, rr.impulse)) / cr_v3_len(rr.impulse);
        worst = fmax(worst, d);
        sum += d;
        steps += r.steps;
        if (r.steps > maxsteps) maxsteps = r.steps;
    }
    printf("tolerance %-8.0e relative impulse error vs 1e-13: worst %.2e, mean %.2e; steps mean %.1f, max %d\n", tol,
           worst, sum / n, (double)steps / n, maxsteps);
}

/* The seed's §4 loop with a fixed Euler step delta (no sticking handling
 * needed for the timing: cases that reach sticking stop there). */
static void seed_euler_cost(int n, double rel_delta)
{
    double t0 = now();
    long total = 0;
    for (int i = 0; i < n; ++i) {
        problem p = make(0);
        double delta = rel_delta * -p.u0.z / p.K.m[2][2];
        cr_vec3 u = p.u0;
        double wc = 0, wd = 0;
        for (long it = 0; it < 100000000L; ++it) {
            double ut = hypot(u.x, u.y);
            if (ut < 1e-12) break;
            if (u.z < 0) wc += u.z * delta;
            else wd += u.z * delta;
            u = cr_v3_madd(u, cr_m3_mul_v(p.K, cr_v3(-p.mu * u.x / ut, -p.mu * u.y / ut, 1.0)), delta);
            total++;
            if (wd >= -p.e * p.e * wc) break;
        }
        sink = u.z;
    }
    double dt = now() - t0;
    printf("seed 002 §4 Euler, delta = %.0e |u0_z|/K33:     %12.0f collisions/s  %8.1f us each  mean steps %.0f "
           "(error ~ delta)\n", rel_delta, n / dt, 1e6 * dt / n, (double)total / n);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 200000;
    if (n < 1) n = 1;
    cr_stronge_options def = cr_default_stronge_options();
    printf("carom %s, law stronge (seed 002), %d random collisions per case\n\n", CAROM_VERSION_STRING, n);
    run_case("2D closed form (§5.2)", 3, n, &def);
    run_case("3D mu = 0 (Newton, closed form)", 2, n, &def);
    run_case("3D sticking from the start (§3.6/§3.9)", 1, n, &def);
    run_case("3D general, integrated (tolerance 1e-10)", 0, n, &def);
    cr_stronge_options loose = def;
    loose.tolerance = 1e-7;
    run_case("3D general, integrated (tolerance 1e-7)", 0, n, &loose);
    printf("\n");
    int na = n / 20 > 100 ? n / 20 : 100;
    accuracy(na, 1e-7);
    accuracy(na, 1e-10);
    printf("\n");
    seed_euler_cost(n / 2000 > 10 ? n / 2000 : 10, 1e-5);
    return 0;
}
