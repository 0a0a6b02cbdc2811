"""The small chute that carom's LAMMPS fixtures share (used by
scripts/make_hertz_fixture.py and scripts/make_roll_fixture.py): 5 x 5
frozen spheres of diameter 1 under 3 layers of 25 spheres of diameters 0.9
to 1.0 and densities 0.8 to 1.2, packed up to 3 % into each other, thrown
downhill with random spins; periodic in x and y. run() runs it in LAMMPS
itself (`lmp`, Debian package lammps) with the given pair lines, fix
gravity 1.0 chute 26, fix freeze, fix nve/sphere, dt 1e-4, for 100 steps
with thermo every step at 15 digits."""
import math, os, random, subprocess, tempfile

SIDE, LAYERS, LO, HI = 5, 3, (0.0, 0.0, -1.0), (5.0, 5.0, 4.0)
STEPS = 100


def scene():
    """[(type, diameter, density, x, v, w)], type 2 frozen; the same every call."""
    rng = random.Random(2026)
    atoms = []
    for ix in range(SIDE):
        for iy in range(SIDE):
            for iz in range(LAYERS + 1):
                frozen = iz == 0
                d = 1.0 if frozen else rng.uniform(0.9, 1.0)
                rho = 1.0 if frozen else rng.uniform(0.8, 1.2)
                j = [rng.uniform(-0.02, 0.02) for _ in range(3)]
                x = (ix + 0.5 + j[0], iy + 0.5 + j[1], 0.97 * iz)
                v = (0.0, 0.0, 0.0) if frozen else (2.0 + rng.uniform(-1, 1), rng.uniform(-1, 1),
                                                    -0.5 + rng.uniform(-1, 1))
                w = (0.0, 0.0, 0.0) if frozen else tuple(rng.uniform(-2, 2) for _ in range(3))
                atoms.append((2 if frozen else 1, d, rho, x, v, w))
    return atoms


def run(atoms, pair, extra=""):
    """LAMMPS's thermo [(step, ke, erotate)] at steps 0 .. STEPS (as the
    15-digit strings it printed) and the files the input's extra commands
    wrote there ({name: text}); pair: the pair_style and pair_coeff lines."""
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "data.small"), "w") as f:
            f.write("carom test_dem_lammps: a small chute\n\n%d atoms\n2 atom types\n\n" % len(atoms))
            for k, a in enumerate("xyz"):
                f.write("%r %r %slo %shi\n" % (LO[k], HI[k], a, a))
            f.write("\nAtoms\n\n")
            for i, (t, d, rho, x, _, _) in enumerate(atoms):
                f.write("%d %d %r %r %r %r %r\n" % (i + 1, t, d, rho, *x))
            f.write("\nVelocities\n\n")
            for i, (_, _, _, _, v, w) in enumerate(atoms):
                f.write("%d %r %r %r %r %r %r\n" % (i + 1, *v, *w))
        with open(os.path.join(tmp, "in.small"), "w") as f:
            f.write("""units lj
atom_style sphere
boundary p p fs
newton off
comm_modify vel yes
read_data data.small
%s
neighbor 0.1 bin
neigh_modify every 1 delay 0
timestep 0.0001
group bottom type 2
group active subtract all bottom
neigh_modify exclude group bottom bottom
fix 1 all gravity 1.0 chute 26.0
fix 2 bottom freeze
fix 3 active nve/sphere
compute 1 all erotate/sphere
thermo_style custom step atoms ke c_1 vol
thermo_modify norm no format float %%.15g
thermo 1
%srun %d
""" % (pair, extra, STEPS))
        out = subprocess.run(["lmp", "-in", "in.small", "-log", "none"], cwd=tmp, capture_output=True, text=True,
                             check=True).stdout
        files = {name: open(os.path.join(tmp, name)).read() for name in os.listdir(tmp)
                 if name not in ("data.small", "in.small")}
    ke, thermo = [], False
    for line in out.splitlines():
        w = line.split()
        if w[:1] == ["Step"]:
            thermo = True
        elif w[:2] == ["Loop", "time"]:
            thermo = False
        elif thermo and len(w) == 5:
            ke.append((int(w[0]), w[2], w[3]))
    assert [s for s, _, _ in ke] == list(range(STEPS + 1)), "LAMMPS's thermo: %r" % ke[:3]
    return ke, files


def mass(radius, density):
    """LAMMPS's: atom_vec_sphere's rmass *= 4 pi / 3 r r r"""
    return density * (4.0 * math.pi / 3.0 * radius * radius * radius)
