/* The sphere points' warm start and solve pass on AVX2 lanes
 * (sphere_points.h; docs/physics/substep.md, "Spheres"): a quad of one
 * colour at a time, each lane one point and its two bodies, the points'
 * fields loaded a row of four at a time, the bodies' rows gathered by 4x4
 * transposes and their velocities scattered back. The kernels are
 * sphere_lanes.h's (the plain kernels' IEEE operations in the same order),
 * on four lanes. */
#include "sphere_points.h"

#include <stddef.h>

#include "dem_avx2.h" /* dem_transpose4; simd.h's CR_AVX2 */
#include "lanes_avx2.h"

#if CR_AVX2

/* A body's rows: v and inv_mass, w and inv_inertia; its shift's: dp
 * (sphere_points.h). */
_Static_assert(sizeof(cr_vec3) == 3 * sizeof(double), "cr_vec3 is three doubles");
_Static_assert(offsetof(cr_sphere_body, inv_mass) == 3 * sizeof(double) &&
                   offsetof(cr_sphere_body, w) == 4 * sizeof(double) &&
                   offsetof(cr_sphere_body, inv_inertia) == 7 * sizeof(double) &&
                   sizeof(cr_sphere_body) == 8 * sizeof(double),
               "cr_sphere_body is two rows of four doubles");
_Static_assert(sizeof(cr_sphere_shift) == 4 * sizeof(double), "cr_sphere_shift is a row of four doubles");

/* v4 and its operations: lanes_avx2.h. The bodies' loads and stores are
 * inlined by force (GCC kept load_side a call: 9 % of the pit's samples). */
#define FN_INLINE FN __attribute__((always_inline))

FN __m256d load(const double *p) { return _mm256_loadu_pd(p); }

/* The four lanes' bodies on one side (a or b). */
typedef struct side {
    v4 v, w;
    __m256d inv_mass, inv_inertia;
} side;

/* Row q (doubles 4 q to 4 q + 3) of the four lanes' rows, transposed. */
FN_INLINE void load_row(const double *const row[4], int q, __m256d f[4])
{
    dem_transpose4(load(row[0] + 4 * q), load(row[1] + 4 * q), load(row[2] + 4 * q), load(row[3] + 4 * q), f);
}

FN_INLINE void load_side(const cr_sphere_body *sb, const cr_sphere_quad *q, int side_b, side *s)
{
    const uint32_t *idx = side_b ? q->b : q->a;
    const double *row[4] = {&sb[idx[0]].v.x, &sb[idx[1]].v.x, &sb[idx[2]].v.x, &sb[idx[3]].v.x};
    __m256d f[4], g[4];
    load_row(row, 0, f);
    load_row(row, 1, g);
    s->v = (v4){f[0], f[1], f[2]}, s->inv_mass = f[3];
    s->w = (v4){g[0], g[1], g[2]}, s->inv_inertia = g[3];
}

/* The four lanes' dp_a - dp_b: each lane's rows subtracted, then
 * transposed (the same differences as the two sides' rows transposed and
 * subtracted, one transpose fewer). */
FN_INLINE v4 load_shift_diff(const cr_sphere_shift *sh, const cr_sphere_quad *q)
{
    const uint32_t *a = q->a, *b = q->b;
    __m256d f[4];
    dem_transpose4(sub(load(&sh[a[0]].dp.x), load(&sh[b[0]].dp.x)), sub(load(&sh[a[1]].dp.x), load(&sh[b[1]].dp.x)),
                   sub(load(&sh[a[2]].dp.x), load(&sh[b[2]].dp.x)), sub(load(&sh[a[3]].dp.x), load(&sh[b[3]].dp.x)), f);
    return (v4){f[0], f[1], f[2]};
}

/* Writes the lanes' v and w rows back (transposed) to the bodies that
 * move; a body that does not is only read (one colour's points share no
 * moving body, but may share one that does not): its rows go to scratch. */
FN_INLINE void store_lane(cr_sphere_body *b, bool moves, double *scratch, __m256d v, __m256d w)
{
    double *d = moves ? &b->v.x : scratch;
    _mm256_storeu_pd(d, v);
    _mm256_storeu_pd(d + 4, w);
}

