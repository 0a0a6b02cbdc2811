/* Resting contacts of balls on surfaces.
 *
 * Seed 004 plans each ball on its own, under gravity and the surface. Two
 * balls that lie against each other in a valley, or a ball against a wall,
 * would then be driven into each other every step and pushed apart again
 * by position projection, which costs energy it has not got. Seed 001 §3.2
 * gives the missing piece: a resting contact exerts the force that stops
 * the acceleration into it, f_c = -n.F_ext, and nothing when it would pull.
 * So each ball collects the directions it leans on (touching balls and
 * walls), and its plan removes the parts of its velocity and acceleration
 * that point into them (rolling.c). These forces do no work along the path,
 * so the energy balance of eq. 43 is unchanged.
 *
 * A flying ball that lies on balls bound to a surface (one on top of
 * others in a hollow) needs the same force: planned under gravity alone it
 * falls into them every step, and position projection, which holds the
 * surface balls, lifts it all the way back (seed 000 c.5 with m_red = 1),
 * by more than it fell where it lies on several (the passes push along one
 * normal after another). The end-of-step energy control can pay that only
 * out of kinetic energy, and a pile at rest has none, so the projection made
 * energy. In the event method a flying ball therefore leans on the surface
 * balls it touches too: its acceleration and small approaching velocity
 * lose what points into them (cr_rest_hold), and it does not sink in.
 * Such a ball leans on the walls it touches as well: held by a surface ball
 * alone, the ball's force pushes it sideways, into a wall beside it, and
 * projection pushed it out of the wall and into the surface ball again,
 * every step (up to 8.6 mm deep and energy gained, tests/test_squeeze.c).
 */
#include <math.h>

#include "dem_internal.h"
#include "world_internal.h"

/* Seed 001 §3.2: one contact force per contact, so one direction per
 * contact. Each impact of a resting pair (events.c lean_after) used to add
 * its normal again: in the 100,000-ball boiling scene a ball's set filled
 * with three contacts twice over, the direction of a fourth ball it was then
 * brought to rest on was dropped, its plan drove it back into that ball at
 * the same instant, hundreds of times, until it passed the events' hard cap
 * and was no longer predicted: its last plan ran into a third ball, 0.45 mm
 * deep, which projection does not part (both on the surface:
 * docs/benchmarks.md, "a full rest set"). A contact met again takes its
 * new direction (it has rolled round a little since) in its own place. */
void cr_rest_add(cr_world *w, uint32_t i, cr_vec3 n, uint32_t on)
{
    cr_rest_set *r = &w->bodies.rest[i];
    uint32_t k = 0;
    while (k < r->count && r->on[k] != on) ++k;
    if (k == CR_REST_MAX) return;
    r->n[k] = n;
    r->on[k] = on;
    if (k == r->count) r->count++;
}

void cr_rest_add_walls(cr_world *w, uint32_t i)
{
    cr_bodies *b = &w->bodies;
    for (uint32_t k = 0; k < w->planes.count; ++k) {
        const cr_plane_def *pl = &w->planes.def[k];
        if (cr_rest_touching(-cr_penetration_sphere_plane(b->x[i], b->radius[i], pl->point, pl->normal), b->radius[i]))
            cr_rest_add(w, i, pl->normal, k | CR_REST_PLANE);
    }
}

/* The nearest vector to a whose parts along the contacts in `active`
 * (bits into r) are exactly lo[k]: a + sum lambda_k n_k with the Gram
 * system G lambda = lo - N a (at most 3 of them: the space has 3
 * dimensions). False where that system is singular, a lambda_k is negative
 * (the contact would pull, eq. 3 released) or another contact is left
 * short of its lo by more than tol. */
