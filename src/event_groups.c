/* Stage 4's loop (seed 004 Algorithm 2) over independent groups of bodies,
 * on the world's workers (in turn on one), with the same bits as the one
 * time-ordered loop.
 *
 * Design note. Two bodies can only meet, or read each other, through a grid
 * query: a prediction asks the grid for the bodies whose boxes overlap its
 * path box. The groups are the connected components of the broad pairs (the
 * boxes that overlap at the loop's start) and of the first round's pair
 * events. A group's run pops its own events in time order, as the one loop
 * would (the queue's order is total: a tie is broken by slots and kind, and
 * events equal in all of those are copies of which at most one is fresh),
 * and touches only its own bodies. It differs from the one loop in a single
 * place: it leaves the grid as it is. A body whose path leaves its box in
 * the grid keeps the grown box beside it (escaped), and the group's queries
 * look at its own escaped bodies besides the grid (by the cells their grown
 * boxes cover once there are many, box_cells.h).
 *
 * The one loop's query would have found a body of another group only if the
 * path box overlaps that body's box in the grid (the run sees it and stops)
 * or a box that body grew to within the step: then both boxes escaped, and
 * the escaped boxes of different groups are compared after the runs. Only
 * bodies that may touch count (ball_reach.h): the one loop finds no impact
 * between two balls whose boxes meet only where neither ball can be, and
 * reads nothing else of the other (at the boiling scene's collapse this
 * takes 63 % of the stops away, each of which threw away the run of the
 * group it met, and, once those runs go on, 98 of 112 escaped boxes'
 * joins). Nor does a body of a group whose run is already done and
 * never changed it count: it stays as it was the whole step, as in the
 * one loop, and is read like a body of a group without events (the run
 * stops should they meet, and runs again should that group run again).
 * A run that meets a body of a group without events takes that group as
 * its own and goes on, as the one loop would, unless another run read it
 * (touch_read, touch_take): the group is then joined to the run's cluster.
 * Such groups, and a run that stopped (it met another group, or ran out of
 * its preallocated room: a worker allocates nothing), are put back as they were
 * at the loop's start (each body's state is kept at its first event) and
 * run again together, as one group, until no group meets another. A run
 * that stops flags the group it met, which is then not run (or stops at
 * its next query) in that pass: it runs again with that run anyway. Each
 * group's result is then the one loop's, whichever worker ran it; the
 * counts (impacts, closest points) of a run put back are dropped, and its
 * bodies' closest-point memos put back too (only a cache, but the run
 * again would find the discarded run's last search in it and search anew).
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "ball_reach.h"
#include "box_cells.h"
#include "box_sweep.h"
#include "dem_internal.h"
#include "event_run.h"
#include "insertion_sort.h"
#include "surface_internal.h"
#include "union_find.h"

/* Each body's state that the events loop changes (resolve, cr_body_plan,
 * the landing checks' warm start): kept at its first event of the step. */
#define CR_EVENT_BODY_STATE(X)                                                                                \
    X(x) X(v) X(w) X(q) X(su) X(sv) X(surface) X(ball_state) X(acc) X(alpha) X(vpath) X(dvel) X(t_state)        \
    X(energy_on) X(energy_acc) X(energy_drag) X(t_local) X(plan_end_x) X(plan_end_n) X(plan_end_u) X(plan_end_v) \
    X(plan_end_on) X(stamp) X(events) X(rest) X(replanned) X(asleep)

/* Groups per work item: fixed, not a function of the workers. */
#define CR_GROUP_CHUNK 32u

/* A run's escaped bodies are filed by the cells their grown boxes cover
 * (box_cells.h) once there are this many: fewer are scanned in a row. */
#define CR_ESCAPED_CELLS_FROM 16u

struct cr_event_group_run {
    cr_event_run run;
    cr_event_queue heap;
    uint32_t *query, query_capacity; /* room for every slot: a query never grows it */
    uint32_t *marks, mark, marks_capacity;
    uint32_t *escaped, escaped_count, escaped_capacity; /* this run's bodies with grown boxes */
    cr_box_cells cells;              /* ... by the cells their grown boxes cover, */
    bool cells_on;                   /* once there are CR_ESCAPED_CELLS_FROM of them */
    uint32_t *reads, read_count, read_capacity; /* groups without events read by the step's runs on this
                                                   worker: (the run's cluster, the group read) pairs */
    uint32_t cluster;                /* the group it runs (a cluster root) */
    uint32_t foreign;                /* a body of another group it met; UINT32_MAX: none */
    uint32_t done_reads, taken;      /* bodies of done groups its queries took, groups without
                                        events it took (the step's) */
    cr_closest_tally tally;
    char apart[64];                  /* no cache line shared with the next worker's run (G is
                                        not allocated on a line's start): each counts into its own */
};

