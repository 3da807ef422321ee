#!/usr/bin/env bash
# GPU benchmark (the protocol of bench/README.md): builds the
# Swiss-Prot-like database and the 1,000,000 x 256 equal-length one with
# synthdb, then for the 20 queries prints per-query and total scan time and
# GCUPS (bench/gpu_bench.c), the time per length bucket, and the wall time of
# the whole `swsearch search` command.
# Usage: bench/gpu_search.sh [BUILD_DIR]   (default: build)
. "$(dirname "$0")/lib.sh"
bench="$build/bench/gpu_bench"

database sp protein --plant "$queries"

echo "== Swiss-Prot-like database, 20 queries"
"$bench" "$work/sp" "$queries"

echo
echo "== whole command: swsearch search -q queries20.fasta -d sp -o hits.tsv (wall s, peak RSS kB)"
/usr/bin/time -f '%e s  %M kB' "$swsearch" search -q "$queries" -d "$work/sp" -o "$work/hits.tsv" -v
head -3 "$work/hits.tsv"

echo
echo "== equal-length database, 1,000,000 x 256, 20 queries"
database u uniform --seqs 1000000 --len 256
"$bench" "$work/u" "$queries" --repeat 2
