/* carom CLI — trajectory.csv and energy.csv through temporaries and rename.
 *
 * Numbers are printed with %.17g, which reads back to the same double, so a
 * trajectory is the simulation's exact state and runs can be compared bit
 * for bit (DESIGN: determinism).
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output.h"
#include "output_scene.h"

#define TRAJECTORY_HEADER "t,id,x,y,z,vx,vy,vz,wx,wy,wz,qw,qx,qy,qz\n"
#define ENERGY_HEADER "t,kinetic,potential,total,px,py,pz\n"

static char *join(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *s = malloc(n);
    if (s) snprintf(s, n, "%s/%s", dir, name);
    return s;
}

/* mkdir -p: creates each missing component of dir in turn. */
static int make_dirs(const char *dir)
{
    if (dir[0] == '\0') return ENOENT;
    char *p = strdup(dir);
    if (p == NULL) return ENOMEM;
    int rc = 0;
    for (char *s = p + 1; rc == 0; ++s) {
        bool end = *s == '\0';
        if (*s != '/' && !end) continue;
        *s = '\0';
        if (mkdir(p, 0777) != 0 && errno != EEXIST) rc = errno;
        if (end) break;
        *s = '/';
    }
    struct stat st;
    if (rc == 0) {
        if (stat(p, &st) != 0) rc = errno;
        else if (!S_ISDIR(st.st_mode)) rc = ENOTDIR;
    }
    free(p);
    return rc;
}

/* A temporary next to the final file (same directory, so rename is atomic),
 * with the permissions an ordinary new file would get (mkstemp uses 0600). */
static FILE *open_temp(const char *dir, const char *name, char **tmp_path)
{
    size_t n = strlen(dir) + strlen(name) + 16;
    char *path = malloc(n);
    if (path == NULL) return NULL;
    snprintf(path, n, "%s/.%s.XXXXXX", dir, name);
    int fd = mkstemp(path);
    if (fd < 0) { free(path); return NULL; }
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    FILE *f = fdopen(fd, "w");
    if (f == NULL) { close(fd); unlink(path); free(path); return NULL; }
    /* Rows are many and small: a large buffer saves most of the syscalls. */
    setvbuf(f, NULL, _IOFBF, 1 << 20);
    *tmp_path = path;
    return f;
}

int output_open(run_output *o, const char *dir, unsigned formats, const cr_world *world, char *err, size_t err_size)
{
    memset(o, 0, sizeof *o);
    int e = make_dirs(dir);
    if (e) {
        snprintf(err, err_size, "cannot create output directory '%s': %s", dir, strerror(e));
        return -1;
    }
    o->trajectory_path = join(dir, "trajectory.csv");
    o->energy_path = join(dir, "energy.csv");
    if (o->trajectory_path == NULL || o->energy_path == NULL) {
        snprintf(err, err_size, "out of memory");
        output_abort(o);
        return -1;
    }
    errno = 0;
    o->trajectory = open_temp(dir, "trajectory.csv", &o->trajectory_tmp);
    if (o->trajectory) o->energy = open_temp(dir, "energy.csv", &o->energy_tmp);
    if (o->trajectory == NULL || o->energy == NULL) {
        snprintf(err, err_size, "cannot create a file in '%s': %s", dir, strerror(errno ? errno : EIO));
        output_abort(o);
        return -1;
    }
    fputs(TRAJECTORY_HEADER, o->trajectory);
    fputs(ENERGY_HEADER, o->energy);
    o->formats = formats;
    o->dir = strdup(dir);
    o->scene_path = join(dir, "scene.json");
    if (o->dir == NULL || o->scene_path == NULL) {
        snprintf(err, err_size, "out of memory");
        output_abort(o);
        return -1;
    }
    if (output_scene_write(dir, world, &o->scene_tmp, err, err_size) ||
        ((formats & OUTPUT_VTK) && vtk_open(&o->vtk, dir, err, err_size)) ||
        ((formats & OUTPUT_XYZ) && xyz_open(&o->xyz, dir, err, err_size))) {
        output_abort(o);
        return -1;
    }
    return 0;
}

/* The sample for the extra formats: states and radii of the first
 * body_count slots (radii read once: bodies keep their size). */
static int extra_sample(run_output *o, const cr_world *world, uint32_t body_count, char *err, size_t err_size)
{
    if (!(o->formats & (OUTPUT_VTK | OUTPUT_XYZ))) return 0;
    if (o->frame_capacity < body_count || o->states == NULL) {
        free(o->states);
        free(o->radius);
        o->states = malloc((body_count ? body_count : 1) * sizeof *o->states);
        o->radius = malloc((body_count ? body_count : 1) * sizeof *o->radius);
        if (o->states == NULL || o->radius == NULL) {
            snprintf(err, err_size, "out of memory");
            return -1;
        }
        o->frame_capacity = body_count;
        for (uint32_t i = 0; i < body_count; ++i) {
            cr_body_def d;
            cr_body_get_def(world, cr_world_body_at(world, i), &d);
            o->radius[i] = d.radius;
        }
    }
    for (uint32_t i = 0; i < body_count; ++i) cr_body_get_state(world, cr_world_body_at(world, i), &o->states[i]);
    output_frame f = {.t = cr_world_time(world), .count = body_count, .states = o->states, .radius = o->radius};
    if ((o->formats & OUTPUT_VTK) && vtk_sample(&o->vtk, &f, err, err_size)) return -1;
    if ((o->formats & OUTPUT_XYZ) && xyz_sample(&o->xyz, &f, err, err_size)) return -1;
    return 0;
}

