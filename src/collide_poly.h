/* Narrow phase for polyhedral bodies (issue 5, seed 003): contact manifolds
 * between convex hulls, planes, spheres and static triangle meshes, a
 * separating-axis distance bound, and time of impact by conservative
 * advancement (seed 001 §3.3). Internal; pure functions, no allocation.
 * docs/physics/collide-poly.md describes the algorithms.
 *
 * Conventions: every contact normal is a unit world vector pointing from B
 * towards A (seed 003's contact-plane normal, oriented); separation is the
 * signed gap along it (< 0: overlapping); the point lies midway between the
 * two surfaces. */
#ifndef CAROM_COLLIDE_POLY_H
#define CAROM_COLLIDE_POLY_H

#include <stdint.h>

#include "shape_internal.h"

typedef struct cr_pose {
    cr_vec3 x;
    cr_mat3 R;
} cr_pose; /* world = x + R local */

typedef enum cr_feature_kind {
    CR_FEATURE_VERTEX_FACE = 0, /* a vertex of A on a face of B (a plane counts as a face) */
    CR_FEATURE_FACE_VERTEX,     /* a vertex of B on a face of A */
    CR_FEATURE_EDGE_EDGE,       /* crossing edges, or a pair of parallel edges (two points) */
    CR_FEATURE_SMOOTH           /* a sphere against anything */
} cr_feature_kind;

typedef struct cr_contact_point {
    cr_vec3 point;     /* world: midway between the two surfaces */
    cr_vec3 normal;    /* unit, world, from B towards A (contact-plane normal of seed 003) */
    double separation; /* signed gap along normal: < 0 overlapping */
    uint32_t id;       /* feature key, stable while the same features touch (warm starting) */
    uint8_t kind;      /* cr_feature_kind */
} cr_contact_point;

#define CR_MANIFOLD_MAX 8
typedef struct cr_manifold {
    uint32_t count;
    cr_contact_point p[CR_MANIFOLD_MAX];
} cr_manifold;

/* All return m->count; points with separation > margin are not reported. */
uint32_t cr_collide_hull_hull(const cr_hull *a, cr_pose pa, const cr_hull *b, cr_pose pb, double margin,
                              cr_manifold *m);
/* The same, and *gap: when a face axis found the pair apart (count 0), that
 * axis's separation, a lower bound of the hulls' distance; -HUGE_VAL
 * otherwise. */
uint32_t cr_collide_hull_hull_gap(const cr_hull *a, cr_pose pa, const cr_hull *b, cr_pose pb, double margin,
                                  cr_manifold *m, double *gap);
/* Plane n.x = offset (n unit), solid below; normal = n. */
uint32_t cr_collide_hull_plane(const cr_hull *a, cr_pose pa, cr_vec3 n, double offset, double margin, cr_manifold *m);
/* B = sphere (centre c, radius r). */
uint32_t cr_collide_hull_sphere(const cr_hull *a, cr_pose pa, cr_vec3 c, double r, double margin, cr_manifold *m);
uint32_t cr_collide_sphere_sphere(cr_vec3 ca, double ra, cr_vec3 cb, double rb, double margin, cr_manifold *m);
/* Its point, the centres' distance l = |ca - cb| known (the test passed):
 * for a caller that made the test itself (sphere_contacts.c). */
void cr_sphere_sphere_point(cr_vec3 ca, double ra, cr_vec3 cb, double rb, double l, cr_contact_point *p);
uint32_t cr_collide_sphere_plane(cr_vec3 c, double r, cr_vec3 n, double offset, double margin, cr_manifold *m);
/* Triangles of A (a static or kinematic mesh) against convex B, through A's
 * BVH; only a triangle's outward side counts. */
uint32_t cr_collide_mesh_hull(const cr_mesh *a, cr_pose pa, const cr_hull *b, cr_pose pb, double margin,
                              cr_manifold *m);
uint32_t cr_collide_mesh_sphere(const cr_mesh *a, cr_pose pa, cr_vec3 c, double r, double margin, cr_manifold *m);

/* Carried contacts (src/collide_carry.c): a contact point as A's surface
 * point in A's frame (la), B's surface point and the normal in B's frame
 * (lb, nb); pb NULL: B is the world (lb, nb world). cr_carry_point returns
 * the separation at the poses given and sets the point (midway) and the
 * normal. */
