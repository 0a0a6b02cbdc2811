/* CR_METHOD_DEM: soft spheres with a spring-dashpot contact law and
 * tangential history, integrated by velocity Verlet (docs/physics.md "DEM").
 *
 * The law is LAMMPS's pair gran/hooke/history (Silbert et al. 2001) and the
 * integrator LAMMPS's fix nve/sphere, term for term, so that a scene run in
 * both gives the same trajectories to rounding over a short horizon (the
 * granular chute benchmark, bench/peers):
 *
 *   step:  v += dt/2 F/m,  w += dt/2 T/I,  x += dt v     (dynamic bodies)
 *          x += dt v                                     (kinematic bodies)
 *          wrap x into the periodic box
 *          F, T = contact forces (shear history updated) + m g
 *          v += dt/2 F/m,  w += dt/2 T/I
 *
 * For a touching pair i, j with d = x_i - x_j (minimum image), r = |d|,
 * n = d / r, overlap delta = r_i + r_j - r, and relative velocity of the
 * contact point v_c = v_i - v_j + n x ... (LAMMPS's vtr):
 *
 *   F_n = (kn delta - m_eff gamma_n v_n) n,     v_n = (v_i - v_j) . n
 *   s  += v_t dt, then s -= (s . n) n           (shear history, rotated)
 *   F_t = -(kt s + m_eff gamma_t v_t);  if |F_t| > mu |F_n|, s and F_t are
 *         rescaled so that |F_t| = mu |F_n|
 *   T_i = -r_i n x F_t,  T_j = -r_j n x F_t
 *
 * A kinematic body is immovable to the others (m_eff = the other's mass) and
 * feels no force: a frozen body (LAMMPS fix freeze) is a kinematic body with
 * zero velocity. Kinematic-kinematic pairs are never listed.
 *
 * Pairs come from a Verlet list with a skin, rebuilt from a cell grid when a
 * body has moved more than half the skin since the last build; the list is
 * grouped by the pair's first body (slot order), and each pair's shear
 * history is carried into the new list by its body pair. A pair that stops
 * touching loses its history, as in LAMMPS.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "world_internal.h"

struct cr_dem {
    uint32_t body_capacity;
    cr_vec3 *f, *t;          /* force and torque on each slot */
    cr_vec3 *x_build;        /* centres at the last list build */
    /* neighbour list: pairs (a, nb[k]) for k in [start[a], start[a + 1]), a < nb[k] */
    uint32_t *start, *start_old;
    uint32_t start_capacity, start_old_capacity;
    uint32_t *nb, *nb_old;
    cr_vec3 *shear, *shear_old;
    uint8_t *touch;          /* per pair: touching at the last force evaluation (shear may be non-zero) */
    uint32_t touch_capacity;
    uint32_t *contact, contact_capacity; /* pairs touching now: index k into nb */
    uint32_t *contact_a;     /* ... and their first body */
    double *xr;              /* centre and radius of each slot, packed (x, y, z, r) for the pair screen */
    uint32_t xr_capacity;
    uint32_t pair_count, pair_capacity, old_count, old_capacity;
    uint32_t list_slots;     /* slot_count when the list was built */
    /* cell grid */
    uint32_t *cell_start, cell_capacity;
    uint32_t *cell_of, *cell_body, grid_capacity;
    bool list_valid, forces_valid;
};

void cr_dem_free(cr_world *w)
{
    cr_dem *d = w->dem;
    if (!d) return;
    cr_free(w, d->f);
    cr_free(w, d->t);
    cr_free(w, d->x_build);
    cr_free(w, d->start);
    cr_free(w, d->start_old);
    cr_free(w, d->nb);
    cr_free(w, d->nb_old);
    cr_free(w, d->shear);
    cr_free(w, d->shear_old);
    cr_free(w, d->touch);
    cr_free(w, d->contact);
    cr_free(w, d->contact_a);
    cr_free(w, d->xr);
    cr_free(w, d->cell_start);
    cr_free(w, d->cell_of);
    cr_free(w, d->cell_body);
    cr_free(w, d);
    w->dem = NULL;
}

