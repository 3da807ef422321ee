#!/usr/bin/env bash
# GPU benchmark (issue protocol of ../shared/bench/README.md): builds the
# Swiss-Prot-like database and the 1,000,000 x 256 equal-length one with
# synthdb, then for the 20 queries prints per-query and total scan time and
# GCUPS (bench/gpu_bench.c), the time per length bucket, and the wall time of
# the whole `swsearch search` command.
# Usage: bench/gpu_search.sh [BUILD_DIR] [SHARED_DIR]   (defaults: build, ../shared)
set -euo pipefail
build=${1:-build}
shared=${2:-../shared}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
makedb="$build/tools/makedb/makedb"
swsearch="$build/src/cli/swsearch"
bench="$build/bench/gpu_bench"
queries="$shared/data/queries20.fasta"

cc -O2 -o "$work/synthdb" "$shared/bench/synthdb.c" -lm
"$work/synthdb" protein --plant "$queries" > "$work/sp.fa"
"$makedb" -q "$work/sp.fa" "$work/sp"
rm "$work/sp.fa"

echo "== Swiss-Prot-like database, 20 queries"
"$bench" "$work/sp" "$queries"

echo
echo "== whole command: swsearch search -q queries20.fasta -d sp -o hits.tsv (wall s, peak RSS kB)"
/usr/bin/time -f '%e s  %M kB' "$swsearch" search -q "$queries" -d "$work/sp" -o "$work/hits.tsv" -v
head -3 "$work/hits.tsv"

echo
echo "== equal-length database, 1,000,000 x 256, 20 queries"
"$work/synthdb" uniform --seqs 1000000 --len 256 > "$work/u.fa"
"$makedb" -q "$work/u.fa" "$work/u"
rm "$work/u.fa"
"$bench" "$work/u" "$queries" --repeat 2
