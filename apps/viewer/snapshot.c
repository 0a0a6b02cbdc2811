/* carom viewer — prepare(): the world copied into a display snapshot. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "snapshot.h"

static int reserve(void **p, uint32_t *capacity, uint32_t need, size_t size)
{
    if (need <= *capacity) return 0;
    uint32_t cap = *capacity ? *capacity : 64;
    while (cap < need) cap = cap > UINT32_MAX / 2 ? need : cap * 2;
    void *q = realloc(*p, (size_t)cap * size);
    if (q == NULL) return -1;
    *p = q;
    *capacity = cap;
    return 0;
}

/* Surface tessellation: 96 x 96 cells, smooth at any zoom that shows the
 * whole surface, 18k triangles each. */
#define SURFACE_CELLS 96

static int capture_surfaces(view_snapshot *s, const cr_world *world, uint64_t key)
{
    uint32_t n = cr_world_surface_count(world);
    if (s->surfaces_key == key && s->surface_count == n) return 0;
    draw_list_clear(&s->surfaces);
    s->surfaces_key = 0;
    for (uint32_t i = 0; i < n; ++i) {
        const cr_surface *surface = cr_world_surface(world, i);
        if (surface && draw_list_add_surface(&s->surfaces, surface, SURFACE_CELLS, DRAW_SHADE_HEIGHT)) return -1;
    }
    s->surface_count = n;
    s->surfaces_key = key;
    return 0;
}

static void shape_free(view_shape *v)
{
    free(v->triangles);
    free(v->normals);
    memset(v, 0, sizeof *v);
}

static void shapes_clear(view_snapshot *s)
{
    for (uint32_t i = 0; i < s->shape_count; ++i) shape_free(&s->shapes[i]);
    s->shape_count = 0;
}

static bool shape_matches(const view_shape *v, const cr_shape *shape)
{
    return v->key == (const void *)shape && v->type == cr_shape_get_type(shape) &&
           v->volume == cr_shape_mass_properties(shape)->volume && v->radius == cr_shape_bounding_radius(shape) &&
           v->triangle_count == cr_shape_triangles(shape, NULL, 0);
}

/* The index of shape's entry, copying its triangles on first sight; -1 when
 * out of memory. used[] marks the entries bodies use (grown with the table). */
static int32_t shape_index(view_snapshot *s, const cr_shape *shape, uint32_t hint, uint8_t **used, uint32_t *used_cap)
{
    if (hint < s->shape_count && s->shapes[hint].key == (const void *)shape) return (int32_t)hint;
    for (uint32_t i = 0; i < s->shape_count; ++i)
        if (s->shapes[i].key == (const void *)shape) {
            if (shape_matches(&s->shapes[i], shape)) return (int32_t)i;
            shape_free(&s->shapes[i]); /* a new shape where a freed one was: copied again below */
            s->shapes[i].key = NULL;
        }
    if (reserve((void **)&s->shapes, &s->shape_capacity, s->shape_count + 1, sizeof *s->shapes) ||
        reserve((void **)used, used_cap, s->shape_count + 1, sizeof **used))
        return -1;
    view_shape *v = &s->shapes[s->shape_count];
    memset(v, 0, sizeof *v);
    uint32_t n = cr_shape_triangles(shape, NULL, 0);
    v->triangles = malloc(3 * (size_t)(n ? n : 1) * sizeof *v->triangles);
    v->normals = malloc((size_t)(n ? n : 1) * sizeof *v->normals);
    if (v->triangles == NULL || v->normals == NULL) {
        shape_free(v);
        return -1;
    }
    cr_shape_triangles(shape, v->triangles, n);
    for (uint32_t t = 0; t < n; ++t) {
        const cr_vec3 *p = &v->triangles[3 * t];
        v->normals[t] = cr_v3_normalize(cr_v3_cross(cr_v3_sub(p[1], p[0]), cr_v3_sub(p[2], p[0])));
    }
    v->key = shape;
    v->type = cr_shape_get_type(shape);
    v->triangle_count = n;
    v->volume = cr_shape_mass_properties(shape)->volume;
    v->radius = cr_shape_bounding_radius(shape);
    (*used)[s->shape_count] = 0;
    return (int32_t)s->shape_count++;
}

/* Drops the entries no body used (and any emptied above), renumbering the
 * bodies' indices. */
static void shapes_compact(view_snapshot *s, const uint8_t *used)
{
    uint32_t map_static[64], *map = s->shape_count <= 64 ? map_static : malloc(s->shape_count * sizeof *map);
    if (map == NULL) return; /* keep them: harmless */
    uint32_t k = 0;
    for (uint32_t i = 0; i < s->shape_count; ++i) {
        if (used[i] && s->shapes[i].key) {
            map[i] = k;
            if (k != i) s->shapes[k] = s->shapes[i];
            ++k;
        } else {
            shape_free(&s->shapes[i]);
            map[i] = UINT32_MAX;
        }
    }
    s->shape_count = k;
    for (uint32_t b = 0; b < s->body_count; ++b)
        if (s->bodies[b].shape >= 0) s->bodies[b].shape = (int32_t)map[s->bodies[b].shape];
    if (map != map_static) free(map);
}

