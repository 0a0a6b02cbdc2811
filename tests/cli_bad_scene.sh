#!/usr/bin/env bash
# Bad scenes and bad usage: exit status 2, a message naming the JSON path
# and value on stderr, and no output files (not even the directory).
# usage: bash cli_bad_scene.sh CAROM_BINARY SOURCE_DIR
set -u
carom=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# expect_bad JSON FRAGMENT...: run fails with 2, stderr holds each fragment.
n=0
expect_bad() {
    local json=$1; shift
    n=$((n + 1))
    printf '%s\n' "$json" > "$tmp/bad$n.json"
    "$carom" run "$tmp/bad$n.json" --out "$tmp/out$n" > "$tmp/stdout" 2> "$tmp/stderr"
    local rc=$?
    [ "$rc" -eq 2 ] || fail "scene $json: exit $rc, expected 2"
    for frag in "$@"; do
        grep -qF -- "$frag" "$tmp/stderr" || fail "scene $json: stderr lacks '$frag': $(cat "$tmp/stderr")"
    done
    grep -qF "bad$n.json: " "$tmp/stderr" || fail "message does not start with the file name: $(cat "$tmp/stderr")"
    [ -e "$tmp/out$n/trajectory.csv" ] && fail "scene $json: trajectory.csv written"
    [ -e "$tmp/out$n/energy.csv" ] && fail "scene $json: energy.csv written"
    [ -e "$tmp/out$n" ] && fail "scene $json: output directory created"
    "$carom" validate "$tmp/bad$n.json" > /dev/null 2>&1
    [ $? -eq 2 ] || fail "validate $json: exit status not 2"
}

expect_bad '{"bodies": [{"radius": 0.1, "colour": "red"}]}' 'bodies[0].colour: unknown key'
expect_bad '{"gravity": "down"}' 'gravity: expected an array of 3 numbers, got "down"'
expect_bad '{"bodies": [{}, {"position": [1, 0, 0], "mass": -1}]}' 'bodies[1].mass: must be > 0, got -1'
expect_bad '{"bodies": [{"radius": -0.1}]}' 'bodies[0].radius: must be > 0, got -0.1'
expect_bad '{"statics": [{"shape": "plane", "normal": [0, 0, 0]}]}' 'statics[0].normal: must be non-zero and finite, got [0,0,0]'
expect_bad '{"dt": NaN}' 'line 1' 'NaN'
expect_bad '{"bodies": [{"velocity": [1e999, 0, 0]}]}' 'bodies[0].velocity[0]' 'inf'
expect_bad '{"bodies": [{"radius": 0.1}, {"radius": 0.1, "position": [0.15, 0, 0]}]}' \
    'bodies[1] overlaps bodies[0] by 0.05 m' 'allow_overlap'
expect_bad '{"generate": [{"lattice": {"count": [2, 2], "spacing": 1}}]}' 'generate[0].lattice.count' '[2,2]'

# A file that cannot be read.
"$carom" run "$tmp/missing.json" --out "$tmp/outm" 2> "$tmp/stderr"
[ $? -eq 2 ] || fail "missing file: exit status not 2"
grep -qF "missing.json: cannot read: No such file or directory" "$tmp/stderr" || fail "missing file message: $(cat "$tmp/stderr")"
[ -e "$tmp/outm" ] && fail "missing file: output directory created"

# A bad scene leaves an earlier run's results alone.
mkdir -p "$tmp/keep"
echo previous > "$tmp/keep/trajectory.csv"
"$carom" run "$tmp/bad1.json" --out "$tmp/keep" 2> /dev/null
[ "$(cat "$tmp/keep/trajectory.csv")" = previous ] || fail "a bad scene touched existing results"
[ "$(ls -A "$tmp/keep")" = trajectory.csv ] || fail "a bad scene left files: $(ls -A "$tmp/keep")"

# Bad usage.
"$carom" run --frobnicate 2> /dev/null; [ $? -eq 2 ] || fail "unknown option: exit status not 2"
"$carom" run a.json b.json 2> /dev/null; [ $? -eq 2 ] || fail "two scenes: exit status not 2"
"$carom" run --out 2> /dev/null; [ $? -eq 2 ] || fail "--out without a directory: exit status not 2"
"$carom" validate 2> /dev/null > "$tmp/stdout"; [ $? -eq 0 ] || fail "validate of the default scene failed"

echo "cli_bad_scene: ok"
