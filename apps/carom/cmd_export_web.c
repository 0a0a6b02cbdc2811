/* carom export-web — a recorded run as one self-contained HTML page.
 *
 * Reads RUN_DIR/scene.json (statics, radii), trajectory.csv and energy.csv
 * (all written by carom run), checks that they belong together, and writes
 * the replay page (web/src, bundled with three.js and uPlot and embedded in
 * this binary) with the data inline: positions as base64 float32, statics
 * as the triangles the viewer's draw list makes (the same plane clipping
 * and surface meshes as carom view and carom render), the energy columns
 * as numbers. Exit statuses: 0 written; 1 the file could not be written
 * (or this carom was built without the page); 2 bad usage or run files that
 * are missing, malformed or inconsistent (nothing is written).
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "camera.h"
#include "cli_args.h"
#include "commands.h"
#include "output_formats.h"
#include "run_files.h"
#include "scene_draw.h"
#include "web_json.h"
#ifdef CAROM_HAVE_WEB
#include "web_assets.h"
#endif

static const char export_help[] =
    "usage: carom export-web RUN_DIR [--out FILE.html]\n"
    "\n"
    "Writes one HTML file that replays the run in RUN_DIR (scene.json,\n"
    "trajectory.csv, energy.csv from carom run) in a browser, from disk, with\n"
    "no server: play, pause, a timeline to scrub, speed, an orbiting camera and\n"
    "an energy plot that follows the time.\n"
    "\n"
    "options:\n"
    "  -o, --out FILE.html  the page (default: RUN_DIR/replay.html)\n"
    "  -q, --quiet          no summary line\n"
    "  -h, --help           this text\n"
    "\n"
    "exit status: 0 ok, 1 output failure, 2 bad usage or bad run files.\n"
    "See docs/viewer.md.\n";

typedef struct export_args {
    const char *run_dir, *out;
    bool quiet;
} export_args;

static int parse(int argc, char **argv, export_args *a)
{
    memset(a, 0, sizeof *a);
    char err[512] = "";
    bool missing, options_done = false;
    for (int i = 1; i < argc && !err[0]; ++i) {
        const char *s = argv[i], *v;
        int common = arg_common(s, &options_done, &a->run_dir, "run directory", export_help, err, sizeof err);
        if (common == 2) return 1;
        if (common == 1) continue;
        if (strcmp(s, "-q") == 0 || strcmp(s, "--quiet") == 0) a->quiet = true;
        else if ((v = arg_value(argc, argv, &i, "--out", "-o", &missing))) {
            if (missing) snprintf(err, sizeof err, "--out needs a file name");
            else a->out = v;
        } else
            snprintf(err, sizeof err, "unknown option '%s'", s);
    }
    if (!err[0] && a->run_dir == NULL) snprintf(err, sizeof err, "RUN_DIR is required (a directory carom run wrote)");
    if (!err[0]) arg_run_dir(a->run_dir, err, sizeof err);
    if (!err[0] && a->out && !arg_has_suffix(a->out, ".html"))
        snprintf(err, sizeof err, "--out: the page's name must end in .html, got '%s'", a->out);
    if (!err[0] && a->out) arg_out_dir("--out", a->out, err, sizeof err);
    if (err[0]) {
        fprintf(stderr, "carom export-web: %s\n\n%s", err, export_help);
        return 2;
    }
    return 0;
}

/* ---- scene.json -------------------------------------------------------------- */

/* A body's shape as the page draws it: a sphere of its radius, a box, or
 * triangles (a hull or mesh) shared through scene.json's "shapes". */
typedef enum web_shape_kind { WEB_SPHERE = 0, WEB_BOX, WEB_HULL, WEB_MESH } web_shape_kind;
static const char *const web_shape_names[4] = {"sphere", "box", "hull", "mesh"};

typedef struct web_body_shape {
    web_shape_kind kind;
    cr_vec3 half_extents; /* box */
    uint32_t index;       /* hull, mesh: in shapes */
} web_body_shape;

typedef struct web_scene {
    cJSON *root;
    double *radius;
    web_body_shape *shapes;
    uint32_t bodies;
    uint32_t shape_count; /* entries of scene.json's "shapes" */
    view_plane *planes;
    uint32_t plane_count;
} web_scene;

