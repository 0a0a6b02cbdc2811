/* The fuzz targets' inputs, replayed with the normal build (no clang needed):
 * every file of fuzz/corpus/<target>/ (the seed corpus) and of
 * fuzz/regressions/<target>/ (crashers found by libFuzzer, kept once fixed)
 * goes through the same entry point as the libFuzzer target, which checks
 * the contract: each input is taken with finite results or refused with a
 * clear message, never a crash, a leak (ASan build) or undefined behaviour
 * (UBSan build). docs/reliability.md lists the crashers and their fixes.
 *
 * The entry points live in fuzz/fuzz_*.c and are included here whole, so that
 * this program needs nothing the other tests do not. A new target is one
 * #include and one line of the table. */
#define _POSIX_C_SOURCE 200809L /* opendir, open_memstream */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fuzz/fuzz_scene.c"
#include "../fuzz/fuzz_collide.c"
#include "../fuzz/fuzz_stronge.c"
#include "../fuzz/fuzz_checkpoint.c"
#include "../fuzz/fuzz_shape.c"

#include "test_helpers.h"

typedef struct fz_target {
    const char *name;
    carom_fuzz_entry *entry;
    const char *dirs[4]; /* under fuzz/, NULL-terminated */
} fz_target;

static const fz_target fz_targets[] = {
    {"scene", carom_fuzz_scene, {"corpus/scene", "regressions/scene", NULL}},
    {"scene_step", carom_fuzz_scene_step, {"corpus/scene_step", "regressions/scene_step", "regressions/scene", NULL}},
    {"collide", carom_fuzz_collide, {"corpus/collide", "regressions/collide", NULL}},
    {"stronge", carom_fuzz_stronge, {"corpus/stronge", "regressions/stronge", NULL}},
    {"checkpoint", carom_fuzz_checkpoint, {"corpus/checkpoint", "regressions/checkpoint", NULL}},
    {"shape", carom_fuzz_shape, {"corpus/shape", "regressions/shape", NULL}},
};

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The regular files of dir, sorted (a missing directory has none). */
static char **list_files(const char *dir, size_t *count)
{
    *count = 0;
    DIR *d = opendir(dir);
    if (!d) return NULL;
    size_t cap = 16;
    char **names = malloc(cap * sizeof *names);
    assert_non_null(names);
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.') continue;
        if (*count == cap) {
            cap *= 2;
            names = realloc(names, cap * sizeof *names);
            assert_non_null(names);
        }
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        names[*count] = malloc(len);
        assert_non_null(names[*count]);
        snprintf(names[*count], len, "%s/%s", dir, e->d_name);
        ++*count;
    }
    closedir(d);
    qsort(names, *count, sizeof *names, by_name);
    return names;
}

static uint8_t *read_bytes(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("cannot open %s", path);
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    assert_non_null(buf);
    for (size_t got; (got = fread(buf + n, 1, cap - n, f)) > 0;) {
        n += got;
        if (n == cap) {
            cap *= 2;
            buf = realloc(buf, cap);
            assert_non_null(buf);
        }
    }
    fclose(f);
    *size = n;
    return buf;
}

static void replay(const fz_target *t)
{
    int counts[3] = {0, 0, 0}; /* accepted, refused, skipped */
    size_t corpus_files = 0;
    for (int k = 0; t->dirs[k]; ++k) {
        char dir[512];
        snprintf(dir, sizeof dir, "%s/fuzz/%s", CAROM_SOURCE_DIR, t->dirs[k]);
        size_t n;
        char **files = list_files(dir, &n);
        if (k == 0) corpus_files = n;
        for (size_t i = 0; i < n; ++i) {
            size_t size;
            uint8_t *data = read_bytes(files[i], &size);
            char why[1024];
            int code = t->entry(data, size, why, sizeof why);
            free(data);
            if (code == CAROM_FUZZ_BROKEN) fail_msg("%s: %s: %s", t->name, files[i], why);
            assert_true(code >= CAROM_FUZZ_ACCEPTED && code <= CAROM_FUZZ_SKIPPED);
            /* A refusal is a clear message, never an empty one. */
            if (code == CAROM_FUZZ_REFUSED) assert_true(why[0] != '\0');
            counts[code]++;
            free(files[i]);
        }
        free(files);
    }
    /* The seed corpus is committed: an empty one means a wrong path. */
    assert_true(corpus_files > 0);
    print_message("%s: %d accepted, %d refused with a message, %d skipped (too big for one iteration)\n", t->name,
                  counts[0], counts[1], counts[2]);
}

