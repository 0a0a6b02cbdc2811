/* carom viewer — the simulation in its own thread (seed 004, Algorithm 1).
 *
 *     prepare();
 *     while (not finished)
 *         in parallel: display();  and  simulate(time-step);
 *         prepare();
 *
 * simulate() steps the world (set 1, touched by this thread only) by the
 * wall time since the last call, times the speed: in whole steps of the
 * scene's dt (reproducible: the same states as carom run), or, with
 * `adaptive`, in one step as long as that time (seed 004's non-uniform
 * global time step, through cr_world_set_dt); prepare() copies the
 * world into a snapshot (set 2) and publishes it; display() draws the
 * latest published snapshot. Snapshots are triple-buffered: the thread
 * writes one, one waits published, the display holds one, and handing one
 * over is a pointer swap under a mutex. So a slow frame never stalls
 * physics (the thread never waits for the display) and physics never tears
 * a frame (the display never sees a snapshot being written).
 *
 * The display changes the world only through commands (pause, step, reset,
 * speed, spawn, drag), which the thread applies between steps.
 */
#ifndef CAROM_VIEWER_SIM_THREAD_H
#define CAROM_VIEWER_SIM_THREAD_H

#include <stddef.h>
#include <stdint.h>

#include "snapshot.h"

/* Makes a fresh world (at start and on reset); the thread owns and
 * destroys it. 0, or -1 with a message. */
typedef int sim_loader(void *ctx, cr_world **out, char *err, size_t err_size);

typedef enum sim_command_kind {
    SIM_PAUSE,      /* value != 0: pause, 0: run */
    SIM_TOGGLE_PAUSE,
    SIM_STEP,       /* one step (when paused) */
    SIM_RESET,      /* reload the world from the loader */
    SIM_SPEED,      /* value: simulated seconds per wall second, in (0, 64] */
    SIM_SPAWN,      /* a ball at point, of radius value and mass value2 */
    SIM_DRAG_START, /* body slot starts following point */
    SIM_DRAG_MOVE,  /* new point to follow */
    SIM_DRAG_END    /* let go: the body keeps its last velocity */
} sim_command_kind;

typedef struct sim_command {
    sim_command_kind kind;
    double value, value2;
    cr_vec3 point;
    uint32_t slot;
} sim_command;

typedef struct sim_options {
    double speed;       /* initial speed, default 1 (real time) */
    bool paused;        /* start paused */
    double drag_tau;    /* s; a dragged body's velocity is (target - x) / tau */
    bool adaptive;      /* one step per simulate(), as long as the wall time since the
                           last one times the speed, within [dt / 1000, 4 dt] of the
                           scene's dt; single steps stay the scene's dt */
} sim_options;

sim_options sim_default_options(void);

typedef struct sim_thread sim_thread;

/* Loads the world (on the calling thread, so that a bad scene is reported
 * before any window opens), publishes its first snapshot and starts the
 * thread. 0, or -1 with the loader's message. */
int sim_start(sim_thread **out, sim_loader *loader, void *ctx, const sim_options *options, char *err,
              size_t err_size);
/* The latest published snapshot; it stays valid and unchanged until the
 * next sim_acquire from the same (display) thread. */
const view_snapshot *sim_acquire(sim_thread *t);
/* Queues a command for the simulation thread (never blocks on a step). */
void sim_send(sim_thread *t, const sim_command *c);
/* Stops the thread and frees everything. */
void sim_stop(sim_thread *t);

/* What dragging does to the body each step (exposed for tests): its
 * velocity becomes (target - x) / tau, no faster than vmax. */
cr_vec3 sim_drag_velocity(cr_vec3 x, cr_vec3 target, double tau, double vmax);

#endif
