#!/usr/bin/env bash
# Builds every libFuzzer harness (fuzz_*.c) into OUTDIR with ASan + UBSan:
# the engine (native/src/*.c + native/cli/request.c) is compiled once with
# -fsanitize=fuzzer-no-link,address,undefined, then each harness is linked.
# Usage: bash tests/native/fuzz/build.sh OUTDIR [HARNESS...]
#   (CLANG=clang-14 picks the compiler; JOBS=n the parallelism, default nproc)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
out="${1:?usage: build.sh OUTDIR [HARNESS...]}"
shift
mkdir -p "$out/obj"
export CC_="${CLANG:-clang}"
jobs="${JOBS:-$(nproc 2>/dev/null || echo 2)}"
export SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
export INC="-I$repo/native/src -I$repo/native/cli"
if [ $# -eq 0 ]; then
    set -- $(cd "$here" && ls fuzz_*.c | sed 's/^fuzz_//; s/\.c$//')
fi
# the engine, once
printf '%s\n' "$repo"/native/src/*.c "$repo/native/cli/request.c" | OUT="$out/obj" xargs -P "$jobs" -I{} sh -c \
    '$CC_ -std=c11 -g -O1 -fsanitize=fuzzer-no-link $SAN $INC -c "{}" -o "$OUT/$(basename "{}" .c).o"'
# fuzz_regex gets a matcher with a smaller backtracking budget (the same code; the
# step-limit error comes sooner, so catastrophic patterns cost milliseconds, not 100s of ms)
mkdir -p "$out/obj_regex"
$CC_ -std=c11 -g -O1 -fsanitize=fuzzer-no-link $SAN $INC -DTC_REGEX_STEP_LIMIT=200 -DTC_REGEX_STEP_BASE=20000 \
    -c "$repo/native/src/regex.c" -o "$out/obj_regex/regex.o"
# the harnesses
printf '%s\n' "$@" | OUT="$out" HERE="$here" xargs -P "$jobs" -I{} sh -c '
    objs=$(ls "$OUT"/obj/*.o)
    if [ "{}" = regex ]; then objs="$(ls "$OUT"/obj/*.o | grep -v "/regex.o$") $OUT/obj_regex/regex.o"; fi
    $CC_ -std=c11 -g -O1 -fsanitize=fuzzer $SAN $INC "$HERE/fuzz_{}.c" $objs -lm -o "$OUT/fuzz_{}"'
