#!/usr/bin/env bash
# Tuning runs of the pairwise GPU engines: each line of $RUNS (or of the
# default list below) is "KIND SUBJECT QUERY ENGINE [pair_bench options]",
# run once; prints the kernel seconds, GCUPS and the engine's own figures
# (warps, chunk rows, recomputation) a line.
#
# usage: bench/pair_tune.sh BUILD
. "$(dirname "$0")/lib.sh"
. "$bench_dir/pair_inputs.sh"
set +e # a failed run is reported, and the next one goes on
bench=$build/bench/pair_bench
nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null
runs=${RUNS:-"random 1000000 100352 cudalign
random 1000000 100352 cudalign --warps 3696
related 1000000 100352 cudalign
related 1000000 100352 cudalign --warps 3696
random 1000000 100352 overlap
random 1000000 100352 overlap --chunk-bands 1
random 1000000 100352 overlap --chunk-bands 4
random 1000000 100352 overlap --chunk-bands 8
related 1000000 100352 overlap
random 10000000 10240 cudalign
random 10000000 10240 cudalign --warps 3696
random 10000000 100352 cudalign
random 10000000 100352 cudalign --warps 3696
related 10000000 100352 overlap
random 10000000 100352 overlap
random 10000000 100352 overlap --chunk-bands 4
random 10000000 100352 overlap --chunk-bands 22"}
printf '%-8s %-9s %-7s %-9s %-18s %9s %8s %s\n' kind subject query engine options kernel_s GCUPS details
while read -r kind s q engine opts; do
  [ -n "$kind" ] || continue
  f=$(make_pair "$kind" "$s" "$q")
  o=$("$bench" "$f" --engine "$engine" $opts) || { echo "$kind $s $q $engine $opts: failed"; continue; }
  details=$(echo "$o" | sed 's/.*"gcups": [^,]*, //; s/}$//')
  printf '%-8s %-9s %-7s %-9s %-18s %9s %8s %s\n' "$kind" "$s" "$q" "$engine" "${opts:--}" \
    "$(echo "$o" | field kernel_s)" "$(echo "$o" | field gcups)" "$details"
done <<< "$runs"
