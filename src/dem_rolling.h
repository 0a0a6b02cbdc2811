/* The spring-dashpot-slider rolling resistance of one DEM contact, LAMMPS
 * pair granular's "rolling sds k_roll gamma_roll mu_roll" (Luding 2008;
 * Wang et al., Particuology 23 (2015) 49, eq. 31 for the rolling velocity),
 * operation for operation as LAMMPS's GranSubModRollingSDS
 * (gran_sub_mod_rolling.cpp) and GranularModel::calculate_forces, without
 * the second turn LAMMPS makes when its synchronized_verlet flag is set
 * (into nx_unrotated; newer than the LAMMPS installed here). Matched to
 * LAMMPS 29 Sep 2021's pair granular (the same operations, inline) within
 * 4e-15: tests/test_dem_lammps.c, test_rolling_matches_lammps.
 *
 * For spheres i and j, n = (x_i - x_j) / |x_i - x_j| (a unit vector, as
 * LAMMPS's nx), R* = r_i r_j / (r_i + r_j):
 *   v_roll = R* (w_i - w_j) x n                       (Wang eq. 31)
 *   xi_r  <- xi_r turned into the tangent plane, its length kept, then
 *            xi_r += v_roll dt                          (history)
 *   F_roll = -k_roll xi_r - gamma_roll v_roll, |F_roll| <= mu_roll |F_n|:
 *            above it F_roll is scaled to the limit and xi_r set to the
 *            displacement that gives it (as the shear spring)
 *   T_i = R* n x F_roll, T_j = -T_i                     (no force on either)
 * A ball rolling on a bed feels a torque against its spin: at the slider's
 * limit mu_roll R* |F_n| (tests/test_dem_rolling.c).
 *
 * Pure, static inline: meant for the law's per-contact stage (dem_law.c).
 * Internal. */
#ifndef CAROM_DEM_ROLLING_H
#define CAROM_DEM_ROLLING_H

#include <math.h>
#include <stdbool.h>

#include "carom/math.h"

/* LAMMPS's EPSILON in the frame-update test: the history is turned into the
 * tangent plane only when its normal part would change the force by more
 * than this fraction of the limit. */
#define DEM_ROLLING_FRAME_EPS 1e-10

typedef struct dem_rolling_params {
    double k;     /* k_roll, > 0 when the model is on */
    double gamma; /* gamma_roll, >= 0 (not scaled by the mass: LAMMPS's) */
    double mu;    /* mu_roll, >= 0 */
} dem_rolling_params;

/* v_roll = R* (w_i - w_j) x n, in LAMMPS's order (R* times each component
 * of the cross product). */
static inline cr_vec3 cr_dem_rolling_velocity(cr_vec3 wi, cr_vec3 wj, cr_vec3 n, double reff)
{
    const cr_vec3 rel = cr_v3_sub(wi, wj);
    return cr_v3(reff * (rel.y * n.z - rel.z * n.y), reff * (rel.z * n.x - rel.x * n.z),
                 reff * (rel.x * n.y - rel.y * n.x));
}

/* The history's part along n taken out and its length kept (LAMMPS's
 * MathExtra::rotate_rescale_vec); zero when it lies along n. */
static inline cr_vec3 cr_dem_rolling_turn(cr_vec3 xi, cr_vec3 n)
{
    const double along = cr_v3_dot(xi, n), len = cr_v3_len(xi);
    const cr_vec3 t = cr_v3_madd(xi, n, -along);
    const double tlen = cr_v3_len(t);
    return cr_v3_scale(t, tlen > 0.0 ? len / tlen : 0.0);
}

/* F_roll for one step; *xi the contact's history, advanced when update is
 * true (LAMMPS's history_update: false at the set-up before a run), and
 * rescaled when the slider slips. fn: |F_n| (LAMMPS's Fncrit). */
static inline cr_vec3 cr_dem_rolling_force(const dem_rolling_params *p, double fn, cr_vec3 n, cr_vec3 vroll, double dt,
                                           bool update, cr_vec3 *xi)
{
    const double fcrit = p->mu * fn;
    cr_vec3 h = *xi;
    if (update) {
        if (fabs(cr_v3_dot(h, n)) * p->k > DEM_ROLLING_FRAME_EPS * fcrit) h = cr_dem_rolling_turn(h, n);
        h = cr_v3_add(h, cr_v3_scale(vroll, dt));
    }
    cr_vec3 f = cr_v3_add(cr_v3_scale(h, -p->k), cr_v3_scale(vroll, -p->gamma));
    const double mag = cr_v3_len(f);
    if (mag > fcrit) {
        if (cr_v3_len(h) != 0.0 && p->k > 0.0) {
            /* the displacement whose spring and dashpot give the limit */
            const double kinv = 1.0 / p->k, minv = 1.0 / mag;
            h = cr_v3_add(cr_v3_scale(f, -fcrit * kinv * minv), cr_v3_scale(vroll, -p->gamma * kinv));
            f = cr_v3_scale(f, fcrit * minv);
        } else {
            f = cr_v3_zero();
        }
    }
    if (update) *xi = h;
    return f;
}

/* The rolling torque on sphere i, R* n x F_roll; sphere j takes its
 * negation. */
static inline cr_vec3 cr_dem_rolling_torque(cr_vec3 n, cr_vec3 froll, double reff)
{
    return cr_v3_scale(cr_v3_cross(n, froll), reff);
}

#endif
