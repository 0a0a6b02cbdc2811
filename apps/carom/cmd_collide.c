/* carom collide — one exact frictional collision (seed 002), JSON in, JSON out.
 *
 * Input (FILE, or stdin when FILE is absent or "-"), one JSON object:
 *   "dim": 3 (default) or 2, "restitution", "friction", and either
 *   contact-space form: "K" (dim x dim), "u0" (dim; the normal is the last axis)
 *   or body form: "normal", "a", "b"; a side is {"mass", "inertia", "r", "v",
 *   "w"} ("inertia" a world-frame 3x3 tensor in 3D, a scalar in 2D; "w" a
 *   vector in 3D, a scalar in 2D; "r", "v", "w" default to zero) or
 *   {"immovable": true} with optional "r", "v", "w".
 *   Optional "tolerance": the integrator's relative tolerance (3D).
 * Output on stdout: impulse, u, sticking, work_compression,
 * work_decompression, steps, and in body form "a"/"b" {"v", "w"} after.
 * Errors: exit status 2 and "NAME: path: message, got value" on stderr
 * (NAME is the file name or "stdin"); 1 if the law itself fails.
 * docs/cli-collide.md is the reference.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "carom/carom.h"
#include "commands.h"
#include "scene.h" /* cr_scene_escape_key */

static const char collide_help[] =
    "usage: carom collide [FILE]\n"
    "\n"
    "Resolves one collision with the exact frictional law of seed 002 (Mirtich's\n"
    "impulse-based collision as corrected by Baber: Coulomb friction, stable and\n"
    "unstable sticking, Stronge's energetic restitution). Reads a JSON object from\n"
    "FILE (stdin when FILE is absent or '-') and prints the result as JSON.\n"
    "\n"
    "  {\"dim\": 3, \"restitution\": 0.5, \"friction\": 0.3,\n"
    "   \"K\": [[..], [..], [..]], \"u0\": [ux, uy, uz]}            contact space\n"
    "  {\"restitution\": 0.5, \"friction\": 0.3, \"normal\": [0, 0, 1],\n"
    "   \"a\": {\"mass\": 1, \"inertia\": [[..]], \"r\": [..], \"v\": [..], \"w\": [..]},\n"
    "   \"b\": {\"immovable\": true}}                                bodies\n"
    "\n"
    "Output: impulse (on a; world frame for bodies, contact frame for K), u (final\n"
    "separation velocity, contact frame, normal last), sticking (none, stable,\n"
    "unstable), work_compression, work_decompression, steps, and for bodies\n"
    "a and b {v, w} after the collision. Numbers are printed with %.17g.\n"
    "\n"
    "exit status: 0 ok, 1 the law failed, 2 bad input or usage. See docs/cli-collide.md.\n";

/* ---- messages --------------------------------------------------------------- */

typedef struct ctx {
    const char *name; /* file name or "stdin", first in every message */
    char path[256];   /* JSON path of the value being read, e.g. "a.inertia[1][2]" */
    int dim;
} ctx;

static int fail(const ctx *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static int fail(const ctx *c, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "carom collide: %s: ", c->name);
    if (c->path[0]) fprintf(stderr, "%s: ", c->path);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return -1;
}

/* The value as compact JSON, shortened, for "got ..." in messages. */
static void value_text(const cJSON *v, char *buf, size_t size)
{
    if (cJSON_IsNumber(v)) { /* cJSON writes inf as null */
        snprintf(buf, size, "%.17g", v->valuedouble);
        return;
    }
    char *s = v ? cJSON_PrintUnformatted(v) : NULL;
    if (!s) {
        snprintf(buf, size, "%s", v ? "?" : "nothing");
        return;
    }
    if (strlen(s) >= size && size > 4) {
        memcpy(buf, s, size - 4);
        strcpy(buf + size - 4, "...");
    } else {
        snprintf(buf, size, "%s", s);
    }
    cJSON_free(s);
}

static int fail_value(const ctx *c, const cJSON *v, const char *what)
{
    char got[96];
    value_text(v, got, sizeof got);
    return fail(c, "%s, got %s", what, got);
}

static size_t push_key(ctx *c, const char *key)
{
    size_t mark = strlen(c->path);
    if (mark > 0 && mark + 1 < sizeof c->path) strcpy(c->path + mark, ".");
    size_t at = strlen(c->path);
    cr_scene_escape_key(c->path + at, sizeof c->path - at, key); /* a key's control characters escaped, as scenes' */
    return mark;
}

