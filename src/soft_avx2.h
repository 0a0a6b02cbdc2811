/* The sub-stepped solver's solve pass on AVX2, four runs of one colour at
 * a time (soft_colour.h), as Box2D v3 takes a colour's constraints on SIMD
 * lanes: the lanes hold four runs of as many points, their bodies gathered
 * once and scattered back at the end. Every lane does the same IEEE
 * operations in the same order as cr_soft_solve's point (no fused
 * multiply-add), so both paths give the same bits. Internal. */
#ifndef CAROM_SOFT_AVX2_H
#define CAROM_SOFT_AVX2_H

#include <stdbool.h>

#include "soft_contact.h"

/* cr_soft_solve over the listed runs, which must share no moving body (one
 * colour's): blocks of four runs of as many points on the lanes, the rest
 * through cr_soft_solve. Only where cr_use_avx2 (simd.h); elsewhere it is
 * cr_soft_solve. */
void cr_soft_solve_avx2(cr_soft_body *bodies, cr_soft_point *p, const uint32_t *run_start, const uint32_t *runs,
                        uint32_t count, const cr_soft soft[2], double inv_h, double push_speed, bool use_bias,
                        bool accumulate);

#endif
