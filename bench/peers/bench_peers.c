/* The side-by-side benchmark of issue 8: runs the same scenes in carom and in
 * ODE, Bullet, MuJoCo (each its own program next to this one: peer_carom,
 * peer_ode, peer_bullet, peer_mujoco) and the granular chute in LAMMPS, one
 * after the other on this machine, with a STREAM-like memory bandwidth
 * measurement, and prints one table per scene: each engine's steps/s,
 * carom's ratio to it, and its quality figures. With --results DIR the same
 * text is written to a markdown file there, named by date, CPU and cores.
 *
 * Each engine program runs in its own process: a peer that crashes, runs out
 * of memory or hangs costs its own line and nothing else.
 */
#define _XOPEN_SOURCE 700
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../bench_args.h"
#include "scene.h"
#include "stream.h"
#include "sweep.h"

#define MAX_LIST 16
#define MAX_NOTES 64

/* ---- output: stdout and, with --results, a markdown file ------------------ */

static FILE *g_results;

static void out(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    fflush(stdout);
    if (g_results) {
        va_start(ap, fmt);
        vfprintf(g_results, fmt, ap);
        va_end(ap);
        fflush(g_results);
    }
}

/* ---- options -------------------------------------------------------------- */

typedef struct options {
    int sizes[MAX_LIST], nsizes;
    int rows[MAX_LIST], nrows;
    double cap, timeout;
    char engines[256], scenes[256];
    const char *chute_dir, *results_dir, *commit;
    int stream, lammps_repeats;
    int carom_threads; /* chute: carom runs at 1 .. carom_threads threads; pit (and its sub-stepped line),
                          pyramid (sub-stepped): once more at carom_threads */
    int carom_pgs;     /* pyramid: a second carom line at this many PGS passes (0: none) */
    int carom_substeps; /* pyramid: a third carom line, the sub-stepped solver at this many substeps of
                           one pass (rigid_substeps; 0: none) */
    int sweep;         /* pyramid: the stability sweep instead of the one-setting table */
    int sweep_iters[3][MAX_LIST], nsweep[3]; /* its settings: carom, ode, bullet (ascending) */
    int sweep_repeats; /* runs per setting, the fastest taken */
    int sweep_substeps; /* > 0: carom's sweep runs the sub-stepped solver at this many substeps
                           (CAROM_PYR_SUBSTEPS), its iteration counts then substep_iterations */
    int pit_substeps;  /* pit: a carom line with the sub-stepped solver at this many substeps (0: none) */
} options;

/* The engines of the pyramid sweep, in the order of options.sweep_iters. */
static const char *k_sweep_engines[3] = {"carom", "ode", "bullet"};
static const char *k_sweep_option[3] = {"--sweep-carom", "--sweep-ode", "--sweep-bullet"};

static int parse_list(const char *s, int *v, int max)
{
    int n = 0;
    while (*s && n < max) {
        char *end;
        long x = strtol(s, &end, 10);
        if (end == s || x < 1 || x > 100000000) return -1;
        v[n++] = (int)x;
        s = end;
        if (*s == ',') ++s;
        else if (*s) return -1;
    }
    return n;
}

/* An iteration list: integers in [1, 100000], sorted ascending, repeats
 * dropped (the sweep's "fewest" is the first that matches). The number
 * read, or -1 with the reason printed. */
static int parse_iterations(const char *opt, const char *s, int *v)
{
    int n = 0;
    const char *p = s;
    while (*p) {
        char *end;
        long x = strtol(p, &end, 10);
        if (end == p || x < 1 || x > 100000 || (*end && *end != ',') || n == MAX_LIST) {
            fprintf(stderr, "bench_peers: %s '%s': expected at most %d integers in [1, 100000], comma-separated\n",
                    opt, s, MAX_LIST);
            return -1;
        }
        int k = n++;
        while (k > 0 && v[k - 1] > x) v[k] = v[k - 1], --k;
        v[k] = (int)x;
        p = *end ? end + 1 : end;
    }
    if (n == 0) {
        fprintf(stderr, "bench_peers: %s '%s': empty list\n", opt, s);
        return -1;
    }
    int m = 0;
    for (int i = 0; i < n; ++i)
        if (m == 0 || v[m - 1] != v[i]) v[m++] = v[i];
    return m;
}

static int has_word(const char *list, const char *word)
{
    size_t len = strlen(word);
    for (const char *p = list; (p = strstr(p, word)) != NULL; p += len)
        if ((p == list || p[-1] == ',') && (p[len] == ',' || p[len] == '\0')) return 1;
    return 0;
}

static void usage(FILE *f, const char *argv0)
{
    fprintf(f,
            "usage: %s [options]\n"
            "  --sizes N,N,...    ball pit sizes (default 1000,8000,27000,125000)\n"
            "  --rows R,R,...     box pyramid rows (default 20,50)\n"
            "  --cap S            stop a run once S seconds were spent stepping (default 30);\n"
            "                     the run is then reported over the steps it made\n"
            "  --timeout S        kill a run after S seconds of wall time in all (default 4 cap + 300)\n"
            "  --engines LIST     among carom,ode,bullet,mujoco,lammps (default all)\n"
            "  --scenes LIST      among pit,pyramid,chute (default all)\n"
            "  --chute DIR        LAMMPS chute input: DIR/in.chute, DIR/data.chute (default ../shared/bench/chute)\n"
            "  --lammps-repeats K LAMMPS runs per core count, best taken (default 3)\n"
            "  --threads T        chute: carom at 1 .. T threads (default 2), each compared with LAMMPS\n"
            "                     at as many MPI ranks; pit: carom and its sub-stepped line once more at T threads (T > 1);\n"
            "                     pyramid: the sub-stepped line once more at T threads (T > 1)\n"
            "  --carom-pgs N      pyramid: carom once more with pgs_iterations N (default 10: the fewest\n"
            "                     at least as stable as ODE 20 and Bullet 10 at 50 rows; 0: no such line)\n"
            "  --carom-substeps S pyramid: carom once more with the sub-stepped soft contact solver,\n"
            "                     rigid_substeps S of one pass each (default 4; 0: no such line)\n"
            "  --pit-substeps S   pit: carom once more with the sub-stepped soft contact solver, rigid_substeps\n"
            "                     S of one pass, contact_hertz 60 S (its cap); default 10 (the fewest under\n"
            "                     1%% r at 27 000 balls; 0: no such line)\n"
            "  --pyramid-sweep    pyramid: instead of one table at each engine's setting, each engine at\n"
            "                     each of its iteration counts below, and the matched-stability tables\n"
            "  --sweep-carom LIST carom pgs_iterations of the sweep (default 3,4,5,6,8,10,12,15,20,30,50)\n"
            "  --sweep-ode LIST   ODE quickstep iterations of the sweep (default 10,20,40,80,160)\n"
            "  --sweep-bullet LIST Bullet solver iterations of the sweep (default 5,10,20,40,80)\n"
            "  --sweep-repeats K  sweep: runs per setting, the fastest taken (default 1)\n"
            "  --sweep-substeps S sweep: carom with the sub-stepped soft contact solver at S substeps\n"
            "                     (rigid_substeps; --sweep-carom then lists substep_iterations; the\n"
            "                     contact_hertz from CAROM_PYR_HERTZ when set; default 0: seed 003's PGS)\n"
            "  --no-stream        skip the memory bandwidth measurement\n"
            "  --results DIR      also write the report to DIR/<date>-<cpu>-<cores>c.md\n"
            "  --commit TEXT      the carom source the programs were built from, for the report\n"
            "                     (default: git HEAD of the working directory, marked when src/ or include/\n"
            "                     differ from it)\n",
            argv0);
}

/* ---- machine -------------------------------------------------------------- */