static void scene_free(web_scene *s)
{
    cJSON_Delete(s->root);
    free(s->radius);
    free(s->shapes);
    free(s->planes);
    memset(s, 0, sizeof *s);
}

static bool vec3_of(const cJSON *a, cr_vec3 *out)
{
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != 3) return false;
    double v[3];
    for (int k = 0; k < 3; ++k) {
        const cJSON *x = cJSON_GetArrayItem(a, k);
        if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble)) return false;
        v[k] = x->valuedouble;
    }
    *out = cr_v3(v[0], v[1], v[2]);
    return true;
}

/* A surface mesh's arrays: numbers, a multiple of width long. */
static bool mesh_array(const cJSON *mesh, const char *name, int width, int *count)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(mesh, name);
    if (!cJSON_IsArray(a)) return false;
    int n = cJSON_GetArraySize(a);
    if (n % width) return false;
    for (const cJSON *x = a->child; x; x = x->next)
        if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble)) return false;
    *count = n / width;
    return true;
}

static int scene_read(const char *path, web_scene *s, char *err, size_t err_size)
{
    memset(s, 0, sizeof *s);
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        snprintf(err, err_size, "%s: cannot read: %s (carom run writes it; run the scene again)", path, strerror(errno));
        return -1;
    }
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    char buf[65536];
    size_t n;
    while (m && (n = fread(buf, 1, sizeof buf, f)) > 0) fwrite(buf, 1, n, m);
    fclose(f);
    if (m) fclose(m);
    s->root = text ? cJSON_Parse(text) : NULL;
    free(text);
    const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(s->root, "format");
    if (!cJSON_IsString(fmt) || strcmp(fmt->valuestring, "carom-run-scene") != 0) {
        snprintf(err, err_size, "%s: not a scene.json of carom run (no \"format\": \"carom-run-scene\")", path);
        goto bad;
    }
    const cJSON *bodies = cJSON_GetObjectItemCaseSensitive(s->root, "bodies");
    if (!cJSON_IsArray(bodies)) {
        snprintf(err, err_size, "%s: bodies: expected an array", path);
        goto bad;
    }
    /* Hull and mesh triangles: 9 finite numbers each (older runs have none). */
    const cJSON *shapes = cJSON_GetObjectItemCaseSensitive(s->root, "shapes");
    if (shapes && !cJSON_IsArray(shapes)) {
        snprintf(err, err_size, "%s: shapes: expected an array", path);
        goto bad;
    }
    uint32_t i = 0;
    for (const cJSON *sh = shapes ? shapes->child : NULL; sh; sh = sh->next, ++i) {
        int nt = 0;
        if (!mesh_array(sh, "triangles", 9, &nt)) {
            snprintf(err, err_size, "%s: shapes[%u].triangles: expected 9 numbers per triangle", path, i);
            goto bad;
        }
    }
    s->shape_count = i;
    s->bodies = (uint32_t)cJSON_GetArraySize(bodies);
    s->radius = malloc((s->bodies ? s->bodies : 1) * sizeof *s->radius);
    s->shapes = calloc(s->bodies ? s->bodies : 1, sizeof *s->shapes);
    if (s->radius == NULL || s->shapes == NULL) {
        snprintf(err, err_size, "%s: out of memory", path);
        goto bad;
    }
    i = 0;
    for (const cJSON *b = bodies->child; b; b = b->next, ++i) {
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(b, "id"), *r = cJSON_GetObjectItemCaseSensitive(b, "radius");
        if (!cJSON_IsNumber(id) || id->valuedouble != i || !cJSON_IsNumber(r) || !(r->valuedouble > 0.0) ||
            !isfinite(r->valuedouble)) {
            snprintf(err, err_size, "%s: bodies[%u]: expected \"id\": %u and a \"radius\" > 0", path, i, i);
            goto bad;
        }
        s->radius[i] = r->valuedouble;
        /* "shape": absent (older runs) is a sphere. */
        const cJSON *shape = cJSON_GetObjectItemCaseSensitive(b, "shape");
        web_body_shape *bs = &s->shapes[i];
        if (shape) {
            int k = 0;
            while (k < 4 && !(cJSON_IsString(shape) && strcmp(shape->valuestring, web_shape_names[k]) == 0)) ++k;
            if (k == 4) {
                snprintf(err, err_size, "%s: bodies[%u].shape: expected \"sphere\", \"box\", \"hull\" or \"mesh\"", path, i);
                goto bad;
            }
            bs->kind = (web_shape_kind)k;
        }
        if (bs->kind == WEB_BOX) {
            cr_vec3 h;
            if (!vec3_of(cJSON_GetObjectItemCaseSensitive(b, "half_extents"), &h) || !(h.x > 0 && h.y > 0 && h.z > 0)) {
                snprintf(err, err_size, "%s: bodies[%u]: a box needs \"half_extents\" > 0", path, i);
                goto bad;
            }
            bs->half_extents = h;
        } else if (bs->kind == WEB_HULL || bs->kind == WEB_MESH) {
            const cJSON *k = cJSON_GetObjectItemCaseSensitive(b, "shape_index");
            if (!cJSON_IsNumber(k) || k->valuedouble < 0 || k->valuedouble >= s->shape_count ||
                k->valuedouble != floor(k->valuedouble)) {
                snprintf(err, err_size, "%s: bodies[%u].shape_index: expected an index into \"shapes\" (%u of them)",
                         path, i, s->shape_count);
                goto bad;
            }
            bs->index = (uint32_t)k->valuedouble;
        }
    }
    const cJSON *statics = cJSON_GetObjectItemCaseSensitive(s->root, "statics");
    if (!cJSON_IsArray(statics)) {
        snprintf(err, err_size, "%s: statics: expected an array", path);
        goto bad;
    }
    s->planes = malloc(((size_t)cJSON_GetArraySize(statics) + 1) * sizeof *s->planes);
    i = 0;
    for (const cJSON *st = statics->child; st; st = st->next, ++i) {
        const cJSON *shape = cJSON_GetObjectItemCaseSensitive(st, "shape");
        if (cJSON_IsString(shape) && strcmp(shape->valuestring, "plane") == 0) {
            view_plane p;
            if (!vec3_of(cJSON_GetObjectItemCaseSensitive(st, "point"), &p.point) ||
                !vec3_of(cJSON_GetObjectItemCaseSensitive(st, "normal"), &p.normal) || !(cr_v3_len(p.normal) > 0.0)) {
                snprintf(err, err_size, "%s: statics[%u]: a plane needs a point and a non-zero normal", path, i);
                goto bad;
            }
            p.normal = cr_v3_normalize(p.normal);
            s->planes[s->plane_count++] = p;
        } else if (cJSON_IsString(shape) && strcmp(shape->valuestring, "surface") == 0) {
            const cJSON *mesh = cJSON_GetObjectItemCaseSensitive(st, "mesh");
            int nv = 0, nn = 0, nc = 0, ni = 0;
            if (!mesh_array(mesh, "positions", 3, &nv) || !mesh_array(mesh, "normals", 3, &nn) ||
                !mesh_array(mesh, "colors", 3, &nc) || !mesh_array(mesh, "indices", 3, &ni) || nn != nv || nc != nv) {
                snprintf(err, err_size, "%s: statics[%u].mesh: expected positions, normals, colors and indices", path, i);
                goto bad;
            }
            for (const cJSON *x = cJSON_GetObjectItemCaseSensitive(mesh, "indices")->child; x; x = x->next)
                if (x->valuedouble < 0 || x->valuedouble >= nv || x->valuedouble != floor(x->valuedouble)) {
                    snprintf(err, err_size, "%s: statics[%u].mesh.indices: %g is not a vertex", path, i, x->valuedouble);
                    goto bad;
                }
        } else {
            snprintf(err, err_size, "%s: statics[%u].shape: expected \"plane\" or \"surface\"", path, i);
            goto bad;
        }
    }
    return 0;
