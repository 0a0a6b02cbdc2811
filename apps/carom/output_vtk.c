/* carom CLI — --format vtk: a ParaView time series (see output_formats.h).
 *
 * trajectory.pvd lists one VTK XML PolyData file per sample with its time:
 *
 *   <DataSet timestep="0.01" part="0" file="trajectory_vtk/trajectory_000001.vtp"/>
 *
 * Each .vtp holds the bodies as points, one vertex cell each, with radius,
 * velocity, spin (angular velocity) and id as point data and the time as
 * field data. ASCII, so that a person can read it and a test can parse it.
 */
#define _XOPEN_SOURCE 700

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output_formats.h"

#define VTK_DIR "trajectory_vtk"
#define PVD_NAME "trajectory.pvd"

static const char *why(void) { return strerror(errno ? errno : EIO); }

int vtk_open(vtk_series *v, const char *dir, char *err, size_t err_size)
{
    memset(v, 0, sizeof *v);
    v->dir = strdup(dir);
    v->tmp_dir = output_join(dir, "." VTK_DIR ".XXXXXX");
    if (v->dir == NULL || v->tmp_dir == NULL) {
        snprintf(err, err_size, "out of memory");
        vtk_abort(v);
        return -1;
    }
    errno = 0;
    if (mkdtemp(v->tmp_dir) == NULL) {
        snprintf(err, err_size, "cannot create a directory in '%s': %s", dir, why());
        free(v->tmp_dir);
        v->tmp_dir = NULL;
        vtk_abort(v);
        return -1;
    }
    /* mkdtemp makes it 0700; give it an ordinary directory's permissions. */
    mode_t mask = umask(0);
    umask(mask);
    chmod(v->tmp_dir, 0777 & ~mask);
    v->pvd = output_temp_file(dir, PVD_NAME, &v->pvd_tmp);
    if (v->pvd == NULL) {
        snprintf(err, err_size, "cannot create a file in '%s': %s", dir, why());
        vtk_abort(v);
        return -1;
    }
    fputs("<?xml version=\"1.0\"?>\n"
          "<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
          "  <Collection>\n",
          v->pvd);
    return 0;
}

static void array3(FILE *f, const char *name, const output_frame *fr, int which)
{
    fprintf(f, "        <DataArray type=\"Float64\" Name=\"%s\" NumberOfComponents=\"3\" format=\"ascii\">\n", name);
    for (uint32_t i = 0; i < fr->count; ++i) {
        const cr_body_state *s = &fr->states[i];
        cr_vec3 a = which == 0 ? s->position : which == 1 ? s->velocity : s->angular_velocity;
        fprintf(f, "          %.17g %.17g %.17g\n", a.x, a.y, a.z);
    }
    fputs("        </DataArray>\n", f);
}

static void write_vtp(FILE *f, const output_frame *fr)
{
    uint32_t n = fr->count;
    fputs("<?xml version=\"1.0\"?>\n"
          "<VTKFile type=\"PolyData\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\">\n"
          "  <PolyData>\n"
          "    <FieldData>\n",
          f);
    fprintf(f, "      <DataArray type=\"Float64\" Name=\"TimeValue\" NumberOfTuples=\"1\" format=\"ascii\">%.17g</DataArray>\n",
            fr->t);
    fputs("    </FieldData>\n", f);
    fprintf(f,
            "    <Piece NumberOfPoints=\"%u\" NumberOfVerts=\"%u\" NumberOfLines=\"0\" NumberOfStrips=\"0\" "
            "NumberOfPolys=\"0\">\n",
            n, n);
    fputs("      <PointData Scalars=\"radius\" Vectors=\"velocity\">\n"
          "        <DataArray type=\"Float64\" Name=\"radius\" format=\"ascii\">\n",
          f);
    for (uint32_t i = 0; i < n; ++i) fprintf(f, "          %.17g\n", fr->radius[i]);
    fputs("        </DataArray>\n", f);
    array3(f, "velocity", fr, 1);
    array3(f, "spin", fr, 2);
    fputs("        <DataArray type=\"Int64\" Name=\"id\" format=\"ascii\">\n", f);
    for (uint32_t i = 0; i < n; ++i) fprintf(f, "          %u\n", i);
    fputs("        </DataArray>\n"
          "      </PointData>\n"
          "      <Points>\n",
          f);
    array3(f, "Points", fr, 0);
    fputs("      </Points>\n"
          "      <Verts>\n"
          "        <DataArray type=\"Int64\" Name=\"connectivity\" format=\"ascii\">\n",
          f);
    for (uint32_t i = 0; i < n; ++i) fprintf(f, "          %u\n", i);
    fputs("        </DataArray>\n"
          "        <DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">\n",
          f);
    for (uint32_t i = 0; i < n; ++i) fprintf(f, "          %u\n", i + 1);
    fputs("        </DataArray>\n"
          "      </Verts>\n"
          "    </Piece>\n"
          "  </PolyData>\n"
          "</VTKFile>\n",
          f);
}