static void cpu_model(char *buf, size_t size)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    snprintf(buf, size, "unknown");
    if (!f) return;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "model name", 10) == 0) {
            char *c = strchr(line, ':');
            if (c) {
                c += 1 + strspn(c + 1, " \t");
                c[strcspn(c, "\n")] = '\0';
                snprintf(buf, size, "%s", c);
            }
            break;
        }
    fclose(f);
}

static void first_line_of(const char *cmd, char *buf, size_t size)
{
    FILE *p = popen(cmd, "r");
    buf[0] = '\0';
    if (!p) return;
    if (!fgets(buf, (int)size, p)) buf[0] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    pclose(p);
}

/* ---- running one engine program ------------------------------------------ */

typedef struct result {
    int ok, skipped;
    char engine[32], scene[16];
    int size, bodies, steps, planned, lost;
    double step_seconds, step_cpu_seconds, setup_seconds, max_pen, ke, drift, contacts, overlap;
    char pen_kind[16];
    long warnings;
    char reason[512];
} result;

static char g_bindir[PATH_MAX];
static char g_notes[MAX_NOTES][512];
static int g_nnotes;

static void add_note(const char *s)
{
    for (int i = 0; i < g_nnotes; ++i)
        if (strcmp(g_notes[i], s) == 0) return;
    if (g_nnotes < MAX_NOTES) snprintf(g_notes[g_nnotes++], sizeof g_notes[0], "%s", s);
}

static void flush_notes(void)
{
    if (g_nnotes) out("\n");
    for (int i = 0; i < g_nnotes; ++i) out("- %s\n", g_notes[i]);
    g_nnotes = 0;
}

static const char *field(const char *line, const char *key)
{
    size_t len = strlen(key);
    for (const char *p = line; (p = strstr(p, key)) != NULL; p += len)
        if ((p == line || p[-1] == ' ') && p[len] == '=') return p + len + 1;
    return NULL;
}

static double fnum(const char *line, const char *key)
{
    const char *v = field(line, key);
    return v ? strtod(v, NULL) : -1.0;
}

static void parse_line(const char *line, result *r)
{
    if (strncmp(line, "RESULT ", 7) == 0) {
        r->ok = 1;
        sscanf(field(line, "engine") ? field(line, "engine") : "?", "%31s", r->engine);
        sscanf(field(line, "scene") ? field(line, "scene") : "?", "%15s", r->scene);
        sscanf(field(line, "pen_kind") ? field(line, "pen_kind") : "?", "%15s", r->pen_kind);
        r->size = (int)fnum(line, "size");
        r->bodies = (int)fnum(line, "bodies");
        r->steps = (int)fnum(line, "steps");
        r->planned = (int)fnum(line, "planned");
        r->lost = (int)fnum(line, "lost");
        r->step_seconds = fnum(line, "step_seconds");
        r->step_cpu_seconds = fnum(line, "step_cpu_seconds");
        r->setup_seconds = fnum(line, "setup_seconds");
        r->max_pen = fnum(line, "max_pen");
        r->ke = fnum(line, "ke");
        r->drift = fnum(line, "drift");
        r->contacts = fnum(line, "contacts");
        r->warnings = (long)fnum(line, "warnings");
        r->overlap = fnum(line, "overlap");
    } else if (strncmp(line, "SKIP ", 5) == 0) {
        r->skipped = 1;
        const char *why = field(line, "reason");
        snprintf(r->reason, sizeof r->reason, "%s", why ? why : "skipped");
    } else if (strncmp(line, "NOTE ", 5) == 0) {
        add_note(line + 5);
    } else if (line[0] && !r->reason[0]) {
        snprintf(r->reason, sizeof r->reason, "%s", line);
    }
}

/* Runs bindir/prog with args; fills r from its output. */
/* extra: one more argument for the program, or NULL. */
static void run_engine(const char *prog, const char *scene, int size, const char *extra, const options *o, result *r)
{
    char path[PATH_MAX + 64], a_size[32], a_cap[32];
    memset(r, 0, sizeof *r);
    snprintf(path, sizeof path, "%s/%s", g_bindir, prog);
    if (access(path, X_OK) != 0) {
        snprintf(r->reason, sizeof r->reason, "not built (its Debian package was missing at configure time)");
        return;
    }
    snprintf(a_size, sizeof a_size, "%d", size);
    snprintf(a_cap, sizeof a_cap, "%g", o->cap);
    int fds[2];
    if (pipe(fds) != 0) {
        snprintf(r->reason, sizeof r->reason, "pipe: %s", strerror(errno));
        return;
    }
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(r->reason, sizeof r->reason, "fork: %s", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return;
    }
    if (pid == 0) {
        dup2(fds[1], 1);
        dup2(fds[1], 2);
        close(fds[0]);
        close(fds[1]);
        execl(path, prog, scene, a_size, a_cap, extra, (char *)NULL);
        fprintf(stderr, "exec %s: %s\n", path, strerror(errno));
        _exit(127);
    }
    close(fds[1]);
    char buf[65536];
    size_t used = 0;
    double deadline = peer_now() + o->timeout;
    int killed = 0;
    for (;;) {
        double left = deadline - peer_now();
        if (left <= 0) {
            kill(pid, SIGKILL);
            killed = 1;
            break;
        }
        struct pollfd pfd = {fds[0], POLLIN, 0};
        int pr = poll(&pfd, 1, left > 1.0 ? 1000 : (int)(left * 1000) + 1);
        if (pr < 0 && errno == EINTR) continue;
        if (pr <= 0) continue;
        if (used + 1 >= sizeof buf) used = 0; /* runaway output: keep the tail */
        ssize_t k = read(fds[0], buf + used, sizeof buf - 1 - used);
        if (k <= 0) break;
        used += (size_t)k;
    }
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    buf[used] = '\0';
    for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) parse_line(line, r);
    if (killed) {
        r->ok = 0;
        snprintf(r->reason, sizeof r->reason, "killed after the %.0f s timeout", o->timeout);
    } else if (!r->ok && !r->skipped) {
        char why[256];
        if (WIFSIGNALED(status))
            snprintf(why, sizeof why, "died of signal %d", WTERMSIG(status));
        else
            snprintf(why, sizeof why, "exit status %d", WEXITSTATUS(status));
        char tail[512];
        snprintf(tail, sizeof tail, "failed (%.200s)%s%.280s", why, r->reason[0] ? ": " : "", r->reason);
        snprintf(r->reason, sizeof r->reason, "%s", tail);
    }
}

/* ---- tables --------------------------------------------------------------- */

static const char *k_engines[] = {"carom", "ode", "bullet", "mujoco"};
enum { NENGINES = 4 };

static double steps_per_s(const result *r)
{
    return r->ok && r->step_seconds > 0 ? r->steps / r->step_seconds : 0.0;
}

/* the same over the process's CPU time in the step calls: the sweep's speed,
 * less moved by other processes on a shared machine than the wall clock */
static double steps_per_cpu_s(const result *r)
{
    return r->ok && r->step_cpu_seconds > 0 ? r->steps / r->step_cpu_seconds : 0.0;
}

static void fmt_ratio(char *buf, size_t size, const result *carom, const result *r)
{
    double a = steps_per_s(carom), b = steps_per_s(r);
    if (r == carom)
        snprintf(buf, size, "1");
    else if (a > 0 && b > 0)
        snprintf(buf, size, "%.2f", a / b);
    else
        snprintf(buf, size, "n/a");
}

static void fmt_steps(char *buf, size_t size, const result *r)
{
    if (r->steps >= r->planned)
        snprintf(buf, size, "%d", r->steps);
    else
        snprintf(buf, size, "%d of %d (capped at t = %.2f s)", r->steps, r->planned, r->steps * PEER_DT);
}

/* "x.xx" : the one-minute load average now, so that a table can be read
 * against what else the machine was doing. */
