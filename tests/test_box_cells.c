/* cr_box_cells (src/box_cells.c): a query finds exactly the filed boxes
 * that overlap it and are not marked, each once, against a scan of every
 * filed box: random boxes that grow as they are filed again, boxes and
 * queries on the cells' bounds (touching only), huge, inverted and NaN
 * boxes, a table with too little room, clears (stale filings never found)
 * and a wrapping stamp. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "box_cells.h"
#include "broad_phase.h"
#include "test_helpers.h"
#include "world_internal.h"

#define IDS 400

static uint64_t rng = 4242;
static double uniform(double lo, double hi)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return lo + (hi - lo) * (double)(rng >> 11) / 9007199254740992.0;
}

/* A box of edge about size in [-side, side]^3: on the cells' bounds (whole
 * cells) for a share of them, now and then huge, inverted or NaN. */
static void random_box(cr_vec3 *lo, cr_vec3 *hi, double side, double size, double cell, bool odd)
{
    double r = uniform(0.0, 1.0);
    if (r < 0.3) { /* whole cells: faces on the cells' bounds */
        *lo = cr_v3(cell * floor(uniform(-side, side) / cell), cell * floor(uniform(-side, side) / cell),
                    cell * floor(uniform(-side, side) / cell));
        *hi = cr_v3_add(*lo, cr_v3(cell * floor(uniform(0.0, 3.0)), cell * floor(uniform(0.0, 3.0)),
                                   cell * floor(uniform(0.0, 3.0))));
        return;
    }
    *lo = cr_v3(uniform(-side, side), uniform(-side, side), uniform(-side, side));
    *hi = cr_v3_add(*lo, cr_v3(uniform(0.0, size), uniform(0.0, size), uniform(0.0, size)));
    if (!odd) return;
    if (r < 0.33) hi->x = lo->x + 40.0 * size;        /* over many cells */
    else if (r < 0.35) hi->y = lo->y - 0.5 * size;    /* inverted */
    else if (r < 0.36) lo->z = NAN;                   /* not a number */
    else if (r < 0.37) *hi = cr_v3(1e300, INFINITY, 1e300); /* huge */
}

/* The query against a scan of the filed ids: the same set, each once;
 * returns whether the table answered (else the caller scans). */
static bool check(const cr_box_cells *s, const cr_vec3 *box, const bool *filed, cr_vec3 lo, cr_vec3 hi,
                  uint32_t *marks, uint32_t *mark, uint32_t *found)
{
    static uint32_t out[IDS];
    ++*mark;
    /* the caller's earlier finds: marked, left out */
    bool pre[IDS];
    for (uint32_t id = 0; id < IDS; ++id) {
        pre[id] = uniform(0.0, 1.0) < 0.1;
        if (pre[id]) marks[id] = *mark;
    }
    uint32_t n = cr_box_cells_query(s, lo, hi, marks, *mark, out);
    bool proper = lo.x <= hi.x && lo.y <= hi.y && lo.z <= hi.z;
    if (n == UINT32_MAX) {
        /* only a query that is not proper or over too many cells */
        assert_true(!proper || floor(hi.x * s->inv_cell) - floor(lo.x * s->inv_cell) >= CR_BOX_CELLS_MOST ||
                    floor(hi.y * s->inv_cell) - floor(lo.y * s->inv_cell) >= CR_BOX_CELLS_MOST ||
                    floor(hi.z * s->inv_cell) - floor(lo.z * s->inv_cell) >= CR_BOX_CELLS_MOST);
        return false;
    }
    assert_true(proper);
    uint8_t seen[IDS] = {0};
    for (uint32_t k = 0; k < n; ++k) {
        assert_true(out[k] < IDS);
        assert_int_equal(seen[out[k]], 0);
        seen[out[k]] = 1;
    }
    for (uint32_t id = 0; id < IDS; ++id) {
        bool expect = filed[id] && !pre[id] && cr_box_overlap(lo, hi, box[2 * id], box[2 * id + 1]);
        assert_int_equal(seen[id], expect);
    }
    *found += n;
    return true;
}

/* Rounds of filings, growths and queries, each after a clear, on tables
 * with room to spare or too little (wide boxes then). */
