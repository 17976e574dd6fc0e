#!/usr/bin/env bash
# A longer local fuzz run of every harness (or the ones named), one per core,
# from the committed seeds (copied; merge new finds back by hand with -merge=1
# if wanted). Prints executions and coverage per harness; crash reproducers
# stay in the work directory (printed).
# Usage: bash tests/native/fuzz/run_long.sh SECONDS [HARNESS...]
#   e.g. bash tests/native/fuzz/run_long.sh 600
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
secs="${1:?usage: run_long.sh SECONDS [HARNESS...]}"
shift
if [ $# -eq 0 ]; then set -- $(cd "$here" && ls fuzz_*.c | sed 's/^fuzz_//; s/\.c$//'); fi
work="${FUZZ_WORK:-$(mktemp -d /tmp/tokinspect-fuzz-long.XXXXXX)}"
echo "work directory: $work"
bash "$here/build.sh" "$work/bin" || exit 1
jobs="${JOBS:-$(nproc 2>/dev/null || echo 2)}"
run_one() {
    h="$1"
    mkdir -p "$work/$h/corpus" "$work/$h/artifacts"
    cp "$here/corpus/$h/"* "$work/$h/corpus/" 2>/dev/null
    d=""; [ -f "$here/dict/$h.dict" ] && d="-dict=$here/dict/$h.dict"
    "$work/bin/fuzz_$h" $d -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$work/$h/artifacts/" "$work/$h/corpus" > "$work/$h/log" 2>&1
    echo $? > "$work/$h/rc"
}
export -f run_one
export work secs here
printf '%s\n' "$@" | xargs -P "$jobs" -I{} bash -c 'run_one {}'
printf '%-14s %12s %8s %8s %8s %s\n' harness executions cov ft corpus result
status=0
for h in "$@"; do
    last=$(grep -E '^#[0-9]+' "$work/$h/log" | tail -1)
    execs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$work/$h/log" | awk '{print $2}')
    cov=$(echo "$last" | grep -o 'cov: [0-9]*' | awk '{print $2}')
    ft=$(echo "$last" | grep -o 'ft: [0-9]*' | awk '{print $2}')
    corp=$(echo "$last" | grep -o 'corp: [0-9]*' | awk '{print $2}')
    rc=$(cat "$work/$h/rc")
    res=ok
    if [ "$rc" != 0 ]; then res="CRASH (exit $rc): $(ls "$work/$h/artifacts" | sed "s|^|$work/$h/artifacts/|" | tr '\n' ' ')"; status=1; fi
    printf '%-14s %12s %8s %8s %8s %s\n' "$h" "${execs:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "$res"
done
exit $status
