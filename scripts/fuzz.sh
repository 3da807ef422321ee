#!/usr/bin/env bash
# Builds the fuzz targets of tests/fuzz with clang into build-fuzz/, runs
# each over its seeds and regression inputs (ctest -L fuzz), then fuzzes
# each for a bounded time on a copy of its corpus in a scratch directory.
# Fails on any crash, leak, timeout or sanitizer report; the input is kept
# in build-fuzz/fuzz-artifacts/TARGET/ (add it to
# tests/fuzz/regressions/TARGET/ with the fix).
# Usage: scripts/fuzz.sh [-t SECONDS] [-j JOBS] [TARGET...]
#   -t  seconds of fuzzing per target (default $SW_FUZZ_SECONDS, else 60)
#   -j  targets fuzzed at once (default: the number of cores)
#   TARGET: fuzz_fasta fuzz_db fuzz_matrix fuzz_pair_input fuzz_msa fuzz_pssm fuzz_wire
#           (default: all)
# SW_FUZZ_CC names the compiler (default clang; it needs libFuzzer).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${SW_FUZZ_SECONDS:-60}
# A fixed seed by default, so that a run (in CI, say) can be repeated input
# for input; SW_FUZZ_SEED=0 lets libFuzzer pick one, for longer campaigns.
seed=${SW_FUZZ_SEED:-1}
jobs=$(nproc)
build=${SW_FUZZ_BUILD_DIR:-build-fuzz}
cc=${SW_FUZZ_CC:-clang}
while getopts t:j: opt; do
  case $opt in
  t) seconds=$OPTARG ;;
  j) jobs=$OPTARG ;;
  *) sed -n '2,12p' "$0" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_fasta fuzz_db fuzz_matrix fuzz_pair_input fuzz_msa fuzz_pssm fuzz_wire)

# Longest input each target is given: room for the seeds and a few
# mutations past them; longer inputs only make each run slower.
max_len() {
  case $1 in
  fuzz_fasta) echo 16384 ;;      # records of a few hundred bytes; the 45 kB seed is cut
  fuzz_db) echo 32768 ;;         # seed databases of 0.4 to 10 kB
  fuzz_matrix) echo 8192 ;;      # matrices are 2 to 3 kB; lines over 4 kB are refused
  fuzz_pair_input) echo 4096 ;;  # two short DNA records
  fuzz_msa) echo 8192 ;;         # small alignments; the self-alignment is capped at 64 x 300
  fuzz_pssm) echo 16384 ;;       # PSSMs of 60-70 positions are 5-8 kB; alignments are capped at 64 x 400
  fuzz_wire) echo 4096 ;;        # a request's options and a short query; a few frames
  *) echo "fuzz: unknown target $1" >&2; exit 2 ;;
  esac
}
for t in "${targets[@]}"; do max_len "$t" >/dev/null; done

if ! command -v "$cc" >/dev/null; then
  echo "fuzz: $cc not found (scripts/setup.sh installs clang)" >&2
  exit 1
fi
if [ ! -f "$build/CMakeCache.txt" ]; then
  # -O2 without -DNDEBUG: assertions stay on.
  CC=$cc cmake -S . -B "$build" -DSW_ENABLE_FUZZ=ON -DSW_ENABLE_CUDA=OFF \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g" >/dev/null
fi
if ! grep -q '^SW_COMPILER_HAS_LIBFUZZER:INTERNAL=1' "$build/CMakeCache.txt"; then
  echo "fuzz: the compiler of $build has no libFuzzer (-fsanitize=fuzzer); remove $build and" \
       "run again with SW_FUZZ_CC=clang (Debian: apt-get install clang libclang-rt-dev)" >&2
  exit 1
fi
cmake --build "$build" -j "$(nproc)" --target fuzz

# Stacks in UBSan reports too.
export UBSAN_OPTIONS="print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"

# Every known input first: seeds and regressions, as tests.
pattern=$(printf '%s_inputs|' "${targets[@]}")
ctest --test-dir "$build" -L fuzz -R "^(${pattern%|})\$" --output-on-failure

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
sh tests/fuzz/seeds.sh "$build/tools/makedb/makedb" "$PWD" "$scratch/seeds" "${targets[@]}"

# fuzz TARGET: fuzzes one target on a scratch copy of its corpus, so the
# repository's files are never written; output in $scratch/TARGET.log.
fuzz() {
  local t=$1 corpus=$scratch/corpus/$1 artifacts=$PWD/$build/fuzz-artifacts/$1
  mkdir -p "$corpus" "$artifacts" "$scratch/tmp/$t"
  cp "$scratch/seeds/$t"/* "$corpus/"
  if [ -d "tests/fuzz/regressions/$t" ]; then
    find "tests/fuzz/regressions/$t" -type f -exec cp {} "$corpus/" \;
  fi
  TMPDIR=$scratch/tmp/$t "$build/tests/fuzz/$t" "$corpus" -max_len="$(max_len "$t")" \
    -seed="$seed" -max_total_time="$seconds" -timeout=25 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$artifacts/" > "$scratch/$t.log" 2>&1
}

echo "fuzz: ${#targets[@]} targets, ${seconds} s each, $jobs at a time"
failed=()
for ((i = 0; i < ${#targets[@]}; i += jobs)); do
  batch=("${targets[@]:i:jobs}")
  pids=()
  for t in "${batch[@]}"; do
    fuzz "$t" &
    pids+=($!)
  done
  for k in "${!batch[@]}"; do
    t=${batch[$k]}
    if wait "${pids[$k]}"; then status=0; else status=$?; fi
    log=$scratch/$t.log
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log")
    cov=$(grep -E '^#[0-9]+' "$log" | tail -n 1 | grep -oE 'cov: [0-9]+ ft: [0-9]+' || true)
    corpus=$(find "$scratch/corpus/$t" -type f | wc -l)
    printf 'fuzz: %-16s %s runs, %s/s, %s, corpus %s inputs, peak %s MB\n' \
      "$t" "${execs:-?}" "${speed:-?}" "${cov:-cov: ?}" "$corpus" "${rss:-?}"
    if [ "$status" -ne 0 ]; then
      failed+=("$t")
      echo "fuzz: $t FAILED (exit $status); its input is in $build/fuzz-artifacts/$t/:" >&2
      tail -n 80 "$log" >&2
    fi
  done
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: failed: ${failed[*]}" >&2
  exit 1
fi
echo "fuzz: no crash in ${#targets[@]} targets"
