/* Golden hashes: every shipped scene, stepped a fixed number of times, must
 * give exactly the final state recorded in tests/golden/hashes.txt. Any
 * change to the physics, intended or not, shows here; an intended one is
 * recorded again with CAROM_UPDATE_GOLDEN=1 (and said in the commit).
 * Each scene is also run twice in the process: the same bits both times. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_helpers.h"
#include "scene.h"

typedef struct golden_case { const char *scene; int steps; } golden_case;

static const golden_case cases[] = {
    {"default.json", 150}, {"pit.json", 200},   {"gas.json", 200},   {"bounce.json", 1500},
    {"incline.json", 500}, {"boiling.json", 120}, {"bowl.json", 300}, {"slope.json", 300},
    {"pyramid.json", 120}, {"chain.json", 300},
};
#define CASES (sizeof cases / sizeof cases[0])

static uint64_t run_hash(const golden_case *c)
{
    char path[1024], err[1024];
    snprintf(path, sizeof path, "%s/scenes/%s", CAROM_SOURCE_DIR, c->scene);
    cr_scene s;
    if (cr_scene_load_file(path, &s, err, sizeof err) != 0) fail_msg("%s", err);
    for (int i = 0; i < c->steps; ++i)
        if (cr_world_step(s.world) != CR_OK) fail_msg("%s: %s", c->scene, cr_world_last_error(s.world));
    uint64_t h = cr_world_state_hash(s.world);
    cr_scene_free(&s);
    return h;
}

static void test_golden_hashes(void **state)
{
    (void)state;
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/golden/hashes.txt", CAROM_SOURCE_DIR);
    uint64_t got[CASES];
    for (size_t k = 0; k < CASES; ++k) {
        got[k] = run_hash(&cases[k]);
        assert_true(run_hash(&cases[k]) == got[k]); /* twice, the same bits */
    }
    if (getenv("CAROM_UPDATE_GOLDEN")) {
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fprintf(f, "# scene steps fnv1a64-of-final-body-states (tests/test_golden.c)\n");
        for (size_t k = 0; k < CASES; ++k)
            fprintf(f, "%s %d %016llx\n", cases[k].scene, cases[k].steps, (unsigned long long)got[k]);
        fclose(f);
        return;
    }
    FILE *f = fopen(path, "r");
    if (!f) fail_msg("%s missing: record it with CAROM_UPDATE_GOLDEN=1", path);
    char line[256];
    size_t checked = 0;
    while (fgets(line, sizeof line, f)) {
        char name[128];
        int steps;
        unsigned long long want;
        if (line[0] == '#' || sscanf(line, "%127s %d %llx", name, &steps, &want) != 3) continue;
        for (size_t k = 0; k < CASES; ++k)
            if (strcmp(name, cases[k].scene) == 0 && steps == cases[k].steps) {
                if (got[k] != want) fail_msg("%s after %d steps: %016llx, golden %016llx", name, steps,
                                             (unsigned long long)got[k], want);
                ++checked;
            }
    }
    fclose(f);
    assert_int_equal(checked, CASES);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_golden_hashes)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