void cr_dem_touch(cr_world *w)
{
    if (!w->dem) return;
    w->dem->list_valid = false;
    w->dem->forces_valid = false;
}

void cr_dem_body_removed(cr_world *w, uint32_t i)
{
    cr_dem *d = w->dem;
    if (!d) return;
    /* The slot may be reused by a new body: it must not inherit contacts. */
    if (d->start && d->list_slots) {
        for (uint32_t a = 0; a < d->list_slots; ++a)
            for (uint32_t k = d->start[a]; k < d->start[a + 1]; ++k)
                if (a == i || d->nb[k] == i) d->shear[k] = cr_v3_zero(), d->touch[k] = 0;
    }
    cr_dem_touch(w);
}

uint32_t cr_dem_pair_count(const cr_world *w) { return w->dem ? w->dem->pair_count : 0; }

/* Minimum-image geometry of the world: L and 1/L per periodic axis, 0 else. */
typedef struct dem_box {
    double L[3], inv[3], lo[3];
    bool periodic[3];
} dem_box;

static dem_box box_of(const cr_world *w)
{
    const cr_periodic *p = &w->def.periodic;
    dem_box b;
    b.periodic[0] = p->x, b.periodic[1] = p->y, b.periodic[2] = p->z;
    double lo[3] = {p->lo.x, p->lo.y, p->lo.z}, hi[3] = {p->hi.x, p->hi.y, p->hi.z};
    for (int k = 0; k < 3; ++k) {
        b.L[k] = b.periodic[k] ? hi[k] - lo[k] : 0.0;
        b.inv[k] = b.periodic[k] ? 1.0 / b.L[k] : 0.0;
        b.lo[k] = lo[k];
    }
    return b;
}

static inline cr_vec3 min_image(const dem_box *b, cr_vec3 d)
{
    d.x -= b->L[0] * rint(d.x * b->inv[0]);
    d.y -= b->L[1] * rint(d.y * b->inv[1]);
    d.z -= b->L[2] * rint(d.z * b->inv[2]);
    return d;
}

static inline double wrap_axis(double x, double lo, double L)
{
    if (x >= lo && x < lo + L) return x;
    x -= L * floor((x - lo) / L);
    /* rounding can leave x == lo + L */
    return x >= lo + L ? lo : x;
}

/* Centres of the periodic axes back into [lo, hi). */
static void wrap_positions(cr_world *w, const dem_box *bx)
{
    if (!(bx->periodic[0] || bx->periodic[1] || bx->periodic[2])) return;
    cr_bodies *b = &w->bodies;
    for (uint32_t i = 0; i < b->slot_count; ++i) {
        if (!cr_slot_alive(b, i)) continue;
        if (bx->periodic[0]) b->x[i].x = wrap_axis(b->x[i].x, bx->lo[0], bx->L[0]);
        if (bx->periodic[1]) b->x[i].y = wrap_axis(b->x[i].y, bx->lo[1], bx->L[1]);
        if (bx->periodic[2]) b->x[i].z = wrap_axis(b->x[i].z, bx->lo[2], bx->L[2]);
    }
}

static bool ensure(cr_world *w)
{
    if (!w->dem) {
        w->dem = cr_alloc(w, sizeof *w->dem);
        if (!w->dem) return false;
        memset(w->dem, 0, sizeof *w->dem);
    }
    cr_dem *d = w->dem;
    uint32_t n = w->bodies.slot_count;
    if (n > d->body_capacity) {
        uint32_t c0 = d->body_capacity, c1 = c0, c2 = c0;
        if (!cr_grow(w, (void **)&d->f, &c0, n, sizeof *d->f) || !cr_grow(w, (void **)&d->t, &c1, n, sizeof *d->t) ||
            !cr_grow(w, (void **)&d->x_build, &c2, n, sizeof *d->x_build))
            return false;
        d->body_capacity = c0;
    }
    if (!cr_grow(w, (void **)&d->xr, &d->xr_capacity, 4 * n + 4, sizeof *d->xr)) return false;
    return true;
}

