/* The viewer's pure parts, without OpenGL: the camera's projection and its
 * inverse, what the draw list holds for planes (cut into a box), surfaces,
 * boxes and balls, mouse picking, the snapshot and the overlay text. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "test_helpers.h"

#include "camera.h"
#include "draw_list.h"
#include "hud.h"
#include "picking.h"
#include "scene_draw.h"
#include "snapshot.h"

#define PI 3.14159265358979323846

static view_camera sample_camera(void)
{
    view_camera c = {.target = {0.3, -0.2, 1.0}, .yaw = 0.7, .pitch = 0.35, .distance = 5.0, .fov_y = 0.8};
    return c;
}

static void camera_ray_inverts_project(void **state)
{
    (void)state;
    view_camera c = sample_camera();
    int w = 640, h = 480;
    double px, py;
    assert_true(camera_project(&c, w, h, c.target, &px, &py));
    assert_near(px, 320.0, 1e-9);
    assert_near(py, 240.0, 1e-9);
    for (int i = 0; i < 50; ++i) {
        double x = 13.0 * i, y = 9.5 * i;
        cr_vec3 o, d;
        camera_ray(&c, w, h, x, y, &o, &d);
        assert_near(cr_v3_len(d), 1.0, 1e-12);
        cr_vec3 p = cr_v3_madd(o, d, 3.7);
        double qx, qy;
        assert_true(camera_project(&c, w, h, p, &qx, &qy));
        assert_near(qx, x, 1e-7);
        assert_near(qy, y, 1e-7);
    }
    /* Behind the eye: not projected. */
    cr_vec3 f, r, u;
    camera_basis(&c, &f, &r, &u);
    assert_false(camera_project(&c, w, h, cr_v3_madd(camera_eye(&c), f, -1.0), &px, &py));
}

static void view_matrix_agrees_with_project(void **state)
{
    (void)state;
    view_camera c = sample_camera();
    float v[16], p[16];
    camera_view_matrix(&c, v);
    camera_projection_matrix(&c, 4.0 / 3.0, 0.1, 100.0, p);
    cr_vec3 pts[3] = {c.target, cr_v3(1, 2, 0.5), cr_v3(-1, 0.5, 2)};
    for (int k = 0; k < 3; ++k) {
        double in[4] = {pts[k].x, pts[k].y, pts[k].z, 1.0}, e[4] = {0}, clip[4] = {0};
        for (int i = 0; i < 4; ++i)
            for (int j = 0; j < 4; ++j) e[i] += v[j * 4 + i] * in[j];
        for (int i = 0; i < 4; ++i)
            for (int j = 0; j < 4; ++j) clip[i] += p[j * 4 + i] * e[j];
        double px = (clip[0] / clip[3] + 1.0) * 0.5 * 640, py = (1.0 - clip[1] / clip[3]) * 0.5 * 480, qx, qy;
        assert_true(camera_project(&c, 640, 480, pts[k], &qx, &qy));
        assert_near(px, qx, 1e-3);
        assert_near(py, qy, 1e-3);
    }
    /* The target sits distance straight ahead. */
    double tz = v[2] * c.target.x + v[6] * c.target.y + v[10] * c.target.z + v[14];
    assert_near(tz, -c.distance, 1e-5);
}

static void fitted_camera_sees_the_whole_box(void **state)
{
    (void)state;
    cr_vec3 lo = cr_v3(-2, -1, 0), hi = cr_v3(3, 1, 4);
    for (int a = 0; a < 2; ++a) {
        int w = a ? 480 : 1280, h = a ? 800 : 720;
        view_camera c = camera_fit(lo, hi, (double)w / h);
        for (int i = 0; i < 8; ++i) {
            cr_vec3 p = cr_v3(i & 1 ? hi.x : lo.x, i & 2 ? hi.y : lo.y, i & 4 ? hi.z : lo.z);
            double px, py;
            assert_true(camera_project(&c, w, h, p, &px, &py));
            assert_true(px >= 0 && px <= w && py >= 0 && py <= h);
        }
    }
}

