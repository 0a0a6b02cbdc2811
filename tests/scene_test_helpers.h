/* Shared by the scene-loader tests: a scene that must be refused. */
#ifndef CAROM_SCENE_TEST_HELPERS_H
#define CAROM_SCENE_TEST_HELPERS_H

#include <string.h>

#include "test_helpers.h"
#include "scene.h"

/* Loading json fails, and the message holds every one of the fragments
 * (the JSON path and the offending value). */
static inline void expect_error(const char *json, const char *const *fragments)
{
    cr_scene s;
    char err[512] = "";
    int rc = cr_scene_load_string(json, "scene.json", &s, err, sizeof err);
    if (rc == 0) print_error("loaded, expected an error: %s\n", json);
    assert_int_equal(rc, -1);
    assert_null(s.world);
    assert_true(strncmp(err, "scene.json: ", 12) == 0);
    for (; *fragments; ++fragments) {
        if (strstr(err, *fragments) == NULL) print_error("message '%s' lacks '%s'\n", err, *fragments);
        assert_non_null(strstr(err, *fragments));
    }
}

#define EXPECT_ERROR(json, ...) expect_error(json, (const char *const[]){__VA_ARGS__, NULL})

#endif
