/* carom scenes — typed JSON readers whose errors name the JSON path and value.
 *
 * cJSON gives a tree without types we can rely on; every value a scene can
 * hold goes through one of these readers, so that "wrong type", "not
 * finite" and "out of range" are worded the same way everywhere.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene_internal.h"

/* ---- path -------------------------------------------------------------- */

static size_t path_append(sc_ctx *c, const char *text)
{
    size_t mark = c->path_len;
    size_t room = sizeof c->path - c->path_len;
    int n = snprintf(c->path + c->path_len, room, "%s", text);
    /* A truncated path still names its start; keep the length in bounds. */
    c->path_len += (n < 0) ? 0 : ((size_t)n < room ? (size_t)n : room - 1);
    return mark;
}

size_t cr_scene_escape_key(char *out, size_t size, const char *key)
{
    size_t n = 0;
    if (size == 0) return 0;
    for (const unsigned char *p = (const unsigned char *)key; *p; ++p) {
        char piece[8] = {(char)*p, '\0'};
        size_t len = 1;
        if (*p < 0x20 || *p == 0x7f) len = (size_t)snprintf(piece, sizeof piece, "\\u%04x", *p);
        if (n + len >= size) break;
        memcpy(out + n, piece, len);
        n += len;
    }
    out[n] = '\0';
    return n;
}

size_t sc_push_key(sc_ctx *c, const char *key)
{
    size_t mark = c->path_len;
    if (c->path_len > 0) path_append(c, ".");
    c->path_len += cr_scene_escape_key(c->path + c->path_len, sizeof c->path - c->path_len, key);
    return mark;
}

size_t sc_push_index(sc_ctx *c, size_t index)
{
    char buf[32];
    snprintf(buf, sizeof buf, "[%zu]", index);
    return path_append(c, buf);
}

void sc_pop(sc_ctx *c, size_t mark)
{
    c->path_len = mark;
    c->path[mark] = '\0';
}

/* ---- formatting ---------------------------------------------------------- */

void sc_format_number(double v, char *buf, size_t size)
{
    if (isnan(v)) { snprintf(buf, size, "nan"); return; }
    if (isinf(v)) { snprintf(buf, size, v > 0 ? "inf" : "-inf"); return; }
    /* Whole numbers as written ("10", not "1e+01"), up to where doubles
     * stop holding every integer. */
    if (v == floor(v) && fabs(v) < 1e15) { snprintf(buf, size, "%.0f", v); return; }
    for (int prec = 1; prec <= 17; ++prec) {
        snprintf(buf, size, "%.*g", prec, v);
        if (strtod(buf, NULL) == v) return;
    }
}

typedef struct sc_buf { char *p; size_t size, len; bool full; } sc_buf;

static void buf_put(sc_buf *b, const char *s)
{
    if (b->full) return;
    size_t n = strlen(s);
    /* Invariant: len + 4 <= size, so that "..." always fits and a cut value
     * says it was cut. */
    size_t avail = b->size - 4 - b->len;
    if (n > avail) {
        memcpy(b->p + b->len, s, avail);
        memcpy(b->p + b->len + avail, "...", 4);
        b->len += avail + 3;
        b->full = true;
        return;
    }
    memcpy(b->p + b->len, s, n + 1);
    b->len += n;
}

static void put_string(sc_buf *b, const char *s)
{
    char ch[8];
    buf_put(b, "\"");
    for (; *s && !b->full; ++s) {
        unsigned char u = (unsigned char)*s;
        if (u == '"' || u == '\\') snprintf(ch, sizeof ch, "\\%c", u);
        else if (u < 0x20) snprintf(ch, sizeof ch, "\\u%04x", u);
        else { ch[0] = (char)u; ch[1] = '\0'; }
        buf_put(b, ch);
    }
    buf_put(b, "\"");
}

static void put_value(sc_buf *b, const cJSON *v)
{
    char num[40];
    if (v == NULL) { buf_put(b, "nothing"); return; }
    if (cJSON_IsNumber(v)) { sc_format_number(v->valuedouble, num, sizeof num); buf_put(b, num); }
    else if (cJSON_IsString(v)) put_string(b, v->valuestring);
    else if (cJSON_IsTrue(v)) buf_put(b, "true");
    else if (cJSON_IsFalse(v)) buf_put(b, "false");
    else if (cJSON_IsNull(v)) buf_put(b, "null");
    else if (cJSON_IsArray(v) || cJSON_IsObject(v)) {
        bool obj = cJSON_IsObject(v);
        buf_put(b, obj ? "{" : "[");
        for (const cJSON *e = v->child; e && !b->full; e = e->next) {
            if (obj) { put_string(b, e->string ? e->string : ""); buf_put(b, ":"); }
            put_value(b, e);
            if (e->next) buf_put(b, ",");
        }
        buf_put(b, obj ? "}" : "]");
    } else buf_put(b, "?");
}

