/* The points on lanes (soft_lanes.h). */
#include "soft_lanes.h"

#include <stddef.h>

_Static_assert(sizeof(cr_vec3) == 3 * sizeof(double), "cr_vec3 is three doubles");
_Static_assert(offsetof(cr_soft_point, mass) == offsetof(cr_soft_point, ra) + 21 * sizeof(double),
               "cr_soft_point's ra rb n t1 t2 k mass are 24 contiguous doubles");
_Static_assert(CR_LANE_S0 == 24 && CR_LANE_FIELDS % 2 == 0, "the fields from ra to mass, then s0; whole lines");

/* Runs longer than this are left to the plain kernel (a box manifold has
 * at most 4 points: none is). */
#define MAX_LEN 8

static uint32_t run_len(const cr_soft_colours *c, uint32_t run) { return c->run_start[run + 1] - c->run_start[run]; }

/* Block b's rows from its four runs (lane l: run runs[l]) of the points. */
static void fill_block(cr_soft_lanes *l, cr_soft_block *b, const cr_soft_point *p, const cr_soft_colours *c,
                       const uint32_t runs[4])
{
    for (uint32_t ln = 0; ln < 4; ++ln) {
        const cr_soft_point *first = &p[c->run_start[runs[ln]]];
        b->a[ln] = first->a, b->b[ln] = first->b;
    }
    for (uint32_t j = 0; j < b->len; ++j) {
        double *row = l->rows + (size_t)(b->row + j) * CR_LANE_FIELDS * 4;
        for (uint32_t ln = 0; ln < 4; ++ln) {
            const cr_soft_point *q = &p[c->run_start[runs[ln]] + j];
            /* ra rb n t1 t2 k mass: 24 doubles from ra on (soft_avx2.c's
             * _Static_asserts hold them contiguous) */
            const double *from = &q->ra.x;
            for (int f = 0; f < CR_LANE_S0; ++f) row[4 * f + ln] = from[f];
            row[4 * CR_LANE_S0 + ln] = q->s0;
            row[4 * CR_LANE_MU + ln] = q->mu;
            row[4 * CR_LANE_FIXED + ln] = q->fixed ? -0.0 : 0.0;
            for (int r = 0; r < 3; ++r) {
                row[4 * (CR_LANE_LAMBDA + r) + ln] = q->lambda[r];
                row[4 * (CR_LANE_TOTAL + r) + ln] = q->total[r];
            }
        }
    }
}

void cr_soft_lanes_build(cr_soft_lanes *l, const cr_soft_point *p, const cr_soft_colours *c)
{
    uint32_t blocks = 0, rows = 0;
    for (uint32_t k = 0; k < c->count; ++k) {
        uint32_t begin = c->start[k], end = c->start[k + 1], out = begin;
        uint32_t count[MAX_LEN + 1] = {0}, full[MAX_LEN + 1];
        l->block_start[k] = blocks;
        for (uint32_t e = begin; e < end; ++e) {
            uint32_t len = run_len(c, c->order[e]);
            if (len <= MAX_LEN) count[len]++;
        }
        /* blocks by length, each length's runs in contact order; the
         * colour's runs are independent, so any grouping gives the bits of
         * the colour's order */
        for (uint32_t len = 1; len <= MAX_LEN; ++len) {
            full[len] = count[len] / 4 * 4;
            uint32_t runs[4], n = 0, taken = 0;
            for (uint32_t e = begin; e < end && taken < full[len]; ++e) {
                if (run_len(c, c->order[e]) != len) continue;
                runs[n++] = c->order[e];
                if (n < 4) continue;
                cr_soft_block *b = &l->blocks[blocks++];
                b->row = rows, b->len = len;
                rows += len;
                fill_block(l, b, p, c, runs);
                for (uint32_t ln = 0; ln < 4; ++ln) l->order[out++] = runs[ln];
                n = 0, taken += 4;
            }
        }
        /* the rest: each length's runs past its blocks, and the long runs */
        uint32_t seen[MAX_LEN + 1] = {0};
        for (uint32_t e = begin; e < end; ++e) {
            uint32_t len = run_len(c, c->order[e]);
            if (len > MAX_LEN || seen[len]++ >= full[len]) l->order[out++] = c->order[e];
        }
    }
    l->block_start[c->count] = blocks;
    for (uint32_t e = c->start[c->count]; e < c->run_count; ++e) l->order[e] = c->order[e];
    l->colours = c->count;
}

void cr_soft_lanes_unload(const cr_soft_lanes *l, cr_soft_point *p, const cr_soft_colours *c)
{
    for (uint32_t k = 0; k < l->colours; ++k)
        for (uint32_t i = l->block_start[k]; i < l->block_start[k + 1]; ++i) {
            const cr_soft_block *b = &l->blocks[i];
            const uint32_t *runs = &l->order[c->start[k] + 4 * (i - l->block_start[k])];
            for (uint32_t j = 0; j < b->len; ++j) {
                const double *row = l->rows + (size_t)(b->row + j) * CR_LANE_FIELDS * 4;
                for (uint32_t ln = 0; ln < 4; ++ln) {
                    cr_soft_point *q = &p[c->run_start[runs[ln]] + j];
                    for (int r = 0; r < 3; ++r) {
                        q->lambda[r] = row[4 * (CR_LANE_LAMBDA + r) + ln];
                        q->total[r] = row[4 * (CR_LANE_TOTAL + r) + ln];
                    }
                }
            }
        }
}
