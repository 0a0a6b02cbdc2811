#!/usr/bin/env bash
# carom collide: both input forms in 3D and 2D, stdin and FILE, the output
# keys and values, and bad input: exit status 2 with the JSON path on stderr.
# usage: bash cli_collide.sh CAROM_BINARY SOURCE_DIR
set -u
carom=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# run_ok JSON: runs from stdin, expects exit 0, leaves the output in $tmp/out.
run_ok() {
    printf '%s\n' "$1" | "$carom" collide > "$tmp/out" 2> "$tmp/err"
    local rc=$?
    [ "$rc" -eq 0 ] || fail "collide $1: exit $rc: $(cat "$tmp/err")"
    [ -s "$tmp/err" ] && fail "collide $1: stderr not empty: $(cat "$tmp/err")"
    return 0
}
# has FRAGMENT...: the output holds each fragment.
has() {
    for frag in "$@"; do
        grep -qF -- "$frag" "$tmp/out" || fail "output lacks '$frag': $(cat "$tmp/out")"
    done
}
# num KEY INDEX EXPECTED TOL: element INDEX of the array KEY (or the number KEY
# when INDEX is -) is within TOL of EXPECTED.
num() {
    local line v
    line=$(grep -F "\"$1\":" "$tmp/out" | head -1)
    [ -n "$line" ] || fail "no key $1 in $(cat "$tmp/out")"
    if [ "$2" = "-" ]; then
        v=$(printf '%s\n' "$line" | sed -E 's/.*: *([-0-9.eE+]+).*/\1/')
    else
        v=$(printf '%s\n' "$line" | sed -E 's/.*\[([^]]*)\].*/\1/' | tr ',' '\n' | sed -n "$(($2 + 1))p" | tr -d ' ')
    fi
    awk -v v="$v" -v e="$3" -v t="$4" 'BEGIN { d = v - e; if (d < 0) d = -d; exit !(d <= t) }' ||
        fail "$1[$2] = $v, expected $3 within $4"
}

# Contact space, 3D: the seed's §1.2 example (two compression phases).
run_ok '{"restitution": 0.9, "friction": 0.5, "K": [[20, -23, 4], [-23, 31, -7], [4, -7, 4]], "u0": [630, -780, -0.22]}'
has '"dim": 3' '"impulse": [' '"u": [' '"sticking": "none"' '"work_compression": ' '"work_decompression": ' '"steps": '
num impulse 2 60.8115 0.001
num work_decompression - 6.21665 0.0001
grep -q '"a"' "$tmp/out" && fail "contact-space output has body velocities"

# Contact space, mu = 0: Newton, p_z = -(1 + e) u0_z / K33, exactly printed.
run_ok '{"restitution": 0.5, "friction": 0, "K": [[2, 0, 0], [0, 2, 0], [0, 0, 4]], "u0": [1, 0, -2]}'
has '"impulse": [0, 0, 0.75]' '"u": [1, 0, 1]'

# Unstable sticking from the start (seed Figure 4 matrix).
run_ok '{"restitution": 0.5, "friction": 0.7, "K": [[20, 0, 1], [0, 4, 6], [1, 6, 10]], "u0": [0, 0, -1]}'
has '"sticking": "unstable"'

# Body form, 3D: a solid ball sliding onto the ground rolls away at 5/7.
run_ok '{"restitution": 0.5, "friction": 0.9, "normal": [0, 0, 1],
         "a": {"mass": 1, "inertia": [[0.4, 0, 0], [0, 0.4, 0], [0, 0, 0.4]], "r": [0, 0, -1], "v": [1, 0, -2], "w": [0, 0, 0]},
         "b": {"immovable": true}}'
has '"sticking": "stable"' '"a": {"v": [' '"b": {"v": [0, 0, 0], "w": [0, 0, 0]}'
num impulse 2 3 1e-12
grep -F '"a":' "$tmp/out" | grep -qF '0.7142857142857' || fail "ball does not leave at 5/7: $(cat "$tmp/out")"

# Body form from a FILE, two movable bodies: momentum is conserved.
cat > "$tmp/two.json" <<'EOF'
{"restitution": 0.8, "friction": 0.4, "normal": [0.6, 0, 0.8],
 "a": {"mass": 2, "inertia": [[1, 0.1, 0], [0.1, 2, 0], [0, 0, 1.5]], "r": [-0.3, 0.2, -0.5], "v": [-1, 0.5, -2], "w": [0.3, -0.2, 1]},
 "b": {"mass": 3, "inertia": [[2, 0, 0], [0, 2, 0], [0, 0, 2]], "r": [0.4, 0, 0.6], "v": [0.5, 0, 1], "w": [0, 0, 0]}}
