#!/usr/bin/env bash
# The alignment itself against the smallest split given to the GPU: for
# related pairs from synthdb, pair_bench --path finds the best alignment and
# then its path once for each value of MIN_CELLS (a split of at least that
# many cells runs its two passes on the GPU, smaller ones on the CPU
# threads), printing seconds, cells, GPU passes and the seconds the GPU was
# busy with them.
#
# usage: bench/pair_path_tune.sh BUILD
# Environment: SIZES (default "1000000 5000000"), MIN_CELLS (default
# "1073741824,268435456,67108864,16777216"), REPEAT (default 1), THREADS
# (default: every processor).
. "$(dirname "$0")/lib.sh"
. "$bench_dir/pair_inputs.sh"
set +e # a failed run is reported, and the next one goes on
nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null
for n in ${SIZES:-1000000 5000000}; do
  f=$(related_pair "$n")
  echo "== related pair, $n bases"
  "$build/bench/pair_bench" "$f" --path "${MIN_CELLS:-1073741824,268435456,67108864,16777216}" \
    --repeat "${REPEAT:-1}" ${THREADS:+--threads $THREADS}
done