void sc_format_value(const cJSON *v, char *buf, size_t size)
{
    if (size < 4) { if (size > 0) buf[0] = '\0'; return; }
    buf[0] = '\0';
    sc_buf b = {buf, size, 0, false};
    put_value(&b, v);
}

/* ---- errors -------------------------------------------------------------- */

int sc_fail(sc_ctx *c, const char *fmt, ...)
{
    if (c->err == NULL || c->err_size == 0) return -1;
    int n = c->path_len > 0 ? snprintf(c->err, c->err_size, "%s: %s: ", c->name, c->path)
                            : snprintf(c->err, c->err_size, "%s: ", c->name);
    if (n >= 0 && (size_t)n < c->err_size) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->err + n, c->err_size - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return -1;
}

int sc_fail_value(sc_ctx *c, const char *key, const cJSON *value, const char *what)
{
    char text[160];
    sc_format_value(value, text, sizeof text);
    size_t mark = key ? sc_push_key(c, key) : c->path_len;
    sc_fail(c, "%s, got %s", what, text);
    sc_pop(c, mark);
    return -1;
}

int sc_fail_number(sc_ctx *c, const char *key, double v, const char *what)
{
    char text[40];
    sc_format_number(v, text, sizeof text);
    size_t mark = key ? sc_push_key(c, key) : c->path_len;
    sc_fail(c, "%s, got %s", what, text);
    sc_pop(c, mark);
    return -1;
}

int sc_fail_missing(sc_ctx *c, const char *key, const char *expected)
{
    size_t mark = sc_push_key(c, key);
    sc_fail(c, "missing (%s)", expected);
    sc_pop(c, mark);
    return -1;
}

int sc_fail_core(sc_ctx *c, const char *message)
{
    size_t n = strspn(message, "abcdefghijklmnopqrstuvwxyz_");
    if (n == 0 || message[n] != ':' || message[n + 1] != ' ') return sc_fail(c, "%s", message);
    char key[64];
    snprintf(key, sizeof key, "%.*s", (int)n, message);
    size_t mark = sc_push_key(c, key);
    sc_fail(c, "%s", message + n + 2);
    sc_pop(c, mark);
    return -1;
}

/* ---- readers ------------------------------------------------------------- */

static bool key_allowed(const char *key, const char *const *allowed)
{
    for (; *allowed; ++allowed)
        if (strcmp(key, *allowed) == 0) return true;
    return false;
}

int sc_check_keys(sc_ctx *c, const cJSON *obj, const char *const *allowed)
{
    for (const cJSON *e = obj->child; e; e = e->next) {
        const char *key = e->string ? e->string : "";
        if (!key_allowed(key, allowed)) {
            char list[400] = "";
            size_t len = 0;
            for (const char *const *a = allowed; *a && len < sizeof list; ++a) {
                int n = snprintf(list + len, sizeof list - len, "%s%s", a == allowed ? "" : ", ", *a);
                if (n > 0) len += (size_t)n;
            }
            size_t mark = sc_push_key(c, key);
            sc_fail(c, "unknown key (known keys here: %s)", list);
            sc_pop(c, mark);
            return -1;
        }
        /* cJSON keeps duplicates and reads the first; a second value would be
         * silently ignored, which is never what the author meant. */
        for (const cJSON *d = obj->child; d != e; d = d->next)
            if (d->string && strcmp(d->string, key) == 0) {
                size_t mark = sc_push_key(c, key);
                sc_fail(c, "duplicate key");
                sc_pop(c, mark);
                return -1;
            }
    }
    return 0;
}

int sc_expect_object(sc_ctx *c, const cJSON *v, const char *key)
{
    if (cJSON_IsObject(v)) return 0;
    return sc_fail_value(c, key, v, "expected an object");
}

static bool in_range(double v, sc_range range)
{
    switch (range) {
    case SC_POSITIVE: return isfinite(v) && v > 0.0;
    case SC_NONNEG: return isfinite(v) && v >= 0.0;
    case SC_UNIT: return v >= 0.0 && v <= 1.0;
    case SC_ANY: break;
    }
    return isfinite(v);
}

/* Writes the error for a value that failed in_range; key NULL: the path as is. */
static int range_error(sc_ctx *c, const char *key, double v, sc_range range)
{
    if (!isfinite(v)) return sc_fail_number(c, key, v, "must be a finite number");
    switch (range) {
    case SC_POSITIVE: return sc_fail_number(c, key, v, "must be > 0");
    case SC_NONNEG: return sc_fail_number(c, key, v, "must be >= 0");
    case SC_UNIT: return sc_fail_number(c, key, v, "must be in [0, 1]");
    case SC_ANY: break;
    }
    return sc_fail_number(c, key, v, "out of range");
}

