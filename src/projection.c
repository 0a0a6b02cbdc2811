/* Position projection at the end of a step of a sphere world (impulse and
 * event methods; seed 000 c.5, eq. 5.27/5.28/B.18), called by the finish
 * stage.
 *
 * The first pass is seed 000's: each overlapping candidate pair, then each
 * ball against each plane, moves apart along n by k_p m_red overlap. One
 * pass removes an isolated overlap (k_p = 1) but not the overlaps of a pile,
 * where pushing one pair apart presses its neighbours together. With
 * projection_passes > 1 the same update is repeated, Gauss-Seidel fashion,
 * over the plane contacts and pairs that are near touching after the first
 * pass (the plane contacts first: a push off the floor then travels up the
 * pile within the pass), until no overlap exceeds CR_PROJECTION_TOLERANCE of
 * the radii or the passes run out; in those passes only overlaps over the
 * tolerance are pushed, and only the rows next to a body that moved are
 * visited (projection_active.c). Velocities are never touched (seed 000
 * c.5). A pile needs many passes: each one is a Gauss-Seidel sweep of a
 * stiff system, so the passes trade time for overlap (docs/benchmarks.md).
 * With projection_shock the extra passes propagate shocks instead
 * (projection_order.c): a pile then needs some tens of passes, not hundreds.
 * A world with surfaces runs at least CR_PROJECTION_SURFACE_PASSES passes
 * (passes_of below).
 *
 * A flying ball on an immovable side (a ball held on a surface, asleep or
 * static: mobility below) gets projection's minimum there. The side cannot
 * give way, so the seed's push of every overlap lifted a ball at rest in
 * the hollow of three surface balls out of each in turn, a few um a step,
 * and where no ball had kinetic energy left the energy control (seed 004
 * §4) could not pay for it (docs/physics.md "A ball at rest among
 * immovable sides", tests/test_hollow.c). So
 *   - the first pass leaves such a pair's overlap up to the tolerance, as
 *     the extra passes do every pair's: a ball inside it stays put; a real
 *     overlap is pushed as the seed says;
 *   - in a world with surfaces, a ball that began the finish's advance
 *     within the tolerance of such a side and ended deeper first goes back
 *     along its advance to where it met CR_PROJECTION_KEEP (a hair under
 *     the tolerance) or its starting overlap (back_off): the hold
 *     (rolling_rest.c) can let a ball sink into a narrow hollow a little
 *     each step, and pushes along the sides' normals, out of one into the
 *     next, then leave it above where it began; its own path cannot.
 */
#include <math.h>
#include <string.h>

#include "world_internal.h"

/* Pairs and planes this close (fraction of the radii) after the first pass
 * take part in the extra ones: a push of a neighbour can close such a gap. */
#define CR_PROJECTION_NEAR 5e-2

/* The mobility used by projection: a ball on a surface is held there (seed
 * 004): projection would lift it off and cost energy it may not have; its
 * resting contacts keep it from driving into others instead
 * (rolling_rest.c). It counts as immovable. */
static double mobility(const cr_bodies *b, uint32_t i)
{
    return b->surface[i] == CR_NO_SURFACE && !b->asleep[i] ? b->inv_mass[i] : 0.0; /* asleep: it stays */
}

/* A flying ball back off an immovable side to this fraction of the radii
 * (back_off): a hair under the tolerance, so that the first pass, which
 * leaves such a pair alone up to the tolerance, finds nothing to push. */
#define CR_PROJECTION_KEEP (CR_PROJECTION_TOLERANCE * (1.0 - 1e-6))

/* Exactly one side moves: a flying ball on an immovable side. */
static bool one_side_held(double mi, double mj) { return (mi > 0.0) != (mj > 0.0); }

/* Seed 000 c.5: each side moves out along the normal by k_p m_red overlap,
 * so k_p = 0 leaves positions alone and k_p = 1 removes the overlap of an
 * isolated contact in full; a flying ball on an immovable side only when
 * the overlap exceeds the tolerance. Returns the overlap it found. */
static double project_pair(cr_world *w, uint32_t i, uint32_t j)
{
    cr_bodies *b = &w->bodies;
    cr_vec3 n;
    double ov = cr_overlap_sphere_sphere(b->x[i], b->radius[i], b->x[j], b->radius[j], &n);
    if (!(ov > 0.0)) return ov;
    double mi = mobility(b, i), mj = mobility(b, j);
    if (one_side_held(mi, mj) && !(ov > CR_PROJECTION_TOLERANCE * (b->radius[i] + b->radius[j]))) return ov;
    double ri = cr_reduced_mass_ratio(mi, mj);
    double rj = cr_reduced_mass_ratio(mj, mi);
    b->x[i] = cr_v3_add(b->x[i], cr_position_projection(w->def.k_p, ri, ov, n));
    b->x[j] = cr_v3_add(b->x[j], cr_position_projection(w->def.k_p, rj, ov, cr_v3_neg(n)));
    return ov;
}