FN_INLINE void store_side(cr_sphere_body *sb, const cr_sphere_quad *q, int side_b, const side *s)
{
    const uint32_t *idx = side_b ? q->b : q->a;
    __m256d v[4], w[4];
    dem_transpose4(s->v.x, s->v.y, s->v.z, s->inv_mass, v);
    dem_transpose4(s->w.x, s->w.y, s->w.z, s->inv_inertia, w);
    int moves = _mm256_movemask_pd(_mm256_cmp_pd(s->inv_mass, _mm256_setzero_pd(), _CMP_GT_OQ));
    double scratch[8];
    /* lane by lane, written out: as a loop, GCC kept v and w on the stack */
    store_lane(&sb[idx[0]], moves & 1, scratch, v[0], w[0]);
    store_lane(&sb[idx[1]], moves & 2, scratch, v[1], w[1]);
    store_lane(&sb[idx[2]], moves & 4, scratch, v[2], w[2]);
    store_lane(&sb[idx[3]], moves & 8, scratch, v[3], w[3]);
}

/* The names sphere_lanes.h's kernels take, on four lanes. */
#define LANES_FN FN_INLINE
typedef __m256d vd;
typedef __m256d vmask;
typedef v4 vv;
#define vv_add v4_add
#define vv_sub v4_sub
#define vv_cross v4_cross
#define vv_dot v4_dot
#define vv_madd v4_madd
#define vv_scale v4_scale
#define vv_blend v4_blend
FN __m256d zero(void) { return _mm256_setzero_pd(); }
FN __m256d set1(double x) { return _mm256_set1_pd(x); }
FN __m256d vdiv(__m256d a, __m256d b) { return _mm256_div_pd(a, b); }
FN __m256d vsqrt(__m256d a) { return _mm256_sqrt_pd(a); }
FN __m256d vmax(__m256d a, __m256d b) { return _mm256_max_pd(a, b); }
FN __m256d gt(__m256d a, __m256d b) { return _mm256_cmp_pd(a, b, _CMP_GT_OQ); }
FN __m256d eq(__m256d a, __m256d b) { return _mm256_cmp_pd(a, b, _CMP_EQ_OQ); }
FN __m256d mask_or(__m256d a, __m256d b) { return _mm256_or_pd(a, b); }
FN __m256d blend(__m256d a, __m256d b, __m256d m) { return _mm256_blendv_pd(a, b, m); }
#define FIELD(q, f) load((q)->f)
#define STORE(q, f, x) _mm256_storeu_pd((q)->f, (x))

#include "sphere_lanes.h"

CR_AVX2_FN void cr_sphere_warm_start_avx2(cr_sphere_body *sb, const cr_sphere_quad *q, uint32_t begin, uint32_t end)
{
    uint32_t k = begin;
    for (; k < end && k % 4; ++k) cr_sphere_warm_start(sb, q, k, k + 1);
    for (; k + 4 <= end; k += 4) lanes_warm(sb, &q[k / 4]);
    cr_sphere_warm_start(sb, q, k, end);
}

CR_AVX2_FN void cr_sphere_solve_avx2(cr_sphere_body *sb, cr_sphere_quad *q, uint32_t begin, uint32_t end,
                                     const cr_sphere_pass *pass)
{
    uint32_t k = begin;
    for (; k < end && k % 4; ++k) cr_sphere_solve(sb, q, k, k + 1, pass);
    for (; k + 4 <= end; k += 4) lanes_solve(sb, &q[k / 4], pass->totals ? &pass->totals[k / 4] : NULL, pass);
    cr_sphere_solve(sb, q, k, end, pass);
}

#else

void cr_sphere_warm_start_avx2(cr_sphere_body *sb, const cr_sphere_quad *q, uint32_t begin, uint32_t end)
{
    cr_sphere_warm_start(sb, q, begin, end);
}

void cr_sphere_solve_avx2(cr_sphere_body *sb, cr_sphere_quad *q, uint32_t begin, uint32_t end,
                          const cr_sphere_pass *pass)
{
    cr_sphere_solve(sb, q, begin, end, pass);
}

#endif
