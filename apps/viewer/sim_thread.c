/* carom viewer — the simulation thread (see sim_thread.h). */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim_thread.h"

/* Publish at least this often, so that the display follows even when the
 * world steps slower than real time. */
#define PUBLISH_INTERVAL (1.0 / 120.0)
/* Never owe more simulated time than this many wall seconds' worth: a world
 * slower than real time then runs slow instead of trying to catch up. */
#define MAX_DEBT_WALL 0.1
#define MAX_COMMANDS 4096

struct sim_thread {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    /* Shared, under lock. */
    view_snapshot buffers[3];
    int back, pending, front; /* thread's, published, display's */
    bool fresh;               /* pending is newer than front */
    sim_command *queue;
    size_t queue_count;
    bool quit;
    /* The thread's own. */
    sim_loader *loader;
    void *ctx;
    cr_world *world;
    uint64_t world_key; /* new for every world loaded: surfaces are tessellated once per world */
    cr_vec3 stage_lo, stage_hi;
    uint64_t stage_key;
    bool paused, failed;
    char error[256];
    double speed, debt;
    bool adaptive;
    double base_dt; /* the scene's dt, which adaptive steps vary around */
    uint64_t single_steps;
    double drag_tau;
    bool dragging;
    uint32_t drag_slot;
    cr_vec3 drag_target;
    double rate_window_start;
    uint64_t rate_window_steps;
    double steps_per_second;
    uint64_t serial;
};