static size_t push_index(ctx *c, int i)
{
    size_t mark = strlen(c->path);
    snprintf(c->path + mark, sizeof c->path - mark, "[%d]", i);
    return mark;
}

static void pop(ctx *c, size_t mark) { c->path[mark] = '\0'; }

/* ---- typed readers (the path names the value being read) ---------------------- */

static int read_number(ctx *c, const cJSON *v, double *out)
{
    if (!cJSON_IsNumber(v)) return fail_value(c, v, "expected a number");
    if (!isfinite(v->valuedouble)) return fail_value(c, v, "must be finite");
    *out = v->valuedouble;
    return 0;
}

static int read_vector(ctx *c, const cJSON *v, int n, double *out)
{
    char what[48];
    snprintf(what, sizeof what, "expected an array of %d numbers", n);
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != n) return fail_value(c, v, what);
    for (int i = 0; i < n; ++i) {
        size_t m = push_index(c, i);
        int rc = read_number(c, cJSON_GetArrayItem(v, i), &out[i]);
        pop(c, m);
        if (rc) return rc;
    }
    return 0;
}

static int read_matrix(ctx *c, const cJSON *v, int n, double out[3][3])
{
    char what[64];
    snprintf(what, sizeof what, "expected a %dx%d matrix (an array of %d arrays of %d numbers)", n, n, n, n);
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != n) return fail_value(c, v, what);
    for (int i = 0; i < n; ++i) {
        size_t m = push_index(c, i);
        int rc = read_vector(c, cJSON_GetArrayItem(v, i), n, out[i]);
        pop(c, m);
        if (rc) return rc;
    }
    return 0;
}

/* Unknown keys are errors: a typo must not silently become a default. */
static int check_keys(ctx *c, const cJSON *obj, const char *const *allowed)
{
    for (const cJSON *it = obj->child; it; it = it->next) {
        bool ok = false;
        for (const char *const *k = allowed; *k; ++k)
            if (it->string && strcmp(it->string, *k) == 0) ok = true;
        if (!ok) {
            size_t m = push_key(c, it->string ? it->string : "?");
            fail(c, "unknown key");
            pop(c, m);
            return -1;
        }
    }
    return 0;
}

/* ---- bodies -------------------------------------------------------------------- */

typedef struct side_in {
    bool immovable;
    double mass;
    double inertia[3][3]; /* 3D tensor; 2D: inertia[0][0] */
    double r[3], v[3], w[3];
} side_in;

