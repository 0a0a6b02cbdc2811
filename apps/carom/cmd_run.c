/* carom run, carom validate — load a scene, step it, write samples.
 *
 * Exit statuses (docs/cli.md): 0 success; 1 the simulation or the output
 * failed (the world's message is printed, no output files are left);
 * 2 bad usage or a bad scene (nothing is created); 130 interrupted.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "output.h"
#include "output_formats.h"
#include "run_checkpoint.h"
#include "progress.h"
#include "scene.h"

static const char run_help[] =
    "usage: carom run [SCENE] [--out DIR] [--format LIST] [--checkpoint-every T] [--quiet]\n"
    "       carom run --resume CHECKPOINT [--out DIR] [--format LIST] [--quiet]\n"
    "\n"
    "Runs SCENE (a JSON scene file; without it, the embedded default scene) for\n"
    "its duration and writes, every output.every seconds of simulated time:\n"
    "  DIR/trajectory.csv  t,id,x,y,z,vx,vy,vz,wx,wy,wz,qw,qx,qy,qz  (one row per body per sample)\n"
    "  DIR/energy.csv      t,kinetic,potential,total,px,py,pz\n"
    "  DIR/scene.json      statics and body radii (for carom export-web)\n"
    "Files appear only when the run succeeds; numbers are printed exactly (%.17g).\n"
    "\n"
    "options:\n"
    "  -o, --out DIR  output directory, created if missing (default: out)\n"
    "  -f, --format LIST  besides the CSV: vtk (DIR/trajectory.pvd + trajectory_vtk/,\n"
    "                 ParaView), xyz (DIR/trajectory.xyz, extended XYZ for OVITO),\n"
    "                 or both: vtk,xyz (default: csv only)\n"
    "  --checkpoint-every T  every T simulated seconds, the complete state to\n"
    "                 DIR/checkpoint.bin (replaced atomically; kept at the end)\n"
    "  --resume CHECKPOINT  continue that run from its checkpoint, bit for bit as\n"
    "                 if never stopped; writes the samples from there on\n"
    "  -q, --quiet    no progress bar, no summary\n"
    "  -h, --help     this text\n"
    "\n"
    "exit status: 0 ok, 1 simulation or output failure, 2 bad scene or usage,\n"
    "130 interrupted. See docs/cli.md and docs/scene-format.md.\n";

static const char validate_help[] =
    "usage: carom validate [SCENE]\n"
    "\n"
    "Loads SCENE (without it, the embedded default scene) and checks every key,\n"
    "value and starting overlap. Prints 'ok: N bodies, M statics', or the first\n"
    "error with its JSON path and value on stderr.\n"
    "\n"
    "exit status: 0 valid, 2 invalid or bad usage.\n";

typedef struct run_args {
    const char *scene; /* NULL: the embedded default */
    const char *out_dir;
    unsigned formats;
    bool quiet;
    double checkpoint_every; /* simulated seconds; 0: none */
    const char *resume;      /* checkpoint to continue from */
} run_args;

