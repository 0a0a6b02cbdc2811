#!/bin/sh
# carom's Hertz-Mindlin law (cr_hooke.model CR_DEM_HERTZ) against LAMMPS's
# own pair gran/hertz/history on LAMMPS's chute benchmark: the chute's
# in.chute with its pair style made gran/hertz/history (the same numbers:
# kn 2e5, kt NULL = 2/7 kn, gamma_n 50, gamma_t NULL, mu 0.5, dampflag 0),
# thermo every step with 15 digits, run by lmp; carom runs the same scene
# (peer_carom chute, CAROM_CHUTE_MODEL=hertz) printing its energies every
# step. Every step 0 .. 100's translational KE (thermo "ke") and rotational
# KE (compute erotate/sphere) are compared: PASS when the largest relative
# difference is <= 1e-10 (docs/benchmarks.md, "Hertz-Mindlin").
#
#   scripts/chute_hertz_check.sh [PEER_CAROM [CHUTE_DIR]]
#     PEER_CAROM  default build-peers/bench/peers/peer_carom
#     CHUTE_DIR   default ../shared/bench/chute (in.chute and data.chute)
#   LAUNCHER="mpirun -np 1" runs lmp under a launcher (default: none).
set -eu
peer=${1:-build-peers/bench/peers/peer_carom}
chute=$(cd "${2:-../shared/bench/chute}" && pwd)
[ -x "$peer" ] || { echo "chute_hertz_check: no peer_carom at $peer (build with -DCAROM_PEERS=ON)" >&2; exit 2; }
[ -f "$chute/in.chute" ] && [ -f "$chute/data.chute" ] || { echo "chute_hertz_check: no in.chute/data.chute in $chute" >&2; exit 2; }
command -v lmp >/dev/null || { echo "chute_hertz_check: no lmp (Debian package lammps)" >&2; exit 2; }
tmp=$(mktemp -d /tmp/carom_hertz_XXXXXX)
trap 'rm -rf "$tmp"' EXIT
ln -s "$chute/data.chute" "$tmp/data.chute"
grep -q '^pair_style[[:space:]]*gran/hooke/history' "$chute/in.chute" ||
    { echo "chute_hertz_check: in.chute's pair style is not gran/hooke/history" >&2; exit 2; }
sed -e 's#^pair_style\([[:space:]]*\)gran/hooke/history#pair_style\1gran/hertz/history#' \
    -e 's#^thermo[[:space:]].*#thermo 1#' \
    -e 's#^thermo_modify\(.*\)#thermo_modify\1 format float %.15g#' "$chute/in.chute" >"$tmp/in.chute"
(cd "$tmp" && ${LAUNCHER:-} lmp -in in.chute -log none) >"$tmp/lammps.out" 2>&1 ||
    { cat "$tmp/lammps.out" >&2; exit 1; }
CAROM_CHUTE_MODEL=hertz "$peer" chute "$chute/data.chute" 100 1e9 1 1 >"$tmp/carom.out" 2>/dev/null
python3 - "$tmp/lammps.out" "$tmp/carom.out" <<'EOF'
import sys
lmp, car = {}, {}
thermo = False
for line in open(sys.argv[1]):
    w = line.split()
    if w[:1] == ["Step"]: thermo = True; continue
    if w[:2] == ["Loop", "time"]: thermo = False; continue
    if thermo and len(w) == 5: lmp[int(w[0])] = (float(w[2]), float(w[3]))
for line in open(sys.argv[2]):
    if line.startswith("KE step="):
        f = dict(kv.split("=") for kv in line.split()[1:])
        car[int(f["step"])] = (float(f["trans"]), float(f["rot"]))
steps = sorted(set(lmp) & set(car))
if len(steps) != 101: sys.exit("chute_hertz_check: %d common steps, expected 101" % len(steps))
worst = max((abs(c - l) / abs(l), s, k) for s in steps for k, (c, l) in enumerate(zip(car[s], lmp[s])))
for s in (0, 1, 10, 50, 100):
    print("step %3d  ke carom %.15g lammps %.15g   erot carom %.15g lammps %.15g" % (s, car[s][0], lmp[s][0], car[s][1], lmp[s][1]))
print("largest relative difference %.3g (%s, step %d): %s" % (worst[0], ("ke", "erot")[worst[2]], worst[1],
      "PASS" if worst[0] <= 1e-10 else "FAIL"))
sys.exit(0 if worst[0] <= 1e-10 else 1)
EOF