typedef struct cr_event_groups {
    uint32_t *parent;                /* union-find over slots, then over groups */
    uint32_t *group_of;              /* each slot's group; UINT32_MAX: not alive */
    uint32_t *body_start, *bodies;   /* each group's bodies, in slot order */
    uint32_t *event_start;           /* each group's first-round events ... */
    cr_event *events;                /* ... in the queue's array order */
    uint32_t *root;                  /* each group's cluster (groups run together) */
    uint32_t *work;                  /* the clusters a pass runs over the workers */
    uint32_t *g_events, *g_deferred; /* each cluster's counts, at its root */
    cr_closest_tally *g_tally;
    uint8_t *g_again;                /* a cluster to run again: 1, 2 with room to grow (it ran out) */
    uint32_t *g_foreign;             /* ... having met this body (UINT32_MAX: none) */
    uint8_t *g_active;               /* a cluster with events (at its root) */
    atomic_uchar *g_met;             /* a cluster with events that a run of this pass stopped on
                                        (at its root): it runs again anyway, so it is not run now */
    _Atomic uint64_t *g_touch;       /* a group without events: who read it, who took it (touch()) */
    atomic_uchar *g_done;            /* a cluster whose run stands (at its root, set with release
                                        once it ended without a stop): its bodies change no more */
    uint8_t *kept, *escaped;         /* each slot: state kept; box grown */
    cr_vec3 *ext;                    /* an escaped slot's box: lo, hi at 2 i, 2 i + 1 */
    uint32_t *escaped_at;            /* an escaped slot's place in its run's list */
    unsigned char *saved;            /* a kept slot's state, record bytes at i */
    cr_closest_memo *memo;           /* ... and its closest-point memo (rolling.c) */
    size_t record;
    uint32_t *sweep;                 /* escaped slots, for the check */
    cr_box_sweep sweeper;            /* its scratch */
    uint32_t *next;                  /* the next group of a cluster run again (UINT32_MAX: none) */
    uint32_t group_count, work_count;
    uint32_t done_reads, taken;      /* the last step's, all runs' (cr_event_groups_counts) */
    uint32_t slot_cap, event_cap;
    size_t saved_cap;
    cr_event_group_run runs[64];     /* one per worker */
} cr_event_groups;

bool cr_events_grouped_fit(const cr_world *w)
{
    return w->surfaces.count > 0 && w->def.law != CR_LAW_STRONGE && !w->def.on_impact;
}

static size_t record_size(const cr_bodies *b)
{
    size_t n = 0;
#define SIZE(f) n += sizeof *b->f;
    CR_EVENT_BODY_STATE(SIZE)
#undef SIZE
    return n;
}

void cr_group_keep(cr_world *w, cr_event_group_run *g, uint32_t i)
{
    (void)g;
    cr_event_groups *G = w->groups;
    if (G->kept[i]) return;
    G->kept[i] = 1;
    const cr_bodies *b = &w->bodies;
    unsigned char *p = G->saved + (size_t)i * G->record;
#define SAVE(f)                                \
    memcpy(p, &b->f[i], sizeof *b->f); \
    p += sizeof *b->f;
    CR_EVENT_BODY_STATE(SAVE)
#undef SAVE
    /* The memo too: a run put back leaves in it its own last search, which
     * the run again would miss, its first plan of the ball searching anew
     * (the same bits: the memo is a cache, surface_internal.h). */
    if (i < w->closest_memo_capacity) G->memo[i] = w->closest_memo[i];
}

void cr_group_put_back(cr_world *w, uint32_t i)
{
    cr_event_groups *G = w->groups;
    G->escaped[i] = 0;
    if (!G->kept[i]) return;
    cr_bodies *b = &w->bodies;
    const unsigned char *p = G->saved + (size_t)i * G->record;
#define LOAD(f)                                \
    memcpy(&b->f[i], p, sizeof *b->f); \
    p += sizeof *b->f;
    CR_EVENT_BODY_STATE(LOAD)
#undef LOAD
    if (i < w->closest_memo_capacity) w->closest_memo[i] = G->memo[i];
}

/* Files run g's escaped bodies by the cells their grown boxes cover. */
static void file_escaped(cr_world *w, cr_event_group_run *g)
{
    cr_box_cells_clear(&g->cells, w->groups->ext, w->broad.cell);
    for (uint32_t k = 0; k < g->escaped_count; ++k) cr_box_cells_enter(&g->cells, g->escaped[k], NULL);
    g->cells_on = true;
}

static inline int place_order(const uint32_t *a, const uint32_t *b) { return (*a > *b) - (*a < *b); }
CR_DEFINE_INSERTION_SORT(sort_places, uint32_t, place_order)

/* Whether balls i and j, each anywhere in its box, cannot touch
 * (ball_reach.h): then the one loop finds no impact between them, whatever
 * either does inside its box. The slack: the chord's sag on a curved
 * surface, which the grid's boxes do not pad (cr_body_path_box pads 1e-3
 * r), twice over, and the touching gap. */
static bool apart(const cr_world *w, uint32_t i, cr_vec3 ilo, cr_vec3 ihi, uint32_t j, cr_vec3 jlo, cr_vec3 jhi)
{
    double ri = w->bodies.radius[i], rj = w->bodies.radius[j], r = ri + rj;
    return cr_balls_apart(ilo, ihi, ri, jlo, jhi, rj, 2e-3 * r + cr_touching_gap(w, r));
}