static void camera_gestures(void **state)
{
    (void)state;
    view_camera c = sample_camera();
    camera_orbit(&c, 0.0, 10.0);
    assert_true(c.pitch < PI / 2);
    cr_vec3 t0 = c.target;
    camera_pan(&c, 0.1, 0.0);
    cr_vec3 f, r, u;
    camera_basis(&c, &f, &r, &u);
    /* Panning right by a tenth of the view moves the target left along r. */
    assert_near(cr_v3_dot(cr_v3_sub(c.target, t0), r), -0.1 * 2 * c.distance * tan(c.fov_y / 2), 1e-12);
    double d = c.distance;
    camera_zoom(&c, 0.5);
    assert_near(c.distance, 0.5 * d, 1e-15);
    camera_override o = {.pitch = true, .value = {.pitch = -0.2}};
    camera_apply_override(&c, &o);
    assert_near(c.pitch, -0.2, 0.0);
    assert_near(c.distance, 0.5 * d, 1e-15);
}

/* Signed area of triangle list k facing normal n, and a check that every
 * triangle is counter-clockwise seen from its vertices' normal. */
static double facing_area(const draw_list *dl, size_t first_index, size_t end_index)
{
    double area = 0.0;
    for (size_t k = first_index; k < end_index; k += 3) {
        const draw_vertex *a = &dl->vertices[dl->indices[k]], *b = &dl->vertices[dl->indices[k + 1]],
                          *c = &dl->vertices[dl->indices[k + 2]];
        cr_vec3 pa = cr_v3(a->position[0], a->position[1], a->position[2]);
        cr_vec3 pb = cr_v3(b->position[0], b->position[1], b->position[2]);
        cr_vec3 pc = cr_v3(c->position[0], c->position[1], c->position[2]);
        cr_vec3 n = cr_v3(a->normal[0], a->normal[1], a->normal[2]);
        double s = 0.5 * cr_v3_dot(cr_v3_cross(cr_v3_sub(pb, pa), cr_v3_sub(pc, pa)), n);
        assert_true(s >= -1e-9);
        area += s;
    }
    return area;
}

static void planes_of_an_open_box_are_cut_to_the_box(void **state)
{
    (void)state;
    draw_plane planes[5] = {
        {{0, 0, 0}, {0, 0, 1}},     {{-0.5, 0, 0}, {1, 0, 0}}, {{0.5, 0, 0}, {-1, 0, 0}},
        {{0, -0.5, 0}, {0, 1, 0}}, {{0, 0.5, 0}, {0, -1, 0}},
    };
    const float grey[3] = {0.5f, 0.5f, 0.5f};
    draw_list dl;
    draw_list_init(&dl);
    assert_int_equal(draw_list_add_plane(&dl, &planes[0], planes, 5, cr_v3(0, 0, 1), 10.0, grey), 0);
    /* The floor is exactly the box's unit square. */
    assert_near(facing_area(&dl, 0, dl.index_count), 1.0, 1e-9);
    for (size_t i = 0; i < dl.vertex_count; ++i) {
        assert_true(fabs(dl.vertices[i].position[0]) <= 0.5 + 1e-6);
        assert_true(fabs(dl.vertices[i].position[1]) <= 0.5 + 1e-6);
        assert_near(dl.vertices[i].position[2], 0.0, 1e-7);
    }
    size_t floor_indices = dl.index_count, floor_vertices = dl.vertex_count;
    /* A wall: one box wide, from the floor up to the square's edge. */
    assert_int_equal(draw_list_add_plane(&dl, &planes[1], planes, 5, cr_v3(0, 0, 1), 10.0, grey), 0);
    double zmin = INFINITY;
    for (size_t i = floor_vertices; i < dl.vertex_count; ++i) {
        assert_near(dl.vertices[i].position[0], -0.5, 1e-7);
        assert_true(fabs(dl.vertices[i].position[1]) <= 0.5 + 1e-6);
        zmin = fmin(zmin, dl.vertices[i].position[2]);
    }
    assert_near(zmin, 0.0, 1e-7);
    assert_near(facing_area(&dl, floor_indices, dl.index_count), 1.0 * 11.0, 1e-6);
    /* A plane entirely on another's solid side draws nothing. */
    size_t before;
    draw_plane up = {{0, 0, 1}, {0, 0, 1}}, under_ceiling = {{0, 0, 0.5}, {0, 0, -1}};
    before = dl.index_count;
    assert_int_equal(draw_list_add_plane(&dl, &up, &under_ceiling, 1, cr_v3(0, 0, 0), 5.0, grey), 0);
    assert_int_equal(dl.index_count, before);
    draw_list_free(&dl);
}

