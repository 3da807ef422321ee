#!/usr/bin/env bash
# Threshold sweep of the intra-task kernel (issue protocol): for the
# Swiss-Prot-like database, the 1,000,000 x 256 equal-length one and a
# long-tailed one (the Swiss-Prot-like sequences with every length doubled),
# the 20 queries' scan time at each hand-set threshold and at the calibrated
# one (0).
# Usage: bench/gpu_threshold_sweep.sh [BUILD_DIR] [sp|uniform|doubled ...]
. "$(dirname "$0")/lib.sh"
shift || true
which=${*:-sp uniform doubled}
bench="$build/bench/gpu_bench"

for db in $which; do
  case $db in
    sp)
      synthdb protein --plant "$queries" > "$work/db.fa"
      list=${SP_SWEEP:-none,3000,1536,1024,896,768,640,512,0} ;;
    uniform)
      synthdb uniform --seqs 1000000 --len 256 > "$work/db.fa"
      list=${UNIFORM_SWEEP:-none,255,0} ;;
    doubled)
      synthdb protein --plant "$queries" |
        awk '/^>/ { if (s != "") print s s; print; s = ""; next } { s = s $0 } END { if (s != "") print s s }' \
        > "$work/db.fa"
      list=${DOUBLED_SWEEP:-none,4096,3072,2048,1536,1280,1024,768,512,0} ;;
  esac
  "$makedb" -q "$work/db.fa" "$work/db"
  rm "$work/db.fa"
  echo "== $db: threshold sweep"
  "$bench" "$work/db" "$queries" --sweep "$list" --repeat "${REPEAT:-2}"
done
