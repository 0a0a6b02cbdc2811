/* carom CLI entry point: dispatches to one subcommand. */
#include <stdio.h>
#include <string.h>

#include "carom/carom.h"
#include "commands.h"

typedef struct command {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *summary;
} command;

static const command commands[] = {
    {"run", cmd_run, "run a scene (default: the embedded scene) and write trajectory.csv, energy.csv"},
    {"validate", cmd_validate, "check a scene file and report the first error with its JSON path"},
    {"collide", cmd_collide, "one exact frictional collision (seed 002), JSON in, JSON out"},
    {"view", cmd_view, "a window onto a running scene: orbit, pause, step, drag and drop balls"},
    {"render", cmd_render, "a scene at time T drawn to a PNG, without a display"},
    {"plot", cmd_plot, "energy and momentum of a run over time, as PNG or SVG (gnuplot)"},
    {"export-web", cmd_export_web, "a recorded run as one HTML page that replays it in a browser"},
};

static void usage(FILE *f)
{
    fprintf(f, "carom %s — collision and contact physics\n\nusage: carom COMMAND [ARGS]\n\ncommands:\n",
            CAROM_VERSION_STRING);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; ++i)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\n'carom COMMAND --help' describes one command.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("carom %s\n", CAROM_VERSION_STRING);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; ++i)
        if (strcmp(argv[1], commands[i].name) == 0) return commands[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "carom: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return 2;
}
