/* Joints: seed 003's "real" constraints, solved in the same multiplier
 * system as the contacts and never dropped. Each joint gives rows of J
 * (c-dot = J v) for the velocity solve, and its position error c for the
 * drift correction that keeps it together over time. */
#include <string.h>

#include "rigid.h"

static bool body_ok(const cr_world *w, cr_body_id id)
{
    return id.generation != 0 && id.index < w->bodies.slot_count && w->bodies.generation[id.index] == id.generation &&
           (id.generation & 1u);
}

/* Two unit vectors normal to n and to each other. */
static void perpendiculars(cr_vec3 n, cr_vec3 *p, cr_vec3 *q)
{
    cr_vec3 t = fabs(n.x) < 0.57735 ? cr_v3(1, 0, 0) : (fabs(n.y) < 0.57735 ? cr_v3(0, 1, 0) : cr_v3(0, 0, 1));
    *p = cr_v3_normalize(cr_v3_reject(t, n));
    *q = cr_v3_cross(n, *p);
}

static cr_mat3 rot(const cr_world *w, uint32_t i) { return i == CR_NO_BODY ? cr_m3_identity() : cr_q_to_m3(w->bodies.q[i]); }
static cr_vec3 pos(const cr_world *w, uint32_t i) { return i == CR_NO_BODY ? cr_v3_zero() : w->bodies.x[i]; }
static cr_quat orient(const cr_world *w, uint32_t i) { return i == CR_NO_BODY ? cr_q_identity() : w->bodies.q[i]; }
static cr_quat q_conj(cr_quat q) { cr_quat r = {q.w, -q.x, -q.y, -q.z}; return r; }

cr_status cr_world_add_joint(cr_world *w, const cr_joint_def *def, cr_joint_id *out)
{
    char msg[256];
    if (w->in_callback) return cr_fail(w, CR_ERR_REENTRANT, "cr_world_add_joint: called from a world callback");
    cr_status s = cr_joint_def_validate(def, msg, sizeof msg);
    if (s != CR_OK) return cr_fail(w, s, "joint def: %s", msg);
    if (!body_ok(w, def->a))
        return cr_fail(w, CR_ERR_STALE_ID, "joint def: a: stale body id {index %u, generation %u}", def->a.index,
                       def->a.generation);
    bool to_world = def->b.generation == 0 && def->b.index == 0;
    if (!to_world && !body_ok(w, def->b))
        return cr_fail(w, CR_ERR_STALE_ID, "joint def: b: stale body id {index %u, generation %u}", def->b.index,
                       def->b.generation);
    if (!to_world && def->a.index == def->b.index) return cr_fail(w, CR_ERR_INVALID_ARGUMENT, "joint def: a and b are the same body");
    if (w->surfaces.count > 0)
        return cr_fail(w, CR_ERR_INVALID_ARGUMENT, "joint def: a world with parametric surfaces takes no joints");
    if (w->def.method != CR_METHOD_IMPULSE)
        return cr_fail(w, CR_ERR_INVALID_ARGUMENT, "joint def: joints need the impulse method (world method is event)");
    if ((s = cr_rigid_ensure(w)) != CR_OK) return s;
    cr_rigid *r = w->rigid;
    if (!cr_grow(w, (void **)&r->joints, &r->joint_capacity, r->joint_count + 1, sizeof *r->joints))
        return cr_fail(w, CR_ERR_OUT_OF_MEMORY, "cr_world_add_joint: out of memory");
    cr_joint *j = &r->joints[r->joint_count];
    memset(j, 0, sizeof *j);
    j->type = def->type;
    j->generation = 1;
    j->a = def->a.index;
    j->b = to_world ? CR_NO_BODY : def->b.index;
    cr_mat3 Ra = rot(w, j->a), Rb = rot(w, j->b);
    cr_vec3 anchor_b = def->type == CR_JOINT_DISTANCE ? def->anchor_b : def->anchor;
    j->la = cr_m3_mul_v(cr_m3_transpose(Ra), cr_v3_sub(def->anchor, pos(w, j->a)));
    j->lb = cr_m3_mul_v(cr_m3_transpose(Rb), cr_v3_sub(anchor_b, pos(w, j->b)));
    cr_vec3 axis = cr_v3_normalize(def->axis);
    j->axis_a = cr_m3_mul_v(cr_m3_transpose(Ra), axis);
    j->axis_b = cr_m3_mul_v(cr_m3_transpose(Rb), axis);
    perpendiculars(j->axis_a, &j->perp_a[0], &j->perp_a[1]);
    j->q_rel = cr_q_mul(q_conj(orient(w, j->b)), orient(w, j->a));
    j->length = def->length >= 0.0 ? def->length : cr_v3_len(cr_v3_sub(def->anchor, anchor_b));
    j->collide = def->collide;
    r->joint_live++;
    cr_rigid_wake(w, j->a);
    if (j->b != CR_NO_BODY) cr_rigid_wake(w, j->b);
    if (out) {
        out->index = r->joint_count;
        out->generation = 1;
    }
    r->joint_count++;
    return CR_OK;
}