static bool hold_on(const cr_rest_set *r, const double *lo, cr_vec3 a, uint32_t active, double tol, cr_vec3 *out)
{
    uint32_t idx[3], m = 0;
    for (uint32_t k = 0; k < r->count; ++k)
        if (active & (1u << k)) idx[m++] = k;
    double G[3][4];
    for (uint32_t p = 0; p < m; ++p) {
        for (uint32_t q = 0; q < m; ++q) G[p][q] = cr_v3_dot(r->n[idx[p]], r->n[idx[q]]);
        G[p][3] = lo[idx[p]] - cr_v3_dot(a, r->n[idx[p]]);
    }
    /* Gaussian elimination with partial pivoting; a pivot below 1e-9 is a
     * pair of (nearly) parallel normals, left to a smaller set */
    for (uint32_t c = 0; c < m; ++c) {
        uint32_t piv = c;
        for (uint32_t p = c + 1; p < m; ++p)
            if (fabs(G[p][c]) > fabs(G[piv][c])) piv = p;
        if (!(fabs(G[piv][c]) > 1e-9)) return false;
        for (uint32_t q = 0; q < 4; ++q) {
            double t = G[c][q];
            G[c][q] = G[piv][q];
            G[piv][q] = t;
        }
        for (uint32_t p = c + 1; p < m; ++p) {
            double f = G[p][c] / G[c][c];
            for (uint32_t q = c; q < 4; ++q) G[p][q] -= f * G[c][q];
        }
    }
    double lambda[3];
    for (uint32_t c = m; c-- > 0;) {
        double s = G[c][3];
        for (uint32_t q = c + 1; q < m; ++q) s -= G[c][q] * lambda[q];
        lambda[c] = s / G[c][c];
        if (lambda[c] < 0.0) return false;
    }
    for (uint32_t p = 0; p < m; ++p) a = cr_v3_madd(a, r->n[idx[p]], lambda[p]);
    for (uint32_t k = 0; k < r->count; ++k)
        if (cr_v3_dot(a, r->n[k]) < lo[k] - tol) return false;
    *out = a;
    return true;
}

/* Seed 001 §3.2 with several contacts at once: the vector nearest to a
 * whose part along each of r's directions n_k is at least lo[k],
 * a + sum_k lambda_k n_k with lambda_k >= 0, and lambda_k > 0 only where
 * that part is then exactly lo[k] (eq. 2 and 3, f_c = -n.F_ext per unit
 * mass, released when it would pull). Projected Gauss-Seidel on the
 * lambdas until they settle: one sweep is exact for one contact or
 * orthogonal ones; a ball on three others in a hollow needs a few tens.
 * With every lo[k] = 0 the result is the projection of a onto a convex
 * cone through 0, never longer than a.
 *
 * A ball wedged between two nearly opposite contacts (a flying ball held
 * between surface balls on either side, normals 172 degrees apart) makes
 * the sweeps crawl: in the 3,000-ball boiling scene (docs/benchmarks.md,
 * "hold") 100 of them left its acceleration 0.39 m/s^2 and its velocity
 * 2.7 mm/s into one neighbour, and its held plan ended 0.089 mm inside it.
 * Where the sweeps have not settled (a contact short, or pushing where
 * it is open: a point that keeps every contact but is not the nearest,
 * seen in random sets of six), the answer is found exactly
 * instead: it is the one set of at most 3 active contacts whose equalities
 * give lambda >= 0 and keep every other contact (the KKT conditions of
 * this nearest-point problem, unique in a), the nearest of those that pass
 * the tolerance. Where the sweeps converge nothing changes. */
cr_vec3 cr_rest_hold(const cr_rest_set *r, const double *lo, cr_vec3 a)
{
    double lambda[CR_REST_MAX] = {0.0};
    const cr_vec3 a0 = a;
    double scale = cr_v3_len(a);
    for (uint32_t k = 0; k < r->count; ++k) scale = fmax(scale, fabs(lo[k]));
    double settle = 1e-15 * scale;
    for (int sweep = 0; sweep < 100; ++sweep) {
        double change = 0.0;
        for (uint32_t k = 0; k < r->count; ++k) {
            double l = fmax(0.0, lambda[k] + lo[k] - cr_v3_dot(a, r->n[k]));
            a = cr_v3_madd(a, r->n[k], l - lambda[k]);
            change = fmax(change, fabs(l - lambda[k]));
            lambda[k] = l;
        }
        if (!(change > settle)) break;
    }
    /* settled to 1e-9: each contact kept, and pushing only where it is
     * closed (a further sweep would move no lambda by more) */
    double tol = 1e-9 * scale;
    bool settled = true;
    for (uint32_t k = 0; k < r->count; ++k) {
        double slack = cr_v3_dot(a, r->n[k]) - lo[k];
        settled &= !(fmax(-slack, fmin(lambda[k], slack)) > tol);
    }
    if (settled) return a;
    double best = INFINITY;
    cr_vec3 exact = a;
    for (uint32_t active = 1; active < (1u << r->count); ++active) {
        uint32_t m = 0;
        for (uint32_t k = 0; k < r->count; ++k) m += (active >> k) & 1u;
        cr_vec3 c;
        if (m > 3 || !hold_on(r, lo, a0, active, tol, &c)) continue;
        double d = cr_v3_len2(cr_v3_sub(c, a0));
        if (d < best) {
            best = d;
            exact = c;
        }
    }
    return exact;
}

