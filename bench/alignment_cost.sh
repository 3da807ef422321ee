#!/usr/bin/env bash
# What E-values and alignments cost: the whole `swsearch search` command with
# the 20 benchmark queries against the Swiss-Prot-like database and --top 100,
# scores alone (--outfmt tsv) against BLAST's tabular output (--outfmt 6:
# E-values, bit scores and an alignment for every hit reported), with the
# default -e 10 and with every one of the 100 hits aligned (-e 1e9), rounds
# alternating. Prints the median wall time of each and its ratio to scores
# alone. With --device cpu (the second argument) it runs on the CPU; a
# database of SEQS sequences (fourth argument, default: the whole
# Swiss-Prot-like set) keeps CPU runs short.
# Usage: bench/alignment_cost.sh BUILD [gpu|cpu] [ROUNDS] [SEQS]
. "$(dirname "$0")/lib.sh"
device=${2:-gpu}
rounds=${3:-5}
database sp protein ${4:+--seqs "$4"} --plant "$queries"

run() { # NAME ARGS...: one timed run, wall seconds appended to $work/NAME
  local name=$1 t0
  shift
  t0=$(now)
  "$swsearch" search -q "$queries" -d "$work/sp" --device "$device" --top 100 "$@" -o "$work/$name.out"
  since "$t0" >> "$work/$name.times"
}

run warmup --outfmt tsv
for r in $(seq "$rounds"); do
  run scores --outfmt tsv
  run blast6 --outfmt 6
  run blast6_all --outfmt 6 -e 1e9
done
"$swsearch" search -q "$queries" -d "$work/sp" --device "$device" --top 100 --outfmt 6 -e 1e9 -v \
  -o "$work/verbose.out" 2> "$work/verbose.err"
base=$(median "$work/scores.times")
echo "== swsearch search, 20 queries, --top 100, --device $device, median of $rounds rounds"
printf '%-44s %8s %8s %7s\n' "output" "wall s" "ratio" "hits"
for name in scores blast6 blast6_all; do
  case $name in
    scores) label="--outfmt tsv (scores alone)" ;;
    blast6) label="--outfmt 6 (E-values, alignments), -e 10" ;;
    blast6_all) label="--outfmt 6, -e 1e9 (all 100 hits aligned)" ;;
  esac
  m=$(median "$work/$name.times")
  hits=$(grep -vc '^query_id' "$work/$name.out" || true)
  printf '%-44s %8.3f %8.3f %7d\n' "$label" "$m" "$(awk -v a="$m" -v b="$base" 'BEGIN { print a / b }')" "$hits"
done
tail -3 "$work/verbose.err"