/* 0 parsed, 1 --help was printed, 2 usage error (printed). */
static int parse_args(int argc, char **argv, bool allow_out, const char *help, run_args *a)
{
    a->scene = NULL;
    a->out_dir = "out";
    a->formats = OUTPUT_CSV;
    a->quiet = false;
    a->checkpoint_every = 0.0;
    a->resume = NULL;
    bool options_done = false;
    for (int i = 1; i < argc; ++i) {
        const char *s = argv[i];
        if (!options_done && s[0] == '-' && s[1] != '\0') {
            if (strcmp(s, "--") == 0) options_done = true;
            else if (strcmp(s, "-h") == 0 || strcmp(s, "--help") == 0) { fputs(help, stdout); return 1; }
            else if (allow_out && (strcmp(s, "-q") == 0 || strcmp(s, "--quiet") == 0)) a->quiet = true;
            else if (allow_out && (strcmp(s, "-o") == 0 || strcmp(s, "--out") == 0)) {
                if (i + 1 >= argc || argv[i + 1][0] == '\0') {
                    fprintf(stderr, "carom %s: %s needs a directory\n\n%s", argv[0], s, help);
                    return 2;
                }
                a->out_dir = argv[++i];
            } else if (allow_out && strncmp(s, "--out=", 6) == 0 && s[6] != '\0') a->out_dir = s + 6;
            else if (allow_out && (strcmp(s, "-f") == 0 || strcmp(s, "--format") == 0 || strncmp(s, "--format=", 9) == 0)) {
                bool inline_value = strncmp(s, "--format=", 9) == 0;
                const char *list = inline_value ? s + 9 : (i + 1 < argc ? argv[++i] : NULL);
                char err[256];
                if (list == NULL) snprintf(err, sizeof err, "%s needs csv, vtk, xyz or a list", s);
                if (list == NULL || output_parse_formats(list, &a->formats, err, sizeof err)) {
                    fprintf(stderr, "carom %s: %s\n\n%s", argv[0], err, help);
                    return 2;
                }
            }
            else if (allow_out && strcmp(s, "--checkpoint-every") == 0) {
                char *end = NULL;
                double t = i + 1 < argc ? strtod(argv[i + 1], &end) : 0.0;
                if (i + 1 >= argc || end == argv[i + 1] || *end != '\0' || !(t > 0.0) || !isfinite(t)) {
                    fprintf(stderr, "carom %s: --checkpoint-every needs a time > 0 in seconds, got '%s'\n\n%s",
                            argv[0], i + 1 < argc ? argv[i + 1] : "", help);
                    return 2;
                }
                a->checkpoint_every = t;
                ++i;
            } else if (allow_out && strcmp(s, "--resume") == 0) {
                if (i + 1 >= argc || argv[i + 1][0] == '\0') {
                    fprintf(stderr, "carom %s: --resume needs a checkpoint file\n\n%s", argv[0], help);
                    return 2;
                }
                a->resume = argv[++i];
            }
            else {
                fprintf(stderr, "carom %s: unknown option '%s'\n\n%s", argv[0], s, help);
                return 2;
            }
        } else if (a->scene == NULL) a->scene = s;
        else {
            fprintf(stderr, "carom %s: more than one scene ('%s' and '%s')\n\n%s", argv[0], a->scene, s, help);
            return 2;
        }
    }
    if (a->resume && a->scene) {
        fprintf(stderr, "carom %s: --resume continues the checkpoint's own run; give no scene\n\n%s", argv[0], help);
        return 2;
    }
    return 0;
}

static int load(const char *path, cr_scene *scene)
{
    char err[1024];
    int rc = path ? cr_scene_load_file(path, scene, err, sizeof err) : cr_scene_load_default(scene, err, sizeof err);
    if (rc) fprintf(stderr, "carom: %s\n", err);
    return rc;
}

int cmd_validate(int argc, char **argv)
{
    run_args a;
    int rc = parse_args(argc, argv, false, validate_help, &a);
    if (rc) return rc == 1 ? 0 : 2;
    cr_scene scene;
    if (load(a.scene, &scene)) return 2;
    printf("ok: %u bodies, %u statics\n", scene.body_count, scene.static_count);
    cr_scene_free(&scene);
    return 0;
}

/* ---- run ------------------------------------------------------------------ */

/* Ctrl-C ends the run cleanly: the loop sees the flag and removes the
 * temporaries, so an interrupted run leaves nothing behind either. */
static volatile sig_atomic_t interrupted = 0;
static void on_signal(int sig) { interrupted = sig; }

static void catch_signals(bool on)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on ? on_signal : SIG_DFL;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

typedef struct run_result {
    uint64_t steps;
    double wall, max_penetration;
} run_result;

