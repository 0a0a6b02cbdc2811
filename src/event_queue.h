/* Event queue of seed 004 §6: impacts ordered by time within the step.
 *
 * A binary min-heap. Ties (equal times) are broken by a fixed rule — lower
 * first body slot, then kind (plane, surface, state change, pair), then lower
 * second index — so the order never depends on memory addresses or insertion
 * history (issue: deterministic ties). Events carry the stamps of their
 * bodies at prediction time; an event whose body has taken part in another
 * event since is stale and skipped when popped (seed 004 Algorithm 2: only
 * the first event of a ball counts, the others are predicted again).
 */
#ifndef CAROM_EVENT_QUEUE_H
#define CAROM_EVENT_QUEUE_H

#include <stdbool.h>
#include <stdint.h>

/* Seed 004 Definition 2's event types: ball-plane (2), a flying ball
 * landing on a surface (3), a state change (4), ball-ball (1). */
typedef enum cr_event_kind { CR_EVENT_PLANE = 0, CR_EVENT_SURFACE, CR_EVENT_STATE, CR_EVENT_PAIR } cr_event_kind;

typedef struct cr_event {
    double t;
    uint32_t a, b;          /* body slots; b: plane or surface index, unused for a state change */
    uint32_t stamp_a, stamp_b;
    uint32_t kind;
} cr_event;

typedef struct cr_event_queue {
    cr_event *heap;
    uint32_t count, capacity;
} cr_event_queue;

struct cr_world;

static inline bool cr_event_before(const cr_event *x, const cr_event *y)
{
    if (x->t != y->t) return x->t < y->t;
    if (x->a != y->a) return x->a < y->a;
    if (x->kind != y->kind) return x->kind < y->kind;
    return x->b < y->b;
}

bool cr_event_push(struct cr_world *w, cr_event_queue *q, const cr_event *e);
/* Removes the earliest event into *e; false when empty. */
bool cr_event_pop(cr_event_queue *q, cr_event *e);
void cr_event_clear(cr_event_queue *q);
void cr_event_free(struct cr_world *w, cr_event_queue *q);

#endif
