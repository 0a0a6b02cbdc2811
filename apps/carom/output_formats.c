/* carom CLI — --format parsing and the writers' shared file helpers. */
#define _XOPEN_SOURCE 700

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output_formats.h"

int output_parse_formats(const char *list, unsigned *formats, char *err, size_t err_size)
{
    unsigned f = OUTPUT_CSV;
    const char *p = list;
    if (*p == '\0') {
        snprintf(err, err_size, "--format: expected csv, vtk, xyz or a comma-separated list, got ''");
        return -1;
    }
    while (*p) {
        size_t n = strcspn(p, ",");
        if (n == 3 && strncmp(p, "csv", 3) == 0) f |= OUTPUT_CSV;
        else if (n == 3 && strncmp(p, "vtk", 3) == 0) f |= OUTPUT_VTK;
        else if (n == 3 && strncmp(p, "xyz", 3) == 0) f |= OUTPUT_XYZ;
        else {
            snprintf(err, err_size, "--format: unknown format '%.*s' in '%s' (known: csv, vtk, xyz)", (int)n, p, list);
            return -1;
        }
        p += n;
        if (*p == ',') {
            ++p;
            if (*p == '\0') {
                snprintf(err, err_size, "--format: '%s' ends with a comma", list);
                return -1;
            }
        }
    }
    *formats = f;
    return 0;
}

char *output_join(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *s = malloc(n);
    if (s) snprintf(s, n, "%s/%s", dir, name);
    return s;
}

FILE *output_temp_file(const char *dir, const char *name, char **tmp_path)
{
    size_t n = strlen(dir) + strlen(name) + 16;
    char *path = malloc(n);
    if (path == NULL) return NULL;
    snprintf(path, n, "%s/.%s.XXXXXX", dir, name);
    int fd = mkstemp(path);
    if (fd < 0) {
        free(path);
        return NULL;
    }
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    FILE *f = fdopen(fd, "w");
    if (f == NULL) {
        close(fd);
        unlink(path);
        free(path);
        return NULL;
    }
    setvbuf(f, NULL, _IOFBF, 1 << 20);
    *tmp_path = path;
    return f;
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)type;
    (void)ftw;
    remove(path);
    return 0;
}

void output_remove_tree(const char *path)
{
    /* Depth first, without following links: only what is inside goes. */
    nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}
