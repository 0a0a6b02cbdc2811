/* Shared scenes and measurements of the side-by-side benchmark: see scene.h. */
#define _POSIX_C_SOURCE 200809L
#include "scene.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double peer_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The jitter of bench/ball_pit.c: one LCG from a fixed seed. */
static double jitter(uint64_t *rng, double a)
{
    *rng = *rng * 6364136223846793005ull + 1442695040888963407ull;
    return a * ((double)(*rng >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

int pit_build(pit_scene *s, int n)
{
    const double r = PIT_RADIUS, spacing = 0.11;
    uint64_t rng = 12345;
    s->n = n;
    s->side = sqrt(n / 10.0) * 2.0 * r; /* ten square-packed layers */
    int per_row = (int)(s->side / spacing);
    if (per_row < 1) per_row = 1;
    s->pos = malloc(sizeof(double) * 3 * (size_t)n);
    if (!s->pos) return 1;
    for (int i = 0; i < n; ++i) {
        int layer = i / (per_row * per_row), in = i % (per_row * per_row);
        s->pos[3 * i + 0] = r + 0.005 + spacing * (in % per_row) + jitter(&rng, 0.004);
        s->pos[3 * i + 1] = r + 0.005 + spacing * (in / per_row) + jitter(&rng, 0.004);
        s->pos[3 * i + 2] = r + 0.01 + spacing * layer;
    }
    return 0;
}

void pit_free(pit_scene *s)
{
    free(s->pos);
    s->pos = NULL;
}

void pit_planes(const pit_scene *s, double point[5][3], double normal[5][3])
{
    const double p[5][3] = {{0, 0, 0}, {0, 0, 0}, {s->side, 0, 0}, {0, 0, 0}, {0, s->side, 0}};
    const double nr[5][3] = {{0, 0, 1}, {1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}};
    memcpy(point, p, sizeof p);
    memcpy(normal, nr, sizeof nr);
}

int pyr_build(pyr_scene *s, int rows)
{
    const double a = PYR_EDGE;
    s->rows = rows;
    s->n = rows * (rows + 1) / 2;
    s->pos = malloc(sizeof(double) * 3 * (size_t)s->n);
    if (!s->pos) return 1;
    int i = 0;
    for (int k = 0; k < rows; ++k)
        for (int j = 0; j < rows - k; ++j, ++i) {
            s->pos[3 * i + 0] = (j - 0.5 * (rows - k - 1)) * a;
            s->pos[3 * i + 1] = 0.0;
            s->pos[3 * i + 2] = 0.5 * a + k * a;
        }
    return 0;
}

void pyr_free(pyr_scene *s)
{
    free(s->pos);
    s->pos = NULL;
}

void overlap_grid_free(overlap_grid *g)
{
    free(g->head);
    free(g->next);
    memset(g, 0, sizeof *g);
}

static uint32_t cell_hash(long x, long y, long z, uint32_t mask)
{
    uint64_t h = (uint64_t)x * 73856093u ^ (uint64_t)y * 19349663u ^ (uint64_t)z * 83492791u;
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 32;
    return (uint32_t)h & mask;
}

static long cell_of(double x, double h) { return (long)floor(x / h); }

double pit_max_overlap(overlap_grid *g, const pit_scene *s, const double *pos, int *lost)
{
    const double r = PIT_RADIUS, h = 2.0 * r;
    const int n = s->n;
    double worst = 0.0;
    int out = 0;
    if (g->n != n) {
        overlap_grid_free(g);
        g->n = n;
        g->cap = 1;
        while (g->cap < 2 * n) g->cap <<= 1;
        g->head = malloc(sizeof(uint32_t) * (size_t)g->cap);
        g->next = malloc(sizeof(uint32_t) * (size_t)n);
        if (!g->head || !g->next) {
            fprintf(stderr, "overlap grid: out of memory\n");
            exit(1);
        }
    }
    const uint32_t mask = (uint32_t)g->cap - 1, none = 0xffffffffu;
    for (int c = 0; c < g->cap; ++c) g->head[c] = none;
    for (int i = 0; i < n; ++i) {
        const double *p = pos + 3 * i;
        if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2])) {
            ++out;
            continue;
        }
        if (p[0] < 0.0 || p[0] > s->side || p[1] < 0.0 || p[1] > s->side || p[2] < 0.0) ++out;
        /* walls and floor: the signed penetration r - distance (a centre
         * behind a plane counts in full, as in carom's eq. 5.9 reading) */
        double d[5] = {p[2], p[0], s->side - p[0], p[1], s->side - p[1]};
        for (int k = 0; k < 5; ++k)
            if (r - d[k] > worst) worst = r - d[k];
        if (fabs(p[0]) > 1e6 || fabs(p[1]) > 1e6 || fabs(p[2]) > 1e6) continue;
        uint32_t c = cell_hash(cell_of(p[0], h), cell_of(p[1], h), cell_of(p[2], h), mask);
        g->next[i] = g->head[c];
        g->head[c] = (uint32_t)i;
    }
    for (int i = 0; i < n; ++i) {
        const double *p = pos + 3 * i;
        if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2])) continue;
        if (fabs(p[0]) > 1e6 || fabs(p[1]) > 1e6 || fabs(p[2]) > 1e6) continue;
        long cx = cell_of(p[0], h), cy = cell_of(p[1], h), cz = cell_of(p[2], h);
        for (long dx = -1; dx <= 1; ++dx)
            for (long dy = -1; dy <= 1; ++dy)
                for (long dz = -1; dz <= 1; ++dz)
                    for (uint32_t j = g->head[cell_hash(cx + dx, cy + dy, cz + dz, mask)]; j != none;
                         j = g->next[j]) {
                        if ((int)j <= i) continue; /* each pair once (hash collisions only cost time) */
                        const double *q = pos + 3 * j;
                        double ex = p[0] - q[0], ey = p[1] - q[1], ez = p[2] - q[2];
                        double d2 = ex * ex + ey * ey + ez * ez;
                        if (d2 < h * h) {
                            double ov = h - sqrt(d2);
                            if (ov > worst) worst = ov;
                        }
                    }
    }
    if (lost) *lost = out;
    return worst;
}