static int read_side(ctx *c, const cJSON *obj, side_in *s)
{
    static const char *const keys[] = {"mass", "inertia", "r", "v", "w", "immovable", NULL};
    memset(s, 0, sizeof *s);
    if (!cJSON_IsObject(obj))
        return fail_value(c, obj, "expected an object {\"mass\", \"inertia\", \"r\", \"v\", \"w\"} or {\"immovable\": true}");
    if (check_keys(c, obj, keys)) return -1;
    const int d = c->dim;
    const cJSON *im = cJSON_GetObjectItemCaseSensitive(obj, "immovable");
    if (im) {
        size_t m = push_key(c, "immovable");
        if (!cJSON_IsBool(im)) {
            fail_value(c, im, "expected true or false");
            pop(c, m);
            return -1;
        }
        pop(c, m);
        s->immovable = cJSON_IsTrue(im);
    }
    const cJSON *mass = cJSON_GetObjectItemCaseSensitive(obj, "mass");
    const cJSON *inertia = cJSON_GetObjectItemCaseSensitive(obj, "inertia");
    int rc = 0;
    size_t m;
    if (s->immovable) {
        if (mass || inertia) {
            m = push_key(c, mass ? "mass" : "inertia");
            fail(c, "an immovable side has no mass or inertia");
            pop(c, m);
            return -1;
        }
    } else {
        if (!mass || !inertia) {
            m = push_key(c, !mass ? "mass" : "inertia");
            fail(c, "missing (required unless \"immovable\": true)");
            pop(c, m);
            return -1;
        }
        m = push_key(c, "mass");
        rc = read_number(c, mass, &s->mass);
        if (!rc && !(s->mass > 0.0)) rc = fail_value(c, mass, "must be > 0");
        pop(c, m);
        if (rc) return rc;
        m = push_key(c, "inertia");
        if (d == 2) {
            rc = read_number(c, inertia, &s->inertia[0][0]);
            if (!rc && !(s->inertia[0][0] > 0.0)) rc = fail_value(c, inertia, "must be > 0");
        } else {
            rc = read_matrix(c, inertia, 3, s->inertia);
            if (!rc) {
                /* A tensor must be symmetric positive definite (Cholesky). */
                double (*I)[3] = s->inertia, mx = 0.0;
                for (int i = 0; i < 3; ++i)
                    for (int j = 0; j < 3; ++j) mx = fmax(mx, fabs(I[i][j]));
                bool ok = mx > 0.0;
                for (int i = 0; i < 3 && ok; ++i)
                    for (int j = i + 1; j < 3; ++j)
                        if (fabs(I[i][j] - I[j][i]) > 1e-9 * mx) ok = false;
                double a = I[0][0], b = I[0][0] * I[1][1] - I[0][1] * I[1][0];
                cr_mat3 T = {{{I[0][0], I[0][1], I[0][2]}, {I[1][0], I[1][1], I[1][2]}, {I[2][0], I[2][1], I[2][2]}}};
                if (!(a > 0.0 && b > 0.0 && cr_m3_det(T) > 0.0)) ok = false;
                if (!ok) rc = fail_value(c, inertia, "must be a symmetric positive definite 3x3 tensor");
            }
        }
        pop(c, m);
        if (rc) return rc;
    }
    const char *vk[3] = {"r", "v", "w"};
    double *dst[3] = {s->r, s->v, s->w};
    for (int k = 0; k < 3; ++k) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, vk[k]);
        if (!v) continue;
        m = push_key(c, vk[k]);
        if (k == 2 && d == 2)
            rc = read_number(c, v, dst[k]);
        else
            rc = read_vector(c, v, d, dst[k]);
        pop(c, m);
        if (rc) return rc;
    }
    return 0;
}

static cr_contact_side side3(const side_in *s)
{
    cr_contact_side o = cr_contact_side_immovable();
    if (!s->immovable) {
        const double (*I)[3] = s->inertia;
        cr_mat3 T = {{{I[0][0], I[0][1], I[0][2]}, {I[1][0], I[1][1], I[1][2]}, {I[2][0], I[2][1], I[2][2]}}};
        /* Symmetrise first: the inverse of a symmetric matrix is symmetric. */
        for (int i = 0; i < 3; ++i)
            for (int j = i + 1; j < 3; ++j) T.m[i][j] = T.m[j][i] = 0.5 * (T.m[i][j] + T.m[j][i]);
        o.inv_mass = 1.0 / s->mass;
        o.inv_inertia = cr_m3_inverse(T, NULL);
        for (int i = 0; i < 3; ++i)
            for (int j = i + 1; j < 3; ++j)
                o.inv_inertia.m[i][j] = o.inv_inertia.m[j][i] =
                    0.5 * (o.inv_inertia.m[i][j] + o.inv_inertia.m[j][i]);
    }
    o.r = cr_v3(s->r[0], s->r[1], s->r[2]);
    o.v = cr_v3(s->v[0], s->v[1], s->v[2]);
    o.w = cr_v3(s->w[0], s->w[1], s->w[2]);
    return o;
}

static cr_contact_side_2d side2(const side_in *s)
{
    cr_contact_side_2d o = cr_contact_side_2d_immovable();
    if (!s->immovable) {
        o.inv_mass = 1.0 / s->mass;
        o.inv_inertia = 1.0 / s->inertia[0][0];
    }
    o.r[0] = s->r[0];
    o.r[1] = s->r[1];
    o.v[0] = s->v[0];
    o.v[1] = s->v[1];
    o.w = s->w[0];
    return o;
}

/* ---- output ------------------------------------------------------------------- */

static void print_vec(const char *key, const double *v, int n, bool comma)
{
    printf("  \"%s\": [", key);
    for (int i = 0; i < n; ++i) printf("%s%.17g", i ? ", " : "", v[i]);
    printf("]%s\n", comma ? "," : "");
}