static void test_random_against_scan(void **state)
{
    (void)state;
    cr_world *w = make_world(cr_v3(0.0, 0.0, -9.81), 0.01, CR_METHOD_EVENT);
    static cr_vec3 box[2 * IDS];
    uint32_t marks[IDS] = {0}, mark = 0, found = 0, answered = 0, queries = 0;
    cr_box_cells roomy = {0}, tight = {0};
    assert_true(cr_box_cells_reserve(w, &roomy, IDS, 8 * IDS));
    assert_true(cr_box_cells_reserve(w, &tight, IDS, 40));
    for (int round = 0; round < 60; ++round) {
        cr_box_cells *s = round % 3 == 2 ? &tight : &roomy;
        if (round == 30) roomy.stamp = UINT32_MAX - 1; /* it wraps within the next clears */
        double cell = uniform(0.2, 2.0), side = uniform(1.0, 10.0), size = cell * uniform(0.2, 1.5);
        bool odd = round % 2 == 1;
        cr_box_cells_clear(s, box, cell);
        bool filed[IDS] = {false};
        for (int op = 0; op < 1500; ++op) {
            uint32_t id = (uint32_t)uniform(0.0, IDS);
            double r = uniform(0.0, 1.0);
            cr_vec3 lo, hi;
            random_box(&lo, &hi, side, size, cell, odd);
            if (r < 0.3) { /* file or grow id */
                if (!filed[id]) {
                    box[2 * id] = lo;
                    box[2 * id + 1] = hi;
                    cr_box_cells_enter(s, id, NULL);
                    filed[id] = true;
                } else {
                    /* grown towards a box nearby, as a path grows */
                    cr_vec3 was[2] = {box[2 * id], box[2 * id + 1]};
                    cr_vec3 c = cr_v3_add(was[0], cr_v3(uniform(-size, size), uniform(-size, size), uniform(-size, size)));
                    box[2 * id] = cr_box_min(was[0], c);
                    box[2 * id + 1] = cr_box_max(was[1], cr_v3_add(c, cr_v3(size, size, size)));
                    cr_box_cells_enter(s, id, was);
                }
            } else {
                queries++;
                answered += check(s, box, filed, lo, hi, marks, &mark, &found);
            }
        }
    }
    /* the table answered most queries, and found many boxes */
    assert_true(answered > queries / 2);
    assert_true(found > 10000);
    cr_box_cells_free(w, &roomy);
    cr_box_cells_free(w, &tight);
    cr_world_destroy(w);
}

/* Unit boxes on a lattice of unit cells, each touching its neighbours on
 * the cells' bounds: a unit query on a lattice point meets the 27 around it
 * (overlap is closed), then none once a clear has emptied the table. */
static void test_touching_lattice(void **state)
{
    (void)state;
    cr_world *w = make_world(cr_v3(0.0, 0.0, -9.81), 0.01, CR_METHOD_EVENT);
    static cr_vec3 box[2 * IDS];
    static uint32_t out[IDS];
    uint32_t marks[IDS] = {0}, n = 0;
    cr_box_cells s = {0};
    assert_true(cr_box_cells_reserve(w, &s, IDS, 8 * IDS));
    cr_box_cells_clear(&s, box, 1.0);
    for (int x = 0; x < 7; ++x)
        for (int y = 0; y < 7; ++y)
            for (int z = 0; z < 7; ++z) {
                box[2 * n] = cr_v3(x, y, z);
                box[2 * n + 1] = cr_v3(x + 1, y + 1, z + 1);
                cr_box_cells_enter(&s, n++, NULL);
            }
    assert_int_equal(cr_box_cells_query(&s, cr_v3(3, 3, 3), cr_v3(4, 4, 4), marks, 1, out), 27);
    assert_int_equal(cr_box_cells_query(&s, cr_v3(0.5, 0.5, 0.5), cr_v3(0.5, 0.5, 0.5), marks, 2, out), 1);
    assert_int_equal(cr_box_cells_query(&s, cr_v3(-1, -1, -1), cr_v3(0, 0, 0), marks, 3, out), 1);
    cr_box_cells_clear(&s, box, 1.0);
    assert_int_equal(cr_box_cells_query(&s, cr_v3(3, 3, 3), cr_v3(4, 4, 4), marks, 4, out), 0);
    cr_box_cells_free(w, &s);
    cr_world_destroy(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_against_scan),
        cmocka_unit_test(test_touching_lattice),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