static double skin_of(const cr_world *w)
{
    const cr_bodies *b = &w->bodies;
    double rmax = 0.0;
    for (uint32_t i = 0; i < b->slot_count; ++i)
        if (cr_slot_alive(b, i) && b->radius[i] > rmax) rmax = b->radius[i];
    /* LAMMPS's chute: skin 0.1 for diameter 1. */
    return 0.1 * 2.0 * rmax;
}

static bool list_needs_build(const cr_world *w, const dem_box *bx, double skin)
{
    const cr_dem *d = w->dem;
    const cr_bodies *b = &w->bodies;
    if (!d->list_valid || d->list_slots != b->slot_count) return true;
    double lim = 0.25 * skin * skin;
    for (uint32_t i = 0; i < b->slot_count; ++i) {
        if (!cr_slot_alive(b, i)) continue;
        if (cr_v3_len2(min_image(bx, cr_v3_sub(b->x[i], d->x_build[i]))) > lim) return true;
    }
    return false;
}

static bool push_pair(cr_world *w, cr_dem *d, uint32_t j)
{
    if (d->pair_count == d->pair_capacity) {
        uint32_t c = d->pair_capacity;
        if (!cr_grow(w, (void **)&d->nb, &c, d->pair_count + 1, sizeof *d->nb)) return false;
        c = d->pair_capacity;
        if (!cr_grow(w, (void **)&d->shear, &c, d->pair_count + 1, sizeof *d->shear)) return false;
        d->pair_capacity = c;
    }
    d->nb[d->pair_count++] = j;
    return true;
}

static inline bool pair_wanted(const cr_bodies *b, const dem_box *bx, double skin, uint32_t i, uint32_t j)
{
    if (!cr_slot_dynamic(b, i) && !cr_slot_dynamic(b, j)) return false;
    double cut = b->radius[i] + b->radius[j] + skin;
    return cr_v3_len2(min_image(bx, cr_v3_sub(b->x[i], b->x[j]))) < cut * cut;
}

/* The Verlet list, grouped by first body, from a cell grid (or all pairs
 * when a periodic extent is too small for three cells). */
