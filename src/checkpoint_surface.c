/* The surfaces in a checkpoint (src/checkpoint_surface.h). Each is
 * written as the def the world keeps (not a custom one) and, read back,
 * added through cr_world_add_surface, then written again and compared:
 * a value the builder sets itself, or one its type does not have, would
 * save back otherwise, so it is refused. */
#include "checkpoint_surface.h"
#include "message.h"
#include "surface_internal.h"
#include "world_internal.h"

/* One surface's def as the world keeps it (not a custom one). */
static void write_surface(writer *o, const cr_surface_def *d)
{
    put_u32(o, (uint32_t)d->type);
    put_vec(o, d->point);
    put_vec(o, d->normal);
    put_f64(o, d->height);
    /* only hills have bumps: another type keeps the def's hills pointer as
     * its caller gave it (cr_surface_create copies them for hills only),
     * which may be gone by now */
    const uint32_t hills = d->type == CR_SURFACE_HILLS ? d->hill_count : 0;
    put_u32(o, hills);
    for (uint32_t h = 0; h < hills; ++h) {
        put_f64(o, d->hills[h].amplitude);
        put_f64(o, d->hills[h].x);
        put_f64(o, d->hills[h].y);
        put_f64(o, d->hills[h].width);
    }
    put_f64(o, d->wave_amplitude);
    put_f64(o, d->wave_length_x);
    put_f64(o, d->wave_length_y);
    put_vec(o, d->center);
    put_f64(o, d->radius);
    put_u32(o, (uint32_t)d->degree);
    uint32_t points = d->type == CR_SURFACE_BSPLINE ? d->count_u * d->count_v : 0;
    put_u32(o, d->count_u);
    put_u32(o, d->count_v);
    for (uint32_t c = 0; c < points; ++c) put_vec(o, d->control_points[c]);
    /* The domain as given (built-ins set their own from their parameters). */
    put_f64(o, isfinite(d->u_min) ? d->u_min : -1.0);
    put_f64(o, isfinite(d->u_max) ? d->u_max : 1.0);
    put_f64(o, isfinite(d->v_min) ? d->v_min : -1.0);
    put_f64(o, isfinite(d->v_max) ? d->v_max : 1.0);
    put_u32(o, d->flip_normal);
    put_f64(o, d->restitution);
    put_f64(o, d->friction);
    put_f64(o, d->rolling_friction);
}

cr_status cr_ckpt_write_surfaces(writer *o, const cr_world *w, char *msg, size_t size)
{
    put_u32(o, w->surfaces.count);
    for (uint32_t k = 0; k < w->surfaces.count; ++k) {
        const cr_surface_def *d = &w->surfaces.surface[k]->def;
        if (d->type == CR_SURFACE_CUSTOM || d->coefficients) {
            cr_msgf(msg, size,
                    "checkpoint: surface %u has a callback (custom map or coefficient map) that cannot be saved", k);
            return CR_ERR_INVALID_ARGUMENT;
        }
        write_surface(o, d);
    }
    return CR_OK;
}

/* ---- loading ------------------------------------------------------------ */

cr_status cr_ckpt_read_surfaces(reader *r, cr_world *w, char *msg, size_t size)
{
    uint32_t count = get_count(r, 8);
    for (uint32_t k = 0; k < count && !r->bad; ++k) {
        const size_t start = r->off;
        cr_surface_def d = cr_default_surface_def();
        d.type = (cr_surface_type)get_u32(r);
        d.point = get_vec(r);
        d.normal = get_vec(r);
        d.height = get_f64(r);
        d.hill_count = get_count(r, 32);
        cr_hill *hills = d.hill_count ? malloc(sizeof *hills * d.hill_count) : NULL;
        if (d.hill_count && !hills) {
            cr_msgf(msg, size, "checkpoint: out of memory");
            return CR_ERR_OUT_OF_MEMORY;
        }
        for (uint32_t h = 0; h < d.hill_count; ++h) {
            hills[h].amplitude = get_f64(r);
            hills[h].x = get_f64(r);
            hills[h].y = get_f64(r);
            hills[h].width = get_f64(r);
        }
        d.hills = hills;
        d.wave_amplitude = get_f64(r);
        d.wave_length_x = get_f64(r);
        d.wave_length_y = get_f64(r);
        d.center = get_vec(r);
        d.radius = get_f64(r);
        d.degree = (int)get_u32(r);
        d.count_u = get_u32(r);
        d.count_v = get_u32(r);
        uint64_t points = d.type == CR_SURFACE_BSPLINE ? (uint64_t)d.count_u * d.count_v : 0;
        if (points > (r->n - r->off) / 24) r->bad = true;
        cr_vec3 *ctrl = !r->bad && points ? malloc(sizeof *ctrl * points) : NULL;
        for (uint64_t c = 0; ctrl && c < points; ++c) ctrl[c] = get_vec(r);
        d.control_points = ctrl;
        d.u_min = get_f64(r);
        d.u_max = get_f64(r);
        d.v_min = get_f64(r);
        d.v_max = get_f64(r);
        uint32_t flip = get_u32(r);
        d.flip_normal = flip != 0;
        d.restitution = get_f64(r);
        d.friction = get_f64(r);
        d.rolling_friction = get_f64(r);
        if (!r->bad && (flip > 1 || (d.hill_count && d.type != CR_SURFACE_HILLS))) { /* as the saver writes */
            free(hills);
            free(ctrl);
            if (flip > 1)
                cr_msgf(msg, size, "checkpoint: surface %u: flip flag %u, not 0 or 1", k, flip);
            else
                cr_msgf(msg, size, "checkpoint: surface %u: %u hills on a surface of type %u", k, d.hill_count,
                        (unsigned)d.type);
            return CR_ERR_INVALID_ARGUMENT;
        }
        cr_status s = r->bad || (points && !ctrl) ? CR_ERR_INVALID_ARGUMENT : cr_world_add_surface(w, &d, NULL);
        free(hills);
        free(ctrl);
        if (s != CR_OK) {
            cr_msgf(msg, size, "checkpoint: surface %u: %s", k, r->bad ? "truncated" : w->error);
            return CR_ERR_INVALID_ARGUMENT;
        }
        /* As the world keeps it, or it would save back otherwise: the
         * builder normalises the normal, a built-in sets its own domain, a
         * bowl or hills ignore what is not theirs, ... */
        writer kept = {0};
        write_surface(&kept, &w->surfaces.surface[k]->def);
        size_t at = 0, n = r->off - start;
        while (!kept.oom && at < n && at < kept.n && kept.p[at] == r->p[start + at]) ++at;
        bool same = !kept.oom && kept.n == n && at == n;
        free(kept.p);
        if (!same) {
            cr_msgf(msg, size,
                    "checkpoint: surface %u: byte %zu of its %zu is not what the world keeps (a value the surface "
                    "sets itself, or one a surface of its type does not have)",
                    k, at, n);
            return CR_ERR_INVALID_ARGUMENT;
        }
    }
    return CR_OK;
}
