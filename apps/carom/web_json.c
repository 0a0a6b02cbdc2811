/* carom CLI — the replay page's data encoding (see web_json.h). */
#define _POSIX_C_SOURCE 200809L

#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include "web_json.h"

void web_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; ++p) {
        if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
        else if (*p < 0x20 || *p == '<' || *p == '>' || *p == '&') fprintf(f, "\\u%04x", *p);
        else fputc(*p, f);
    }
    fputc('"', f);
}

void web_json_doubles(FILE *f, const double *v, size_t n, size_t stride)
{
    fputc('[', f);
    for (size_t i = 0; i < n; ++i) fprintf(f, i ? ",%.17g" : "%.17g", v[i * stride]);
    fputc(']', f);
}

/* A streaming base64 encoder: three bytes in, four digits out. */
typedef struct base64 {
    FILE *f;
    unsigned char buf[3];
    int n;
} base64;

static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void b64_byte(base64 *e, unsigned char c)
{
    e->buf[e->n++] = c;
    if (e->n < 3) return;
    unsigned v = (unsigned)e->buf[0] << 16 | (unsigned)e->buf[1] << 8 | e->buf[2];
    char out[4] = {digits[v >> 18], digits[(v >> 12) & 63], digits[(v >> 6) & 63], digits[v & 63]};
    fwrite(out, 1, 4, e->f);
    e->n = 0;
}

static void b64_end(base64 *e)
{
    if (e->n == 0) return;
    unsigned v = (unsigned)e->buf[0] << 16 | (e->n > 1 ? (unsigned)e->buf[1] << 8 : 0u);
    char out[4] = {digits[v >> 18], digits[(v >> 12) & 63], e->n > 1 ? digits[(v >> 6) & 63] : '=', '='};
    fwrite(out, 1, 4, e->f);
    e->n = 0;
}

/* Float32Array and Uint32Array read the platform's byte order, which in
 * every browser is little-endian: write that whatever this machine is. */
static void b64_word(base64 *e, uint32_t w)
{
    for (int k = 0; k < 4; ++k) b64_byte(e, (unsigned char)(w >> (8 * k)));
}

void web_json_f32(FILE *f, const float *v, size_t n)
{
    base64 e = {.f = f};
    fputc('"', f);
    for (size_t i = 0; i < n; ++i) {
        uint32_t w;
        memcpy(&w, &v[i], sizeof w);
        b64_word(&e, w);
    }
    b64_end(&e);
    fputc('"', f);
}

void web_json_u32(FILE *f, const uint32_t *v, size_t n)
{
    base64 e = {.f = f};
    fputc('"', f);
    for (size_t i = 0; i < n; ++i) b64_word(&e, v[i]);
    b64_end(&e);
    fputc('"', f);
}

void web_raw_escaped(FILE *f, const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        if (s[i] == '<' && i + 1 < n) {
            const char *rest = (const char *)s + i + 2;
            size_t left = n - i - 2;
            if (s[i + 1] == '/' && ((left >= 6 && strncasecmp(rest, "script", 6) == 0) ||
                                    (left >= 5 && strncasecmp(rest, "style", 5) == 0))) {
                fputs("<\\/", f);
                ++i;
                continue;
            }
        }
        fputc(s[i], f);
    }
}