static cr_joint *joint_at(const cr_world *w, cr_joint_id id)
{
    const cr_rigid *r = w->rigid;
    if (!r || id.index >= r->joint_count || r->joints[id.index].generation != id.generation || !(id.generation & 1u))
        return NULL;
    return &r->joints[id.index];
}

cr_status cr_world_remove_joint(cr_world *w, cr_joint_id id)
{
    if (w->in_callback) return cr_fail(w, CR_ERR_REENTRANT, "cr_world_remove_joint: called from a world callback");
    cr_joint *j = joint_at(w, id);
    if (!j) return cr_fail(w, CR_ERR_STALE_ID, "cr_world_remove_joint: stale joint id {index %u, generation %u}", id.index, id.generation);
    j->generation++;
    w->rigid->joint_live--;
    return CR_OK;
}

uint32_t cr_world_joint_count(const cr_world *w) { return w->rigid ? w->rigid->joint_live : 0; }

bool cr_rigid_body_removed(cr_world *w, uint32_t i)
{
    const cr_rigid *r = w->rigid;
    for (uint32_t k = 0; k < r->joint_count; ++k)
        if ((r->joints[k].generation & 1u) && (r->joints[k].a == i || r->joints[k].b == i)) return false;
    return true;
}

uint32_t cr_joint_row_count(const cr_joint *j)
{
    switch (j->type) {
    case CR_JOINT_BALL: return 3;
    case CR_JOINT_HINGE: return 5;
    case CR_JOINT_FIXED: return 6;
    default: return 1;
    }
}

/* The anchors in world coordinates and their offsets from the centres. */
static void anchors(const cr_world *w, const cr_joint *j, cr_vec3 *pa, cr_vec3 *pb, cr_vec3 *ra, cr_vec3 *rb)
{
    *ra = cr_m3_mul_v(rot(w, j->a), j->la);
    *rb = cr_m3_mul_v(rot(w, j->b), j->lb);
    *pa = cr_v3_add(pos(w, j->a), *ra);
    *pb = cr_v3_add(pos(w, j->b), *rb);
}

/* Rotation vector taking the fixed joint's wanted orientation of a to its
 * present one (world frame), from the quaternion error. */
static cr_vec3 fixed_angle_error(const cr_world *w, const cr_joint *j)
{
    cr_quat want = cr_q_mul(orient(w, j->b), j->q_rel);
    cr_quat e = cr_q_mul(orient(w, j->a), q_conj(want));
    double s = e.w < 0.0 ? -2.0 : 2.0;
    return cr_v3(s * e.x, s * e.y, s * e.z);
}

double cr_joint_error(const cr_world *w, const cr_joint *j)
{
    cr_vec3 pa, pb, ra, rb;
    anchors(w, j, &pa, &pb, &ra, &rb);
    double d = cr_v3_len(cr_v3_sub(pa, pb));
    return j->type == CR_JOINT_DISTANCE ? fabs(d - j->length) : d;
}

cr_status cr_joint_get_error(const cr_world *w, cr_joint_id id, double *error)
{
    const cr_joint *j = joint_at(w, id);
    if (!j) return CR_ERR_STALE_ID;
    *error = cr_joint_error(w, j);
    return CR_OK;
}

