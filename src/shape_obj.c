/* Wavefront OBJ meshes: the v and f lines of a file, polygons fanned into
 * triangles, every other directive ignored. Lines of any length are read
 * into a growing buffer. Errors name the file, the line and the value. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shape_internal.h"

typedef struct obj {
    const char *path;
    cr_vec3 *v;
    uint32_t nv, vcap;
    uint32_t *idx; /* 3 per triangle */
    size_t ni, icap;
    char *line;
    size_t len, cap;
} obj;

/* Reads one line (without its newline) into o->line; false at end of file. */
static int read_line(FILE *f, obj *o)
{
    int c;
    o->len = 0;
    while ((c = fgetc(f)) != EOF && c != '\n') {
        if (o->len + 1 >= o->cap) {
            size_t cap = o->cap ? 2 * o->cap : 256;
            char *l = realloc(o->line, cap);
            if (!l) return -1;
            o->line = l;
            o->cap = cap;
        }
        o->line[o->len++] = (char)c;
    }
    if (c == EOF && o->len == 0) return 0;
    if (!o->line) { /* an empty line before any text */
        o->line = malloc(1);
        if (!o->line) return -1;
        o->cap = 1;
    }
    if (o->len && o->line[o->len - 1] == '\r') o->len--; /* files written on Windows */
    o->line[o->len] = '\0';
    return 1;
}

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r'; }
static char *skip_space(char *s)
{
    while (is_space(*s)) ++s;
    return s;
}
/* The token at s (up to white space), for messages. */
static int token_len(const char *s)
{
    int n = 0;
    while (s[n] && !is_space(s[n]) && n < 40) ++n;
    return n;
}

static bool push_index(obj *o, uint32_t i)
{
    if (o->ni == o->icap) {
        size_t cap = o->icap ? 2 * o->icap : 96;
        uint32_t *p = realloc(o->idx, sizeof *p * cap);
        if (!p) return false;
        o->idx = p;
        o->icap = cap;
    }
    o->idx[o->ni++] = i;
    return true;
}

#define LINE_FAIL(...)                                                                                  \
    do {                                                                                                \
        if (msg && size) {                                                                              \
            int n_ = snprintf(msg, size, "%s:%lu: ", o->path, lineno);                                 \
            if (n_ >= 0 && (size_t)n_ < size) snprintf(msg + n_, size - (size_t)n_, __VA_ARGS__);       \
        }                                                                                               \
        return CR_ERR_INVALID_ARGUMENT;                                                                 \
    } while (0)

static cr_status vertex_line(obj *o, char *s, unsigned long lineno, char *msg, size_t size)
{
    double x[3];
    for (int k = 0; k < 3; ++k) {
        s = skip_space(s);
        char *end;
        errno = 0;
        x[k] = strtod(s, &end);
        if (end == s || (*end && !is_space(*end)))
            LINE_FAIL("bad number '%.*s' for coordinate %d of a vertex", token_len(s), s, k + 1);
        s = end;
    }
    /* An optional fourth (w) component and anything after it are ignored. */
    if (o->nv == o->vcap) {
        uint32_t cap = o->vcap ? 2 * o->vcap : 64;
        cr_vec3 *v = realloc(o->v, sizeof *v * cap);
        if (!v) return CR_ERR_OUT_OF_MEMORY;
        o->v = v;
        o->vcap = cap;
    }
    o->v[o->nv++] = cr_v3(x[0], x[1], x[2]);
    return CR_OK;
}

/* f a b c ...: each corner is v, v/vt, v//vn or v/vt/vn; only v is used. A
 * negative v counts back from the last vertex defined so far. The polygon
 * is fanned from its first corner, which keeps a convex (or star-shaped
 * about that corner) polygon's orientation. */
static cr_status face_line(obj *o, char *s, unsigned long lineno, char *msg, size_t size)
{
    uint32_t first = 0, prev = 0, corners = 0;
    for (s = skip_space(s); *s; s = skip_space(s)) {
        char *end;
        errno = 0;
        long long i = strtoll(s, &end, 10);
        if (end == s || (*end && *end != '/' && !is_space(*end)) || errno == ERANGE)
            LINE_FAIL("bad vertex index '%.*s' in a face", token_len(s), s);
        long long resolved = i > 0 ? i - 1 : (long long)o->nv + i;
        if (i == 0 || resolved < 0 || resolved >= (long long)o->nv)
            LINE_FAIL("face vertex index %lld out of range (%u vertices defined so far)", i, o->nv);
        while (*end && !is_space(*end)) ++end; /* the /vt/vn part */
        s = end;
        uint32_t v = (uint32_t)resolved;
        if (corners == 0)
            first = v;
        else if (corners >= 2)
            if (!push_index(o, first) || !push_index(o, prev) || !push_index(o, v)) return CR_ERR_OUT_OF_MEMORY;
        prev = v;
        ++corners;
    }
    if (corners < 3) LINE_FAIL("a face needs at least 3 vertices, got %u", corners);
    return CR_OK;
}

cr_status cr_shape_load_obj(const char *path, cr_shape **out, char *msg, size_t size)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (msg && size) snprintf(msg, size, "%s: cannot open: %s", path, strerror(errno));
        return CR_ERR_INVALID_ARGUMENT;
    }
    obj o = {0};
    o.path = path;
    cr_status st = CR_OK;
    unsigned long lineno = 0;
    int r;
    while (st == CR_OK && (r = read_line(f, &o)) != 0) {
        ++lineno;
        if (r < 0) {
            st = CR_ERR_OUT_OF_MEMORY;
            break;
        }
        char *s = skip_space(o.line);
        if (s[0] == 'v' && is_space(s[1]))
            st = vertex_line(&o, s + 1, lineno, msg, size);
        else if (s[0] == 'f' && (is_space(s[1]) || !s[1]))
            st = face_line(&o, s + 1, lineno, msg, size);
        /* comments, blank lines, vn, vt, o, g, s, usemtl, mtllib, ...: ignored */
    }
    if (st == CR_OK && ferror(f)) {
        if (msg && size) snprintf(msg, size, "%s: read error", path);
        st = CR_ERR_INVALID_ARGUMENT;
    }
    fclose(f);
    if (st == CR_OK && o.ni / 3 > UINT32_MAX) {
        if (msg && size) snprintf(msg, size, "%s: too many triangles", path);
        st = CR_ERR_INVALID_ARGUMENT;
    }
    if (st == CR_OK) {
        char inner[256] = "";
        st = cr_shape_create_mesh(o.v, o.nv, o.idx, (uint32_t)(o.ni / 3), out, inner, sizeof inner);
        if (st != CR_OK && msg && size) snprintf(msg, size, "%s: %s", path, inner);
    } else if (st == CR_ERR_OUT_OF_MEMORY && msg && size) {
        snprintf(msg, size, "out of memory");
    }
    free(o.v);
    free(o.idx);
    free(o.line);
    return st;
}