void cr_rest_in_plane(const cr_rest_set *r, cr_vec3 n, cr_rest_set *d)
{
    d->count = r->count;
    d->held = 0;
    for (uint32_t k = 0; k < r->count; ++k) d->n[k] = cr_v3_normalize(cr_v3_reject(r->n[k], n));
}

uint32_t cr_rest_slow(const cr_rest_set *r, const cr_rest_set *in_plane, cr_vec3 a, double limit, cr_rest_set *held)
{
    uint32_t mask = 0;
    held->count = 0;
    const cr_vec3 *d = in_plane ? in_plane->n : r->n;
    for (uint32_t k = 0; k < r->count; ++k) {
        if (-cr_v3_dot(a, r->n[k]) > limit) continue;
        held->n[held->count++] = d[k];
        mask |= 1u << k;
    }
    return mask;
}

/* Flying ball i's plan (event method) held by what it leans on, over the
 * rest of the step, h. First its velocity, when what points into them is a
 * resting approach (at most the resting speed; faster is an impact, for the
 * events): §3.2 starts from v_N = 0, and the held velocity is never faster.
 * Then its acceleration, so that its path x + v t + a t^2 / 2 ends the step
 * out of each contact: a.n_k >= -2 (v.n_k) / h. A contact it moves away
 * from may pull it back to touching at the step's end, no further; one it
 * slides along (v.n_k = 0) holds it as eq. 3 does. The held force is
 * constant and, where lambda_k > 0, ends the step with its contact exactly
 * closed (d.n_k = 0): it does no work over the step, so the ball ends it
 * with the energy it started with (less what the velocity lost), and
 * nothing is left for position projection to lift. Holding the
 * acceleration at a.n_k >= 0 instead of a ball that moves away would let it
 * climb over its neighbour at constant speed, gaining height for nothing;
 * releasing it would let it fall back into the neighbour within the step,
 * with no event (they touched at its start), for projection to lift. */
void cr_rest_hold_flying(cr_world *w, uint32_t i)
{
    cr_bodies *b = &w->bodies;
    const cr_rest_set *r = &b->rest[i];
    if (r->count == 0) return;
    double lo[CR_REST_MAX] = {0.0};
    /* each contact approached no faster than resting, as a ball on a
     * surface leans (rolling.c lean_on): a ball that ran into one of two
     * faster kept its whole velocity, and sank into the other at 0.08 m/s,
     * 0.6 mm a step of the boiling scene, with no impact (cr_pair_rests
     * counts that contact held) */
    cr_rest_set held;
    b->rest[i].held = cr_rest_slow(r, NULL, b->v[i], w->resting_speed, &held);
    b->v[i] = cr_rest_hold(&held, lo, b->v[i]);
    double h = w->def.dt - b->t_local[i];
    for (uint32_t k = 0; k < r->count && h > 0.0; ++k)
        lo[k] = -2.0 * fmax(cr_v3_dot(b->v[i], r->n[k]), 0.0) / h;
    b->acc[i] = cr_rest_hold(r, lo, b->acc[i]);
}

bool cr_rest_flying_on(const cr_world *w, uint32_t i, uint32_t j)
{
    const cr_bodies *b = &w->bodies;
    return w->def.method == CR_METHOD_EVENT && b->surface[i] == CR_NO_SURFACE && cr_slot_dynamic(b, i) &&
           !b->asleep[i] && b->surface[j] != CR_NO_SURFACE;
}

/* Broad pairs per work item of the touching test: fixed, not a function
 * of the workers. */
#define CR_LEAN_CHUNK 1024u

/* Pair k's gap when one of its balls is on a surface, else INFINITY
 * (never leaning). Reads the bodies only. */
