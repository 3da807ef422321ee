#!/usr/bin/env bash
# Profile-profile alignment on the GPU against the 16-core CPU engine
# (bench/profile_bench.c): one pair of 10,000-column profiles, and a batch
# of 10,000 pairs of 200 to 1,000 columns, for both column scores; every
# GPU alignment compared with the CPU's, column by column. Then whole runs
# of `swsearch profile --pairs` on a batch written as files, GPU and CPU.
# The batches also run with the paper's global-memory variant.
#
# usage: bench/profile_gpu.sh BUILD
# Environment: LONG (default 10000), BATCH (pairs, default 10000), ROWS
# (rows of each profile, default 20), FILE_PAIRS (the --pairs run, default
# 10000; 0 skips it).
. "$(dirname "$0")/lib.sh"
set +e # a failed run is reported (the exit status), and the next one goes on
long=${LONG:-10000} batch=${BATCH:-10000} rows=${ROWS:-20} file_pairs=${FILE_PAIRS:-10000}
bench="$build/bench/profile_bench"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader 2>/dev/null
nproc
rc=0
for score in expected euclid; do
  "$bench" --long "$long" --rows "$rows" --score "$score" || rc=1
  "$bench" --batch "$batch" --min 200 --max 1000 --rows "$rows" --score "$score" || rc=1
done
# Short profiles, where a pair is small work for a warp.
"$bench" --batch "$batch" --min 50 --max 200 --rows "$rows" || rc=1
# The paper's global-memory variant: every column score written to GPU
# memory first, the sweep reading them from there (same results).
for score in expected euclid; do
  "$bench" --batch "$batch" --min 200 --max 1000 --rows "$rows" --score "$score" --scores global --cpu-pairs 500 || rc=1
done
"$bench" --long "$long" --rows "$rows" --scores global || rc=1

if [ "$file_pairs" -gt 0 ]; then
  awk -v pairs="$file_pairs" -v rows="$rows" -v dir="$work" 'BEGIN {
    srand(7); aa = "ACDEFGHIKLMNPQRSTVWY"
    for (p = 0; p < 2 * pairs; p++) {
      cols = 200 + int(rand() * 801); f = dir "/p" p ".afa"
      for (r = 0; r < rows; r++) {
        s = ""; for (c = 0; c < cols; c++) s = s (rand() < 0.1 ? "-" : substr(aa, 1 + int(rand() * 20), 1))
        print ">r" r > f
        print s > f
      }
      close(f)
    }
    for (p = 0; p < pairs; p++) print dir "/p" 2 * p ".afa", dir "/p" 2 * p + 1 ".afa", dir "/m" p ".afa" > dir "/list"
  }'
  mkdir -p "$work/cpu"
  for device in gpu cpu; do
    "$swsearch" profile --pairs "$work/list" --device $device 2>&1 | tail -1 || rc=1
    [ $device = gpu ] && for p in $(seq 0 $((file_pairs - 1))); do mv "$work/m$p.afa" "$work/cpu/g$p.afa"; done
  done
  same=0
  for p in $(seq 0 $((file_pairs - 1))); do cmp -s "$work/m$p.afa" "$work/cpu/g$p.afa" && same=$((same + 1)); done
  echo "--pairs outputs identical on GPU and CPU: $same of $file_pairs"
  [ $same -eq "$file_pairs" ] || rc=1
fi
exit $rc
