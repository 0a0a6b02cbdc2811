/* The sphere solver's spatial blocks (sphere_substep.c; docs/physics/
 * substep.md, "Spheres", "Blocks"). At 27,000 balls a coloured pass read
 * each body's rows once per colour it has a point in (~5.6 times a pass),
 * and the 2.6 MiB of rows did not stay in a core's L2 (1 MiB) from one
 * colour to the next (pit18's callgrind count: ~4 L2 misses a point and
 * pass, most of them the bodies'). So the moving bodies are cut into
 * blocks, columns of a grid over the two longest axes of their bounds, a
 * few thousand bodies each: a point whose moving bodies lie in one block
 * is the block's, and a block's points, coloured on their own, are taken
 * by one worker, colour after colour with no barrier between them, while
 * its bodies stay in its L2; the blocks are independent (no two share a
 * moving body), so they run at once. The points across blocks are then
 * taken as before (coloured, each colour over the workers). The blocks
 * are made from the positions only (never the worker count): the same
 * points, order and bits on any worker count. Internal. */
#ifndef CAROM_SPHERE_BLOCKS_H
#define CAROM_SPHERE_BLOCKS_H

#include <stdint.h>

#include "carom/math.h"
#include "soft_colour.h"

/* Bodies (the world's slots) to a block, about (a block's bodies, 96 bytes
 * each with their displacements, and its points' quads share a core's
 * L2); fewer than two blocks' worth: no blocks. Never the worker count. */
#define CR_SPHERE_BLOCK_BODIES 2048u
/* A block's colour of fewer points than this joins its overflow (taken
 * plain): one worker takes the block, so a colour costs no barrier, only
 * its last quad's pads; 8, two quads, fill the AVX-512 lanes once. */
#define CR_SPHERE_BLOCK_MIN_COLOUR 8u
/* A body that does not move (or the world): in no block (its rows are
 * read, never written, by the passes). */
#define CR_SPHERE_NO_BLOCK UINT32_MAX

typedef struct cr_sphere_grid {
    uint32_t count;      /* blocks, nu nv; 0: none (every point taken across the workers as before) */
    uint32_t nu, nv;     /* columns along axes u, v (the bounds' two longest) */
    int u, v;
    double u0, v0, inv_du, inv_dv;
} cr_sphere_grid;

/* The grid over the moving bodies' bounds [lo, hi] for bodies (slots),
 * about per_block to a block. */
cr_sphere_grid cr_sphere_grid_make(cr_vec3 lo, cr_vec3 hi, uint32_t bodies, uint32_t per_block);

/* The column (0 .. n - 1) of coordinate c, from c0 cells of 1 / inv_d
 * (outside, or not a number: the nearest end). */
static inline uint32_t cr_sphere_column(double c, double c0, double inv_d, uint32_t n)
{
    double t = (c - c0) * inv_d;
    if (!(t > 0.0)) return 0;
    return t < (double)n ? (uint32_t)t : n - 1;
}

/* The block of a moving body at x. */
static inline uint32_t cr_sphere_block_of(const cr_sphere_grid *g, cr_vec3 x)
{
    return cr_sphere_column(cr_v3_get(x, g->v), g->v0, g->inv_dv, g->nv) * g->nu +
           cr_sphere_column(cr_v3_get(x, g->u), g->u0, g->inv_du, g->nu);
}

/* The group of a point on bodies of blocks ba, bb: the block of its moving
 * bodies, or cross (the points across blocks) when they lie in two. */
static inline uint32_t cr_sphere_group_of(uint32_t ba, uint32_t bb, uint32_t cross)
{
    if (ba == CR_SPHERE_NO_BLOCK) return bb == CR_SPHERE_NO_BLOCK ? cross : bb;
    return bb == CR_SPHERE_NO_BLOCK || bb == ba ? ba : cross;
}

/* The points sorted by their groups (0 .. groups - 1), a counting sort
 * over work items of consecutive points: stable, each group's points in
 * contact order, on any worker count. at[item groups + g]: item's count
 * of group g's points, made the place of its first (serial); group g's
 * places are [first[g], first[g + 1]) (groups + 1 entries). */
void cr_sphere_group_places(uint32_t *at, uint32_t items, uint32_t groups, uint32_t *first);
/* An item's points [begin, end) (pairs a, b at 2 k, 2 k + 1) to their
 * places from its row of at (advanced): perm[i] the point at place i,
 * sorted_pairs its pair. */
void cr_sphere_scatter_groups(const uint32_t *pairs, const uint32_t *group, uint32_t begin, uint32_t end, uint32_t *at,
                              uint32_t *perm, uint32_t *sorted_pairs);
/* Colours group g's points on their own into out[g] (cr_soft_colour_min,
 * colours of fewer than min_runs points to the overflow; its order the
 * places within the group); its scratch and lists at the group's places
 * of colour, order and run_start (points + groups + 1 entries). Groups on
 * no common moving body may be coloured at once. */
void cr_sphere_colour_group(const uint32_t *sorted_pairs, const uint32_t *first, uint32_t g, uint32_t min_runs,
                            uint32_t *mask, uint8_t *colour, uint32_t *run_start, uint32_t *order,
                            cr_soft_colours *out);
/* The masks of the bodies of places [begin, end) back to 0 or
 * CR_SOFT_FIXED: the cross group, coloured first, leaves the blocks' own
 * colourings free. */
void cr_sphere_clear_masks(const uint32_t *sorted_pairs, uint32_t begin, uint32_t end, uint32_t *mask);

#endif
