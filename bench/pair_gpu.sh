#!/usr/bin/env bash
# Megabase pairwise mode on the GPU: GCUPS of the forward pass for related
# pairs from synthdb (persistent layout without and with pruning, and the
# CUDAlign 2010 diagonal layout), an unrelated pair, and whole runs of
# `swsearch align` (both passes), the 1 Mbp one checked against the
# multi-threaded CPU engine's result recorded in bench/JOURNAL.md
# (2026-11-23, pairwise alignment, CPU engine).
#
# usage: bench/pair_gpu.sh BUILD
# Environment: SIZES (related pair lengths, default "1000000 5000000 10000000"),
# DIAGONAL_SIZES (default "1000000 5000000"), UNRELATED (length, default
# 5000000; empty to skip), ALIGN_SIZES (whole runs, default "1000000 5000000").
. "$(dirname "$0")/lib.sh"
. "$bench_dir/pair_inputs.sh"
set +e # a failed run is reported, and the next one goes on
sizes=${SIZES-1000000 5000000 10000000}
diagonal_sizes=${DIAGONAL_SIZES-1000000 5000000}
unrelated=${UNRELATED-5000000}
align_sizes=${ALIGN_SIZES-1000000 5000000}
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader 2>/dev/null
"$build/bench/int_rate"

for n in $sizes; do
  f=$(related_pair "$n")
  "$build/bench/pair_bench" "$f" --prune 0
  "$build/bench/pair_bench" "$f" --prune 1
done
for n in $diagonal_sizes; do
  "$build/bench/pair_bench" "$(related_pair "$n")" --layout diagonal
done
if [ -n "$unrelated" ]; then
  u=$pair_dir/unrel$unrelated.fa
  if [ ! -s "$u" ]; then
    synthdb dna --len "$unrelated" --seed 11 | awk '/^>/ { n++ } n == 1' > "$work/u1.fa"
    synthdb dna --len "$unrelated" --seed 12 | awk '/^>/ { n++ } n == 1' | sed '1s/.*/>unrelated_b/' > "$work/u2.fa"
    cat "$work/u1.fa" "$work/u2.fa" > "$u"
  fi
  "$build/bench/pair_bench" "$u" --prune 0
  "$build/bench/pair_bench" "$u" --prune 1
fi
for n in $align_sizes; do
  f=$(related_pair "$n")
  for flag in --no-pruning ""; do
    "$swsearch" align "$f" --engine cudalign $flag -o "$work/align$n.tsv" 2>&1 | tail -1
    sed -n 2p "$work/align$n.tsv"
  done
  if [ "$n" = 1000000 ]; then
    got=$(awk -F'\t' 'NR == 2 { print $3, $4, $5, $6, $7 }' "$work/align$n.tsv")
    [ "$got" = "925337 1 1000000 1 1002420" ] && echo "1 Mbp pair: equal to the CPU engine" ||
      echo "1 Mbp pair: DIFFERS from the CPU engine (925337 1 1000000 1 1002420): $got"
  fi
done
