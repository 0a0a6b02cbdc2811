/* carom viewer — the window, the mouse and the keys (see viewer.h).
 *
 * The display thread (this one) only reads snapshots and sends commands;
 * the world lives in the simulation thread (sim_thread.c).
 *
 * Dragging, physically: while a ball is held, the simulation thread sets
 * its velocity before every step to (target - x) / tau (tau = 0.05 s),
 * capped at 100 radii per second, where target follows the mouse in the
 * plane through the grabbed point facing the camera. Gravity and contacts
 * still act within each step, so a held ball pushes others aside with real
 * impulses and is pushed back; momentum and energy are not conserved while
 * holding (the hand is an external agent). On release the ball keeps the
 * velocity it had, so it can be thrown.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <GLFW/glfw3.h>

#include "gl_api.h"
#include "hud.h"
#include "overlay.h"
#include "picking.h"
#include "png_out.h"
#include "renderer.h"
#include "scene_draw.h"
#include "viewer.h"

static const char help_text[] =
    "left-drag: orbit   right/middle-drag: pan   wheel: zoom   F: fit\n"
    "drag a ball: move it   shift-click: drop a ball   B: drop at cursor\n"
    "space: pause   N: single step   R: reset   S: slow motion (x0.1)\n"
    "[ ]: half/double speed   1: real time   C: colour by id/speed/state\n"
    "P: screenshot   H: this help   Esc/Q: quit";

typedef enum gesture { GESTURE_NONE, GESTURE_ORBIT, GESTURE_PAN, GESTURE_DRAG } gesture;

typedef struct viewer {
    GLFWwindow *window;
    sim_thread *sim;
    const view_snapshot *snap;
    view_camera camera;
    camera_override camera_override;
    bool camera_fitted;
    renderer *renderer;
    overlay *overlay;
    draw_list dl;
    draw_options draw;
    gesture gesture;
    double mouse_x, mouse_y;
    /* the held ball */
    cr_vec3 drag_point, drag_normal, drag_offset;
    /* display state */
    bool show_overlay, show_help;
    double speed, speed_before_slow;
    bool slow;
    double fps;
    int screenshots;
} viewer;

static char glfw_message[256];

