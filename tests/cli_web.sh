#!/usr/bin/env bash
# carom export-web: one self-contained HTML file (nothing loaded from
# elsewhere) replaying a run; bad or mismatched run files exit 2 and write
# nothing. Then, in headless Chromium (tests/web/replay.test.mjs): the scene
# is drawn, the plot has every sample, play/pause/speed work, and after
# scrubbing to the end the bodies are drawn where trajectory.csv says; a
# box and a hull are recorded in scene.json and drawn turned by the
# trajectory's quaternions.
# usage: bash cli_web.sh CAROM_BINARY SOURCE_DIR
set -u
carom=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# Three balls, a floor and a wall; 0.5 s sampled every 0.01 s: 51 samples.
cat > "$tmp/few.json" <<'JSON'
{ "dt": 0.001, "duration": 0.5, "output": {"every": 0.01},
  "statics": [ {"shape": "plane", "point": [0, 0, 0], "normal": [0, 0, 1]},
               {"shape": "plane", "point": [-1, 0, 0], "normal": [1, 0, 0]} ],
  "bodies": [ {"radius": 0.2, "position": [0, 0, 0.5], "velocity": [1, 0.5, 2]},
              {"radius": 0.1, "position": [0.6, 0, 0.3], "velocity": [-2, 0, 0]},
              {"radius": 0.15, "position": [0, 0.7, 0.8], "velocity": [0, -1, 0]} ] }
JSON
"$carom" run "$tmp/few.json" --out "$tmp/run" --quiet || fail "run"

if "$carom" export-web "$tmp/run" --out "$tmp/x.html" 2>&1 | grep -q "built without the replay page"; then
    echo "cli_web: skipped (this carom was built without the replay page: no web/node_modules)"
    exit 0
fi

"$carom" export-web "$tmp/run" > "$tmp/stdout" 2> "$tmp/stderr" || fail "export-web exited $?: $(cat "$tmp/stderr")"
page="$tmp/run/replay.html"
grep -q "^carom: 51 samples of 3 bodies from $tmp/run replayed in $page" "$tmp/stdout" || fail "summary: $(cat "$tmp/stdout")"
[ -s "$page" ] || fail "no page"
# Self-contained: no external scripts, styles or images; three.js and
# uPlot inside; the data inside.
grep -Eiq '<script[^>]+src=|<link[^>]+href=|<img[^>]+src=' "$page" && fail "the page loads something from elsewhere"
grep -Eiq '(src|href)="(https?:)?//' "$page" && fail "the page points to the network"
grep -q '__THREE__' "$page" || fail "three.js is not inside"
grep -q 'uplot' "$page" || fail "uPlot is not inside"
grep -q '"format":"carom-replay"' "$page" || fail "the data is not inside"
[ "$(grep -c '</script>' "$page")" -eq 2 ] || fail "a </script> inside the inlined code would end it early"
[ -z "$(ls -A "$tmp/run" | grep '^\.')" ] || fail "temporaries left: $(ls -A "$tmp/run")"

# Bad input: exit 2, a message naming it, no page.
expect_2() {
    local want=$1; shift
    rm -f "$tmp"/bad*.html
    "$carom" export-web "$@" > /dev/null 2> "$tmp/stderr"
    local rc=$?
    [ $rc -eq 2 ] || fail "export-web $* exited $rc, expected 2"
    grep -qF -- "$want" "$tmp/stderr" || fail "export-web $*: stderr lacks '$want': $(head -n1 "$tmp/stderr")"
    [ -z "$(ls "$tmp"/bad*.html 2>/dev/null)" ] || fail "export-web $* wrote a page"
}
expect_2 "RUN_DIR is required"
expect_2 "must end in .html" "$tmp/run" --out "$tmp/bad.htm"
cp -r "$tmp/run" "$tmp/r2"
rm "$tmp/r2/scene.json"
expect_2 "$tmp/r2/scene.json: cannot read" "$tmp/r2" --out "$tmp/bad.html"
cp "$tmp/run/scene.json" "$tmp/r2/"
head -n 101 "$tmp/run/trajectory.csv" > "$tmp/r2/trajectory.csv"
expect_2 "the last sample is cut short" "$tmp/r2" --out "$tmp/bad.html"
cp "$tmp/run/trajectory.csv" "$tmp/r2/"
head -n 40 "$tmp/run/energy.csv" > "$tmp/r2/energy.csv"
expect_2 "they are not of the same run" "$tmp/r2" --out "$tmp/bad.html"
cp "$tmp/run/energy.csv" "$tmp/r2/"
sed -i 's/"radius":0.2/"radius":-1/' "$tmp/r2/scene.json"
expect_2 "bodies[0]: expected \"id\": 0 and a \"radius\" > 0" "$tmp/r2" --out "$tmp/bad.html"

# The browser test.
chromium=${CHROMIUM:-/usr/bin/chromium}
if ! command -v node > /dev/null || [ ! -x "$chromium" ] || [ ! -d "$src/web/node_modules/playwright-core" ]; then
    echo "cli_web: ok without a browser (node, $chromium or web/node_modules/playwright-core missing)"
    exit 0
fi
CHROMIUM=$chromium timeout 120 node "$src/tests/web/replay.test.mjs" "$page" "$tmp/run" "$src" || fail "browser test"

# Polyhedra: a spinning box (body 0, so that the pixel check looks at it),
# a hull, a ball; no gravity, so the box turns in place. scene.json records
# the shapes; the page draws them turned by the trajectory's quaternions.
cat > "$tmp/box.json" <<'JSON'
{ "dt": 0.002, "duration": 0.4, "gravity": [0, 0, 0], "output": {"every": 0.02},
  "statics": [ {"shape": "plane", "point": [0, 0, 0], "normal": [0, 0, 1]} ],
  "bodies": [ {"shape": "box", "half_extents": [0.4, 0.25, 0.15], "position": [0, 0, 0.8],
               "orientation": [0.9239, 0.3827, 0, 0], "angular_velocity": [0.5, 1, 3]},
              {"shape": "hull", "points": [[0, 0, 0], [0.4, 0, 0], [0, 0.4, 0], [0, 0, 0.4]],
               "position": [1, 0.5, 0.6], "angular_velocity": [0, 2, 0]},
              {"radius": 0.15, "position": [-0.8, 0.4, 0.5]} ] }
JSON
"$carom" run "$tmp/box.json" --out "$tmp/boxrun" --quiet || fail "run of the box scene"
grep -q '"shape":"box","half_extents":\[0.4,0.25,0.15\]' "$tmp/boxrun/scene.json" || fail "scene.json lacks the box"
grep -q '"shapes":\[{"shape":"hull","triangles":\[' "$tmp/boxrun/scene.json" || fail "scene.json lacks the hull's triangles"
"$carom" export-web "$tmp/boxrun" --quiet || fail "export-web of the box scene"
EXPECT_SHAPES=box,hull,sphere CHROMIUM=$chromium timeout 120 node "$src/tests/web/replay.test.mjs" \
    "$tmp/boxrun/replay.html" "$tmp/boxrun" "$src" || fail "browser test of the box scene"
echo "cli_web: ok"
