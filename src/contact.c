/* One side of a contact, the collision matrix and the seed 000 helpers. */
#include "carom/collide.h"

cr_contact_side cr_contact_side_immovable(void)
{
    cr_contact_side s;
    s.inv_mass = 0.0;
    s.inv_inertia = cr_m3_zero();
    s.r = s.v = s.w = cr_v3_zero();
    return s;
}

cr_vec3 cr_contact_point_velocity(const cr_contact_side *s)
{
    return cr_v3_add(s->v, cr_v3_cross(s->w, s->r));
}

/* One side's share of K: (1/m) 1 - [r]x I^-1 [r]x (seed 002 §2). */
static cr_mat3 side_matrix(const cr_contact_side *s)
{
    cr_mat3 rx = cr_m3_skew(s->r);
    cr_mat3 k = cr_m3_scale(cr_m3_mul(cr_m3_mul(rx, s->inv_inertia), rx), -1.0);
    k.m[0][0] += s->inv_mass;
    k.m[1][1] += s->inv_mass;
    k.m[2][2] += s->inv_mass;
    return k;
}

cr_mat3 cr_collision_matrix(const cr_contact_side *a, const cr_contact_side *b)
{
    return cr_m3_add(side_matrix(a), side_matrix(b));
}

static void side_apply(cr_contact_side *s, cr_vec3 p)
{
    s->v = cr_v3_madd(s->v, p, s->inv_mass);
    s->w = cr_v3_add(s->w, cr_m3_mul_v(s->inv_inertia, cr_v3_cross(s->r, p)));
}

void cr_contact_apply(cr_contact_side *a, cr_contact_side *b, cr_vec3 p)
{
    side_apply(a, p);
    side_apply(b, cr_v3_neg(p));
}

double cr_reduced_mass_ratio(double inv_mass_a, double inv_mass_b)
{
    /* m_b / (m_a + m_b) = (1/m_a) / (1/m_a + 1/m_b): with inverse masses an
     * immovable b gives exactly 1 (seed 000 c.1 b) and an immovable a gives 0. */
    double sum = inv_mass_a + inv_mass_b;
    return sum > 0.0 ? inv_mass_a / sum : 0.0;
}

cr_vec3 cr_position_projection(double k_p, double reduced_mass_ratio, double overlap, cr_vec3 n)
{
    /* Seed 000 eq. B.18 with Δx taken as the positive overlap, so the
     * displacement points along n, out of the other body. */
    return cr_v3_scale(n, k_p * reduced_mass_ratio * overlap);
}

double cr_sphere_inertia(cr_inertia_kind kind, double mass, double radius, double custom)
{
    switch (kind) {
    case CR_INERTIA_SOLID: return 0.4 * mass * radius * radius;
    case CR_INERTIA_HOLLOW: return (2.0 / 3.0) * mass * radius * radius;
    case CR_INERTIA_CUSTOM: return custom;
    case CR_INERTIA_PARTICLE: break;
    }
    return 0.0;
}

double cr_hollow_sphere_inertia(double mass, double r1, double r0)
{
    /* I = 8/15 pi rho (r1^5 - r0^5) and m = 4/3 pi rho (r1^3 - r0^3). */
    double r03 = r0 * r0 * r0, r13 = r1 * r1 * r1;
    return 0.4 * mass * (r13 * r1 * r1 - r03 * r0 * r0) / (r13 - r03);
}