bad:
    if (s->root == NULL) snprintf(err, err_size, "%s: not valid JSON", path);
    scene_free(s);
    return -1;
}

/* ---- the page's data ------------------------------------------------------------ */

typedef struct run_data {
    web_scene scene;
    trajectory_table traj;
    energy_table energy;
    const char *title;
} run_data;

#ifdef CAROM_HAVE_WEB

static int write_mesh_arrays(FILE *f, const draw_list *dl)
{
    size_t n = dl->vertex_count;
    float *a = malloc((3 * n + 1) * sizeof *a);
    if (a == NULL) return -1;
    static const char *names[3] = {"positions", "normals", "colors"};
    for (int k = 0; k < 3; ++k) {
        for (size_t i = 0; i < n; ++i) {
            const float *src = k == 0 ? dl->vertices[i].position : k == 1 ? dl->vertices[i].normal : dl->vertices[i].color;
            memcpy(&a[3 * i], src, 3 * sizeof *a);
        }
        fprintf(f, "\"%s\":", names[k]);
        web_json_f32(f, a, 3 * n);
        fputc(',', f);
    }
    bool grid = n && dl->vertices[0].grid > 0.0f;
    if (grid) {
        /* Texture coordinates in grid cells: one cell of the page's grid
         * texture per line spacing, as the viewer's shader draws them. */
        for (size_t i = 0; i < n; ++i) {
            a[2 * i] = dl->vertices[i].uv[0] / dl->vertices[i].grid;
            a[2 * i + 1] = dl->vertices[i].uv[1] / dl->vertices[i].grid;
        }
        fputs("\"uv\":", f);
        web_json_f32(f, a, 2 * n);
        fputc(',', f);
    }
    fputs("\"indices\":", f);
    web_json_u32(f, dl->indices, dl->index_count);
    free(a);
    return 0;
}

