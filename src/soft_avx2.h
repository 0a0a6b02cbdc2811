/* The sub-stepped box solver's warm start and solve passes on AVX2, four
 * runs of one colour at a time (a block of the lanes' layout,
 * soft_lanes.h), as Box2D v3 takes a colour's constraints on SIMD lanes,
 * and the lanes' load and unload:
 * a block's bodies are gathered once and scattered back at its end, its
 * points' fields loaded straight from their rows. Every lane does the same
 * IEEE operations in the same order as cr_soft_warm_start's and
 * cr_soft_solve's point (no fused multiply-add), so both paths give the
 * same bits. Only where cr_use_avx2 (simd.h); elsewhere they do nothing
 * and must not be called. Internal. */
#ifndef CAROM_SOFT_AVX2_H
#define CAROM_SOFT_AVX2_H

#include <stdbool.h>

#include "soft_contact.h"
#include "soft_lanes.h"

/* cr_soft_warm_start over blocks [begin, end) of l (one colour's). */
void cr_soft_warm_lanes(cr_soft_body *bodies, const cr_soft_lanes *l, uint32_t begin, uint32_t end);
/* Fills the rows of l's blocks [begin, end) (cr_soft_lanes_plan's) from
 * the points p, all but K and the effective masses, which it computes on
 * the lanes as cr_soft_prepare does (the same bits) from the bodies: the
 * blocks' points need no cr_soft_prepare. */
void cr_soft_lanes_load(cr_soft_lanes *l, cr_soft_body *bodies, const cr_soft_point *p, uint32_t begin, uint32_t end);
/* Writes the effective masses, lambdas and totals of l's blocks [begin,
 * end) back to the points p (not K: the points' k_nn .. k_12 stay unset). */
void cr_soft_lanes_unload(const cr_soft_lanes *l, cr_soft_point *p, uint32_t begin, uint32_t end);
/* cr_soft_solve over blocks [begin, end) of l (one colour's), their
 * lambdas and totals in l's rows. */
void cr_soft_solve_lanes(cr_soft_body *bodies, cr_soft_lanes *l, uint32_t begin, uint32_t end, const cr_soft soft[2],
                         double inv_h, double push_speed, bool use_bias, bool accumulate);

#endif
