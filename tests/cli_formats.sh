#!/usr/bin/env bash
# carom run --format vtk,xyz: the ParaView series (trajectory.pvd +
# trajectory_vtk/*.vtp) and the extended XYZ file hold, sample for sample
# and digit for digit, the values of trajectory.csv; scene.json holds the
# statics and radii; a second run replaces the series whole; a bad --format
# exits 2 and creates nothing.
# usage: bash cli_formats.sh CAROM_BINARY SOURCE_DIR
set -u
carom=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# 2 bodies, 10 steps, a sample every 2: t = 0, 0.02, ..., 0.1 (6 samples).
cat > "$tmp/tiny.json" <<'JSON'
{ "gravity": [0, 0, -9.81], "dt": 0.01, "duration": 0.1, "output": {"every": 0.02},
  "statics": [ {"shape": "plane", "point": [0, 0, 0], "normal": [0, 0, 1]} ],
  "bodies": [ {"radius": 0.1, "mass": 1, "inertia": "particle", "position": [0, 0, 1], "velocity": [0.5, 0, 0]},
              {"radius": 0.2, "mass": 2, "position": [1.5, -0.25, 2], "velocity": [0, 1, 0],
               "angular_velocity": [0, 0, 3]} ] }
JSON
out="$tmp/out"
"$carom" run "$tmp/tiny.json" --out "$out" --format vtk,xyz --quiet 2> "$tmp/stderr" || fail "run exited $?: $(cat "$tmp/stderr")"
[ "$(ls -A "$out" | tr '\n' ' ')" = "energy.csv scene.json trajectory.csv trajectory.pvd trajectory.xyz trajectory_vtk " ] \
    || fail "files: $(ls -A "$out" | tr '\n' ' ')"
[ "$(ls "$out/trajectory_vtk" | wc -l)" -eq 6 ] || fail "vtp files: $(ls "$out/trajectory_vtk")"

# The sample times, as the CSV prints them.
awk -F, 'NR > 1 && $2 == 0 { print $1 }' "$out/trajectory.csv" > "$tmp/times"
[ "$(wc -l < "$tmp/times")" -eq 6 ] || fail "csv samples"

# ---- ParaView: the .pvd lists every sample's time and file, in order.
grep -o 'timestep="[^"]*"' "$out/trajectory.pvd" | sed 's/timestep="//; s/"//' > "$tmp/pvd_times"
cmp -s "$tmp/times" "$tmp/pvd_times" || fail "pvd timesteps differ from the CSV times: $(tr '\n' ' ' < "$tmp/pvd_times")"
k=0
while read -r t; do
    file=$(grep "timestep=\"$t\"" "$out/trajectory.pvd" | grep -o 'file="[^"]*"' | sed 's/file="//; s/"//')
    vtp="$out/$file"
    [ -f "$vtp" ] || fail "pvd names a missing file $file"
    grep -q 'NumberOfPoints="2" NumberOfVerts="2"' "$vtp" || fail "$file: not 2 points and 2 vertices"
    grep -q "Name=\"TimeValue\"[^>]*>$t<" "$vtp" || fail "$file: TimeValue is not $t"
    # One array of a .vtp, its values one tuple per line.
    array() { awk -v name="Name=\"$2\"" 'index($0, name) { on = 1; next } on && /<\/DataArray>/ { on = 0 } on { $1 = $1; print }' "$1"; }
    # The CSV's columns for this sample, the same way.
    csv() { awk -F, -v t="$t" -v cols="$1" 'NR > 1 && $1 == t { n = split(cols, c, " "); s = $(c[1]); for (i = 2; i <= n; ++i) s = s " " $(c[i]); print s }' "$out/trajectory.csv"; }
    [ "$(array "$vtp" Points)" = "$(csv "3 4 5")" ] || fail "$file: Points differ from the CSV at t=$t"
    [ "$(array "$vtp" velocity)" = "$(csv "6 7 8")" ] || fail "$file: velocity differs at t=$t"
    [ "$(array "$vtp" spin)" = "$(csv "9 10 11")" ] || fail "$file: spin differs at t=$t"
    [ "$(array "$vtp" id)" = "$(csv 2)" ] || fail "$file: ids differ"
    [ "$(array "$vtp" radius | tr '\n' ' ')" = "0.10000000000000001 0.20000000000000001 " ] || fail "$file: radii"
    [ "$(array "$vtp" connectivity | tr '\n' ' ')" = "0 1 " ] || fail "$file: connectivity"
    [ "$(array "$vtp" offsets | tr '\n' ' ')" = "1 2 " ] || fail "$file: offsets"
    k=$((k + 1))