/* A group without events, touched by runs: 0 none yet, (cluster + 1) in
 * bits 0-31: read by that cluster's runs, with bit 32 set: taken by it (it
 * met the group's body and goes on with the group as its own); a second
 * reader's (cluster + 1) in bits 34-63; all ones: read by more. Once read
 * by another, a cluster may not take it (that run read it as it was); once
 * taken, no other may read it (its bodies change): either stops. Bit 33:
 * its one reader noted the read in its list (cr_group_may_meet), once.
 * Kept over the passes of a step, but for the reads of clusters put back
 * (reset_touch: the two readers kept let it tell when both are). */
#define CR_TOUCH_SHARED UINT64_MAX
#define CR_TOUCH_TAKEN (UINT64_C(1) << 32)
#define CR_TOUCH_NOTED (UINT64_C(1) << 33)
#define CR_TOUCH_WHO UINT64_C(0xffffffff)
#define CR_TOUCH_SECOND 34
#define CR_TOUCH_SECOND_MAX ((UINT64_C(1) << 30) - 1) /* all ones: shared */

static uint64_t touch_second(uint64_t s) { return s >> CR_TOUCH_SECOND; }

/* Run of cluster a reads group c: false when another cluster took it. */
static bool touch_read(cr_event_groups *G, uint32_t c, uint32_t a)
{
    uint64_t mine = (uint64_t)a + 1, s = atomic_load_explicit(&G->g_touch[c], memory_order_acquire);
    for (;;) {
        if (s == CR_TOUCH_SHARED || (s & CR_TOUCH_WHO) == mine || touch_second(s) == mine) return true;
        if (s & CR_TOUCH_TAKEN) return false;
        uint64_t to = !s ? mine
                      : !touch_second(s) && mine < CR_TOUCH_SECOND_MAX ? s | mine << CR_TOUCH_SECOND
                                                                        : CR_TOUCH_SHARED;
        if (atomic_compare_exchange_weak_explicit(&G->g_touch[c], &s, to, memory_order_acq_rel, memory_order_acquire))
            return true;
    }
}

/* Whether cluster a is group c's one reader (word s). */
static bool touch_alone(uint64_t s, uint64_t mine)
{
    return s != CR_TOUCH_SHARED && (s & CR_TOUCH_WHO) == mine && !touch_second(s);
}

/* Run of cluster a takes group c (read by it alone): false if it may not. */
static bool touch_take(cr_event_groups *G, uint32_t c, uint32_t a)
{
    uint64_t mine = (uint64_t)a + 1, s = atomic_load_explicit(&G->g_touch[c], memory_order_acquire);
    for (;;) {
        if (!touch_alone(s, mine)) return false;
        if (s & CR_TOUCH_TAKEN) return true;
        if (atomic_compare_exchange_weak_explicit(&G->g_touch[c], &s, s | CR_TOUCH_TAKEN, memory_order_acq_rel,
                                                  memory_order_acquire))
            return true;
    }
}

/* Whether run of cluster a still has to note its read of group c (without
 * events) in its list: not when it took c (c joins it anyway) or noted it
 * before; a group read by several is noted by each, every time. */
static bool touch_note(cr_event_groups *G, uint32_t c, uint32_t a)
{
    uint64_t mine = (uint64_t)a + 1, s = atomic_load_explicit(&G->g_touch[c], memory_order_acquire);
    for (;;) {
        if (!touch_alone(s, mine)) return true;
        if (s & (CR_TOUCH_TAKEN | CR_TOUCH_NOTED)) return false;
        if (atomic_compare_exchange_weak_explicit(&G->g_touch[c], &s, s | CR_TOUCH_NOTED, memory_order_acq_rel,
                                                  memory_order_acquire))
            return true;
    }
}

