/* The sub-stepped box solver's points laid out for AVX2's four lanes
 * (docs/physics/substep.md, "SIMD lanes"): within each colour, runs of as
 * many points are taken four at a time (a block), and a block's points are
 * stored as rows of fields, each field the four lanes' doubles side by
 * side, so that the lanes' kernels (soft_avx2.c) load a field with one
 * load instead of gathering it by 4x4 transposes from the packed points,
 * and a colour's blocks lie one after the other in memory. Planned here
 * once a step (plain C: blocks and order, which depend on the points and
 * colours only), filled by soft_avx2.c's load; the lambdas and totals live
 * in the rows during the substeps and are written back to the packed
 * points after them. Internal. */
#ifndef CAROM_SOFT_LANES_H
#define CAROM_SOFT_LANES_H

#include <stdbool.h>
#include <stdint.h>

#include "soft_colour.h"
#include "soft_contact.h"
#include "soft_resist.h"

/* A row's fields, each four doubles (lane 0..3): the packed point's 32
 * doubles from ra to mu in their order (the arms, axes, K, the effective
 * masses, the lambdas and totals the passes write, s0, mu: loaded and
 * unloaded by 4x4 transposes), then the softness mask (-0.0 where the
 * lane's point is fixed: soft[1]; +0.0: soft[0]; blendv reads the sign);
 * a spare field keeps a row a whole number of 64-byte lines. */
enum {
    CR_LANE_RA = 0,
    CR_LANE_RB = 3,
    CR_LANE_N = 6,
    CR_LANE_T1 = 9,
    CR_LANE_T2 = 12,
    CR_LANE_K = 15,
    CR_LANE_MASS = 21,
    CR_LANE_LAMBDA = 24,
    CR_LANE_TOTAL = 27,
    CR_LANE_S0 = 30,
    CR_LANE_MU = 31,
    CR_LANE_FIXED = 32,
    CR_LANE_FIELDS = 34
};

/* Four runs of len points each, one a lane: their bodies, their first
 * points (the packed points') and their rows [row, row + len). */
typedef struct cr_soft_block {
    uint32_t a[4], b[4], first[4];
    uint32_t row, len;
} cr_soft_block;

typedef struct cr_soft_lanes {
    double *rows;          /* 64-byte aligned, inside rows_raw: row r's field f, lane l at ((r F) + f) 4 + l */
    cr_soft_block *blocks; /* colour c's: [block_start[c], block_start[c + 1]) */
    /* the colours' order with each colour's runs regrouped (the same
     * entries of the same colour: the same bits, a colour's runs being
     * independent): its blocks' runs, four a block in lane order, then the
     * runs left to the plain kernel */
    uint32_t *order;
    uint32_t block_start[CR_SOFT_COLOURS + 1];
    uint32_t colours; /* the colours' count when built */
    void *rows_raw;
    uint32_t quad_capacity, block_capacity, order_capacity;
} cr_soft_lanes;

/* Colour c's first entry of order that is no block's run: its blocks take
 * the entries before (four each). */
static inline uint32_t cr_soft_lanes_rest(const cr_soft_lanes *l, const cr_soft_colours *c, uint32_t colour)
{
    return c->start[colour] + 4 * (l->block_start[colour + 1] - l->block_start[colour]);
}

/* Plans l's blocks and order (its arrays large enough) from the points p
 * (their bodies), their runs and colours c; the rows are filled by
 * cr_soft_lanes_load (soft_avx2.h). resist (NULL: none resists): the
 * points' resistance rows; a run with one of factor > 0 is left to the
 * plain kernel, which takes them after its own rows. */
void cr_soft_lanes_plan(cr_soft_lanes *l, const cr_soft_point *p, const cr_soft_colours *c,
                        const cr_soft_resist *resist);

#endif
