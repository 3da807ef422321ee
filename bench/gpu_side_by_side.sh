#!/usr/bin/env bash
# Two builds of swsearch on one GPU in one run, alternating, for a change that
# must not move the speed: the scan of the 20 benchmark queries against the
# Swiss-Prot-like database (bench/gpu_bench, all queries in one call), the
# whole `swsearch search` command, and `swsearch align` of the related 5 Mbp
# pair (both passes). Results must be identical.
# Usage: bench/gpu_side_by_side.sh BUILD_A BUILD_B [ROUNDS]
. "$(dirname "$0")/lib.sh"
a=$1 b=$2
rounds=${3:-2}
database sp protein --plant "$queries" # by A's makedb
synthdb dna --len 5000000 > "$work/pair5M.fa"

for round in $(seq "$rounds"); do
  for build in "$a" "$b"; do
    tag=$(basename "$build")
    scan=$("$build/bench/gpu_bench" "$work/sp" "$queries" | sed -n 's/^all .* queries in one call[^:]*: \([0-9.]*\) s = \([0-9.]*\) GCUPS.*/\1 s, \2 GCUPS/p')
    whole=$( { /usr/bin/time -f '%e' "$(swsearch_of "$build")" search -q "$queries" -d "$work/sp" -o "$work/hits-$tag.tsv" ; } 2>&1 | tail -1)
    pair=$( { /usr/bin/time -f '%e' "$(swsearch_of "$build")" align -q "$work/pair5M.fa" -o "$work/pair-$tag.tsv" ; } 2>&1 | tail -1)
    printf '%-28s scan %s | search command %s s | align 5 Mbp %s s\n' "$build" "$scan" "$whole" "$pair"
  done
done
ta=$(basename "$a") tb=$(basename "$b")
cmp -s "$work/hits-$ta.tsv" "$work/hits-$tb.tsv" && echo "search hits identical" || { echo "SEARCH HITS DIFFER"; exit 1; }
cmp -s "$work/pair-$ta.tsv" "$work/pair-$tb.tsv" && echo "alignments identical: $(tail -1 "$work/pair-$tb.tsv")" || { echo "ALIGNMENTS DIFFER"; exit 1; }