static double project_plane(cr_world *w, uint32_t i, uint32_t k)
{
    cr_bodies *b = &w->bodies;
    const cr_plane_def *pl = &w->planes.def[k];
    double pen = cr_penetration_sphere_plane(b->x[i], b->radius[i], pl->point, pl->normal);
    if (!(pen > 0.0)) return pen;
    /* The plane is immovable: m_red = 1 (seed 000 c.1 b). */
    b->x[i] = cr_v3_add(b->x[i], cr_position_projection(w->def.k_p, 1.0, pen, pl->normal));
    return pen;
}

static bool plane_ball(const cr_bodies *b, uint32_t i)
{
    /* a surface ball's walls: its plan and cr_ball_keep_above */
    return cr_slot_alive(b, i) && cr_slot_dynamic(b, i) && b->surface[i] == CR_NO_SURFACE && !b->asleep[i];
}

/* Flying ball i, which began its advance (x_before[i]) within the
 * tolerance of immovable j, back along that advance to the first point
 * where it overlaps j by CR_PROJECTION_KEEP of the radii, or by what it
 * began with if that was more: the smaller root t of
 * |a + t d|^2 = reach^2 (a = x_before[i] - x[j], d = x[i] - x_before[i]),
 * when it ends deeper. Applied pair after pair, each on what the last
 * left: the earliest such point of the path, within every band it began
 * in. */
static void back_off(cr_bodies *b, uint32_t i, uint32_t j)
{
    double r = b->radius[i] + b->radius[j], within = r * (1.0 - CR_PROJECTION_TOLERANCE);
    double reach = r * (1.0 - CR_PROJECTION_KEEP);
    cr_vec3 x0 = b->x_before[i];
    cr_vec3 a = cr_v3_sub(x0, b->x[j]), d = cr_v3_sub(b->x[i], x0);
    double a2 = cr_v3_len2(a);
    if (!(a2 >= within * within)) return; /* a real overlap from the start: the passes free it */
    double c = fmax(a2 - reach * reach, 0.0); /* began between the two: its start is the limit */
    double dd = cr_v3_len2(d), ad = cr_v3_dot(a, d);
    if (!(a2 + 2.0 * ad + dd < fmin(a2, reach * reach))) return; /* ends no deeper */
    /* f(t) = dd t^2 + 2 ad t + c falls from c >= 0 at 0 to below 0 at 1, so ad < 0: its smaller root,
     * 2c / (-2 ad + sqrt(4 ad^2 - 4 dd c)), in the form without cancellation */
    double t = c / (-ad + sqrt(fmax(ad * ad - dd * c, 0.0)));
    b->x[i] = cr_v3_madd(x0, d, fmin(t, 1.0));
}

/* A candidate pair that may overlap: not both static, and not apart (with
 * room for rounding). */
static inline bool may_touch(const cr_bodies *b, uint32_t i, uint32_t j)
{
    if (!cr_slot_dynamic(b, i) && !cr_slot_dynamic(b, j)) return false;
    double reach = b->radius[i] + b->radius[j];
    return cr_v3_len2(cr_v3_sub(b->x[i], b->x[j])) <= reach * reach * (1.0 + 1e-9);
}

/* Seed 000's single pass over every candidate pair, then the planes; in a
 * world with surfaces (x_before), the back-offs first. */
static void first_pass(cr_world *w)
{
    cr_bodies *b = &w->bodies;
    if (w->surfaces.count > 0)
        for (uint32_t k = 0; k < w->broad.pair_count; ++k) {
            uint32_t i = w->broad.pairs[k].a, j = w->broad.pairs[k].b;
            if (!cr_slot_dynamic(b, i) && !cr_slot_dynamic(b, j)) continue;
            double mi = mobility(b, i), mj = mobility(b, j);
            if (!one_side_held(mi, mj)) continue;
            if (mi > 0.0)
                back_off(b, i, j);
            else
                back_off(b, j, i);
        }
    for (uint32_t k = 0; k < w->broad.pair_count; ++k) {
        uint32_t i = w->broad.pairs[k].a, j = w->broad.pairs[k].b;
        if (may_touch(b, i, j)) project_pair(w, i, j);
    }
    /* an asleep ball is no plane ball */
    for (uint32_t i = 0; (i = cr_broad_past_sleeping(&w->broad, b->asleep, i, b->slot_count)) < b->slot_count; ++i)
        if (plane_ball(b, i))
            for (uint32_t k = 0; k < w->planes.count; ++k) project_plane(w, i, k);
}

/* The rows of the extra passes: the plane contacts (j = plane index | top
 * bit) and then the pairs near touching after the first pass, with their
 * figures, over a copy of the positions: the same update in the same
 * arithmetic as project_pair and project_plane, streamed. With
 * projection_shock a stacked pair's lower ball counts as immovable and the
 * rows are then taken from the ground up (projection_order.c). */
