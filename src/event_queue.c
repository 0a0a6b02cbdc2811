/* Binary min-heap of impact events; see event_queue.h. */
#include "event_queue.h"

#include "world_internal.h"

bool cr_event_push(cr_world *w, cr_event_queue *q, const cr_event *e)
{
    if (!cr_grow(w, (void **)&q->heap, &q->capacity, q->count + 1, sizeof *q->heap)) return false;
    uint32_t i = q->count++;
    while (i > 0) {
        uint32_t parent = (i - 1) / 2;
        if (!cr_event_before(e, &q->heap[parent])) break;
        q->heap[i] = q->heap[parent];
        i = parent;
    }
    q->heap[i] = *e;
    return true;
}

bool cr_event_pop(cr_event_queue *q, cr_event *e)
{
    if (q->count == 0) return false;
    *e = q->heap[0];
    cr_event last = q->heap[--q->count];
    uint32_t i = 0;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= q->count) break;
        if (c + 1 < q->count && cr_event_before(&q->heap[c + 1], &q->heap[c])) ++c;
        if (!cr_event_before(&q->heap[c], &last)) break;
        q->heap[i] = q->heap[c];
        i = c;
    }
    if (q->count > 0) q->heap[i] = last;
    return true;
}

void cr_event_clear(cr_event_queue *q) { q->count = 0; }

void cr_event_free(cr_world *w, cr_event_queue *q)
{
    cr_free(w, q->heap);
    q->heap = NULL;
    q->count = q->capacity = 0;
}
