/* Growing boxes found through the grid cells they cover. Internal (the
 * event groups' escaped bodies: a group's query finds its own bodies whose
 * boxes grew beyond the grid's, event_groups.c).
 *
 * Each entered box (id's, read where the caller keeps it: lo at box[2 id],
 * hi at box[2 id + 1]) is filed in a hash table under every cell it covers;
 * when it grows, only the cells newly covered are filed. A query visits the
 * cells its own box covers and tests the boxes filed there, so it finds
 * exactly the entered boxes that overlap it (closed, as cr_box_overlap):
 * two overlapping boxes share a point, and the point's cell lies in both
 * boxes' cell ranges because a cell never decreases along an axis
 * (cr_cell_coord). A box that is not proper (lo > hi or NaN on an axis),
 * covers more than CR_BOX_CELLS_MOST cells along an axis, or finds no room
 * for its cells goes on a short list that every query scans instead: the
 * answer stays exact. Nothing is allocated after cr_box_cells_reserve, and
 * cr_box_cells_clear empties the table in O(1): each bucket carries the
 * stamp of the filling it belongs to. */
#ifndef CAROM_BOX_CELLS_H
#define CAROM_BOX_CELLS_H

#include <stdbool.h>
#include <stdint.h>

#include "carom/math.h"

/* Cells along an axis a box may cover and be filed (else: the wide list),
 * and a query may cover and be answered (else: the caller scans). */
#define CR_BOX_CELLS_MOST 4

typedef struct cr_box_cells {
    double inv_cell;                  /* 1 / the cells' edge */
    const cr_vec3 *box;               /* the entered boxes, the caller's */
    uint32_t *bucket;                 /* 2 per bucket: its stamp, its first entry */
    uint32_t bucket_mask, bucket_capacity, stamp;
    uint32_t *entry;                  /* 2 per entry: the id, the next entry (UINT32_MAX: none) */
    uint32_t entry_count, entry_capacity;
    uint32_t *wide, wide_count, wide_capacity; /* ids scanned by every query */
    uint8_t *is_wide;                 /* each id: on the wide list */
    uint32_t id_capacity;
} cr_box_cells;

struct cr_world;

/* Room for ids < ids and for entries (id, cell) filings; false: out of
 * memory. */
bool cr_box_cells_reserve(struct cr_world *w, cr_box_cells *s, uint32_t ids, uint32_t entries);
/* Empties the table for the boxes at box, in cells of edge cell (> 0). */
void cr_box_cells_clear(cr_box_cells *s, const cr_vec3 *box, double cell);
/* Files id's box as it is now: was is the box at id's last filing (lo,
 * hi; inside the box now), NULL for an id not filed since the clear. */
void cr_box_cells_enter(cr_box_cells *s, uint32_t id, const cr_vec3 *was);
/* Writes to out (room for every id filed) each filed id whose box overlaps
 * [lo, hi] and whose marks[id] is not mark, once, and sets marks[id] to
 * mark for each id it looked at; the count, in no particular order, or
 * UINT32_MAX when [lo, hi] is not proper or covers too many cells: the
 * caller scans its boxes itself. */
uint32_t cr_box_cells_query(const cr_box_cells *s, cr_vec3 lo, cr_vec3 hi, uint32_t *marks, uint32_t mark,
                            uint32_t *out);
void cr_box_cells_free(struct cr_world *w, cr_box_cells *s);

#endif
