/* carom view — a window onto a running scene (apps/viewer/viewer.c).
 *
 * Exit statuses: 0 closed normally; 1 no display or no OpenGL 3.3 (or this
 * carom was built without GLFW); 2 bad usage or a bad scene.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli_args.h"
#include "commands.h"
#include "scene.h"
#include "view_args.h"
#ifdef CAROM_HAVE_VIEW
#include "viewer.h"
#endif

static const char view_help[] =
    "usage: carom view [SCENE] [options]\n"
    "\n"
    "Opens a window onto SCENE (without it, the embedded default scene) running\n"
    "in real time: the simulation in its own thread, the window drawing its\n"
    "latest consistent state.\n"
    "\n"
    "options:\n"
    "  --size WxH               window size (default 1280x720)\n"
    "  --speed S                simulated seconds per second, in (0, 64] (default 1)\n"
    "  --paused                 start paused (space runs, N steps)\n"
    "  --adaptive               seed 004's global step: each step as long as the last\n"
    "                           took to compute (x speed), in [dt/1000, 4 dt]; faster\n"
    "                           and smoother, but not the states carom run computes\n"
    VIEW_ARGS_HELP
    "  --exit-after SECONDS     close by itself after this long (for scripts)\n"
    "  --screenshot FILE.png    with --exit-after: save the last frame\n"
    "  -h, --help               this text\n"
    "\n"
    "mouse: left-drag orbit, right/middle-drag pan, wheel zoom, drag a ball to move\n"
    "it, shift-click to drop a new ball. keys: space pause, N step, R reset,\n"
    "[ ] speed, S slow motion, 1 real time, C colours, F fit, P screenshot, H help,\n"
    "Esc quit. See docs/viewer.md.\n"
    "\n"
    "exit status: 0 closed, 1 no display or OpenGL, 2 bad scene or usage.\n";

typedef struct view_args {
    const char *scene, *screenshot;
    int width, height;
    double speed, exit_after;
    bool paused, adaptive;
    camera_override camera;
    draw_color_mode color;
} view_args;

static int parse(int argc, char **argv, view_args *a)
{
    memset(a, 0, sizeof *a);
    a->width = 1280;
    a->height = 720;
    a->speed = 1.0;
    char err[512] = "";
    bool options_done = false, missing;
    for (int i = 1; i < argc && !err[0]; ++i) {
        const char *s = argv[i], *v;
        int common = arg_common(s, &options_done, &a->scene, "scene", view_help, err, sizeof err);
        if (common == 2) return 1;
        if (common == 1) continue;
        if (view_args_parse(argc, argv, &i, &a->camera, &a->color, err, sizeof err) != 0) continue;
        if (strcmp(s, "--paused") == 0) a->paused = true;
        else if (strcmp(s, "--adaptive") == 0) a->adaptive = true;
        else if ((v = arg_value(argc, argv, &i, "--size", NULL, &missing))) {
            if (missing) snprintf(err, sizeof err, "--size needs WIDTHxHEIGHT");
            else arg_size("--size", v, &a->width, &a->height, err, sizeof err);
        } else if ((v = arg_value(argc, argv, &i, "--speed", NULL, &missing))) {
            if (missing) snprintf(err, sizeof err, "--speed needs a number");
            else if (arg_number("--speed", v, 0.0, 64.0, &a->speed, err, sizeof err) == 0 && !(a->speed > 0.0))
                snprintf(err, sizeof err, "--speed: must be > 0, got %s", v);
        } else if ((v = arg_value(argc, argv, &i, "--exit-after", NULL, &missing))) {
            if (missing) snprintf(err, sizeof err, "--exit-after needs a number of seconds");
            else if (arg_number("--exit-after", v, 0.0, INFINITY, &a->exit_after, err, sizeof err) == 0 &&
                     !(a->exit_after > 0.0))
                snprintf(err, sizeof err, "--exit-after: must be > 0, got %s", v);
        } else if ((v = arg_value(argc, argv, &i, "--screenshot", NULL, &missing))) {
            if (missing) snprintf(err, sizeof err, "--screenshot needs a file name");
            else if (!arg_has_suffix(v, ".png")) snprintf(err, sizeof err, "--screenshot: the name must end in .png, got '%s'", v);
            else a->screenshot = v;
        } else
            snprintf(err, sizeof err, "unknown option '%s'", s);
    }
    if (!err[0] && a->screenshot && !(a->exit_after > 0.0))
        snprintf(err, sizeof err, "--screenshot goes with --exit-after (press P for screenshots while viewing)");
    if (err[0]) {
        fprintf(stderr, "carom view: %s\n\n%s", err, view_help);
        return 2;
    }
    return 0;
}

#ifdef CAROM_HAVE_VIEW
/* The simulation thread's loader: the scene file (or the embedded one) as a
 * fresh world, at start and on every reset. */
static int load_world(void *ctx, cr_world **out, char *err, size_t err_size)
{
    const char *path = ctx;
    cr_scene scene;
    int rc = path ? cr_scene_load_file(path, &scene, err, err_size) : cr_scene_load_default(&scene, err, err_size);
    if (rc) return -1;
    *out = scene.world;
    scene.world = NULL;
    cr_scene_free(&scene);
    return 0;
}

int cmd_view(int argc, char **argv)
{
    view_args a;
    int rc = parse(argc, argv, &a);
    if (rc) return rc == 1 ? 0 : 2;
    viewer_options o = {.width = a.width, .height = a.height, .camera = a.camera, .color = a.color,
                        .exit_after = a.exit_after, .screenshot = a.screenshot};
    o.sim = sim_default_options();
    o.sim.speed = a.speed;
    o.sim.paused = a.paused;
    o.sim.adaptive = a.adaptive;
    char title[256];
    snprintf(title, sizeof title, "carom — %s", a.scene ? a.scene : "default scene");
    o.title = title;
    char err[1024];
    int load_failed = 0;
    if (viewer_run(&o, load_world, (void *)a.scene, &load_failed, err, sizeof err) == 0) return 0;
    if (load_failed) {
        fprintf(stderr, "carom: %s\n", err);
        return 2;
    }
    fprintf(stderr, "carom view: %s\n", err);
    return 1;
}
#else
int cmd_view(int argc, char **argv)
{
    view_args a;
    int rc = parse(argc, argv, &a);
    if (rc) return rc == 1 ? 0 : 2;
    char err[1024];
    cr_scene scene;
    rc = a.scene ? cr_scene_load_file(a.scene, &scene, err, sizeof err) : cr_scene_load_default(&scene, err, sizeof err);
    if (rc) {
        fprintf(stderr, "carom: %s\n", err);
        return 2;
    }
    cr_scene_free(&scene);
    fprintf(stderr, "carom view: this carom was built without a display (GLFW and OpenGL were not found when it\n"
                    "was built); install libglfw3-dev libgl-dev (scripts/setup.sh) and rebuild, or use\n"
                    "carom render for images without a window\n");
    return 1;
}
#endif