sim_options sim_default_options(void)
{
    sim_options o = {.speed = 1.0, .paused = false, .drag_tau = 0.05, .adaptive = false};
    return o;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

cr_vec3 sim_drag_velocity(cr_vec3 x, cr_vec3 target, double tau, double vmax)
{
    cr_vec3 v = cr_v3_scale(cr_v3_sub(target, x), 1.0 / tau);
    double speed = cr_v3_len(v);
    if (speed > vmax) v = cr_v3_scale(v, vmax / speed);
    return v;
}

/* prepare(): the world into the back buffer, then published by a swap. */
static void prepare(sim_thread *t)
{
    view_snapshot *s = &t->buffers[t->back];
    if (snapshot_capture(s, t->world, t->world_key) != 0) return; /* out of memory: keep showing the last one */
    /* Every buffer draws its planes where the world's first snapshot did. */
    if (t->stage_key != t->world_key) {
        t->stage_lo = s->stage_lo;
        t->stage_hi = s->stage_hi;
        t->stage_key = t->world_key;
    }
    s->stage_lo = t->stage_lo;
    s->stage_hi = t->stage_hi;
    s->paused = t->paused;
    s->speed = t->speed;
    s->steps_per_second = t->steps_per_second;
    s->failed = t->failed;
    snprintf(s->error, sizeof s->error, "%s", t->error);
    s->serial = ++t->serial;
    pthread_mutex_lock(&t->lock);
    int k = t->back;
    t->back = t->pending;
    t->pending = k;
    t->fresh = true;
    pthread_mutex_unlock(&t->lock);
}

static void drop_drag(sim_thread *t) { t->dragging = false; }

static void apply_drag(sim_thread *t)
{
    if (!t->dragging) return;
    cr_body_id id = cr_world_body_at(t->world, t->drag_slot);
    cr_body_state st;
    cr_body_def def;
    if (id.generation == 0 || cr_body_get_state(t->world, id, &st) != CR_OK || cr_body_get_def(t->world, id, &def) != CR_OK) {
        drop_drag(t);
        return;
    }
    /* No faster than a hundred radii per second: a fast flick moves the
     * ball quickly without launching it through the scene. */
    st.velocity = sim_drag_velocity(st.position, t->drag_target, t->drag_tau, 100.0 * def.radius);
    cr_body_set_state(t->world, id, &st);
}

static void spawn(sim_thread *t, const sim_command *c)
{
    cr_body_def def = cr_default_body_def();
    /* Borrow the first body's material, so the newcomer behaves like the rest. */
    cr_body_id first = cr_world_body_at(t->world, 0);
    cr_body_def like;
    if (first.generation != 0 && cr_body_get_def(t->world, first, &like) == CR_OK) {
        def.restitution = like.restitution;
        def.friction = like.friction;
        def.inertia_kind = like.inertia_kind == CR_INERTIA_CUSTOM ? CR_INERTIA_SOLID : like.inertia_kind;
    }
    def.position = c->point;
    def.radius = c->value;
    def.mass = c->value2;
    cr_world_add_body(t->world, &def, NULL); /* a refused spawn (bad values) simply does not happen */
}

static void reset(sim_thread *t)
{
    cr_world *w = NULL;
    char err[200];
    if (t->loader(t->ctx, &w, err, sizeof err) != 0) {
        snprintf(t->error, sizeof t->error, "reset failed: %s", err);
        return;
    }
    cr_world_destroy(t->world);
    t->world = w;
    t->base_dt = cr_world_get_def(w)->dt;
    t->world_key++;
    t->failed = false;
    t->error[0] = '\0';
    t->debt = 0.0;
    t->single_steps = 0;
    drop_drag(t);
}

static void apply(sim_thread *t, const sim_command *c)
{
    switch (c->kind) {
    case SIM_PAUSE: t->paused = c->value != 0.0; break;
    case SIM_TOGGLE_PAUSE: t->paused = !t->paused; break;
    case SIM_STEP:
        if (t->paused) t->single_steps++;
        break;
    case SIM_RESET: reset(t); break;
    case SIM_SPEED:
        if (c->value > 0.0 && c->value <= 64.0) t->speed = c->value;
        break;
    case SIM_SPAWN: spawn(t, c); break;
    case SIM_DRAG_START:
        t->dragging = true;
        t->drag_slot = c->slot;
        t->drag_target = c->point;
        break;
    case SIM_DRAG_MOVE: t->drag_target = c->point; break;
    case SIM_DRAG_END: drop_drag(t); break;
    }
    t->debt = t->paused ? 0.0 : t->debt;
}

/* Takes the queued commands; returns false when asked to quit. */
static bool take_commands(sim_thread *t, sim_command *out, size_t *n)
{
    pthread_mutex_lock(&t->lock);
    bool go = !t->quit;
    *n = t->queue_count;
    if (*n) memcpy(out, t->queue, *n * sizeof *out);
    t->queue_count = 0;
    pthread_mutex_unlock(&t->lock);
    return go;
}

/* simulate(): one step of the world, with the drag applied first. */
static bool step(sim_thread *t)
{
    apply_drag(t);
    if (cr_world_step(t->world) != CR_OK) {
        t->failed = true;
        snprintf(t->error, sizeof t->error, "%s", cr_world_last_error(t->world));
        return false;
    }
    t->rate_window_steps++;
    return true;
}

/* true when a new figure is ready (every half second of wall time). */
static bool measure_rate(sim_thread *t, double wall)
{
    double span = wall - t->rate_window_start;
    if (span < 0.5) return false;
    t->steps_per_second = (double)t->rate_window_steps / span;
    t->rate_window_start = wall;
    t->rate_window_steps = 0;
    return true;
}

static void sleep_until(sim_thread *t, double seconds)
{
    if (seconds <= 0.0) return;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    double end = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec + seconds;
    ts.tv_sec = (time_t)end;
    ts.tv_nsec = (long)((end - (double)ts.tv_sec) * 1e9);
    pthread_mutex_lock(&t->lock);
    /* A command or quit wakes the thread at once. */
    if (!t->quit && t->queue_count == 0) pthread_cond_timedwait(&t->wake, &t->lock, &ts);
    pthread_mutex_unlock(&t->lock);
}

static void *run(void *arg)
{
    sim_thread *t = arg;
    sim_command *commands = malloc(MAX_COMMANDS * sizeof *commands);
    if (commands == NULL) return NULL;
    double last = now();
    t->rate_window_start = last;
    size_t n;
    while (take_commands(t, commands, &n)) {
        for (size_t i = 0; i < n; ++i) apply(t, &commands[i]);
        double start = now(), elapsed = start - last;
        last = start;
        double dt = cr_world_get_def(t->world)->dt;
        bool stepped = false, was_failed = t->failed;
        if (t->failed) {
            /* the world refuses steps; wait for a reset */
        } else if (t->paused) {
            if (t->single_steps && t->adaptive) cr_world_set_dt(t->world, t->base_dt);
            for (; t->single_steps > 0; --t->single_steps)
                if (!(stepped = step(t))) break;
            t->single_steps = 0;
        } else if (t->adaptive) {
            /* Algorithm 1's non-uniform global time step: "the time used
             * since the previous call to simulate()", one step of it. */
            double h = fmin(fmax(elapsed * t->speed, 1e-3 * t->base_dt), 4.0 * t->base_dt);
            cr_world_set_dt(t->world, h);
            stepped = step(t);
            t->debt = 0.0;
        } else {
            /* The time step of Algorithm 1: the wall time since the last
             * simulate(), in simulated seconds. */
            t->debt = fmin(t->debt + elapsed * t->speed, MAX_DEBT_WALL * t->speed + dt);
            while (t->debt >= dt && now() - start < PUBLISH_INTERVAL) {
                if (!(stepped = step(t))) break;
                t->debt -= dt;
            }
        }
        bool failed_now = t->failed;
        if (measure_rate(t, now()) || stepped || n || failed_now != was_failed) prepare(t);
        /* Nothing due yet: wait for the next step's time or a command. */
        if (t->paused || t->failed) sleep_until(t, 0.02);
        else if (t->adaptive) {
            /* A step faster than a thousandth of dt would only add rounding. */
            double spent = now() - start;
            if (spent * t->speed < 1e-3 * t->base_dt) sleep_until(t, 1e-3 * t->base_dt / t->speed - spent);
        } else if (t->debt < dt)
            sleep_until(t, fmin((dt - t->debt) / t->speed, 0.02));
    }
    free(commands);
    return NULL;
}

/* What sim_start made, once its thread is gone (or never started). */
static void sim_free(sim_thread *t)
{
    pthread_mutex_destroy(&t->lock);
    pthread_cond_destroy(&t->wake);
    for (int i = 0; i < 3; ++i) snapshot_free(&t->buffers[i]);
    cr_world_destroy(t->world);
    free(t->queue);
    free(t);
}

int sim_start(sim_thread **out, sim_loader *loader, void *ctx, const sim_options *o, char *err, size_t err_size)
{
    sim_thread *t = calloc(1, sizeof *t);
    t->queue = t ? malloc(MAX_COMMANDS * sizeof *t->queue) : NULL;
    if (t == NULL || t->queue == NULL) {
        free(t);
        snprintf(err, err_size, "out of memory");
        return -1;
    }
    t->loader = loader;
    t->ctx = ctx;
    t->speed = o->speed > 0.0 ? o->speed : 1.0;
    t->paused = o->paused;
    t->drag_tau = o->drag_tau > 0.0 ? o->drag_tau : 0.05;
    t->adaptive = o->adaptive;
    t->back = 0;
    t->pending = 1;
    t->front = 2;
    if (loader(ctx, &t->world, err, err_size) != 0) {
        free(t->queue);
        free(t);
        return -1;
    }
    t->world_key = 1;
    t->base_dt = cr_world_get_def(t->world)->dt;
    pthread_mutex_init(&t->lock, NULL);
    pthread_cond_init(&t->wake, NULL);
    /* The first prepare(), before the loop: the display has a frame at once. */
    prepare(t);
    snapshot_copy(&t->buffers[t->front], &t->buffers[t->pending]);
    int e = pthread_create(&t->thread, NULL, run, t);
    if (e != 0) {
        snprintf(err, err_size, "cannot start the simulation thread: %s", strerror(e));
        sim_free(t);
        return -1;
    }
    *out = t;
    return 0;
}

const view_snapshot *sim_acquire(sim_thread *t)
{
    pthread_mutex_lock(&t->lock);
    if (t->fresh) {
        int k = t->front;
        t->front = t->pending;
        t->pending = k;
        t->fresh = false;
    }
    const view_snapshot *s = &t->buffers[t->front];
    pthread_mutex_unlock(&t->lock);
    return s;
}

void sim_send(sim_thread *t, const sim_command *c)
{
    pthread_mutex_lock(&t->lock);
    if (t->queue_count < MAX_COMMANDS) t->queue[t->queue_count++] = *c;
    else if (c->kind == SIM_DRAG_MOVE && t->queue_count) t->queue[t->queue_count - 1] = *c;
    pthread_cond_signal(&t->wake);
    pthread_mutex_unlock(&t->lock);
}

void sim_stop(sim_thread *t)
{
    if (t == NULL) return;
    pthread_mutex_lock(&t->lock);
    t->quit = true;
    pthread_cond_signal(&t->wake);
    pthread_mutex_unlock(&t->lock);
    pthread_join(t->thread, NULL);
    sim_free(t);
}