double pit_kinetic(int n, const double *vel, const double *ang)
{
    const double m = PIT_MASS, I = 0.4 * PIT_MASS * PIT_RADIUS * PIT_RADIUS;
    double ke = 0.0;
    for (int i = 0; i < 3 * n; ++i) ke += 0.5 * m * vel[i] * vel[i] + 0.5 * I * ang[i] * ang[i];
    return ke;
}

double pyr_kinetic(int n, const double *vel, const double *ang)
{
    const double m = PYR_MASS, I = PYR_MASS * PYR_EDGE * PYR_EDGE / 6.0;
    double ke = 0.0;
    for (int i = 0; i < 3 * n; ++i) ke += 0.5 * m * vel[i] * vel[i] + 0.5 * I * ang[i] * ang[i];
    return ke;
}

double pyr_max_drift(const pyr_scene *s, const double *pos, int *lost)
{
    double worst = 0.0;
    int out = 0;
    for (int i = 0; i < s->n; ++i) {
        const double *p = pos + 3 * i, *q = s->pos + 3 * i;
        double ex = p[0] - q[0], ey = p[1] - q[1], ez = p[2] - q[2];
        double d = sqrt(ex * ex + ey * ey + ez * ez);
        if (!isfinite(d) || p[2] < 0.0) ++out;
        if (isfinite(d) && d > worst) worst = d;
        if (!isfinite(d)) worst = INFINITY;
    }
    if (lost) *lost = out;
    return worst;
}

int peer_args(int argc, char **argv, int *size, double *cap)
{
    if (argc != 4 || (strcmp(argv[1], "pit") && strcmp(argv[1], "pyramid")) || atoi(argv[2]) < 1 ||
        atof(argv[3]) <= 0.0) {
        fprintf(stderr,
                "usage: %s pit N CAP_SECONDS | pyramid ROWS CAP_SECONDS\n"
                "  Runs one scene for %d steps of 1/240 s, or fewer when the time spent stepping\n"
                "  passes CAP_SECONDS, and prints one RESULT line.\n",
                argv[0], PEER_STEPS);
        return -1;
    }
    *size = atoi(argv[2]);
    *cap = atof(argv[3]);
    return strcmp(argv[1], "pit") == 0 ? 0 : 1;
}

void peer_print(const peer_result *r)
{
    printf("RESULT engine=%s scene=%s size=%d bodies=%d steps=%d planned=%d step_seconds=%.6f "
           "setup_seconds=%.3f max_pen=%.6g pen_kind=%s lost=%d ke=%.6g drift=%.6g contacts=%.1f warnings=%ld\n",
           r->engine, r->scene, r->size, r->bodies, r->steps, r->planned, r->step_seconds, r->setup_seconds,
           r->max_pen, r->pen_kind, r->lost, r->ke, r->drift, r->contacts, r->warnings);
    fflush(stdout);
}

void peer_skip(const char *engine, const char *scene, int size, const char *reason)
{
    printf("SKIP engine=%s scene=%s size=%d reason=%s\n", engine, scene, size, reason);
    fflush(stdout);
}