static void box_faces_outwards_and_encloses_its_volume(void **state)
{
    (void)state;
    draw_list dl;
    draw_list_init(&dl);
    const float c[3] = {1, 0, 0};
    cr_quat q = cr_q_normalize((cr_quat){0.9, 0.1, -0.3, 0.2});
    assert_int_equal(draw_list_add_box(&dl, cr_v3(1, 2, 3), cr_v3(0.5, 1.0, 1.5), q, c), 0);
    assert_int_equal(dl.index_count, 36);
    /* Divergence theorem: volume = sum over triangles of (a . (b x c)) / 6. */
    double vol = 0.0, area = facing_area(&dl, 0, dl.index_count);
    for (size_t k = 0; k < dl.index_count; k += 3) {
        const float *a = dl.vertices[dl.indices[k]].position, *b = dl.vertices[dl.indices[k + 1]].position,
                    *d = dl.vertices[dl.indices[k + 2]].position;
        cr_vec3 pa = cr_v3(a[0], a[1], a[2]), pb = cr_v3(b[0], b[1], b[2]), pd = cr_v3(d[0], d[1], d[2]);
        vol += cr_v3_dot(pa, cr_v3_cross(pb, pd)) / 6.0;
    }
    assert_near(vol, 1.0 * 2.0 * 3.0, 1e-4);
    assert_near(area, 2 * (1.0 * 2.0 + 2.0 * 3.0 + 1.0 * 3.0), 1e-4);
    draw_list_free(&dl);
}

static void bowl_surface_lies_on_its_sphere(void **state)
{
    (void)state;
    cr_surface_def def = cr_default_surface_def();
    def.type = CR_SURFACE_BOWL;
    def.center = cr_v3(0.5, -0.5, 2.0);
    def.radius = 1.5;
    cr_surface *s = NULL;
    char msg[256];
    assert_int_equal(cr_surface_create(&def, &s, msg, sizeof msg), CR_OK);
    draw_list dl;
    draw_list_init(&dl);
    assert_int_equal(draw_list_add_surface(&dl, s, 24, DRAW_SHADE_HEIGHT), 0);
    assert_int_equal(dl.vertex_count, 25 * 25);
    assert_int_equal(dl.index_count, 6 * 24 * 24);
    for (size_t i = 0; i < dl.vertex_count; ++i) {
        const draw_vertex *v = &dl.vertices[i];
        cr_vec3 p = cr_v3(v->position[0], v->position[1], v->position[2]);
        cr_vec3 n = cr_v3(v->normal[0], v->normal[1], v->normal[2]);
        assert_near(cr_v3_len(cr_v3_sub(p, def.center)), def.radius, 1e-5);
        assert_true(p.z <= def.center.z + 1e-5);
        /* Balls roll inside: the free side faces the centre. */
        assert_true(cr_v3_dot(n, cr_v3_sub(def.center, p)) > 0.0);
    }
    /* Height shading: the bottom is the cold end of the map. */
    float cold[3];
    draw_color_map(0.0, cold);
    assert_near(dl.vertices[0].color[2], cold[2], 1e-6);
    draw_list_free(&dl);
    cr_surface_destroy(s);
}

static cr_world *two_balls_on_floor(void)
{
    cr_world *w = make_world(cr_v3(0, 0, -9.81), 1e-3, CR_METHOD_IMPULSE);
    add_plane(w, cr_v3(0, 0, 0), cr_v3(0, 0, 1));
    add_sphere(w, cr_v3(0, 0, 0.5), cr_v3(1, 0, 0), 0.5, 1.0, CR_INERTIA_SOLID, 0.5, 0.3);
    add_sphere(w, cr_v3(3, 0, 0.25), cr_v3(0, 0, 0), 0.25, 2.0, CR_INERTIA_SOLID, 0.5, 0.3);
    return w;
}