static void load_now(char *buf, size_t size)
{
    char line[128];
    first_line_of("cat /proc/loadavg 2>/dev/null", line, sizeof line);
    line[strcspn(line, " ")] = '\0';
    snprintf(buf, size, "%.16s", line[0] ? line : "?");
}

/* The peer with the most steps/s in res (NULL: none ran). */
static const result *fastest_peer(const result *res)
{
    const result *fastest = NULL;
    for (int e = 1; e < NENGINES; ++e)
        if (steps_per_s(&res[e]) > 0 && (!fastest || steps_per_s(&res[e]) > steps_per_s(fastest))) fastest = &res[e];
    return fastest;
}

/* A pit row of carom at another setting, beside its own default row
 * (res[0]): label names it; threads: peer_carom's THREADS argument (NULL:
 * one); substeps > 0: the sub-stepped soft contact solver at that many
 * substeps (CAROM_PIT_SUBSTEPS) with contact_hertz at its cap, a quarter
 * of the substep rate (CAROM_PIT_HERTZ = 60 S at 240 steps/s); last > 0:
 * only the first last steps (CAROM_PIT_STEPS). A note compares it with
 * the fastest peer. */
static void pit_carom_row(int n, const options *o, const result *res, const char *label, const char *threads,
                          int substeps, int last)
{
    if (!has_word(o->engines, "carom") || !res[0].ok) return;
    fprintf(stderr, "[bench_peers] pit N=%d: %s ...\n", n, label);
    char env[3][16];
    snprintf(env[0], sizeof env[0], "%d", substeps);
    snprintf(env[1], sizeof env[1], "%d", 60 * substeps);
    snprintf(env[2], sizeof env[2], "%d", last);
    if (substeps > 0) { /* read by peer_carom only */
        setenv("CAROM_PIT_SUBSTEPS", env[0], 1);
        setenv("CAROM_PIT_HERTZ", env[1], 1);
    }
    if (last > 0) setenv("CAROM_PIT_STEPS", env[2], 1);
    result r;
    run_engine("peer_carom", "pit", n, threads, o, &r);
    unsetenv("CAROM_PIT_SUBSTEPS");
    unsetenv("CAROM_PIT_HERTZ");
    unsetenv("CAROM_PIT_STEPS");
    if (!r.ok) {
        out("| %s | %s | | | | | | | | |\n", label, r.reason[0] ? r.reason : "no result");
        return;
    }
    if (last > 0 && r.steps == last) r.planned = last; /* it ran all it was asked to */
    char steps[96], to_carom[32] = "— (another span)";
    fmt_steps(steps, sizeof steps, &r);
    if (last == 0) snprintf(to_carom, sizeof to_carom, "%.2f (to carom)", steps_per_s(&r) / steps_per_s(&res[0]));
    out("| %s | %.1f | %.3g | %s | %s | %.3g mm (%.2f%% r) | %d | %.4g | %.0f | %.2f |\n", label,
        steps_per_s(&r), 1e6 * r.step_seconds / ((double)r.steps * n), steps, to_carom,
        1e3 * r.max_pen, 100.0 * r.max_pen / PIT_RADIUS, r.lost, r.ke, r.contacts, r.setup_seconds);
    const result *fastest = fastest_peer(res);
    char note[256];
    int at = snprintf(note, sizeof note, "%s: ", label);
    if (substeps == 0)
        at += snprintf(note + at, sizeof note - (size_t)at, "KE at end %s; ",
                       r.steps != res[0].steps ? "not compared (a different step count)"
                       : r.ke == res[0].ke    ? "as on one thread (to the printed digits)"
                                              : "DIFFERS from one thread's");
    else
        at += snprintf(note + at, sizeof note - (size_t)at,
                       "rigid_substeps %d, contact_hertz %d, substep_iterations 1 (docs/physics/substep.md); ",
                       substeps, 60 * substeps);
    if (fastest)
        snprintf(note + at, sizeof note - (size_t)at, "%.2f x the fastest peer (%s, one thread)",
                 steps_per_s(&r) / steps_per_s(fastest), fastest->engine);
    add_note(note);
}

static void pit_table(int n, const options *o)
{
    result res[NENGINES];
    pit_scene s;
    pit_build(&s, n);
    out("\n### Ball pit, N = %d\n\n", n);
    char load[32];
    load_now(load, sizeof load);
    out("Box %.3f m x %.3f m, %d steps of 1/240 s (2 s); cap %g s of stepping per run; load average %s.\n\n",
        s.side, s.side, PEER_STEPS, o->cap, load);
    pit_free(&s);
    out("| engine | steps/s | µs per body-step | steps run | carom / engine | max penetration | lost | KE at end (J) "
        "| contacts/step | setup (s) |\n");
    out("|---|---:|---:|---|---:|---:|---:|---:|---:|---:|\n");
    for (int e = 0; e < NENGINES; ++e) {
        if (!has_word(o->engines, k_engines[e])) {
            memset(&res[e], 0, sizeof res[e]);
            snprintf(res[e].reason, sizeof res[e].reason, "not selected");
            continue;
        }
        char prog[64];
        snprintf(prog, sizeof prog, "peer_%s", k_engines[e]);
        fprintf(stderr, "[bench_peers] pit N=%d: %s ...\n", n, k_engines[e]);
        run_engine(prog, "pit", n, NULL, o, &res[e]);
    }
    for (int e = 0; e < NENGINES; ++e) {
        const result *r = &res[e];
        if (!r->ok) {
            out("| %s | %s | | | | | | | | |\n", k_engines[e], r->reason[0] ? r->reason : "no result");
            continue;
        }
        char ratio[32], steps[96];
        fmt_ratio(ratio, sizeof ratio, &res[0], r);
        fmt_steps(steps, sizeof steps, r);
        out("| %s | %.1f | %.3g | %s | %s | %.3g mm (%.2f%% r) | %d | %.4g | %.0f | %.2f |\n", k_engines[e],
            steps_per_s(r), 1e6 * r->step_seconds / ((double)r->steps * n), steps, ratio, 1e3 * r->max_pen, 100.0 * r->max_pen / PIT_RADIUS, r->lost, r->ke, r->contacts,
            r->setup_seconds);
        if (r->warnings > 0) {
            char w[128];
            snprintf(w, sizeof w, "%s: %ld engine warnings in the run", k_engines[e], r->warnings);
            add_note(w);
        }
    }
    char threads[16], label[128];
    snprintf(threads, sizeof threads, "%d", o->carom_threads);
    if (o->carom_threads > 1) {
        snprintf(label, sizeof label, "carom, %d threads", o->carom_threads);
        pit_carom_row(n, o, res, label, threads, 0, 0);
    }
    if (o->pit_substeps > 0) {
        snprintf(label, sizeof label, "carom sub-stepped %d", o->pit_substeps);
        pit_carom_row(n, o, res, label, NULL, o->pit_substeps, 0);
        if (o->carom_threads > 1) { /* issue 8's pit target is on 2 cores: in the same run as the peers */
            snprintf(label, sizeof label, "carom sub-stepped %d, %d threads", o->pit_substeps, o->carom_threads);
            pit_carom_row(n, o, res, label, threads, o->pit_substeps, 0);
            /* The fastest peer stopped at the cap: carom once more over the
             * same steps, so that both ratios' engines simulated the same
             * span (a falling pit's early steps hold fewer contacts) */
            const result *fastest = fastest_peer(res);
            if (fastest && fastest->steps < PEER_STEPS) {
                snprintf(label, sizeof label, "carom sub-stepped %d, %d threads, first %d steps (%s's span)",
                         o->pit_substeps, o->carom_threads, fastest->steps, fastest->engine);
                pit_carom_row(n, o, res, label, threads, o->pit_substeps, fastest->steps);
            }
        }
    }
    flush_notes();
}

