/* The sphere points' warm start and solve on lanes, written once for every
 * width (sphere_avx2.c: four lanes, a quad; sphere_avx512.c: eight lanes,
 * two quads): each lane one point and its two bodies, the same IEEE
 * operations in the same order as the plain kernels (sphere_solve.c; no
 * fused multiply-add: simd.h), so every width gives the same bits.
 * Included inside the includer's guard, after it defines, for its width:
 *   LANES_FN        the kernels' storage class and target
 *   vd, vmask, vv   a row of doubles, a lane mask, three rows (x, y, z)
 *   add sub mul neg vdiv vsqrt vmax set1 zero   on vd
 *   gt eq mask_or blend   lane masks; blend(a, b, m): b where m, else a
 *   vv_add vv_sub vv_cross vv_dot vv_madd vv_scale vv_blend   as lanes_avx2.h's
 *   side            a side's bodies: vv v, w; vd inv_mass, inv_inertia
 *   group           what a call takes: its first quad (cr_sphere_quad)
 *   FIELD(q, f), STORE(q, f, x)   a field's row of the group's points
 *   load_side, store_side, load_shift_diff   the bodies' rows (side 0: a)
 * Internal. */

/* cr_sphere_solve's apply on the lanes: P = dt + n dn on a, -P on b; n x
 * dt turns them. */
LANES_FN void lanes_apply(side *A, side *B, vv n, vd ra, vd rb, vd dn, vv dt)
{
    vv P = vv_madd(dt, n, dn), nt = vv_cross(n, dt);
    A->v = vv_madd(A->v, P, A->inv_mass);
    B->v = vv_madd(B->v, P, neg(B->inv_mass));
    A->w = vv_madd(A->w, nt, mul(neg(ra), A->inv_inertia));
    B->w = vv_madd(B->w, nt, mul(neg(rb), B->inv_inertia));
}

/* cr_sphere_warm_start's points on the lanes: the group at q. */
LANES_FN void lanes_warm(cr_sphere_body *sb, const cr_sphere_quad *q)
{
    side A, B;
    load_side(sb, q, 0, &A);
    load_side(sb, q, 1, &B);
    vv n = {FIELD(q, nx), FIELD(q, ny), FIELD(q, nz)}, lt = {FIELD(q, ltx), FIELD(q, lty), FIELD(q, ltz)};
    lanes_apply(&A, &B, n, FIELD(q, ra), FIELD(q, rb), FIELD(q, lambda_n), lt);
    store_side(sb, q, 0, &A);
    store_side(sb, q, 1, &B);
}

/* cr_sphere_solve's point on the lanes: the group at q, its totals at tq
 * (the relax pass; NULL otherwise). */
LANES_FN void lanes_solve(cr_sphere_body *sb, cr_sphere_quad *q, cr_sphere_totals *tq, const cr_sphere_pass *pass)
{
    vv n = {FIELD(q, nx), FIELD(q, ny), FIELD(q, nz)};
    const vd zero_ = zero(), one = set1(1.0);
    /* separation */
    vd sep = add(FIELD(q, s0), vv_dot(n, load_shift_diff(pass->shift, q)));
    side A, B;
    load_side(sb, q, 0, &A);
    load_side(sb, q, 1, &B);
    vd ra = FIELD(q, ra), rb = FIELD(q, rb);
    vd mass_n = FIELD(q, mass_n), mass_t = FIELD(q, mass_t);
    vd mu = FIELD(q, mu), lambda_n = FIELD(q, lambda_n);
    vv lambda_t = {FIELD(q, ltx), FIELD(q, lty), FIELD(q, ltz)};
    /* the row's softness: speculative (apart), soft (use_bias) or rigid */
    vmask apart = gt(sep, zero_);
    vd bias = zero_, mass_scale = one, impulse_scale = zero_;
    if (pass->use_bias) {
        /* soft[fixed] by a blend; fixed where a side cannot move */
        const cr_soft *s0f = &pass->soft[0], *s1f = &pass->soft[1];
        vmask fixed = mask_or(eq(A.inv_mass, zero_), eq(B.inv_mass, zero_));
        vd msbr = blend(set1(s0f->mass_scale * s0f->bias_rate), set1(s1f->mass_scale * s1f->bias_rate), fixed);
        /* max(x, -v): -v where x is NaN, as the plain x > -v ? x : -v */
        bias = vmax(mul(msbr, sep), set1(-CR_SOFT_PUSH_SPEED));
        mass_scale = blend(set1(s0f->mass_scale), set1(s1f->mass_scale), fixed);
        impulse_scale = blend(set1(s0f->impulse_scale), set1(s1f->impulse_scale), fixed);
    }
    bias = blend(bias, mul(sep, set1(pass->inv_h)), apart);
    mass_scale = blend(mass_scale, one, apart);
    impulse_scale = blend(impulse_scale, zero_, apart);
    /* relative velocity: v_a - v_b - (ra w_a + rb w_b) x n */
    vv W = vv_add(vv_scale(A.w, ra), vv_scale(B.w, rb));
    vv vrel = vv_sub(vv_sub(A.v, B.v), vv_cross(W, n));
    vd un = vv_dot(n, vrel);
    vd next = sub(sub(lambda_n, mul(mass_n, add(mul(mass_scale, un), bias))), mul(impulse_scale, lambda_n));
    next = blend(zero_, next, gt(next, zero_));
    vd dn = sub(next, lambda_n);
    /* the tangential impulse in the cone */
    vv ut = vv_madd(vrel, n, neg(un));
    vv lt = vv_madd(lambda_t, ut, neg(mass_t));
    vd limit = mul(mu, next), l2 = vv_dot(lt, lt);
    vmask over = gt(l2, mul(limit, limit));
    /* without a branch on whether a lane slides (a test of the lanes
     * taken or not at random in the pit cost more than the square root and
     * division: pit12); lanes that do not keep lt */
    vd scale = blend(zero_, vdiv(limit, vsqrt(l2)), gt(limit, zero_));
    lt = vv_blend(lt, vv_scale(lt, scale), over);
    vv dt = vv_sub(lt, lambda_t);
    STORE(q, lambda_n, next);
    STORE(q, ltx, lt.x), STORE(q, lty, lt.y), STORE(q, ltz, lt.z);
    if (tq) {
        STORE(tq, n, add(FIELD(tq, n), next));
        STORE(tq, tx, add(FIELD(tq, tx), lt.x));
        STORE(tq, ty, add(FIELD(tq, ty), lt.y));
        STORE(tq, tz, add(FIELD(tq, tz), lt.z));
    }
    lanes_apply(&A, &B, n, ra, rb, dn, dt);
    store_side(sb, q, 0, &A);
    store_side(sb, q, 1, &B);
}
