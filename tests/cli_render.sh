#!/usr/bin/env bash
# carom render: a PNG of the right size whose pixels are not all background;
# bad usage and bad scenes exit 2 with a message naming the problem, write
# nothing and simulate nothing. (The pixel-exact check is test_render.c.)
# usage: bash cli_render.sh CAROM_BINARY SOURCE_DIR
set -u
carom=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
if "$carom" render --out "$tmp/x.png" 2>&1 | grep -q "built without headless OpenGL"; then
    echo "cli_render: skipped (this carom was built without headless OpenGL)"
    exit 0
fi

# Exit 2, a message on stderr containing $1, and no image.
expect_usage_error() {
    local want=$1; shift
    rm -f "$tmp"/*.png
    "$carom" render "$@" > "$tmp/stdout" 2> "$tmp/stderr"
    local rc=$?
    [ "$rc" -eq 2 ] || fail "render $* exited $rc, expected 2"
    grep -qF -- "$want" "$tmp/stderr" || fail "render $*: stderr lacks '$want': $(head -n1 "$tmp/stderr")"
    [ -z "$(ls "$tmp"/*.png 2>/dev/null)" ] || fail "render $* left an image"
}

expect_usage_error "--out FILE.png is required" "$src/scenes/bounce.json"
expect_usage_error "must end in .png" "$src/scenes/bounce.json" --out "$tmp/x.jpg"
expect_usage_error "directory '$tmp/missing' does not exist" "$src/scenes/bounce.json" --out "$tmp/missing/x.png"
expect_usage_error "--time: expected a number, got 'soon'" "$src/scenes/bounce.json" --out "$tmp/x.png" --time soon
expect_usage_error "--time: must be >= 0, got -1" "$src/scenes/bounce.json" --out "$tmp/x.png" --time -1
expect_usage_error "--size: expected WIDTHxHEIGHT" "$src/scenes/bounce.json" --out "$tmp/x.png" --size big
expect_usage_error "--camera: expected 3 numbers" "$src/scenes/bounce.json" --out "$tmp/x.png" --camera 1,2
expect_usage_error "--camera: pitch must be in (-90, 90)" "$src/scenes/bounce.json" --out "$tmp/x.png" --camera 0,90,1
expect_usage_error "--color: expected id, speed or state" "$src/scenes/bounce.json" --out "$tmp/x.png" --color pink
expect_usage_error "unknown option '--frobnicate'" "$src/scenes/bounce.json" --out "$tmp/x.png" --frobnicate
echo '{"bodies": [{"radius": -1}]}' > "$tmp/bad.json"
expect_usage_error "bodies[0].radius: must be > 0" "$tmp/bad.json" --out "$tmp/x.png"

# A real image: PNG signature, the asked size in the IHDR chunk, a summary.
"$carom" render "$src/scenes/bounce.json" --time 0.2 --size 320x200 --out "$tmp/bounce.png" > "$tmp/stdout" 2> "$tmp/stderr" \
    || fail "render exited $?: $(cat "$tmp/stderr")"
[ -s "$tmp/stderr" ] && fail "stderr not empty when piped: $(cat "$tmp/stderr")"
grep -q "^carom: t = 0.2 s (200 steps, 1 bodies) drawn to $tmp/bounce.png, 320x200" "$tmp/stdout" \
    || fail "summary: $(cat "$tmp/stdout")"
[ "$(head -c 8 "$tmp/bounce.png" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] || fail "not a PNG signature"
ihdr=$(od -An -tu1 -j 16 -N 8 "$tmp/bounce.png" | tr -s ' ' | sed 's/^ //')
[ "$ihdr" = "0 0 1 64 0 0 0 200" ] || fail "IHDR size bytes: $ihdr, expected 320x200"
# Only the image: no temporaries left next to it.
[ "$(ls -A "$tmp" | grep -c bounce)" -eq 1 ] || fail "extra files: $(ls -A "$tmp")"
# --help, and the overlay path draws too.
"$carom" render --help | grep -q "usage: carom render" || fail "render --help"
"$carom" render "$src/scenes/bounce.json" --size 64x48 --overlay --quiet --out "$tmp/o.png" || fail "--overlay render failed"
[ -s "$tmp/o.png" ] || fail "--overlay wrote no image"

echo "cli_render: ok"