static void pyramid_table(int rows, const options *o)
{
    result res[NENGINES];
    out("\n### Box pyramid, %d rows (%d cubes)\n\n", rows, rows * (rows + 1) / 2);
    char load[32];
    load_now(load, sizeof load);
    out("Cubes of edge 0.1 m, 0.5 kg, e = 0, mu = 0.5; %d steps of 1/240 s (2 s); cap %g s; load average %s.\n\n",
        PEER_STEPS, o->cap, load);
    out("| engine | steps/s | steps run | carom / engine | deepest contact | deepest overlap | lost | largest drift "
        "| KE at end (J) | contacts/step | setup (s) |\n");
    out("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int e = 0; e < NENGINES; ++e) {
        if (!has_word(o->engines, k_engines[e])) {
            memset(&res[e], 0, sizeof res[e]);
            snprintf(res[e].reason, sizeof res[e].reason, "not selected");
            continue;
        }
        char prog[64];
        snprintf(prog, sizeof prog, "peer_%s", k_engines[e]);
        fprintf(stderr, "[bench_peers] pyramid rows=%d: %s ...\n", rows, k_engines[e]);
        run_engine(prog, "pyramid", rows, NULL, o, &res[e]);
    }
    /* carom again at other settings, its ratios below the table: fewer
     * Gauss-Seidel passes, nearer the peers' own (ODE 20, Bullet 10), the
     * sub-stepped soft contact solver (rigid_substeps S, one pass), and that
     * once more on carom's own thread pool of --threads T (T > 1; the same
     * bits as on one thread; the peers run on one) */
    enum { NVARIANTS = 3 };
    result variant[NVARIANTS];
    char variant_name[NVARIANTS][80];
    bool ran[NVARIANTS] = {false, false, false};
    bool carom = has_word(o->engines, "carom");
    for (int v = 0; v < NVARIANTS; ++v) {
        memset(&variant[v], 0, sizeof variant[v]);
        int setting = v == 0 ? o->carom_pgs : v == 1 || o->carom_threads > 1 ? o->carom_substeps : 0;
        if (setting <= 0 || !carom) continue;
        char arg[32];
        snprintf(arg, sizeof arg, "%d", v == 0 ? setting : 1);
        if (v == 2)
            snprintf(variant_name[v], sizeof variant_name[v], "carom, rigid_substeps %d (1 pass each), %d threads",
                     setting, o->carom_threads);
        else
            snprintf(variant_name[v], sizeof variant_name[v],
                     v == 0 ? "carom, pgs_iterations %d" : "carom, rigid_substeps %d (1 pass each)", setting);
        fprintf(stderr, "[bench_peers] pyramid rows=%d: %s ...\n", rows, variant_name[v]);
        char substeps[16], threads[16];
        snprintf(substeps, sizeof substeps, "%d", setting);
        snprintf(threads, sizeof threads, "%d", o->carom_threads);
        /* read by peer_carom only */
        if (v >= 1) setenv("CAROM_PYR_SUBSTEPS", substeps, 1);
        if (v == 2) setenv("CAROM_PYR_THREADS", threads, 1);
        run_engine("peer_carom", "pyramid", rows, arg, o, &variant[v]);
        unsetenv("CAROM_PYR_SUBSTEPS");
        unsetenv("CAROM_PYR_THREADS");
        ran[v] = true;
    }
    for (int e = 0; e < NENGINES + NVARIANTS; ++e) {
        int v = e - NENGINES;
        if (v >= 0 && !ran[v]) continue;
        const result *r = v >= 0 ? &variant[v] : &res[e];
        const char *name = v >= 0 ? variant_name[v] : k_engines[e];
        if (!r->ok) {
            out("| %s | %s | | | | | | | | | |\n", name, r->reason[0] ? r->reason : "no result");
            continue;
        }
        char ratio[32], steps[96];
        fmt_ratio(ratio, sizeof ratio, &res[0], r);
        if (v >= 0) snprintf(ratio, sizeof ratio, "below");
        fmt_steps(steps, sizeof steps, r);
        out("| %s | %.1f | %s | %s | %.3g mm | %.3g mm | %d | %.3g mm | %.4g | %.0f | %.2f |\n", name,
            steps_per_s(r), steps, ratio, 1e3 * r->max_pen, 1e3 * r->overlap, r->lost, 1e3 * r->drift, r->ke,
            r->contacts, r->setup_seconds);
        if (v >= 0)
            for (int k = 1; k < NENGINES; ++k)
                if (res[k].ok) {
                    char w[160], q[32];
                    fmt_ratio(q, sizeof q, r, &res[k]);
                    snprintf(w, sizeof w, "%s / %s: %s", name, k_engines[k], q);
                    add_note(w);
                }
        if (r->warnings > 0) {
            char w[128];
            snprintf(w, sizeof w, "%s: %ld engine warnings in the run", name, r->warnings);
            add_note(w);
        }
    }
    flush_notes();
}

/* ---- the pyramid's stability sweep ---------------------------------------- */

static pyr_stability stability_of(const result *r)
{
    pyr_stability q = {r->ok && r->steps >= r->planned, r->lost, r->overlap, r->drift, r->ke};
    return q;
}

/* "x.xx mm / y.yy mm / z J": a run's overlap, drift and KE at the end */
static void fmt_stability(char *buf, size_t size, const result *r)
{
    snprintf(buf, size, "%.3g / %.3g mm / %.2g J%s", 1e3 * r->overlap, 1e3 * r->drift, r->ke,
             r->lost ? " (cubes lost)" : "");
}

/* Each engine at each of its iteration counts (--sweep-*), then which of
 * carom's settings is as stable as each peer setting, and the other way
 * (rule: pyr_as_stable, bench/peers/sweep.h). */