static double pair_gap(const cr_world *w, uint32_t k)
{
    const cr_bodies *b = &w->bodies;
    uint32_t i = w->broad.pairs[k].a, j = w->broad.pairs[k].b;
    if (b->surface[i] == CR_NO_SURFACE && b->surface[j] == CR_NO_SURFACE) return INFINITY;
    return -cr_overlap_sphere_sphere(b->x[i], b->radius[i], b->x[j], b->radius[j], NULL);
}

static void gap_items(uint32_t start, uint32_t end, uint32_t worker, void *ctx)
{
    (void)worker;
    cr_world *w = ctx;
    uint32_t count = w->broad.pair_count;
    for (uint32_t c = start; c < end; ++c) {
        uint32_t last = cr_chunk_end(c, CR_LEAN_CHUNK, count);
        for (uint32_t k = c * CR_LEAN_CHUNK; k < last; ++k) w->pair_time[k] = pair_gap(w, k);
    }
}

/* Ball i's walls (a surface ball's, or a flying ball's that leans on a
 * surface ball), and its plan again when it leans on anything: it writes
 * ball i only (cr_run_balls: over the workers). */
static void lean_one(cr_world *w, uint32_t i)
{
    cr_bodies *b = &w->bodies;
    if (!cr_slot_alive(b, i) || !cr_slot_dynamic(b, i) || b->asleep[i]) return; /* asleep: it stays */
    if (cr_ball_leans(b, i)) cr_rest_add_walls(w, i);
    if (b->rest[i].count == 0) return;
    cr_body_plan(w, i);
    b->replanned[i] = 1;
}

cr_status cr_surface_resting_contacts(cr_world *w)
{
    cr_bodies *b = &w->bodies;
    if (w->surfaces.count == 0) return CR_OK;
    /* Touching pairs: their gaps over the workers into w->pair_time
     * (scratch here; the events stage fills it anew), then each ball's
     * directions added in the pairs' order, as one pass would. */
    uint32_t pairs = w->broad.pair_count;
    bool spread = cr_parallel(w) && pairs > CR_LEAN_CHUNK;
    if (spread) {
        if (!cr_grow(w, (void **)&w->pair_time, &w->pair_time_capacity, pairs, sizeof *w->pair_time))
            return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "contacts: out of memory");
        cr_run_items(w, gap_items, (pairs + CR_LEAN_CHUNK - 1) / CR_LEAN_CHUNK, w);
    }
    for (uint32_t k = 0; k < pairs; ++k) {
        uint32_t i = w->broad.pairs[k].a, j = w->broad.pairs[k].b;
        double gap = spread ? w->pair_time[k] : pair_gap(w, k);
        if (!cr_rest_touching(gap, b->radius[i] + b->radius[j])) continue;
        cr_vec3 n;
        cr_overlap_sphere_sphere(b->x[i], b->radius[i], b->x[j], b->radius[j], &n);
        bool on_i = b->surface[i] != CR_NO_SURFACE, on_j = b->surface[j] != CR_NO_SURFACE;
        /* a sleeping ball leans on nothing: it stays */
        if ((on_i && cr_slot_dynamic(b, i) && !b->asleep[i]) || cr_rest_flying_on(w, i, j)) cr_rest_add(w, i, n, j);
        if ((on_j && cr_slot_dynamic(b, j) && !b->asleep[j]) || cr_rest_flying_on(w, j, i))
            cr_rest_add(w, j, cr_v3_neg(n), i);
    }
    /* The walls and the new plans over the workers; the grid grown after,
     * in slot order (it may index itself again). */
    cr_run_balls(w, lean_one);
    for (uint32_t i = 0; i < b->slot_count; ++i) {
        if (!cr_slot_alive(b, i) || !cr_slot_dynamic(b, i) || b->rest[i].count == 0) continue;
        double dt = w->def.dt, pad = b->radius[i] * (1.0 + 1e-3);
        cr_vec3 x0 = b->x[i], x1 = cr_body_position_at(w, i, dt);
        if (!cr_broad_extend(w, &w->broad, i, cr_v3_sub(cr_v3_min(x0, x1), cr_v3(pad, pad, pad)),
                             cr_v3_add(cr_v3_max(x0, x1), cr_v3(pad, pad, pad))))
            return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "contacts: out of memory");
    }
    return CR_OK;
}
