/* carom render — a scene at time T as a PNG, without a display.
 *
 * The same drawing code as carom view (apps/viewer), in a headless EGL
 * context. Exit statuses: 0 written; 1 the simulation failed, there is no
 * headless OpenGL, or the file could not be written; 2 bad usage or a bad
 * scene (nothing is written, nothing is simulated).
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_args.h"
#include "commands.h"
#include "progress.h"
#include "scene.h"
#include "view_args.h"
#ifdef CAROM_HAVE_RENDER
#include "render.h"
#endif

static const char render_help[] =
    "usage: carom render [SCENE] --out FILE.png [--time T] [options]\n"
    "\n"
    "Runs SCENE (without it, the embedded default scene) to time T and draws it\n"
    "into FILE.png with the viewer's drawing code, without a display (EGL).\n"
    "\n"
    "options:\n"
    "  -o, --out FILE.png       the image (required); written whole or not at all\n"
    "  -t, --time T             simulated time in s, >= 0 (default 0: the initial state);\n"
    "                           rounded to a whole number of steps\n"
    "  --size WxH               image size in pixels (default 1280x720)\n"
    "  --samples N              multisampling, 1 to 16 (default 4)\n"
    VIEW_ARGS_HELP
    "  --overlay                the viewer's text panel (time, bodies, energy)\n"
    "  -q, --quiet              no progress bar, no summary\n"
    "  -h, --help               this text\n"
    "\n"
    "exit status: 0 ok, 1 simulation, OpenGL or output failure, 2 bad scene or usage.\n"
    "See docs/viewer.md.\n";

typedef struct render_args {
    const char *scene, *out;
    double time;
    int width, height;
    long samples;
    camera_override camera;
    draw_color_mode color;
    bool overlay, quiet;
} render_args;

/* 0 parsed, 1 --help printed, 2 usage error (printed). */
static int parse(int argc, char **argv, render_args *a)
{
    memset(a, 0, sizeof *a);
    a->width = 1280;
    a->height = 720;
    a->samples = 4;
    char err[512] = "";
    bool options_done = false, missing;
    for (int i = 1; i < argc && !err[0]; ++i) {
        const char *s = argv[i], *v;
        int common = arg_common(s, &options_done, &a->scene, "scene", render_help, err, sizeof err);
        if (common == 2) return 1;
        if (common == 1) continue;
        int r = view_args_parse(argc, argv, &i, &a->camera, &a->color, err, sizeof err);
        if (r != 0) continue;
        if (strcmp(s, "-q") == 0 || strcmp(s, "--quiet") == 0) a->quiet = true;
        else if (strcmp(s, "--overlay") == 0) a->overlay = true;
        else if ((v = arg_value(argc, argv, &i, "--out", "-o", &missing))) {
            if (missing) snprintf(err, sizeof err, "--out needs a file name");
            else a->out = v;
        } else if ((v = arg_value(argc, argv, &i, "--time", "-t", &missing))) {
            if (missing) snprintf(err, sizeof err, "--time needs a number of seconds");
            else arg_number("--time", v, 0.0, INFINITY, &a->time, err, sizeof err);
        } else if ((v = arg_value(argc, argv, &i, "--size", NULL, &missing))) {
            if (missing) snprintf(err, sizeof err, "--size needs WIDTHxHEIGHT");
            else arg_size("--size", v, &a->width, &a->height, err, sizeof err);
        } else if ((v = arg_value(argc, argv, &i, "--samples", NULL, &missing))) {
            if (missing) snprintf(err, sizeof err, "--samples needs a number");
            else arg_integer("--samples", v, 1, 16, &a->samples, err, sizeof err);
        } else
            snprintf(err, sizeof err, "unknown option '%s'", s);
    }
    if (!err[0] && a->out == NULL) snprintf(err, sizeof err, "--out FILE.png is required");
    if (!err[0] && !arg_has_suffix(a->out, ".png"))
        snprintf(err, sizeof err, "--out: the image is written as PNG, so its name must end in .png, got '%s'", a->out);
    /* The directory must exist: find out now, not after the simulation. */
    if (!err[0]) arg_out_dir("--out", a->out, err, sizeof err);
    if (err[0]) {
        fprintf(stderr, "carom render: %s\n\n%s", err, render_help);
        return 2;
    }
    return 0;
}

