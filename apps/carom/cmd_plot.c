/* carom plot — energy and momentum of a run over time, through gnuplot.
 *
 * Reads RUN_DIR/energy.csv (checked row by row: bad input is exit 2 with
 * the file and line), writes a gnuplot script to gnuplot's standard input,
 * and lets it draw a PNG (pngcairo) or SVG into a temporary next to the
 * output, renamed over it only when gnuplot succeeded. Exit statuses: 0
 * written; 1 gnuplot missing or failed, or the file could not be written;
 * 2 bad usage or a bad energy.csv.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli_args.h"
#include "commands.h"
#include "run_files.h"

extern char **environ;

static const char plot_help[] =
    "usage: carom plot RUN_DIR [--out FILE.png|FILE.svg] [--size WxH]\n"
    "\n"
    "Plots RUN_DIR/energy.csv (written by carom run): kinetic, potential and\n"
    "total energy over time above, the three components of the momentum below.\n"
    "\n"
    "options:\n"
    "  -o, --out FILE   a .png or .svg file (default: RUN_DIR/energy.png)\n"
    "  --size WxH       image size in pixels (default 1000x700)\n"
    "  -q, --quiet      no summary line\n"
    "  -h, --help       this text\n"
    "\n"
    "Needs gnuplot (Debian: gnuplot-nox). exit status: 0 ok, 1 gnuplot or output\n"
    "failure, 2 bad usage or a bad energy.csv. See docs/viewer.md.\n";

typedef struct plot_args {
    const char *run_dir, *out;
    int width, height;
    bool quiet;
} plot_args;

static int parse(int argc, char **argv, plot_args *a)
{
    memset(a, 0, sizeof *a);
    a->width = 1000;
    a->height = 700;
    char err[512] = "";
    bool missing, options_done = false;
    for (int i = 1; i < argc && !err[0]; ++i) {
        const char *s = argv[i], *v;
        int common = arg_common(s, &options_done, &a->run_dir, "run directory", plot_help, err, sizeof err);
        if (common == 2) return 1;
        if (common == 1) continue;
        if (strcmp(s, "-q") == 0 || strcmp(s, "--quiet") == 0) a->quiet = true;
        else if ((v = arg_value(argc, argv, &i, "--out", "-o", &missing))) {
            if (missing) snprintf(err, sizeof err, "--out needs a file name");
            else a->out = v;
        } else if ((v = arg_value(argc, argv, &i, "--size", NULL, &missing))) {
            if (missing) snprintf(err, sizeof err, "--size needs WIDTHxHEIGHT");
            else arg_size("--size", v, &a->width, &a->height, err, sizeof err);
        } else
            snprintf(err, sizeof err, "unknown option '%s'", s);
    }
    if (!err[0] && a->run_dir == NULL) snprintf(err, sizeof err, "RUN_DIR is required (a directory carom run wrote)");
    if (!err[0] && a->out && !arg_has_suffix(a->out, ".png") && !arg_has_suffix(a->out, ".svg"))
        snprintf(err, sizeof err, "--out: the name must end in .png or .svg, got '%s'", a->out);
    if (!err[0]) arg_run_dir(a->run_dir, err, sizeof err);
    /* The output's directory must exist: find out before gnuplot runs. */
    if (!err[0] && a->out) arg_out_dir("--out", a->out, err, sizeof err);
    if (err[0]) {
        fprintf(stderr, "carom plot: %s\n\n%s", err, plot_help);
        return 2;
    }
    return 0;
}

/* A gnuplot single-quoted string: a quote is written twice. */
static void quoted(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; ++s) {
        if (*s == '\'') fputc('\'', f);
        fputc(*s, f);
    }
    fputc('\'', f);
}

static void write_script(FILE *f, const plot_args *a, const char *data, const char *output, bool svg, uint64_t samples)
{
    if (svg) fprintf(f, "set terminal svg size %d,%d dynamic enhanced font 'sans,11' background rgb 'white'\n", a->width, a->height);
    else fprintf(f, "set terminal pngcairo size %d,%d enhanced font 'sans,10' background rgb 'white'\n", a->width, a->height);
    fputs("set output ", f);
    quoted(f, output);
    fputs("\nset datafile separator ','\n"
          "set grid lc rgb '#dddddd'\n"
          "set key top right opaque box\n"
          "set xlabel 't (s)'\n",
          f);
    /* One sample is a point, not a line. */
    const char *style = samples > 1 ? "lines" : "points pt 7";
    char title[64];
    snprintf(title, sizeof title, " (%llu samples)", (unsigned long long)samples);
    fputs("set multiplot layout 2,1 title 'carom run ' . ", f);
    quoted(f, a->run_dir);
    fputs(" . ", f);
    quoted(f, title);
    fputs(" noenhanced\n", f);
    fputs("set ylabel 'energy (J)'\nplot ", f);
    quoted(f, data);
    fprintf(f, " skip 1 using 1:2 with %s lw 1.5 lc rgb '#d62728' title 'kinetic', \\\n"
               "     '' skip 1 using 1:3 with %s lw 1.5 lc rgb '#1f77b4' title 'potential', \\\n"
               "     '' skip 1 using 1:4 with %s lw 2.5 lc rgb '#222222' title 'total'\n",
            style, style, style);
    fputs("set ylabel 'momentum (kg m/s)'\nplot ", f);
    quoted(f, data);
    fprintf(f, " skip 1 using 1:5 with %s lw 1.5 lc rgb '#2ca02c' title 'p_x', \\\n"
               "     '' skip 1 using 1:6 with %s lw 1.5 lc rgb '#9467bd' title 'p_y', \\\n"
               "     '' skip 1 using 1:7 with %s lw 1.5 lc rgb '#ff7f0e' title 'p_z'\n"
               "unset multiplot\n",
            style, style, style);
}