static void snapshot_and_scene_draw(void **state)
{
    (void)state;
    cr_world *w = two_balls_on_floor();
    view_snapshot s;
    memset(&s, 0, sizeof s);
    assert_int_equal(snapshot_capture(&s, w, 1), 0);
    assert_int_equal(s.body_count, 2);
    assert_int_equal(s.plane_count, 1);
    assert_near(s.bodies[1].radius, 0.25, 0.0);
    assert_near(s.bodies[0].velocity.x, 1.0, 0.0);
    cr_vec3 lo, hi;
    snapshot_bounds(&s, &lo, &hi);
    assert_near(lo.x, -0.5, 1e-12);
    assert_near(hi.x, 3.25, 1e-12);
    double mass, r = snapshot_typical_radius(&s, &mass);
    assert_near(r, 0.5, 0.0); /* median of {0.5, 0.25} with two values: the upper */
    assert_near(mass, 1.0, 1e-12);

    draw_list dl;
    draw_list_init(&dl);
    draw_options o = {.color = DRAW_COLOR_ID, .highlight_slot = 1};
    assert_int_equal(scene_draw_build(&dl, &s, &o), 0);
    assert_int_equal(dl.sphere_count, 2);
    assert_near(dl.spheres[1].center[0], 3.0, 0.0);
    assert_near(dl.spheres[1].color[0], 1.0, 0.0); /* highlighted */
    assert_true(dl.index_count >= 6);                     /* the floor */
    o.color = DRAW_COLOR_SPEED;
    o.highlight_slot = -1;
    assert_int_equal(scene_draw_build(&dl, &s, &o), 0);
    float hot[3], cold[3];
    draw_color_map(1.0, hot);
    draw_color_map(0.0, cold);
    assert_memory_equal(dl.spheres[0].color, hot, sizeof hot);  /* the fastest */
    assert_memory_equal(dl.spheres[1].color, cold, sizeof cold); /* still */

    char text[512];
    hud_format(&s, 59.6, text, sizeof text);
    assert_non_null(strstr(text, "2 bodies"));
    assert_non_null(strstr(text, "60 fps"));

    /* Copies are deep and equal. */
    view_snapshot c;
    memset(&c, 0, sizeof c);
    assert_int_equal(snapshot_copy(&c, &s), 0);
    assert_int_equal(c.body_count, 2);
    assert_true(c.bodies != s.bodies);
    assert_memory_equal(c.bodies, s.bodies, 2 * sizeof *c.bodies);
    snapshot_free(&c);
    draw_list_free(&dl);
    snapshot_free(&s);
    cr_world_destroy(w);
}

static void picking_balls_planes_and_spawns(void **state)
{
    (void)state;
    cr_world *w = two_balls_on_floor();
    view_snapshot s;
    memset(&s, 0, sizeof s);
    assert_int_equal(snapshot_capture(&s, w, 1), 0);
    /* Along +x at the height of both centres: the first ball first. */
    pick_hit h = pick_ray(&s, cr_v3(-5, 0, 0.4), cr_v3(1, 0, 0));
    assert_true(h.hit);
    assert_int_equal(h.body, 0);
    assert_near(h.point.x, -sqrt(0.25 - 0.01), 1e-12);
    /* Straight down between them: the floor, from its free side. */
    h = pick_ray(&s, cr_v3(1.5, 0, 5), cr_v3(0, 0, -1));
    assert_true(h.hit);
    assert_int_equal(h.plane, 0);
    assert_int_equal(h.body, -1);
    assert_near(h.t, 5.0, 1e-12);
    /* From below the floor (its solid side) nothing is hit. */
    h = pick_ray(&s, cr_v3(1.5, 0, -5), cr_v3(0, 0, 1));
    assert_false(h.hit);
    /* A ball dropped onto ball 0's top sits on it, touching nothing. */
    cr_vec3 o = cr_v3(0, 0, 5), d = cr_v3(0, 0, -1);
    h = pick_ray(&s, o, d);
    assert_int_equal(h.body, 0);
    cr_vec3 c = pick_spawn_position(&s, &h, o, d, 0.2, 3.0);
    assert_true(cr_v3_len(cr_v3_sub(c, s.bodies[0].position)) >= 0.7 - 1e-9);
    assert_true(c.z >= 0.2);
    /* The drag plane. */
    cr_vec3 p;
    assert_true(pick_ray_plane(cr_v3(0, 0, 0), cr_v3(0, 1, 0), cr_v3(0, 2, 0), cr_v3(0, -1, 0), &p));
    assert_near(p.y, 2.0, 1e-15);
    assert_false(pick_ray_plane(cr_v3(0, 0, 0), cr_v3(1, 0, 0), cr_v3(0, 2, 0), cr_v3(0, -1, 0), &p));
    snapshot_free(&s);
    cr_world_destroy(w);
}