int vtk_sample(vtk_series *v, const output_frame *fr, char *err, size_t err_size)
{
    char name[64];
    snprintf(name, sizeof name, "trajectory_%06llu.vtp", (unsigned long long)v->frames);
    char *path = output_join(v->tmp_dir, name);
    errno = 0;
    FILE *f = path ? fopen(path, "w") : NULL;
    if (f == NULL) {
        snprintf(err, err_size, "cannot create '%s': %s", path ? path : name, why());
        free(path);
        return -1;
    }
    setvbuf(f, NULL, _IOFBF, 1 << 20);
    write_vtp(f, fr);
    bool bad = ferror(f) != 0;
    if (fclose(f) != 0) bad = true;
    free(path);
    if (bad) {
        snprintf(err, err_size, "cannot write the VTK output: %s", why());
        return -1;
    }
    fprintf(v->pvd, "    <DataSet timestep=\"%.17g\" group=\"\" part=\"0\" file=\"" VTK_DIR "/%s\"/>\n", fr->t, name);
    v->frames++;
    if (ferror(v->pvd)) {
        snprintf(err, err_size, "cannot write the VTK output: %s", why());
        return -1;
    }
    return 0;
}

static void release(vtk_series *v)
{
    free(v->dir);
    free(v->tmp_dir);
    free(v->pvd_tmp);
    memset(v, 0, sizeof *v);
}

int vtk_commit(vtk_series *v, char *err, size_t err_size)
{
    fputs("  </Collection>\n</VTKFile>\n", v->pvd);
    errno = 0;
    bool bad = fflush(v->pvd) != 0 || ferror(v->pvd);
    if (fclose(v->pvd) != 0) bad = true;
    v->pvd = NULL;
    if (bad) {
        snprintf(err, err_size, "cannot write the VTK output: %s", why());
        vtk_abort(v);
        return -1;
    }
    char *final_dir = output_join(v->dir, VTK_DIR), *final_pvd = output_join(v->dir, PVD_NAME);
    char *old = output_join(v->dir, "." VTK_DIR ".old.XXXXXX");
    int rc = -1;
    if (final_dir && final_pvd && old) {
        /* An earlier run's series moves aside first (a directory cannot be
         * renamed over a non-empty one), and is removed once the new one is
         * in place. */
        struct stat st;
        bool had_old = lstat(final_dir, &st) == 0;
        if (had_old && (mkdtemp(old) == NULL || rmdir(old) != 0 || rename(final_dir, old) != 0))
            snprintf(err, err_size, "cannot move the earlier '%s' aside: %s", final_dir, why());
        else if (rename(v->tmp_dir, final_dir) != 0) {
            snprintf(err, err_size, "cannot rename to '%s': %s", final_dir, why());
            if (had_old) rename(old, final_dir);
        } else if (rename(v->pvd_tmp, final_pvd) != 0) {
            snprintf(err, err_size, "cannot rename to '%s': %s", final_pvd, why());
            output_remove_tree(final_dir);
            if (had_old) rename(old, final_dir);
            free(v->tmp_dir);
            v->tmp_dir = NULL;
        } else {
            if (had_old) output_remove_tree(old);
            free(v->tmp_dir);
            free(v->pvd_tmp);
            v->tmp_dir = v->pvd_tmp = NULL;
            rc = 0;
        }
    } else
        snprintf(err, err_size, "out of memory");
    free(final_dir);
    free(final_pvd);
    free(old);
    if (rc) vtk_abort(v);
    else release(v);
    return rc;
}

void vtk_uncommit(const char *dir)
{
    char *d = output_join(dir, VTK_DIR), *p = output_join(dir, PVD_NAME);
    if (d) output_remove_tree(d);
    if (p) unlink(p);
    free(d);
    free(p);
}

void vtk_abort(vtk_series *v)
{
    if (v->pvd) fclose(v->pvd);
    if (v->pvd_tmp) unlink(v->pvd_tmp);
    if (v->tmp_dir) output_remove_tree(v->tmp_dir);
    release(v);
}
