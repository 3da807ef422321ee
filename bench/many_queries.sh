#!/usr/bin/env bash
# Many queries: every STEP-th sequence of the Swiss-Prot-like database (57:
# about 10,000 queries) searched against the whole database in one command,
# against the 20 benchmark queries' throughput. Prints TCUPS of both, the
# command's peak memory, and when the first and the last hits were written
# (hits go out batch by batch, not at the end). BLAST's tabular output, -e
# 10 and the default --top 500: statistics and alignments included. GPUS
# (optional): swsearch's --gpus for every search (default: every GPU).
# MAX_LENGTH (optional): database sequences longer than this are left out
# (to see what the longest ones cost).
# Usage: bench/many_queries.sh BUILD [STEP]
. "$(dirname "$0")/lib.sh"
step=${2:-57}
gpus=()
[ -z "${GPUS:-}" ] || gpus=(--gpus "$GPUS")
synthdb protein --plant "$queries" > "$work/sp.fa"
if [ -n "${MAX_LENGTH:-}" ]; then
  awk -v max="$MAX_LENGTH" '/^>/ { if (h != "" && length(s) <= max) print h "\n" s; h = $0; s = ""; next }
    { s = s $0 } END { if (h != "" && length(s) <= max) print h "\n" s }' "$work/sp.fa" > "$work/cut.fa"
  mv "$work/cut.fa" "$work/sp.fa"
fi
awk -v step="$step" '/^>/ { keep = (n++ % step == 0) } keep' "$work/sp.fa" > "$work/many.fa"
"$makedb" -q "$work/sp.fa" "$work/sp"
rm "$work/sp.fa"
nq=$(grep -c '^>' "$work/many.fa")
nres=$(residues_of "$work/many.fa")
"$swsearch" search -q "$queries" -d "$work/sp" "${gpus[@]}" --outfmt tsv --top 10 -o "$work/warm.out" 2> /dev/null

"$swsearch" search -q "$queries" -d "$work/sp" "${gpus[@]}" -v -o "$work/q20.out" 2> "$work/q20.err"
# The big run; a watcher notes when the output file first grows.
"$swsearch" search -q "$work/many.fa" -d "$work/sp" "${gpus[@]}" -v -o /dev/stdout > "$work/many.out" 2> "$work/many.err" &
pid=$!
start=$(date +%s.%N) first=
peak=0
while kill -0 $pid 2> /dev/null; do
  if [ -z "$first" ] && [ -s "$work/many.out" ]; then first=$(date +%s.%N); fi
  rss=$(awk '/VmHWM/ { print $2 }' /proc/$pid/status 2> /dev/null || echo 0)
  [ -n "$rss" ] && [ "$rss" -gt "$peak" ] && peak=$rss
  sleep 0.5
done
wait $pid
end=$(date +%s.%N)
scan20=$(sed -n 's/.*scan \([0-9.]*\) s (\([0-9.]*\) GCUPS).*/\2/p' "$work/q20.err")
scanN=$(sed -n 's/.*scan \([0-9.]*\) s (\([0-9.]*\) GCUPS).*/\2/p' "$work/many.err")
echo "== $nq queries ($nres residues, every ${step}th database sequence) against the Swiss-Prot-like database${MAX_LENGTH:+ up to $MAX_LENGTH residues}${GPUS:+, --gpus $GPUS}"
tail -2 "$work/many.err"
awk -v a="$scan20" -v b="$scanN" -v s="$start" -v f="${first:-$end}" -v e="$end" -v peak="$peak" -v hits="$(wc -l < "$work/many.out")" \
  'BEGIN { printf "scan: %.2f TCUPS (20 queries: %.2f TCUPS, ratio %.3f); first hits written after %.1f s of %.1f s; %d hits; peak memory %.0f MB\n", b / 1000, a / 1000, b / a, f - s, e - s, hits, peak / 1024 }'
