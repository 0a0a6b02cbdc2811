/* sin and cos of one angle by a table and angle addition (sincos_table.c):
 * within 4.5e-16 of libm's, cheaper than its sincos. Internal. */
#ifndef CAROM_SINCOS_TABLE_H
#define CAROM_SINCOS_TABLE_H

void cr_sincos(double t, double *s, double *c);
/* cr_sincos of tx into s[0], c[0] and of ty into s[1], c[1], the same
 * bits, the two on the lanes of one vector where the processor has them. */
void cr_sincos2(double tx, double ty, double s[2], double c[2]);
/* cr_sincos2 with AVX2's encoding (the same bits), where the processor has
 * it (simd.h's CR_AVX2 and cr_use_avx2). */
void cr_sincos2_avx2(double tx, double ty, double s[2], double c[2]);

#endif