/* A surface's mesh from scene.json into a draw list (then written like the planes). */
static int surface_mesh(const cJSON *mesh, draw_list *dl)
{
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(mesh, "positions"), *nr = cJSON_GetObjectItemCaseSensitive(mesh, "normals"),
                *c = cJSON_GetObjectItemCaseSensitive(mesh, "colors"), *ix = cJSON_GetObjectItemCaseSensitive(mesh, "indices");
    int nv = cJSON_GetArraySize(p) / 3, ni = cJSON_GetArraySize(ix);
    draw_list_clear(dl);
    dl->vertices = realloc(dl->vertices, ((size_t)nv + 1) * sizeof *dl->vertices);
    dl->indices = realloc(dl->indices, ((size_t)ni + 1) * sizeof *dl->indices);
    if (dl->vertices == NULL || dl->indices == NULL) return -1;
    dl->vertex_capacity = (size_t)nv + 1;
    dl->index_capacity = (size_t)ni + 1;
    const cJSON *a = p->child, *b = nr->child, *d = c->child;
    for (int i = 0; i < nv; ++i) {
        draw_vertex *v = &dl->vertices[i];
        memset(v, 0, sizeof *v);
        for (int k = 0; k < 3; ++k, a = a->next, b = b->next, d = d->next) {
            v->position[k] = (float)a->valuedouble;
            v->normal[k] = (float)b->valuedouble;
            v->color[k] = (float)d->valuedouble;
        }
    }
    int k = 0;
    for (const cJSON *x = ix->child; x; x = x->next) dl->indices[k++] = (uint32_t)x->valuedouble;
    dl->vertex_count = (size_t)nv;
    dl->index_count = (size_t)ni;
    return 0;
}

