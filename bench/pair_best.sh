#!/usr/bin/env bash
# Best-K alignments on the GPU: `swsearch align --best K` (whole command,
# engine auto) against --best 1 on synthdb pairs; prints each run's wall
# seconds and the alignments found (score, a range, b range).
#
# usage: bench/pair_best.sh BUILD
# Environment: PAIRS (default "related 10000000 10240, related 1000000
# 100352, random 1000000 1000000"), K (default 5).
. "$(dirname "$0")/lib.sh"
. "$bench_dir/pair_inputs.sh"
set +e # a failed run is reported, and the next one goes on
k=${K:-5}
nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null
IFS=, read -ra pairs <<< "${PAIRS:-related 10000000 10240, related 1000000 100352, random 1000000 1000000}"
for pair in "${pairs[@]}"; do
  read -r kind s q <<< "$pair"
  f=$(make_pair "$kind" "$s" "$q")
  for best in 1 "$k"; do
    t0=$(now)
    "$swsearch" align "$f" --best "$best" -q > "$work/best.tsv" 2> "$work/best.err" || { echo "$pair --best $best: failed"; cat "$work/best.err"; continue; }
    printf '%s x %s %s, --best %s: %.2f s:' "$s" "$q" "$kind" "$best" "$(since "$t0")"
    awk 'NR > 1 { printf " %s (%s-%s/%s-%s)", $3, $4, $5, $6, $7 }' "$work/best.tsv"
    echo
  done
done
