#!/bin/sh
# Runs a fuzz target once over each of its seeds and its regression inputs
# (tests/fuzz/regressions/TARGET/): a normal test of the fuzz build, so an
# input that once crashed a reader is checked on every run.
# Usage: run_inputs.sh FUZZ_BINARY TARGET MAKEDB SOURCE_DIR
set -u
binary=$1 target=$2 makedb=$3 src=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sh "$src/tests/fuzz/seeds.sh" "$makedb" "$src" "$tmp/seeds" "$target" || exit 1
set --
for f in "$tmp/seeds/$target"/* "$src/tests/fuzz/regressions/$target"/*; do
  [ -f "$f" ] && set -- "$@" "$f"
done
[ $# -gt 0 ] || { echo "no inputs for $target"; exit 1; }
echo "$target: $# inputs"
# The targets' temporary files go under $tmp, removed with it.
UBSAN_OPTIONS="print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}" TMPDIR=$tmp "$binary" -timeout=25 -rss_limit_mb=2048 "$@" > "$tmp/log" 2>&1
status=$?
[ "$status" -eq 0 ] && exit 0
cat "$tmp/log"
# libFuzzer reports a crash with 77, which means "skipped" to ctest.
exit 1