/* 0, or -1 when out of memory (the page is then not renamed into place). */
static int write_data(FILE *f, const run_data *r)
{
    const trajectory_table *t = &r->traj;
    const energy_table *e = &r->energy;
    uint32_t bodies = t->bodies;
    uint64_t samples = e->samples;

    /* A snapshot of the first sample, to place the planes and frame the
     * camera as the viewer does; the frame is widened to hold every sample. */
    size_t np = (size_t)t->samples * bodies * 3;
    float *pos = malloc((np + 1) * sizeof *pos), *col = malloc(((size_t)bodies * 3 + 1) * sizeof *col);
    view_snapshot s;
    memset(&s, 0, sizeof s);
    s.bodies = calloc(bodies + 1, sizeof *s.bodies);
    if (pos == NULL || col == NULL || s.bodies == NULL) {
        free(pos);
        free(col);
        free(s.bodies);
        return -1;
    }
    s.planes = r->scene.planes;
    s.plane_count = r->scene.plane_count;
    cr_vec3 lo = cr_v3(INFINITY, INFINITY, INFINITY), hi = cr_v3(-INFINITY, -INFINITY, -INFINITY);
    for (uint32_t i = 0; i < bodies; ++i) {
        view_body *b = &s.bodies[i];
        b->position = cr_v3(t->positions[3 * i], t->positions[3 * i + 1], t->positions[3 * i + 2]);
        b->radius = r->scene.radius[i];
        b->mass = 1.0;
        b->orientation = cr_q_identity();
        b->shape = -1;
        b->slot = i;
    }
    s.body_count = bodies;
    for (uint64_t k = 0; k < t->samples; ++k)
        for (uint32_t i = 0; i < bodies; ++i) {
            const double *p = &t->positions[3 * (k * bodies + i)];
            double rad = r->scene.radius[i];
            lo = cr_v3_min(lo, cr_v3(p[0] - rad, p[1] - rad, p[2] - rad));
            hi = cr_v3_max(hi, cr_v3(p[0] + rad, p[1] + rad, p[2] + rad));
        }
    cr_vec3 flo, fhi;
    snapshot_frame_bounds(&s, &flo, &fhi);
    s.stage_lo = flo;
    s.stage_hi = fhi;
    s.stage_key = 1;
    if (lo.x <= hi.x) {
        flo = cr_v3_min(flo, lo);
        fhi = cr_v3_max(fhi, hi);
    }
    draw_list planes;
    draw_list_init(&planes);
    draw_options opt = {.color = DRAW_COLOR_ID, .highlight_slot = -1};
    if (scene_draw_build(&planes, &s, &opt)) {
        draw_list_free(&planes);
        free(pos);
        free(col);
        free(s.bodies);
        return -1;
    }
    view_camera cam = camera_fit(flo, fhi, 1.6);
    cr_vec3 eye = camera_eye(&cam);
    int rc = 0;

    fputs("{\"format\":\"carom-replay\",\"version\":1,\"title\":", f);
    web_json_string(f, r->title);
    fprintf(f, ",\"samples\":%llu,\"bodies\":%u,\"times\":", (unsigned long long)samples, bodies);
    web_json_doubles(f, e->rows, samples, 7);
    fputs(",\"energy\":{\"t\":", f);
    web_json_doubles(f, e->rows, samples, 7);
    fputs(",\"kinetic\":", f);
    web_json_doubles(f, e->rows + 1, samples, 7);
    fputs(",\"potential\":", f);
    web_json_doubles(f, e->rows + 2, samples, 7);
    fputs(",\"total\":", f);
    web_json_doubles(f, e->rows + 3, samples, 7);
    fputs("},\"radius\":", f);
    web_json_doubles(f, r->scene.radius, bodies, 1);
    /* Positions as float32: a picture needs seven digits, and the page
     * stays a fraction of the CSV's size. */
    for (size_t i = 0; i < np; ++i) pos[i] = (float)t->positions[i];
    fputs(",\"positions\":", f);
    web_json_f32(f, pos, np);
    free(pos);
    for (uint32_t i = 0; i < bodies; ++i) draw_color_for_slot(i, &col[3 * i]);
    fputs(",\"colors\":", f);
    web_json_f32(f, col, (size_t)bodies * 3);
    free(col);
    /* Shapes: per body its kind (a box's half extents, a hull's or mesh's
     * triangles by index), the triangles once per shape, and every
     * sample's orientation (qw, qx, qy, qz) as float32. */
    fputs(",\"shapes\":[", f);
    for (uint32_t i = 0; i < bodies; ++i) {
        const web_body_shape *bs = &r->scene.shapes[i];
        fprintf(f, "%s{\"shape\":\"%s\"", i ? "," : "", web_shape_names[bs->kind]);
        if (bs->kind == WEB_BOX)
            fprintf(f, ",\"half_extents\":[%.9g,%.9g,%.9g]", bs->half_extents.x, bs->half_extents.y, bs->half_extents.z);
        else if (bs->kind != WEB_SPHERE)
            fprintf(f, ",\"mesh\":%u", bs->index);
        fputc('}', f);
    }
    fputs("],\"polyhedra\":[", f);
    const cJSON *polys = cJSON_GetObjectItemCaseSensitive(r->scene.root, "shapes");
    int written = 0;
    for (const cJSON *sh = polys ? polys->child : NULL; sh; sh = sh->next) {
        const cJSON *tri = cJSON_GetObjectItemCaseSensitive(sh, "triangles");
        size_t nf = (size_t)cJSON_GetArraySize(tri), k = 0;
        float *v = malloc((nf + 1) * sizeof *v);
        if (v == NULL) {
            rc = -1;
            break;
        }
        for (const cJSON *x = tri->child; x; x = x->next) v[k++] = (float)x->valuedouble;
        if (written++) fputc(',', f);
        web_json_f32(f, v, nf);
        free(v);
    }
    fputs("],\"orientations\":", f);
    web_json_f32(f, t->orientations, (size_t)t->samples * bodies * 4);
    fprintf(f, ",\"camera\":{\"eye\":[%.9g,%.9g,%.9g],\"target\":[%.9g,%.9g,%.9g],\"fov\":%.9g,\"near\":%.9g,\"far\":%.9g}",
            eye.x, eye.y, eye.z, cam.target.x, cam.target.y, cam.target.z, cam.fov_y * 180.0 / 3.14159265358979323846,
            cam.distance * 1e-3, cam.distance * 100.0 + cr_v3_len(cr_v3_sub(fhi, flo)));
    fputs(",\"meshes\":[", f);
    bool first = true;
    if (planes.index_count) {
        fputc('{', f);
        rc |= write_mesh_arrays(f, &planes);
        fputc('}', f);
        first = false;
    }
    const cJSON *statics = cJSON_GetObjectItemCaseSensitive(r->scene.root, "statics");
    draw_list mesh;
    draw_list_init(&mesh);
    for (const cJSON *st = statics->child; st; st = st->next) {
        const cJSON *shape = cJSON_GetObjectItemCaseSensitive(st, "shape");
        if (strcmp(shape->valuestring, "surface") != 0) continue;
        if (surface_mesh(cJSON_GetObjectItemCaseSensitive(st, "mesh"), &mesh)) {
            rc = -1;
            break;
        }
        fputs(first ? "{" : ",{", f);
        rc |= write_mesh_arrays(f, &mesh);
        fputc('}', f);
        first = false;
    }
    fputs("]}", f);
    draw_list_free(&mesh);
    draw_list_free(&planes);
    free(s.bodies);
    return rc ? -1 : 0;
}