static void pyramid_sweep(int rows, const options *o)
{
    static result res[3][MAX_LIST];
    pyr_stability q[3][MAX_LIST];
    out("\n### Box pyramid, %d rows (%d cubes): stability sweep\n\n", rows, rows * (rows + 1) / 2);
    char load[32];
    load_now(load, sizeof load);
    out("Each engine at each iteration count, %d steps of 1/240 s; cap %g s; fastest of %d run%s per setting; "
        "load average %s at the start. steps/s (CPU): over the process's CPU time in the step calls, which the "
        "ratios below use (the wall clock moves more with the other processes' load); steps/s (wall): as in the "
        "other tables.\n\n",
        PEER_STEPS, o->cap, o->sweep_repeats, o->sweep_repeats > 1 ? "s" : "", load);
    char substeps[16];
    snprintf(substeps, sizeof substeps, "%d", o->sweep_substeps);
    if (o->sweep_substeps > 0) {
        const char *hz = getenv("CAROM_PYR_HERTZ");
        out("carom: the sub-stepped soft contact solver, rigid_substeps %d, contact_hertz %s; its iterations are "
            "substep_iterations.\n\n",
            o->sweep_substeps, hz ? hz : "the default");
        setenv("CAROM_PYR_SUBSTEPS", substeps, 1); /* read by peer_carom only */
    }
    out("| engine | iterations | steps/s (CPU) | steps/s (wall) | steps run | deepest overlap | deepest contact "
        "| largest drift | KE at end (J) | lost | contacts/step |\n");
    out("|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|\n");
    for (int e = 0; e < 3; ++e) {
        char prog[64];
        snprintf(prog, sizeof prog, "peer_%s", k_sweep_engines[e]);
        for (int i = 0; i < o->nsweep[e]; ++i) {
            result *best = &res[e][i];
            memset(best, 0, sizeof *best);
            if (!has_word(o->engines, k_sweep_engines[e])) {
                snprintf(best->reason, sizeof best->reason, "not selected");
                q[e][i] = stability_of(best);
                continue;
            }
            char iters[32];
            snprintf(iters, sizeof iters, "%d", o->sweep_iters[e][i]);
            for (int rep = 0; rep < o->sweep_repeats; ++rep) {
                result r;
                fprintf(stderr, "[bench_peers] pyramid sweep rows=%d: %s %s iterations, run %d ...\n", rows,
                        k_sweep_engines[e], iters, rep + 1);
                run_engine(prog, "pyramid", rows, iters, o, &r);
                if (rep > 0 && r.ok && best->ok &&
                    (r.steps != best->steps || r.lost != best->lost || r.overlap != best->overlap ||
                     r.drift != best->drift || r.ke != best->ke)) {
                    /* the rule assumes one stability per setting: say so when runs differ */
                    char w[160];
                    snprintf(w, sizeof w, "%s at %s iterations: the runs' quality figures differ (the fastest run's "
                             "are shown and matched)", k_sweep_engines[e], iters);
                    add_note(w);
                }
                if (rep == 0 || (r.ok && (!best->ok || steps_per_cpu_s(&r) > steps_per_cpu_s(best)))) *best = r;
            }
            q[e][i] = stability_of(best);
            const result *r = best;
            if (!r->ok) {
                out("| %s | %s | %s | | | | | | | | |\n", k_sweep_engines[e], iters,
                    r->reason[0] ? r->reason : "no result");
                continue;
            }
            char steps[96];
            fmt_steps(steps, sizeof steps, r);
            out("| %s | %s | %.1f | %.1f | %s | %.3g mm | %.3g mm | %.3g mm | %.2g | %d | %.0f |\n",
                k_sweep_engines[e], iters, steps_per_cpu_s(r), steps_per_s(r), steps, 1e3 * r->overlap,
                1e3 * r->max_pen, 1e3 * r->drift, r->ke, r->lost, r->contacts);
        }
    }
    unsetenv("CAROM_PYR_SUBSTEPS");
    if (!has_word(o->engines, "carom")) return;

    out("\n**carom as stable as each peer setting**: the fewest carom passes whose run is at least as stable "
        "(rule below), and carom's speed over the peer's.\n\n");
    out("| peer | iterations | steps/s (CPU) | overlap / drift / KE | fewest carom passes as stable | carom steps/s "
        "| carom / peer |\n");
    out("|---|---:|---:|---|---:|---:|---:|\n");
    for (int e = 1; e < 3; ++e)
        for (int i = 0; i < o->nsweep[e]; ++i) {
            const result *p = &res[e][i];
            if (!p->ok) continue;
            char st[96];
            fmt_stability(st, sizeof st, p);
            int c = pyr_fewest_as_stable(q[0], o->nsweep[0], &q[e][i]);
            if (c < 0) {
                out("| %s | %d | %.1f | %s | none of the sweep's | | |\n", k_sweep_engines[e], o->sweep_iters[e][i],
                    steps_per_cpu_s(p), st);
                continue;
            }
            out("| %s | %d | %.1f | %s | %d | %.1f | **%.2f** |\n", k_sweep_engines[e], o->sweep_iters[e][i],
                steps_per_cpu_s(p), st, o->sweep_iters[0][c], steps_per_cpu_s(&res[0][c]),
                steps_per_cpu_s(&res[0][c]) / steps_per_cpu_s(p));
        }

    out("\n**Each peer as stable as each carom setting**: the fewest iterations of the peer whose run is at "
        "least as stable as carom's (none: no setting of the sweep is).\n\n");
    out("| carom passes | steps/s (CPU) | overlap / drift / KE |");
    for (int e = 1; e < 3; ++e) out(" fewest %s iterations | %s steps/s | carom / %s |", k_sweep_engines[e],
                                    k_sweep_engines[e], k_sweep_engines[e]);
    out("\n|---:|---:|---|---:|---:|---:|---:|---:|---:|\n");
    for (int i = 0; i < o->nsweep[0]; ++i) {
        const result *c = &res[0][i];
        if (!c->ok) continue;
        char st[96];
        fmt_stability(st, sizeof st, c);
        out("| %d | %.1f | %s |", o->sweep_iters[0][i], steps_per_cpu_s(c), st);
        for (int e = 1; e < 3; ++e) {
            int k = pyr_fewest_as_stable(q[e], o->nsweep[e], &q[0][i]);
            if (k < 0)
                out(" none | | |");
            else
                out(" %d | %.1f | %.2f |", o->sweep_iters[e][k], steps_per_cpu_s(&res[e][k]),
                    steps_per_cpu_s(c) / steps_per_cpu_s(&res[e][k]));
        }
        out("\n");
    }
    char rule[600];
    snprintf(rule, sizeof rule,
             "rule: run A is at least as stable as run B when both ran all %d steps and A loses no more cubes, its "
             "deepest overlap (every step, measured from the bodies' positions and orientations by the same code "
             "for every engine: pyr_max_overlap) and its largest drift at the end are no larger, and its KE at the "
             "end is no larger or below %g J (at rest); \"fewest\" is the fewest iterations of the sweep that "
             "pass. The engines' own deepest contact is shown for reading.",
             PEER_STEPS, PYR_KE_AT_REST);
    add_note(rule);
    flush_notes();
}

/* ---- the LAMMPS chute ----------------------------------------------------- */

#define CHUTE_KE_EVERY 10
#define CHUTE_KE_ROWS (CHUTE_STEPS / CHUTE_KE_EVERY + 1)
/* carom against LAMMPS's thermo over the first 100 steps: the largest
 * relative difference of the translational (thermo "ke") and rotational
 * (compute erotate/sphere) kinetic energies allowed. Both integrate the same
 * equations term for term; what is left is rounding (LAMMPS prints 15
 * digits), which 100 steps of a dense flow do not amplify past this. */
#define CHUTE_KE_TOLERANCE 1e-8

typedef struct ke_series {
    int n;
    int step[CHUTE_KE_ROWS];
    double ke[CHUTE_KE_ROWS], rot[CHUTE_KE_ROWS];
} ke_series;

static void ke_add(ke_series *k, int step, double ke, double rot)
{
    if (k->n < CHUTE_KE_ROWS) k->step[k->n] = step, k->ke[k->n] = ke, k->rot[k->n] = rot, k->n++;
}

typedef struct lammps_run {
    int ok, procs, steps, atoms;
    double loop_seconds, ke, erot;
    ke_series thermo;
    char error[256];
} lammps_run;

/* Writes dir/in.chute into tmp/in.chute with "thermo EVERY" and 15-digit
 * thermo output; in.chute itself is never touched. 0 on success. */
static int write_thermo_input(const char *dir, const char *tmp, int every)
{
    char in[PATH_MAX + 32], outp[PATH_MAX + 32], line[1024];
    snprintf(in, sizeof in, "%s/in.chute", dir);
    snprintf(outp, sizeof outp, "%s/in.chute", tmp);
    FILE *f = fopen(in, "r"), *g = fopen(outp, "w");
    if (!f || !g) {
        if (f) fclose(f);
        if (g) fclose(g);
        return -1;
    }
    while (fgets(line, sizeof line, f)) {
        char word[64] = "";
        sscanf(line, "%63s", word);
        if (!strcmp(word, "thermo"))
            fprintf(g, "thermo %d\n", every);
        else if (!strcmp(word, "thermo_modify")) {
            line[strcspn(line, "\n")] = '\0';
            fprintf(g, "%s format float %%.15g\n", line);
        } else
            fputs(line, g);
    }
    fclose(f);
    return fclose(g) == 0 ? 0 : -1;
}

