#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets (fuzz/corpus/<target>/) from
what carom ships and tests: scenes/*.json and a few scenes of tests/test_scene.c
for the scene targets, the inputs of tests/cli_collide.sh for collide, and
binary encodings of the same collisions for stronge (layout in fuzz_stronge.c),
and for checkpoint the version 8 checkpoints of small worlds of every kind,
written by `carom run --checkpoint-every` (the CLI built in build/, or the one
$CAROM names; without it those seeds are left as they are). The version 2, 3,
4, 5, 6 and 7 seeds (bounce, bowl, dem_box; joints_v4, whose joints load with collide
true; substep_pit_v5, whose contacts have no rolling resistance impulse;
dem_v6, which loads with the Hooke law; dem_hertz_v7, without rolling
resistance) were written by older carom and are kept.
Run from the repository root; the files are committed, so this is needed only
to regenerate them. libFuzzer adds what it finds to a scratch copy (make fuzz),
never to these directories."""
import glob, json, os, re, shutil, struct, subprocess, tempfile

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
corpus = os.path.join(root, "fuzz", "corpus")


def write(target, name, data):
    d = os.path.join(corpus, target)
    os.makedirs(d, exist_ok=True)
    mode = "wb" if isinstance(data, bytes) else "w"
    with open(os.path.join(d, name), mode) as f:
        f.write(data)


# ---- scenes ----------------------------------------------------------------
extra_scenes = {
    "test-good": """{ "gravity": [0, -1, -9.5], "dt": 0.002, "duration": 1.5, "output": {"every": 0.01},
  "method": "event", "law": "stronge", "k_p": 0.5, "toi_tolerance": 1e-8,
  "resting_speed": 0.01, "solver_iterations": 7, "max_events_per_body": 9,
  "statics": [ {"shape": "plane", "point": [0, 0, 0], "normal": [0, 0, 2], "restitution": 0.9, "friction": 0.5},
               {"shape": "plane", "point": [5, 0, 0], "normal": [-1, 0, 0]} ],
  "bodies": [ {"shape": "sphere", "radius": 0.1, "mass": 2, "inertia": "particle",
               "position": [0, 0, 1], "velocity": [1, 2, 3], "restitution": 0.8, "friction": 0.3},
              {"radius": 0.2, "mass": 3, "inertia": "hollow", "position": [1, 0, 1],
               "angular_velocity": [0, 0, 4], "type": "kinematic"},
              {"radius": 0.05, "inertia": 0.25, "position": [2, 0, 1]} ] }
""",
    "test-fill": """{"statics": [{"point": [0, 0, 0], "normal": [0, 0, 1]}, {"point": [0.9, 0, 0], "normal": [-1, 0, 0]}],
 "bodies": [{"radius": 0.2, "position": [0.5, 0.5, 0.5]}],
 "generate": [{"random_fill": {"count": 40, "min": [0, 0, -1], "max": [1, 1, 1], "seed": 3, "speed": 1},
               "body": {"radius": 0.04, "inertia": "particle"}}]}
""",
    "test-surfaces": """{"statics": [
  {"shape": "plane", "point": [0, 0, -5], "normal": [0, 0, 1]},
  {"shape": "surface", "type": "plane", "point": [0, 0, 1], "normal": [0, 3, 4],
   "restitution": 0.7, "friction": 0.4, "rolling_friction": 0.01},
  {"shape": "surface", "type": "hills", "height": 0.5, "min": [-2, -1], "max": [3, 1.5],
   "hills": [{"amplitude": 0.3, "center": [0.5, -0.25], "width": 0.6},
             {"amplitude": -0.1, "center": [-1, 1], "width": 0.4}],
   "waves": {"amplitude": 0.02, "length": [1.5, 2]}},
  {"shape": "surface", "type": "bowl", "center": [10, 0, 2], "radius": 1.5, "friction": 0.2},
  {"shape": "surface", "type": "bspline", "degree": 2, "flip_normal": true,
   "control_points": [[[0, 0, 0], [0, 1, 0.1], [0, 2, 0], [0, 3, 0]],
                      [[1, 0, 0.2], [1, 1, 0.3], [1, 2, 0.2], [1, 3, 0]],
                      [[2, 0, 0], [2, 1, 0.1], [2, 2, 0], [2, 3, 0.5]]]}
], "bodies": [{"radius": 0.05, "inertia": "hollow", "inner_radius": 0.03, "rolling_friction": 0.002,
               "position": [0, 0, 30]}]}
""",
    "test-on-surface": """{"dt": 0.01, "method": "event", "law": "rolling",
 "statics": [{"shape": "plane", "point": [-1, 0, 0], "normal": [1, 0, 0]},
  {"shape": "plane", "point": [1, 0, 0], "normal": [-1, 0, 0]},
  {"shape": "surface", "type": "hills", "min": [-1, -1], "max": [1, 1],
   "hills": [{"amplitude": 0.2, "center": [0.3, -0.2], "width": 0.3}],
   "waves": {"amplitude": 0.03, "length": [0.9, 1.1]},
   "friction_map": {"min": [-1, -1], "max": [1, 1], "friction": [[0.05, 0.05], [0.05, 0.5]],
                    "rolling_friction": [[0.001], [0.002]]}}],
 "generate": [{"on_surface": {"surface": 2, "count": 20, "min": [-0.9, -0.9], "max": [0.9, 0.9],
                              "lift": 0.001, "speed": 0.3, "roll": true, "seed": 5},
   "bodies": [{"weight": 3, "body": {"radius": 0.04, "inertia": "solid", "friction": 0.1}},
              {"weight": 1, "body": {"radius": 0.06, "inertia": "hollow", "inner_radius": 0.05,
                                     "rolling_friction": 0.01}}]}]}
""",
    "test-lattice-small": """{"gravity": [0, 0, -9.81], "dt": 0.001, "duration": 0.01, "allow_overlap": true,
 "statics": [{"shape": "plane", "point": [0, 0, 0], "normal": [0, 0, 1]}],
 "generate": [{"lattice": {"count": [3, 3, 2], "origin": [0, 0, 0.1], "spacing": [0.15, 0.1, 0.1],
                           "jitter": 0.001, "speed": 2, "seed": 1},
               "body": {"radius": 0.05, "restitution": 1, "friction": 0}}]}
""",
}

for target in ("scene", "scene_step"):
    for path in sorted(glob.glob(os.path.join(root, "scenes", "*.json"))):
        write(target, os.path.basename(path), open(path).read())
    for name, text in extra_scenes.items():
        write(target, name + ".json", text)

# ---- carom collide: the inputs of tests/cli_collide.sh ----------------------
sh = open(os.path.join(root, "tests", "cli_collide.sh")).read()
I3 = "[[1, 0, 0], [0, 1, 0], [0, 0, 1]]"
inputs = re.findall(r"run_ok '(.*?)'", sh, re.S)
inputs += [s.replace("$I3", I3).replace('\\"', '"') for s in re.findall(r'expect_bad "((?:[^"\\]|\\.)*)"', sh)]
inputs += re.findall(r"expect_bad '(.*?)'", sh, re.S)
heredoc = re.search(r"<<'EOF'\n(.*?)\nEOF", sh, re.S)
if heredoc:
    inputs.append(heredoc.group(1))
for i, text in enumerate(inputs):
    write("collide", "cli_collide-%02d.json" % i, text + "\n")

# ---- stronge: the same collisions, encoded (fuzz_stronge.c) -----------------
def raw(*xs):
    return b"".join(struct.pack("<d", float(x)) for x in xs)


def head(form, raw_mode=True, spd=False, unit=False, no_closed=False, tol=0):
    return bytes([form | (4 if raw_mode else 0) | (8 if spd else 0) | (16 if unit else 0) |
                  (32 if no_closed else 0) | (tol << 6)])


def flat(m):
    return [x for row in m for x in row]


seeds = {
    # contact space 3D: seed 002 §1.2 (two compression phases), Newton, Figure 4 (unstable sticking)
    "contact-seed-1.2": head(0) + raw(0.9, 0.5) + raw(*flat([[20, -23, 4], [-23, 31, -7], [4, -7, 4]])) + raw(630, -780, -0.22),
    "contact-newton": head(0) + raw(0.5, 0) + raw(*flat([[2, 0, 0], [0, 2, 0], [0, 0, 4]])) + raw(1, 0, -2),
    "contact-figure4": head(0) + raw(0.5, 0.7) + raw(*flat([[20, 0, 1], [0, 4, 6], [1, 6, 10]])) + raw(0, 0, -1),
    "contact-integrate": head(0, no_closed=True, tol=1) + raw(0.9, 0.5) + raw(*flat([[20, -23, 4], [-23, 31, -7], [4, -7, 4]])) + raw(630, -780, -0.22),
    "contact-not-spd": head(0) + raw(0.5, 0.5) + raw(*flat([[1, 2, 0], [0, 1, 0], [0, 0, 1]])) + raw(0, 0, -1),
    # bodies 3D: a solid ball sliding onto the ground (rolls at 5/7); two bodies
    "body-ball-ground": head(1) + raw(0.5, 0.9) + b"\x00" + raw(1) + raw(*flat([[2.5, 0, 0], [0, 2.5, 0], [0, 0, 2.5]]))
        + raw(0, 0, -1, 1, 0, -2, 0, 0, 0) + b"\x01" + raw(0, 0, 0, 0, 0, 0, 0, 0, 0) + raw(0, 0, 1),
    "body-two": head(1, unit=True) + raw(0.8, 0.4) + b"\x00" + raw(0.5) + raw(*flat([[1, -0.05, 0], [-0.05, 0.5, 0], [0, 0, 0.667]]))
        + raw(-0.3, 0.2, -0.5, -1, 0.5, -2, 0.3, -0.2, 1) + b"\x00" + raw(1 / 3) + raw(*flat([[0.5, 0, 0], [0, 0.5, 0], [0, 0, 0.5]]))
        + raw(0.4, 0, 0.6, 0.5, 0, 1, 0, 0, 0) + raw(0.6, 0, 0.8),
    # 2D
    "contact2d": head(2) + raw(0.5, 0.5) + raw(2, 0.5, 0.5, 1) + raw(3, -1),
    "body2d-ball": head(3) + raw(0.5, 0.9) + b"\x00" + raw(1, 2.5, 0, -1, 1, -2, 0) + b"\x01" + raw(0, 0, 0, 0, 0) + raw(0, 1),
    # the scaled encoding with SPD matrices: small numbers, mostly valid
    "scaled-spd-contact": head(0, raw_mode=False, spd=True) + bytes([128, 40]) + bytes(range(7, 7 + 30 * 3, 3)),
    "scaled-spd-body": head(1, raw_mode=False, spd=True, unit=True) + bytes([200, 20]) + bytes((i * 37) % 256 for i in range(200)),
    "scaled-2d-body": head(3, raw_mode=False, unit=True) + bytes([255, 64]) + bytes((i * 53 + 11) % 256 for i in range(80)),
}
for name, data in seeds.items():
    write("stronge", name + ".bin", data)

# ---- checkpoint: version 7 checkpoints of small worlds of every kind --------
FLOOR = {"shape": "plane", "point": [0, 0, 0], "normal": [0, 0, 1]}
WALLS = [{"shape": "plane", "point": p, "normal": n} for p, n in
         (([-0.5, 0, 0], [1, 0, 0]), ([0.5, 0, 0], [-1, 0, 0]), ([0, -0.5, 0], [0, 1, 0]), ([0, 0.5, 0], [0, -1, 0]))]
GEM = [[0, 0, 0.2], [0.15, 0, 0], [0, 0.15, 0], [-0.15, 0, 0], [0, -0.15, 0], [0, 0, -0.2], [0.1, 0.1, 0.05]]
BOX = {"shape": "box", "half_extents": [0.1, 0.08, 0.06], "mass": 1, "friction": 0.5}
ckpt_scenes = {
    # 12 balls on 2 substeps with sleeping: contacts, warm starts, the pair
    # list, islands (asleep at the end), and a 13th spinning about the
    # vertical apart from them, still awake at the end (its spin resistance
    # stops it at 1.6 s): a contact with a rolling resistance impulse
    "substep_pit": ({"dt": 1 / 240, "duration": 1.5, "rigid_substeps": 2, "sleep_time": 0.2, "sleep_speed": 0.2,
                     "statics": [FLOOR] + WALLS,
                     "bodies": [{"radius": 0.05, "position": [0, 0.35, 0.05], "angular_velocity": [0, 0, 40],
                                 "friction": 0.6, "rolling_friction": 0.05}],
                     "generate": [{"lattice": {"count": [3, 2, 2], "origin": [-0.2, -0.1, 0.06], "spacing": [0.2, 0.2, 0.11],
                                               "jitter": 0.002, "seed": 4},
                                   "body": {"radius": 0.05, "friction": 0.6, "restitution": 0.1, "rolling_friction": 0.05}}]}, 0.75),
    # boxes stacked, on the multiplier solve, asleep by the end
    "boxes": ({"dt": 1 / 120, "duration": 1.0, "sleep_time": 0.2, "statics": [FLOOR],
               "bodies": [dict(BOX, position=[0, 0, 0.06]), dict(BOX, position=[0.02, 0, 0.18]),
                          dict(BOX, position=[0, 0.01, 0.30], angular_velocity=[0, 0, 0.5])]}, 0.5),
    # two hulls resting apart and one on the other (carried manifolds, pairs apart)
    "hulls": ({"dt": 1 / 120, "duration": 0.6, "statics": [FLOOR],
               "bodies": [{"shape": "hull", "points": GEM, "mass": 1, "position": [0, 0, 0.3]},
                          {"shape": "hull", "points": GEM, "mass": 1, "position": [0.6, 0, 0.3], "velocity": [-0.2, 0, 0]},
                          {"shape": "hull", "points": [[0, 0, 0], [0.2, 0, 0], [0, 0.2, 0], [0, 0, 0.2]], "mass": 0.5,
                           "position": [0.02, 0.01, 0.8]}]}, 0.3),
    # a static mesh (triangles and tree), a moving one (its hull), a box and a ball
    "mesh": ({"dt": 1 / 120, "duration": 0.6, "sleep_time": 0.2, "statics": [FLOOR],
              "bodies": [{"shape": "mesh", "file": "cube.obj", "type": "static", "position": [0, 0, 0.5]},
                         {"shape": "mesh", "file": "gem.obj", "mass": 1, "position": [0.1, 0, 1.4]},
                         dict(BOX, position=[-0.2, 0.1, 1.3]),
                         {"shape": "sphere", "radius": 0.08, "mass": 0.5, "position": [0.2, -0.2, 1.6]}]}, 0.3),
    # every joint type, one to the world, between boxes, a hull and a ball;
    # the ball joint's boxes collide with each other (collide: true), the
    # other joints' bodies do not (the default)
    "joints": ({"dt": 1 / 120, "duration": 0.5, "statics": [FLOOR],
                "bodies": [dict(BOX, position=[0, 0, 1]), dict(BOX, position=[0.25, 0, 1]),
                           {"shape": "hull", "points": GEM, "mass": 1, "position": [0.5, 0, 1]},
                           {"shape": "sphere", "radius": 0.07, "mass": 0.3, "position": [0.5, 0, 0.6]},
                           dict(BOX, position=[-0.4, 0, 0.5])],
                "joints": [{"type": "hinge", "a": 0, "anchor": [-0.1, 0, 1], "axis": [0, 1, 0]},
                           {"type": "ball", "a": 0, "b": 1, "anchor": [0.125, 0, 1], "collide": True},
                           {"type": "fixed", "a": 1, "b": 2, "anchor": [0.375, 0, 1]},
                           {"type": "distance", "a": 2, "b": 3, "anchor": [0.5, 0, 0.95], "anchor_b": [0.5, 0, 0.67]},
                           {"type": "distance", "a": 4, "anchor": [-0.4, 0, 0.56], "anchor_b": [-0.4, 0, 1.2], "length": 0.5}]},
               0.25),
    # method dem (version 4's file): 12 spheres in a periodic box, list and forces
    "dem": ({"method": "dem", "dt": 1e-4, "duration": 0.004, "gravity": [0, 0, -1], "allow_overlap": True,
             "hooke": {"kn": 2e5, "kt": 57142, "gamma_n": 50, "mu": 0.5},
             "periodic": {"x": True, "y": True, "lo": [0, 0, -1], "hi": [2, 2, 4]},
             "generate": [{"lattice": {"count": [2, 2, 3], "origin": [0.5, 0.5, 0.49], "spacing": [0.97, 0.97, 0.97],
                                       "speed": 2, "seed": 7}, "body": {"radius": 0.5, "mass": 1}}]}, 0.002),
    # the same with the Hertz-Mindlin law (version 7's contact model)
    "dem_hertz": ({"method": "dem", "dt": 1e-4, "duration": 0.004, "gravity": [0, 0, -1], "allow_overlap": True,
                   "hooke": {"kn": 2e5, "kt": 57142, "gamma_n": 50, "mu": 0.5, "model": "hertz"},
                   "periodic": {"x": True, "y": True, "lo": [0, 0, -1], "hi": [2, 2, 4]},
                   "generate": [{"lattice": {"count": [2, 2, 3], "origin": [0.5, 0.5, 0.49],
                                             "spacing": [0.97, 0.97, 0.97], "speed": 2, "seed": 7},
                                 "body": {"radius": 0.5, "mass": 1}}]}, 0.002),
    # the same with rolling resistance (version 8: its settings and each
    # contact's rolling history)
    "dem_roll": ({"method": "dem", "dt": 1e-4, "duration": 0.004, "gravity": [0, 0, -1], "allow_overlap": True,
                  "hooke": {"kn": 2e5, "kt": 57142, "gamma_n": 50, "mu": 0.5, "k_roll": 57142, "gamma_roll": 20,
                            "mu_roll": 0.1},
                  "periodic": {"x": True, "y": True, "lo": [0, 0, -1], "hi": [2, 2, 4]},
                  "generate": [{"lattice": {"count": [2, 2, 3], "origin": [0.5, 0.5, 0.49],
                                            "spacing": [0.97, 0.97, 0.97], "speed": 2, "seed": 7},
                                "body": {"radius": 0.5, "mass": 1}}]}, 0.002),
    # method event, rolling law: balls rolling on hills, in a bowl and on a
    # B-spline (surface contact parameters, ball states)
    "surfaces": ({"dt": 0.005, "duration": 0.3, "method": "event", "law": "rolling",
                  "statics": [{"shape": "plane", "point": [0, 0, -2], "normal": [0, 0, 1]},
                              {"shape": "surface", "type": "hills", "min": [-1, -1], "max": [1, 1],
                               "hills": [{"amplitude": 0.2, "center": [0.3, -0.2], "width": 0.3}],
                               "waves": {"amplitude": 0.03, "length": [0.9, 1.1]}},
                              {"shape": "surface", "type": "bspline", "degree": 2,
                               "control_points": [[[9, 0, 0], [9, 1, 0.1], [9, 2, 0]],
                                                  [[10, 0, 0.2], [10, 1, 0.3], [10, 2, 0.2]],
                                                  [[11, 0, 0], [11, 1, 0.1], [11, 2, 0.5]]]}],
                  "bodies": [{"radius": 0.05, "position": [10, 1, 0.6]},
                             {"radius": 0.04, "position": [0.3, -0.2, 0.35], "velocity": [0.3, 0, 0]},
                             {"radius": 0.04, "position": [-0.5, 0.4, 0.2], "inertia": "hollow", "inner_radius": 0.03,
                              "rolling_friction": 0.01}]}, 0.15),
    # a bowl (the space inside it is free): balls rolling round it, the event method
    "bowl4": ({"dt": 0.005, "duration": 0.3, "method": "event",
               "statics": [{"shape": "surface", "type": "bowl", "center": [0, 0, 1], "radius": 1, "friction": 0.4}],
               "bodies": [{"radius": 0.05, "position": [0.3, 0, 0.1], "velocity": [0, 0.6, 0]},
                          {"radius": 0.05, "position": [-0.2, 0.1, 0.3]}]}, 0.15),
    # method impulse, Stronge's law, two projection passes with shocks, a kinematic ball
    "impulse": ({"dt": 0.002, "duration": 0.2, "law": "stronge", "projection_passes": 2, "projection_shock": True,
                 "statics": [FLOOR] + WALLS,
                 "bodies": [{"radius": 0.1, "type": "kinematic", "position": [0, 0, 0.3], "velocity": [0.5, 0, 0]}],
                 "generate": [{"lattice": {"count": [2, 2, 2], "origin": [-0.3, -0.3, 0.0601], "spacing": [0.5, 0.5, 0.13],
                                           "speed": 0.1, "seed": 2}, "body": {"radius": 0.06, "restitution": 0.2}}]}, 0.1),
}
ckpt_files = {"chain": "scenes/chain.json"}

# The same worlds as scenes for the scene targets, with the rigid pipeline's
# settings of the last sessions spelled out (sub-stepping, soft contact,
# sleeping, the drift correction, the collision order).
scene_tweaks = {
    "substep_pit": {"substep_iterations": 2, "contact_hertz": 60, "contact_damping_ratio": 5},
    "boxes": {"pgs_iterations": 30, "drift_iterations": 20, "drift_tolerance": 1e-4, "drift_max_speed": 0.5,
              "collision_order": "simultaneous", "sleep_speed": 0.02},
    "joints": {"collision_order": "rounds", "sleep_time": 0.5},
    "dem": {"integrate_orientation": False},
}
for name, (scene, _) in ckpt_scenes.items():
    if name == "mesh":
        continue  # its OBJ files lie beside the scene, which the string loader has not
    for target in ("scene", "scene_step"):
        write(target, "ckpt-" + name + ".json", json.dumps(dict(scene, **scene_tweaks.get(name, {})), indent=1) + "\n")


def checkpoint_seeds():
    carom = os.environ.get("CAROM", os.path.join(root, "build", "carom"))
    if not os.access(carom, os.X_OK):
        print("no", carom, "(build it, or set CAROM): checkpoint seeds left as they are")
        return
    with tempfile.TemporaryDirectory() as tmp:
        for mesh in ("cube.obj", "gem.obj"):
            shutil.copy(os.path.join(root, "scenes", "meshes", mesh), tmp)
        jobs = [(n, os.path.join(tmp, n + ".json"), every) for n, (_, every) in ckpt_scenes.items()]
        for n, (scene, _) in ckpt_scenes.items():
            with open(os.path.join(tmp, n + ".json"), "w") as f:
                json.dump(scene, f)
        # shipped scenes: their own durations; a checkpoint every half of it
        jobs += [(n, os.path.join(root, path), json.load(open(os.path.join(root, path)))["duration"] / 2)
                 for n, path in ckpt_files.items()]
        for name, scene, every in jobs:
            out = os.path.join(tmp, name)
            subprocess.run([carom, "run", scene, "--out", out, "--checkpoint-every", repr(every), "--quiet"], check=True)
            write("checkpoint", name + ".bin", open(os.path.join(out, "checkpoint.bin"), "rb").read())


checkpoint_seeds()
print("seed corpora written under", corpus)
