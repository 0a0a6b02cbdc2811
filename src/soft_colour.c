/* The colouring of the sub-stepped solver's points (soft_colour.h). */
#include "soft_colour.h"

#include <stddef.h>
#include <string.h>

_Static_assert(offsetof(cr_soft_point, b) == sizeof(uint32_t), "a point starts with its bodies a, b");
_Static_assert(CR_SOFT_COLOURS < 31, "a body's colours are the bits of a uint32_t below CR_SOFT_FIXED");

/* The lowest colour not in used (CR_SOFT_COLOURS: none; the overflow). */
static uint32_t free_colour(uint32_t used)
{
    uint32_t free = ~used & ((1u << CR_SOFT_COLOURS) - 1u);
    if (!free) return CR_SOFT_COLOURS;
#if defined(__GNUC__) || defined(__clang__)
    return (uint32_t)__builtin_ctz(free);
#else
    uint32_t c = 0;
    while (!(free >> c & 1u)) ++c;
    return c;
#endif
}

/* Point k's body indices a, b: the first two members of its struct. */
static const uint32_t *pair_of(const void *points, size_t point_size, uint32_t k)
{
    return (const uint32_t *)((const char *)points + (size_t)k * point_size);
}

void cr_soft_colour_pairs(const double *inv_mass, size_t body_size, uint32_t body_count, const void *points,
                          size_t point_size, uint32_t n, bool manifolds, uint32_t *mask, uint8_t *colour,
                          cr_soft_colours *out)
{
    for (uint32_t i = 0; i < body_count; ++i)
        mask[i] = *(const double *)((const char *)inv_mass + (size_t)i * body_size) > 0.0 ? 0u : CR_SOFT_FIXED;
    cr_soft_colour_masked(points, point_size, n, manifolds, mask, colour, out);
}

void cr_soft_colour_masked(const void *points, size_t point_size, uint32_t n, bool manifolds, uint32_t *mask,
                           uint8_t *colour, cr_soft_colours *out)
{
    cr_soft_colour_min(points, point_size, n, manifolds, CR_SOFT_MIN_COLOUR, mask, colour, out);
}

void cr_soft_colour_min(const void *points, size_t point_size, uint32_t n, bool manifolds, uint32_t min_runs,
                        uint32_t *mask, uint8_t *colour, cr_soft_colours *out)
{
    uint32_t runs = 0, size[CR_SOFT_COLOURS + 1] = {0};
    for (uint32_t k = 0; k < n; ++k) {
        const uint32_t *ab = pair_of(points, point_size, k);
        if (manifolds && k > 0 && ab[0] == pair_of(points, point_size, k - 1)[0] &&
            ab[1] == pair_of(points, point_size, k - 1)[1])
            continue;
        /* a new run: greedy in contact order (Box2D's b2AssignJointColor /
         * contact colour). A body that cannot move is read, never written,
         * by the passes: any number of runs of one colour may share it
         * (its mask is CR_SOFT_FIXED alone, never a colour). */
        uint32_t a = ab[0], b = ab[1], ma = mask[a], mb = mask[b];
        uint32_t c = free_colour((ma | mb) & ~CR_SOFT_FIXED);
        if (c < CR_SOFT_COLOURS) {
            if (!(ma & CR_SOFT_FIXED)) mask[a] = ma | 1u << c;
            if (!(mb & CR_SOFT_FIXED)) mask[b] = mb | 1u << c;
        }
        out->run_start[runs] = k;
        colour[runs++] = (uint8_t)c;
        size[c]++;
    }
    out->run_start[runs] = n;
    out->run_count = runs;
    /* small colours join the overflow; the kept ones are renumbered in order */
    uint8_t map[CR_SOFT_COLOURS + 1];
    uint32_t kept = 0;
    for (uint32_t c = 0; c < CR_SOFT_COLOURS; ++c) map[c] = size[c] >= min_runs ? (uint8_t)kept++ : 0xff;
    for (uint32_t c = 0; c <= CR_SOFT_COLOURS; ++c)
        if (c == CR_SOFT_COLOURS || map[c] == 0xff) map[c] = (uint8_t)kept;
    /* counting sort by colour, stable: each colour's runs in contact order */
    uint32_t at[CR_SOFT_COLOURS + 1] = {0};
    for (uint32_t c = 0; c <= CR_SOFT_COLOURS; ++c) at[map[c]] += size[c];
    for (uint32_t c = 0, sum = 0; c <= kept; ++c) {
        uint32_t s = at[c];
        out->start[c] = at[c] = sum;
        sum += s;
    }
    for (uint32_t r = 0; r < runs; ++r) out->order[at[map[colour[r]]]++] = r;
    out->count = kept;
}

void cr_soft_colour(const cr_soft_body *bodies, uint32_t body_count, const cr_soft_point *p, uint32_t n,
                    uint32_t *mask, uint8_t *colour, cr_soft_colours *out)
{
    cr_soft_colour_pairs(&bodies->inv_mass, sizeof *bodies, body_count, p, sizeof *p, n, true, mask, colour, out);
}