static void on_glfw_error(int code, const char *message)
{
    (void)code;
    snprintf(glfw_message, sizeof glfw_message, "%s", message);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void window_size(viewer *v, int *w, int *h)
{
    glfwGetWindowSize(v->window, w, h);
    if (*w < 1) *w = 1;
    if (*h < 1) *h = 1;
}

static void mouse_ray(viewer *v, double x, double y, cr_vec3 *o, cr_vec3 *d)
{
    int w, h;
    window_size(v, &w, &h);
    camera_ray(&v->camera, w, h, x, y, o, d);
}

static void send(viewer *v, sim_command_kind kind, double value)
{
    sim_command c = {.kind = kind, .value = value};
    sim_send(v->sim, &c);
}

static void set_speed(viewer *v, double speed)
{
    v->speed = fmax(1.0 / 1024.0, fmin(64.0, speed));
    send(v, SIM_SPEED, v->speed);
}

static void fit_camera(viewer *v)
{
    int w, h;
    window_size(v, &w, &h);
    cr_vec3 lo, hi;
    snapshot_frame_bounds(v->snap, &lo, &hi);
    v->camera = camera_fit(lo, hi, (double)w / h);
    camera_apply_override(&v->camera, &v->camera_override);
    v->camera_fitted = true;
}

static void spawn_at(viewer *v, double x, double y)
{
    cr_vec3 o, d;
    mouse_ray(v, x, y, &o, &d);
    pick_hit hit = pick_ray(v->snap, o, d);
    double mass, r = snapshot_typical_radius(v->snap, &mass);
    sim_command c = {.kind = SIM_SPAWN, .value = r, .value2 = mass};
    c.point = pick_spawn_position(v->snap, &hit, o, d, r, v->camera.distance);
    sim_send(v->sim, &c);
}

static void start_drag(viewer *v, const pick_hit *hit)
{
    const view_body *b = &v->snap->bodies[hit->body];
    cr_vec3 f, r, u;
    camera_basis(&v->camera, &f, &r, &u);
    v->drag_point = hit->point;
    v->drag_normal = cr_v3_neg(f);
    v->drag_offset = cr_v3_sub(b->position, hit->point);
    v->draw.highlight_slot = b->slot;
    v->gesture = GESTURE_DRAG;
    sim_command c = {.kind = SIM_DRAG_START, .slot = b->slot, .point = b->position};
    sim_send(v->sim, &c);
}

static void on_mouse_button(GLFWwindow *window, int button, int action, int mods)
{
    viewer *v = glfwGetWindowUserPointer(window);
    double x, y;
    glfwGetCursorPos(window, &x, &y);
    v->mouse_x = x;
    v->mouse_y = y;
    if (action == GLFW_RELEASE) {
        if (v->gesture == GESTURE_DRAG) {
            send(v, SIM_DRAG_END, 0.0);
            v->draw.highlight_slot = -1;
        }
        v->gesture = GESTURE_NONE;
        return;
    }
    if (button == GLFW_MOUSE_BUTTON_LEFT) {
        if (mods & GLFW_MOD_SHIFT) {
            spawn_at(v, x, y);
            return;
        }
        cr_vec3 o, d;
        mouse_ray(v, x, y, &o, &d);
        pick_hit hit = pick_ray(v->snap, o, d);
        if (hit.hit && hit.body >= 0 && !v->snap->bodies[hit.body].kinematic) start_drag(v, &hit);
        else v->gesture = GESTURE_ORBIT;
    } else
        v->gesture = GESTURE_PAN;
}

static void on_cursor(GLFWwindow *window, double x, double y)
{
    viewer *v = glfwGetWindowUserPointer(window);
    double dx = x - v->mouse_x, dy = y - v->mouse_y;
    v->mouse_x = x;
    v->mouse_y = y;
    int w, h;
    window_size(v, &w, &h);
    switch (v->gesture) {
    case GESTURE_ORBIT: camera_orbit(&v->camera, -dx * 0.006, dy * 0.006); break;
    case GESTURE_PAN: camera_pan(&v->camera, dx / h, -dy / h); break;
    case GESTURE_DRAG: {
        cr_vec3 o, d, p;
        mouse_ray(v, x, y, &o, &d);
        if (pick_ray_plane(o, d, v->drag_point, v->drag_normal, &p)) {
            sim_command c = {.kind = SIM_DRAG_MOVE, .point = cr_v3_add(p, v->drag_offset)};
            sim_send(v->sim, &c);
        }
        break;
    }
    case GESTURE_NONE: break;
    }
}

static void on_scroll(GLFWwindow *window, double dx, double dy)
{
    (void)dx;
    viewer *v = glfwGetWindowUserPointer(window);
    camera_zoom(&v->camera, pow(0.88, dy));
}

static int screenshot(viewer *v, const char *path, char *err, size_t err_size)
{
    int w, h;
    glfwGetFramebufferSize(v->window, &w, &h);
    size_t row = (size_t)w * 3;
    unsigned char *raw = malloc(row * (size_t)h), *rgb = malloc(row * (size_t)h);
    int rc = -1;
    if (raw && rgb) {
        glReadBuffer(GL_BACK);
        glPixelStorei(GL_PACK_ALIGNMENT, 1);
        glReadPixels(0, 0, w, h, GL_RGB, GL_UNSIGNED_BYTE, raw);
        for (int y = 0; y < h; ++y) memcpy(rgb + (size_t)y * row, raw + (size_t)(h - 1 - y) * row, row);
        rc = png_write_rgb(path, rgb, w, h, err, err_size);
    } else
        snprintf(err, err_size, "out of memory for a %dx%d screenshot", w, h);
    free(raw);
    free(rgb);
    return rc;
}

static void on_key(GLFWwindow *window, int key, int scancode, int action, int mods)
{
    (void)scancode;
    (void)mods;
    if (action == GLFW_RELEASE) return;
    viewer *v = glfwGetWindowUserPointer(window);
    switch (key) {
    case GLFW_KEY_ESCAPE:
    case GLFW_KEY_Q: glfwSetWindowShouldClose(window, GLFW_TRUE); break;
    case GLFW_KEY_SPACE: send(v, SIM_TOGGLE_PAUSE, 0.0); break;
    case GLFW_KEY_N:
    case GLFW_KEY_PERIOD:
        send(v, SIM_PAUSE, 1.0);
        send(v, SIM_STEP, 0.0);
        break;
    case GLFW_KEY_R: send(v, SIM_RESET, 0.0); break;
    case GLFW_KEY_LEFT_BRACKET: set_speed(v, v->speed * 0.5); break;
    case GLFW_KEY_RIGHT_BRACKET: set_speed(v, v->speed * 2.0); break;
    case GLFW_KEY_1: v->slow = false; set_speed(v, 1.0); break;
    case GLFW_KEY_S:
        if (v->slow) set_speed(v, v->speed_before_slow);
        else {
            v->speed_before_slow = v->speed;
            set_speed(v, v->speed * 0.1);
        }
        v->slow = !v->slow;
        break;
    case GLFW_KEY_C: v->draw.color = (draw_color_mode)((v->draw.color + 1) % 3); break;
    case GLFW_KEY_H: v->show_help = !v->show_help; break;
    case GLFW_KEY_O: v->show_overlay = !v->show_overlay; break;
    case GLFW_KEY_F: fit_camera(v); break;
    case GLFW_KEY_B: spawn_at(v, v->mouse_x, v->mouse_y); break;
    case GLFW_KEY_P: {
        char path[64], err[512];
        for (int i = 0; i < 10000; ++i) {
            snprintf(path, sizeof path, "carom-view-%03d.png", ++v->screenshots);
            FILE *f = fopen(path, "r");
            if (f == NULL) break;
            fclose(f);
        }
        if (screenshot(v, path, err, sizeof err) == 0) printf("carom view: screenshot %s\n", path);
        else fprintf(stderr, "carom view: %s\n", err);
        break;
    }
    default: break;
    }
}

static void draw_frame(viewer *v, int fw, int fh)
{
    scene_draw_build(&v->dl, v->snap, &v->draw);
    renderer_draw(v->renderer, &v->dl, &v->camera, fw, fh);
    if (!v->show_overlay) return;
    int ww, wh;
    window_size(v, &ww, &wh);
    char text[1024], hud[512];
    hud_format(v->snap, v->fps, hud, sizeof hud);
    snprintf(text, sizeof text, "%s\n%s", hud, v->show_help ? help_text : "H: help");
    overlay_draw(v->overlay, text, fw, fh, 1.6f * (float)fw / (float)ww);
}

static int open_window(viewer *v, const viewer_options *o, char *err, size_t err_size)
{
    glfwSetErrorCallback(on_glfw_error);
    if (!glfwInit()) {
        snprintf(err, err_size, "cannot open a window: %s (carom render draws images without a display)",
                 glfw_message[0] ? glfw_message : "GLFW could not initialise");
        return -1;
    }
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_SAMPLES, 4);
    v->window = glfwCreateWindow(o->width, o->height, o->title ? o->title : "carom", NULL, NULL);
    if (v->window == NULL) {
        snprintf(err, err_size, "cannot open an OpenGL 3.3 window: %s", glfw_message);
        glfwTerminate();
        return -1;
    }
    glfwMakeContextCurrent(v->window);
    glfwSwapInterval(1);
    glfwSetWindowUserPointer(v->window, v);
    glfwSetMouseButtonCallback(v->window, on_mouse_button);
    glfwSetCursorPosCallback(v->window, on_cursor);
    glfwSetScrollCallback(v->window, on_scroll);
    glfwSetKeyCallback(v->window, on_key);
    if (renderer_create(&v->renderer, err, err_size) || overlay_create(&v->overlay, err, err_size)) {
        glfwDestroyWindow(v->window);
        glfwTerminate();
        return -1;
    }
    glEnable(GL_MULTISAMPLE);
    return 0;
}

