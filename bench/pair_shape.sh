#!/usr/bin/env bash
# The megabase kernel's shape side by side: the default build against a
# second build whose lanes hold more rows (SW_PAIR_ALPHA, rows a lane;
# SW_PAIR_BLOCKS_PER_SM and SW_PAIR_WARPS_PER_BLOCK, which set the register
# budget; a block's static shared memory must stay under 48 KB, so 16 rows a
# lane takes blocks of two warps), in one call: the pairwise GPU tests on the second build (the
# quick suite), then the forward pass without and with pruning on related
# pairs, each build in turn, `ROUNDS` times.
#
# usage: bench/pair_shape.sh BUILD
# Environment: SHAPE (default "16 8 2": ALPHA BLOCKS WARPS; several shapes
# separated by commas), SIZES (default "5000000 10000000"), ROUNDS (default
# 2), TESTS (default 1), PRUNES (default "0 1").
. "$(dirname "$0")/lib.sh"
. "$bench_dir/pair_inputs.sh"
set +e # a failed run is reported, and the next one goes on
sizes=${SIZES-5000000 10000000}
rounds=${ROUNDS:-2}
prunes=${PRUNES:-0 1}
others=()
IFS=, read -r -a shapes <<< "${SHAPE:-16 8 2}"
for shape in "${shapes[@]}"; do
  read -r alpha blocks warps <<< "$shape"
  other=$build-shape-$alpha-$blocks-$warps
  cmake -S . -B "$other" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DCMAKE_CUDA_FLAGS="-DSW_PAIR_ALPHA=$alpha -DSW_PAIR_BLOCKS_PER_SM=$blocks -DSW_PAIR_WARPS_PER_BLOCK=$warps" \
    > "$work/configure.log" 2>&1 &&
    cmake --build "$other" -j16 --target pair_bench test_pair_gpu > "$work/build.log" 2>&1 ||
    { tail -30 "$work/build.log"; exit 1; }
  if [ "${TESTS:-1}" = 1 ]; then
    "$other/tests/gpu/test_pair_gpu" --jobs 1 --filter 'pair_gpu/*' 2>&1 | tail -1 | sed "s/^/$(basename "$other"): /"
  fi
  others+=("$other")
done
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader 2>/dev/null
for n in $sizes; do
  f=$(related_pair "$n")
  for r in $(seq "$rounds"); do
    for b in "$build" "${others[@]}"; do
      for prune in $prunes; do
        printf '%s prune %d: ' "$(basename "$b")" "$prune"
        "$b/bench/pair_bench" "$f" --prune $prune
      done
    done
  done
done