uint32_t cr_group_query(cr_world *w, cr_event_group_run *g, uint32_t i, cr_vec3 lo, cr_vec3 hi)
{
    cr_event_groups *G = w->groups;
    cr_broad_phase *bp = &w->broad;
    /* another run of this pass stopped on this cluster, which so runs
     * again with it: the rest of this run would be thrown away */
    if (atomic_load_explicit(&G->g_met[g->cluster], memory_order_relaxed)) {
        g->foreign = i;
        return UINT32_MAX;
    }
    /* the box the one loop's cr_broad_extend would give body i */
    if (!cr_box_inside(lo, hi, bp->lo[i], bp->hi[i])) {
        bool fresh = !G->escaped[i];
        if (fresh) {
            G->escaped[i] = 1;
            G->ext[2 * i] = bp->lo[i];
            G->ext[2 * i + 1] = bp->hi[i];
            G->escaped_at[i] = g->escaped_count;
            g->escaped[g->escaped_count++] = i;
        }
        cr_vec3 was[2] = {G->ext[2 * i], G->ext[2 * i + 1]};
        G->ext[2 * i] = cr_box_min(lo, was[0]);
        G->ext[2 * i + 1] = cr_box_max(hi, was[1]);
        if (!g->cells_on) {
            if (g->escaped_count == CR_ESCAPED_CELLS_FROM) file_escaped(w, g);
        } else if (fresh || !cr_box_inside(lo, hi, was[0], was[1])) {
            cr_box_cells_enter(&g->cells, i, fresh ? NULL : was);
        }
    }
    uint32_t n = cr_broad_query(w, bp, lo, hi, i, &g->query, &g->query_capacity, g->marks, ++g->mark);
    if (n == UINT32_MAX) return n;
    /* a body of another group with events: its state here may not be the
     * one the one loop would see at this time, unless it cannot reach body
     * i whatever it does within its box (the one loop finds no impact
     * with it: left out), or that group's run is done and never changed
     * it (not kept): then it is as it was the whole step, a body to read
     * like one of a group without events (cr_group_may_meet notes the read
     * and stops should they meet). At the boiling scene's collapse 57 of
     * the 128 stops were on such a body, each throwing away the whole
     * run of the group met, 158 impacts on average. */
    uint32_t kept = 0;
    for (uint32_t q = 0; q < n; ++q) {
        uint32_t j = g->query[q], c = G->root[G->group_of[j]];
        if (c != g->cluster && G->g_active[c]) {
            if (apart(w, i, lo, hi, j, bp->lo[j], bp->hi[j])) continue;
            /* acquire: that run's writes (kept[j] among them) are seen */
            if (atomic_load_explicit(&G->g_done[c], memory_order_acquire) && !G->kept[j]) {
                g->query[kept++] = j;
                g->done_reads++;
                continue;
            }
            g->foreign = j;
            atomic_store_explicit(&G->g_met[c], 1, memory_order_relaxed);
            return UINT32_MAX;
        }
        if (c != g->cluster && !touch_read(G, c, g->cluster)) {
            g->foreign = j;
            return UINT32_MAX;
        }
        g->query[kept++] = j;
    }
    n = kept;
    /* the group's own bodies whose boxes grew beyond the grid's, in the
     * order they escaped. From their cells: those whose grown boxes overlap
     * (a body the query took above overlaps its box in the grid, so its
     * mark leaves out none of them); */
    uint32_t *q = g->query + n;
    uint32_t f = g->cells_on ? cr_box_cells_query(&g->cells, lo, hi, g->marks, g->mark, q) : UINT32_MAX;
    if (f != UINT32_MAX) {
        uint32_t m = 0;
        for (uint32_t k = 0; k < f; ++k)
            if (q[k] != i && !cr_box_overlap(lo, hi, bp->lo[q[k]], bp->hi[q[k]])) q[m++] = G->escaped_at[q[k]];
        sort_places(q, m);
        for (uint32_t k = 0; k < m; ++k) q[k] = g->escaped[q[k]];
        return n + m;
    }
    /* else all of them (few, or a query over too many cells) */
    for (uint32_t k = 0; k < g->escaped_count; ++k) {
        uint32_t j = g->escaped[k];
        if (j != i && cr_box_overlap(lo, hi, G->ext[2 * j], G->ext[2 * j + 1]) &&
            !cr_box_overlap(lo, hi, bp->lo[j], bp->hi[j]))
            g->query[n++] = j;
    }
    return n;
}

bool cr_group_may_meet(cr_world *w, cr_event_group_run *g, uint32_t j, double t)
{
    cr_event_groups *G = w->groups;
    uint32_t c = G->root[G->group_of[j]];
    if (c == g->cluster) return true;
    if (t != INFINITY) { /* they meet: run together */
        if (!G->g_active[c] && touch_take(G, c, g->cluster)) {
            g->taken++;
            return true;
        }
        g->foreign = j;
        atomic_store_explicit(&G->g_met[c], 1, memory_order_relaxed);
        return false;
    }
    if (g->read_count && g->reads[2 * g->read_count - 2] == g->cluster && g->reads[2 * g->read_count - 1] == c)
        return true;
    if (!G->g_active[c] && !touch_note(G, c, g->cluster)) return true;
    if (2 * g->read_count + 2 > g->read_capacity &&
        (g->run.fixed || !cr_grow(w, (void **)&g->reads, &g->read_capacity, 2 * g->read_count + 2, sizeof *g->reads)))
        return false;
    g->reads[2 * g->read_count] = g->cluster;
    g->reads[2 * g->read_count + 1] = c;
    g->read_count++;
    return true;
}

/* Runs cluster c (its member groups' first-round events) on run g; its
 * counts go to c's record, and a stop marks it to run again. */
static bool run_cluster(cr_world *w, cr_event_group_run *g, uint32_t c, bool fixed)
{
    cr_event_groups *G = w->groups;
    g->heap.count = 0;
    g->escaped_count = 0;
    g->cells_on = false;
    g->cluster = c;
    g->foreign = UINT32_MAX;
    g->tally = (cr_closest_tally){0.0, 0};
    g->run = (cr_event_run){&g->heap, &g->query, &g->query_capacity, g->marks, &g->mark, 0, 0, fixed, g};
    /* met by a run before it starts: it runs again with that run (joined
     * through that run's foreign body), so not now; its own body as the
     * foreign one marks it to run again */
    bool ok = !atomic_load_explicit(&G->g_met[c], memory_order_relaxed);
    if (!ok) g->foreign = G->bodies[G->body_start[c]];
    /* its groups: chained from the root (G->next) */
    for (uint32_t m = c; m != UINT32_MAX && ok; m = G->next[m])
        for (uint32_t k = G->event_start[m]; k < G->event_start[m + 1] && ok; ++k)
            ok = !(fixed && g->heap.count == g->heap.capacity) && cr_event_push(w, &g->heap, &G->events[k]);
    if (ok) {
        cr_closest_tally *was = cr_closest_tally_use(&g->tally);
        ok = cr_events_loop(w, &g->run);
        cr_closest_tally_use(was);
    }
    G->g_events[c] = g->run.events;
    G->g_deferred[c] = g->run.deferred;
    G->g_tally[c] = g->tally;
    G->g_again[c] = ok ? 0 : g->foreign != UINT32_MAX ? 1 : 2;
    G->g_foreign[c] = g->foreign;
    if (ok) atomic_store_explicit(&G->g_done[c], 1, memory_order_release);
    return ok || fixed || g->foreign != UINT32_MAX;
}

