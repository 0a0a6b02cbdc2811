/* sin and cos of one angle by a table and angle addition (sincos_table.c):
 * within 4.5e-16 of libm's, cheaper than its sincos. Internal. */
#ifndef CAROM_SINCOS_TABLE_H
#define CAROM_SINCOS_TABLE_H

void cr_sincos(double t, double *s, double *c);

#endif
