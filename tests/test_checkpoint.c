/* Checkpoints: a world saved and restored continues bit for bit as the
 * original does (impulse method with warm-started contacts, and balls on a
 * surface); corrupt, truncated and wrong-version checkpoints are refused
 * whole, with a message. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint_bytes.h"
#include "test_helpers.h"

/* The same run: the same bodies' state to the bit, at the same time and
 * step. */
static bool same_run(const cr_world *a, const cr_world *b)
{
    return cr_world_state_hash(a) == cr_world_state_hash(b) && cr_world_time(a) == cr_world_time(b) &&
           cr_world_step_count(a) == cr_world_step_count(b);
}

/* projection_passes and projection_shock as given (version 2 saves them) */
static cr_world *make_pit_projected(int passes, bool shock)
{
    cr_world_def def = cr_default_world_def();
    def.dt = 1.0 / 240.0;
    def.projection_passes = passes;
    def.projection_shock = shock;
    cr_world *w = make_world_def(&def);
    add_plane(w, cr_v3_zero(), cr_v3(0, 0, 1));
    add_plane(w, cr_v3(-0.3, 0, 0), cr_v3(1, 0, 0));
    add_plane(w, cr_v3(0.3, 0, 0), cr_v3(-1, 0, 0));
    add_plane(w, cr_v3(0, -0.3, 0), cr_v3(0, 1, 0));
    add_plane(w, cr_v3(0, 0.3, 0), cr_v3(0, -1, 0));
    uint64_t seed = 4;
    for (int i = 0; i < 150; ++i)
        add_sphere(w, cr_v3(-0.24 + 0.1 * (i % 5) + test_rand(&seed, -0.003, 0.003), -0.24 + 0.1 * ((i / 5) % 5),
                            0.06 + 0.11 * (i / 25)),
                   cr_v3_zero(), 0.045, 0.5, CR_INERTIA_SOLID, 0.5, 0.3);
    cr_world_remove_body(w, cr_world_body_at(w, 17)); /* a free slot, to be kept free */
    return w;
}

static cr_world *make_pit(void) { return make_pit_projected(1, false); }

static const cr_hill hills[2] = {{0.2, 0.3, 0.0, 0.3}, {-0.1, -0.4, 0.2, 0.4}};

static cr_world *make_surface_world(void)
{
    cr_world_def def = cr_default_world_def();
    def.dt = 1.0 / 120.0;
    def.method = CR_METHOD_EVENT;
    def.law = CR_LAW_ROLLING;
    cr_world *w = make_world_def(&def);
    cr_surface_def s = cr_default_surface_def();
    s.type = CR_SURFACE_HILLS;
    s.hills = hills;
    s.hill_count = 2;
    s.rolling_friction = 0.002;
    assert_int_equal(cr_world_add_surface(w, &s, NULL), CR_OK);
    add_plane(w, cr_v3(-1, 0, 0), cr_v3(1, 0, 0));
    add_plane(w, cr_v3(1, 0, 0), cr_v3(-1, 0, 0));
    add_plane(w, cr_v3(0, -1, 0), cr_v3(0, 1, 0));
    add_plane(w, cr_v3(0, 1, 0), cr_v3(0, -1, 0));
    uint64_t seed = 8;
    const cr_surface *sf = cr_world_surface(w, 0);
    for (int i = 0; i < 60; ++i) {
        cr_surface_eval e;
        cr_vec3 n;
        cr_surface_evaluate(sf, -0.8 + 0.2 * (i % 8), -0.8 + 0.2 * (i / 8), &e, &n);
        cr_body_def d = cr_default_body_def();
        d.radius = 0.04;
        d.mass = 0.2;
        d.friction = 0.2;
        d.rolling_friction = 0.001;
        d.position = cr_v3_madd(e.s, n, 0.04);
        d.velocity = cr_v3_reject(test_rand_vec(&seed, -1, 1), n);
        assert_int_equal(cr_world_add_body(w, &d, NULL), CR_OK);
    }
    return w;
}

static void check_resume(cr_world *w, int before, int after)
{
    step_n(w, before);
    unsigned char *data;
    size_t size;
    char msg[256];
    const char app[] = "app bytes";
    assert_int_equal(cr_world_save_buffer(w, app, sizeof app, &data, &size, msg, sizeof msg), CR_OK);
    step_n(w, after);

    cr_world *r;
    void *back;
    size_t back_size;
    assert_int_equal(cr_world_load_buffer(data, size, NULL, &r, &back, &back_size, msg, sizeof msg), CR_OK);
    assert_int_equal(back_size, sizeof app);
    assert_memory_equal(back, app, sizeof app);
    assert_int_equal(cr_world_body_count(r), cr_world_body_count(w));
    step_n(r, after);
    assert_true(same_run(r, w)); /* bit for bit */
    free(back);
    free(data);
    cr_world_destroy(r);
    cr_world_destroy(w);
}

