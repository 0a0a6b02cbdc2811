/* carom side of the side-by-side benchmark, through the public C API only.
 *
 * Settings: the world's defaults (impulse method, Newton law, k_p = 0.8,
 * 10 Gauss-Seidel passes, resting speed 2 |g| dt) with dt = 1/240. carom
 * combines two sides' restitution and friction by their product, so every
 * body and plane gets sqrt(e) and sqrt(mu): each contact then has e = 0.5 and
 * mu = 0.3, as in the peers. (bench/ball_pit.c gives the bodies e and mu
 * themselves, so its sphere-sphere contacts have e = 0.25 and mu = 0.09.)
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carom/carom.h"
#include "../bench_args.h"
#include "scene.h"

/* One step of w, timed: its wall and CPU seconds added to *stepping and
 * *cpu, its contacts to *contacts; false (said on stderr) when it fails. */
static bool timed_step(cr_world *w, double *stepping, double *cpu, double *contacts)
{
    double t0 = peer_now(), c0 = peer_cpu_now();
    cr_status st = cr_world_step(w);
    *stepping += peer_now() - t0;
    *cpu += peer_cpu_now() - c0;
    if (st != CR_OK) {
        fprintf(stderr, "carom: step failed: %s\n", cr_world_last_error(w));
        return false;
    }
    *contacts += cr_world_stats(w)->contacts;
    return true;
}

/* With CAROM_PIT_SUBSTEPS = S > 0 the pit runs the sub-stepped soft
 * contact solver (rigid_substeps S) instead of the impulse method;
 * CAROM_PIT_ITERATIONS its substep_iterations, CAROM_PIT_HERTZ its
 * contact_hertz, CAROM_PIT_DAMPING its contact_damping_ratio. */