static cr_status build_list(cr_world *w, const dem_box *bx, double skin)
{
    cr_dem *d = w->dem;
    cr_bodies *b = &w->bodies;
    uint32_t n = b->slot_count;
    /* keep the old list for the history */
    uint32_t *t32 = d->nb_old;
    d->nb_old = d->nb, d->nb = t32;
    cr_vec3 *tv = d->shear_old;
    d->shear_old = d->shear, d->shear = tv;
    uint32_t tc = d->old_capacity;
    d->old_capacity = d->pair_capacity, d->pair_capacity = tc;
    t32 = d->start_old;
    d->start_old = d->start, d->start = t32;
    tc = d->start_old_capacity;
    d->start_old_capacity = d->start_capacity, d->start_capacity = tc;
    uint32_t old_slots = d->list_slots;
    bool have_old = d->start_old != NULL && old_slots > 0;
    d->old_count = d->pair_count;
    d->pair_count = 0;
    if (!cr_grow(w, (void **)&d->start, &d->start_capacity, n + 1, sizeof *d->start))
        return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "dem: out of memory");

    double rmax = 0.0;
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t i = 0; i < n; ++i) {
        if (!cr_slot_alive(b, i)) continue;
        if (b->radius[i] > rmax) rmax = b->radius[i];
        double x[3] = {b->x[i].x, b->x[i].y, b->x[i].z};
        for (int k = 0; k < 3; ++k) lo[k] = fmin(lo[k], x[k]), hi[k] = fmax(hi[k], x[k]);
    }
    double cell = 2.0 * rmax + skin;
    int32_t dims[3];
    double inv_cell[3], origin[3];
    bool brute = false;
    uint64_t total = 1;
    for (int k = 0; k < 3; ++k) {
        if (bx->periodic[k]) {
            double nc = floor(bx->L[k] / cell);
            if (nc < 3.0) brute = true;
            dims[k] = nc > 1024.0 ? 1024 : (int32_t)(nc < 1.0 ? 1.0 : nc);
            origin[k] = bx->lo[k];
            inv_cell[k] = dims[k] / bx->L[k];
        } else {
            double ext = hi[k] > lo[k] ? hi[k] - lo[k] : 0.0;
            double nc = floor(ext / cell) + 1.0;
            dims[k] = nc > 1024.0 ? 1024 : (int32_t)nc;
            origin[k] = lo[k] < INFINITY ? lo[k] : 0.0;
            inv_cell[k] = 1.0 / fmax(cell, ext / dims[k]); /* clamped grids widen their cells */
        }
        total *= (uint64_t)dims[k];
    }
    if (total > 16u * (uint64_t)n + 4096u) brute = true; /* a sparse, spread-out world */

    if (brute) {
        for (uint32_t i = 0; i < n; ++i) {
            d->start[i] = d->pair_count;
            if (!cr_slot_alive(b, i)) continue;
            for (uint32_t j = i + 1; j < n; ++j)
                if (cr_slot_alive(b, j) && pair_wanted(b, bx, skin, i, j) && !push_pair(w, d, j))
                    return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "dem: out of memory");
        }
    } else {
        uint32_t cells = (uint32_t)total;
        uint32_t gc = d->grid_capacity;
        if (!cr_grow(w, (void **)&d->cell_start, &d->cell_capacity, cells + 1, sizeof *d->cell_start) ||
            !cr_grow(w, (void **)&d->cell_of, &gc, n + 1, sizeof *d->cell_of))
            return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "dem: out of memory");
        gc = d->grid_capacity;
        if (!cr_grow(w, (void **)&d->cell_body, &gc, n + 1, sizeof *d->cell_body))
            return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "dem: out of memory");
        d->grid_capacity = gc;
        memset(d->cell_start, 0, sizeof *d->cell_start * (cells + 1));
        for (uint32_t i = 0; i < n; ++i) {
            if (!cr_slot_alive(b, i)) continue;
            double x[3] = {b->x[i].x, b->x[i].y, b->x[i].z};
            int32_t c[3];
            for (int k = 0; k < 3; ++k) {
                double f = floor((x[k] - origin[k]) * inv_cell[k]);
                c[k] = f < 0.0 ? 0 : f >= dims[k] ? dims[k] - 1 : (int32_t)f;
            }
            d->cell_of[i] = ((uint32_t)c[2] * (uint32_t)dims[1] + (uint32_t)c[1]) * (uint32_t)dims[0] + (uint32_t)c[0];
            d->cell_start[d->cell_of[i] + 1]++;
        }
        for (uint32_t c = 0; c < cells; ++c) d->cell_start[c + 1] += d->cell_start[c];
        for (uint32_t i = 0; i < n; ++i)
            if (cr_slot_alive(b, i)) d->cell_body[d->cell_start[d->cell_of[i]]++] = i;
        for (uint32_t c = cells; c > 0; --c) d->cell_start[c] = d->cell_start[c - 1];
        d->cell_start[0] = 0;
        for (uint32_t i = 0; i < n; ++i) {
            d->start[i] = d->pair_count;
            if (!cr_slot_alive(b, i)) continue;
            uint32_t ci = d->cell_of[i];
            int32_t cx = (int32_t)(ci % (uint32_t)dims[0]), cy = (int32_t)(ci / (uint32_t)dims[0] % (uint32_t)dims[1]),
                    cz = (int32_t)(ci / ((uint32_t)dims[0] * (uint32_t)dims[1]));
            for (int dz = -1; dz <= 1; ++dz) {
                int32_t z = cz + dz;
                if (z < 0 || z >= dims[2]) {
                    if (!bx->periodic[2]) continue;
                    z = (z + dims[2]) % dims[2];
                }
                for (int dy = -1; dy <= 1; ++dy) {
                    int32_t y = cy + dy;
                    if (y < 0 || y >= dims[1]) {
                        if (!bx->periodic[1]) continue;
                        y = (y + dims[1]) % dims[1];
                    }
                    for (int dx = -1; dx <= 1; ++dx) {
                        int32_t x = cx + dx;
                        if (x < 0 || x >= dims[0]) {
                            if (!bx->periodic[0]) continue;
                            x = (x + dims[0]) % dims[0];
                        }
                        uint32_t c = ((uint32_t)z * (uint32_t)dims[1] + (uint32_t)y) * (uint32_t)dims[0] + (uint32_t)x;
                        for (uint32_t s = d->cell_start[c]; s < d->cell_start[c + 1]; ++s) {
                            uint32_t j = d->cell_body[s];
                            if (j > i && pair_wanted(b, bx, skin, i, j) && !push_pair(w, d, j))
                                return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "dem: out of memory");
                        }
                    }
                }
            }
        }
    }
    d->start[n] = d->pair_count;
    if (!cr_grow(w, (void **)&d->touch, &d->touch_capacity, d->pair_count + 1, sizeof *d->touch))
        return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "dem: out of memory");
    /* Carry each pair's shear history over from the old list. */
    for (uint32_t i = 0; i < n; ++i)
        for (uint32_t k = d->start[i]; k < d->start[i + 1]; ++k) {
            cr_vec3 s = cr_v3_zero();
            if (have_old && i < old_slots)
                for (uint32_t m = d->start_old[i]; m < d->start_old[i + 1]; ++m)
                    if (d->nb_old[m] == d->nb[k]) {
                        s = d->shear_old[m];
                        break;
                    }
            d->shear[k] = s;
            d->touch[k] = s.x != 0.0 || s.y != 0.0 || s.z != 0.0;
        }
    for (uint32_t i = 0; i < n; ++i) d->x_build[i] = b->x[i];
    d->list_slots = n;
    d->list_valid = true;
    return CR_OK;
}

