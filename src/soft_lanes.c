/* The points on lanes (soft_lanes.h). */
#include "soft_lanes.h"

/* Runs longer than this are left to the plain kernel (a box manifold has
 * at most 4 points: none is). */
#define MAX_LEN 8

static uint32_t run_len(const cr_soft_colours *c, uint32_t run) { return c->run_start[run + 1] - c->run_start[run]; }

/* A run's length as the blocks see it: past MAX_LEN (the plain kernel's)
 * where one of its points resists (the lanes do not carry those rows). */
static uint32_t lane_len(const cr_soft_colours *c, uint32_t run, const cr_soft_resist *resist)
{
    for (uint32_t i = c->run_start[run]; resist && i < c->run_start[run + 1]; ++i)
        if (resist[i].factor > 0.0) return MAX_LEN + 1;
    return run_len(c, run);
}

void cr_soft_lanes_plan(cr_soft_lanes *l, const cr_soft_point *p, const cr_soft_colours *c,
                        const cr_soft_resist *resist)
{
    uint32_t blocks = 0, rows = 0;
    for (uint32_t k = 0; k < c->count; ++k) {
        uint32_t begin = c->start[k], end = c->start[k + 1], out = begin;
        uint32_t count[MAX_LEN + 1] = {0}, full[MAX_LEN + 1];
        l->block_start[k] = blocks;
        for (uint32_t e = begin; e < end; ++e) {
            uint32_t len = lane_len(c, c->order[e], resist);
            if (len <= MAX_LEN) count[len]++;
        }
        /* blocks by length, each length's runs in contact order; the
         * colour's runs are independent, so any grouping gives the bits of
         * the colour's order */
        for (uint32_t len = 1; len <= MAX_LEN; ++len) {
            full[len] = count[len] / 4 * 4;
            uint32_t runs[4], n = 0, taken = 0;
            for (uint32_t e = begin; e < end && taken < full[len]; ++e) {
                if (lane_len(c, c->order[e], resist) != len) continue;
                runs[n++] = c->order[e];
                if (n < 4) continue;
                cr_soft_block *b = &l->blocks[blocks++];
                b->row = rows, b->len = len;
                rows += len;
                for (uint32_t ln = 0; ln < 4; ++ln) {
                    const cr_soft_point *first = &p[c->run_start[runs[ln]]];
                    b->a[ln] = first->a, b->b[ln] = first->b;
                    b->first[ln] = c->run_start[runs[ln]];
                    l->order[out++] = runs[ln];
                }
                n = 0, taken += 4;
            }
        }
        /* the rest: each length's runs past its blocks, and the long runs */
        uint32_t seen[MAX_LEN + 1] = {0};
        for (uint32_t e = begin; e < end; ++e) {
            uint32_t len = lane_len(c, c->order[e], resist);
            if (len > MAX_LEN || seen[len]++ >= full[len]) l->order[out++] = c->order[e];
        }
    }
    l->block_start[c->count] = blocks;
    for (uint32_t e = c->start[c->count]; e < c->run_count; ++e) l->order[e] = c->order[e];
    l->colours = c->count;
}
