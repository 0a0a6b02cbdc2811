#!/usr/bin/env bash
# carom run on a tiny scene: exact CSV headers, one row per body per sample
# (t = 0 included), t = 0 rows equal to the initial state, nothing else left
# in the output directory, identical output on a second run.
# usage: bash cli_run.sh CAROM_BINARY SOURCE_DIR
set -u
carom=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# 2 bodies; 10 steps of 0.01 s, a sample every 2 steps: t = 0, 0.02, ..., 0.1.
cat > "$tmp/tiny.json" <<'JSON'
{ "gravity": [0, 0, -9.81], "dt": 0.01, "duration": 0.1, "output": {"every": 0.02},
  "statics": [ {"shape": "plane", "point": [0, 0, 0], "normal": [0, 0, 1]} ],
  "bodies": [ {"shape": "sphere", "radius": 0.1, "mass": 1, "position": [0, 0, 1],
               "velocity": [0.5, 0, 0], "inertia": "particle"},
              {"radius": 0.2, "mass": 2, "inertia": "solid", "position": [1.5, -0.25, 2],
               "velocity": [0, 1, 0], "angular_velocity": [0, 0, 3]} ] }
JSON
bodies=2 samples=6

out="$tmp/new/nested/out"   # created with its parents
"$carom" run "$tmp/tiny.json" --out "$out" > "$tmp/stdout" 2> "$tmp/stderr" || fail "run exited $?: $(cat "$tmp/stderr")"
[ -s "$tmp/stderr" ] && fail "stderr not empty when piped: $(cat "$tmp/stderr")"
grep -q "^carom: 10 steps" "$tmp/stdout" || fail "no summary line: $(cat "$tmp/stdout")"
grep -q "max penetration" "$tmp/stdout" || fail "summary lacks max penetration"

[ "$(head -n1 "$out/trajectory.csv")" = "t,id,x,y,z,vx,vy,vz,wx,wy,wz,qw,qx,qy,qz" ] || fail "trajectory header: $(head -n1 "$out/trajectory.csv")"
[ "$(head -n1 "$out/energy.csv")" = "t,kinetic,potential,total,px,py,pz" ] || fail "energy header: $(head -n1 "$out/energy.csv")"
rows=$(($(wc -l < "$out/trajectory.csv") - 1))
[ "$rows" -eq $((bodies * samples)) ] || fail "trajectory rows: $rows, expected $((bodies * samples))"
erows=$(($(wc -l < "$out/energy.csv") - 1))
[ "$erows" -eq "$samples" ] || fail "energy rows: $erows, expected $samples"
# Every row has 15 fields; ids run 0..bodies-1 in each sample.
awk -F, 'NR > 1 && NF != 15 { exit 1 }' "$out/trajectory.csv" || fail "a trajectory row without 15 fields"
awk -F, -v n=$bodies 'NR > 1 && $2 != (NR - 2) % n { exit 1 }' "$out/trajectory.csv" || fail "ids out of scene order"
# t = 0 rows are the initial state, exactly.
[ "$(sed -n 2p "$out/trajectory.csv")" = "0,0,0,0,1,0.5,0,0,0,0,0,1,0,0,0" ] || fail "t=0 row of body 0: $(sed -n 2p "$out/trajectory.csv")"
[ "$(sed -n 3p "$out/trajectory.csv")" = "0,1,1.5,-0.25,2,0,1,0,0,0,3,1,0,0,0" ] || fail "t=0 row of body 1: $(sed -n 3p "$out/trajectory.csv")"
# Only the result files (scene.json: statics and radii for export-web): no
# temporaries left behind.
[ "$(ls -A "$out" | tr '\n' ' ')" = "energy.csv scene.json trajectory.csv " ] || fail "unexpected files: $(ls -A "$out")"

# --quiet: no summary. A second run replaces the files with identical ones.
cp "$out/trajectory.csv" "$tmp/first.csv"
quiet=$("$carom" run "$tmp/tiny.json" --out="$out" --quiet 2>&1) || fail "quiet run failed"
[ -z "$quiet" ] || fail "--quiet printed: $quiet"
cmp -s "$tmp/first.csv" "$out/trajectory.csv" || fail "second run differs from the first"

# validate and --help.
[ "$("$carom" validate "$tmp/tiny.json")" = "ok: 2 bodies, 1 statics" ] || fail "validate output"
"$carom" run --help | grep -q "usage: carom run" || fail "run --help"
"$carom" validate --help | grep -q "usage: carom validate" || fail "validate --help"

# A simulation that blows up: exit 1, the world's message, no result files.
cat > "$tmp/blowup.json" <<'JSON'
{ "gravity": [0, 0, -1e308], "dt": 10, "duration": 100, "output": {"every": 10},
  "bodies": [ {"position": [0, 0, 0], "velocity": [0, 0, -1e308]} ] }
JSON
"$carom" run "$tmp/blowup.json" --out "$tmp/blowup" 2> "$tmp/stderr"
rc=$?
[ "$rc" -eq 1 ] || fail "non-finite run exited $rc, expected 1"
grep -q "non-finite" "$tmp/stderr" || fail "no non-finite message: $(cat "$tmp/stderr")"
[ -z "$(ls -A "$tmp/blowup")" ] || fail "failed run left files: $(ls -A "$tmp/blowup")"

echo "cli_run: ok"