/* Contact forces and torques of every listed pair plus gravity (LAMMPS
 * PairGranHookeHistory::compute, FixGravity). update_shear is false for the
 * set-up evaluation, as LAMMPS's update->setupflag. Two passes: a screen of
 * the list on packed centres and radii (most listed pairs do not touch),
 * then the law on the touching pairs, in list order. */
static cr_status compute_forces(cr_world *w, const dem_box *bx, bool update_shear)
{
    cr_dem *d = w->dem;
    cr_bodies *b = &w->bodies;
    const cr_hooke *h = &w->def.hooke;
    const double kn = h->kn, kt = h->kt, gn = h->gamma_n, gt = h->gamma_t, mu = h->mu, dt = w->def.dt;
    uint32_t n = b->slot_count;
    double *xr = d->xr;
    for (uint32_t i = 0; i < n; ++i) {
        xr[4 * i] = b->x[i].x, xr[4 * i + 1] = b->x[i].y, xr[4 * i + 2] = b->x[i].z;
        xr[4 * i + 3] = cr_slot_alive(b, i) ? b->radius[i] : -INFINITY; /* never touches */
    }
    uint32_t cap = d->contact_capacity;
    if (!cr_grow(w, (void **)&d->contact, &cap, d->pair_count + 1, sizeof *d->contact) ||
        !cr_grow(w, (void **)&d->contact_a, &d->contact_capacity, d->pair_count + 1, sizeof *d->contact_a))
        return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "dem: out of memory");
    uint32_t contacts = 0;
    uint32_t *contact = d->contact, *contact_a = d->contact_a;
    uint8_t *touch = d->touch;
    const uint32_t *nb = d->nb;
    for (uint32_t i = 0; i < n; ++i) {
        uint32_t k0 = d->start[i], k1 = d->start[i + 1];
        if (k0 == k1) continue;
        const double xi = xr[4 * i], yi = xr[4 * i + 1], zi = xr[4 * i + 2], ri = xr[4 * i + 3];
        for (uint32_t k = k0; k < k1; ++k) {
            const double *pj = xr + 4 * (size_t)nb[k];
            cr_vec3 del = min_image(bx, cr_v3(xi - pj[0], yi - pj[1], zi - pj[2]));
            double radsum = ri + pj[3];
            if (cr_v3_len2(del) < radsum * radsum) {
                contact[contacts] = k;
                contact_a[contacts++] = i;
            } else if (touch[k]) {
                /* unset non-touching neighbours */
                d->shear[k] = cr_v3_zero();
                touch[k] = 0;
            }
        }
    }
    cr_vec3 *f = d->f, *t = d->t;
    memset(f, 0, sizeof *f * n);
    memset(t, 0, sizeof *t * n);
    for (uint32_t c = 0; c < contacts; ++c) {
        uint32_t k = contact[c], i = contact_a[c], j = nb[k];
        const double radi = b->radius[i], radj = b->radius[j], radsum = radi + radj;
        cr_vec3 del = min_image(bx, cr_v3_sub(b->x[i], b->x[j]));
        double rsq = cr_v3_len2(del);
        double r = sqrt(rsq), rinv = 1.0 / r, rsqinv = 1.0 / rsq;
        cr_vec3 vr = cr_v3_sub(b->v[i], b->v[j]);
        double vnnr = cr_v3_dot(vr, del);
        cr_vec3 vn = cr_v3_scale(del, vnnr * rsqinv);
        cr_vec3 vt = cr_v3_sub(vr, vn);
        cr_vec3 wr = cr_v3_scale(cr_v3_add(cr_v3_scale(b->w[i], radi), cr_v3_scale(b->w[j], radj)), rinv);
        double mi = b->mass[i], mj = b->mass[j];
        double meff = !cr_slot_dynamic(b, i) ? mj : !cr_slot_dynamic(b, j) ? mi : mi * mj / (mi + mj);
        double damp = meff * gn * vnnr * rsqinv;
        double ccel = kn * (radsum - r) * rinv - damp;
        /* relative tangential velocity of the contact point */
        cr_vec3 vtr = cr_v3(vt.x - (del.z * wr.y - del.y * wr.z), vt.y - (del.x * wr.z - del.z * wr.x),
                            vt.z - (del.y * wr.x - del.x * wr.y));
        cr_vec3 s = d->shear[k];
        if (update_shear) s = cr_v3_madd(s, vtr, dt);
        double shrmag = cr_v3_len(s);
        /* rotate the shear displacement into the tangent plane */
        double rsht = cr_v3_dot(s, del) * rsqinv;
        if (update_shear) s = cr_v3_madd(s, del, -rsht);
        cr_vec3 fs = cr_v3_scale(cr_v3_madd(cr_v3_scale(s, kt), vtr, meff * gt), -1.0);
        double fsm2 = cr_v3_len2(fs), fn = mu * fabs(ccel * r);
        if (fsm2 > fn * fn) {
            /* Coulomb: the shear history is rescaled with the force */
            if (shrmag != 0.0) {
                double q = fn / sqrt(fsm2);
                cr_vec3 g = kt > 0.0 ? cr_v3_scale(vtr, meff * gt / kt) : cr_v3_zero();
                s = cr_v3_sub(cr_v3_scale(cr_v3_add(s, g), q), g);
                fs = cr_v3_scale(fs, q);
            } else {
                fs = cr_v3_zero();
            }
        }
        d->shear[k] = s;
        touch[k] = 1;
        cr_vec3 fij = cr_v3_madd(fs, del, ccel);
        cr_vec3 tor = cr_v3_scale(cr_v3_cross(del, fs), rinv);
        f[i] = cr_v3_add(f[i], fij);
        t[i] = cr_v3_madd(t[i], tor, -radi);
        f[j] = cr_v3_sub(f[j], fij);
        t[j] = cr_v3_madd(t[j], tor, -radj);
    }
    const cr_vec3 g = w->def.gravity;
    for (uint32_t i = 0; i < n; ++i)
        if (cr_slot_alive(b, i) && cr_slot_dynamic(b, i)) f[i] = cr_v3_madd(f[i], g, b->mass[i]);
    w->stats.contacts = contacts;
    d->forces_valid = true;
    return CR_OK;
}