done < "$tmp/times"
[ "$k" -eq 6 ] || fail "checked $k samples"
# Well-formed XML, where a checker is at hand.
if command -v xmllint > /dev/null; then
    xmllint --noout "$out/trajectory.pvd" "$out"/trajectory_vtk/*.vtp || fail "xmllint"
fi

# ---- Extended XYZ: 6 frames of "2", a Properties line, 2 rows.
[ "$(wc -l < "$out/trajectory.xyz")" -eq $((6 * (2 + 2))) ] || fail "xyz lines: $(wc -l < "$out/trajectory.xyz")"
awk 'NR % 4 == 1 && $0 != "2" { exit 1 }' "$out/trajectory.xyz" || fail "xyz frame counts"
awk 'NR % 4 == 2 && index($0, "Properties=species:S:1:id:I:1:pos:R:3:radius:R:1:velo:R:3:spin:R:3 ") != 1 { exit 1 }' \
    "$out/trajectory.xyz" || fail "xyz Properties line"
awk 'NR % 4 == 2 { sub(/.*Time=/, ""); sub(/ .*/, ""); print }' "$out/trajectory.xyz" > "$tmp/xyz_times"
cmp -s "$tmp/times" "$tmp/xyz_times" || fail "xyz times differ from the CSV times"
# Rows: species id x y z radius vx vy vz wx wy wz, against t,id,x,y,z,vx,vy,vz,wx,wy,wz.
awk 'NR % 4 == 3 || NR % 4 == 0 { print $2, $3, $4, $5, $7, $8, $9, $10, $11, $12 }' "$out/trajectory.xyz" > "$tmp/xyz_rows"
awk -F, 'NR > 1 { print $2, $3, $4, $5, $6, $7, $8, $9, $10, $11 }' "$out/trajectory.csv" > "$tmp/csv_rows"
cmp -s "$tmp/xyz_rows" "$tmp/csv_rows" || fail "xyz rows differ from the CSV: $(diff "$tmp/xyz_rows" "$tmp/csv_rows" | head -3)"
awk 'NR % 4 == 3 && ($1 != "X" || $6 != "0.10000000000000001") { exit 1 } NR % 4 == 0 && $6 != "0.20000000000000001" { exit 1 }' \
    "$out/trajectory.xyz" || fail "xyz species or radius"

# ---- scene.json: the plane, both radii and shapes (spheres: no triangles).
grep -q '"statics":\[{"shape":"plane","point":\[0,0,0\],"normal":\[0,0,1\]}\]' "$out/scene.json" || fail "scene.json statics: $(cat "$out/scene.json")"
grep -q '"bodies":\[{"id":0,"radius":0.1,"mass":1,"inertia":"particle","type":"dynamic","shape":"sphere"},{"id":1,"radius":0.2,"mass":2,"inertia":"solid","type":"dynamic","shape":"sphere"}\],"shapes":\[\]' \
    "$out/scene.json" || fail "scene.json bodies: $(cat "$out/scene.json")"

# ---- A second run replaces the series whole (nothing of the first stays).
touch "$out/trajectory_vtk/stale-marker"
"$carom" run "$tmp/tiny.json" --out "$out" --format=vtk --quiet || fail "second run"
[ -e "$out/trajectory_vtk/stale-marker" ] && fail "the earlier series was not replaced"
[ "$(ls -A "$out" | grep -c '^\.')" -eq 0 ] || fail "temporaries left: $(ls -A "$out")"

# ---- Bad --format: exit 2, the message names it, nothing created.
"$carom" run "$tmp/tiny.json" --out "$tmp/bad" --format vtk,pdb 2> "$tmp/stderr"
[ $? -eq 2 ] || fail "--format vtk,pdb exited $?, expected 2"
grep -q "unknown format 'pdb'" "$tmp/stderr" || fail "bad format message: $(cat "$tmp/stderr")"
[ -e "$tmp/bad" ] && fail "a bad --format created the output directory"
"$carom" run "$tmp/tiny.json" --out "$tmp/bad" --format 2> "$tmp/stderr"
[ $? -eq 2 ] || fail "--format without a value accepted"

# ---- A failed run leaves no series either.
cat > "$tmp/blowup.json" <<'JSON'
{ "gravity": [0, 0, -1e308], "dt": 10, "duration": 100, "output": {"every": 10},
  "bodies": [ {"position": [0, 0, 0], "velocity": [0, 0, -1e308]} ] }
JSON
"$carom" run "$tmp/blowup.json" --out "$tmp/blowup" --format vtk,xyz 2> /dev/null
[ $? -eq 1 ] || fail "blow-up run did not exit 1"
[ -z "$(ls -A "$tmp/blowup")" ] || fail "a failed run left: $(ls -A "$tmp/blowup")"

echo "cli_formats: ok"