static int check_range(sc_ctx *c, const char *key, double v, sc_range range)
{
    return in_range(v, range) ? 0 : range_error(c, key, v, range);
}

int sc_read_number(sc_ctx *c, const cJSON *obj, const char *key, sc_range range, double *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (v == NULL) return 0;
    if (!cJSON_IsNumber(v)) return sc_fail_value(c, key, v, "expected a number");
    if (check_range(c, key, v->valuedouble, range)) return -1;
    *out = v->valuedouble;
    return 0;
}

static int array_of_n_numbers(sc_ctx *c, const char *key, const cJSON *v, int n, double *xyz, sc_range range)
{
    char what[40];
    snprintf(what, sizeof what, "expected an array of %d numbers", n);
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != n) return sc_fail_value(c, key, v, what);
    for (const cJSON *e = v->child; e; e = e->next)
        if (!cJSON_IsNumber(e)) return sc_fail_value(c, key, v, what);
    int i = 0;
    for (const cJSON *e = v->child; e; e = e->next, ++i) {
        if (!in_range(e->valuedouble, range)) {
            /* Name the element: "gravity[2]: must be a finite number, got inf". */
            size_t mark = key ? sc_push_key(c, key) : c->path_len;
            sc_push_index(c, (size_t)i);
            range_error(c, NULL, e->valuedouble, range);
            sc_pop(c, mark);
            return -1;
        }
        xyz[i] = e->valuedouble;
    }
    return 0;
}

int sc_read_vec3(sc_ctx *c, const cJSON *obj, const char *key, cr_vec3 *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    double xyz[3];
    if (v == NULL) return 0;
    if (array_of_n_numbers(c, key, v, 3, xyz, SC_ANY)) return -1;
    *out = cr_v3(xyz[0], xyz[1], xyz[2]);
    return 0;
}

int sc_read_numbers(sc_ctx *c, const cJSON *obj, const char *key, int n, sc_range range, double *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (v == NULL) return 0;
    return array_of_n_numbers(c, key, v, n, out, range);
}

int sc_read_numbers_at(sc_ctx *c, const cJSON *v, int n, sc_range range, double *out)
{
    return array_of_n_numbers(c, NULL, v, n, out, range);
}

int sc_read_positive_vec3_or_number(sc_ctx *c, const cJSON *obj, const char *key, cr_vec3 *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    double xyz[3];
    if (v == NULL) return 0;
    if (cJSON_IsNumber(v)) {
        if (check_range(c, key, v->valuedouble, SC_POSITIVE)) return -1;
        *out = cr_v3(v->valuedouble, v->valuedouble, v->valuedouble);
        return 0;
    }
    if (!cJSON_IsArray(v)) return sc_fail_value(c, key, v, "expected a number or an array of 3 numbers");
    if (array_of_n_numbers(c, key, v, 3, xyz, SC_POSITIVE)) return -1;
    *out = cr_v3(xyz[0], xyz[1], xyz[2]);
    return 0;
}

int sc_read_integer(sc_ctx *c, const cJSON *obj, const char *key, double min, double max, double *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (v == NULL) return 0;
    if (!cJSON_IsNumber(v)) return sc_fail_value(c, key, v, "expected an integer");
    double d = v->valuedouble;
    if (!isfinite(d) || d != floor(d)) return sc_fail_value(c, key, v, "expected an integer");
    if (d < min || d > max) {
        char what[120];
        snprintf(what, sizeof what, "must be an integer in [%.0f, %.0f]", min, max);
        return sc_fail_value(c, key, v, what);
    }
    *out = d;
    return 0;
}

int sc_read_bool(sc_ctx *c, const cJSON *obj, const char *key, bool *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (v == NULL) return 0;
    if (!cJSON_IsBool(v)) return sc_fail_value(c, key, v, "expected true or false");
    *out = cJSON_IsTrue(v);
    return 0;
}

int sc_read_enum(sc_ctx *c, const cJSON *obj, const char *key, const char *const *names, int *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (v == NULL) return 0;
    if (cJSON_IsString(v))
        for (int i = 0; names[i]; ++i)
            if (strcmp(v->valuestring, names[i]) == 0) { *out = i; return 0; }
    char what[200] = "expected one of";
    size_t len = strlen(what);
    for (int i = 0; names[i] && len < sizeof what; ++i) {
        int n = snprintf(what + len, sizeof what - len, "%s\"%s\"", i == 0 ? " " : ", ", names[i]);
        if (n > 0) len += (size_t)n;
    }
    return sc_fail_value(c, key, v, what);
}