static void run_lammps(const char *dir, const char *launcher, int procs, int thermo_every, lammps_run *lr)
{
    char tmp[] = "/tmp/carom_chute_XXXXXX", cmd[2 * PATH_MAX + 256], data[PATH_MAX + 32], link[PATH_MAX + 32];
    char input[PATH_MAX + 32];
    memset(lr, 0, sizeof *lr);
    lr->procs = procs;
    if (!mkdtemp(tmp)) {
        snprintf(lr->error, sizeof lr->error, "mkdtemp: %s", strerror(errno));
        return;
    }
    /* in.chute reads data.chute from the working directory: run in a scratch
     * directory with a link to it, so that nothing is written next to it */
    snprintf(data, sizeof data, "%s/data.chute", dir);
    snprintf(link, sizeof link, "%s/data.chute", tmp);
    snprintf(input, sizeof input, "%s/in.chute", dir);
    if (symlink(data, link) != 0) {
        snprintf(lr->error, sizeof lr->error, "symlink: %s", strerror(errno));
        rmdir(tmp);
        return;
    }
    if (thermo_every > 0) {
        if (write_thermo_input(dir, tmp, thermo_every) != 0) {
            snprintf(lr->error, sizeof lr->error, "cannot write a thermo copy of in.chute in %s", tmp);
            unlink(link);
            rmdir(tmp);
            return;
        }
        snprintf(input, sizeof input, "%s/in.chute", tmp);
    }
    snprintf(cmd, sizeof cmd, "cd '%s' && %s lmp -in '%s' -log none 2>&1", tmp, launcher, input);
    FILE *p = popen(cmd, "r");
    char line[1024];
    int in_thermo = 0;
    while (p && fgets(line, sizeof line, p)) {
        double t;
        int pr, st, at;
        if (sscanf(line, "Loop time of %lf on %d procs for %d steps with %d atoms", &t, &pr, &st, &at) == 4) {
            lr->ok = 1, lr->loop_seconds = t, lr->procs = pr, lr->steps = st, lr->atoms = at;
            in_thermo = 0;
        } else if (strncmp(line, "Step ", 5) == 0 || strstr(line, " Step ") == line) {
            in_thermo = 1;
        } else if (in_thermo) {
            int step, atoms;
            double ke, erot, vol;
            if (sscanf(line, "%d %d %lf %lf %lf", &step, &atoms, &ke, &erot, &vol) == 5) {
                lr->ke = ke, lr->erot = erot;
                ke_add(&lr->thermo, step, ke, erot);
            }
        } else if (strstr(line, "ERROR") && !lr->error[0]) {
            snprintf(lr->error, sizeof lr->error, "%.200s", line);
            lr->error[strcspn(lr->error, "\n")] = '\0';
        }
    }
    int status = p ? pclose(p) : -1;
    if (status != 0 && !lr->error[0]) snprintf(lr->error, sizeof lr->error, "lmp exited with status %d", status);
    if (status != 0) lr->ok = 0;
    if (thermo_every > 0) unlink(input);
    unlink(link);
    rmdir(tmp);
}

/* peer_carom chute DATA STEPS CAP KE_EVERY THREADS: its RESULT line into r,
 * its KE lines into ke (may be NULL). */
static void run_carom_chute(const options *o, int ke_every, int threads, result *r, ke_series *ke)
{
    char cmd[2 * PATH_MAX + 128], line[1024];
    memset(r, 0, sizeof *r);
    if (ke) memset(ke, 0, sizeof *ke);
    snprintf(cmd, sizeof cmd, "'%s/peer_carom' chute '%s/data.chute' %d %g %d %d 2>&1", g_bindir, o->chute_dir,
             CHUTE_STEPS, o->cap, ke_every, threads);
    FILE *p = popen(cmd, "r");
    while (p && fgets(line, sizeof line, p)) {
        line[strcspn(line, "\n")] = '\0';
        int step;
        double k, rot;
        if (sscanf(line, "KE step=%d trans=%lf rot=%lf", &step, &k, &rot) == 3) {
            if (ke) ke_add(ke, step, k, rot);
        } else
            parse_line(line, r);
    }
    int status = p ? pclose(p) : -1;
    if (status != 0 && r->ok) r->ok = 0;
    if (status != 0 && !r->reason[0]) snprintf(r->reason, sizeof r->reason, "peer_carom exited with status %d", status);
}

static double rel_diff(double a, double b) { return fabs(a - b) / fmax(fabs(b), 1e-300); }

/* The energy check: carom's and LAMMPS's kinetic energies at the same steps.
 * Returns 1 when it passes, 0 when it fails, -1 when it could not be made. */
static int chute_energy_check(const options *o, int want_lammps)
{
    out("\n**Energy check** (carom against LAMMPS, the first %d steps, every %d): ", CHUTE_STEPS, CHUTE_KE_EVERY);
    if (!want_lammps) {
        out("not made (no LAMMPS).\n");
        return -1;
    }
    fprintf(stderr, "[bench_peers] chute: energy check, lammps thermo every %d steps ...\n", CHUTE_KE_EVERY);
    lammps_run lr;
    run_lammps(o->chute_dir, "", 1, CHUTE_KE_EVERY, &lr);
    fprintf(stderr, "[bench_peers] chute: energy check, carom ...\n");
    result r;
    ke_series ck;
    run_carom_chute(o, CHUTE_KE_EVERY, 1, &r, &ck);
    if (!lr.ok || !r.ok) {
        out("not made (%s).\n", !lr.ok ? lr.error : r.reason);
        return -1;
    }
    /* carom with more threads: the same energies to the bit */
    char same[128] = "";
    if (o->carom_threads > 1) {
        result r2;
        ke_series k2;
        fprintf(stderr, "[bench_peers] chute: energy check, carom %d threads ...\n", o->carom_threads);
        run_carom_chute(o, CHUTE_KE_EVERY, o->carom_threads, &r2, &k2);
        int equal = r2.ok && k2.n == ck.n;
        for (int j = 0; equal && j < ck.n; ++j)
            equal = k2.step[j] == ck.step[j] && k2.ke[j] == ck.ke[j] && k2.rot[j] == ck.rot[j];
        snprintf(same, sizeof same, " carom at %d threads: %s.", o->carom_threads,
                 equal ? "the same energies, bit for bit" : "DIFFERENT energies from 1 thread");
    }
    double worst_ke = 0.0, worst_rot = 0.0;
    int worst_ke_step = 0, worst_rot_step = 0, compared = 0;
    for (int i = 0; i < lr.thermo.n; ++i)
        for (int j = 0; j < ck.n; ++j)
            if (ck.step[j] == lr.thermo.step[i]) {
                double dk = rel_diff(ck.ke[j], lr.thermo.ke[i]), dr = rel_diff(ck.rot[j], lr.thermo.rot[i]);
                if (dk >= worst_ke) worst_ke = dk, worst_ke_step = ck.step[j];
                if (dr >= worst_rot) worst_rot = dr, worst_rot_step = ck.step[j];
                ++compared;
            }
    int pass = compared == CHUTE_KE_ROWS && worst_ke <= CHUTE_KE_TOLERANCE && worst_rot <= CHUTE_KE_TOLERANCE;
    out("%s. %d steps compared; largest relative difference, translational KE (thermo `ke`) %.2g (step %d), "
        "rotational KE (`compute erotate/sphere`) %.2g (step %d); tolerance %.0e.\n\n",
        pass ? "PASS" : "FAIL", compared, worst_ke, worst_ke_step, worst_rot, worst_rot_step, CHUTE_KE_TOLERANCE);
    if (same[0]) out("%s\n\n", same + 1);
    out("| step | LAMMPS ke | carom ke | LAMMPS c_1 (rot) | carom rot |\n|---:|---:|---:|---:|---:|\n");
    for (int i = 0; i < lr.thermo.n; ++i)
        for (int j = 0; j < ck.n; ++j)
            if (ck.step[j] == lr.thermo.step[i])
                out("| %d | %.15g | %.15g | %.15g | %.15g |\n", ck.step[j], lr.thermo.ke[i], ck.ke[j], lr.thermo.rot[i],
                    ck.rot[j]);
    return pass;
}

