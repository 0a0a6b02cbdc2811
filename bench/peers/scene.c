/* Shared scenes and measurements of the side-by-side benchmark: see scene.h. */
#define _POSIX_C_SOURCE 200809L
#include "scene.h"
#include "../bench_args.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ctype.h>

double peer_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double peer_cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
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

static int usable(const double *p)
{
    return isfinite(p[0]) && isfinite(p[1]) && isfinite(p[2]) && fabs(p[0]) <= 1e6 && fabs(p[1]) <= 1e6 &&
           fabs(p[2]) <= 1e6;
}

/* The deepest overlap over the pairs of centres (pos, 3n) closer than h: a
 * hashed grid of cells h, each pair once, pair(i, j, ctx) its overlap (0 or
 * less: apart). Centres non-finite or past 1e6 m are left out. */
static double grid_deepest(overlap_grid *g, int n, const double *pos, double h,
                           double (*pair)(int i, int j, const void *ctx), const void *ctx)
{
    double worst = 0.0;
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
        if (!usable(p)) continue;
        uint32_t c = cell_hash(cell_of(p[0], h), cell_of(p[1], h), cell_of(p[2], h), mask);
        g->next[i] = g->head[c];
        g->head[c] = (uint32_t)i;
    }
    for (int i = 0; i < n; ++i) {
        const double *p = pos + 3 * i;
        if (!usable(p)) continue;
        long cx = cell_of(p[0], h), cy = cell_of(p[1], h), cz = cell_of(p[2], h);
        for (long dx = -1; dx <= 1; ++dx)
            for (long dy = -1; dy <= 1; ++dy)
                for (long dz = -1; dz <= 1; ++dz)
                    for (uint32_t j = g->head[cell_hash(cx + dx, cy + dy, cz + dz, mask)]; j != none;
                         j = g->next[j]) {
                        if ((int)j <= i) continue; /* each pair once (hash collisions only cost time) */
                        const double *q = pos + 3 * j;
                        double ex = p[0] - q[0], ey = p[1] - q[1], ez = p[2] - q[2];
                        if (ex * ex + ey * ey + ez * ez >= h * h) continue;
                        double ov = pair(i, (int)j, ctx);
                        if (ov > worst) worst = ov;
                    }
    }
    return worst;
}

/* two spheres of the pit: 2r - distance */
static double sphere_pair(int i, int j, const void *ctx)
{
    const double *p = (const double *)ctx + 3 * i, *q = (const double *)ctx + 3 * j;
    double ex = p[0] - q[0], ey = p[1] - q[1], ez = p[2] - q[2];
    return 2.0 * PIT_RADIUS - sqrt(ex * ex + ey * ey + ez * ez);
}

double pit_max_overlap(overlap_grid *g, const pit_scene *s, const double *pos, int *lost)
{
    const double r = PIT_RADIUS;
    const int n = s->n;
    double worst = 0.0;
    int out = 0;
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
    }
    double pairs = grid_deepest(g, n, pos, 2.0 * r, sphere_pair, pos);
    if (lost) *lost = out;
    return pairs > worst ? pairs : worst;
}

/* The rotation matrix of a unit quaternion (w, x, y, z), normalised first
 * (an engine may hand it back slightly off unit length): column k of m,
 * m[3 k .. 3 k + 2], is the body's axis k in the world. */
static void quat_axes(const double *q, double m[9])
{
    double w = q[0], x = q[1], y = q[2], z = q[3], l = sqrt(w * w + x * x + y * y + z * z);
    if (!(l > 0.0)) l = 1.0, w = 1.0, x = y = z = 0.0;
    w /= l, x /= l, y /= l, z /= l;
    double c[9] = {1 - 2 * (y * y + z * z), 2 * (x * y + w * z),     2 * (x * z - w * y),
                   2 * (x * y - w * z),     1 - 2 * (x * x + z * z), 2 * (y * z + w * x),
                   2 * (x * z + w * y),     2 * (y * z - w * x),     1 - 2 * (x * x + y * y)};
    memcpy(m, c, sizeof c);
}

static double dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* Half-width of a cube of half-edge h with axes m along the unit vector l. */
static double cube_extent(const double m[9], double h, const double *l)
{
    return h * (fabs(dot3(m, l)) + fabs(dot3(m + 3, l)) + fabs(dot3(m + 6, l)));
}

typedef struct cube_ctx {
    const double *pos, *quat;
} cube_ctx;

