#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets (fuzz/corpus/<target>/) from
what carom ships and tests: scenes/*.json and a few scenes of tests/test_scene.c
for the scene targets, the inputs of tests/cli_collide.sh for collide, and
binary encodings of the same collisions for stronge (layout in fuzz_stronge.c).
Run from the repository root; the files are committed, so this is needed only
to regenerate them. libFuzzer adds what it finds to a scratch copy (make fuzz),
never to these directories."""
import glob, os, re, struct

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
print("seed corpora written under", corpus)
