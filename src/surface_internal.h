/* Internal layout of cr_surface. */
#ifndef CAROM_SURFACE_INTERNAL_H
#define CAROM_SURFACE_INTERNAL_H

#include "carom/surface.h"

#define CR_MAGIC_SURFACE_DEF 0x43525344u
#define CR_BSPLINE_MAX_DEGREE 5

struct cr_surface {
    cr_surface_def def;    /* pointers in it refer to the copies below */
    cr_hill *hills;
    cr_vec3 *control;
    double *knots_u, *knots_v;
    cr_vec3 e1, e2;        /* plane tangents, e1 x e2 = normal */
    double orientation;    /* +1 or -1: which side of s_u x s_v is free */
    double size;           /* a length scale of the surface, for tolerances */
    double max_curvature;  /* cr_surface_max_curvature over a 64 x 64 grid, computed once */
    double max_curvature_u, max_curvature_v;
};

/* s and derivatives without the normal. */
void cr_surface_eval_raw(const cr_surface *s, double u, double v, cr_surface_eval *out);

#endif
