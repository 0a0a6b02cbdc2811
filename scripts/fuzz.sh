#!/usr/bin/env bash
# Runs each libFuzzer target built in build-fuzz/ (make fuzz builds them) for
# FUZZ_SECONDS (default 60) from its seed corpus fuzz/corpus/<target>/ and its
# kept crashers fuzz/regressions/<target>/, under ASan+UBSan, and prints one
# line of figures per target. New inputs go to build-fuzz/fuzz-work/<target>/
# (never into the committed corpus); crashers to .../artifacts/. Exit status
# 1 when any target found a crash, leak, timeout or out-of-memory input
# (inputs merely slower than 10 s are listed, not counted).
# usage: scripts/fuzz.sh [TARGET ...]      (default: every target built)
#        FUZZ_SECONDS=S FUZZ_BUILD=DIR FUZZ_ARGS="-jobs=2 ..."
set -uo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-60}
build=${FUZZ_BUILD:-build-fuzz}
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    for bin in "$build"/fuzz/fuzz_*; do
        [ -x "$bin" ] && [ -f "$bin" ] && targets+=("${bin##*/fuzz_}")
    done
fi
[ ${#targets[@]} -gt 0 ] || { echo "fuzz: no targets in $build/fuzz (run make fuzz)" >&2; exit 2; }

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
status=0
printf '%-11s %8s %9s %7s %7s %6s %s\n' target seconds execs exec/s cov ft result
for t in "${targets[@]}"; do
    bin=$build/fuzz/fuzz_$t
    work=$build/fuzz-work/$t
    mkdir -p "$work/corpus" "$work/artifacts"
    dirs=("$work/corpus" "fuzz/corpus/$t")
    [ -d "fuzz/regressions/$t" ] && dirs+=("fuzz/regressions/$t")
    # shellcheck disable=SC2086
    "$bin" -max_total_time="$seconds" -timeout=25 -rss_limit_mb=2560 -print_final_stats=1 \
        -artifact_prefix="$work/artifacts/" ${FUZZ_ARGS:-} "${dirs[@]}" > "$work/log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/log" | tail -1)
    last=$(grep -E '^#[0-9]+.*cov: ' "$work/log" | tail -1)
    cov=$(sed -n 's/.*cov: \([0-9]*\).*/\1/p' <<< "$last")
    ft=$(sed -n 's/.*ft: \([0-9]*\).*/\1/p' <<< "$last")
    # slow-unit-*: inputs over 10 s (libFuzzer's -report_slow_units), kept
    # for a look but not failures; crash-, leak-, timeout-, oom- are.
    found=$(find "$work/artifacts" -type f ! -name 'slow-unit-*' | wc -l)
    slow=$(find "$work/artifacts" -type f -name 'slow-unit-*' | wc -l)
    result=ok
    [ "$slow" -gt 0 ] && result="ok ($slow slow input(s) in $work/artifacts)"
    if [ "$rc" -ne 0 ] || [ "$found" -gt 0 ]; then
        result="FOUND $found input(s) in $work/artifacts (log: $work/log)"
        status=1
    fi
    printf '%-11s %8s %9s %7s %7s %6s %s\n' "$t" "$seconds" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "$result"
done
if [ "$status" -ne 0 ]; then
    echo "fuzz: reproduce with $build/fuzz/fuzz_TARGET FILE; once fixed, keep the input in fuzz/regressions/TARGET/" \
         "(tests/test_fuzz_regressions.c replays it in make test)" >&2
fi
exit $status
