/* Union-find over uint32_t indices with parent links p (p[i] == i: a
 * root): path halving, and the lower root kept on a join, so that a set's
 * representative is its lowest index whatever the order of the joins
 * (deterministic islands and groups). Used by the LCP's islands (lcp.c),
 * the rigid bodies' sleep islands (rigid_sleep.c) and the event groups
 * (event_groups.c). Internal. */
#ifndef CAROM_UNION_FIND_H
#define CAROM_UNION_FIND_H

#include <stdint.h>

static inline uint32_t cr_uf_find(uint32_t *p, uint32_t i)
{
    while (p[i] != i) {
        p[i] = p[p[i]];
        i = p[i];
    }
    return i;
}

/* Joins the sets of i and j; the lower root stays. */
static inline void cr_uf_union(uint32_t *p, uint32_t i, uint32_t j)
{
    i = cr_uf_find(p, i);
    j = cr_uf_find(p, j);
    if (i < j) p[j] = i;
    else if (j < i) p[i] = j;
}

#endif