static const char *sticking_name(cr_sticking s)
{
    switch (s) {
    case CR_STICKING_STABLE: return "stable";
    case CR_STICKING_UNSTABLE: return "unstable";
    case CR_STICKING_NONE: break;
    }
    return "none";
}

static void print_result(int dim, const cr_stronge_result *r, bool bodies)
{
    double p[3] = {r->impulse.x, r->impulse.y, r->impulse.z};
    double u[3] = {r->u.x, r->u.y, r->u.z};
    printf("{\n  \"dim\": %d,\n", dim);
    print_vec("impulse", p, dim, true);
    print_vec("u", u, dim, true);
    printf("  \"sticking\": \"%s\",\n", sticking_name(r->sticking));
    printf("  \"work_compression\": %.17g,\n", r->work_compression);
    printf("  \"work_decompression\": %.17g,\n", r->work_decompression);
    printf("  \"steps\": %d%s\n", r->steps, bodies ? "," : "");
}

static void print_side(const char *name, const double *v, const double *w, int dim, bool comma)
{
    printf("  \"%s\": {\"v\": [", name);
    for (int i = 0; i < dim; ++i) printf("%s%.17g", i ? ", " : "", v[i]);
    if (dim == 2)
        printf("], \"w\": %.17g}%s\n", w[0], comma ? "," : "");
    else
        printf("], \"w\": [%.17g, %.17g, %.17g]}%s\n", w[0], w[1], w[2], comma ? "," : "");
}

/* ---- input -------------------------------------------------------------------- */

static char *read_all(FILE *f)
{
    size_t cap = 1 << 14, len = 0;
    char *buf = malloc(cap);
    while (buf) {
        len += fread(buf + len, 1, cap - len - 1, f);
        if (ferror(f) || feof(f)) break;
        char *grown = realloc(buf, cap * 2);
        if (!grown) {
            free(buf);
            return NULL;
        }
        buf = grown;
        cap *= 2;
    }
    if (!buf || ferror(f)) {
        free(buf);
        return NULL;
    }
    buf[len] = '\0';
    return buf;
}

static int parse_error(const ctx *c, const char *json, const char *end)
{
    if (!end) return fail(c, "invalid JSON");
    int line = 1, col = 1;
    for (const char *p = json; p < end && *p; ++p) {
        if (*p == '\n') {
            ++line;
            col = 1;
        } else {
            ++col;
        }
    }
    char near[32];
    size_t n = 0;
    for (const char *p = end; *p && *p != '\n' && *p != '\r' && n + 1 < sizeof near; ++p) near[n++] = *p;
    near[n] = '\0';
    if (n == 0) return fail(c, "line %d, column %d: invalid JSON near the end of the text", line, col);
    bool nonfinite = strncmp(near, "NaN", 3) == 0 || strncmp(near, "nan", 3) == 0 ||
                     strncmp(near, "Inf", 3) == 0 || strncmp(near, "-Inf", 4) == 0 ||
                     strncmp(near, "inf", 3) == 0 || strncmp(near, "-inf", 4) == 0;
    return fail(c, "line %d, column %d: invalid JSON near '%s'%s", line, col, near,
                nonfinite ? " (JSON has no NaN or Infinity; numbers must be finite)" : "");
}

/* ---- the command -------------------------------------------------------------- */