/* Inline, the poses by address: it runs for every point found afresh (every
 * contact of a ball pit, every step); out of line, its two poses by value
 * (192 bytes) went through the stack on each call (branch pit19). */
static inline void cr_carry_frames(const cr_pose *pa, const cr_pose *pb, const cr_contact_point *p, cr_vec3 *la,
                                   cr_vec3 *lb, cr_vec3 *nb)
{
    cr_mat3 RaT = cr_m3_transpose(pa->R), RbT = cr_m3_transpose(pb->R);
    /* each side's surface point: half the gap either way along the normal */
    cr_vec3 sa = cr_v3_madd(p->point, p->normal, 0.5 * p->separation);
    cr_vec3 sb = cr_v3_madd(p->point, p->normal, -0.5 * p->separation);
    *la = cr_m3_mul_v(RaT, cr_v3_sub(sa, pa->x));
    *lb = cr_m3_mul_v(RbT, cr_v3_sub(sb, pb->x));
    *nb = cr_m3_mul_v(RbT, p->normal);
}
/* Inline: it runs for every carried point of every step (the narrow phase)
 * and every contact of the overlap report; out of line, its 170 bytes of
 * arguments by value went through the stack on each call (branch pyr14). */
static inline double cr_carry_point(cr_pose pa, const cr_pose *pb, cr_vec3 la, cr_vec3 lb, cr_vec3 nb,
                                    cr_vec3 *point, cr_vec3 *normal)
{
    cr_vec3 sa = cr_v3_add(pa.x, cr_m3_mul_v(pa.R, la)), sb = lb, n = nb;
    if (pb) {
        sb = cr_v3_add(pb->x, cr_m3_mul_v(pb->R, lb));
        n = cr_m3_mul_v(pb->R, nb);
    }
    if (normal) *normal = n;
    if (point) *point = cr_v3_scale(cr_v3_add(sa, sb), 0.5);
    return cr_v3_dot(cr_v3_sub(sa, sb), n);
}
/* Is the relative pose (x, q) within tolerance of (x_ref, q_ref): the
 * positions within tolerance * length, the orientations within an angle of
 * about tolerance (radians)? */
bool cr_carry_close(cr_vec3 x_ref, cr_quat q_ref, cr_vec3 x, cr_quat q, double length, double tolerance);

/* Pairs kept apart (src/collide_apart.c): the farthest any point within
 * radius of A's origin can have moved in B's frame since A's pose there was
 * (x_ref, q_ref) (a's position in b's frame, conj(q_b) q_a); now (x, q). A
 * pair whose distance was at least gap then is at least gap minus this now. */
double cr_apart_motion(cr_vec3 x_ref, cr_quat q_ref, cr_vec3 x, cr_quat q, double radius);

/* Separation lower bound (SAT) between two hulls, for conservative
 * advancement: <= the true distance when apart, the penetration depth along
 * the best axis (< 0) when overlapping. */
double cr_hull_separation(const cr_hull *a, cr_pose pa, const cr_hull *b, cr_pose pb);

/* First time in [0, t_end] at which the SAT separation of A and B, moving
 * with constant linear (v) and world angular (w) velocities from poses p0,
 * drops to <= tolerance; t_end or more when they do not meet. Conservative
 * advancement (seed 001 §3.3's alternative to bisection). */
double cr_toi_hulls(const cr_hull *a, cr_pose pa0, cr_vec3 va, cr_vec3 wa, const cr_hull *b, cr_pose pb0, cr_vec3 vb,
                    cr_vec3 wb, double t_end, double tolerance);
/* The same for a moving hull against the static plane n.x = offset. */
double cr_toi_hull_plane(const cr_hull *a, cr_pose pa0, cr_vec3 va, cr_vec3 wa, cr_vec3 n, double offset, double t_end,
                         double tolerance);

/* ---- shared by the collide_*.c files ---- */

