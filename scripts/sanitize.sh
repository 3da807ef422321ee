#!/usr/bin/env bash
# Builds the CPU code with AddressSanitizer and UndefinedBehaviorSanitizer
# into build-asan/ (CUDA off) and runs the whole ctest suite there.
# Usage: scripts/sanitize.sh [ctest arguments...] (with arguments, one ctest
# run with exactly those, leaks checked in every test)
# CC picks the compiler (default cc; gcc and clang both work).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${SW_ASAN_BUILD_DIR:-build-asan}

if [ ! -f "$build/CMakeCache.txt" ]; then
  # -O2 without -DNDEBUG: assertions stay on. Frame pointers give whole
  # stacks in reports at little cost.
  cmake -S . -B "$build" -DSW_ENABLE_CUDA=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g" \
    -DCMAKE_C_FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null
fi
cmake --build "$build" -j "$(nproc)"

# A test that expects a program to fail would pass if the program died of
# a sanitizer report instead (ASan exits with 1, like an error), so reports
# go to files (log_path adds the process id), printed below, and any file
# there fails the run. Tests that run the programs inherit these variables.
# verify_asan_link_order=0: a test preloads a shim (LD_PRELOAD) ahead of
# the ASan runtime.
logs="$PWD/$build/sanitizer-reports"
rm -rf "$logs"
mkdir -p "$logs"
export ASAN_OPTIONS="log_path=$logs/asan:halt_on_error=1:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1:verify_asan_link_order=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="log_path=$logs/ubsan:halt_on_error=1:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
status=0
ctest_run() { ctest --test-dir "$build" --output-on-failure -j "$(nproc)" "$@" || status=$?; }
if [ $# -gt 0 ]; then
  ctest_run "$@"
else
  # Open MPI frees little of its own memory at exit and has unloaded its
  # plugins by then, so its leaks cannot even be named in a suppression
  # file: the tests run under mpirun are checked for everything but leaks.
  mpi='^test_(align|search)_mpi$'
  ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0" ctest_run -R "$mpi"
  ctest_run -E "$mpi"
fi
if [ -n "$(ls -A "$logs")" ]; then
  for f in "$logs"/*; do
    echo "=== sanitizer report $f" >&2
    cat "$f" >&2
  done
  echo "sanitize: $(ls "$logs" | wc -l) sanitizer report(s) above" >&2
  [ "$status" -ne 0 ] || status=1
fi
exit "$status"