static int run_pit(const char *prog, int n, double cap, int threads)
{
    int substeps = 0, iterations = 0, hertz = 0, damping = -1, last = PEER_STEPS;
    /* CAROM_PIT_STEPS: stop after that many steps (the span a capped peer
     * ran, to compare over the same simulated time) */
    if (!bench_env_int(prog, "CAROM_PIT_STEPS", 1, PEER_STEPS, &last) ||
        !bench_env_int(prog, "CAROM_PIT_SUBSTEPS", 0, 64, &substeps) ||
        !bench_env_int(prog, "CAROM_PIT_ITERATIONS", 1, 1000, &iterations) ||
        !bench_env_int(prog, "CAROM_PIT_HERTZ", 1, 100000, &hertz) ||
        !bench_env_int(prog, "CAROM_PIT_DAMPING", 0, 1000, &damping))
        return 2;
    pit_scene s;
    if (pit_build(&s, n)) return 1;
    double t_setup = peer_now();
    cr_world_def def = cr_default_world_def();
    def.dt = PEER_DT;
    def.gravity = cr_v3(0, 0, -PEER_GRAVITY);
    def.worker_count = (uint32_t)threads; /* carom's own thread pool when > 1 */
    def.rigid_substeps = substeps;
    if (iterations > 0) def.substep_iterations = iterations;
    if (hertz > 0) def.contact_hertz = hertz;
    if (damping >= 0) def.contact_damping_ratio = damping;
    cr_world *w;
    if (cr_world_create(&def, &w) != CR_OK) return 1;
    double pp[5][3], pn[5][3];
    pit_planes(&s, pp, pn);
    cr_plane_def p = cr_default_plane_def();
    p.restitution = sqrt(PIT_RESTITUTION);
    p.friction = sqrt(PIT_FRICTION);
    for (int k = 0; k < 5; ++k) {
        p.point = cr_v3(pp[k][0], pp[k][1], pp[k][2]);
        p.normal = cr_v3(pn[k][0], pn[k][1], pn[k][2]);
        if (cr_world_add_plane(w, &p, NULL) != CR_OK) return 1;
    }
    cr_body_def d = cr_default_body_def();
    d.radius = PIT_RADIUS;
    d.mass = PIT_MASS;
    d.inertia_kind = CR_INERTIA_SOLID;
    d.restitution = sqrt(PIT_RESTITUTION);
    d.friction = sqrt(PIT_FRICTION);
    cr_body_id *ids = malloc(sizeof *ids * (size_t)n);
    double *pos = malloc(sizeof(double) * 3 * (size_t)n), *vel = malloc(sizeof(double) * 3 * (size_t)n),
           *ang = malloc(sizeof(double) * 3 * (size_t)n);
    if (!ids || !pos || !vel || !ang) return 1;
    for (int i = 0; i < n; ++i) {
        d.position = cr_v3(s.pos[3 * i], s.pos[3 * i + 1], s.pos[3 * i + 2]);
        if (cr_world_add_body(w, &d, &ids[i]) != CR_OK) {
            fprintf(stderr, "carom: %s\n", cr_world_last_error(w));
            return 1;
        }
    }
    t_setup = peer_now() - t_setup;

    overlap_grid g = {0};
    double stepping = 0.0, cpu = 0.0, max_pen = 0.0, contacts = 0.0, stage[CR_STAGE_COUNT] = {0};
    int steps = 0, lost = 0;
    while (steps < last && stepping < cap) {
        if (!timed_step(w, &stepping, &cpu, &contacts)) return 1;
        ++steps;
        for (int k = 0; k < CR_STAGE_COUNT; ++k) stage[k] += cr_world_stats(w)->stage_seconds[k];
        for (int i = 0; i < n; ++i) {
            cr_body_state bs;
            cr_body_get_state(w, ids[i], &bs);
            pos[3 * i] = bs.position.x, pos[3 * i + 1] = bs.position.y, pos[3 * i + 2] = bs.position.z;
            vel[3 * i] = bs.velocity.x, vel[3 * i + 1] = bs.velocity.y, vel[3 * i + 2] = bs.velocity.z;
            ang[3 * i] = bs.angular_velocity.x, ang[3 * i + 1] = bs.angular_velocity.y,
                    ang[3 * i + 2] = bs.angular_velocity.z;
        }
        double pen = pit_max_overlap(&g, &s, pos, &lost);
        if (pen > max_pen) max_pen = pen;
    }
    peer_result r = {"carom", "pit", n, n, steps, PEER_STEPS, stepping, cpu, t_setup, max_pen, "geom", lost,
                     pit_kinetic(n, vel, ang), -1.0, contacts / (steps ? steps : 1), -1, -1.0};
    if (substeps > 0)
        printf("NOTE carom rigid_substeps=%d substep_iterations=%d contact_hertz=%g\n", substeps,
               def.substep_iterations, def.contact_hertz);
    peer_print(&r);
    /* where the time went (wall time per stage; the sub-stepped solver is
     * the events stage), on stderr */
    fprintf(stderr, "carom pit stages (ms/step, %d threads): predict %.3f, broad %.3f, contacts %.3f, events %.3f, "
            "finish %.3f\n", threads, 1e3 * stage[CR_STAGE_PREDICT] / steps, 1e3 * stage[CR_STAGE_BROAD_PHASE] / steps,
            1e3 * stage[CR_STAGE_CONTACTS] / steps, 1e3 * stage[CR_STAGE_EVENTS] / steps,
            1e3 * stage[CR_STAGE_FINISH] / steps);
    overlap_grid_free(&g);
    cr_world_destroy(w);
    free(ids), free(pos), free(vel), free(ang);
    pit_free(&s);
    return 0;
}

/* The LAMMPS chute (scene.h): the same bodies, law, gravity, step and
 * periodic box as in.chute. Every ke_every steps (and at step 0) a line
 * "KE step=S trans=T rot=R" gives the kinetic energies as LAMMPS's thermo
 * "ke" (all atoms, 1/2 m v^2) and "c_1" (compute erotate/sphere, 1/2 I w^2,
 * I = 2/5 m r^2) print them. */
static void chute_ke(cr_world *w, const cr_body_id *ids, const chute_scene *s, int step)
{
    double ke = 0.0, rot = 0.0;
    for (int i = 0; i < s->n; ++i) {
        cr_body_state bs;
        cr_body_get_state(w, ids[i], &bs);
        double m = s->mass[i], r = s->radius[i];
        ke += 0.5 * m * cr_v3_len2(bs.velocity);
        rot += 0.5 * 0.4 * m * r * r * cr_v3_len2(bs.angular_velocity);
    }
    printf("KE step=%d trans=%.17g rot=%.17g\n", step, ke, rot);
}

/* With KE lines, at the end: "STATE hash=H", the world's state hash
 * (cr_world_state_hash: every body's position, velocity, angular velocity
 * and orientation bits), to tell whether two builds give the very same run
 * (bit for bit, not only the same energies). */
static void chute_state_hash(const cr_world *w)
{
    printf("STATE hash=%016llx\n", (unsigned long long)cr_world_state_hash(w));
}