static void chute_table(const options *o, int cores)
{
    char in[PATH_MAX + 32], have[256];
    out("\n### LAMMPS chute, 32,000 spheres (`gran/hooke/history`)\n\n");
    snprintf(in, sizeof in, "%s/in.chute", o->chute_dir);
    if (access(in, R_OK) != 0) {
        out("Skipped: %s not found (give the directory with --chute).\n", in);
        return;
    }
    int want_lammps = has_word(o->engines, "lammps");
    int want_carom = has_word(o->engines, "carom");
    first_line_of("command -v lmp", have, sizeof have);
    if (want_lammps && !have[0]) {
        out("Skipped: `lmp` not found (scripts/setup-peers.sh installs Debian's lammps).\n");
        want_lammps = 0;
    }
    first_line_of("command -v mpirun", have, sizeof have);
    int mpirun = have[0] != '\0';
    const char *root = geteuid() == 0 ? " --allow-run-as-root" : "";
    char load[32];
    load_now(load, sizeof load);
    out("`lmp -in %s/in.chute` (100 steps of dt = 1e-4 from a developed flow) and `peer_carom chute` (the same "
        "data file, law, gravity, step and periodic box; carom method dem), best of %d runs per engine and core "
        "count; LAMMPS's steps/s from its own \"Loop time\" line, carom's from the time inside `cr_world_step` (its set-up, the first list and forces, in `cr_world_prepare` "
        "before the steps, as LAMMPS's set-up is outside its loop time); "
        "load average %s.\n\n",
        o->chute_dir, o->lammps_repeats, load);
    out("| engine | procs | steps/s | atom-steps/s | carom / engine | KE at end (trans + rot) | atoms at end | "
        "command |\n");
    out("|---|---:|---:|---:|---:|---:|---:|---|\n");
    enum { MAX_THREADS = 8 };
    result best_carom[MAX_THREADS + 1];
    double carom_sps[MAX_THREADS + 1];
    memset(best_carom, 0, sizeof best_carom);
    memset(carom_sps, 0, sizeof carom_sps);
    for (int th = 1; want_carom && th <= o->carom_threads && th <= MAX_THREADS; ++th) {
        char carom_err[sizeof best_carom[0].reason] = "no run";
        result *best = &best_carom[th];
        for (int rep = 0; rep < o->lammps_repeats; ++rep) {
            result r;
            fprintf(stderr, "[bench_peers] chute: carom %d threads, run %d ...\n", th, rep + 1);
            run_carom_chute(o, 0, th, &r, NULL);
            if (!r.ok) {
                snprintf(carom_err, sizeof carom_err, "%s", r.reason);
                continue;
            }
            if (!best->ok || r.step_seconds < best->step_seconds) *best = r;
        }
        carom_sps[th] = best->ok && best->step_seconds > 0 ? best->steps / best->step_seconds : 0.0;
        if (th > cores) add_note("carom: more threads than cores: oversubscribed");
        if (best->ok)
            out("| carom | %d thread%s | %.1f | %.3g M | 1 | %.6g | %d | `peer_carom chute data.chute %d %g 0 %d` |\n",
                th, th > 1 ? "s" : "", carom_sps[th], carom_sps[th] * best->bodies / 1e6, best->ke,
                best->bodies - best->lost, CHUTE_STEPS, o->cap, th);
        else
            out("| carom | %d thread%s | failed: %s | | | | | |\n", th, th > 1 ? "s" : "", carom_err);
    }
    for (int k = 0; want_lammps && k < 2; ++k) {
        int procs = k + 1;
        char launcher[128];
        if (mpirun)
            snprintf(launcher, sizeof launcher, "mpirun%s -np %d", root, procs);
        else if (procs == 1)
            snprintf(launcher, sizeof launcher, "%s", "");
        else {
            out("| lammps | %d | skipped: no mpirun (Debian's lmp is an MPI build; its OPENMP package is not "
                "built in) | | | | | |\n",
                procs);
            continue;
        }
        if (procs > cores) add_note("lammps: more MPI ranks than cores: oversubscribed");
        lammps_run best = {0};
        char err[256] = "";
        for (int rep = 0; rep < o->lammps_repeats; ++rep) {
            lammps_run lr;
            fprintf(stderr, "[bench_peers] chute: lammps %d procs, run %d ...\n", procs, rep + 1);
            run_lammps(o->chute_dir, launcher, procs, 0, &lr);
            if (!lr.ok) {
                snprintf(err, sizeof err, "%s", lr.error);
                continue;
            }
            if (!best.ok || lr.loop_seconds < best.loop_seconds) best = lr;
        }
        if (!best.ok) {
            out("| lammps | %d | failed: %s | | | | | |\n", procs, err);
            continue;
        }
        double sps = best.steps / best.loop_seconds;
        char ratio[48] = "n/a";
        if (procs <= MAX_THREADS && carom_sps[procs] > 0)
            snprintf(ratio, sizeof ratio, "%.2f (carom %d thread%s)", carom_sps[procs] / sps, procs, procs > 1 ? "s" : "");
        out("| lammps | %d | %.1f | %.3g M | %s | %.6g + %.6g | %d | `%s%slmp -in in.chute` |\n", best.procs, sps,
            sps * best.atoms / 1e6, ratio, best.ke, best.erot, best.atoms, launcher, launcher[0] ? " " : "");
    }
    if (best_carom[1].ok)
        out("\n**carom quality** (1 thread): deepest overlap %.4g (%.2f%% of the diameter; pairs inside the box, not "
            "across its periodic sides), %d atoms lost (non-finite or below the base), %.0f contacts per step, KE at "
            "end %.9g (trans + rot).\n",
            best_carom[1].max_pen, 100.0 * best_carom[1].max_pen, best_carom[1].lost, best_carom[1].contacts,
            best_carom[1].ke);
    if (want_carom) chute_energy_check(o, want_lammps);
    add_note("carom: method dem (LAMMPS's gran/hooke/history and fix nve/sphere, a Verlet list with LAMMPS's skin "
             "0.1, rebuilt when a pair left out could touch: LAMMPS's check or a lazier exact one, docs/physics.md "
             "DEM), on 1 thread and on carom's own thread pool (cr_world_def.worker_count); compare carom at T threads "
             "with LAMMPS at T ranks (the ratio column). carom's set-up (list build and forces of the start) runs in "
             "cr_world_prepare before its timer, as LAMMPS's is outside its Loop time; the chute runs without "
             "orientations (integrate_orientation false: atom_style sphere keeps none).");
    if (want_lammps)
        add_note("lammps: Debian's lmp is built with OpenMPI and without the OPENMP package; 2 procs are 2 MPI ranks. "
                 "LAMMPS reports no overlap figure for this input; \"atoms at end\" = 32000 means none lost.");
    flush_notes();
}

/* ---- main ----------------------------------------------------------------- */

