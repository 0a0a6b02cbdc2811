/* The colouring of the sub-stepped solver's contact points (docs/physics/
 * substep.md, "Colours and threads"), after Box2D v3's constraint graph
 * (solver_set.c, constraint_graph.c): the points are cut into runs (the
 * points of one manifold: consecutive points on the same two bodies), and
 * each run gets a colour such that no two runs of one colour share a body
 * that moves. The runs of a colour can then be taken in any order, or at
 * once on several threads, with the same bits: each writes its own points
 * and its own bodies, and reads no body another writes. Internal. */
#ifndef CAROM_SOFT_COLOUR_H
#define CAROM_SOFT_COLOUR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "soft_contact.h"

/* Colours given greedily (a bit per colour in each moving body's mask);
 * a run that finds none of them free goes to the overflow, taken serially
 * after them. */
#define CR_SOFT_COLOURS 12
/* A colour with fewer runs than this is too small to be worth a section on
 * the workers (its synchronisation costs more than it spreads): its runs
 * join the overflow. Fixed, never the worker count: the colours, hence the
 * order of the Gauss-Seidel passes and the bits, do not depend on it. */
#define CR_SOFT_MIN_COLOUR 64

typedef struct cr_soft_colours {
    uint32_t run_count;
    uint32_t *run_start;  /* run r's points: [run_start[r], run_start[r + 1]) (run_count + 1 entries) */
    uint32_t *order;      /* run indices colour by colour, each colour's in contact order */
    uint32_t count;       /* colours kept, not counting the overflow */
    /* colour c's runs: order[start[c] .. start[c + 1]); the overflow's:
     * order[start[count] .. run_count) */
    uint32_t start[CR_SOFT_COLOURS + 1];
} cr_soft_colours;

/* Colours the n points p (bodies indexed by p's a and b; a body moves
 * where its inv_mass > 0). Scratch: mask (body_count), colour (n). out's
 * run_start (n + 1) and order (n) are filled; the result depends on the
 * points and bodies only. */
void cr_soft_colour(const cr_soft_body *bodies, uint32_t body_count, const cr_soft_point *p, uint32_t n,
                    uint32_t *mask, uint8_t *colour, cr_soft_colours *out);

/* The same over any points and bodies: a point's struct (point_size
 * bytes) starts with its bodies' indices uint32_t a, b; body i's inverse
 * mass is the double at inv_mass + i body_size bytes. manifolds: runs of
 * consecutive points on the same two bodies (cr_soft_colour's); otherwise
 * each point is a run of its own (the sphere points, sphere_substep.c). */
void cr_soft_colour_pairs(const double *inv_mass, size_t body_size, uint32_t body_count, const void *points,
                          size_t point_size, uint32_t n, bool manifolds, uint32_t *mask, uint8_t *colour,
                          cr_soft_colours *out);

/* A body's mask before cr_soft_colour_masked: 0 where it moves, this bit
 * where it does not (it then never takes a colour). */
#define CR_SOFT_FIXED (1u << 31)

/* cr_soft_colour_pairs with the masks set up by the caller (each body's 0
 * or CR_SOFT_FIXED; cr_soft_colour_pairs sets them from the inverse
 * masses): the colouring then reads nothing of the bodies but their masks
 * (the sphere solver sets them in its parallel load of the bodies, and the
 * serial colouring does not miss the cache on the bodies). Same colours. */
void cr_soft_colour_masked(const void *points, size_t point_size, uint32_t n, bool manifolds, uint32_t *mask,
                           uint8_t *colour, cr_soft_colours *out);
/* cr_soft_colour_masked with colours of fewer than min_runs runs (not
 * CR_SOFT_MIN_COLOUR) joining the overflow: for points taken by one
 * worker, where a colour costs no synchronisation (the sphere solver's
 * blocks, sphere_blocks.h). */
void cr_soft_colour_min(const void *points, size_t point_size, uint32_t n, bool manifolds, uint32_t min_runs,
                        uint32_t *mask, uint8_t *colour, cr_soft_colours *out);

#endif