static int run_chute(const char *path, int steps_planned, double cap, int ke_every, int threads)
{
    /* CAROM_CHUTE_MODEL=hertz: gran/hertz/history with the same numbers
     * (scripts/chute_hertz_check.sh runs LAMMPS so); hooke (default) */
    const char *model = getenv("CAROM_CHUTE_MODEL");
    if (model && strcmp(model, "hooke") != 0 && strcmp(model, "hertz") != 0) {
        fprintf(stderr, "CAROM_CHUTE_MODEL: \"%s\", expected \"hooke\" or \"hertz\"\n", model);
        return 2;
    }
    chute_scene s;
    if (chute_load(&s, path)) return 1;
    double t_setup = peer_now();
    cr_world_def def = cr_default_world_def();
    def.method = CR_METHOD_DEM;
    def.worker_count = (uint32_t)threads; /* carom's own thread pool when > 1 */
    def.dt = CHUTE_DT;
    double a = CHUTE_ANGLE_DEG * 3.14159265358979323846 / 180.0;
    def.gravity = cr_v3(sin(a), 0.0, -cos(a)); /* LAMMPS fix gravity 1.0 chute 26.0 */
    def.hooke.kn = CHUTE_KN;
    def.hooke.kt = CHUTE_KT;
    def.hooke.gamma_n = CHUTE_GAMMA_N;
    def.hooke.gamma_t = CHUTE_GAMMA_T;
    def.hooke.mu = CHUTE_MU;
    def.hooke.model = model && strcmp(model, "hertz") == 0 ? CR_DEM_HERTZ : CR_DEM_HOOKE;
    /* CAROM_CHUTE_ROLL="k_roll,gamma_roll,mu_roll": rolling resistance
     * (LAMMPS's rolling sds); unset: off */
    const char *roll = getenv("CAROM_CHUTE_ROLL");
    if (roll && sscanf(roll, "%lf,%lf,%lf", &def.hooke.k_roll, &def.hooke.gamma_roll, &def.hooke.mu_roll) != 3) {
        fprintf(stderr, "CAROM_CHUTE_ROLL: \"%s\", expected k_roll,gamma_roll,mu_roll\n", roll);
        return 2;
    }
    def.periodic.x = def.periodic.y = true; /* boundary p p fs */
    def.integrate_orientation = false; /* atom_style sphere keeps no orientation */
    def.periodic.lo = cr_v3(s.lo[0], s.lo[1], s.lo[2]);
    def.periodic.hi = cr_v3(s.hi[0], s.hi[1], s.hi[2]);
    cr_world *w;
    if (cr_world_create(&def, &w) != CR_OK) {
        fprintf(stderr, "carom: cannot create the world\n");
        return 1;
    }
    cr_body_id *ids = malloc(sizeof *ids * (size_t)s.n);
    if (!ids) return 1;
    cr_body_def d = cr_default_body_def();
    d.inertia_kind = CR_INERTIA_SOLID;
    for (int i = 0; i < s.n; ++i) {
        /* LAMMPS's frozen type (fix freeze) is a kinematic body at rest */
        d.type = s.type[i] == CHUTE_FROZEN_TYPE ? CR_BODY_KINEMATIC : CR_BODY_DYNAMIC;
        d.radius = s.radius[i];
        d.mass = s.mass[i];
        d.position = cr_v3(s.pos[3 * i], s.pos[3 * i + 1], s.pos[3 * i + 2]);
        d.velocity = d.type == CR_BODY_KINEMATIC ? cr_v3_zero() : cr_v3(s.vel[3 * i], s.vel[3 * i + 1], s.vel[3 * i + 2]);
        d.angular_velocity =
            d.type == CR_BODY_KINEMATIC ? cr_v3_zero() : cr_v3(s.ang[3 * i], s.ang[3 * i + 1], s.ang[3 * i + 2]);
        if (cr_world_add_body(w, &d, &ids[i]) != CR_OK) {
            fprintf(stderr, "carom: atom %ld: %s\n", s.id[i], cr_world_last_error(w));
            return 1;
        }
    }
    /* the list and the forces of the start, outside the steps' time, as
     * LAMMPS's set-up is outside its "Loop time" (counted in set-up here) */
    if (cr_world_prepare(w) != CR_OK) {
        fprintf(stderr, "carom: prepare failed: %s\n", cr_world_last_error(w));
        return 1;
    }
    t_setup = peer_now() - t_setup;
    if (ke_every > 0) chute_ke(w, ids, &s, 0);
    double stepping = 0.0, contacts = 0.0, stage[CR_STAGE_COUNT] = {0}, cpu = 0.0;
    int steps = 0;
    while (steps < steps_planned && stepping < cap) {
        if (!timed_step(w, &stepping, &cpu, &contacts)) return 1;
        ++steps;
        for (int k = 0; k < CR_STAGE_COUNT; ++k) stage[k] += cr_world_stats(w)->stage_seconds[k];
        if (ke_every > 0 && steps % ke_every == 0) chute_ke(w, ids, &s, steps);
    }
    if (ke_every > 0) chute_state_hash(w);
    /* quality: deepest overlap (pairs inside the box; cr_world_max_overlap
     * does not look across the periodic boundary), atoms lost (non-finite or
     * below the base), kinetic energy at the end */
    double pen = cr_world_max_overlap(w, NULL, NULL), ke = 0.0;
    int lost = 0;
    for (int i = 0; i < s.n; ++i) {
        cr_body_state bs;
        cr_body_get_state(w, ids[i], &bs);
        if (!cr_v3_isfinite(bs.position) || bs.position.z < s.lo[2] - 1.0) ++lost;
        ke += 0.5 * s.mass[i] * cr_v3_len2(bs.velocity) +
              0.5 * 0.4 * s.mass[i] * s.radius[i] * s.radius[i] * cr_v3_len2(bs.angular_velocity);
    }
    peer_result r = {"carom", "chute", s.n, s.n, steps, steps_planned, stepping, cpu, t_setup, pen, "geom", lost, ke, -1.0,
                     contacts / (steps ? steps : 1), -1, -1.0};
    peer_print(&r);
    /* where the time went (method dem, src/dem.c: the first half of the
     * step; list builds (the set-up is cr_world_prepare's, above); pair
     * forces; the force sums and the second half kick), on stderr */
    fprintf(stderr, "carom chute stages (ms/step, %d threads): move %.3f, list %.3f, pairs %.3f, finish %.3f; "
            "process CPU time of the steps %.4f s\n",
            threads, 1e3 * stage[CR_STAGE_PREDICT] / steps, 1e3 * stage[CR_STAGE_BROAD_PHASE] / steps,
            1e3 * stage[CR_STAGE_CONTACTS] / steps, 1e3 * stage[CR_STAGE_FINISH] / steps, cpu);
    cr_world_destroy(w);
    free(ids);
    chute_free(&s);
    return 0;
}