EOF
"$carom" collide "$tmp/two.json" > "$tmp/out" 2> "$tmp/err" || fail "collide FILE: $(cat "$tmp/err")"
for i in 0 1 2; do
    va=$(grep -F '"a":' "$tmp/out" | sed -E 's/.*"v": \[([^]]*)\].*/\1/' | tr ',' '\n' | sed -n "$((i + 1))p")
    vb=$(grep -F '"b":' "$tmp/out" | sed -E 's/.*"v": \[([^]]*)\].*/\1/' | tr ',' '\n' | sed -n "$((i + 1))p")
    before=$(echo "-1 0.5 -2" | cut -d' ' -f$((i + 1)))
    bb=$(echo "0.5 0 1" | cut -d' ' -f$((i + 1)))
    awk -v a="$va" -v b="$vb" -v a0="$before" -v b0="$bb" \
        'BEGIN { d = 2 * a + 3 * b - 2 * a0 - 3 * b0; if (d < 0) d = -d; exit !(d < 1e-12) }' ||
        fail "momentum component $i not conserved: $(cat "$tmp/out")"
done
"$carom" collide - < "$tmp/two.json" > "$tmp/out2" || fail "collide - (stdin)"
cmp -s "$tmp/out" "$tmp/out2" || fail "FILE and stdin give different results"

# 2D, contact space and body form (the §5.2 closed form: steps 0).
run_ok '{"dim": 2, "restitution": 0.5, "friction": 0.5, "K": [[2, 0.5], [0.5, 1]], "u0": [3, -1]}'
has '"dim": 2' '"steps": 0' '"sticking": "none"'
num u 1 0.5 1e-14
run_ok '{"dim": 2, "restitution": 0.5, "friction": 0.9, "normal": [0, 1],
         "a": {"mass": 1, "inertia": 0.4, "r": [0, -1], "v": [1, -2], "w": 0}, "b": {"immovable": true}}'
has '"sticking": "stable"' '"b": {"v": [0, 0], "w": 0}'
grep -F '"a":' "$tmp/out" | grep -qF '"w": -0.714285714285714' || fail "2D ball does not roll: $(cat "$tmp/out")"

# Not approaching: zero impulse.
run_ok '{"restitution": 0.5, "friction": 0.5, "K": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "u0": [1, 0, 2]}'
has '"impulse": [0, 0, 0]' '"u": [1, 0, 2]'

# --help
"$carom" collide --help | grep -q "usage: carom collide" || fail "--help"

