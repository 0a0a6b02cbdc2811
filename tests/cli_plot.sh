#!/usr/bin/env bash
# carom plot: an SVG whose six curves (kinetic, potential, total; px, py, pz)
# have one vertex per recorded sample, and whose vertices are the recorded
# values: within each panel one affine map (the axes) takes energy.csv's
# numbers to the SVG coordinates, to a hundredth of a pixel, for every point
# of every curve. Wrong data, a wrong column or a lost sample fails it.
# A PNG of the asked size; bad input exits 2 and writes nothing.
# usage: bash cli_plot.sh CAROM_BINARY SOURCE_DIR
set -u
carom=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

if ! command -v gnuplot > /dev/null; then
    echo "cli_plot: skipped (no gnuplot; scripts/setup.sh installs gnuplot-nox)"
    exit 0
fi

# A ball thrown sideways onto a floor: every energy column and px, pz vary
# or stay put in their own way. 0.6 s, a sample every 0.01 s: 61 samples.
cat > "$tmp/throw.json" <<'JSON'
{ "dt": 0.001, "duration": 0.6, "output": {"every": 0.01},
  "statics": [ {"shape": "plane", "point": [0, 0, 0], "normal": [0, 0, 1]} ],
  "bodies": [ {"radius": 0.1, "mass": 2, "position": [0, 0, 0.8], "velocity": [1.5, 0, 1],
               "restitution": 0.7, "friction": 0} ] }
JSON
samples=61
"$carom" run "$tmp/throw.json" --out "$tmp/run" --quiet || fail "run"
[ "$(($(wc -l < "$tmp/run/energy.csv") - 1))" -eq $samples ] || fail "energy.csv rows"

"$carom" plot "$tmp/run" --out "$tmp/plot.svg" > "$tmp/stdout" 2> "$tmp/stderr" || fail "plot exited $?: $(cat "$tmp/stderr")"
grep -q "^carom: $samples samples of $tmp/run/energy.csv plotted to $tmp/plot.svg" "$tmp/stdout" || fail "summary: $(cat "$tmp/stdout")"
grep -q "<svg" "$tmp/plot.svg" && grep -q "</svg>" "$tmp/plot.svg" || fail "not an SVG document"

# Curves: "name panel x,y x,y ..." for each plot group that draws data;
# gnuplot names the groups gnuplot_plot_<n><panel letter>, and with an
# opaque key it draws each key entry again afterwards in a group of the
# same name holding one two-point line: those are skipped.
tr -d '\n\t' < "$tmp/plot.svg" | awk '
    BEGIN { RS = "<g id=\"gnuplot_plot_"; q = sprintf("%c", 39) }
    NR > 1 {
        id = substr($0, 1, index($0, "\"") - 1); panel = substr(id, length(id))
        t = $0; sub(/.*<title>/, "", t); sub(/<\/title>.*/, "", t)
        i = index($0, " d=" q); if (i == 0) next
        d = substr($0, i + 4); d = substr(d, 1, index(d, q) - 1)
        gsub(/[ML]/, " ", d); gsub(/  +/, " ", d); sub(/^ /, "", d); sub(/ $/, "", d)
        if (split(d, p, " ") <= 2) next
        print t, panel, d
    }' > "$tmp/curves"
[ "$(wc -l < "$tmp/curves")" -eq 6 ] || fail "expected 6 curves, got: $(cut -d' ' -f1,2 "$tmp/curves" | tr '\n' ';')"
[ "$(cut -d' ' -f1,2 "$tmp/curves" | tr '\n' ';')" = "kinetic a;potential a;total a;px b;py b;pz b;" ] \
    || fail "curve names: $(cut -d' ' -f1,2 "$tmp/curves" | tr '\n' ';')"
awk -v n=$samples '{ if (NF - 2 != n) { print $1 " has " NF - 2 " points"; exit 1 } }' "$tmp/curves" \
    || fail "a curve does not have $samples points: $(awk '{ print $1, NF - 2 }' "$tmp/curves" | tr '\n' ';')"