static void test_resume_pit(void **state)
{
    (void)state;
    check_resume(make_pit(), 120, 120);
}

/* Version 2 keeps the projection settings: a pit projected 16 times from
 * the ground up resumes bit for bit (it would not with the defaults). */
static void test_resume_projected_pit(void **state)
{
    (void)state;
    check_resume(make_pit_projected(16, true), 120, 120);
}

/* Older versions still load. A version 8 buffer of a world that is not
 * of method dem nor on the rigid pipeline (no joints: its bytes are version
 * 4's but for the DEM model and rolling settings after the rigid settings) made into version 3
 * (without the rigid settings and the DEM model after the DEM settings and the rigid state before the
 * application bytes), version 2 (without the DEM settings and the DEM
 * carry's mode either) and version 1 (without the projection settings
 * either) resumes bit for bit; one of a world with 16 passes resumes with
 * 1 from version 1, which has no place for them. */
enum {
    SETTINGS_V2_AT = 24 + 11 * 8, SETTINGS_V2_BYTES = 2 * 8, /* projection_passes, projection_shock */
    SETTINGS_V3_AT = SETTINGS_V2_AT + SETTINGS_V2_BYTES, SETTINGS_V3_BYTES = 15 * 8, /* hooke, periodic, turn */
    SETTINGS_V4_AT = SETTINGS_V3_AT + SETTINGS_V3_BYTES, SETTINGS_V4_BYTES = 11 * 8, /* the rigid pipeline's */
    SETTINGS_V7_BYTES = 8,    /* hooke.model, right after version 4's */
    SETTINGS_V8_BYTES = 3 * 8 /* hooke.k_roll, gamma_roll, mu_roll, right after it */
};

/* The rigid state of a world that never ran the rigid pipeline: the two
 * fallback counts, no shapes (1), each live body's sleeping state, no
 * shape and its inertia tensors (4 + 18), no joints (1), no contacts (2),
 * no pairs apart (1), no pair list (3). */
static size_t rigid_state_bytes(const cr_world *w) { return 8 * (10 + 22 * (size_t)cr_world_body_count(w)); }

static unsigned char *as_version(const cr_world *w, const unsigned char *v4, size_t size, int version,
                                 size_t *size_out)
{
    /* the parts to leave out, in order: [at, at + bytes) (no application bytes: the rigid state is
     * before the application byte count, the DEM mode 8 bytes before it) */
    const size_t rigid_at = size - 8 - 8 - rigid_state_bytes(w);
    const size_t cut[5][2] = {{SETTINGS_V2_AT, version == 1 ? SETTINGS_V2_BYTES : 0},
                              {SETTINGS_V3_AT, version <= 2 ? SETTINGS_V3_BYTES : 0},
                              {SETTINGS_V4_AT, SETTINGS_V4_BYTES + SETTINGS_V7_BYTES + SETTINGS_V8_BYTES},
                              {rigid_at - 8, version <= 2 ? 8 : 0},
                              {rigid_at, rigid_state_bytes(w)}};
    unsigned char *out = malloc(size);
    assert_non_null(out);
    size_t n = 0, from = 0;
    for (int k = 0; k < 5; ++k) {
        memcpy(out + n, v4 + from, cut[k][0] - from);
        n += cut[k][0] - from;
        from = cut[k][0] + cut[k][1];
    }
    memcpy(out + n, v4 + from, size - from);
    n += size - from;
    ckpt_put_u64(out + 8, (uint64_t)version);
    ckpt_put_u64(out + 16, n - 24 - 8);
    ckpt_fix_checksum(out, n);
    *size_out = n;
    return out;
}

static void test_old_versions_load(void **state)
{
    (void)state;
    for (int version = 1; version <= 3; ++version)
        for (int passes = 1; passes <= 16; passes += 15) {
            cr_world *w = make_pit_projected(passes, false);
            step_n(w, 60);
            unsigned char *data, *old;
            size_t size, old_size;
            char msg[256];
            assert_int_equal(cr_world_save_buffer(w, NULL, 0, &data, &size, msg, sizeof msg), CR_OK);
            old = as_version(w, data, size, version, &old_size);
            cr_world *r = NULL;
            if (cr_world_load_buffer(old, old_size, NULL, &r, NULL, NULL, msg, sizeof msg) != CR_OK)
                fail_msg("version %d: %s", version, msg);
            assert_int_equal(cr_world_get_def(r)->projection_passes, version == 1 ? 1 : passes);
            assert_false(cr_world_get_def(r)->projection_shock);
            if (version >= 2 || passes == 1) { /* the same run */
                step_n(w, 60);
                step_n(r, 60);
                assert_true(same_run(r, w));
            }
            free(old);
            free(data);
            cr_world_destroy(r);
            cr_world_destroy(w);
        }
}

