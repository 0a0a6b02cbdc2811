#!/usr/bin/env bash
# Checkpoints through the CLI: a run killed with SIGKILL after a checkpoint,
# resumed from it, writes exactly (byte for byte) the samples the
# uninterrupted run writes from that time on; so do runs of method dem, of
# the sub-stepped solver and of rigid bodies resumed from their last
# checkpoint. A corrupt checkpoint is refused
# with exit 2 and nothing written.
set -euo pipefail
carom="$1"; src="$2"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
scene="$src/scenes/pit.json"

"$carom" run "$scene" --out "$work/straight" --quiet

"$carom" run "$scene" --out "$work/killed" --checkpoint-every 0.05 --quiet &
pid=$!
for _ in $(seq 1 600); do [ -f "$work/killed/checkpoint.bin" ] && break; sleep 0.01; done
kill -9 "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
[ -f "$work/killed/checkpoint.bin" ] || { echo "FAIL: no checkpoint written"; exit 1; }
[ ! -f "$work/killed/trajectory.csv" ] || [ -f "$work/killed/checkpoint.bin" ]

# Resumes checkpoint $2 into $work/$3 and checks that it writes exactly the
# rows of the uninterrupted run $work/$1 from its first sample time on ($4
# names the case in messages).
same_as_straight() {
  local straight="$work/$1" resumed="$work/$3" label="$4"
  "$carom" run --resume "$2" --out "$resumed" --quiet
  local t0 rows start
  t0=$(sed -n 2p "$resumed/trajectory.csv" | cut -d, -f1)
  rows=$(($(wc -l < "$resumed/trajectory.csv") - 1))
  [ "$rows" -gt 0 ] || { echo "FAIL: $label: resumed run wrote no samples"; exit 1; }
  # The same rows of the uninterrupted run: from the first line with t = t0 on.
  start=$(awk -F, -v t="$t0" 'NR > 1 && $1 == t { print NR; exit }' "$straight/trajectory.csv")
  [ -n "$start" ] || { echo "FAIL: $label: t=$t0 is not a sample time of the uninterrupted run"; exit 1; }
  tail -n "+$start" "$straight/trajectory.csv" > "$resumed.expected.csv"
  tail -n +2 "$resumed/trajectory.csv" > "$resumed.got.csv"
  cmp -s "$resumed.expected.csv" "$resumed.got.csv" || { echo "FAIL: $label: resumed trajectory differs from t=$t0 on"; diff "$resumed.expected.csv" "$resumed.got.csv" | head -5; exit 1; }
  echo "$label resumed at t=$t0: $rows rows identical"
}

same_as_straight straight "$work/killed/checkpoint.bin" resumed pit

# A corrupt checkpoint: refused whole.
cp "$work/killed/checkpoint.bin" "$work/bad.bin"
printf '\x42' | dd of="$work/bad.bin" bs=1 seek=1000 conv=notrunc status=none
set +e
"$carom" run --resume "$work/bad.bin" --out "$work/bad" --quiet 2> "$work/bad.err"
rc=$?
set -e
[ "$rc" -eq 2 ] || { echo "FAIL: corrupt checkpoint exit $rc"; exit 1; }
grep -q "checksum" "$work/bad.err" || { echo "FAIL: message: $(cat "$work/bad.err")"; exit 1; }
[ ! -e "$work/bad" ] || { echo "FAIL: output written for a corrupt checkpoint"; exit 1; }

# Method dem (checkpoint version 3): 48 spheres packed 3% into each other in
# a periodic box, thrown in all directions (contacts with shear history, list
# rebuilds). The run's last checkpoint (step 390 of 500), resumed, writes
# exactly the uninterrupted run's samples from there on.
{
  printf '{"method": "dem", "dt": 1e-4, "duration": 0.05, "gravity": [0, 0, -1], "allow_overlap": true,\n'
  printf ' "hooke": {"kn": 2e5, "kt": 57142, "gamma_n": 50, "mu": 0.5},\n'
  printf ' "periodic": {"x": true, "y": true, "lo": [0, 0, -1], "hi": [4, 4, 10]},\n'
  printf ' "output": {"every": 0.001}, "bodies": ['
  awk 'BEGIN {
    for (i = 0; i < 4; ++i) for (j = 0; j < 4; ++j) for (k = 0; k < 3; ++k) {
      printf "%s\n  {\"shape\": \"sphere\", \"radius\": 0.5, \"mass\": 1, \"position\": [%.2f, %.2f, %.2f], ", \
        (n++ ? "," : ""), i * 0.97 + 0.5, j * 0.97 + 0.5, k * 0.97 + 0.5
      printf "\"velocity\": [%d, %d, %d], \"angular_velocity\": [0, 0, %d]}", \
        (i * 7 + j * 3 + k) % 5 - 2, (i + j * 5 + k * 3) % 5 - 2, (i * 3 + j + k * 7) % 5 - 2, (i + j + k) % 3 - 1
    }
  }'
  printf '\n]}\n'
} > "$work/dem.json"
"$carom" run "$work/dem.json" --out "$work/dem_straight" --checkpoint-every 0.013 --quiet
same_as_straight dem_straight "$work/dem_straight/checkpoint.bin" dem_resumed dem

