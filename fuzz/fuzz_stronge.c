/* carom fuzzing — the exact frictional impulse law (seed 002) without JSON:
 * the bytes are decoded into one call of cr_law_stronge_contact_ex (3D
 * contact space), cr_law_stronge_ex (3D bodies), cr_law_stronge_2d or
 * cr_law_stronge_2d_body, so that the fuzzer spends its time in the law
 * rather than in a parser.
 *
 * Input layout (missing bytes read as zero):
 *   byte 0   bits 0-1  form: 0 contact 3D, 1 bodies 3D, 2 contact 2D, 3 bodies 2D
 *            bit 2     raw: numbers are 8 raw bytes (any double: NaN, inf,
 *                      subnormals, 1e308); otherwise 3 bytes, an int16
 *                      mantissa m and an exponent byte x: m / 256 * 2^(x % 17 - 8)
 *            bit 3     SPD: matrices are built as A A^T + |d| I from a
 *                      general A (and d), so that most are valid; otherwise
 *                      taken as given (asymmetric, indefinite, ...)
 *            bit 4     the normal is normalised (bodies); otherwise as given
 *            bit 5     closed_forms off (integrate wherever it slides)
 *            bits 6-7  tolerance: 1e-10 (default), 1e-6, 1e-13, or a number
 *   then     restitution, friction: in the non-raw mode one byte each,
 *            e = b / 255 and mu = b / 32; raw: two numbers
 *   then     the form's numbers in the order of the code below.
 *
 * Contract checked (include/carom/law_stronge.h):
 * - on an error: a message, and *out left zeroed ("never a garbage impulse");
 * - on success: every number of the result finite; the normal impulse
 *   p_n >= 0; the kinetic energy of the relative motion does not grow,
 *   p.u0 + p.K p / 2 <= tol for e <= 1 (Stronge's hypothesis: energy never
 *   increases), tol relative to the size of the terms.
 */
#include "carom/carom.h"
#include "fuzz_util.h"

typedef struct fz_bytes {
    const uint8_t *p;
    size_t n;
    bool raw;
} fz_bytes;

static uint8_t fz_byte(fz_bytes *b)
{
    if (b->n == 0) return 0;
    b->n--;
    return *b->p++;
}

static double fz_num(fz_bytes *b)
{
    if (b->raw) {
        uint8_t bytes[8];
        for (int i = 0; i < 8; ++i) bytes[i] = fz_byte(b);
        double d;
        memcpy(&d, bytes, sizeof d);
        return d;
    }
    uint8_t lo = fz_byte(b), hi = fz_byte(b); /* sequenced: lo first */
    uint16_t m = (uint16_t)(lo | (uint16_t)(hi << 8));
    int x = fz_byte(b) % 17 - 8;
    return ldexp((double)(int16_t)m / 256.0, x);
}

/* K = A A^T + |d| I (SPD mode) or the numbers as given, n x n. */
static cr_mat3 fz_matrix(fz_bytes *b, int n, bool spd)
{
    double a[3][3] = {{0}};
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) a[i][j] = fz_num(b);
    cr_mat3 K = cr_m3_zero();
    if (!spd) {
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) K.m[i][j] = a[i][j];
        return K;
    }
    double d = fabs(fz_num(b));
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            double s = i == j ? d : 0.0;
            for (int k = 0; k < n; ++k) s += a[i][k] * a[j][k];
            K.m[i][j] = s;
        }
    return K;
}

static cr_vec3 fz_vec(fz_bytes *b)
{
    double x = fz_num(b), y = fz_num(b);
    return cr_v3(x, y, fz_num(b));
}

static bool fz_result_zero(const cr_stronge_result *r)
{
    return r->impulse.x == 0.0 && r->impulse.y == 0.0 && r->impulse.z == 0.0 && r->u.x == 0.0 && r->u.y == 0.0 &&
           r->u.z == 0.0 && r->sticking == CR_STICKING_NONE && r->work_compression == 0.0 &&
           r->work_decompression == 0.0 && r->steps == 0;
}

static bool fz_result_finite(const cr_stronge_result *r)
{
    return fz_finite3(r->impulse.x, r->impulse.y, r->impulse.z) && fz_finite3(r->u.x, r->u.y, r->u.z) &&
           isfinite(r->work_compression) && isfinite(r->work_decompression);
}

/* Relative kinetic energy change p.u0 + p.K p / 2 and the size of its
 * terms, in any frame where K and u0 are expressed alike. */
static void fz_energy(cr_mat3 K, cr_vec3 u0, cr_vec3 p, double *change, double *scale)
{
    cr_vec3 Kp = cr_m3_mul_v(K, p);
    double a = cr_v3_dot(p, u0), q = 0.5 * cr_v3_dot(p, Kp);
    *change = a + q;
    *scale = fabs(a) + fabs(q);
}