/* Runs gnuplot with script on its standard input; its messages go to a
 * temporary file, shown only when it fails. 0, or -1 with a message. */
static int run_gnuplot(const char *script, size_t script_len, char *err, size_t err_size)
{
    int in[2];
    if (pipe(in) != 0) {
        snprintf(err, err_size, "cannot start gnuplot: %s", strerror(errno));
        return -1;
    }
    FILE *log = tmpfile();
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_addclose(&fa, in[1]);
    if (log) {
        posix_spawn_file_actions_adddup2(&fa, fileno(log), 1);
        posix_spawn_file_actions_adddup2(&fa, fileno(log), 2);
    }
    char *args[] = {"gnuplot", NULL};
    pid_t pid;
    int e = posix_spawnp(&pid, "gnuplot", &fa, NULL, args, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(in[0]);
    if (e != 0) {
        close(in[1]);
        if (log) fclose(log);
        snprintf(err, err_size, "cannot run gnuplot: %s (install gnuplot-nox; scripts/setup.sh does)", strerror(e));
        return -1;
    }
    /* A gnuplot that dies early must not kill us with SIGPIPE. */
    struct sigaction ignore = {.sa_handler = SIG_IGN}, old;
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGPIPE, &ignore, &old);
    size_t off = 0;
    while (off < script_len) {
        ssize_t n = write(in[1], script + off, script_len - off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        off += (size_t)n;
    }
    close(in[1]);
    sigaction(SIGPIPE, &old, NULL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    int rc = 0;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        char msg[400] = "";
        if (log) {
            rewind(log);
            size_t n = fread(msg, 1, sizeof msg - 1, log);
            msg[n] = '\0';
            for (size_t i = 0; i < n; ++i)
                if (msg[i] == '\n' || msg[i] == '\t') msg[i] = ' ';
        }
        if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
            snprintf(err, err_size, "cannot run gnuplot (install gnuplot-nox; scripts/setup.sh does)");
        else
            snprintf(err, err_size, "gnuplot failed (%s %d): %s", WIFEXITED(status) ? "exit status" : "signal",
                     WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), msg);
        rc = -1;
    }
    if (log) fclose(log);
    return rc;
}

static mode_t current_umask(void)
{
    mode_t mask = umask(0);
    umask(mask);
    return mask;
}

int cmd_plot(int argc, char **argv)
{
    plot_args a;
    int rc = parse(argc, argv, &a);
    if (rc) return rc == 1 ? 0 : 2;
    char err[1024];
    size_t n = strlen(a.run_dir) + 32;
    char *data = malloc(n), *default_out = malloc(n);
    if (data == NULL || default_out == NULL) {
        free(data);
        free(default_out);
        fprintf(stderr, "carom plot: out of memory\n");
        return 1;
    }
    snprintf(data, n, "%s/energy.csv", a.run_dir);
    snprintf(default_out, n, "%s/energy.png", a.run_dir);
    const char *out = a.out ? a.out : default_out;
    energy_table e;
    if (energy_read(data, &e, err, sizeof err)) {
        fprintf(stderr, "carom plot: %s\n", err);
        free(data);
        free(default_out);
        return 2;
    }
    /* gnuplot draws into a temporary next to the result. */
    size_t m = strlen(out) + 16;
    char *tmp = malloc(m);
    int fd = -1;
    if (tmp) {
        snprintf(tmp, m, "%s.XXXXXX", out);
        fd = mkstemp(tmp);
    }
    if (fd < 0) {
        fprintf(stderr, "carom plot: cannot create '%s': %s\n", out, strerror(errno ? errno : ENOMEM));
        rc = 1;
    } else {
        close(fd);
        char *script = NULL;
        size_t script_len = 0;
        FILE *sf = open_memstream(&script, &script_len);
        if (sf) {
            write_script(sf, &a, data, tmp, arg_has_suffix(out, ".svg"), e.samples);
            fclose(sf);
        }
        struct stat st;
        if (script == NULL) {
            snprintf(err, sizeof err, "out of memory");
            rc = 1;
        } else if (run_gnuplot(script, script_len, err, sizeof err) != 0)
            rc = 1;
        else if (stat(tmp, &st) != 0 || st.st_size == 0) {
            snprintf(err, sizeof err, "gnuplot wrote nothing to '%s'", out);
            rc = 1;
        } else if (chmod(tmp, 0666 & ~current_umask()) != 0 || rename(tmp, out) != 0) {
            snprintf(err, sizeof err, "cannot rename to '%s': %s", out, strerror(errno));
            rc = 1;
        }
        free(script);
        if (rc) {
            unlink(tmp);
            fprintf(stderr, "carom plot: %s\n", err);
        } else if (!a.quiet)
            printf("carom: %llu samples of %s plotted to %s\n", (unsigned long long)e.samples, data, out);
    }
    free(tmp);
    energy_free(&e);
    free(data);
    free(default_out);
    return rc;
}
