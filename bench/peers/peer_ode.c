/* ODE side of the side-by-side benchmark (Debian's libode-dev 0.16, double).
 *
 * Settings: ODE's own fast path for many bodies -- dWorldQuickStep with its
 * default 20 iterations, a hash space, default ERP 0.2 and CFM, no
 * auto-disable (ODE's default). Per contact (the contact joint carries the
 * coefficients directly, nothing is combined): mode dContactBounce |
 * dContactApprox1 (friction pyramid proportional to the normal force),
 * mu = 0.3, bounce = 0.5, bounce_vel = 2 |g| dt (carom's resting speed).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <ode/ode.h>

#include "peer_run.h"

#define MAX_CONTACTS 8

typedef struct ctx {
    dWorldID world;
    dJointGroupID group;
    double mu, bounce;
    int contacts;
    double deepest;
} ctx;

static void near_cb(void *data, dGeomID o1, dGeomID o2)
{
    ctx *c = data;
    dBodyID b1 = dGeomGetBody(o1), b2 = dGeomGetBody(o2);
    if (!b1 && !b2) return; /* two static planes */
    dContact con[MAX_CONTACTS];
    int k = dCollide(o1, o2, MAX_CONTACTS, &con[0].geom, sizeof(dContact));
    for (int i = 0; i < k; ++i) {
        con[i].surface.mode = dContactApprox1 | (c->bounce > 0 ? dContactBounce : 0);
        con[i].surface.mu = c->mu;
        con[i].surface.bounce = c->bounce;
        con[i].surface.bounce_vel = PEER_RESTING_SPEED;
        if (con[i].geom.depth > c->deepest) c->deepest = con[i].geom.depth;
        dJointID j = dJointCreateContact(c->world, c->group, &con[i]);
        dJointAttach(j, b1, b2);
    }
    c->contacts += k;
}

/* iterations: quickstep's iterations (20, ODE's default, when 0) */
static void setup_world(ctx *c, dSpaceID *space, int iterations)
{
    c->world = dWorldCreate();
    dWorldSetGravity(c->world, 0, 0, -PEER_GRAVITY);
    dWorldSetQuickStepNumIterations(c->world, iterations > 0 ? iterations : 20);
    c->group = dJointGroupCreate(0);
    *space = dHashSpaceCreate(0);
    /* cells from 1/16 m to 1/4 m: a sphere of diameter 0.1 or a cube of edge 0.1 */
    dHashSpaceSetLevels(*space, -4, -2);
}

/* quat (4n, w x y z) may be NULL */
static void gather(int n, dBodyID *b, double *pos, double *vel, double *ang, double *quat)
{
    for (int i = 0; i < n; ++i) {
        const dReal *p = dBodyGetPosition(b[i]), *v = dBodyGetLinearVel(b[i]), *w = dBodyGetAngularVel(b[i]);
        for (int k = 0; k < 3; ++k) pos[3 * i + k] = p[k], vel[3 * i + k] = v[k], ang[3 * i + k] = w[k];
        if (quat) {
            const dReal *q = dBodyGetQuaternion(b[i]); /* ODE's order: w, x, y, z */
            for (int k = 0; k < 4; ++k) quat[4 * i + k] = q[k];
        }
    }
}

static int run(int scene, int size, double cap, int iterations)
{
    peer_run pr;
    if (peer_run_build(&pr, scene, size)) return 1;
    const int n = pr.n;
    double t_setup = peer_now();
    dInitODE2(0);
    ctx c = {0};
    dSpaceID space;
    setup_world(&c, &space, iterations);
    c.mu = pr.mu;
    c.bounce = pr.e;
    if (scene == 0) {
        double pp[5][3], pn[5][3];
        pit_planes(&pr.pit, pp, pn);
        for (int k = 0; k < 5; ++k) /* plane a x + b y + c z = d */
            dCreatePlane(space, pn[k][0], pn[k][1], pn[k][2],
                         pn[k][0] * pp[k][0] + pn[k][1] * pp[k][1] + pn[k][2] * pp[k][2]);
    } else {
        dCreatePlane(space, 0, 0, 1, 0);
    }
    dBodyID *b = malloc(sizeof *b * (size_t)n);
    double *pos = malloc(sizeof(double) * 3 * (size_t)n), *vel = malloc(sizeof(double) * 3 * (size_t)n),
           *ang = malloc(sizeof(double) * 3 * (size_t)n), *quat = malloc(sizeof(double) * 4 * (size_t)n);
    if (!b || !pos || !vel || !ang || !quat) return 1;
    for (int i = 0; i < n; ++i) {
        dMass m;
        b[i] = dBodyCreate(c.world);
        dGeomID geom;
        if (scene == 0) {
            dMassSetSphereTotal(&m, PIT_MASS, PIT_RADIUS);
            geom = dCreateSphere(space, PIT_RADIUS);
        } else {
            dMassSetBoxTotal(&m, PYR_MASS, PYR_EDGE, PYR_EDGE, PYR_EDGE);
            geom = dCreateBox(space, PYR_EDGE, PYR_EDGE, PYR_EDGE);
        }
        dBodySetPosition(b[i], pr.start[3 * i], pr.start[3 * i + 1], pr.start[3 * i + 2]);
        dBodySetMass(b[i], &m);
        dGeomSetBody(geom, b[i]);
    }
    t_setup = peer_now() - t_setup;

    double stepping = 0.0, cpu = 0.0, contacts = 0.0;
    int steps = 0;
    while (steps < PEER_STEPS && stepping < cap) {
        double t0 = peer_now(), c0 = peer_cpu_now();
        c.contacts = 0;
        c.deepest = 0.0;
        dSpaceCollide(space, &c, near_cb);
        dWorldQuickStep(c.world, PEER_DT);
        dJointGroupEmpty(c.group);
        stepping += peer_now() - t0;
        cpu += peer_cpu_now() - c0;
        ++steps;
        contacts += c.contacts;
        gather(n, b, pos, vel, ang, scene == 0 ? NULL : quat);
        peer_run_measure(&pr, pos, quat, c.deepest);
    }
    peer_result r = peer_run_result(&pr, "ode", steps, stepping, cpu, t_setup, contacts, -1, pos, vel, ang);
    printf("NOTE ode erp=%g cfm=%g quickstep_iterations=%d\n", (double)dWorldGetERP(c.world),
           (double)dWorldGetCFM(c.world), dWorldGetQuickStepNumIterations(c.world));
    peer_print(&r);
    dJointGroupDestroy(c.group);
    dSpaceDestroy(space);
    dWorldDestroy(c.world);
    dCloseODE();
    free(b), free(pos), free(vel), free(ang), free(quat);
    peer_run_free(&pr);
    return 0;
}

int main(int argc, char **argv)
{
    int size, iterations;
    double cap;
    int scene = peer_args(argc, argv, &size, &cap, &iterations);
    if (scene < 0) return 2;
    return run(scene, size, cap, iterations);
}