int viewer_run(const viewer_options *o, sim_loader *loader, void *ctx, int *load_failed, char *err, size_t err_size)
{
    viewer v;
    memset(&v, 0, sizeof v);
    *load_failed = 0;
    v.camera_override = o->camera;
    v.draw.color = o->color;
    v.draw.highlight_slot = -1;
    v.show_overlay = true;
    v.speed = o->sim.speed > 0.0 ? o->sim.speed : 1.0;
    draw_list_init(&v.dl);
    /* The scene first: a bad scene is a bad scene with or without a display. */
    if (sim_start(&v.sim, loader, ctx, &o->sim, err, err_size)) {
        *load_failed = 1;
        return -1;
    }
    v.snap = sim_acquire(v.sim);
    if (open_window(&v, o, err, err_size)) {
        sim_stop(v.sim);
        return -1;
    }
    int rc = 0;
    double start = now(), fps_start = start;
    int frames = 0;
    while (!glfwWindowShouldClose(v.window)) {
        glfwPollEvents();
        v.snap = sim_acquire(v.sim);
        if (!v.camera_fitted) fit_camera(&v);
        int fw, fh;
        glfwGetFramebufferSize(v.window, &fw, &fh);
        if (fw < 1 || fh < 1) { /* minimised */
            glfwWaitEventsTimeout(0.1);
            continue;
        }
        draw_frame(&v, fw, fh);
        double t = now();
        if (o->exit_after > 0.0 && t - start >= o->exit_after) {
            if (o->screenshot) rc = screenshot(&v, o->screenshot, err, err_size);
            break;
        }
        glfwSwapBuffers(v.window);
        ++frames;
        if (t - fps_start >= 0.5) {
            v.fps = frames / (t - fps_start);
            frames = 0;
            fps_start = t;
        }
    }
    sim_stop(v.sim);
    draw_list_free(&v.dl);
    overlay_destroy(v.overlay);
    renderer_destroy(v.renderer);
    glfwDestroyWindow(v.window);
    glfwTerminate();
    return rc;
}