static void test_resume_surface(void **state)
{
    (void)state;
    check_resume(make_surface_world(), 60, 120);
}

static void test_bad_checkpoints(void **state)
{
    (void)state;
    cr_world *w = make_pit();
    step_n(w, 10);
    unsigned char *data;
    size_t size;
    char msg[256];
    assert_int_equal(cr_world_save_buffer(w, NULL, 0, &data, &size, msg, sizeof msg), CR_OK);
    cr_world *r = NULL;
    /* Every truncation is refused. */
    for (size_t cut = 0; cut < size; cut += size / 97 + 1) {
        assert_int_equal(cr_world_load_buffer(data, cut, NULL, &r, NULL, NULL, msg, sizeof msg), CR_ERR_INVALID_ARGUMENT);
        assert_null(r);
    }
    /* Any flipped byte: the checksum (or the header) catches it. */
    for (size_t k = 0; k < size; k += size / 61 + 1) {
        data[k] ^= 0x5a;
        assert_int_equal(cr_world_load_buffer(data, size, NULL, &r, NULL, NULL, msg, sizeof msg), CR_ERR_INVALID_ARGUMENT);
        assert_null(r);
        data[k] ^= 0x5a;
    }
    data[100] ^= 1;
    cr_world_load_buffer(data, size, NULL, &r, NULL, NULL, msg, sizeof msg);
    assert_non_null(strstr(msg, "checksum"));
    data[100] ^= 1;
    data[8] = CR_CHECKPOINT_VERSION + 1; /* version 9 */
    cr_world_load_buffer(data, size, NULL, &r, NULL, NULL, msg, sizeof msg);
    assert_non_null(strstr(msg, "version 9, this carom reads versions 1 to 8"));
    data[8] = CR_CHECKPOINT_VERSION;
    /* an out-of-range shock flag (its checksum made right) */
    data[SETTINGS_V2_AT + 8] = 2;
    ckpt_fix_checksum(data, size);
    assert_int_equal(cr_world_load_buffer(data, size, NULL, &r, NULL, NULL, msg, sizeof msg), CR_ERR_INVALID_ARGUMENT);
    assert_null(r);
    assert_non_null(strstr(msg, "world settings"));
    data[SETTINGS_V2_AT + 8] = 0;
    data[0] = 'X';
    cr_world_load_buffer(data, size, NULL, &r, NULL, NULL, msg, sizeof msg);
    assert_non_null(strstr(msg, "not a carom checkpoint"));
    free(data);
    cr_world_destroy(w);
}

static void custom_map(double u, double v, void *ctx, cr_surface_eval *out)
{
    (void)ctx;
    memset(out, 0, sizeof *out);
    out->s = cr_v3(u, v, 0);
    out->su = cr_v3(1, 0, 0);
    out->sv = cr_v3(0, 1, 0);
}

static void test_unsaveable_and_files(void **state)
{
    (void)state;
    cr_world *w = make_world(cr_v3(0, 0, -9.81), 1e-3, CR_METHOD_IMPULSE);
    cr_surface_def s = cr_default_surface_def();
    s.type = CR_SURFACE_CUSTOM;
    s.eval = custom_map;
    assert_int_equal(cr_world_add_surface(w, &s, NULL), CR_OK);
    char msg[256];
    assert_int_equal(cr_world_save(w, "ckpt_custom.bin", NULL, 0, msg, sizeof msg), CR_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(msg, "surface 0"));
    assert_null(fopen("ckpt_custom.bin", "rb")); /* nothing written */
    cr_world_destroy(w);

    w = make_pit();
    step_n(w, 30);
    assert_int_equal(cr_world_save(w, "ckpt_pit.bin", "x", 1, msg, sizeof msg), CR_OK);
    assert_null(fopen("ckpt_pit.bin.tmp", "rb")); /* renamed into place */
    cr_world *r;
    assert_int_equal(cr_world_load("ckpt_pit.bin", NULL, &r, NULL, NULL, msg, sizeof msg), CR_OK);
    step_n(w, 30);
    step_n(r, 30);
    assert_true(same_run(w, r));
    cr_world_destroy(r);
    assert_int_equal(cr_world_load("no/such/file.bin", NULL, &r, NULL, NULL, msg, sizeof msg), CR_ERR_INVALID_ARGUMENT);
    assert_null(r);
    assert_non_null(strstr(msg, "cannot open"));
    remove("ckpt_pit.bin");
    cr_world_destroy(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resume_pit),
        cmocka_unit_test(test_resume_projected_pit),
        cmocka_unit_test(test_old_versions_load),
        cmocka_unit_test(test_resume_surface),
        cmocka_unit_test(test_bad_checkpoints),
        cmocka_unit_test(test_unsaveable_and_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
