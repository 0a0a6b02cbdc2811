/* The coloured passes' sections, shared by the sub-stepped solvers of
 * boxes (rigid_substep.c) and of spheres (sphere_substep.c);
 * docs/physics/substep.md, "Colours and threads". Internal. */
#ifndef CAROM_SOFT_SECTIONS_H
#define CAROM_SOFT_SECTIONS_H

#include "dem_internal.h" /* cr_run_items */
#include "soft_colour.h"

/* What a pass's work items read of the colour being taken. */
typedef struct cr_soft_section {
    uint32_t begin, count; /* the colour's entries of the colours' order: [begin, begin + count) */
    bool lanes;            /* on AVX2 lanes: a colour's (not the overflow's), AVX2 asked for */
} cr_soft_section;

/* items work items of fn, on the workers where the world has them and
 * there is more than one item; on the caller otherwise. */
static inline void cr_soft_run(cr_world *w, cr_task_fn *fn, uint32_t items, void *ctx)
{
    if (items > 1 && cr_parallel(w)) cr_run_items(w, fn, items, ctx);
    else if (items > 0) fn(0, items, 0, ctx);
}

/* Work items [start, end) of size each, of n things: [*first, *last). */
static inline void cr_soft_item_range(uint32_t start, uint32_t end, uint32_t size, uint32_t n, uint32_t *first,
                                      uint32_t *last)
{
    *first = start * size;
    *last = end * size < n ? end * size : n;
}

/* A coloured pass: colour after colour, each colour's entries over the
 * workers in items of item_size (no two of a colour share a moving body:
 * the same bits however they are split), then the overflow's serially on
 * the caller. The order of the Gauss-Seidel pass is the colours'
 * (soft_colour.h). sec is where fn (through ctx) reads the colour. */
static inline void cr_soft_coloured_pass(cr_world *w, const cr_soft_colours *c, uint32_t item_size, bool avx2,
                                         cr_soft_section *sec, cr_task_fn *fn, void *ctx)
{
    for (uint32_t k = 0; k <= c->count; ++k) {
        uint32_t end = k < c->count ? c->start[k + 1] : c->run_count;
        sec->begin = c->start[k];
        sec->count = end - c->start[k];
        sec->lanes = avx2 && k < c->count;
        uint32_t items = (sec->count + item_size - 1) / item_size;
        if (k < c->count) cr_soft_run(w, fn, items, ctx);
        else if (items > 0) fn(0, items, 0, ctx); /* the overflow: serial, on the caller */
    }
}

#endif