/* The step loop: sample at t = 0 and every output_stride steps.
 * 0 done, 1 failed (message in err), 130 interrupted. */
static int simulate(const cr_scene *scene, run_output *out, const run_args *a, run_result *r, char *err, size_t err_size)
{
    progress bar;
    uint64_t first = cr_world_step_count(scene->world); /* > 0 when resumed */
    uint64_t ck_stride = 0;
    if (a->checkpoint_every > 0.0) {
        double steps = floor(a->checkpoint_every / cr_world_get_def(scene->world)->dt + 0.5);
        ck_stride = steps < 1.0 ? 1 : (uint64_t)steps;
    }
    progress_start(&bar, stderr, scene->steps, !a->quiet);
    r->max_penetration = 0.0;
    r->steps = 0;
    if (first % scene->output_stride == 0 && output_sample(out, scene->world, scene->body_count, err, err_size)) return 1;
    for (uint64_t k = first + 1; k <= scene->steps; ++k) {
        if (interrupted) { progress_finish(&bar); return 130; }
        if (cr_world_step(scene->world) != CR_OK) {
            progress_finish(&bar);
            /* The world's message names the body, the step and the time. */
            snprintf(err, err_size, "%s", cr_world_last_error(scene->world));
            return 1;
        }
        r->steps = k - first;
        double pen = cr_world_stats(scene->world)->max_penetration;
        if (pen > r->max_penetration) r->max_penetration = pen;
        if (k % scene->output_stride == 0 && output_sample(out, scene->world, scene->body_count, err, err_size)) {
            progress_finish(&bar);
            return 1;
        }
        /* A checkpoint is the state after step k; written in full or not at all. */
        if (ck_stride && k % ck_stride == 0 && run_checkpoint_write(scene, a->out_dir, err, err_size)) {
            progress_finish(&bar);
            return 1;
        }
        progress_update(&bar, k);
    }
    progress_finish(&bar);
    r->wall = progress_now() - bar.start;
    return 0;
}

static void summary(const cr_scene *scene, const run_result *r, uint64_t samples, const char *dir)
{
    double rate = r->wall > 0.0 ? (double)r->steps / r->wall : 0.0;
    printf("carom: %llu steps (%.6g s simulated, %u bodies) in %.3g s wall, %.0f steps/s, "
           "max penetration %.3g m; %llu samples in %s/trajectory.csv, %s/energy.csv\n",
           (unsigned long long)r->steps, cr_world_time(scene->world), scene->body_count, r->wall, rate,
           r->max_penetration, (unsigned long long)samples, dir, dir);
}

int cmd_run(int argc, char **argv)
{
    run_args a;
    int rc = parse_args(argc, argv, true, run_help, &a);
    if (rc) return rc == 1 ? 0 : 2;
    cr_scene scene;
    char err[1024];
    if (a.resume) {
        if (run_checkpoint_resume(a.resume, &scene, err, sizeof err)) {
            fprintf(stderr, "carom: %s\n", err);
            return 2;
        }
    } else if (load(a.scene, &scene)) {
        return 2;
    }

    run_output out;
    if (output_open(&out, a.out_dir, a.formats, scene.world, err, sizeof err)) {
        fprintf(stderr, "carom: %s\n", err);
        cr_scene_free(&scene);
        return 1;
    }
    catch_signals(true);
    run_result r;
    rc = simulate(&scene, &out, &a, &r, err, sizeof err);
    uint64_t samples = out.samples;
    if (rc == 0 && output_commit(&out, err, sizeof err)) rc = 1;
    if (rc) output_abort(&out);
    catch_signals(false);

    if (rc == 130) fprintf(stderr, "carom: interrupted; no output written\n");
    else if (rc) fprintf(stderr, "carom: %s\n", err);
    else if (!a.quiet) summary(&scene, &r, samples, a.out_dir);
    cr_scene_free(&scene);
    return rc;
}