/* ---- the page -------------------------------------------------------------------- */

/* Writes the template with its three markers replaced; 0, or -1 when out
 * of memory. */
static int write_page(FILE *f, const run_data *r)
{
    int rc = 0;
    const char *html = (const char *)web_page_html, *end = html + web_page_html_size;
    static const char *markers[3] = {"@CAROM_CSS@", "@CAROM_DATA@", "@CAROM_JS@"};
    const char *p = html;
    while (p < end) {
        const char *next = NULL;
        int which = -1;
        for (int k = 0; k < 3; ++k) {
            const char *m = strstr(p, markers[k]);
            if (m && (next == NULL || m < next)) {
                next = m;
                which = k;
            }
        }
        if (next == NULL) {
            fwrite(p, 1, (size_t)(end - p), f);
            break;
        }
        fwrite(p, 1, (size_t)(next - p), f);
        if (which == 0) web_raw_escaped(f, web_page_css, web_page_css_size);
        else if (which == 1) rc |= write_data(f, r);
        else web_raw_escaped(f, web_page_js, web_page_js_size);
        p = next + strlen(markers[which]);
    }
    return rc;
}
#endif

static int load_run(const export_args *a, run_data *r, char *err, size_t err_size)
{
    memset(r, 0, sizeof *r);
    char *scene = output_join(a->run_dir, "scene.json"), *traj = output_join(a->run_dir, "trajectory.csv"),
         *energy = output_join(a->run_dir, "energy.csv");
    int rc = -1;
    if (scene && traj && energy && scene_read(scene, &r->scene, err, err_size) == 0 &&
        trajectory_read(traj, &r->traj, err, err_size) == 0 && energy_read(energy, &r->energy, err, err_size) == 0) {
        rc = 0;
        if (r->traj.samples && r->traj.bodies != r->scene.bodies) {
            snprintf(err, err_size, "%s has %u bodies, %s %u: they are not of the same run", traj, r->traj.bodies, scene,
                     r->scene.bodies);
            rc = -1;
        } else if (r->traj.samples && r->traj.samples != r->energy.samples) {
            snprintf(err, err_size, "%s has %llu samples, %s %llu: they are not of the same run", traj,
                     (unsigned long long)r->traj.samples, energy, (unsigned long long)r->energy.samples);
            rc = -1;
        }
        for (uint64_t k = 0; rc == 0 && k < r->traj.samples; ++k)
            if (r->traj.times[k] != r->energy.rows[7 * k]) {
                snprintf(err, err_size, "sample %llu is at t = %.17g in %s but %.17g in %s: not of the same run",
                         (unsigned long long)k, r->traj.times[k], traj, r->energy.rows[7 * k], energy);
                rc = -1;
            }
    }
    if (scene == NULL || traj == NULL || energy == NULL) snprintf(err, err_size, "out of memory");
    free(scene);
    free(traj);
    free(energy);
    /* The page's title: the run directory's last component. */
    const char *t = a->run_dir + strlen(a->run_dir);
    while (t > a->run_dir && t[-1] == '/') --t;
    const char *stop = t;
    while (t > a->run_dir && t[-1] != '/') --t;
    static char title[256];
    snprintf(title, sizeof title, "%.*s", (int)(stop - t), t);
    r->title = title[0] ? title : a->run_dir;
    return rc;
}