int snapshot_capture(view_snapshot *s, const cr_world *world, uint64_t world_key)
{
    if (s->shapes_key != world_key) {
        shapes_clear(s);
        s->shapes_key = world_key;
    }
    uint8_t *used = NULL;
    uint32_t used_cap = 0, hint = UINT32_MAX;
    if (s->shape_count && reserve((void **)&used, &used_cap, s->shape_count, 1)) return -1;
    if (used) memset(used, 0, used_cap);
    uint32_t capacity = cr_world_body_capacity(world);
    uint32_t planes = cr_world_plane_count(world);
    if (reserve((void **)&s->bodies, &s->body_capacity, cr_world_body_count(world), sizeof *s->bodies) ||
        reserve((void **)&s->planes, &s->plane_capacity, planes, sizeof *s->planes)) {
        free(used);
        return -1;
    }
    uint32_t n = 0;
    for (uint32_t slot = 0; slot < capacity; ++slot) {
        cr_body_id id = cr_world_body_at(world, slot);
        cr_body_state st;
        cr_body_def def;
        if (id.generation == 0 || cr_body_get_state(world, id, &st) != CR_OK || cr_body_get_def(world, id, &def) != CR_OK)
            continue;
        view_body *b = &s->bodies[n++];
        b->position = st.position;
        b->velocity = st.velocity;
        b->angular_velocity = st.angular_velocity;
        b->orientation = st.orientation;
        b->radius = def.radius;
        b->half_extents = def.shape_ref ? cr_shape_half_extents(def.shape_ref) : cr_v3_zero();
        b->shape = -1;
        if (def.shape_ref && (def.shape == CR_SHAPE_HULL || def.shape == CR_SHAPE_MESH)) {
            b->shape = shape_index(s, def.shape_ref, hint, &used, &used_cap);
            if (b->shape < 0) {
                s->body_count = n;
                shapes_compact(s, used);
                free(used);
                return -1;
            }
            used[b->shape] = 1;
            hint = (uint32_t)b->shape;
        }
        b->mass = def.mass;
        b->slot = slot;
        b->kinematic = def.type == CR_BODY_KINEMATIC;
        cr_static_id on;
        if (cr_body_get_ball_state(world, id, &b->state, &on) != CR_OK) b->state = CR_BALL_FLYING;
    }
    s->body_count = n;
    shapes_compact(s, used);
    free(used);
    /* Planes are never removed from a world, so plane i keeps the id
     * {i, generation 1} that cr_world_add_plane gave it. */
    uint32_t m = 0;
    for (uint32_t i = 0; i < planes; ++i) {
        cr_plane_def pd;
        cr_static_id sid = {.index = i, .generation = 1};
        if (cr_plane_get_def(world, sid, &pd) != CR_OK) continue;
        s->planes[m].point = pd.point;
        s->planes[m].normal = cr_v3_normalize(pd.normal);
        m++;
    }
    s->plane_count = m;
    if (capture_surfaces(s, world, world_key)) return -1;
    if (s->stage_key != world_key) {
        snapshot_frame_bounds(s, &s->stage_lo, &s->stage_hi);
        s->stage_key = world_key;
    }
    const cr_step_stats *stats = cr_world_stats(world);
    s->time = cr_world_time(world);
    s->dt = cr_world_get_def(world)->dt;
    s->steps = cr_world_step_count(world);
    s->energy = cr_world_energy(world);
    s->contacts = stats->contacts;
    s->events = stats->events;
    s->max_penetration = stats->max_penetration;
    return 0;
}

/* dst's shape table made src's: copied only when it differs (same keys and
 * figures in the same order mean the same triangles). */
static int shapes_copy(view_snapshot *dst, const view_snapshot *src)
{
    bool same = dst->shapes_key == src->shapes_key && dst->shape_count == src->shape_count;
    for (uint32_t i = 0; same && i < src->shape_count; ++i) {
        const view_shape *a = &dst->shapes[i], *b = &src->shapes[i];
        same = a->key == b->key && a->type == b->type && a->triangle_count == b->triangle_count &&
               a->volume == b->volume && a->radius == b->radius;
    }
    if (same) return 0;
    shapes_clear(dst);
    dst->shapes_key = 0;
    if (reserve((void **)&dst->shapes, &dst->shape_capacity, src->shape_count, sizeof *dst->shapes)) return -1;
    for (uint32_t i = 0; i < src->shape_count; ++i) {
        const view_shape *b = &src->shapes[i];
        view_shape *a = &dst->shapes[i];
        size_t n = b->triangle_count ? b->triangle_count : 1;
        *a = *b;
        a->triangles = malloc(3 * n * sizeof *a->triangles);
        a->normals = malloc(n * sizeof *a->normals);
        if (a->triangles == NULL || a->normals == NULL) {
            shape_free(a);
            dst->shape_count = i;
            return -1;
        }
        memcpy(a->triangles, b->triangles, 3 * (size_t)b->triangle_count * sizeof *a->triangles);
        memcpy(a->normals, b->normals, (size_t)b->triangle_count * sizeof *a->normals);
        dst->shape_count = i + 1;
    }
    dst->shapes_key = src->shapes_key;
    return 0;
}