/* Two cubes: the separating axis test, its smallest overlap (see scene.h). */
static double cube_pair(int i, int j, const void *ctx)
{
    const cube_ctx *c = ctx;
    const double h = 0.5 * PYR_EDGE, *pa = c->pos + 3 * i, *pb = c->pos + 3 * j;
    double a[9], b[9], axes[15][3], d[3] = {pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2]};
    quat_axes(c->quat + 4 * i, a);
    quat_axes(c->quat + 4 * j, b);
    int na = 0;
    for (int k = 0; k < 3; ++k) {
        memcpy(axes[na++], a + 3 * k, sizeof axes[0]);
        memcpy(axes[na++], b + 3 * k, sizeof axes[0]);
    }
    for (int k = 0; k < 3; ++k)
        for (int l = 0; l < 3; ++l) {
            const double *u = a + 3 * k, *v = b + 3 * l;
            double x[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
            double len = sqrt(dot3(x, x));
            if (len < 1e-6) continue; /* parallel edges: a face normal above covers it */
            for (int e = 0; e < 3; ++e) axes[na][e] = x[e] / len;
            ++na;
        }
    double least = INFINITY;
    for (int k = 0; k < na; ++k) {
        double ov = cube_extent(a, h, axes[k]) + cube_extent(b, h, axes[k]) - fabs(dot3(d, axes[k]));
        if (ov <= 0.0) return 0.0;
        if (ov < least) least = ov;
    }
    return least;
}