static bool add_row(cr_world *w, uint32_t *count, uint32_t i, uint32_t j, double ki, double kj, double ri, double rj)
{
    if (!cr_grow(w, (void **)&w->near, &w->near_capacity, *count + 1, sizeof *w->near)) return false;
    cr_projection_row *r = &w->near[(*count)++];
    r->i = i;
    r->j = j;
    r->ki = w->def.k_p * ki;
    r->kj = w->def.k_p * kj;
    r->ri = ri;
    r->rj = rj;
    return true;
}

static cr_status near_list(cr_world *w, bool shock, cr_vec3 up, bool *over)
{
    cr_bodies *b = &w->bodies;
    cr_broad_phase *bp = &w->broad;
    uint32_t count = 0;
    *over = false;
    for (uint32_t i = 0; (i = cr_broad_past_sleeping(bp, b->asleep, i, b->slot_count)) < b->slot_count; ++i) {
        if (!plane_ball(b, i)) continue; /* asleep: no plane ball */
        for (uint32_t k = 0; k < w->planes.count && k < CR_PROJECTION_PLANE; ++k) {
            const cr_plane_def *pl = &w->planes.def[k];
            double r = 2.0 * b->radius[i];
            double pen = cr_penetration_sphere_plane(b->x[i], b->radius[i], pl->point, pl->normal);
            if (pen < -CR_PROJECTION_NEAR * r) continue;
            *over = *over || pen > CR_PROJECTION_TOLERANCE * r; /* push_row's test */
            /* the plane is immovable: m_red = 1 (seed 000 c.1 b) */
            if (!add_row(w, &count, i, k | CR_PROJECTION_PLANE, 1.0, 0.0, b->radius[i], b->radius[i])) goto oom;
        }
    }
    for (uint32_t k = 0; k < bp->pair_count; ++k) {
        uint32_t i = bp->pairs[k].a, j = bp->pairs[k].b;
        if (!cr_slot_dynamic(b, i) && !cr_slot_dynamic(b, j)) continue;
        double mi = mobility(b, i), mj = mobility(b, j);
        /* both held (static, or on a surface): the row could move nothing */
        if (!(mi > 0.0) && !(mj > 0.0)) continue;
        double r = b->radius[i] + b->radius[j];
        double ov = cr_overlap_sphere_sphere(b->x[i], b->radius[i], b->x[j], b->radius[j], NULL);
        if (ov < -CR_PROJECTION_NEAR * r) continue;
        *over = *over || ov > CR_PROJECTION_TOLERANCE * r; /* push_row's test */
        if (shock) cr_projection_shock_ratios(up, b->x[i], b->x[j], &mi, &mj);
        if (!add_row(w, &count, i, j, cr_reduced_mass_ratio(mi, mj), cr_reduced_mass_ratio(mj, mi), b->radius[i],
                     b->radius[j]))
            goto oom;
    }
    w->near_count = count;
    if (!cr_grow(w, (void **)&w->near_x, &w->near_x_capacity, b->slot_count, sizeof *w->near_x)) goto oom;
    return CR_OK;
oom:
    return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "projection: out of memory");
}

/* The passes run: the world's, and in a world with surfaces at least
 * CR_PROJECTION_SURFACE_PASSES. A ball on a surface counts as immovable
 * here, so a flying ball between it and a wall (or another held ball) is
 * pushed out of one into the other; seed 000's single pass, made for two
 * movable sides, then leaves most of the overlap, step after step (3 to 4
 * mm in the boiling scene, docs/benchmarks.md). The extra passes stop as
 * soon as nothing is over the tolerance, so they cost only where such a
 * squeeze is. */
static int passes_of(const cr_world *w)
{
    int passes = w->def.projection_passes;
    return w->surfaces.count > 0 && passes < CR_PROJECTION_SURFACE_PASSES ? CR_PROJECTION_SURFACE_PASSES : passes;
}

cr_status cr_project_positions(cr_world *w)
{
    if (!(w->def.k_p > 0.0)) return CR_OK;
    first_pass(w);
    w->stats.projection_passes = 1;
    int passes = passes_of(w);
    if (passes <= 1) return CR_OK;
    cr_vec3 up = {0.0, 0.0, 0.0};
    bool shock = cr_projection_up(w, &up);
    bool over;
    cr_status s = near_list(w, shock, up, &over);
    if (s != CR_OK) return s;
    if (!over) {
        /* the second pass would find every row within the tolerance and
         * move nothing (push_row's test on the same positions): it is done */
        w->stats.projection_passes = 2;
        return CR_OK;
    }
    if (shock) s = cr_projection_order(w, up, w->bodies.x);
    if (s != CR_OK) return s;
    cr_bodies *b = &w->bodies;
    cr_vec3 *x = w->near_x;
    memcpy(x, b->x, sizeof *x * b->slot_count);
    s = cr_projection_extra_passes(w, x, passes);
    if (s == CR_OK) memcpy(b->x, x, sizeof *x * b->slot_count);
    return s;
}