/* The box pyramid (scene.h): cubes on a plane through seed 003's rigid-body
 * pipeline, with carom's own defaults (k_p 0.8, resting speed 2 |g| dt)
 * except pgs_iterations when given (> 0). With CAROM_PYR_SUBSTEPS = S > 0
 * the sub-stepped soft contact solver instead (rigid_substeps S; the
 * iterations given are its substep_iterations), CAROM_PYR_HERTZ its
 * contact_hertz; CAROM_PYR_THREADS = T > 1 carom's own thread pool of T
 * workers (worker_count; the same bits as on one). */
static int run_pyramid(const char *prog, int rows, double cap, int pgs_iterations)
{
    pyr_scene py = {0};
    int substeps = 0, hertz = 0, threads = 1;
    if (!bench_env_int(prog, "CAROM_PYR_SUBSTEPS", 0, 64, &substeps) ||
        !bench_env_int(prog, "CAROM_PYR_HERTZ", 1, 100000, &hertz) ||
        !bench_env_int(prog, "CAROM_PYR_THREADS", 1, 64, &threads))
        return 2;
    if (pyr_build(&py, rows)) return 1;
    int n = py.n;
    double t_setup = peer_now();
    cr_world_def def = cr_default_world_def();
    def.gravity = cr_v3(0, 0, -PEER_GRAVITY);
    def.dt = PEER_DT;
    def.rigid_substeps = substeps;
    def.worker_count = (uint32_t)threads;
    if (hertz > 0) def.contact_hertz = hertz;
    if (pgs_iterations > 0 && substeps > 0) def.substep_iterations = pgs_iterations;
    else if (pgs_iterations > 0) def.pgs_iterations = pgs_iterations;
    cr_world *w;
    if (cr_world_create(&def, &w) != CR_OK) return 1;
    cr_plane_def floor = cr_default_plane_def();
    cr_world_add_plane(w, &floor, NULL);
    cr_shape *cube;
    char msg[128];
    double h = 0.5 * PYR_EDGE;
    if (cr_shape_create_box(cr_v3(h, h, h), &cube, msg, sizeof msg) != CR_OK) return 1;
    cr_body_def d = cr_default_body_def();
    d.shape = CR_SHAPE_BOX;
    d.shape_ref = cube;
    d.mass = PYR_MASS;
    d.restitution = PYR_RESTITUTION;
    d.friction = PYR_FRICTION;
    cr_body_id *ids = malloc(sizeof *ids * (size_t)n);
    double *pos = malloc(sizeof(double) * 3 * (size_t)n), *vel = malloc(sizeof(double) * 3 * (size_t)n),
           *ang = malloc(sizeof(double) * 3 * (size_t)n), *quat = malloc(sizeof(double) * 4 * (size_t)n);
    if (!ids || !pos || !vel || !ang || !quat) return 1;
    for (int i = 0; i < n; ++i) {
        d.position = cr_v3(py.pos[3 * i], py.pos[3 * i + 1], py.pos[3 * i + 2]);
        if (cr_world_add_body(w, &d, &ids[i]) != CR_OK) {
            fprintf(stderr, "carom: %s\n", cr_world_last_error(w));
            return 1;
        }
    }
    cr_shape_release(cube);
    t_setup = peer_now() - t_setup;
    overlap_grid g = {0};
    double stepping = 0.0, cpu = 0.0, contacts = 0.0, max_pen = 0.0, overlap = 0.0;
    int steps = 0;
    while (steps < PEER_STEPS && stepping < cap) {
        if (!timed_step(w, &stepping, &cpu, &contacts)) return 1;
        ++steps;
        if (cr_world_stats(w)->max_penetration > max_pen) max_pen = cr_world_stats(w)->max_penetration;
        for (int i = 0; i < n; ++i) {
            cr_body_state bs;
            cr_body_get_state(w, ids[i], &bs);
            double v[13] = {bs.position.x,         bs.position.y,         bs.position.z,    bs.velocity.x,
                            bs.velocity.y,         bs.velocity.z,         bs.angular_velocity.x,
                            bs.angular_velocity.y, bs.angular_velocity.z, bs.orientation.w, bs.orientation.x,
                            bs.orientation.y,      bs.orientation.z};
            for (int k = 0; k < 3; ++k) pos[3 * i + k] = v[k], vel[3 * i + k] = v[3 + k], ang[3 * i + k] = v[6 + k];
            for (int k = 0; k < 4; ++k) quat[4 * i + k] = v[9 + k];
        }
        double ov = pyr_max_overlap(&g, &py, pos, quat);
        if (ov > overlap) overlap = ov;
    }
    peer_result r = {"carom", "pyramid", rows, n, steps, PEER_STEPS, stepping, cpu, t_setup, max_pen, "contact", 0, 0.0,
                     -1.0, contacts / (steps ? steps : 1), -1, overlap};
    r.ke = pyr_kinetic(n, vel, ang);
    r.drift = pyr_max_drift(&py, pos, &r.lost);
    if (substeps > 0)
        printf("NOTE carom rigid_substeps=%d substep_iterations=%d contact_hertz=%g threads=%d\n", substeps,
               def.substep_iterations, def.contact_hertz, threads);
    else if (pgs_iterations > 0)
        printf("NOTE carom pgs_iterations=%d\n", pgs_iterations);
    peer_print(&r);
    overlap_grid_free(&g);
    cr_world_destroy(w);
    free(ids), free(pos), free(vel), free(ang), free(quat);
    pyr_free(&py);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "chute")) {
        if (argc < 5 || atoi(argv[3]) < 1 || !(atof(argv[4]) > 0.0)) {
            fprintf(stderr, "usage: %s chute DATA_FILE STEPS CAP_SECONDS [KE_EVERY [THREADS]]\n", argv[0]);
            return 2;
        }
        int threads = argc > 6 ? atoi(argv[6]) : 1;
        if (threads < 1 || threads > 64) {
            fprintf(stderr, "%s chute: THREADS must be in [1, 64]\n", argv[0]);
            return 2;
        }
        return run_chute(argv[2], atoi(argv[3]), atof(argv[4]), argc > 5 ? atoi(argv[5]) : 0, threads);
    }
    /* peer_carom pit N CAP THREADS: the pit on carom's own thread pool
     * (the same bits as on one thread) */
    int threads = 1;
    if (argc == 5 && strcmp(argv[1], "pit") == 0) {
        if (!bench_int(argv[0], "pit THREADS", argv[4], 1, 64, &threads)) return 2;
        argc = 4;
    }
    /* peer_carom pyramid ROWS CAP PGS_ITERATIONS: the pyramid with fewer
     * (or more) Gauss-Seidel passes than carom's default */
    int size, pgs;
    double cap;
    int scene = peer_args(argc, argv, &size, &cap, &pgs);
    if (scene < 0) return 2;
    if (scene == 1) return run_pyramid(argv[0], size, cap, pgs);
    return run_pit(argv[0], size, cap, threads);
}
