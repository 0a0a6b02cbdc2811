/* Jointed pairs (cr_joint_def.collide, src/rigid_contacts.c's joined):
 * two boxes hinged where they overlap make no contact with each other by
 * default and do with collide true; the filter takes nothing else (a box
 * that overlaps one of them unjointed, a static box overlapping a body
 * hinged to the world: a joint to the world filters nothing), and it goes
 * with its joint (removed: the pair collides again). Counts of contacts
 * by pair, exact: the hinged pair's, with collide true, are the same
 * overlap's as the unjointed one's. */
#include <stdio.h>

#include "rigid_helpers.h"

/* Contacts of the last step between bodies p and q (either order). */
static uint32_t contacts_between(const cr_world *w, cr_body_id p, cr_body_id q)
{
    uint32_t n = 0;
    for (uint32_t k = 0; k < cr_world_contact_count(w); ++k) {
        cr_contact_report c;
        assert_int_equal(cr_world_get_contact(w, k, &c), CR_OK);
        if (c.b.generation == 0) continue; /* a plane */
        if ((c.a.index == p.index && c.b.index == q.index) || (c.a.index == q.index && c.b.index == p.index)) ++n;
    }
    return n;
}

typedef struct scene {
    cr_world *w;
    cr_body_id a, b, c, s;
    cr_joint_id ab;
} scene;

/* No gravity. Boxes 0.2 x 0.1 x 0.1 m along x: A at -0.09 and B at 0.09,
 * hinged at the origin (axis y) where their ends overlap by 0.02 m; C at
 * 0.27 overlaps B's far end by 0.02 m, unjointed; A is hinged to the world
 * at its far end, where a static box S overlaps it by 0.02 m. */
static scene make(bool collide)
{
    scene sc;
    sc.w = make_world(cr_v3_zero(), 1e-3, CR_METHOD_IMPULSE);
    const cr_vec3 half = cr_v3(0.1, 0.05, 0.05);
    sc.a = add_box(sc.w, half, cr_v3(-0.09, 0, 0), cr_q_identity(), 1.0, 0.0, 0.5);
    sc.b = add_box(sc.w, half, cr_v3(0.09, 0, 0), cr_q_identity(), 1.0, 0.0, 0.5);
    sc.c = add_box(sc.w, half, cr_v3(0.27, 0, 0), cr_q_identity(), 1.0, 0.0, 0.5);
    char msg[256];
    cr_body_def st = cr_default_body_def();
    st.type = CR_BODY_STATIC, st.shape = CR_SHAPE_BOX, st.mass = 1.0;
    st.position = cr_v3(-0.27, 0, 0);
    assert_int_equal(cr_shape_create_box(half, &st.shape_ref, msg, sizeof msg), CR_OK);
    assert_int_equal(cr_world_add_body(sc.w, &st, &sc.s), CR_OK);
    cr_shape_release(st.shape_ref);
    cr_joint_def j = cr_default_joint_def();
    assert_false(j.collide); /* the default */
    j.type = CR_JOINT_HINGE;
    j.axis = cr_v3(0, 1, 0);
    j.a = sc.b, j.b = sc.a, j.anchor = cr_v3_zero(), j.collide = collide;
    assert_int_equal(cr_world_add_joint(sc.w, &j, &sc.ab), CR_OK);
    j = cr_default_joint_def();
    j.type = CR_JOINT_HINGE;
    j.axis = cr_v3(0, 1, 0);
    j.a = sc.a, j.anchor = cr_v3(-0.19, 0, 0); /* b null: the world */
    assert_int_equal(cr_world_add_joint(sc.w, &j, NULL), CR_OK);
    return sc;
}

static void test_hinged_overlap_filtered(void **state)
{
    (void)state;
    for (int collide = 0; collide <= 1; ++collide) {
        scene sc = make(collide);
        assert_int_equal(cr_world_step(sc.w), CR_OK);
        uint32_t ab = contacts_between(sc.w, sc.a, sc.b), bc = contacts_between(sc.w, sc.b, sc.c),
                 as = contacts_between(sc.w, sc.a, sc.s);
        printf("collide %s: contacts A-B %u, B-C %u, A-S %u\n", collide ? "true" : "false", ab, bc, as);
        /* A-B and B-C overlap alike (end faces 0.02 m deep): the same manifold */
        assert_true(bc > 0u);
        assert_int_equal(ab, collide ? bc : 0u);
        assert_int_equal(as, bc); /* A is hinged to the world: that filters nothing */
        cr_world_destroy(sc.w);
    }
    /* the filter goes with its joint */
    scene sc = make(false);
    assert_int_equal(cr_world_step(sc.w), CR_OK);
    assert_int_equal(contacts_between(sc.w, sc.a, sc.b), 0u);
    assert_int_equal(cr_world_remove_joint(sc.w, sc.ab), CR_OK);
    assert_int_equal(cr_world_step(sc.w), CR_OK);
    assert_true(contacts_between(sc.w, sc.a, sc.b) > 0u);
    cr_world_destroy(sc.w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hinged_overlap_filtered),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
