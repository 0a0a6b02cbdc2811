/* Bullet side of the side-by-side benchmark (Debian's libbullet-dev 3.24,
 * the float64 build so that it works in double precision like carom).
 *
 * Settings: Bullet's usual rigid-body pipeline -- btDbvtBroadphase,
 * btSequentialImpulseConstraintSolver with its defaults (10 iterations,
 * warm starting, SIMD, split impulse on, ERP2 0.2), deactivation (sleeping)
 * on as by default, fixed steps stepSimulation(dt, 1, dt). Bullet combines
 * two sides' restitution and friction by their product, so every body and
 * plane gets sqrt(e) and sqrt(mu); restitution applies above
 * m_restitutionVelocityThreshold, set to carom's resting speed 2 |g| dt.
 */
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <btBulletDynamicsCommon.h>

#include "peer_run.h"

static double mem_available_gb()
{
    std::FILE *f = std::fopen("/proc/meminfo", "r");
    char line[256];
    double kb = 0.0;
    if (!f) return 8.0;
    while (std::fgets(line, sizeof line, f))
        if (std::sscanf(line, "MemAvailable: %lf kB", &kb) == 1) break;
    std::fclose(f);
    return kb / (1024.0 * 1024.0);
}

static int run(int scene, int size, double cap, int iterations)
{
    peer_run pr;
    if (peer_run_build(&pr, scene, size)) return 1;
    const int n = pr.n;
    /* The lattice's bounding boxes, grown by Bullet's contact breaking
     * threshold, overlap their neighbours from the first step: the pair cache
     * then holds a collision algorithm and a manifold per pair, about 100 KB
     * per sphere (2.7 GB measured at 27,000). Skip rather than swap. */
    const double need_gb = 1e-4 * n, have_gb = 0.5 * mem_available_gb();
    if (scene == 0 && need_gb > have_gb) {
        char why[256];
        std::snprintf(why, sizeof why,
                      "needs about %.0f GB (Bullet's pair cache: about 100 KB per sphere), over half of the memory "
                      "available (%.0f GB)",
                      need_gb, have_gb);
        peer_skip("bullet", "pit", size, why);
        return 0;
    }
    const double e = pr.e, mu = pr.mu;
    double t_setup = peer_now();
    btDefaultCollisionConfiguration config;
    btCollisionDispatcher dispatcher(&config);
    btDbvtBroadphase broadphase;
    btSequentialImpulseConstraintSolver solver;
    btDiscreteDynamicsWorld world(&dispatcher, &broadphase, &solver, &config);
    world.setGravity(btVector3(0, 0, -PEER_GRAVITY));
    world.getSolverInfo().m_restitutionVelocityThreshold = PEER_RESTING_SPEED;
    if (iterations > 0) world.getSolverInfo().m_numIterations = iterations; /* else Bullet's default, 10 */

    std::vector<btCollisionShape *> shapes;
    std::vector<btRigidBody *> statics, bodies;
    auto add_plane = [&](btVector3 normal, double d) {
        btCollisionShape *sh = new btStaticPlaneShape(normal, d);
        shapes.push_back(sh);
        btRigidBody::btRigidBodyConstructionInfo ci(0.0, nullptr, sh);
        btRigidBody *rb = new btRigidBody(ci);
        rb->setRestitution(std::sqrt(e));
        rb->setFriction(std::sqrt(mu));
        world.addRigidBody(rb);
        statics.push_back(rb);
    };
    if (scene == 0) {
        double pp[5][3], pn[5][3];
        pit_planes(&pr.pit, pp, pn);
        for (int k = 0; k < 5; ++k)
            add_plane(btVector3(pn[k][0], pn[k][1], pn[k][2]),
                      pn[k][0] * pp[k][0] + pn[k][1] * pp[k][1] + pn[k][2] * pp[k][2]);
    } else {
        add_plane(btVector3(0, 0, 1), 0.0);
    }
    btCollisionShape *shape;
    double mass;
    if (scene == 0) {
        shape = new btSphereShape(PIT_RADIUS);
        mass = PIT_MASS;
    } else {
        shape = new btBoxShape(btVector3(0.5 * PYR_EDGE, 0.5 * PYR_EDGE, 0.5 * PYR_EDGE));
        mass = PYR_MASS;
    }
    shapes.push_back(shape);
    btVector3 inertia(0, 0, 0);
    shape->calculateLocalInertia(mass, inertia);
    const double *start = pr.start;
    for (int i = 0; i < n; ++i) {
        btTransform tr;
        tr.setIdentity();
        tr.setOrigin(btVector3(start[3 * i], start[3 * i + 1], start[3 * i + 2]));
        btRigidBody::btRigidBodyConstructionInfo ci(mass, new btDefaultMotionState(tr), shape, inertia);
        ci.m_restitution = std::sqrt(e);
        ci.m_friction = std::sqrt(mu);
        btRigidBody *rb = new btRigidBody(ci);
        world.addRigidBody(rb);
        bodies.push_back(rb);
    }
    t_setup = peer_now() - t_setup;

    std::vector<double> pos(3 * (size_t)n), vel(3 * (size_t)n), ang(3 * (size_t)n), quat(4 * (size_t)n);
    double stepping = 0.0, cpu = 0.0, contacts = 0.0;
    int steps = 0;
    while (steps < PEER_STEPS && stepping < cap) {
        double t0 = peer_now(), c0 = peer_cpu_now();
        world.stepSimulation(PEER_DT, 1, PEER_DT);
        stepping += peer_now() - t0;
        cpu += peer_cpu_now() - c0;
        ++steps;
        int nm = dispatcher.getNumManifolds();
        double deepest = 0.0;
        for (int m = 0; m < nm; ++m) {
            btPersistentManifold *pm = dispatcher.getManifoldByIndexInternal(m);
            for (int k = 0; k < pm->getNumContacts(); ++k) {
                double dist = pm->getContactPoint(k).getDistance();
                ++contacts;
                if (-dist > deepest) deepest = -dist;
            }
        }
        for (int i = 0; i < n; ++i) {
            const btTransform &tr = bodies[i]->getCenterOfMassTransform();
            const btVector3 &v = bodies[i]->getLinearVelocity(), &w = bodies[i]->getAngularVelocity();
            for (int k = 0; k < 3; ++k) pos[3 * i + k] = tr.getOrigin()[k], vel[3 * i + k] = v[k], ang[3 * i + k] = w[k];
            const btQuaternion q = tr.getRotation(); /* Bullet's order x, y, z, w; scene.h's w, x, y, z */
            quat[4 * i] = q.w(), quat[4 * i + 1] = q.x(), quat[4 * i + 2] = q.y(), quat[4 * i + 3] = q.z();
        }
        peer_run_measure(&pr, pos.data(), quat.data(), deepest);
    }
    peer_result r = peer_run_result(&pr, "bullet", steps, stepping, cpu, t_setup, contacts, -1, pos.data(), vel.data(),
                                    ang.data());
    const btContactSolverInfo &si = world.getSolverInfo();
    std::printf("NOTE bullet iterations=%d erp2=%g split_impulse=%d restitution_threshold=%g\n", si.m_numIterations,
                (double)si.m_erp2, si.m_splitImpulse, (double)si.m_restitutionVelocityThreshold);
    peer_print(&r);
    /* No teardown: removing bodies one by one costs Bullet a scan of its pair
     * cache each (O(n^2) in all, longer than the run itself at 27,000
     * spheres), and the process ends here anyway. */
    std::fflush(stdout);
    std::_Exit(0);
}

int main(int argc, char **argv)
{
    int size, iterations;
    double cap;
    int scene = peer_args(argc, argv, &size, &cap, &iterations);
    if (scene < 0) return 2;
    return run(scene, size, cap, iterations);
}