double pyr_max_overlap(overlap_grid *g, const pyr_scene *s, const double *pos, const double *quat)
{
    const double h = 0.5 * PYR_EDGE, up[3] = {0.0, 0.0, 1.0};
    double worst = 0.0;
    for (int i = 0; i < s->n; ++i) {
        const double *p = pos + 3 * i;
        if (!usable(p)) continue;
        double m[9];
        quat_axes(quat + 4 * i, m);
        double below = cube_extent(m, h, up) - p[2]; /* the lowest corner's depth under z = 0 */
        if (below > worst) worst = below;
    }
    cube_ctx c = {pos, quat};
    double pairs = grid_deepest(g, s->n, pos, sqrt(3.0) * PYR_EDGE, cube_pair, &c);
    return pairs > worst ? pairs : worst;
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

int peer_args(int argc, char **argv, int *size, double *cap, int *iterations)
{
    int pyramid = argc >= 2 && strcmp(argv[1], "pyramid") == 0;
    int most = pyramid && iterations ? 5 : 4;
    if (argc < 4 || argc > most || (strcmp(argv[1], "pit") && !pyramid) || atoi(argv[2]) < 1 ||
        atof(argv[3]) <= 0.0) {
        fprintf(stderr,
                "usage: %s pit N CAP_SECONDS | pyramid ROWS CAP_SECONDS%s\n"
                "  Runs one scene for %d steps of 1/240 s, or fewer when the time spent stepping\n"
                "  passes CAP_SECONDS, and prints one RESULT line.%s\n",
                argv[0], iterations ? " [ITERATIONS]" : "", PEER_STEPS,
                iterations ? "\n  ITERATIONS: the pyramid with this many solver iterations (1 to 100000)\n"
                             "  instead of the engine's setting of the benchmark."
                           : "");
        return -1;
    }
    if (iterations) *iterations = 0;
    if (argc == 5 && !bench_int(argv[0], "pyramid ITERATIONS", argv[4], 1, 100000, iterations)) return -1;
    *size = atoi(argv[2]);
    *cap = atof(argv[3]);
    return pyramid ? 1 : 0;
}

void peer_print(const peer_result *r)
{
    printf("RESULT engine=%s scene=%s size=%d bodies=%d steps=%d planned=%d step_seconds=%.6f "
           "step_cpu_seconds=%.6f setup_seconds=%.3f max_pen=%.6g pen_kind=%s lost=%d ke=%.6g drift=%.6g contacts=%.1f "
           "warnings=%ld overlap=%.6g\n",
           r->engine, r->scene, r->size, r->bodies, r->steps, r->planned, r->step_seconds, r->step_cpu_seconds,
           r->setup_seconds,
           r->max_pen, r->pen_kind, r->lost, r->ke, r->drift, r->contacts, r->warnings, r->overlap);
    fflush(stdout);
}

void peer_skip(const char *engine, const char *scene, int size, const char *reason)
{
    printf("SKIP engine=%s scene=%s size=%d reason=%s\n", engine, scene, size, reason);
    fflush(stdout);
}

/* ---- the LAMMPS chute: a data file of atom_style sphere ------------------ */

void chute_free(chute_scene *s)
{
    free(s->type), free(s->id), free(s->radius), free(s->mass), free(s->pos), free(s->vel), free(s->ang);
    memset(s, 0, sizeof *s);
}

static int chute_bad(chute_scene *s, FILE *f, const char *path, long line, const char *what)
{
    fprintf(stderr, "%s:%ld: %s\n", path, line, what);
    if (f) fclose(f);
    chute_free(s);
    return -1;
}

int chute_load(chute_scene *s, const char *path)
{
    memset(s, 0, sizeof *s);
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "%s: cannot open\n", path);
        return -1;
    }
    char buf[1024];
    long line = 0, natoms = -1, atoms_read = 0, vels_read = 0, max_id = 0;
    long *index = NULL; /* id -> position in the file's Atoms order */
    enum { HEADER, ATOMS, VELOCITIES, OTHER } section = HEADER;
    int box = 0;
    while (fgets(buf, sizeof buf, f)) {
        ++line;
        if (line == 1) continue; /* the title line */
        char *hash = strchr(buf, '#');
        if (hash) *hash = '\0';
        char word[64];
        if (sscanf(buf, "%63s", word) != 1) continue; /* blank */
        if (!strcmp(word, "Atoms")) {
            if (natoms < 0) return chute_bad(s, f, path, line, "Atoms before the atom count");
            section = ATOMS;
            continue;
        }
        if (!strcmp(word, "Velocities")) {
            if (atoms_read != natoms) return chute_bad(s, f, path, line, "Velocities before all Atoms");
            max_id = 0;
            for (long k = 0; k < natoms; ++k) max_id = s->id[k] > max_id ? s->id[k] : max_id;
            index = malloc(sizeof *index * (size_t)(max_id + 1));
            if (!index) return chute_bad(s, f, path, line, "out of memory");
            for (long k = 0; k <= max_id; ++k) index[k] = -1;
            for (long k = 0; k < natoms; ++k) index[s->id[k]] = k;
            section = VELOCITIES;
            continue;
        }
        if (isupper((unsigned char)word[0])) { /* another section (Masses, Bonds, ...): not of this style */
            section = OTHER;
            continue;
        }
        if (section == HEADER) {
            double a, b;
            char t1[32], t2[32];
            long v;
            if (sscanf(buf, "%lf %lf %31s %31s", &a, &b, t1, t2) == 4 && t1[1] == 'l' && t1[2] == 'o') {
                int k = t1[0] - 'x';
                if (k < 0 || k > 2 || !(b > a)) return chute_bad(s, f, path, line, "bad box line");
                s->lo[k] = a, s->hi[k] = b, box |= 1 << k;
            } else if (sscanf(buf, "%ld %31s %31s", &v, t1, t2) >= 2 && !strcmp(t1, "atoms")) {
                if (v < 1 || v > 100000000) return chute_bad(s, f, path, line, "bad atom count");
                natoms = v;
                size_t n = (size_t)v;
                s->n = (int)v;
                s->type = malloc(sizeof *s->type * n), s->id = malloc(sizeof *s->id * n);
                s->radius = malloc(sizeof(double) * n), s->mass = malloc(sizeof(double) * n);
                s->pos = malloc(sizeof(double) * 3 * n), s->vel = calloc(3 * n, sizeof(double));
                s->ang = calloc(3 * n, sizeof(double));
                if (!s->type || !s->id || !s->radius || !s->mass || !s->pos || !s->vel || !s->ang)
                    return chute_bad(s, f, path, line, "out of memory");
            }
            continue;
        }
        if (section == ATOMS) {
            long id;
            int type;
            double dia, dens, x, y, z;
            if (sscanf(buf, "%ld %d %lf %lf %lf %lf %lf", &id, &type, &dia, &dens, &x, &y, &z) != 7)
                return chute_bad(s, f, path, line, "Atoms: expected id type diameter density x y z");
            if (atoms_read >= natoms) return chute_bad(s, f, path, line, "more Atoms than the count");
            if (id < 1 || !(dia > 0.0) || !(dens > 0.0)) return chute_bad(s, f, path, line, "Atoms: bad id, diameter or density");
            long k = atoms_read++;
            double r = 0.5 * dia;
            s->id[k] = id, s->type[k] = type, s->radius[k] = r;
            s->mass[k] = 4.0 * 3.14159265358979323846 / 3.0 * r * r * r * dens; /* as LAMMPS AtomVecSphere */
            s->pos[3 * k] = x, s->pos[3 * k + 1] = y, s->pos[3 * k + 2] = z;
        } else if (section == VELOCITIES) {
            long id;
            double v[6];
            if (sscanf(buf, "%ld %lf %lf %lf %lf %lf %lf", &id, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]) != 7)
                return chute_bad(s, f, path, line, "Velocities: expected id vx vy vz wx wy wz");
            if (id < 1 || id > max_id || index[id] < 0) {
                free(index);
                return chute_bad(s, f, path, line, "Velocities: unknown atom id");
            }
            long k = index[id];
            for (int c = 0; c < 3; ++c) s->vel[3 * k + c] = v[c], s->ang[3 * k + c] = v[3 + c];
            ++vels_read;
        }
    }
    free(index);
    if (natoms < 0 || atoms_read != natoms) return chute_bad(s, f, path, line, "fewer Atoms than the count");
    if (box != 7) return chute_bad(s, f, path, line, "missing box bounds");
    if (vels_read != 0 && vels_read != natoms) return chute_bad(s, f, path, line, "Velocities do not cover every atom");
    fclose(f);
    return 0;
}
