/* carom CLI — reading run output back (see run_files.h). */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run_files.h"

#define ENERGY_HEADER "t,kinetic,potential,total,px,py,pz"
#define TRAJECTORY_HEADER "t,id,x,y,z,vx,vy,vz,wx,wy,wz,qw,qx,qy,qz"

/* Parses exactly n comma-separated finite numbers; 0 or -1. */
static int parse_row(char *line, int n, double *out)
{
    char *p = line;
    for (int k = 0; k < n; ++k) {
        char *end;
        double v = strtod(p, &end);
        if (end == p || !isfinite(v)) return -1;
        if (k + 1 < n ? *end != ',' : (*end != '\0' && *end != '\n' && *end != '\r')) return -1;
        out[k] = v;
        p = end + 1;
    }
    return 0;
}

static void chomp(char *s)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\n' || s[n - 1] == '\r')) s[--n] = '\0';
}

static int grow(void **p, uint64_t *cap, uint64_t need, size_t size)
{
    if (need <= *cap) return 0;
    uint64_t c = *cap ? *cap * 2 : 1024;
    while (c < need) c *= 2;
    void *q = realloc(*p, (size_t)c * size);
    if (q == NULL) return -1;
    *p = q;
    *cap = c;
    return 0;
}

static FILE *open_with_header(const char *path, const char *header, char **line, size_t *cap, char *err,
                              size_t err_size)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        snprintf(err, err_size, "%s: cannot read: %s", path, strerror(errno));
        return NULL;
    }
    if (getline(line, cap, f) < 0) {
        snprintf(err, err_size, "%s: empty file, expected the header %s", path, header);
        fclose(f);
        return NULL;
    }
    chomp(*line);
    if (strcmp(*line, header) != 0) {
        snprintf(err, err_size, "%s: line 1: expected the header %s, got '%.80s'", path, header, *line);
        fclose(f);
        return NULL;
    }
    return f;
}

int energy_read(const char *path, energy_table *e, char *err, size_t err_size)
{
    memset(e, 0, sizeof *e);
    char *line = NULL;
    size_t cap = 0;
    FILE *f = open_with_header(path, ENERGY_HEADER, &line, &cap, err, err_size);
    if (f == NULL) {
        free(line);
        return -1;
    }
    uint64_t rows_cap = 0, lineno = 1;
    int rc = 0;
    while (getline(&line, &cap, f) >= 0) {
        ++lineno;
        chomp(line);
        if (grow((void **)&e->rows, &rows_cap, 7 * (e->samples + 1), sizeof *e->rows)) {
            snprintf(err, err_size, "%s: out of memory", path);
            rc = -1;
            break;
        }
        double *r = &e->rows[7 * e->samples];
        if (parse_row(line, 7, r)) {
            snprintf(err, err_size, "%s: line %llu: expected 7 finite numbers separated by commas, got '%.80s'", path,
                     (unsigned long long)lineno, line);
            rc = -1;
            break;
        }
        if (e->samples && !(r[0] > r[-7])) {
            snprintf(err, err_size, "%s: line %llu: time %.17g does not follow %.17g", path, (unsigned long long)lineno,
                     r[0], r[-7]);
            rc = -1;
            break;
        }
        e->samples++;
    }
    if (rc == 0 && e->samples == 0) {
        snprintf(err, err_size, "%s: no samples after the header", path);
        rc = -1;
    }
    fclose(f);
    free(line);
    if (rc) energy_free(e);
    return rc;
}

void energy_free(energy_table *e)
{
    free(e->rows);
    memset(e, 0, sizeof *e);
}

int trajectory_read(const char *path, trajectory_table *t, char *err, size_t err_size)
{
    memset(t, 0, sizeof *t);
    char *line = NULL;
    size_t cap = 0;
    FILE *f = open_with_header(path, TRAJECTORY_HEADER, &line, &cap, err, err_size);
    if (f == NULL) {
        free(line);
        return -1;
    }
    uint64_t pos_cap = 0, quat_cap = 0, speed_cap = 0, time_cap = 0, lineno = 1, rows = 0;
    uint32_t expect_id = 0;
    bool bodies_known = false;
    int rc = 0;
    while (getline(&line, &cap, f) >= 0) {
        ++lineno;
        chomp(line);
        double r[15];
        if (parse_row(line, 15, r)) {
            snprintf(err, err_size, "%s: line %llu: expected 15 finite numbers separated by commas, got '%.80s'", path,
                     (unsigned long long)lineno, line);
            rc = -1;
            break;
        }
        uint32_t id = (uint32_t)r[1];
        /* The first sample is over when id 0 comes again: that fixes the body count. */
        if (!bodies_known && rows > 0 && r[1] == 0.0) {
            bodies_known = true;
            t->bodies = (uint32_t)rows;
            expect_id = 0;
        }
        if (r[1] != (double)expect_id || (bodies_known && id >= t->bodies)) {
            snprintf(err, err_size, "%s: line %llu: expected body id %u, got %.17g", path, (unsigned long long)lineno,
                     expect_id, r[1]);
            rc = -1;
            break;
        }
        if (id == 0) {
            if (t->samples && !(r[0] > t->times[t->samples - 1])) {
                snprintf(err, err_size, "%s: line %llu: time %.17g does not follow %.17g", path,
                         (unsigned long long)lineno, r[0], t->times[t->samples - 1]);
                rc = -1;
                break;
            }
            if (grow((void **)&t->times, &time_cap, t->samples + 1, sizeof *t->times)) goto oom;
            t->times[t->samples++] = r[0];
        } else if (r[0] != t->times[t->samples - 1]) {
            snprintf(err, err_size, "%s: line %llu: time %.17g in the middle of the sample at %.17g", path,
                     (unsigned long long)lineno, r[0], t->times[t->samples - 1]);
            rc = -1;
            break;
        }
        if (grow((void **)&t->positions, &pos_cap, 3 * (rows + 1), sizeof *t->positions) ||
            grow((void **)&t->speeds, &speed_cap, rows + 1, sizeof *t->speeds) ||
            grow((void **)&t->orientations, &quat_cap, 4 * (rows + 1), sizeof *t->orientations))
            goto oom;
        memcpy(&t->positions[3 * rows], &r[2], 3 * sizeof(double));
        for (int k = 0; k < 4; ++k) t->orientations[4 * rows + k] = (float)r[11 + k];
        t->speeds[rows] = (float)sqrt(r[5] * r[5] + r[6] * r[6] + r[7] * r[7]);
        ++rows;
        expect_id = bodies_known && expect_id + 1 == t->bodies ? 0 : expect_id + 1;
    }
    if (rc == 0 && !bodies_known) t->bodies = (uint32_t)rows;
    /* A scene of statics only has a header and no rows: zero bodies. */
    if (rc == 0 && rows != t->samples * (uint64_t)t->bodies) {
        snprintf(err, err_size, "%s: the last sample is cut short (%llu rows for %llu samples of %u bodies)", path,
                 (unsigned long long)rows, (unsigned long long)t->samples, t->bodies);
        rc = -1;
    }
    fclose(f);
    free(line);
    if (rc) trajectory_free(t);
    return rc;
oom:
    snprintf(err, err_size, "%s: out of memory", path);
    fclose(f);
    free(line);
    trajectory_free(t);
    return -1;
}

void trajectory_free(trajectory_table *t)
{
    free(t->times);
    free(t->positions);
    free(t->orientations);
    free(t->speeds);
    memset(t, 0, sizeof *t);
}
