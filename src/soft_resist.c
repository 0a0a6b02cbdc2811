/* Rolling and spin resistance rows (soft_resist.h) of the general
 * sub-stepped kernel, and the world's test for them. */
#include "soft_resist.h"

#include "world_internal.h"

bool cr_world_resists(const cr_world *w)
{
    const cr_bodies *b = &w->bodies;
    for (uint32_t i = 0; i < b->slot_count; ++i)
        if (cr_slot_alive(b, i) && b->rolling_friction[i] > 0.0) return true;
    return false;
}

void cr_soft_resist_prepare(const cr_soft_body *bodies, const cr_soft_point *p, double nu, cr_vec3 lambda,
                            cr_soft_resist *r)
{
    const cr_soft_body *A = &bodies[p->a], *B = &bodies[p->b];
    /* the centres' distances from the contact plane: a lies on n's side */
    double ra = -cr_v3_dot(p->ra, p->n), rb = cr_v3_dot(p->rb, p->n);
    bool ok = false;
    r->mass = cr_m3_inverse(cr_m3_add(A->inv_inertia, B->inv_inertia), &ok);
    r->factor = ok ? cr_resist_factor(nu, ra, rb) : 0.0;
    r->lambda = r->factor > 0.0 ? lambda : cr_v3_zero();
}

void cr_soft_resist_pass(cr_soft_body *bodies, const cr_soft_point *p, cr_soft_resist *r, const uint32_t *run_start,
                         const uint32_t *runs, uint32_t count, bool warm)
{
    for (uint32_t e = 0; e < count; ++e)
        for (uint32_t i = run_start[runs[e]]; i < run_start[runs[e] + 1]; ++i) {
            cr_soft_resist *q = &r[i];
            if (q->factor == 0.0) continue;
            cr_soft_body *A = &bodies[p[i].a], *B = &bodies[p[i].b];
            cr_vec3 d = q->lambda;
            if (!warm) {
                cr_vec3 next = cr_v3_sub(q->lambda, cr_m3_mul_v(q->mass, cr_v3_sub(A->w, B->w)));
                next = cr_resist_clamp(next, q->factor * p[i].lambda[0]);
                d = cr_v3_sub(next, q->lambda);
                q->lambda = next;
            }
            /* a body of zero inverse mass has zero inverse inertia too
             * (load_bodies): it is read, never written */
            if (A->inv_mass > 0.0) A->w = cr_v3_add(A->w, cr_m3_mul_v(A->inv_inertia, d));
            if (B->inv_mass > 0.0) B->w = cr_v3_sub(B->w, cr_m3_mul_v(B->inv_inertia, d));
        }
}