static inline cr_vec3 cr_pose_point(cr_pose p, cr_vec3 v) { return cr_v3_add(p.x, cr_m3_mul_v(p.R, v)); }
static inline cr_vec3 cr_pose_dir(cr_pose p, cr_vec3 v) { return cr_m3_mul_v(p.R, v); }
static inline cr_vec3 cr_pose_local_point(cr_pose p, cr_vec3 w)
{
    return cr_m3_mul_v(cr_m3_transpose(p.R), cr_v3_sub(w, p.x));
}
static inline cr_vec3 cr_pose_local_dir(cr_pose p, cr_vec3 w) { return cr_m3_mul_v(cr_m3_transpose(p.R), w); }

/* Two edges whose unit directions have |sin| below this are parallel: no
 * edge axis of their own (its direction would be noise), handled as a pair
 * of parallel edges instead. */
#define CR_PARALLEL_SIN 1e-3

/* Result of the separating-axis test of two hulls: the best separation of
 * each family of axes (-HUGE_VAL where the family is empty) and its features. */
typedef struct cr_sat {
    double face_a, face_b, edge;
    uint32_t fa, fb;       /* best face of A, of B */
    uint32_t ea, eb;       /* best edge pair */
    cr_vec3 edge_axis;     /* world unit axis of the best edge pair, outward from A (towards B) */
    double radius_a, radius_b; /* largest vertex distance from each shape origin */
} cr_sat;
/* cutoff: once a face axis separates by more than it, the query stops
 * (the other faces, the edge pairs and the radii are skipped, the radii
 * left 0: the pair is apart); HUGE_VAL for the exact best axis. */
void cr_sat_query(const cr_hull *a, cr_pose pa, const cr_hull *b, cr_pose pb, double cutoff, cr_sat *out);
/* The best overall separation and its axis, outward from A (towards B). */
double cr_sat_best(const cr_sat *s, const cr_hull *a, cr_pose pa, const cr_hull *b, cr_pose pb, cr_vec3 *axis);
double cr_hull_radius(const cr_hull *h);
/* The mean of the hull's vertices (an interior point, for the Gauss map's
 * split of a flat hull's edge arcs). */
cr_vec3 cr_hull_vertex_average(const cr_hull *h);

/* The patch of reference face fr of ref clipped against the incident face of
 * inc (the face most anti-parallel to it): at most 128 points into out, those
 * with separation <= margin. ref_is_a: ref plays A (the normal is then the
 * reversed face normal). */
#define CR_PATCH_MAX 128
uint32_t cr_face_patch(const cr_hull *ref, cr_pose pr, uint32_t fr, const cr_hull *inc, cr_pose pi, bool ref_is_a,
                       double margin, cr_contact_point *out);

/* Feature key: a hash of the feature indices (stable for the same features).
 * Inline, so that a constant key folds at compile time: every sphere point
 * took the same key, out of line, by three rounds of the mix (about 3 % of
 * the ball pit's narrow phase at 27,000 balls, branch pit21). */
static inline uint64_t cr_feature_mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static inline uint32_t cr_feature_id(uint32_t kind, uint32_t i, uint32_t j, uint64_t k)
{
    uint64_t h = cr_feature_mix64(((uint64_t)kind << 32) ^ i);
    h = cr_feature_mix64(h ^ ((uint64_t)j * 0x9E3779B97F4A7C15ull));
    h = cr_feature_mix64(h ^ k);
    return (uint32_t)(h ^ (h >> 32));
}
/* Keeps at most keep (>= 1) of the n points in place: the deepest first,
 * then the one farthest from it, then those that maximise the area spanned,
 * then the farthest from those kept. Returns the number kept. */
uint32_t cr_reduce_points(cr_contact_point *p, uint32_t n, uint32_t keep);

/* A growing set of contacts, reduced to keep points whenever it fills up;
 * a point within eps of one already held with the same normal replaces it
 * when deeper and is dropped otherwise (neighbouring triangles report the
 * same corner twice). */
#define CR_COLLECT_MAX 64
typedef struct cr_collector {
    uint32_t n, keep;
    double eps;
    cr_contact_point p[CR_COLLECT_MAX];
} cr_collector;
void cr_collect(cr_collector *c, const cr_contact_point *p);
/* Reduces to at most m_keep points and writes them to m; returns m->count. */
uint32_t cr_collect_finish(cr_collector *c, uint32_t m_keep, cr_manifold *m);

#endif