# The sub-stepped solver of spheres (checkpoint version 4: the last step's
# contacts, the pair list, sleeping): the pit on rigid_substeps 4 with
# sleep_time 0.2 s. The run's last checkpoint (t = 0.6 of 0.8), resumed,
# writes exactly the uninterrupted run's samples from there on.
sed -e 's/"method": "impulse",/"method": "impulse", "rigid_substeps": 4, "sleep_time": 0.2,/' \
    -e 's/"duration": 2.0,/"duration": 0.8,/' "$scene" > "$work/pit_substep.json"
grep -q '"rigid_substeps": 4' "$work/pit_substep.json" || { echo "FAIL: pit.json changed: no rigid_substeps set"; exit 1; }
"$carom" run "$work/pit_substep.json" --out "$work/sub_straight" --checkpoint-every 0.3 --quiet
same_as_straight sub_straight "$work/sub_straight/checkpoint.bin" sub_resumed substep

# Rigid bodies (checkpoint version 4: shapes, joints, contacts with carried
# manifolds, pairs apart): the shipped pyramid of boxes (last checkpoint at
# t = 4 of 5) and the chain of boxes on hinges (t = 3 of 4), resumed, write
# exactly the uninterrupted runs' samples from there on.
"$carom" run "$src/scenes/pyramid.json" --out "$work/pyr_straight" --checkpoint-every 2 --quiet
same_as_straight pyr_straight "$work/pyr_straight/checkpoint.bin" pyr_resumed pyramid
"$carom" run "$src/scenes/chain.json" --out "$work/chain_straight" --checkpoint-every 1.5 --quiet
same_as_straight chain_straight "$work/chain_straight/checkpoint.bin" chain_resumed chain

# Every kind of body at once: a static mesh (scenes/meshes/cube.obj), two
# boxes on a hinge, a hull and a ball, with sleeping; resumed from t = 0.5.
cp "$src/scenes/meshes/cube.obj" "$work/cube.obj"
cat > "$work/mixed.json" <<'JSON'
{"gravity": [0, 0, -9.81], "dt": 0.008333333333333333, "duration": 0.6, "output": {"every": 0.1}, "sleep_time": 0.2,
 "statics": [{"shape": "plane", "point": [0, 0, 0], "normal": [0, 0, 1]}],
 "bodies": [
  {"shape": "mesh", "file": "cube.obj", "type": "static", "position": [0, 0, 0.5]},
  {"shape": "box", "half_extents": [0.2, 0.1, 0.1], "mass": 1, "position": [0.1, 0, 1.5], "angular_velocity": [0.3, 0.2, 0]},
  {"shape": "box", "half_extents": [0.2, 0.1, 0.1], "mass": 1, "position": [0.6, 0, 1.5]},
  {"shape": "hull", "points": [[0, 0, 0], [0.3, 0, 0], [0, 0.3, 0], [0, 0, 0.3], [0.2, 0.2, 0.2]], "mass": 1, "position": [-0.3, 0.2, 2.0]},
  {"shape": "sphere", "radius": 0.1, "mass": 0.5, "position": [0.3, -0.3, 2.5], "velocity": [0, 0.5, 0]}],
 "joints": [{"type": "hinge", "a": 1, "b": 2, "anchor": [0.35, 0, 1.5], "axis": [0, 1, 0]}]}
JSON
"$carom" run "$work/mixed.json" --out "$work/mixed_straight" --checkpoint-every 0.5 --quiet
same_as_straight mixed_straight "$work/mixed_straight/checkpoint.bin" mixed_resumed mixed
echo "ok"