static void group_items(uint32_t start, uint32_t end, uint32_t worker, void *ctx)
{
    cr_world *w = ctx;
    cr_event_groups *G = w->groups;
    uint32_t count = G->work_count;
    for (uint32_t c = start; c < end; ++c) {
        uint32_t last = cr_chunk_end(c, CR_GROUP_CHUNK, count);
        for (uint32_t k = c * CR_GROUP_CHUNK; k < last; ++k) run_cluster(w, &G->runs[worker], G->work[k], true);
    }
}

static uint8_t most(uint8_t a, uint8_t b) { return a > b ? a : b; }

/* Escaped boxes i and j overlap and the balls in them may touch: their
 * clusters are joined, marked to run again. The joins and marks are the same in any order of the pairs:
 * the union keeps the lower root, and join() takes each cluster's mark as
 * the most of its groups'. */
static void join_escaped(uint32_t i, uint32_t j, void *ctx)
{
    const cr_world *w = ctx;
    cr_event_groups *G = w->groups;
    if (apart(w, i, G->ext[2 * i], G->ext[2 * i + 1], j, G->ext[2 * j], G->ext[2 * j + 1])) return;
    uint32_t ci = cr_uf_find(G->parent, G->group_of[i]), cj = cr_uf_find(G->parent, G->group_of[j]);
    if (ci == cj) return;
    cr_uf_union(G->parent, ci, cj);
    G->g_again[ci] = most(G->g_again[ci], 1);
    G->g_again[cj] = most(G->g_again[cj], 1);
}

/* Clusters whose escaped boxes overlap are joined and marked to run
 * again; false: out of memory. */
static bool check_escaped(cr_world *w)
{
    cr_event_groups *G = w->groups;
    uint32_t n = 0;
    /* without a branch: a sixth of the slots escape at 100,000 balls, at
     * random, and the branch on each was mispredicted (n <= i: in room) */
    for (uint32_t i = 0; i < w->bodies.slot_count; ++i) {
        G->sweep[n] = i;
        n += G->escaped[i] != 0;
    }
    return cr_box_sweep_pairs(w, &G->sweeper, G->ext, G->sweep, n, join_escaped, w);
}

/* Joins the clusters that must run together, marks at each root whether
 * it runs again (and sets G->root), *again: whether any does; false: out
 * of memory. */
static bool join(cr_world *w, uint32_t groups, bool *again)
{
    cr_event_groups *G = w->groups;
    uint32_t *p = G->parent;
    for (uint32_t g = 0; g < groups; ++g) { /* a group without events taken by a run: its own */
        uint64_t s = atomic_load_explicit(&G->g_touch[g], memory_order_relaxed);
        if (s != CR_TOUCH_SHARED && (s & CR_TOUCH_TAKEN) && !G->g_active[g]) {
            cr_uf_union(p, g, (uint32_t)(s & CR_TOUCH_WHO) - 1);
            G->g_active[g] = 1;
        }
    }
    for (uint32_t g = 0; g < groups; ++g) /* a run that met another group's body */
        if (G->g_again[g] && G->g_foreign[g] != UINT32_MAX) cr_uf_union(p, g, G->group_of[G->g_foreign[g]]);
    if (!check_escaped(w)) return false;
    for (uint32_t g = 0; g < groups; ++g) {
        uint32_t r = cr_uf_find(p, g);
        G->g_again[r] = most(G->g_again[r], G->g_again[g]);
        G->g_active[r] |= G->g_active[g];
    }
    /* a run that read a group without events, which now runs with events,
     * or a done group's body it never changed, which now runs again: it
     * read that group's bodies as they were, so it runs with them (a
     * cluster joined runs again, so its mark at the root says both) */
    for (bool more = true; more;) {
        more = false;
        for (uint32_t k = 0; k < w->def.worker_count && k < 64; ++k) {
            const uint32_t *r = G->runs[k].reads;
            for (uint32_t e = 0; e < G->runs[k].read_count; ++e) {
                uint32_t a = cr_uf_find(p, r[2 * e]), b = cr_uf_find(p, r[2 * e + 1]);
                if (a == b || !G->g_again[b]) continue;
                cr_uf_union(p, a, b);
                uint32_t c = cr_uf_find(p, a);
                G->g_again[c] = most(1, most(G->g_again[a], G->g_again[b]));
                G->g_active[c] = 1;
                more = true;
            }
        }
    }
    bool any = false;
    for (uint32_t g = 0; g < groups; ++g) {
        G->root[g] = cr_uf_find(p, g);
        any |= G->g_again[G->root[g]] != 0;
    }
    *again = any;
    return true;
}