# One affine map per panel and axis, fitted by least squares over all its
# curves' points against the CSV columns they claim to show.
check_panel() { # panel letter, the CSV columns of its curves
    local panel=$1 cols=$2
    awk -F, -v panel="$panel" -v cols="$cols" '
        FNR == NR { if (FNR > 1) { t[FNR - 2] = $1; for (c = 2; c <= 7; ++c) v[FNR - 2, c] = $c } ; next }
        $2 == panel {
            split(cols, cc, " "); c = cc[++curve]
            for (i = 3; i <= NF; ++i) {
                split($i, xy, ","); k = i - 3; m++
                X[m] = t[k]; PX[m] = xy[1]; Y[m] = v[k, c]; PY[m] = xy[2]
            }
        }
        function fit(A, B, a, b,   i, sa, sb, saa, sab, den) {
            for (i = 1; i <= m; ++i) { sa += A[i]; sb += B[i]; saa += A[i] * A[i]; sab += A[i] * B[i] }
            den = m * saa - sa * sa; if (den == 0) return 0
            slope = (m * sab - sa * sb) / den; icpt = (sb - slope * sa) / m; return 1
        }
        END {
            if (!fit(X, PX)) { print "no spread in t"; exit 1 }
            for (i = 1; i <= m; ++i) if ((e = PX[i] - (slope * X[i] + icpt)) * e > 1e-4) { print "x off by " e " at point " i; exit 1 }
            if (!fit(Y, PY)) { print "no spread in the values"; exit 1 }
            if (slope >= 0) { print "values do not go up the page"; exit 1 }
            for (i = 1; i <= m; ++i) if ((e = PY[i] - (slope * Y[i] + icpt)) * e > 1e-4) { print "y off by " e " px at point " i; exit 1 }
        }' FS=, "$tmp/run/energy.csv" FS=' ' "$tmp/curves"
}
msg=$(check_panel a "2 3 4") || fail "energy panel does not show energy.csv: $msg"
msg=$(check_panel b "5 6 7") || fail "momentum panel does not show energy.csv: $msg"

# The check catches wrong data: claim potential is column 2 and it fails.
check_panel a "3 2 4" > /dev/null && fail "the affine check accepts swapped columns"

# PNG: signature and IHDR size.
"$carom" plot "$tmp/run" --size 640x480 --quiet || fail "png plot"
[ "$(head -c 8 "$tmp/run/energy.png" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] || fail "not a PNG"
[ "$(od -An -tu1 -j 16 -N 8 "$tmp/run/energy.png" | tr -s ' ' | sed 's/^ //')" = "0 0 2 128 0 0 1 224" ] || fail "PNG size"

# Bad input: exit 2, the message names it, nothing written.
expect_2() {
    local want=$1; shift
    "$carom" plot "$@" > /dev/null 2> "$tmp/stderr"
    local rc=$?
    [ $rc -eq 2 ] || fail "plot $* exited $rc, expected 2"
    grep -qF -- "$want" "$tmp/stderr" || fail "plot $*: stderr lacks '$want': $(head -n1 "$tmp/stderr")"
}
expect_2 "RUN_DIR is required"
expect_2 "RUN_DIR '$tmp/nope' is not a directory" "$tmp/nope"
expect_2 "must end in .png or .svg" "$tmp/run" --out "$tmp/x.pdf"
expect_2 "directory '$tmp/missing' does not exist" "$tmp/run" --out "$tmp/missing/x.svg"
mkdir "$tmp/broken"
printf 't,kinetic,potential,total,px,py,pz\n0,1,2,3,0,0,0\n0.1,1,2,three,0,0,0\n' > "$tmp/broken/energy.csv"
expect_2 "$tmp/broken/energy.csv: line 3: expected 7 finite numbers" "$tmp/broken"
printf 't,x\n' > "$tmp/broken/energy.csv"
expect_2 "line 1: expected the header t,kinetic,potential,total,px,py,pz" "$tmp/broken"
[ -z "$(ls -A "$tmp/broken" | grep -v energy.csv)" ] || fail "bad input left files: $(ls -A "$tmp/broken")"
[ -e "$tmp/x.pdf" ] && fail "wrote x.pdf"

echo "cli_plot: ok"
