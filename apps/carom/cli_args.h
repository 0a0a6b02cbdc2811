/* carom CLI — parsing option values, with messages that name the option
 * and the text given: "--time: expected a number >= 0, got 'abc'". */
#ifndef CAROM_CLI_ARGS_H
#define CAROM_CLI_ARGS_H

#include <stdbool.h>
#include <stddef.h>

/* Each returns 0, or -1 with the message in err. */
/* A finite number in [lo, hi]. */
int arg_number(const char *option, const char *text, double lo, double hi, double *out, char *err, size_t err_size);
/* An integer in [lo, hi]. */
int arg_integer(const char *option, const char *text, long lo, long hi, long *out, char *err, size_t err_size);
/* n finite numbers separated by commas: "1,2,3". */
int arg_numbers(const char *option, const char *text, int n, double *out, char *err, size_t err_size);
/* An image size "WIDTHxHEIGHT", each in [16, 16384]. */
int arg_size(const char *option, const char *text, int *width, int *height, char *err, size_t err_size);
/* true when path ends with suffix, ignoring case (".png"). */
bool arg_has_suffix(const char *path, const char *suffix);
/* The directory an output file goes in (path up to its last '/'; none: the
 * current one) exists: checked before the work, not after it. */
int arg_out_dir(const char *option, const char *path, char *err, size_t err_size);
/* RUN_DIR, a directory carom run wrote, is a directory. */
int arg_run_dir(const char *run_dir, char *err, size_t err_size);

/* The arguments every command's option loop starts with: the one
 * positional argument (when s is not an option, or after "--"; what names
 * it in the message when there are two), "--", and -h / --help (help
 * printed on stdout). 0: s is none of these (the command's own options);
 * 1: taken; 2: help printed. */
int arg_common(const char *s, bool *options_done, const char **positional, const char *what, const char *help,
               char *err, size_t err_size);

/* An option's value: "--opt VALUE" (advancing *i) or "--opt=VALUE". NULL
 * when argv[*i] is not this option; *missing set when it is but has no
 * value. */
const char *arg_value(int argc, char **argv, int *i, const char *long_name, const char *short_name, bool *missing);

#endif
