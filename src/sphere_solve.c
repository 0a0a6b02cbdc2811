/* The plain passes over sphere points (sphere_points.h). */
#include "soft_resist.h"
#include "sphere_points.h"

/* Impulse dn n + dt on a at the point, minus that on b; only dt turns them:
 * r_a x P = -ra n x dt, r_b x P = rb n x dt. A body that cannot move is
 * not written: points of one colour on several workers may share it. */
static inline void apply(cr_sphere_body *A, cr_sphere_body *B, const cr_sphere_point *p, double dn, cr_vec3 dt)
{
    cr_vec3 P = cr_v3_madd(dt, p->n, dn), nt = cr_v3_cross(p->n, dt);
    if (A->inv_mass > 0.0) {
        A->v = cr_v3_madd(A->v, P, A->inv_mass);
        A->w = cr_v3_madd(A->w, nt, -p->ra * A->inv_inertia);
    }
    if (B->inv_mass > 0.0) {
        B->v = cr_v3_madd(B->v, P, -B->inv_mass);
        B->w = cr_v3_madd(B->w, nt, -p->rb * B->inv_inertia);
    }
}

void cr_sphere_warm_start(cr_sphere_body *sb, const cr_sphere_quad *q, uint32_t begin, uint32_t end)
{
    for (uint32_t k = begin; k < end; ++k) {
        cr_sphere_point p = cr_sphere_get(q, k);
        apply(&sb[p.a], &sb[p.b], &p, p.lambda_n, p.lambda_t);
    }
}

/* As cr_soft_solve's point (soft_contact.h) with K diagonal: the normal
 * row with the soft bias or rigid, speculative while apart; then the
 * tangential impulse in the cone. */
void cr_sphere_solve(cr_sphere_body *sb, cr_sphere_quad *q, uint32_t begin, uint32_t end, const cr_sphere_pass *pass)
{
    for (uint32_t k = begin; k < end; ++k) {
        const cr_sphere_point pk = cr_sphere_get(q, k), *p = &pk;
        cr_sphere_body *A = &sb[p->a], *B = &sb[p->b];
        double sep = p->s0 + cr_v3_dot(p->n, cr_v3_sub(pass->shift[p->a].dp, pass->shift[p->b].dp));
        double bias = 0.0, mass_scale = 1.0, impulse_scale = 0.0;
        if (sep > 0.0) {
            bias = sep * pass->inv_h; /* speculative: close the gap within h, no more */
        } else if (pass->use_bias) {
            /* the stiffer softness where a side cannot move */
            const cr_soft *sf = &pass->soft[A->inv_mass == 0.0 || B->inv_mass == 0.0];
            bias = sf->mass_scale * sf->bias_rate * sep;
            bias = bias > -CR_SOFT_PUSH_SPEED ? bias : -CR_SOFT_PUSH_SPEED; /* fmax, without the call */
            mass_scale = sf->mass_scale;
            impulse_scale = sf->impulse_scale;
        }
        double mass_n = p->mass_n, mass_t = p->mass_t;
        cr_vec3 vrel = cr_sphere_rel_vel(A, B, p);
        double un = cr_v3_dot(p->n, vrel);
        double next = p->lambda_n - mass_n * (mass_scale * un + bias) - impulse_scale * p->lambda_n;
        next = next > 0.0 ? next : 0.0;
        double dn = next - p->lambda_n;
        /* K diagonal: the normal impulse leaves the tangential velocity */
        cr_vec3 ut = cr_v3_madd(vrel, p->n, -un);
        cr_vec3 lt = cr_v3_madd(p->lambda_t, ut, -mass_t);
        double limit = p->mu * next, l2 = cr_v3_len2(lt);
        if (l2 > limit * limit) lt = cr_v3_scale(lt, limit > 0.0 ? limit / sqrt(l2) : 0.0);
        cr_vec3 dt = cr_v3_sub(lt, p->lambda_t);
        cr_sphere_set_lambdas(q, k, next, lt);
        if (pass->totals) {
            cr_sphere_totals *t = &pass->totals[k / 4];
            uint32_t l = k % 4;
            t->n[l] += next;
            t->tx[l] += lt.x, t->ty[l] += lt.y, t->tz[l] += lt.z;
        }
        apply(A, B, p, dn, dt);
    }
}

void cr_sphere_resist_pass(cr_sphere_body *sb, const cr_sphere_quad *q, cr_sphere_resist *r, uint32_t begin,
                           uint32_t end, bool warm)
{
    for (uint32_t k = begin; k < end; ++k) {
        cr_sphere_resist *x = &r[k];
        if (x->factor == 0.0) continue;
        const cr_sphere_quad *p = &q[k / 4];
        uint32_t l = k % 4;
        cr_sphere_body *A = &sb[p->a[l]], *B = &sb[p->b[l]];
        cr_vec3 d = x->lambda;
        if (!warm) {
            cr_vec3 next = cr_v3_madd(x->lambda, cr_v3_sub(A->w, B->w), -x->mass);
            next = cr_resist_clamp(next, x->factor * p->lambda_n[l]);
            d = cr_v3_sub(next, x->lambda);
            x->lambda = next;
        }
        if (A->inv_mass > 0.0) A->w = cr_v3_madd(A->w, d, A->inv_inertia);
        if (B->inv_mass > 0.0) B->w = cr_v3_madd(B->w, d, -B->inv_inertia);
    }
}