/* The groups without events that only clusters now put back read or took:
 * untouched again. Those runs are thrown away, so what they read stands no
 * more; the cluster that runs again reads and takes them anew (under its
 * root, which the join may have changed). Left as they were, a read under
 * the cluster's old root counted as another reader's, and the run again
 * could not take the group: it stopped and ran again once more for each
 * such group (a sleeping island woken in a cascade, each ball a group of
 * its own: 730 groups run again in one step of 700 balls at sleep 0.1 s). */
static void reset_touch(cr_event_groups *G, uint32_t groups)
{
    for (uint32_t g = 0; g < groups; ++g) {
        uint64_t s = atomic_load_explicit(&G->g_touch[g], memory_order_relaxed), two = touch_second(s);
        if (s && s != CR_TOUCH_SHARED && G->g_again[G->root[(uint32_t)(s & CR_TOUCH_WHO) - 1]] &&
            (!two || G->g_again[G->root[two - 1]]))
            atomic_store_explicit(&G->g_touch[g], 0, memory_order_relaxed);
    }
}

static bool reserve(cr_world *w, uint32_t slots, uint32_t events)
{
    cr_event_groups *G = w->groups;
    if (!G) {
        G = w->groups = cr_alloc(w, sizeof *G);
        if (!G) return false;
        memset(G, 0, sizeof *G);
        G->record = record_size(&w->bodies);
    }
    uint32_t c = G->slot_cap;
    if (slots > c) {
        uint32_t c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14;
        c1 = c2 = c3 = c4 = c5 = c6 = c7 = c8 = c9 = c10 = c11 = c12 = c13 = c14 = c;
        if (!cr_grow(w, (void **)&G->parent, &c1, slots, sizeof *G->parent) ||
            !cr_grow(w, (void **)&G->group_of, &c2, slots, sizeof *G->group_of) ||
            !cr_grow(w, (void **)&G->body_start, &c3, slots + 1, sizeof *G->body_start) ||
            !cr_grow(w, (void **)&G->bodies, &c4, slots, sizeof *G->bodies) ||
            !cr_grow(w, (void **)&G->event_start, &c5, slots + 1, sizeof *G->event_start) ||
            !cr_grow(w, (void **)&G->root, &c6, slots, sizeof *G->root) ||
            !cr_grow(w, (void **)&G->work, &c7, slots, sizeof *G->work) ||
            !cr_grow(w, (void **)&G->g_events, &c8, slots, sizeof *G->g_events) ||
            !cr_grow(w, (void **)&G->g_deferred, &c9, slots, sizeof *G->g_deferred) ||
            !cr_grow(w, (void **)&G->g_tally, &c10, slots, sizeof *G->g_tally) ||
            !cr_grow(w, (void **)&G->g_foreign, &c11, slots, sizeof *G->g_foreign) ||
            !cr_grow(w, (void **)&G->sweep, &c12, slots, sizeof *G->sweep) ||
            !cr_grow(w, (void **)&G->next, &c13, slots, sizeof *G->next) ||
            !cr_grow(w, (void **)&G->escaped_at, &c14, slots, sizeof *G->escaped_at))
            return false;
        uint32_t d1 = c, d2 = c, d3 = c, d4 = c, d5 = c, d6 = c, d7 = c, d8 = c, d9 = c;
        if (!cr_grow(w, (void **)&G->g_again, &d1, slots, 1) || !cr_grow(w, (void **)&G->kept, &d2, slots, 1) ||
            !cr_grow(w, (void **)&G->memo, &d7, slots, sizeof *G->memo) ||
            !cr_grow(w, (void **)&G->g_active, &d5, slots, 1) ||
            !cr_grow(w, (void **)&G->g_met, &d6, slots, sizeof *G->g_met) ||
            !cr_grow(w, (void **)&G->g_done, &d8, slots, sizeof *G->g_done) ||
            !cr_grow(w, (void **)&G->g_touch, &d9, slots, sizeof *G->g_touch) ||
            !cr_grow(w, (void **)&G->escaped, &d3, slots, 1) ||
            !cr_grow(w, (void **)&G->ext, &d4, 2 * slots, sizeof *G->ext))
            return false;
        uint64_t bytes = (uint64_t)slots * G->record;
        cr_free(w, G->saved);
        G->saved = bytes < SIZE_MAX / 2 ? cr_alloc(w, (size_t)bytes) : NULL;
        if (!G->saved) return false;
        G->slot_cap = slots;
    }
    if (!cr_grow(w, (void **)&G->events, &G->event_cap, events, sizeof *G->events)) return false;
    /* each worker's run: room for every slot's query (twice: the bodies
     * from the grid, then those from the escaped boxes' cells), marks, a
     * queue */
    for (uint32_t k = 0; k < w->def.worker_count && k < 64; ++k) {
        cr_event_group_run *g = &G->runs[k];
        if (g->marks_capacity < slots) {
            uint32_t mc = g->marks_capacity;
            if (!cr_grow(w, (void **)&g->marks, &mc, slots, sizeof *g->marks)) return false;
            memset(g->marks, 0, (size_t)mc * sizeof *g->marks);
            g->marks_capacity = mc;
            g->mark = 0;
        }
        if (!cr_grow(w, (void **)&g->query, &g->query_capacity, 2 * slots, sizeof *g->query) ||
            !cr_grow(w, (void **)&g->reads, &g->read_capacity, 2 * slots, sizeof *g->reads) ||
            !cr_grow(w, (void **)&g->escaped, &g->escaped_capacity, slots, sizeof *g->escaped))
            return false;
    }
    return true;
}

