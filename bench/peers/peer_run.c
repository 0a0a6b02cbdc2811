/* A pit or pyramid run of an engine program (peer_run.h). */
#include "peer_run.h"

#include <string.h>

int peer_run_build(peer_run *r, int scene, int size)
{
    memset(r, 0, sizeof *r);
    r->scene = scene;
    r->name = scene == 0 ? "pit" : "pyramid";
    r->size = size;
    r->e = scene == 0 ? PIT_RESTITUTION : PYR_RESTITUTION;
    r->mu = scene == 0 ? PIT_FRICTION : PYR_FRICTION;
    if (scene == 0) {
        if (pit_build(&r->pit, size)) return 1;
        r->n = size;
        r->start = r->pit.pos;
    } else {
        if (pyr_build(&r->pyr, size)) return 1;
        r->n = r->pyr.n;
        r->start = r->pyr.pos;
    }
    return 0;
}

void peer_run_measure(peer_run *r, const double *pos, const double *quat, double deepest)
{
    if (r->scene == 0) {
        double pen = pit_max_overlap(&r->g, &r->pit, pos, &r->lost);
        if (pen > r->max_pen) r->max_pen = pen;
    } else {
        if (deepest > r->max_pen) r->max_pen = deepest;
        double ov = pyr_max_overlap(&r->g, &r->pyr, pos, quat);
        if (ov > r->overlap) r->overlap = ov;
    }
}

peer_result peer_run_result(const peer_run *r, const char *engine, int steps, double stepping, double cpu,
                            double t_setup, double contacts, long warnings, const double *pos, const double *vel,
                            const double *ang)
{
    peer_result o = {engine, r->name, r->size, r->n, steps, PEER_STEPS, stepping, cpu, t_setup, r->max_pen,
                     r->scene == 0 ? "geom" : "contact", r->lost, 0.0, -1.0, contacts / (steps ? steps : 1), warnings,
                     r->scene == 0 ? -1.0 : r->overlap};
    if (r->scene == 0) {
        o.ke = pit_kinetic(r->n, vel, ang);
    } else {
        o.ke = pyr_kinetic(r->n, vel, ang);
        o.drift = pyr_max_drift(&r->pyr, pos, &o.lost);
    }
    return o;
}

void peer_run_free(peer_run *r)
{
    overlap_grid_free(&r->g);
    pit_free(&r->pit);
    pyr_free(&r->pyr);
}