/* A row of J for the joint: c-dot = ja_lin.v_a + ja_ang.w_a + jb_lin.v_b + jb_ang.w_b. */
static cr_lcp_row joint_row(const cr_joint *j, cr_vec3 ja_lin, cr_vec3 ja_ang, cr_vec3 jb_lin, cr_vec3 jb_ang,
                            double target)
{
    cr_lcp_row row;
    memset(&row, 0, sizeof row);
    row.kind = CR_ROW_EQUALITY;
    row.a = j->a;
    row.b = j->b == CR_NO_BODY ? CR_LCP_FIXED : j->b;
    row.ja_lin = ja_lin;
    row.ja_ang = ja_ang;
    row.jb_lin = jb_lin;
    row.jb_ang = jb_ang;
    row.target = target;
    return row;
}

/* The anchors' relative velocity along e. */
static cr_lcp_row linear_row(const cr_joint *j, cr_vec3 e, cr_vec3 ra, cr_vec3 rb, double target)
{
    return joint_row(j, e, cr_v3_cross(ra, e), cr_v3_neg(e), cr_v3_neg(cr_v3_cross(rb, e)), target);
}

/* The bodies' relative angular velocity about e. */
static cr_lcp_row angular_row(const cr_joint *j, cr_vec3 e, double target)
{
    return joint_row(j, cr_v3_zero(), e, cr_v3_zero(), cr_v3_neg(e), target);
}

/* Velocity level: c-dot = 0 for every row (targets 0, multipliers warm
 * started). Position level: J dx = -c, the Newton step towards c = 0 that
 * the drift correction takes (targets -c, no warm start). */
uint32_t cr_joint_rows(cr_world *w, cr_lcp_row *rows, bool position_level)
{
    const cr_rigid *r = w->rigid;
    uint32_t n = 0;
    for (uint32_t k = 0; k < r->joint_count; ++k) {
        const cr_joint *j = &r->joints[k];
        if (!(j->generation & 1u)) continue;
        cr_vec3 pa, pb, ra, rb;
        anchors(w, j, &pa, &pb, &ra, &rb);
        cr_vec3 c = cr_v3_sub(pa, pb);
        uint32_t first = n;
        if (j->type == CR_JOINT_DISTANCE) {
            double d = cr_v3_len(c);
            cr_vec3 e = d > 0.0 ? cr_v3_scale(c, 1.0 / d) : cr_v3(0, 0, 1);
            rows[n++] = linear_row(j, e, ra, rb, position_level ? -(d - j->length) : 0.0);
        } else {
            static const cr_vec3 axes[3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
            for (int a = 0; a < 3; ++a)
                rows[n++] = linear_row(j, axes[a], ra, rb, position_level ? -cr_v3_get(c, a) : 0.0);
        }
        if (j->type == CR_JOINT_HINGE) {
            /* a's axis and b's axis stay parallel: no relative turning about
             * the two directions normal to the axis; the error a x b is the
             * turn of a that aligns them */
            cr_mat3 Ra = rot(w, j->a);
            cr_vec3 aw = cr_m3_mul_v(Ra, j->axis_a), bw = cr_m3_mul_v(rot(w, j->b), j->axis_b);
            cr_vec3 err = cr_v3_cross(aw, bw);
            for (int p = 0; p < 2; ++p) {
                cr_vec3 e = cr_m3_mul_v(Ra, j->perp_a[p]);
                rows[n++] = angular_row(j, e, position_level ? cr_v3_dot(err, e) : 0.0);
            }
        } else if (j->type == CR_JOINT_FIXED) {
            cr_vec3 err = fixed_angle_error(w, j);
            static const cr_vec3 axes[3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
            for (int a = 0; a < 3; ++a) rows[n++] = angular_row(j, axes[a], position_level ? -cr_v3_get(err, a) : 0.0);
        }
        for (uint32_t q = first; q < n; ++q) rows[q].lambda = position_level ? 0.0 : j->lambda[q - first];
    }
    return n;
}

void cr_joint_store(cr_world *w, const cr_lcp_row *rows)
{
    cr_rigid *r = w->rigid;
    uint32_t n = 0;
    for (uint32_t k = 0; k < r->joint_count; ++k) {
        cr_joint *j = &r->joints[k];
        if (!(j->generation & 1u)) continue;
        uint32_t m = cr_joint_row_count(j);
        for (uint32_t q = 0; q < m; ++q) j->lambda[q] = rows[n + q].lambda;
        n += m;
    }
}
