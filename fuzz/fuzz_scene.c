/* carom fuzzing — scene files: the bytes as JSON through cr_scene_load_string
 * (src/scene/scene.h), and, for the scene_step target, a few steps of the
 * world it loads.
 *
 * Contract checked (docs/scene-format.md, DESIGN "Errors"):
 * - a refusal returns -1 with a one-line message that starts with the
 *   scene's name, and leaves the scene zeroed (cr_scene_free harmless);
 * - a scene that loads has a world holding body_count bodies, every one with
 *   a finite state, and a sampling stride >= 1;
 * - a step either succeeds with every body finite, or fails with a message;
 *   CR_ERR_NON_FINITE names the body ("body N").
 *
 * Limits, so that one iteration stays short: inputs whose generators ask for
 * more than FZ_SCENE_MAX_BODIES bodies in all are skipped (the loader's own
 * limit, 10^7, is a documented error message, tested in test_scene.c); only
 * scenes of at most FZ_STEP_MAX_BODIES bodies are stepped, FZ_STEPS steps.
 */
#include <cjson/cJSON.h>

#include "fuzz_util.h"
#include "scene.h"

#define FZ_SCENE_MAX_BODIES 4096.0
#define FZ_STEP_MAX_BODIES 256u
#define FZ_STEPS 3u

/* Bodies the generators of a scene ask for: every "count" anywhere in the
 * tree, a number or the product of an array's numbers. */
static double fz_scene_count(const cJSON *v)
{
    double total = 0.0;
    for (const cJSON *e = v ? v->child : NULL; e; e = e->next) {
        if (e->string && strcmp(e->string, "count") == 0) {
            if (cJSON_IsNumber(e)) {
                total += fabs(e->valuedouble);
            } else if (cJSON_IsArray(e)) {
                double p = 1.0;
                for (const cJSON *k = e->child; k; k = k->next)
                    if (cJSON_IsNumber(k)) p *= fabs(k->valuedouble);
                total += p;
            }
        }
        total += fz_scene_count(e);
    }
    return total;
}

static bool fz_scene_too_big(const char *json)
{
    cJSON *root = cJSON_Parse(json);
    if (root == NULL) return false; /* the loader refuses it */
    double n = fz_scene_count(root);
    cJSON_Delete(root);
    return !(n <= FZ_SCENE_MAX_BODIES); /* NaN too */
}

static int fz_scene_check_world(const cr_scene *s, const char *when, char *why, size_t why_size)
{
    uint32_t cap = cr_world_body_capacity(s->world);
    for (uint32_t i = 0; i < cap; ++i) {
        cr_body_id id = cr_world_body_at(s->world, i);
        if (id.generation == 0) continue;
        cr_body_state st;
        if (cr_body_get_state(s->world, id, &st) != CR_OK)
            return fz_say(CAROM_FUZZ_BROKEN, why, why_size, "%s: body %u: live id refused", when, i);
        if (!fz_finite3(st.position.x, st.position.y, st.position.z) ||
            !fz_finite3(st.velocity.x, st.velocity.y, st.velocity.z) ||
            !fz_finite3(st.angular_velocity.x, st.angular_velocity.y, st.angular_velocity.z))
            return fz_say(CAROM_FUZZ_BROKEN, why, why_size, "%s: body %u has a non-finite state", when, i);
    }
    return CAROM_FUZZ_ACCEPTED;
}

static int fz_scene(const uint8_t *data, size_t size, char *why, size_t why_size, bool step)
{
    why[0] = '\0';
    char *json = fz_text(data, size);
    if (json == NULL) return fz_say(CAROM_FUZZ_SKIPPED, why, why_size, "out of memory for the input");
    if (fz_scene_too_big(json)) {
        free(json);
        return fz_say(CAROM_FUZZ_SKIPPED, why, why_size, "generators ask for more than %.0f bodies",
                      FZ_SCENE_MAX_BODIES);
    }
    cr_scene s;
    char err[1024];
    memset(err, 'x', sizeof err); /* so that a missing NUL would show */
    int rc = cr_scene_load_string(json, "fuzz", &s, err, sizeof err);
    free(json);
    if (rc != 0) {
        int code = CAROM_FUZZ_REFUSED;
        if (rc != -1) code = fz_say(CAROM_FUZZ_BROKEN, why, why_size, "load returned %d, not 0 or -1", rc);
        else if (memchr(err, '\0', sizeof err) == NULL)
            code = fz_say(CAROM_FUZZ_BROKEN, why, why_size, "error message not NUL-terminated");
        else if (strncmp(err, "fuzz: ", 6) != 0 || strchr(err, '\n') != NULL)
            code = fz_say(CAROM_FUZZ_BROKEN, why, why_size, "error message is not one line naming the scene: '%s'", err);
        else if (s.world != NULL || s.body_count != 0 || s.statics != NULL || s.owned != NULL)
            code = fz_say(CAROM_FUZZ_BROKEN, why, why_size, "refused scene not zeroed (%s)", err);
        else
            fz_say(CAROM_FUZZ_REFUSED, why, why_size, "%s", err);
        cr_scene_free(&s); /* documented as harmless */
        return code;
    }
    int code = CAROM_FUZZ_ACCEPTED;
    if (s.world == NULL) code = fz_say(CAROM_FUZZ_BROKEN, why, why_size, "loaded scene without a world");
    else if (cr_world_body_count(s.world) != s.body_count)
        code = fz_say(CAROM_FUZZ_BROKEN, why, why_size, "body_count %u but the world holds %u", s.body_count,
                      cr_world_body_count(s.world));
    else if (s.output_stride < 1)
        code = fz_say(CAROM_FUZZ_BROKEN, why, why_size, "output_stride 0");
    else
        code = fz_scene_check_world(&s, "after loading", why, why_size);
    if (code == CAROM_FUZZ_ACCEPTED) fz_say(code, why, why_size, "loaded %u bodies", s.body_count);

    if (code == CAROM_FUZZ_ACCEPTED && step && s.body_count <= FZ_STEP_MAX_BODIES) {
        uint64_t n = s.steps < FZ_STEPS ? s.steps : FZ_STEPS;
        for (uint64_t k = 0; k < n && code == CAROM_FUZZ_ACCEPTED; ++k) {
            cr_status st = cr_world_step(s.world);
            const char *msg = cr_world_last_error(s.world);
            if (st == CR_OK) {
                code = fz_scene_check_world(&s, "after a step", why, why_size);
            } else if (msg == NULL || msg[0] == '\0') {
                code = fz_say(CAROM_FUZZ_BROKEN, why, why_size, "step failed (status %d) without a message", (int)st);
            } else if (st == CR_ERR_NON_FINITE && strstr(msg, "body") == NULL) {
                code = fz_say(CAROM_FUZZ_BROKEN, why, why_size, "non-finite error does not name the body: '%s'", msg);
            } else {
                code = fz_say(CAROM_FUZZ_REFUSED, why, why_size, "step %llu: %s: %s", (unsigned long long)k,
                              cr_status_string(st), msg);
            }
        }
    }
    cr_scene_free(&s);
    return code;
}

int carom_fuzz_scene(const uint8_t *data, size_t size, char *why, size_t why_size)
{
    return fz_scene(data, size, why, why_size, false);
}

int carom_fuzz_scene_step(const uint8_t *data, size_t size, char *why, size_t why_size)
{
    return fz_scene(data, size, why, why_size, true);
}