# Bad input: exit 2, stderr names the path and the value, nothing on stdout.
n=0
expect_bad() {
    local json=$1; shift
    n=$((n + 1))
    printf '%s\n' "$json" > "$tmp/bad$n.json"
    "$carom" collide "$tmp/bad$n.json" > "$tmp/out" 2> "$tmp/err"
    local rc=$?
    [ "$rc" -eq 2 ] || fail "bad input $json: exit $rc, expected 2"
    [ -s "$tmp/out" ] && fail "bad input $json: wrote to stdout: $(cat "$tmp/out")"
    grep -qF "bad$n.json: " "$tmp/err" || fail "message does not name the file: $(cat "$tmp/err")"
    for frag in "$@"; do
        grep -qF -- "$frag" "$tmp/err" || fail "bad input $json: stderr lacks '$frag': $(cat "$tmp/err")"
    done
}
I3='[[1, 0, 0], [0, 1, 0], [0, 0, 1]]'
expect_bad "{\"restitution\": 1.5, \"friction\": 0.5, \"K\": $I3, \"u0\": [0, 0, -1]}" 'restitution: must be in [0, 1], got 1.5'
expect_bad "{\"restitution\": 0.5, \"friction\": -1, \"K\": $I3, \"u0\": [0, 0, -1]}" 'friction: must be >= 0, got -1'
expect_bad "{\"friction\": 0.5, \"K\": $I3, \"u0\": [0, 0, -1]}" 'restitution: missing'
expect_bad "{\"restitution\": 0.5, \"friction\": 0.5, \"K\": $I3, \"u0\": [0, 0, -1], \"colour\": 1}" 'colour: unknown key'
expect_bad '{"restitution": 0.5, "friction": 0.5, "K": [[1, 2, 0], [0, 1, 0], [0, 0, 1]], "u0": [0, 0, -1]}' 'K: is not symmetric' '[[1,2,0],[0,1,0],[0,0,1]]'
expect_bad '{"restitution": 0.5, "friction": 0.5, "K": [[1, 0, 0], [0, 1, 0], [0, 0, -1]], "u0": [0, 0, -1]}' 'K: is not positive definite'
expect_bad '{"restitution": 0.5, "friction": 0.5, "K": [[1, 0], [0, 1]], "u0": [0, 0, -1]}' 'K: expected a 3x3 matrix' '[[1,0],[0,1]]'
expect_bad "{\"restitution\": 0.5, \"friction\": 0.5, \"K\": $I3, \"u0\": [0, \"x\", -1]}" 'u0[1]: expected a number, got "x"'
expect_bad "{\"restitution\": 0.5, \"friction\": 0.5, \"K\": $I3}" 'u0: missing'
expect_bad '{"restitution": NaN}' 'line 1' 'NaN'
expect_bad '{"dim": 4}' 'dim: must be 2 or 3, got 4'
expect_bad '[1, 2]' 'expected a JSON object'
expect_bad "{\"restitution\": 0.5, \"friction\": 0.5, \"K\": $I3, \"u0\": [0, 0, -1], \"normal\": [0, 0, 1]}" 'cannot be mixed'
expect_bad '{"restitution": 0.5, "friction": 0.5, "normal": [0, 0, 2], "a": {"mass": 1, "inertia": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]}, "b": {"immovable": true}}' 'normal: must be a unit vector' '[0,0,2]'
expect_bad '{"restitution": 0.5, "friction": 0.5, "normal": [0, 0, 0], "a": {"mass": 1, "inertia": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]}, "b": {"immovable": true}}' 'normal: must be a unit vector'
expect_bad '{"restitution": 0.5, "friction": 0.5, "normal": [0, 0, 1], "a": {"mass": -1, "inertia": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]}, "b": {"immovable": true}}' 'a.mass: must be > 0, got -1'
expect_bad '{"restitution": 0.5, "friction": 0.5, "normal": [0, 0, 1], "a": {"mass": 1, "inertia": [[1, 0, 0], [0, -1, 0], [0, 0, 1]]}, "b": {"immovable": true}}' 'a.inertia: must be a symmetric positive definite'
expect_bad '{"restitution": 0.5, "friction": 0.5, "normal": [0, 0, 1], "a": {"mass": 1}, "b": {"immovable": true}}' 'a.inertia: missing'
expect_bad '{"restitution": 0.5, "friction": 0.5, "normal": [0, 0, 1], "a": {"mass": 1, "inertia": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "v": [1e999, 0, 0]}, "b": {"immovable": true}}' 'a.v[0]: must be finite, got inf'
expect_bad '{"restitution": 0.5, "friction": 0.5, "normal": [0, 0, 1], "a": {"mass": 1, "inertia": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "spin": 1}, "b": {"immovable": true}}' 'a.spin: unknown key'
expect_bad '{"restitution": 0.5, "friction": 0.5, "normal": [0, 0, 1], "a": {"immovable": true}, "b": {"immovable": true}}' 'cannot both be immovable'
expect_bad '{"restitution": 0.5, "friction": 0.5, "normal": [0, 0, 1], "a": {"mass": 1, "inertia": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]}, "b": {"immovable": "yes"}}' 'b.immovable: expected true or false, got "yes"'
expect_bad '{"dim": 2, "restitution": 0.5, "friction": 0.5, "normal": [0, 1], "a": {"mass": 1, "inertia": [[1]]}, "b": {"immovable": true}}' 'a.inertia: expected a number'
expect_bad '{"dim": 2, "restitution": 0.5, "friction": 0.5, "K": [[1, 0], [0, -1]], "u0": [0, -1]}' 'K: is not positive definite'

"$carom" collide "$tmp/missing.json" > /dev/null 2> "$tmp/err"
[ $? -eq 2 ] || fail "missing file: exit status not 2"
grep -qF "missing.json" "$tmp/err" || fail "missing file not named: $(cat "$tmp/err")"
"$carom" collide a.json b.json > /dev/null 2>&1
[ $? -eq 2 ] || fail "two files: exit status not 2"
"$carom" collide --bogus > /dev/null 2>&1
[ $? -eq 2 ] || fail "unknown option: exit status not 2"

echo "cli_collide: ok"