static void picking_a_surface(void **state)
{
    (void)state;
    /* A bowl of radius 1.5 centred at (0, 0, 2): a ray straight down the
     * axis meets its bottom at z = 0.5, from the inside (its free side). */
    cr_world *w = make_world(cr_v3(0, 0, -9.81), 1e-3, CR_METHOD_IMPULSE);
    cr_surface_def def = cr_default_surface_def();
    def.type = CR_SURFACE_BOWL;
    def.center = cr_v3(0, 0, 2);
    def.radius = 1.5;
    assert_int_equal(cr_world_add_surface(w, &def, NULL), CR_OK);
    view_snapshot s;
    memset(&s, 0, sizeof s);
    assert_int_equal(snapshot_capture(&s, w, 1), 0);
    assert_true(s.surfaces.index_count > 0);
    pick_hit h = pick_ray(&s, cr_v3(0.01, 0.02, 5), cr_v3(0, 0, -1));
    assert_true(h.hit);
    assert_int_equal(h.body, -1);
    assert_int_equal(h.plane, -1);
    assert_near(h.point.z, 0.5, 2e-3); /* the tessellation's chord error */
    assert_true(h.normal.z > 0.99);
    /* From below, the bowl's outside is its solid side: not picked. */
    h = pick_ray(&s, cr_v3(0.01, 0.02, -5), cr_v3(0, 0, 1));
    assert_false(h.hit && h.t < 5.0);
    /* A ball dropped there rests on the bottom. */
    h = pick_ray(&s, cr_v3(0.01, 0.02, 5), cr_v3(0, 0, -1));
    cr_vec3 c = pick_spawn_position(&s, &h, cr_v3(0.01, 0.02, 5), cr_v3(0, 0, -1), 0.1, 3.0);
    assert_near(c.z, 0.6, 3e-3);
    snapshot_free(&s);
    cr_world_destroy(w);
}

/* A hull shared by two bodies and a mesh: the snapshot holds each shape's
 * triangles once, the draw list places them at each body's pose, a copy has
 * its own triangles, and a shape no body uses any more is dropped. */
static cr_body_id add_shaped(cr_world *w, cr_shape *s, cr_shape_type type, cr_vec3 x, cr_quat q)
{
    cr_body_def d = cr_default_body_def();
    d.shape = type;
    d.shape_ref = s;
    d.position = x;
    d.orientation = q;
    cr_body_id id;
    assert_int_equal(cr_world_add_body(w, &d, &id), CR_OK);
    return id;
}

