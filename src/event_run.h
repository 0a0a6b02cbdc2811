/* One run of the events loop (events.c): the world's own, or one group's
 * of independent bodies on a worker (event_groups.c). */
#ifndef CAROM_EVENT_RUN_H
#define CAROM_EVENT_RUN_H

#include "event_queue.h"
#include "world_internal.h"

typedef struct cr_event_group_run cr_event_group_run;

typedef struct cr_event_run {
    cr_event_queue *queue;      /* its events, earliest first */
    uint32_t **query;           /* grid query results (and their capacity) */
    uint32_t *query_capacity;
    uint32_t *marks, *mark;     /* the query's dedupe marks (cr_broad_query) */
    uint32_t events, deferred;  /* impacts resolved, and left by max_events_per_body */
    bool fixed;                 /* the queue may not grow (a group's run on a worker) */
    cr_event_group_run *group;  /* a group's run; NULL: the world's */
} cr_event_run;

/* The events in time order until the queue is empty; false: out of memory
 * (the world's run) or stopped (a group's, to be run again). */
bool cr_events_loop(cr_world *w, cr_event_run *run);

/* event_groups.c. The world may take its events in groups: surfaces, no
 * impact callback (its calls come in time order), not the Stronge law. On
 * one thread too: the groups run in turn, each with its own small queue and
 * its bodies close in memory, and the events stage of the 100,000-ball
 * boiling scene at 60 Hz takes 187 ms a step instead of the one loop's 332,
 * with the same bits. */
bool cr_events_grouped_fit(const cr_world *w);
/* The whole loop of the step in groups (the first round's events in
 * w->queue); false: out of memory. */
bool cr_events_grouped(cr_world *w);
/* A group's grid query for body i's path box [lo, hi] into the run's query
 * list: the count, or UINT32_MAX when the group must stop. */
uint32_t cr_group_query(cr_world *w, cr_event_group_run *g, uint32_t i, cr_vec3 lo, cr_vec3 hi);
/* Whether a group's run may go on with body j in its query, its impact
 * time t: j is its own, or of a group without events or one whose run is
 * done and never changed j (j stays as it is the whole step), and does not
 * meet it (t infinite: the read is noted, so that the run is made again
 * should j's group come to move or run again), or j's group is without
 * events and read by no other run: the run takes it as its own. */
bool cr_group_may_meet(cr_world *w, cr_event_group_run *g, uint32_t j, double t);
/* Body i is about to change: its state at the events' start is kept, its
 * closest-point memo too. */
void cr_group_keep(cr_world *w, cr_event_group_run *g, uint32_t i);
/* Body i as it was at the loop's start (what cr_group_keep kept), its box
 * as the grid holds it, its memo as it was: a group run again searches
 * from there, as its first run did. */
void cr_group_put_back(cr_world *w, uint32_t i);
/* The last step's bodies of done groups that runs read instead of
 * stopping (queries that took them), and groups without events that runs
 * took as their own when they met them, runs thrown away included: for
 * tests. */
void cr_event_groups_counts(const cr_world *w, uint32_t *done_reads, uint32_t *taken);

#endif
