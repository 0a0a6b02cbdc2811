/* Shock propagation for the projection's extra passes (projection.c,
 * world option projection_shock): Guendelman, Bridson and Fedkiw,
 * "Nonconvex rigid bodies with stacking" (SIGGRAPH 2003), section 7: the
 * contacts are taken from the ground up and the lower body of a stacked
 * pair counts as immovable, so one ordered sweep carries a push off the
 * floor to the top of a pile instead of one layer per sweep.
 *
 * The update of a row stays seed 000's (eq. 5.27/5.28 with k_p); only the
 * mass ratio of a stacked pair becomes that of a ball on an immovable body
 * (m_red = 1, c.1 b) and the rows' order changes. */
#include <math.h>

#include "world_internal.h"

/* A pair is stacked when the line from the lower centre to the upper one is
 * within 60 degrees of up. Two balls side by side keep the seed's ratios:
 * holding one of them would push the other sideways into its next
 * neighbour, which may be held in turn, and a row of balls between walls
 * could not get out (in the ball pit, holding every lower ball gave 15% r
 * where 60 degrees gives 1.2% r, at 16 passes and 8,000 balls). */
#define CR_SHOCK_COS 0.5

bool cr_projection_up(const cr_world *w, cr_vec3 *up)
{
    double g = cr_v3_len(w->def.gravity);
    if (!w->def.projection_shock || !(g > 0.0 && isfinite(g))) return false; /* no up: the seed's ratios */
    *up = cr_v3_scale(w->def.gravity, -1.0 / g);
    return true;
}

void cr_projection_shock_ratios(cr_vec3 up, cr_vec3 xi, cr_vec3 xj, double *mi, double *mj)
{
    if (!(*mi > 0.0 && *mj > 0.0)) return; /* one side already immovable */
    cr_vec3 d = cr_v3_sub(xi, xj);
    double h = cr_v3_dot(d, up), len = cr_v3_len(d);
    if (h > CR_SHOCK_COS * len)
        *mj = 0.0; /* i sits on j */
    else if (-h > CR_SHOCK_COS * len)
        *mi = 0.0; /* j sits on i */
}

/* The height of a row: that of the ball it moves up, the upper one. */
static double row_height(const cr_vec3 *x, cr_vec3 up, const cr_projection_row *r)
{
    double h = cr_v3_dot(x[r->i], up);
    if (!(r->j & CR_PROJECTION_PLANE)) h = fmax(h, cr_v3_dot(x[r->j], up));
    return h;
}

/* The rows from the ground up: a stable counting sort on n/4 + 1 height
 * buckets, O(rows), the same order for the same rows. */
cr_status cr_projection_order(cr_world *w, cr_vec3 up, const cr_vec3 *x)
{
    uint32_t n = w->near_count;
    if (n < 2) return CR_OK;
    uint32_t buckets = n / 4 + 1;
    if (!cr_grow(w, (void **)&w->near_sorted, &w->near_sorted_capacity, n, sizeof *w->near_sorted) ||
        !cr_grow(w, (void **)&w->near_key, &w->near_key_capacity, n + buckets + 1, sizeof *w->near_key))
        return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "projection: out of memory");
    double lo = INFINITY, hi = -INFINITY;
    for (uint32_t k = 0; k < n; ++k) {
        double h = row_height(x, up, &w->near[k]);
        lo = fmin(lo, h);
        hi = fmax(hi, h);
    }
    if (!(hi > lo && isfinite(hi - lo))) return CR_OK; /* one height: any order is bottom-up */
    double scale = (double)buckets / (hi - lo);
    uint32_t *key = w->near_key, *start = w->near_key + n;
    for (uint32_t b = 0; b <= buckets; ++b) start[b] = 0;
    for (uint32_t k = 0; k < n; ++k) {
        double f = (row_height(x, up, &w->near[k]) - lo) * scale;
        uint32_t b = f > 0.0 ? (f < (double)buckets ? (uint32_t)f : buckets - 1) : 0u;
        key[k] = b;
        start[b + 1]++;
    }
    for (uint32_t b = 0; b < buckets; ++b) start[b + 1] += start[b];
    for (uint32_t k = 0; k < n; ++k) w->near_sorted[start[key[k]]++] = w->near[k];
    cr_projection_row *t = w->near;
    uint32_t c = w->near_capacity;
    w->near = w->near_sorted;
    w->near_capacity = w->near_sorted_capacity;
    w->near_sorted = t;
    w->near_sorted_capacity = c;
    return CR_OK;
}