static void snapshot_of_hulls_and_meshes(void **state)
{
    (void)state;
    char msg[256];
    cr_world *w = make_world(cr_v3(0, 0, 0), 1e-3, CR_METHOD_IMPULSE);
    cr_vec3 pts[5] = {cr_v3(0, 0, 0), cr_v3(1, 0, 0), cr_v3(0, 1, 0), cr_v3(0, 0, 1), cr_v3(0.6, 0.6, 0.6)};
    cr_shape *hull, *mesh;
    assert_int_equal(cr_shape_create_hull(pts, 5, &hull, msg, sizeof msg), CR_OK);
    const uint32_t tet[12] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};
    assert_int_equal(cr_shape_create_mesh(pts, 4, tet, 4, &mesh, msg, sizeof msg), CR_OK);
    cr_quat q = {cos(0.4), sin(0.4) * 0.6, 0.0, sin(0.4) * 0.8};
    add_shaped(w, hull, CR_SHAPE_HULL, cr_v3(0, 0, 1), cr_q_identity());
    cr_body_id m = add_shaped(w, mesh, CR_SHAPE_MESH, cr_v3(2, 0, 1), q);
    add_shaped(w, hull, CR_SHAPE_HULL, cr_v3(-2, 1, 1), q);
    uint32_t nh = cr_shape_triangles(hull, NULL, 0), nm = cr_shape_triangles(mesh, NULL, 0);
    assert_int_equal(nm, 4);

    view_snapshot s;
    memset(&s, 0, sizeof s);
    assert_int_equal(snapshot_capture(&s, w, 1), 0);
    assert_int_equal(s.body_count, 3);
    assert_int_equal(s.shape_count, 2);
    assert_int_equal(s.bodies[0].shape, s.bodies[2].shape);
    assert_true(s.bodies[1].shape >= 0 && s.bodies[1].shape != s.bodies[0].shape);
    assert_int_equal(s.shapes[s.bodies[0].shape].triangle_count, nh);
    assert_int_equal(s.shapes[s.bodies[1].shape].triangle_count, nm);
    const cr_vec3 *t0 = s.shapes[s.bodies[0].shape].triangles;
    /* Captured again: the same table, not copied anew. */
    assert_int_equal(snapshot_capture(&s, w, 1), 0);
    assert_ptr_equal(s.shapes[s.bodies[0].shape].triangles, t0);

    draw_list dl;
    draw_list_init(&dl);
    draw_options o = {.color = DRAW_COLOR_ID, .highlight_slot = -1};
    assert_int_equal(scene_draw_build(&dl, &s, &o), 0);
    assert_int_equal(dl.sphere_count, 0);
    assert_int_equal(dl.vertex_count, 3 * (size_t)(2 * nh + nm));
    assert_int_equal(dl.index_count, dl.vertex_count);
    /* Body 2's first vertex: its position plus its rotation of the shape's. */
    const view_shape *v = &s.shapes[s.bodies[2].shape];
    cr_vec3 want = cr_v3_add(cr_v3(-2, 1, 1), cr_m3_mul_v(cr_q_to_m3(cr_q_normalize(q)), v->triangles[0]));
    const draw_vertex *dv = &dl.vertices[3 * (size_t)(nh + nm)];
    assert_near(dv->position[0], want.x, 1e-6);
    assert_near(dv->position[1], want.y, 1e-6);
    assert_near(dv->position[2], want.z, 1e-6);
    /* Every triangle counter-clockwise about its outward normal. */
    for (size_t i = 0; i < dl.index_count; i += 3) {
        const float *a = dl.vertices[dl.indices[i]].position, *b = dl.vertices[dl.indices[i + 1]].position,
                    *c = dl.vertices[dl.indices[i + 2]].position, *n = dl.vertices[dl.indices[i]].normal;
        cr_vec3 e1 = cr_v3(b[0] - a[0], b[1] - a[1], b[2] - a[2]), e2 = cr_v3(c[0] - a[0], c[1] - a[1], c[2] - a[2]);
        assert_true(cr_v3_dot(cr_v3_cross(e1, e2), cr_v3(n[0], n[1], n[2])) > 0.0);
    }

    view_snapshot c;
    memset(&c, 0, sizeof c);
    assert_int_equal(snapshot_copy(&c, &s), 0);
    assert_int_equal(c.shape_count, 2);
    assert_true(c.shapes[0].triangles != s.shapes[0].triangles);
    assert_memory_equal(c.shapes[0].triangles, s.shapes[0].triangles, 3 * (size_t)s.shapes[0].triangle_count * sizeof(cr_vec3));

    /* The mesh body removed: its shape leaves the table. */
    assert_int_equal(cr_world_remove_body(w, m), CR_OK);
    assert_int_equal(snapshot_capture(&s, w, 1), 0);
    assert_int_equal(s.body_count, 2);
    assert_int_equal(s.shape_count, 1);
    assert_int_equal(s.bodies[0].shape, 0);
    assert_int_equal(s.bodies[1].shape, 0);
    assert_int_equal(snapshot_copy(&c, &s), 0);
    assert_int_equal(c.shape_count, 1);
    assert_int_equal(c.shapes[0].triangle_count, nh);

    draw_list_free(&dl);
    snapshot_free(&c);
    snapshot_free(&s);
    cr_world_destroy(w);
    cr_shape_release(hull);
    cr_shape_release(mesh);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(camera_ray_inverts_project),
        cmocka_unit_test(view_matrix_agrees_with_project),
        cmocka_unit_test(fitted_camera_sees_the_whole_box),
        cmocka_unit_test(camera_gestures),
        cmocka_unit_test(planes_of_an_open_box_are_cut_to_the_box),
        cmocka_unit_test(box_faces_outwards_and_encloses_its_volume),
        cmocka_unit_test(bowl_surface_lies_on_its_sphere),
        cmocka_unit_test(snapshot_and_scene_draw),
        cmocka_unit_test(snapshot_of_hulls_and_meshes),
        cmocka_unit_test(picking_balls_planes_and_spawns),
        cmocka_unit_test(picking_a_surface),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