/* Each worker's queue: room for the largest group's events many times over
 * (a run out of room stops and runs again on the calling thread); its
 * escaped boxes' cells: room for a few cells of each of the largest group's
 * bodies (a box without room is scanned by every query instead). */
static bool reserve_queues(cr_world *w, uint32_t most_events, uint32_t most_bodies)
{
    uint64_t need = 1024u + 8u * (uint64_t)most_events + 64u * (uint64_t)most_bodies;
    if (need > UINT32_MAX / 4) need = UINT32_MAX / 4;
    uint64_t cells = 1024u + 8u * (uint64_t)most_bodies;
    if (cells > UINT32_MAX / 4) cells = UINT32_MAX / 4;
    for (uint32_t k = 0; k < w->def.worker_count && k < 64; ++k)
        if (!cr_grow(w, (void **)&w->groups->runs[k].heap.heap, &w->groups->runs[k].heap.capacity, (uint32_t)need,
                     sizeof(cr_event)) ||
            !cr_box_cells_reserve(w, &w->groups->runs[k].cells, w->bodies.slot_count, (uint32_t)cells))
            return false;
    return true;
}

bool cr_events_grouped(cr_world *w)
{
    const cr_bodies *b = &w->bodies;
    const cr_broad_phase *bp = &w->broad;
    uint32_t n = b->slot_count, qn = w->queue.count;
    if (!reserve(w, n, qn)) return false;
    cr_event_groups *G = w->groups;
    uint32_t *p = G->parent;
    /* the groups: components of the broad pairs and the first round's pair
     * events, numbered in slot order of their roots */
    for (uint32_t i = 0; i < n; ++i) p[i] = i;
    for (uint32_t k = 0; k < bp->pair_count; ++k) cr_uf_union(p, bp->pairs[k].a, bp->pairs[k].b);
    const cr_event *ev = w->queue.heap;
    for (uint32_t k = 0; k < qn; ++k)
        if (ev[k].kind == CR_EVENT_PAIR) cr_uf_union(p, ev[k].a, ev[k].b);
    uint32_t groups = 0;
    for (uint32_t i = 0; i < n; ++i) G->group_of[i] = cr_slot_alive(b, i) && cr_uf_find(p, i) == i ? groups++ : UINT32_MAX;
    for (uint32_t i = 0; i < n; ++i)
        if (cr_slot_alive(b, i)) G->group_of[i] = G->group_of[cr_uf_find(p, i)];
    /* bodies and first-round events by group (counting sorts) */
    memset(G->body_start, 0, (size_t)(groups + 1) * sizeof *G->body_start);
    memset(G->event_start, 0, (size_t)(groups + 1) * sizeof *G->event_start);
    for (uint32_t i = 0; i < n; ++i)
        if (G->group_of[i] != UINT32_MAX) G->body_start[G->group_of[i] + 1]++;
    for (uint32_t k = 0; k < qn; ++k) G->event_start[G->group_of[ev[k].a] + 1]++;
    uint32_t most_bodies = 0, most_events = 0, work = 0;
    for (uint32_t g = 0; g < groups; ++g) {
        uint32_t nb = G->body_start[g + 1], ne = G->event_start[g + 1];
        if (ne) {
            G->work[work++] = g;
            most_bodies = nb > most_bodies ? nb : most_bodies;
        }
        most_events = ne > most_events ? ne : most_events;
        G->body_start[g + 1] += G->body_start[g];
        G->event_start[g + 1] += G->event_start[g];
    }
    if (!reserve_queues(w, most_events, most_bodies)) return false;
    /* fill (the starts move on by one group; put back after) */
    for (uint32_t i = 0; i < n; ++i)
        if (G->group_of[i] != UINT32_MAX) G->bodies[G->body_start[G->group_of[i]]++] = i;
    for (uint32_t k = 0; k < qn; ++k) G->events[G->event_start[G->group_of[ev[k].a]]++] = ev[k];
    for (uint32_t g = groups; g > 0; --g) {
        G->body_start[g] = G->body_start[g - 1];
        G->event_start[g] = G->event_start[g - 1];
    }
    G->body_start[0] = G->event_start[0] = 0;
    w->queue.count = 0;
    for (uint32_t g = 0; g < groups; ++g) {
        p[g] = G->root[g] = g;
        G->g_events[g] = G->g_deferred[g] = 0;
        G->g_tally[g] = (cr_closest_tally){0.0, 0};
        G->g_again[g] = 0;
        G->g_foreign[g] = UINT32_MAX;
        G->next[g] = UINT32_MAX;
        G->g_active[g] = G->event_start[g + 1] > G->event_start[g];
        atomic_init(&G->g_met[g], 0);
        atomic_init(&G->g_done[g], 0);
        atomic_init(&G->g_touch[g], 0);
    }
    for (uint32_t k = 0; k < w->def.worker_count && k < 64; ++k) G->runs[k].read_count = G->runs[k].done_reads = G->runs[k].taken = 0;
    memset(G->kept, 0, n);
    memset(G->escaped, 0, n);
    /* every group with events, over the workers */
    G->group_count = groups;
    G->work_count = work;
    cr_run_items(w, group_items, (work + CR_GROUP_CHUNK - 1) / CR_GROUP_CHUNK, w);
    /* groups that met another: joined with it and run again, together, on
     * this thread, until none does */
    uint32_t rerun = 0;
    for (;;) {
        bool again;
        if (!join(w, groups, &again)) return false;
        if (!again) break;
        reset_touch(G, groups);
        for (uint32_t g = 0; g < groups; ++g) G->next[g] = UINT32_MAX;
        for (uint32_t g = groups; g-- > 0;) {
            if (!G->g_again[G->root[g]]) continue;
            if (G->root[g] != g) { /* chained after its root, in group order */
                G->next[g] = G->next[G->root[g]];
                G->next[G->root[g]] = g;
            }
            for (uint32_t k = G->body_start[g]; k < G->body_start[g + 1]; ++k) cr_group_put_back(w, G->bodies[k]);
            G->g_events[g] = G->g_deferred[g] = 0;
            G->g_tally[g] = (cr_closest_tally){0.0, 0};
            G->g_foreign[g] = UINT32_MAX;
            atomic_store_explicit(&G->g_done[g], 0, memory_order_relaxed);
            if (G->root[g] != g) G->g_again[g] = 0;
            rerun++;
        }
        /* over the workers again, but those that ran out of room: listed
         * before (at the end of G->work, last first), as a run on a worker
         * that runs out of room now marks its cluster 2 too, with its
         * bodies not put back */
        for (uint32_t g = 0; g < groups; ++g) atomic_store_explicit(&G->g_met[g], 0, memory_order_relaxed);
        G->work_count = 0;
        uint32_t alone = groups;
        for (uint32_t g = 0; g < groups; ++g)
            if (G->root[g] == g && G->g_again[g]) G->work[G->g_again[g] == 1 ? G->work_count++ : --alone] = g;
        cr_run_items(w, group_items, (G->work_count + CR_GROUP_CHUNK - 1) / CR_GROUP_CHUNK, w);
        for (uint32_t k = groups; k-- > alone;)
            if (!run_cluster(w, &G->runs[0], G->work[k], false)) return false;
    }
    /* the counts of the runs kept */
    uint32_t events = 0, deferred = 0;
    for (uint32_t g = 0; g < groups; ++g) {
        events += G->g_events[g];
        deferred += G->g_deferred[g];
        w->closest_iterations += G->g_tally[g].iterations;
        w->closest_calls += G->g_tally[g].calls;
    }
    G->done_reads = G->taken = 0;
    for (uint32_t k = 0; k < w->def.worker_count && k < 64; ++k) {
        G->done_reads += G->runs[k].done_reads;
        G->taken += G->runs[k].taken;
    }
    w->stats.events += events;
    w->stats.events_deferred += deferred;
    w->stats.event_groups = work;
    w->stats.event_group_largest = most_bodies;
    w->stats.event_groups_rerun = rerun;
    /* The grown boxes stay out of the grid: after the events nothing asks
     * it (the finish reads the broad pairs; the next step builds it anew;
     * cr_world_max_overlap builds its own). */
    return true;
}