#ifdef CAROM_HAVE_RENDER
int cmd_render(int argc, char **argv)
{
    render_args a;
    int rc = parse(argc, argv, &a);
    if (rc) return rc == 1 ? 0 : 2;
    char err[1024];
    cr_scene scene;
    int lr = a.scene ? cr_scene_load_file(a.scene, &scene, err, sizeof err) : cr_scene_load_default(&scene, err, sizeof err);
    if (lr) {
        fprintf(stderr, "carom: %s\n", err);
        return 2;
    }
    double dt = cr_world_get_def(scene.world)->dt;
    double steps_d = nearbyint(a.time / dt);
    if (steps_d > CR_SCENE_MAX_STEPS) {
        fprintf(stderr, "carom render: --time: %g s is %.3g steps of %g s, more than %.0e\n", a.time, steps_d, dt,
                CR_SCENE_MAX_STEPS);
        cr_scene_free(&scene);
        return 2;
    }
    uint64_t steps = (uint64_t)steps_d;
    progress bar;
    progress_start(&bar, stderr, steps, !a.quiet);
    double t0 = progress_now();
    for (uint64_t k = 1; k <= steps; ++k) {
        if (cr_world_step(scene.world) != CR_OK) {
            progress_finish(&bar);
            fprintf(stderr, "carom: %s\n", cr_world_last_error(scene.world));
            cr_scene_free(&scene);
            return 1;
        }
        progress_update(&bar, k);
    }
    progress_finish(&bar);
    double sim_seconds = progress_now() - t0;

    view_snapshot snap;
    memset(&snap, 0, sizeof snap);
    render_settings rs = {.width = a.width, .height = a.height, .samples = (int)a.samples, .overlay = a.overlay};
    rs.draw.color = a.color;
    rs.draw.highlight_slot = -1;
    render_figures fig = {0};
    rc = snapshot_capture(&snap, scene.world, 1);
    if (rc) snprintf(err, sizeof err, "out of memory for a snapshot of %u bodies", scene.body_count);
    else {
        snap.speed = 1.0;
        snap.steps_per_second = sim_seconds > 0.0 ? (double)steps / sim_seconds : 0.0;
        cr_vec3 lo, hi;
        snapshot_frame_bounds(&snap, &lo, &hi);
        rs.camera = camera_fit(lo, hi, (double)a.width / a.height);
        camera_apply_override(&rs.camera, &a.camera);
        rc = render_png(&snap, &rs, a.out, &fig, err, sizeof err);
    }
    if (rc) fprintf(stderr, "carom render: %s\n", err);
    else if (!a.quiet)
        printf("carom: t = %.6g s (%llu steps, %u bodies) drawn to %s, %dx%d, in %.3g s (%s)\n", snap.time,
               (unsigned long long)steps, snap.body_count, a.out, a.width, a.height, fig.seconds, fig.renderer);
    snapshot_free(&snap);
    cr_scene_free(&scene);
    return rc ? 1 : 0;
}
#else
int cmd_render(int argc, char **argv)
{
    render_args a;
    int rc = parse(argc, argv, &a);
    if (rc) return rc == 1 ? 0 : 2;
    fprintf(stderr, "carom render: this carom was built without headless OpenGL (EGL, OpenGL, libpng or stb\n"
                    "were not found when it was built); install libegl-dev libgl-dev libpng-dev libstb-dev\n"
                    "(scripts/setup.sh) and rebuild\n");
    return 1;
}
#endif