/* T0 = u0.K^-1 u0 / 2, the energy of the relative motion, and K's
 * condition number (max-norm estimate), computed on K and u0 scaled to 1 so
 * that neither the determinant nor the square of a huge u0 overflows before
 * the end. T0 is +inf when beyond doubles (then any finite change passes);
 * both are 0 when K cannot be inverted. */
static void fz_conditioning(cr_mat3 K, cr_vec3 u0, double *T0, double *cond)
{
    *T0 = *cond = 0.0;
    double kmax = 0.0, umax = fmax(fabs(u0.x), fmax(fabs(u0.y), fabs(u0.z)));
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) kmax = fmax(kmax, fabs(K.m[i][j]));
    if (!(kmax > 0.0) || !isfinite(kmax) || !(umax > 0.0) || !isfinite(umax)) return;
    bool ok = false;
    cr_mat3 Kinv = cr_m3_inverse(cr_m3_scale(K, 1.0 / kmax), &ok);
    if (!ok) return;
    double imax = 0.0;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) imax = fmax(imax, fabs(Kinv.m[i][j]));
    cr_vec3 us = cr_v3_scale(u0, 1.0 / umax);
    double ulen = umax * cr_v3_len(us); /* may be inf: then so is T0 */
    us = cr_v3_scale(us, 1.0 / cr_v3_len(us));
    double q = cr_v3_dot(us, cr_m3_mul_v(Kinv, us));
    if (!(q >= 0.0)) return;
    *T0 = 0.5 * (ulen / kmax) * ulen * q;
    *cond = 3.0 * imax;
}

static cr_contact_side fz_side3(fz_bytes *b, bool spd)
{
    cr_contact_side s = cr_contact_side_immovable();
    uint8_t flags = fz_byte(b);
    if (!(flags & 1)) { /* movable */
        s.inv_mass = fz_num(b);
        if (!b->raw) s.inv_mass = fabs(s.inv_mass);
        s.inv_inertia = fz_matrix(b, 3, spd);
    }
    s.r = fz_vec(b);
    s.v = fz_vec(b);
    s.w = fz_vec(b);
    return s;
}

static cr_contact_side_2d fz_side2(fz_bytes *b)
{
    cr_contact_side_2d s = cr_contact_side_2d_immovable();
    uint8_t flags = fz_byte(b);
    if (!(flags & 1)) {
        s.inv_mass = fz_num(b);
        s.inv_inertia = fz_num(b);
        if (!b->raw) {
            s.inv_mass = fabs(s.inv_mass);
            s.inv_inertia = fabs(s.inv_inertia);
        }
    }
    for (int i = 0; i < 2; ++i) s.r[i] = fz_num(b);
    for (int i = 0; i < 2; ++i) s.v[i] = fz_num(b);
    s.w = fz_num(b);
    return s;
}

