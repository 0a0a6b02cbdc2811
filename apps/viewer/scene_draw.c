/* carom viewer — snapshot to draw list (see scene_draw.h). */
#include <math.h>
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
        if (draw_list_add_sphere(dl, b->position, b->radius, c, b->orientation)) return -1;
    }
    /* Planes reach twice the stage's size past its centre (the floor under
     * a pile looks endless; a wall of a box is cut by the others), and stay
     * put while bodies move. */
    cr_vec3 lo = s->stage_lo, hi = s->stage_hi;
    if (s->stage_key == 0) snapshot_frame_bounds(s, &lo, &hi);
    cr_vec3 centre = cr_v3_scale(cr_v3_add(lo, hi), 0.5);
    double half = fmax(cr_v3_len(cr_v3_sub(hi, lo)), 1.0);
    for (uint32_t i = 0; i < s->plane_count; ++i)
        if (draw_list_add_plane(dl, &s->planes[i], s->planes, s->plane_count, centre, half, plane_color)) return -1;
    return draw_list_append(dl, &s->surfaces);
}