static int run(ctx *c, const cJSON *root)
{
    static const char *const keys[] = {"dim", "restitution", "friction", "K", "u0",
                                       "normal", "a", "b", "tolerance", NULL};
    if (!cJSON_IsObject(root)) return fail_value(c, root, "expected a JSON object");
    if (check_keys(c, root, keys)) return 2;
    size_t m;
    int rc = 0;

    c->dim = 3;
    const cJSON *dim = cJSON_GetObjectItemCaseSensitive(root, "dim");
    if (dim) {
        m = push_key(c, "dim");
        if (!cJSON_IsNumber(dim) || (dim->valuedouble != 2.0 && dim->valuedouble != 3.0))
            rc = fail_value(c, dim, "must be 2 or 3");
        pop(c, m);
        if (rc) return 2;
        c->dim = (int)dim->valuedouble;
    }
    const int d = c->dim;

    double e = 0.0, mu = 0.0;
    const char *ck[2] = {"restitution", "friction"};
    double *cv[2] = {&e, &mu};
    for (int i = 0; i < 2; ++i) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, ck[i]);
        m = push_key(c, ck[i]);
        if (!v)
            rc = fail(c, "missing (%s)", i == 0 ? "a number in [0, 1]" : "a number >= 0");
        else
            rc = read_number(c, v, cv[i]);
        if (!rc && i == 0 && !(e >= 0.0 && e <= 1.0)) rc = fail_value(c, v, "must be in [0, 1]");
        if (!rc && i == 1 && !(mu >= 0.0)) rc = fail_value(c, v, "must be >= 0");
        pop(c, m);
        if (rc) return 2;
    }

    cr_stronge_options opt = cr_default_stronge_options();
    const cJSON *tol = cJSON_GetObjectItemCaseSensitive(root, "tolerance");
    if (tol) {
        m = push_key(c, "tolerance");
        rc = read_number(c, tol, &opt.tolerance);
        if (!rc && !(opt.tolerance >= 1e-14 && opt.tolerance <= 1e-3))
            rc = fail_value(c, tol, "must be in [1e-14, 1e-3]");
        pop(c, m);
        if (rc) return 2;
    }

    const cJSON *K = cJSON_GetObjectItemCaseSensitive(root, "K");
    const cJSON *u0 = cJSON_GetObjectItemCaseSensitive(root, "u0");
    const cJSON *normal = cJSON_GetObjectItemCaseSensitive(root, "normal");
    const cJSON *ja = cJSON_GetObjectItemCaseSensitive(root, "a");
    const cJSON *jb = cJSON_GetObjectItemCaseSensitive(root, "b");
    bool contact = K || u0, bodies = normal || ja || jb;
    if (contact && bodies) {
        m = push_key(c, K ? "K" : "u0");
        fail(c, "the contact-space form (\"K\", \"u0\") and the body form (\"normal\", \"a\", \"b\") "
                "cannot be mixed");
        pop(c, m);
        return 2;
    }
    if (!contact && !bodies)
        return fail(c, "missing \"K\" and \"u0\" (contact space) or \"normal\", \"a\" and \"b\" (bodies)"), 2;

    char msg[256];
    cr_stronge_result res;
    cr_status st;
    if (contact) {
        double Km[3][3] = {{0}}, u[3] = {0};
        if (!K || !u0) {
            m = push_key(c, !K ? "K" : "u0");
            fail(c, "missing (the contact-space form needs both \"K\" and \"u0\")");
            pop(c, m);
            return 2;
        }
        m = push_key(c, "K");
        rc = read_matrix(c, K, d, Km);
        pop(c, m);
        if (rc) return 2;
        m = push_key(c, "u0");
        rc = read_vector(c, u0, d, u);
        pop(c, m);
        if (rc) return 2;
        if (d == 3) {
            cr_mat3 KK = {{{Km[0][0], Km[0][1], Km[0][2]}, {Km[1][0], Km[1][1], Km[1][2]}, {Km[2][0], Km[2][1], Km[2][2]}}};
            st = cr_law_stronge_contact_ex(KK, cr_v3(u[0], u[1], u[2]), e, mu, &opt, &res, msg, sizeof msg);
        } else {
            const double K2[2][2] = {{Km[0][0], Km[0][1]}, {Km[1][0], Km[1][1]}};
            st = cr_law_stronge_2d(K2, u, e, mu, &res, msg, sizeof msg);
        }
        if (st == CR_ERR_INVALID_ARGUMENT) {
            /* The law's message starts with the culprit: "K is not ...". */
            m = push_key(c, strncmp(msg, "u0", 2) == 0 ? "u0" : "K");
            char got[96];
            value_text(strncmp(msg, "u0", 2) == 0 ? u0 : K, got, sizeof got);
            /* "K is not symmetric: ..." under the path "K" reads "K: is not ...". */
            const char *what = msg;
            if (strncmp(what, "K ", 2) == 0) what += 2;
            else if (strncmp(what, "u0", 2) == 0 && what[2] == ' ') what += 3;
            fail(c, "%s, got %s", what, got);
            pop(c, m);
            return 2;
        }
        if (st != CR_OK) return fail(c, "%s", msg), 1;
        print_result(d, &res, false);
        printf("}\n");
        return 0;
    }

    if (!normal || !ja || !jb) {
        m = push_key(c, !normal ? "normal" : (!ja ? "a" : "b"));
        fail(c, "missing (the body form needs \"normal\", \"a\" and \"b\")");
        pop(c, m);
        return 2;
    }
    double n[3] = {0};
    m = push_key(c, "normal");
    rc = read_vector(c, normal, d, n);
    if (!rc) {
        double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        if (!(fabs(len - 1.0) <= 1e-9)) rc = fail_value(c, normal, "must be a unit vector (length 1 to 1e-9)");
    }
    pop(c, m);
    if (rc) return 2;
    side_in sa, sb;
    m = push_key(c, "a");
    rc = read_side(c, ja, &sa);
    pop(c, m);
    if (rc) return 2;
    m = push_key(c, "b");
    rc = read_side(c, jb, &sb);
    pop(c, m);
    if (rc) return 2;
    if (sa.immovable && sb.immovable) {
        m = push_key(c, "b.immovable");
        fail(c, "a and b cannot both be immovable");
        pop(c, m);
        return 2;
    }

    if (d == 3) {
        cr_contact_side a = side3(&sa), b = side3(&sb);
        st = cr_law_stronge_ex(&a, &b, cr_v3(n[0], n[1], n[2]), e, mu, &opt, &res, msg, sizeof msg);
        if (st == CR_ERR_INVALID_ARGUMENT) return fail(c, "%s", msg), 2;
        if (st != CR_OK) return fail(c, "%s", msg), 1;
        cr_contact_apply(&a, &b, res.impulse);
        print_result(3, &res, true);
        double av[3] = {a.v.x, a.v.y, a.v.z}, aw[3] = {a.w.x, a.w.y, a.w.z};
        double bv[3] = {b.v.x, b.v.y, b.v.z}, bw[3] = {b.w.x, b.w.y, b.w.z};
        print_side("a", av, aw, 3, true);
        print_side("b", bv, bw, 3, false);
    } else {
        cr_contact_side_2d a = side2(&sa), b = side2(&sb);
        st = cr_law_stronge_2d_body(&a, &b, n, e, mu, &res, msg, sizeof msg);
        if (st == CR_ERR_INVALID_ARGUMENT) return fail(c, "%s", msg), 2;
        if (st != CR_OK) return fail(c, "%s", msg), 1;
        double p[2] = {res.impulse.x, res.impulse.y};
        cr_contact_apply_2d(&a, &b, p);
        print_result(2, &res, true);
        print_side("a", a.v, &a.w, 2, true);
        print_side("b", b.v, &b.w, 2, false);
    }
    printf("}\n");
    return 0;
}