static void test_scene(void **state) { (void)state; replay(&fz_targets[0]); }
static void test_scene_step(void **state) { (void)state; replay(&fz_targets[1]); }
static void test_collide(void **state) { (void)state; replay(&fz_targets[2]); }
static void test_stronge(void **state) { (void)state; replay(&fz_targets[3]); }
static void test_checkpoint(void **state) { (void)state; replay(&fz_targets[4]); }
static void test_shape(void **state) { (void)state; replay(&fz_targets[5]); }

/* The fixes behind the kept crashers, stated directly. */

/* A key holding a newline: the scene loader's message stays one line, the
 * key escaped in its path (src/scene/scene_json.c). */
static void test_scene_key_with_newline(void **state)
{
    (void)state;
    cr_scene s;
    char err[256];
    assert_int_equal(cr_scene_load_string("{\"bodies\": [{\"posi\\ntion\": [0, 0, 1]}]}", "k.json", &s, err, sizeof err),
                     -1);
    assert_null(strchr(err, '\n'));
    assert_non_null(strstr(err, "k.json: bodies[0].posi\\u000ation: unknown key"));
}

/* The 3D law leaves *out zeroed on every error, also when it fails after
 * validation (here |u0| ~ 1e197 overflows the work): src/law_stronge.c. */
static void test_stronge_error_leaves_out_zeroed(void **state)
{
    (void)state;
    cr_mat3 K = {{{20, 0, 1.0000000000034106}, {0, 4, 6}, {1, 6, 10}}};
    cr_vec3 u0 = cr_v3(-2.3272097102367293e+197, -2.327541784345996e+197, -2.327541784345996e+197);
    cr_stronge_result r;
    char msg[256];
    cr_status st = cr_law_stronge_contact(K, u0, 0.5, 0.7, &r, msg, sizeof msg);
    assert_int_not_equal(st, CR_OK);
    assert_true(msg[0] != '\0');
    assert_true(r.u.x == 0.0 && r.u.y == 0.0 && r.u.z == 0.0);
    assert_true(r.impulse.x == 0.0 && r.impulse.y == 0.0 && r.impulse.z == 0.0);
}

/* The 2D law refuses a result whose works overflowed (|u0| ~ 1e197 and up)
 * instead of returning CR_OK with an infinite work: src/law_stronge_2d.c. */
static void test_stronge_2d_work_overflow(void **state)
{
    (void)state;
    cr_contact_side_2d a = cr_contact_side_2d_immovable(), b = cr_contact_side_2d_immovable();
    a.inv_mass = 1.0;
    a.inv_inertia = 2.5;
    a.r[1] = -1.0;
    a.v[0] = -2.2425308123736614e+197;
    b.v[1] = -5.486124068793689e+303;
    const double n[2] = {1.0, 0.0};
    cr_stronge_result r;
    char msg[256];
    cr_status st = cr_law_stronge_2d_body(&a, &b, n, 0.5, 0.9, &r, msg, sizeof msg);
    assert_int_equal(st, CR_ERR_NON_FINITE);
    assert_non_null(strstr(msg, "not finite"));
    assert_true(r.work_compression == 0.0 && r.work_decompression == 0.0);
    assert_true(r.impulse.x == 0.0 && r.impulse.y == 0.0);
}

/* The 2D law refuses an indefinite K of subnormal entries (its pivot test
 * squared K12, which underflowed to 0, and returned a negative normal
 * impulse of -1.3e96): src/law_stronge_2d.c. */
static void test_stronge_2d_subnormal_K(void **state)
{
    (void)state;
    const double K[2][2] = {{3.47667790392225e-310, 3.4698875173864e-310}, {3.4698875173864e-310, 5.287374496e-315}};
    const double u0[2] = {3.47837550055027e-310, -2.291631732217177e-214};
    cr_stronge_result r;
    char msg[256];
    assert_int_equal(cr_law_stronge_2d(K, u0, 0.5, 0.5, &r, msg, sizeof msg), CR_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(msg, "K is not positive definite"));
    assert_true(r.impulse.x == 0.0 && r.impulse.y == 0.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scene),
        cmocka_unit_test(test_scene_step),
        cmocka_unit_test(test_collide),
        cmocka_unit_test(test_stronge),
        cmocka_unit_test(test_checkpoint),
        cmocka_unit_test(test_shape),
        cmocka_unit_test(test_scene_key_with_newline),
        cmocka_unit_test(test_stronge_error_leaves_out_zeroed),
        cmocka_unit_test(test_stronge_2d_work_overflow),
        cmocka_unit_test(test_stronge_2d_subnormal_K),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