int carom_fuzz_stronge(const uint8_t *data, size_t size, char *why, size_t why_size)
{
    why[0] = '\0';
    fz_bytes b = {data, size, false};
    uint8_t head = fz_byte(&b);
    int form = head & 3;
    b.raw = (head & 4) != 0;
    bool spd = (head & 8) != 0, unit = (head & 16) != 0;
    cr_stronge_options opt = cr_default_stronge_options();
    opt.closed_forms = (head & 32) == 0;
    /* Bound the integrator's work per input: the default 100000 steps can
     * take long under ASan; running out is a clean error either way. */
    opt.max_steps = 20000;
    switch (head >> 6) {
    case 1: opt.tolerance = 1e-6; break;
    case 2: opt.tolerance = 1e-13; break;
    case 3: opt.tolerance = fz_num(&b); break;
    default: break;
    }
    double e, mu;
    if (b.raw) {
        e = fz_num(&b);
        mu = fz_num(&b);
    } else {
        e = fz_byte(&b) / 255.0;
        mu = fz_byte(&b) / 32.0;
    }

    cr_stronge_result r;
    memset(&r, 0x5a, sizeof r); /* garbage, so that "left zeroed" is checked */
    char msg[256];
    msg[0] = '\0';
    cr_status st;
    cr_mat3 K = cr_m3_zero(); /* in the frame of r.impulse and u0 */
    cr_vec3 u0 = cr_v3_zero(), normal = cr_v3(0, 0, 1);
    const char *name = "";
    if (form == 0) {
        name = "cr_law_stronge_contact_ex";
        K = fz_matrix(&b, 3, spd);
        u0 = fz_vec(&b);
        st = cr_law_stronge_contact_ex(K, u0, e, mu, &opt, &r, msg, sizeof msg);
    } else if (form == 1) {
        name = "cr_law_stronge_ex";
        cr_contact_side sa = fz_side3(&b, spd), sb = fz_side3(&b, spd);
        normal = fz_vec(&b);
        if (unit && cr_v3_len(normal) > 0.0 && isfinite(cr_v3_len(normal))) normal = cr_v3_normalize(normal);
        st = cr_law_stronge_ex(&sa, &sb, normal, e, mu, &opt, &r, msg, sizeof msg);
        K = cr_collision_matrix(&sa, &sb); /* world frame, as the impulse */
        u0 = cr_v3_sub(cr_contact_point_velocity(&sa), cr_contact_point_velocity(&sb));
    } else if (form == 2) {
        name = "cr_law_stronge_2d";
        cr_mat3 K3 = fz_matrix(&b, 2, spd);
        const double K2[2][2] = {{K3.m[0][0], K3.m[0][1]}, {K3.m[1][0], K3.m[1][1]}};
        double u2[2];
        u2[0] = fz_num(&b);
        u2[1] = fz_num(&b);
        st = cr_law_stronge_2d(K2, u2, e, mu, &r, msg, sizeof msg);
        K = K3;
        u0 = cr_v3(u2[0], u2[1], 0.0);
        normal = cr_v3(0, 1, 0);
    } else {
        name = "cr_law_stronge_2d_body";
        cr_contact_side_2d sa = fz_side2(&b), sb = fz_side2(&b);
        double n[2];
        n[0] = fz_num(&b);
        n[1] = fz_num(&b);
        double len = hypot(n[0], n[1]);
        if (unit && len > 0.0 && isfinite(len)) n[0] /= len, n[1] /= len;
        st = cr_law_stronge_2d_body(&sa, &sb, n, e, mu, &r, msg, sizeof msg);
        double K2[2][2], ua[2], ub[2];
        cr_collision_matrix_2d(&sa, &sb, K2);
        cr_contact_point_velocity_2d(&sa, ua);
        cr_contact_point_velocity_2d(&sb, ub);
        K = cr_m3_zero();
        for (int i = 0; i < 2; ++i)
            for (int j = 0; j < 2; ++j) K.m[i][j] = K2[i][j];
        u0 = cr_v3(ua[0] - ub[0], ua[1] - ub[1], 0.0);
        normal = cr_v3(n[0], n[1], 0.0);
    }

    if (st != CR_OK) {
        if (msg[0] == '\0') return fz_say(CAROM_FUZZ_BROKEN, why, why_size, "%s: status %d without a message", name, (int)st);
        if (!fz_result_zero(&r))
            return fz_say(CAROM_FUZZ_BROKEN, why, why_size, "%s: status %d (%s) but *out not zeroed", name, (int)st, msg);
        return fz_say(CAROM_FUZZ_REFUSED, why, why_size, "%s: %s: %s", name, cr_status_string(st), msg);
    }
    if (!fz_result_finite(&r)) return fz_say(CAROM_FUZZ_BROKEN, why, why_size, "%s: CR_OK with a non-finite result", name);
    double pn = cr_v3_dot(r.impulse, normal);
    double plen = cr_v3_len(r.impulse);
    if (pn < -1e-9 * plen)
        return fz_say(CAROM_FUZZ_BROKEN, why, why_size, "%s: negative normal impulse %.17g (|p| %.17g)", name, pn, plen);
    double change, scale;
    fz_energy(K, u0, r.impulse, &change, &scale);
    /* The law works to a precision relative to |u0| (its noise floor is
     * 64 eps |u0|, law_stronge.c) and to K's conditioning (it accepts K up
     * to a condition number of about 1e12): with u0 = (0, 1e186, -1e58) the
     * normal approach is below the floor and the impulse is noise, harmless
     * against the energy of the relative motion, T0 = u0.K^-1 u0 / 2; with a
     * condition number of 1e12 the energy is good to about 1e-4 of T0.
     * Allowed gain: (1e-6 + 1e-14 cond) of the terms and of T0. */
    if (form >= 2) K.m[2][2] = K.m[0][0] + K.m[1][1]; /* 2D: invertible, u0.z = 0 */
    double T0, cond;
    fz_conditioning(K, u0, &T0, &cond);
    double rel = 1e-6 + 1e-14 * cond;
    if (isfinite(change) && isfinite(scale) && change > rel * (scale + T0) + 1e-300)
        return fz_say(CAROM_FUZZ_BROKEN, why, why_size,
                      "%s: kinetic energy grew by %.17g (terms %.17g), e = %.17g, mu = %.17g", name, change, scale, e,
                      mu);
    return fz_say(CAROM_FUZZ_ACCEPTED, why, why_size, "%s: impulse (%.6g, %.6g, %.6g)", name, r.impulse.x,
                  r.impulse.y, r.impulse.z);
}
