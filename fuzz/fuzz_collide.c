/* carom fuzzing — `carom collide` input: the bytes as the JSON text that
 * `carom collide` reads, through the CLI's own parser and checks.
 *
 * The parser in apps/carom/cmd_collide.c is static (the command is one
 * function, cmd_collide(argc, argv), that reads a file or stdin). Rather than
 * refactor the CLI, this file includes cmd_collide.c whole, with stdout and
 * stderr (and printf) redirected to memory streams, and calls what
 * cmd_collide() calls after reading the input: the static collide_text()
 * (parse with cJSON, then run()). Only the argument loop and read_all() are
 * left out.
 *
 * Contract checked (docs/cli-collide.md, tests/cli_collide.sh):
 * - status 0: nothing on stderr; stdout is one JSON object whose numbers are
 *   all finite (printed with %.17g, an inf or nan would not parse) with the
 *   keys impulse, u, sticking, work_compression, work_decompression, steps;
 * - status 2 (bad input) or 1 (the law failed): nothing on stdout; stderr
 *   is one line "carom collide: fuzz: ...".
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "fuzz_util.h"

static FILE *fz_collide_out, *fz_collide_err;

#undef stdout
#undef stderr
#define stdout fz_collide_out
#define stderr fz_collide_err
#define printf(...) fprintf(fz_collide_out, __VA_ARGS__)
#include "../apps/carom/cmd_collide.c"
#undef printf
#undef stdout
#undef stderr
#define stdout stdout
#define stderr stderr

/* Every number in the tree is finite (cJSON reads 1e999 as inf). */
static bool fz_all_finite(const cJSON *v)
{
    if (cJSON_IsNumber(v) && !isfinite(v->valuedouble)) return false;
    for (const cJSON *e = v->child; e; e = e->next)
        if (!fz_all_finite(e)) return false;
    return true;
}

static int fz_collide_check(int status, const char *out, size_t out_len, const char *err, size_t err_len,
                            char *why, size_t why_size)
{
    if (status == 0) {
        if (err_len) return fz_say(CAROM_FUZZ_BROKEN, why, why_size, "status 0 with stderr '%s'", err);
        cJSON *o = cJSON_Parse(out);
        if (o == NULL) return fz_say(CAROM_FUZZ_BROKEN, why, why_size, "output is not JSON: '%s'", out);
        static const char *const keys[] = {"impulse", "u", "sticking", "work_compression", "work_decompression",
                                           "steps"};
        int code = CAROM_FUZZ_ACCEPTED;
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; ++k)
            if (cJSON_GetObjectItemCaseSensitive(o, keys[k]) == NULL)
                code = fz_say(CAROM_FUZZ_BROKEN, why, why_size, "output lacks \"%s\": '%s'", keys[k], out);
        if (code == CAROM_FUZZ_ACCEPTED && !fz_all_finite(o))
            code = fz_say(CAROM_FUZZ_BROKEN, why, why_size, "output has a non-finite number: '%s'", out);
        if (code == CAROM_FUZZ_ACCEPTED) fz_say(code, why, why_size, "collided");
        cJSON_Delete(o);
        return code;
    }
    if (status != 1 && status != 2) return fz_say(CAROM_FUZZ_BROKEN, why, why_size, "exit status %d", status);
    if (out_len) return fz_say(CAROM_FUZZ_BROKEN, why, why_size, "status %d with stdout '%s'", status, out);
    /* One message naming the input, on one line: a key's control
     * characters are escaped in the path (cr_scene_escape_key). */
    static const char prefix[] = "carom collide: fuzz: ";
    if (err_len < sizeof prefix || strncmp(err, prefix, sizeof prefix - 1) != 0 || err[err_len - 1] != '\n' ||
        strchr(err, '\n') != err + err_len - 1)
        return fz_say(CAROM_FUZZ_BROKEN, why, why_size, "status %d, message does not name the input: '%s'", status,
                      err);
    return fz_say(CAROM_FUZZ_REFUSED, why, why_size, "%.*s", (int)(err_len - 1), err);
}

int carom_fuzz_collide(const uint8_t *data, size_t size, char *why, size_t why_size)
{
    why[0] = '\0';
    char *json = fz_text(data, size);
    char *out = NULL, *err = NULL;
    size_t out_len = 0, err_len = 0;
    fz_collide_out = open_memstream(&out, &out_len);
    fz_collide_err = open_memstream(&err, &err_len);
    if (json == NULL || fz_collide_out == NULL || fz_collide_err == NULL) {
        if (fz_collide_out) fclose(fz_collide_out);
        if (fz_collide_err) fclose(fz_collide_err);
        free(json);
        free(out);
        free(err);
        return fz_say(CAROM_FUZZ_SKIPPED, why, why_size, "out of memory");
    }

    /* cmd_collide() from here on, after read_all(): collide_text. */
    ctx c;
    memset(&c, 0, sizeof c);
    c.name = "fuzz";
    int status = collide_text(&c, json);

    fclose(fz_collide_out);
    fclose(fz_collide_err);
    fz_collide_out = fz_collide_err = NULL;
    int code = fz_collide_check(status, out, out_len, err, err_len, why, why_size);
    free(json);
    free(out);
    free(err);
    return code;
}