int output_sample(run_output *o, const cr_world *world, uint32_t body_count, char *err, size_t err_size)
{
    double t = cr_world_time(world);
    for (uint32_t i = 0; i < body_count; ++i) {
        cr_body_state s;
        if (cr_body_get_state(world, cr_world_body_at(world, i), &s) != CR_OK) {
            snprintf(err, err_size, "cannot read body %u: %s", i, cr_world_last_error(world));
            return -1;
        }
        fprintf(o->trajectory, "%.17g,%u,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n",
                t, i, s.position.x, s.position.y, s.position.z, s.velocity.x, s.velocity.y, s.velocity.z,
                s.angular_velocity.x, s.angular_velocity.y, s.angular_velocity.z, s.orientation.w, s.orientation.x,
                s.orientation.y, s.orientation.z);
    }
    cr_energy en = cr_world_energy(world);
    fprintf(o->energy, "%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n", t, en.kinetic, en.potential, en.total,
            en.momentum.x, en.momentum.y, en.momentum.z);
    o->samples++;
    if (extra_sample(o, world, body_count, err, err_size)) return -1;
    /* A full disk shows up as a stream error; stop at once rather than run on. */
    if (ferror(o->trajectory) || ferror(o->energy)) {
        snprintf(err, err_size, "cannot write the output: %s", strerror(errno ? errno : EIO));
        return -1;
    }
    return 0;
}

static int close_checked(FILE **f)
{
    int rc = 0;
    if (*f) {
        if (fflush(*f) != 0 || ferror(*f)) rc = errno ? errno : EIO;
        if (fclose(*f) != 0 && rc == 0) rc = errno ? errno : EIO;
        *f = NULL;
    }
    return rc;
}

static void release(run_output *o)
{
    free(o->dir);
    free(o->scene_path);
    free(o->scene_tmp);
    free(o->states);
    free(o->radius);
    free(o->trajectory_path);
    free(o->energy_path);
    free(o->trajectory_tmp);
    free(o->energy_tmp);
    memset(o, 0, sizeof *o);
}

/* Removes scene.json and the extras this run already renamed into place. */
static void take_back(run_output *o, unsigned committed)
{
    unlink(o->scene_path);
    if (committed & OUTPUT_VTK) vtk_uncommit(o->dir);
    if (committed & OUTPUT_XYZ) {
        char *x = join(o->dir, "trajectory.xyz");
        if (x) unlink(x);
        free(x);
    }
}

int output_commit(run_output *o, char *err, size_t err_size)
{
    errno = 0;
    int e = close_checked(&o->trajectory);
    int e2 = close_checked(&o->energy);
    if (e || e2) {
        snprintf(err, err_size, "cannot write the output: %s", strerror(e ? e : e2));
        output_abort(o);
        return -1;
    }
    /* scene.json and the extras first; the CSV files, which say "this run
     * finished", last. */
    if (rename(o->scene_tmp, o->scene_path) != 0) {
        snprintf(err, err_size, "cannot rename to '%s': %s", o->scene_path, strerror(errno));
        output_abort(o);
        return -1;
    }
    free(o->scene_tmp);
    o->scene_tmp = NULL;
    unsigned committed = 0;
    if ((o->formats & OUTPUT_VTK) && vtk_commit(&o->vtk, err, err_size) == 0) committed |= OUTPUT_VTK;
    if ((o->formats & OUTPUT_XYZ) && (committed & OUTPUT_VTK || !(o->formats & OUTPUT_VTK)) &&
        xyz_commit(&o->xyz, err, err_size) == 0)
        committed |= OUTPUT_XYZ;
    if (committed != (o->formats & (OUTPUT_VTK | OUTPUT_XYZ))) {
        take_back(o, committed);
        output_abort(o);
        return -1;
    }
    if (rename(o->trajectory_tmp, o->trajectory_path) != 0) {
        snprintf(err, err_size, "cannot rename to '%s': %s", o->trajectory_path, strerror(errno));
        take_back(o, committed);
        output_abort(o);
        return -1;
    }
    free(o->trajectory_tmp);
    o->trajectory_tmp = NULL;
    if (rename(o->energy_tmp, o->energy_path) != 0) {
        snprintf(err, err_size, "cannot rename to '%s': %s", o->energy_path, strerror(errno));
        /* Half a result is no result: take back the trajectory too. */
        unlink(o->trajectory_path);
        take_back(o, committed);
        output_abort(o);
        return -1;
    }
    release(o);
    return 0;
}

void output_abort(run_output *o)
{
    if (o->trajectory) fclose(o->trajectory);
    if (o->energy) fclose(o->energy);
    o->trajectory = o->energy = NULL;
    if (o->trajectory_tmp) unlink(o->trajectory_tmp);
    if (o->energy_tmp) unlink(o->energy_tmp);
    if (o->scene_tmp) unlink(o->scene_tmp);
    if (o->vtk.tmp_dir || o->vtk.pvd) vtk_abort(&o->vtk);
    if (o->xyz.tmp || o->xyz.f) xyz_abort(&o->xyz);
    release(o);
}
