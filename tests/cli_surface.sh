#!/usr/bin/env bash
# Scenes with surfaces through the CLI (seed 004): the boiling scene
# validates with its 1,000 balls; the bowl scene runs and its ball stays in
# the bowl, swinging from side to side without climbing; the slope scene's
# solid and hollow balls roll down at 5/7 and 3/5 g sin(theta); a surface
# too curved for a ball is exit 2 with the JSON path.
# usage: bash cli_surface.sh CAROM_BINARY SOURCE_DIR
set -u
carom=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

out=$("$carom" validate "$src/scenes/boiling.json" 2>&1) || fail "validate boiling.json exited $?: $out"
[ "$out" = "ok: 1000 bodies, 5 statics" ] || fail "validate boiling.json: $out"

# The bowl: centre (0, 0, 0.5), R = 0.5, so its bottom is at z = 0; the ball
# (r = 0.05) starts at rest 10 degrees up the side, at x0 = 0.0781, z0 = 0.0568.
"$carom" run "$src/scenes/bowl.json" --out "$tmp/bowl" > "$tmp/stdout" 2> "$tmp/stderr" ||
    fail "run bowl.json exited $?: $(cat "$tmp/stderr")"
traj="$tmp/bowl/trajectory.csv"
rows=$(($(wc -l < "$traj") - 1))
[ "$rows" -eq 801 ] || fail "bowl trajectory rows: $rows, expected 801"
# Above the bottom and on the sphere's inside: |x - c| <= R - r.
awk -F, 'NR > 1 && $5 < 0.05 - 1e-6 { print "z " $5 " at t " $1; exit 1 }' "$traj" ||
    fail "the ball went below the bowl's bottom"
awk -F, 'NR > 1 { d = sqrt($3*$3 + $4*$4 + ($5-0.5)*($5-0.5)); if (d > 0.45 + 1e-6) { print "|x - c| " d " at t " $1; exit 1 } }' \
    "$traj" || fail "the ball left the bowl's surface"
# It swings to the other side and never climbs above its start (energy).
awk -F, 'NR > 1 && $5 > 0.056836511144506385 + 1e-6 { print "z " $5 " at t " $1; exit 1 }' "$traj" ||
    fail "the ball climbed above its starting height"
awk -F, 'NR > 1 && $3 < m { m = $3 } END { exit !(m < -0.077) }' "$traj" || fail "the ball did not swing to the other side"

# The slope: 10 degrees; after 2 s a rolling solid ball has gone
# 5/7 g sin(theta) t^2 / 2 = 2.4336 m down it, a thin hollow one
# 3/5 g sin(theta) t^2 / 2 = 2.0442 m (ids 0 and 2; within 0.5%).
"$carom" run "$src/scenes/slope.json" --out "$tmp/slope" > "$tmp/stdout" 2> "$tmp/stderr" ||
    fail "run slope.json exited $?: $(cat "$tmp/stderr")"
awk -F, -v id=0 -v want=2.4335551755894 '$1 == 2 && $2 == id {
        d = sqrt(($3 - 0.008682408883346517)^2 + ($5 - 0.0492403876506104)^2)
        if (d < want * 0.995 || d > want * 1.005) { print "solid: " d; exit 1 } found = 1 }
    END { exit !found }' "$tmp/slope/trajectory.csv" || fail "the solid ball's distance down the slope"
awk -F, -v id=2 -v want=2.0441863474951 '$1 == 2 && $2 == id {
        d = sqrt(($3 - 0.008682408883346517)^2 + ($5 - 0.0492403876506104)^2)
        if (d < want * 0.995 || d > want * 1.005) { print "hollow: " d; exit 1 } found = 1 }
    END { exit !found }' "$tmp/slope/trajectory.csv" || fail "the hollow ball's distance down the slope"

# Too curved for the ball: exit 2, the JSON path, no output.
cat > "$tmp/sharp.json" <<'JSON'
{ "statics": [ {"shape": "plane"},
               {"shape": "surface", "type": "bowl", "center": [0, 0, 1], "radius": 0.1} ],
  "bodies": [ {"radius": 0.2, "position": [5, 0, 1]} ] }
JSON
"$carom" run "$tmp/sharp.json" --out "$tmp/sharp" > /dev/null 2> "$tmp/stderr"
rc=$?
[ "$rc" -eq 2 ] || fail "sharp.json: exit $rc, expected 2"
grep -qF "sharp.json: statics[1]: principal curvature" "$tmp/stderr" || fail "sharp.json: $(cat "$tmp/stderr")"
grep -qF "the largest ball is bodies[0]" "$tmp/stderr" || fail "sharp.json: $(cat "$tmp/stderr")"
[ -e "$tmp/sharp" ] && fail "sharp.json: output directory created"
exit 0