int snapshot_copy(view_snapshot *dst, const view_snapshot *src)
{
    if (reserve((void **)&dst->bodies, &dst->body_capacity, src->body_count, sizeof *dst->bodies) ||
        reserve((void **)&dst->planes, &dst->plane_capacity, src->plane_count, sizeof *dst->planes))
        return -1;
    if (dst->surfaces_key != src->surfaces_key || dst->surface_count != src->surface_count) {
        draw_list_clear(&dst->surfaces);
        if (draw_list_append(&dst->surfaces, &src->surfaces)) return -1;
    }
    if (shapes_copy(dst, src)) return -1;
    view_body *bodies = dst->bodies;
    view_plane *planes = dst->planes;
    view_shape *shapes = dst->shapes;
    uint32_t bc = dst->body_capacity, pc = dst->plane_capacity, sc = dst->shape_capacity;
    draw_list surfaces = dst->surfaces;
    *dst = *src;
    dst->bodies = bodies;
    dst->planes = planes;
    dst->shapes = shapes;
    dst->body_capacity = bc;
    dst->plane_capacity = pc;
    dst->shape_capacity = sc;
    dst->surfaces = surfaces;
    if (src->body_count) memcpy(bodies, src->bodies, (size_t)src->body_count * sizeof *bodies);
    if (src->plane_count) memcpy(planes, src->planes, (size_t)src->plane_count * sizeof *planes);
    return 0;
}

void snapshot_free(view_snapshot *s)
{
    free(s->bodies);
    free(s->planes);
    shapes_clear(s);
    free(s->shapes);
    draw_list_free(&s->surfaces);
    memset(s, 0, sizeof *s);
}

void snapshot_bounds(const view_snapshot *s, cr_vec3 *lo, cr_vec3 *hi)
{
    cr_vec3 a = cr_v3(INFINITY, INFINITY, INFINITY), b = cr_v3(-INFINITY, -INFINITY, -INFINITY);
    for (uint32_t i = 0; i < s->body_count; ++i) {
        const view_body *bd = &s->bodies[i];
        if (!cr_v3_isfinite(bd->position)) continue;
        cr_vec3 r = cr_v3(bd->radius, bd->radius, bd->radius);
        a = cr_v3_min(a, cr_v3_sub(bd->position, r));
        b = cr_v3_max(b, cr_v3_add(bd->position, r));
    }
    cr_vec3 slo, shi;
    if (draw_list_bounds(&s->surfaces, &slo, &shi)) {
        a = cr_v3_min(a, slo);
        b = cr_v3_max(b, shi);
    }
    if (!(a.x <= b.x)) {
        a = cr_v3(-1, -1, -1);
        b = cr_v3(1, 1, 1);
    }
    *lo = a;
    *hi = b;
}

void snapshot_frame_bounds(const view_snapshot *s, cr_vec3 *lo, cr_vec3 *hi)
{
    snapshot_bounds(s, lo, hi);
    double r = snapshot_typical_radius(s, NULL);
    cr_vec3 c = cr_v3_scale(cr_v3_add(*lo, *hi), 0.5);
    double ext = fmax(cr_v3_len(cr_v3_sub(*hi, *lo)), 10.0 * r);
    for (uint32_t i = 0; i < s->plane_count; ++i) {
        const view_plane *p = &s->planes[i];
        double d = cr_v3_dot(cr_v3_sub(c, p->point), p->normal);
        if (d < 0.0 || d > 3.0 * ext) continue; /* behind it, or far away */
        cr_vec3 q = cr_v3_madd(c, p->normal, -d);
        *lo = cr_v3_min(*lo, q);
        *hi = cr_v3_max(*hi, q);
    }
    /* At least ten radii across, around the same centre. */
    cr_vec3 half = cr_v3_scale(cr_v3_sub(*hi, *lo), 0.5);
    c = cr_v3_scale(cr_v3_add(*lo, *hi), 0.5);
    double want = 5.0 * r / sqrt(3.0);
    half = cr_v3_max(half, cr_v3(want, want, want));
    *lo = cr_v3_sub(c, half);
    *hi = cr_v3_add(c, half);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double snapshot_typical_radius(const view_snapshot *s, double *mass)
{
    if (s->body_count == 0) {
        if (mass) *mass = 1.0;
        return 0.1;
    }
    double *r = malloc((size_t)s->body_count * sizeof *r);
    double median = s->bodies[0].radius;
    if (r) {
        for (uint32_t i = 0; i < s->body_count; ++i) r[i] = s->bodies[i].radius;
        qsort(r, s->body_count, sizeof *r, cmp_double);
        median = r[s->body_count / 2];
        free(r);
    }
    /* The first body's density: its mass scaled with volume. */
    if (mass) {
        const view_body *b0 = &s->bodies[0];
        double k = median / b0->radius;
        *mass = b0->mass * k * k * k;
    }
    return median;
}
