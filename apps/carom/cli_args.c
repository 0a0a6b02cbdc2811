/* carom CLI — option values (see cli_args.h). */
#define _POSIX_C_SOURCE 200809L /* strdup, stat */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_args.h"

int arg_number(const char *option, const char *text, double lo, double hi, double *out, char *err, size_t err_size)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end != '\0' || !isfinite(v) || isspace((unsigned char)text[0])) {
        snprintf(err, err_size, "%s: expected a number, got '%s'", option, text);
        return -1;
    }
    if (!(v >= lo && v <= hi)) {
        if (isinf(hi)) snprintf(err, err_size, "%s: must be >= %g, got %s", option, lo, text);
        else snprintf(err, err_size, "%s: must be in [%g, %g], got %s", option, lo, hi, text);
        return -1;
    }
    *out = v;
    return 0;
}

int arg_integer(const char *option, const char *text, long lo, long hi, long *out, char *err, size_t err_size)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (end == text || *end != '\0' || errno == ERANGE || isspace((unsigned char)text[0])) {
        snprintf(err, err_size, "%s: expected a whole number, got '%s'", option, text);
        return -1;
    }
    if (v < lo || v > hi) {
        snprintf(err, err_size, "%s: must be in [%ld, %ld], got %s", option, lo, hi, text);
        return -1;
    }
    *out = v;
    return 0;
}

int arg_numbers(const char *option, const char *text, int n, double *out, char *err, size_t err_size)
{
    const char *p = text;
    for (int k = 0; k < n; ++k) {
        char *end;
        double v = strtod(p, &end);
        bool sep_ok = k + 1 < n ? *end == ',' : *end == '\0';
        if (end == p || !sep_ok || !isfinite(v)) {
            snprintf(err, err_size, "%s: expected %d numbers separated by commas, got '%s'", option, n, text);
            return -1;
        }
        out[k] = v;
        p = end + 1;
    }
    return 0;
}

int arg_size(const char *option, const char *text, int *width, int *height, char *err, size_t err_size)
{
    char *end;
    long w = strtol(text, &end, 10);
    long h = -1;
    if (end != text && (*end == 'x' || *end == 'X')) {
        const char *q = end + 1;
        h = strtol(q, &end, 10);
        if (end == q || *end != '\0') h = -1;
    }
    if (h < 0 || text[0] == '-' || text[0] == '+') {
        snprintf(err, err_size, "%s: expected WIDTHxHEIGHT such as 1280x720, got '%s'", option, text);
        return -1;
    }
    if (w < 16 || w > 16384 || h < 16 || h > 16384) {
        snprintf(err, err_size, "%s: width and height must be in [16, 16384], got '%s'", option, text);
        return -1;
    }
    *width = (int)w;
    *height = (int)h;
    return 0;
}

bool arg_has_suffix(const char *path, const char *suffix)
{
    size_t n = strlen(path), m = strlen(suffix);
    if (n <= m) return false;
    for (size_t i = 0; i < m; ++i)
        if (tolower((unsigned char)path[n - m + i]) != tolower((unsigned char)suffix[i])) return false;
    return true;
}

const char *arg_value(int argc, char **argv, int *i, const char *long_name, const char *short_name, bool *missing)
{
    const char *s = argv[*i];
    size_t n = strlen(long_name);
    *missing = false;
    if (strncmp(s, long_name, n) == 0 && s[n] == '=') {
        if (s[n + 1] == '\0') *missing = true;
        return s + n + 1;
    }
    if (strcmp(s, long_name) == 0 || (short_name && strcmp(s, short_name) == 0)) {
        if (*i + 1 >= argc || argv[*i + 1][0] == '\0') {
            *missing = true;
            return s;
        }
        return argv[++*i];
    }
    return NULL;
}

int arg_out_dir(const char *option, const char *path, char *err, size_t err_size)
{
    char *dir = strdup(path), *slash = dir ? strrchr(dir, '/') : NULL;
    int rc = 0;
    if (slash) {
        *slash = '\0';
        const char *d = dir[0] ? dir : "/";
        struct stat st;
        if (stat(d, &st) != 0 || !S_ISDIR(st.st_mode)) {
            snprintf(err, err_size, "%s: directory '%s' does not exist", option, d);
            rc = -1;
        }
    }
    free(dir);
    return rc;
}

int arg_run_dir(const char *run_dir, char *err, size_t err_size)
{
    struct stat st;
    if (stat(run_dir, &st) == 0 && S_ISDIR(st.st_mode)) return 0;
    snprintf(err, err_size, "RUN_DIR '%s' is not a directory", run_dir);
    return -1;
}

int arg_common(const char *s, bool *options_done, const char **positional, const char *what, const char *help,
               char *err, size_t err_size)
{
    if (*options_done || s[0] != '-' || s[1] == '\0') {
        if (*positional) snprintf(err, err_size, "more than one %s ('%s' and '%s')", what, *positional, s);
        *positional = s;
        return 1;
    }
    if (strcmp(s, "--") == 0) {
        *options_done = true;
        return 1;
    }
    if (strcmp(s, "-h") == 0 || strcmp(s, "--help") == 0) {
        fputs(help, stdout);
        return 2;
    }
    return 0;
}