static void half_kick(cr_world *w)
{
    cr_bodies *b = &w->bodies;
    const cr_dem *d = w->dem;
    double h = 0.5 * w->def.dt;
    for (uint32_t i = 0; i < b->slot_count; ++i) {
        if (!cr_slot_alive(b, i) || !cr_slot_dynamic(b, i)) continue;
        b->v[i] = cr_v3_madd(b->v[i], d->f[i], h * b->inv_mass[i]);
        b->w[i] = cr_v3_madd(b->w[i], d->t[i], h * b->inv_inertia[i]);
    }
}

static cr_status check_finite(cr_world *w)
{
    const cr_bodies *b = &w->bodies;
    for (uint32_t i = 0; i < b->slot_count; ++i) {
        if (!cr_slot_alive(b, i)) continue;
        const char *what = !cr_v3_isfinite(b->x[i])   ? "position"
                           : !cr_v3_isfinite(b->v[i]) ? "velocity"
                           : !cr_v3_isfinite(b->w[i]) ? "angular velocity"
                                                      : NULL;
        if (what) {
            w->failed = true;
            return cr_fail(w, CR_ERR_NON_FINITE,
                           "body %u: non-finite %s at step %llu (t = %.17g); the world stopped (method dem: is dt "
                           "small against sqrt(m / kn)?)",
                           i, what, (unsigned long long)w->steps + 1, w->time + w->def.dt);
        }
    }
    return CR_OK;
}