int main(int argc, char **argv)
{
    options o = {{1000, 8000, 27000, 125000}, 4, {20, 50}, 2, 30.0, -1.0, "carom,ode,bullet,mujoco,lammps",
                 "pit,pyramid,chute", "../shared/bench/chute", NULL, NULL, 1, 3, 2, 10, 4, 0,
                 {{3, 4, 5, 6, 8, 10, 12, 15, 20, 30, 50}, {10, 20, 40, 80, 160}, {5, 10, 20, 40, 80}}, {11, 5, 5},
                 1, 0, 10};
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout, argv[0]);
            return 0;
        } else if (!strcmp(a, "--no-stream")) {
            o.stream = 0;
        } else if (!strcmp(a, "--pyramid-sweep")) {
            o.sweep = 1;
        } else if (!v) {
            usage(stderr, argv[0]);
            return 2;
        } else if (!strcmp(a, "--sizes")) {
            if ((o.nsizes = parse_list(v, o.sizes, MAX_LIST)) < 0) return usage(stderr, argv[0]), 2;
            ++i;
        } else if (!strcmp(a, "--rows")) {
            if ((o.nrows = parse_list(v, o.rows, MAX_LIST)) < 0) return usage(stderr, argv[0]), 2;
            ++i;
        } else if (!strcmp(a, "--cap")) {
            o.cap = atof(v), ++i;
        } else if (!strcmp(a, "--timeout")) {
            o.timeout = atof(v), ++i;
        } else if (!strcmp(a, "--engines")) {
            snprintf(o.engines, sizeof o.engines, "%s", v), ++i;
        } else if (!strcmp(a, "--scenes")) {
            snprintf(o.scenes, sizeof o.scenes, "%s", v), ++i;
        } else if (!strcmp(a, "--chute")) {
            o.chute_dir = v, ++i;
        } else if (!strcmp(a, "--results")) {
            o.results_dir = v, ++i;
        } else if (!strcmp(a, "--commit")) {
            o.commit = v, ++i;
        } else if (!strcmp(a, "--lammps-repeats")) {
            o.lammps_repeats = atoi(v) < 1 ? 1 : atoi(v), ++i;
        } else if (!strcmp(a, "--carom-pgs")) {
            if (!bench_int(argv[0], "--carom-pgs", v, 0, 100000, &o.carom_pgs)) return 2;
            ++i;
        } else if (!strcmp(a, "--pit-substeps")) {
            if (!bench_int(argv[0], "--pit-substeps", v, 0, 64, &o.pit_substeps)) return 2;
            ++i;
        } else if (!strcmp(a, "--carom-substeps")) {
            if (!bench_int(argv[0], "--carom-substeps", v, 0, 64, &o.carom_substeps)) return 2;
            ++i;
        } else if (!strcmp(a, "--sweep-carom") || !strcmp(a, "--sweep-ode") || !strcmp(a, "--sweep-bullet")) {
            int e = !strcmp(a, "--sweep-carom") ? 0 : !strcmp(a, "--sweep-ode") ? 1 : 2;
            if ((o.nsweep[e] = parse_iterations(k_sweep_option[e], v, o.sweep_iters[e])) < 0) return 2;
            ++i;
        } else if (!strcmp(a, "--sweep-substeps")) {
            if (!bench_int(argv[0], "--sweep-substeps", v, 0, 64, &o.sweep_substeps)) return 2;
            ++i;
        } else if (!strcmp(a, "--sweep-repeats")) {
            if (!bench_int(argv[0], "--sweep-repeats", v, 1, 100, &o.sweep_repeats)) return 2;
            ++i;
        } else if (!strcmp(a, "--threads") && v) {
            o.carom_threads = atoi(v) < 1 ? 1 : atoi(v) > 8 ? 8 : atoi(v), ++i;
        } else {
            fprintf(stderr, "%s: unknown option %s\n", argv[0], a);
            usage(stderr, argv[0]);
            return 2;
        }
    }
    if (o.cap <= 0) {
        fprintf(stderr, "%s: --cap must be > 0\n", argv[0]);
        return 2;
    }
    if (o.timeout <= 0) o.timeout = 4.0 * o.cap + 300.0;

    /* the engine programs live next to this one */
    ssize_t k = readlink("/proc/self/exe", g_bindir, sizeof g_bindir - 1);
    if (k <= 0) {
        fprintf(stderr, "%s: cannot find its own directory\n", argv[0]);
        return 1;
    }
    g_bindir[k] = '\0';
    char *slash = strrchr(g_bindir, '/');
    if (slash) *slash = '\0';

    /* the chute directory is handed to lmp from a scratch directory: make it absolute */
    static char chute_abs[PATH_MAX];
    if (realpath(o.chute_dir, chute_abs)) o.chute_dir = chute_abs;

    char cpu[256], date[64], stamp[64], commit[128], dirty[16], loadavg[128];
    cpu_model(cpu, sizeof cpu);
    int cores = (int)sysconf(_SC_NPROCESSORS_ONLN);
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", &tm);
    strftime(stamp, sizeof stamp, "%Y-%m-%d-%H%M", &tm);
    if (o.commit) {
        snprintf(commit, sizeof commit, "%s", o.commit);
        dirty[0] = '\0';
    } else {
        first_line_of("git rev-parse --short HEAD 2>/dev/null", commit, sizeof commit);
        first_line_of("git status --porcelain -- src include 2>/dev/null | head -1", dirty, sizeof dirty);
    }
    first_line_of("cat /proc/loadavg 2>/dev/null", loadavg, sizeof loadavg);

    if (o.results_dir) {
        char slug[64] = "";
        size_t j = 0;
        for (const char *c = cpu; *c && j + 1 < sizeof slug; ++c) {
            if (isalnum((unsigned char)*c))
                slug[j++] = (char)tolower((unsigned char)*c);
            else if (j && slug[j - 1] != '-')
                slug[j++] = '-';
        }
        while (j && slug[j - 1] == '-') --j;
        slug[j] = '\0';
        char path[PATH_MAX];
        mkdir(o.results_dir, 0777);
        /* "wx" (C11: fails if the file exists): a second run in the same
         * minute gets -2, -3, ... instead of replacing the first's report */
        snprintf(path, sizeof path, "%s/%s-%s-%dc.md", o.results_dir, stamp, slug, cores);
        g_results = fopen(path, "wx");
        for (int k = 2; !g_results && errno == EEXIST && k < 100; ++k) {
            snprintf(path, sizeof path, "%s/%s-%s-%dc-%d.md", o.results_dir, stamp, slug, cores, k);
            g_results = fopen(path, "wx");
        }
        if (!g_results) {
            fprintf(stderr, "%s: cannot write %s: %s\n", argv[0], path, strerror(errno));
            return 1;
        }
        fprintf(stderr, "[bench_peers] writing %s\n", path);
    }

    out("# carom side-by-side benchmark\n\n");
    out("- date: %s\n", date);
    out("- CPU: %s (/proc/cpuinfo), %d cores online\n", cpu, cores);
    out("- load average at start: %s\n", loadavg);
    out("- carom commit: %s%s\n", commit[0] ? commit : "unknown",
        dirty[0] ? " (src/ or include/ modified in the working tree)" : "");
    out("- command: `");
    for (int i = 0; i < argc; ++i) out("%s%s", i ? " " : "", argv[i]);
    out("`\n");
    out("- single-threaded engines: carom, ODE, Bullet and MuJoCo each step on one core here; LAMMPS at 1 and 2 "
        "MPI ranks\n");

    if (o.stream) {
        out("\n### Memory bandwidth (STREAM-like, best of 10 passes over 3 arrays of 128 MiB)\n\n");
        out("| threads | copy (GB/s) | triad (GB/s) |\n|---:|---:|---:|\n");
        int tl[2] = {1, cores};
        for (int i = 0; i < (cores > 1 ? 2 : 1); ++i) {
            stream_result sr;
            fprintf(stderr, "[bench_peers] stream, %d threads ...\n", tl[i]);
            if (stream_measure(tl[i], (size_t)1 << 24, 10, &sr) == 0)
                out("| %d | %.1f | %.1f |\n", sr.threads, sr.copy_gbs, sr.triad_gbs);
            else
                out("| %d | failed | |\n", tl[i]);
        }
    }
    if (has_word(o.scenes, "pit"))
        for (int i = 0; i < o.nsizes; ++i) pit_table(o.sizes[i], &o);
    if (has_word(o.scenes, "pyramid"))
        for (int i = 0; i < o.nrows; ++i) {
            if (o.sweep)
                pyramid_sweep(o.rows[i], &o);
            else
                pyramid_table(o.rows[i], &o);
        }
    if (has_word(o.scenes, "chute")) chute_table(&o, cores);
    if (g_results) fclose(g_results);
    return 0;
}