void cr_event_groups_counts(const cr_world *w, uint32_t *done_reads, uint32_t *taken)
{
    *done_reads = w->groups ? w->groups->done_reads : 0;
    *taken = w->groups ? w->groups->taken : 0;
}

void cr_events_groups_free(cr_world *w)
{
    cr_event_groups *G = w->groups;
    if (!G) return;
    void *arrays[] = {G->parent, G->group_of, G->body_start, G->bodies, G->event_start, G->events, G->root,
                      G->work, G->g_events, G->g_deferred, G->g_tally, G->g_again, G->g_foreign, G->kept,
                      G->escaped, G->ext, G->saved, G->sweep, G->next, G->g_active, G->escaped_at, (void *)G->g_met, (void *)G->g_done, (void *)G->g_touch, G->memo};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; ++k) cr_free(w, arrays[k]);
    for (int k = 0; k < 64; ++k) {
        cr_free(w, G->runs[k].heap.heap);
        cr_free(w, G->runs[k].query);
        cr_free(w, G->runs[k].marks);
        cr_free(w, G->runs[k].escaped);
        cr_free(w, G->runs[k].reads);
        cr_box_cells_free(w, &G->runs[k].cells);
    }
    cr_box_sweep_free(w, &G->sweeper);
    cr_free(w, G);
    w->groups = NULL;
}
