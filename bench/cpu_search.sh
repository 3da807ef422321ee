#!/usr/bin/env bash
# CPU benchmark: makedb on the Swiss-Prot-like FASTA, then the CPU engine next
# to ssearch36 on the same query and database (a 375-residue query against the
# first 30,000 sequences, and against all 572,000).
# SEQS (optional): a database of that many sequences instead of 572,000.
# Usage: bench/cpu_search.sh [BUILD_DIR]   (default: build)
. "$(dirname "$0")/lib.sh"

synthdb protein ${SEQS:+--seqs "$SEQS"} --plant "$queries" > "$work/sp.fa"
awk '/^>/ { n++ } n <= 30000' "$work/sp.fa" > "$work/sp30k.fa"
record "$queries" 4 > "$work/q375.fa"

echo "== makedb, ${SEQS:-572,000} sequences (wall s, peak RSS kB)"
/usr/bin/time -f '%e s  %M kB' "$makedb" -q "$work/sp.fa" "$work/sp"
"$makedb" -q "$work/sp30k.fa" "$work/sp30k"

cells30k=$(( 375 * $(grep -v '>' "$work/sp30k.fa" | tr -d '\n' | wc -c) ))
echo "== 375-residue query x $(grep -c '^>' "$work/sp30k.fa") sequences ($cells30k cells), best of 3, $(nproc) threads"
best() { local b=999; for i in 1 2 3; do
    /usr/bin/time -f '%e' -o "$work/time" "$@" > /dev/null 2>&1; s=$(cat "$work/time")
    b=$(echo "$s $b" | awk '{ print ($1 < $2) ? $1 : $2 }'); done; echo "$b"; }
t=$(best "$swsearch" search -q "$work/q375.fa" -d "$work/sp30k")
echo "swsearch   $t s  $(awk -v c="$cells30k" -v t="$t" 'BEGIN { printf "%.1f GCUPS", c / t / 1e9 }')"
if command -v ssearch36 > /dev/null; then
  t=$(best ssearch36 -q -p -s BL62 -f -11 -g -1 -b 10 -d 0 -T "$(nproc)" "$work/q375.fa" "$work/sp30k.fa")
  echo "ssearch36  $t s  $(awk -v c="$cells30k" -v t="$t" 'BEGIN { printf "%.1f GCUPS", c / t / 1e9 }')"
fi
echo "== 375-residue query x ${SEQS:-572,000} sequences"
"$swsearch" search -q "$work/q375.fa" -d "$work/sp" -v > /dev/null
