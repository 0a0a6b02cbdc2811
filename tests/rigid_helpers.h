/* Shared set-up for the rigid-body tests (issue 5): boxes and joints. */
#ifndef CAROM_RIGID_HELPERS_H
#define CAROM_RIGID_HELPERS_H

#include "test_helpers.h"

#define PI 3.14159265358979323846

static inline cr_body_id add_box(cr_world *w, cr_vec3 half, cr_vec3 x, cr_quat q, double mass, double e, double mu)
{
    cr_shape *s = NULL;
    char msg[256];
    assert_int_equal(cr_shape_create_box(half, &s, msg, sizeof msg), CR_OK);
    cr_body_def d = cr_default_body_def();
    d.shape = CR_SHAPE_BOX;
    d.shape_ref = s;
    d.mass = mass;
    d.position = x;
    d.orientation = q;
    d.restitution = e;
    d.friction = mu;
    cr_body_id id;
    assert_int_equal(cr_world_add_body(w, &d, &id), CR_OK);
    cr_shape_release(s);
    return id;
}

static inline cr_quat axis_angle(cr_vec3 axis, double angle)
{
    cr_vec3 a = cr_v3_normalize(axis);
    cr_quat q = {cos(0.5 * angle), a.x * sin(0.5 * angle), a.y * sin(0.5 * angle), a.z * sin(0.5 * angle)};
    return q;
}

/* Sum of the normal impulses of the last step's contacts. */
static inline double normal_impulse_sum(const cr_world *w)
{
    double sum = 0.0;
    for (uint32_t k = 0; k < cr_world_contact_count(w); ++k) {
        cr_contact_report c;
        assert_int_equal(cr_world_get_contact(w, k, &c), CR_OK);
        sum += c.normal_impulse;
    }
    return sum;
}

#endif
