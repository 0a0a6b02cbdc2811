/* The sphere solver's spatial blocks (sphere_blocks.h). */
#include "sphere_blocks.h"

#include <math.h>

cr_sphere_grid cr_sphere_grid_make(cr_vec3 lo, cr_vec3 hi, uint32_t bodies, uint32_t per_block)
{
    cr_sphere_grid g = {0, 1, 1, 0, 1, 0.0, 0.0, 0.0, 0.0};
    uint32_t want = per_block > 0 ? bodies / per_block : 0;
    if (want < 2) return g;
    double e[3] = {hi.x - lo.x, hi.y - lo.y, hi.z - lo.z};
    for (int k = 0; k < 3; ++k)
        if (!(e[k] > 0.0)) e[k] = 0.0; /* empty or not a number */
    /* u the longest axis, v the next */
    int u = 0;
    for (int k = 1; k < 3; ++k)
        if (e[k] > e[u]) u = k;
    int v = u == 0 ? 1 : 0;
    for (int k = 0; k < 3; ++k)
        if (k != u && e[k] > e[v]) v = k;
    if (!(e[u] > 0.0)) return g; /* every body at one point */
    /* columns about square: nu / nv as e_u / e_v, nu nv about want */
    double r = e[v] > 0.0 ? sqrt((double)want * e[u] / e[v]) : (double)want;
    uint32_t nu = r < 1.0 ? 1u : r > (double)want ? want : (uint32_t)lround(r);
    uint32_t nv = (uint32_t)lround((double)want / nu);
    if (nv < 1 || !(e[v] > 0.0)) nv = 1;
    if (nu * nv < 2) return g;
    g.count = nu * nv, g.nu = nu, g.nv = nv, g.u = u, g.v = v;
    g.u0 = cr_v3_get(lo, u), g.v0 = cr_v3_get(lo, v);
    g.inv_du = nu / e[u];
    g.inv_dv = e[v] > 0.0 ? nv / e[v] : 0.0;
    return g;
}

void cr_sphere_group_places(uint32_t *at, uint32_t items, uint32_t groups, uint32_t *first)
{
    uint32_t sum = 0;
    for (uint32_t g = 0; g < groups; ++g) {
        first[g] = sum;
        for (uint32_t item = 0; item < items; ++item) {
            uint32_t count = at[(size_t)item * groups + g];
            at[(size_t)item * groups + g] = sum;
            sum += count;
        }
    }
    first[groups] = sum;
}

void cr_sphere_scatter_groups(const uint32_t *pairs, const uint32_t *group, uint32_t begin, uint32_t end, uint32_t *at,
                              uint32_t *perm, uint32_t *sorted_pairs)
{
    for (uint32_t k = begin; k < end; ++k) {
        uint32_t i = at[group[k]]++;
        perm[i] = k;
        sorted_pairs[2 * i] = pairs[2 * k];
        sorted_pairs[2 * i + 1] = pairs[2 * k + 1];
    }
}

void cr_sphere_colour_group(const uint32_t *sorted_pairs, const uint32_t *first, uint32_t g, uint32_t min_runs,
                            uint32_t *mask, uint8_t *colour, uint32_t *run_start, uint32_t *order,
                            cr_soft_colours *out)
{
    cr_soft_colours *c = &out[g];
    c->run_start = run_start + first[g] + g; /* n + 1 entries a group */
    c->order = order + first[g];
    cr_soft_colour_min(sorted_pairs + 2 * first[g], 2 * sizeof *sorted_pairs, first[g + 1] - first[g], false,
                       min_runs, mask, colour + first[g], c);
}

void cr_sphere_clear_masks(const uint32_t *sorted_pairs, uint32_t begin, uint32_t end, uint32_t *mask)
{
    for (uint32_t k = 2 * begin; k < 2 * end; ++k) mask[sorted_pairs[k]] &= CR_SOFT_FIXED;
}