/* cr_q_integrate without its sine and cosine for the small angles of a
 * DEM step (their Taylor series to the angle's 4th power, exact to 1e-12
 * below 0.01 rad); orientation does not enter the law. */
static inline cr_quat turn(cr_quat q, cr_vec3 w, double h)
{
    double a2 = cr_v3_len2(w) * h * h;
    if (!(a2 < 1e-4)) return cr_q_integrate(q, w, h);
    /* angle a = |w| h: cos(a/2) and sin(a/2) / |w| */
    double c = 1.0 - a2 / 8.0 + a2 * a2 / 384.0, s = h * (0.5 - a2 / 48.0 + a2 * a2 / 3840.0);
    cr_quat d = {c, w.x * s, w.y * s, w.z * s};
    return cr_q_normalize(cr_q_mul(d, q));
}

static double now_seconds(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

cr_status cr_dem_step(cr_world *w)
{
    if (!ensure(w)) return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "dem: out of memory");
    cr_dem *d = w->dem;
    cr_bodies *b = &w->bodies;
    dem_box bx = box_of(w);
    double skin = skin_of(w), dt = w->def.dt;
    double t0 = now_seconds(), t1;
    cr_status s;
    if (!d->forces_valid) {
        /* set-up: the forces of the current state, history not advanced */
        wrap_positions(w, &bx);
        if ((s = build_list(w, &bx, skin)) != CR_OK) return s;
        if ((s = compute_forces(w, &bx, false)) != CR_OK) return s;
    }
    half_kick(w);
    for (uint32_t i = 0; i < b->slot_count; ++i) {
        if (!cr_slot_alive(b, i)) continue;
        b->x[i] = cr_v3_madd(b->x[i], b->v[i], dt);
        if (cr_slot_dynamic(b, i) && b->inv_inertia[i] > 0.0) b->q[i] = turn(b->q[i], b->w[i], dt);
    }
    wrap_positions(w, &bx);
    t1 = now_seconds();
    w->stats.stage_seconds[CR_STAGE_PREDICT] = t1 - t0;
    t0 = t1;
    if (list_needs_build(w, &bx, skin) && (s = build_list(w, &bx, skin)) != CR_OK) return s;
    w->stats.candidate_pairs = d->pair_count;
    t1 = now_seconds();
    w->stats.stage_seconds[CR_STAGE_BROAD_PHASE] = t1 - t0;
    t0 = t1;
    if ((s = compute_forces(w, &bx, true)) != CR_OK) return s;
    t1 = now_seconds();
    w->stats.stage_seconds[CR_STAGE_CONTACTS] = t1 - t0;
    t0 = t1;
    half_kick(w);
    if ((s = check_finite(w)) != CR_OK) return s;
    w->stats.stage_seconds[CR_STAGE_FINISH] = now_seconds() - t0;
    w->steps++;
    w->time = w->time_base + (double)(w->steps - w->steps_base) * dt;
    return CR_OK;
}
