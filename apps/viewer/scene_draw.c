/* carom viewer — snapshot to draw list (see scene_draw.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scene_draw.h"

static const float plane_color[3] = {0.78f, 0.80f, 0.83f};
static const float highlight_color[3] = {1.0f, 1.0f, 1.0f};

/* Colours of seed 004's ball states. */
static void state_color(cr_ball_state st, float c[3])
{
    static const float table[4][3] = {
        {0.55f, 0.60f, 0.68f}, /* flying */
        {0.30f, 0.75f, 0.40f}, /* rolling */
        {0.95f, 0.55f, 0.15f}, /* sliding */
        {0.35f, 0.50f, 0.95f}, /* still */
    };
    memcpy(c, table[(unsigned)st < 4 ? (unsigned)st : 0], 3 * sizeof *c);
}

int scene_draw_build(draw_list *dl, const view_snapshot *s, const draw_options *o)
{
    draw_list_clear(dl);
    double vmax = 0.0;
    if (o->color == DRAW_COLOR_SPEED)
        for (uint32_t i = 0; i < s->body_count; ++i) vmax = fmax(vmax, cr_v3_len(s->bodies[i].velocity));
    for (uint32_t i = 0; i < s->body_count; ++i) {
        const view_body *b = &s->bodies[i];
        float c[3];
        if ((int64_t)b->slot == o->highlight_slot) memcpy(c, highlight_color, sizeof c);
        else if (o->color == DRAW_COLOR_SPEED) draw_color_map(vmax > 0.0 ? cr_v3_len(b->velocity) / vmax : 0.0, c);
        else if (o->color == DRAW_COLOR_STATE) state_color(b->state, c);
        else draw_color_for_slot(b->slot, c);
        /* boxes as boxes, hulls and meshes as their triangles, at the body's pose */
        if (b->shape >= 0 && (uint32_t)b->shape < s->shape_count) {
            const view_shape *v = &s->shapes[b->shape];
            if (draw_list_add_triangles(dl, v->triangles, v->normals, v->triangle_count, b->position, b->orientation, c))
                return -1;
        } else if (b->half_extents.x > 0.0) {
            if (draw_list_add_box(dl, b->position, b->half_extents, b->orientation, c)) return -1;
        } else if (draw_list_add_sphere(dl, b->position, b->radius, c, b->orientation)) {
            return -1;
        }
    }
    /* Planes are drawn as large squares around the stage's centre (the
     * floor under a pile looks endless), cut by the other planes (a box's
     * walls meet at its edges) and by the stage grown by half its size on
     * every side (walls stop a little above what happens between them).
     * The stage is fixed per world, so planes stay put while bodies move. */
    cr_vec3 lo = s->stage_lo, hi = s->stage_hi;
    if (s->stage_key == 0) snapshot_frame_bounds(s, &lo, &hi);
    cr_vec3 centre = cr_v3_scale(cr_v3_add(lo, hi), 0.5);
    double size = fmax(cr_v3_len(cr_v3_sub(hi, lo)), 1.0), grow = 0.5 * size;
    view_plane *clip = malloc(((size_t)s->plane_count + 6) * sizeof *clip);
    if (clip == NULL) return -1;
    if (s->plane_count) memcpy(clip, s->planes, (size_t)s->plane_count * sizeof *clip);
    for (int k = 0; k < 6; ++k) {
        double sign = k % 2 ? -1.0 : 1.0; /* the box's faces, looking in */
        cr_vec3 n = cr_v3(k / 2 == 0 ? sign : 0, k / 2 == 1 ? sign : 0, k / 2 == 2 ? sign : 0);
        cr_vec3 corner = k % 2 ? hi : lo;
        clip[s->plane_count + k].point = cr_v3_madd(corner, n, -grow);
        clip[s->plane_count + k].normal = n;
    }
    int rc = 0;
    for (uint32_t i = 0; i < s->plane_count && rc == 0; ++i)
        rc = draw_list_add_plane(dl, &s->planes[i], clip, s->plane_count + 6, centre, size, plane_color);
    free(clip);
    if (rc) return -1;
    return draw_list_append(dl, &s->surfaces);
}
