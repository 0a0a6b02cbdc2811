/* MuJoCo side of the side-by-side benchmark (Debian's libmujoco-dev 2.2.2).
 *
 * Settings: MuJoCo's defaults -- semi-implicit Euler, warm start, solimp
 * 0.9 0.95 0.001, 100 iterations with tolerance 1e-8 (it stops early when
 * converged) -- with the CG solver, the one MuJoCo's documentation points to
 * for models with many degrees of freedom (Newton factorises an nv x nv
 * matrix), and elliptic friction cones (3 constraint rows per contact instead
 * of the pyramid's 4: see the buffer limit below). MuJoCo has no restitution
 * coefficient: its soft contact is a damped spring reached through solref =
 * (timeconst, dampratio); dampratio zeta is set so that an isolated spring-
 * damper rebounds with e, zeta = -ln e / sqrt(pi^2 + ln^2 e) (0.215 for
 * e = 0.5; 1 for e = 0), timeconst 0.02 s (the default). Friction: condim 3,
 * sliding mu (two geoms combine by the maximum; all are equal here).
 *
 * MuJoCo 2.2.2 allocates its constraint arrays densely from njmax and nv
 * (efc_J njmax x nv, efc_AR njmax x njmax) inside one buffer of at most
 * 2 GiB, so it can hold the contacts of about a thousand spheres and no
 * more: larger runs are skipped and say why.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mujoco/mujoco.h>

#include "peer_run.h"

static double damp_ratio(double e)
{
    if (e <= 0.0) return 1.0;
    double l = log(e);
    return -l / sqrt(3.14159265358979323846 * 3.14159265358979323846 + l * l);
}

static int run(int scene, int size, double cap)
{
    peer_run pr;
    if (peer_run_build(&pr, scene, size)) return 1;
    const int n = pr.n;
    const char *scene_name = pr.name;
    /* MuJoCo 2.2.2 keeps mjData's arrays in one buffer whose size is an int
     * (at most 2 GiB), and sizes the constraint Jacobian njmax x nv and the
     * constraint matrix njmax x njmax, dense: 24 nv njmax + 12 njmax^2 bytes.
     * Take the largest njmax that fits (with 10% to spare for the rest), and
     * skip the run when that cannot hold the contacts the scene needs: about
     * 2.5 per sphere in a settled pile, about 12 per cube in the pyramid
     * (box-box faces give up to 4 points, with the cubes below and beside),
     * 3 rows each (elliptic cone, condim 3). */
    const double nv = 6.0 * n, room = 0.9 * 2147483648.0;
    long njmax = (long)((-24.0 * nv + sqrt(576.0 * nv * nv + 48.0 * room)) / 24.0);
    long need = (long)(3.0 * (scene == 0 ? 2.5 : 12.0) * n);
    if (njmax < need) {
        char why[300];
        snprintf(why, sizeof why,
                 "MuJoCo 2.2.2 sizes its constraint arrays densely (njmax x nv and njmax^2) in one buffer of at most "
                 "2 GiB: it holds njmax = %ld rows at nv = %.0f, the scene needs about %ld",
                 njmax, nv, need);
        peer_skip("mujoco", scene_name, size, why);
        return 0;
    }
    if (njmax > 4 * need) njmax = 4 * need;
    /* the contact list is small (no njmax^2 term): let it hold more than the
     * rows can, so that an overflow shows as dropped constraints (CNSTRFULL) */
    long nconmax = njmax;

    double t_setup = peer_now();
    const double e = pr.e, mu = pr.mu;
    char path[] = "/tmp/carom_peer_mujoco_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) return 1;
    FILE *x = fdopen(fd, "w");
    fprintf(x, "<mujoco model=\"carom-%s\">\n", scene_name);
    fprintf(x, "  <option timestep=\"%.17g\" gravity=\"0 0 %.17g\" solver=\"CG\" cone=\"elliptic\"/>\n", PEER_DT,
            -PEER_GRAVITY);
    fprintf(x, "  <size nconmax=\"%ld\" njmax=\"%ld\"/>\n", nconmax, njmax);
    fprintf(x, "  <default><geom condim=\"3\" friction=\"%.17g 0 0\" solref=\"0.02 %.17g\"/></default>\n", mu,
            damp_ratio(e));
    fprintf(x, "  <worldbody>\n");
    if (scene == 0) {
        double pp[5][3], pn[5][3];
        pit_planes(&pr.pit, pp, pn);
        for (int k = 0; k < 5; ++k)
            fprintf(x, "    <geom type=\"plane\" size=\"0 0 1\" pos=\"%.17g %.17g %.17g\" zaxis=\"%g %g %g\"/>\n",
                    pp[k][0], pp[k][1], pp[k][2], pn[k][0], pn[k][1], pn[k][2]);
        for (int i = 0; i < n; ++i)
            fprintf(x,
                    "    <body pos=\"%.17g %.17g %.17g\"><freejoint/>"
                    "<geom type=\"sphere\" size=\"%.17g\" mass=\"%.17g\"/></body>\n",
                    pr.start[3 * i], pr.start[3 * i + 1], pr.start[3 * i + 2], PIT_RADIUS, PIT_MASS);
    } else {
        fprintf(x, "    <geom type=\"plane\" size=\"0 0 1\"/>\n");
        for (int i = 0; i < n; ++i)
            fprintf(x,
                    "    <body pos=\"%.17g %.17g %.17g\"><freejoint/>"
                    "<geom type=\"box\" size=\"%.17g %.17g %.17g\" mass=\"%.17g\"/></body>\n",
                    pr.start[3 * i], pr.start[3 * i + 1], pr.start[3 * i + 2], 0.5 * PYR_EDGE, 0.5 * PYR_EDGE,
                    0.5 * PYR_EDGE, PYR_MASS);
    }
    fprintf(x, "  </worldbody>\n</mujoco>\n");
    fclose(x);
    char err[1000] = "";
    mjModel *m = mj_loadXML(path, NULL, err, sizeof err);
    unlink(path);
    if (!m) {
        fprintf(stderr, "mujoco: %s\n", err);
        return 1;
    }
    mjData *d = mj_makeData(m);
    if (!d) {
        fprintf(stderr, "mujoco: mj_makeData failed\n");
        return 1;
    }
    t_setup = peer_now() - t_setup;

    double *pos = malloc(sizeof(double) * 3 * (size_t)n), *vel = malloc(sizeof(double) * 3 * (size_t)n),
           *ang = malloc(sizeof(double) * 3 * (size_t)n), *quat = malloc(sizeof(double) * 4 * (size_t)n);
    if (!pos || !vel || !ang || !quat) return 1;
    double stepping = 0.0, cpu = 0.0, contacts = 0.0;
    int steps = 0;
    while (steps < PEER_STEPS && stepping < cap) {
        double t0 = peer_now(), c0 = peer_cpu_now();
        mj_step(m, d);
        stepping += peer_now() - t0;
        cpu += peer_cpu_now() - c0;
        ++steps;
        contacts += d->ncon;
        double deepest = 0.0;
        for (int c = 0; c < d->ncon; ++c)
            if (-d->contact[c].dist > deepest) deepest = -d->contact[c].dist;
        /* free joints: qpos = (x, quat), qvel = (v world, w local); |w| is
         * the same in any frame and the inertia is isotropic for both shapes */
        for (int i = 0; i < n; ++i) {
            for (int k = 0; k < 3; ++k) {
                pos[3 * i + k] = d->qpos[7 * i + k];
                vel[3 * i + k] = d->qvel[6 * i + k];
                ang[3 * i + k] = d->qvel[6 * i + 3 + k];
            }
            for (int k = 0; k < 4; ++k) quat[4 * i + k] = d->qpos[7 * i + 3 + k]; /* w, x, y, z */
        }
        peer_run_measure(&pr, pos, quat, deepest);
    }
    long warnings = 0;
    for (int k = 0; k < mjNWARNING; ++k) warnings += d->warning[k].number;
    peer_result r = peer_run_result(&pr, "mujoco", steps, stepping, cpu, t_setup, contacts, warnings, pos, vel, ang);
    printf("NOTE mujoco solver=CG cone=elliptic iterations=%d tolerance=%g solref=(0.02,%.4f) nconmax=%d njmax=%d "
           "maxuse_con=%d maxuse_efc=%d contactfull=%d cnstrfull=%d badqacc=%d\n",
           m->opt.iterations, m->opt.tolerance, damp_ratio(e), m->nconmax, m->njmax, d->maxuse_con, d->maxuse_efc,
           d->warning[mjWARN_CONTACTFULL].number, d->warning[mjWARN_CNSTRFULL].number,
           d->warning[mjWARN_BADQACC].number);
    peer_print(&r);
    mj_deleteData(d);
    mj_deleteModel(m);
    free(pos), free(vel), free(ang), free(quat);
    peer_run_free(&pr);
    return 0;
}

int main(int argc, char **argv)
{
    int size;
    double cap;
    int scene = peer_args(argc, argv, &size, &cap, NULL);
    if (scene < 0) return 2;
    return run(scene, size, cap);
}
