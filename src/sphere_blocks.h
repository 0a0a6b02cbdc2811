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

/* The seams' grid (the second level of blocks): g shifted by half a
 * column along each axis of more than one column, with one column fewer
 * there (its end columns reach out to the bounds' ends). A point across
 * blocks lies near a line of g, so inside one seam block unless near a
 * place where a seam line crosses a line of g (a block's side's middle):
 * the seam blocks (no two share a moving body) take each its points on
 * one worker, as the blocks do, and only those few points across seam
 * blocks are left for the coloured pass over the workers. count 0: fewer
 * than two seam blocks (the points across blocks all coloured as before). */
cr_sphere_grid cr_sphere_seam_grid(const cr_sphere_grid *g);

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

/* Groups [g0, g0 + n) (their places [first[g], first[g + 1])) most
 * points first, ties by group, into order: a worker that takes the
 * groups one at a time, in this order, ends no later than a group's time
 * after the other, mostly a small one's (the largest last could leave one
 * idle for a whole large group). From the points alone, a total order:
 * never the worker count. */
typedef struct cr_sphere_group_size {
    uint32_t points, g;
} cr_sphere_group_size;
void cr_sphere_groups_by_size(const uint32_t *first, uint32_t g0, uint32_t n, cr_sphere_group_size *order);

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
/* The masks of the moving bodies of places [begin, end) back to 0 (a
 * fixed body's, CR_SOFT_FIXED, is not written, as the colouring writes
 * none: groups on no common moving body may clear theirs at once): the
 * cross group and the seam blocks, coloured first, leave the blocks' own
 * colourings free. */
void cr_sphere_clear_masks(const uint32_t *sorted_pairs, uint32_t begin, uint32_t end, uint32_t *mask);

#endif