static void free_run(run_data *r)
{
    scene_free(&r->scene);
    trajectory_free(&r->traj);
    energy_free(&r->energy);
}

int cmd_export_web(int argc, char **argv)
{
    export_args a;
    int rc = parse(argc, argv, &a);
    if (rc) return rc == 1 ? 0 : 2;
    char err[1024];
    run_data r;
    if (load_run(&a, &r, err, sizeof err)) {
        fprintf(stderr, "carom export-web: %s\n", err);
        free_run(&r);
        return 2;
    }
#ifdef CAROM_HAVE_WEB
    char *default_out = output_join(a.run_dir, "replay.html");
    const char *out = a.out ? a.out : default_out;
    char *dir = strdup(out), *slash = dir ? strrchr(dir, '/') : NULL;
    const char *d = ".";
    if (slash) {
        *slash = '\0';
        d = dir[0] ? dir : "/";
    }
    const char *base = slash ? slash + 1 : out;
    char *tmp = NULL;
    errno = 0;
    FILE *f = dir ? output_temp_file(d, base, &tmp) : NULL;
    if (f == NULL) {
        fprintf(stderr, "carom export-web: cannot create '%s': %s\n", out, strerror(errno ? errno : ENOMEM));
        rc = 1;
    } else {
        bool oom = write_page(f, &r) != 0;
        bool bad = ferror(f) != 0;
        if (fclose(f) != 0) bad = true;
        if (oom) {
            fprintf(stderr, "carom export-web: out of memory writing '%s'\n", out);
            unlink(tmp);
            rc = 1;
        } else if (bad || rename(tmp, out) != 0) {
            fprintf(stderr, "carom export-web: cannot write '%s': %s\n", out, strerror(errno ? errno : EIO));
            unlink(tmp);
            rc = 1;
        } else if (!a.quiet) {
            struct stat st;
            stat(out, &st);
            printf("carom: %llu samples of %u bodies from %s replayed in %s (%.1f MB)\n",
                   (unsigned long long)r.energy.samples, r.traj.bodies, a.run_dir, out, st.st_size / 1e6);
        }
    }
    free(tmp);
    free(dir);
    free(default_out);
#else
    fprintf(stderr, "carom export-web: this carom was built without the replay page (web/node_modules was missing\n"
                    "when it was built; make setup installs it with npm ci)\n");
    rc = 1;
#endif
    free_run(&r);
    return rc;
}