/* The input text, parsed and run: the command's exit status (0, 1 the law
 * failed, 2 bad input). fuzz/fuzz_collide.c calls it too. */
static int collide_text(ctx *c, const char *json)
{
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(json, strlen(json) + 1, &end, 1);
    if (!root) {
        parse_error(c, json, end);
        return 2;
    }
    int status = run(c, root);
    cJSON_Delete(root);
    return status < 0 ? 2 : status;
}

int cmd_collide(int argc, char **argv)
{
    const char *file = NULL;
    for (int i = 1; i < argc; ++i) {
        const char *s = argv[i];
        if (strcmp(s, "-h") == 0 || strcmp(s, "--help") == 0) {
            fputs(collide_help, stdout);
            return 0;
        }
        if (s[0] == '-' && s[1] != '\0') {
            fprintf(stderr, "carom collide: unknown option '%s'\n\n%s", s, collide_help);
            return 2;
        }
        if (file) {
            fprintf(stderr, "carom collide: more than one file ('%s' and '%s')\n\n%s", file, s, collide_help);
            return 2;
        }
        file = s;
    }
    ctx c;
    memset(&c, 0, sizeof c);
    bool from_stdin = !file || strcmp(file, "-") == 0;
    c.name = from_stdin ? "stdin" : file;
    FILE *f = from_stdin ? stdin : fopen(file, "rb");
    if (!f) {
        fprintf(stderr, "carom collide: %s: %s\n", file, strerror(errno));
        return 2;
    }
    char *json = read_all(f);
    if (!from_stdin) fclose(f);
    if (!json) {
        fprintf(stderr, "carom collide: %s: could not read the input\n", c.name);
        return 2;
    }
    int status = collide_text(&c, json);
    free(json);
    fflush(stdout);
    return status;
}
