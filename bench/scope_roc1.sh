#!/usr/bin/env bash
# Sensitivity on SCOPe: ROC1 of swsearch (ranked by its E-value, by its raw
# score, and with --stats fit), ssearch36 (FASTA 36, BLOSUM62 11/1, its
# default statistics) and blastp (BLAST+, defaults, and without composition
# correction), each query a domain of the ASTRAL 40% set searched against
# the whole set.
#   True positive: same superfamily (the query itself left out); false
#   positive: another fold; same fold, other superfamily: ignored.
#   ROC1 of a query: true positives ranked above the first false positive,
#   over the query's true positives in the set; the mean over queries with
#   at least one. A tool's ranking is the order of its own output (its exact
#   E-values), so printed digits make no ties; a hit not reported ranks last.
# Queries: every STEP-th domain from the OFFSET-th (defaults 10 and 6: 1,432
# queries). Tools missing from PATH are skipped.
# Usage: bench/scope_roc1.sh BUILD [STEP] [OFFSET] [THREADS]
. "$(dirname "$0")/lib.sh"
step=${2:-10}
offset=${3:-6}
threads=${4:-$(nproc)}
db_fa=$(scope_fasta)
awk -v step="$step" -v off="$offset" '/^>/ { n++ } (n - off) % step == 0' "$db_fa" > "$work/q.fa"
grep '^>' "$db_fa" | sed 's/^>//' | awk '{ print $1, $2 }' > "$work/truth"
grep '^>' "$work/q.fa" | sed 's/^>//' | awk '{ print $1 }' > "$work/queries"
"$makedb" -q "$db_fa" "$work/db" > /dev/null

# roc1 HITS: HITS has "query subject ..." lines, each query's in ranked order.
roc1() {
  awk -v qf="$work/queries" '
    BEGIN { while ((getline l < qf) > 0) want[l] = 1 }
    FILENAME == ARGV[1] { split($2, c, "."); fold[$1] = c[1] "." c[2]; sf[$1] = c[1] "." c[2] "." c[3]; nsf[sf[$1]]++; next }
    { q = $1; s = $2; if (q == s || !(q in want) || (q in stopped) || ((q, s) in seen)) next
      seen[q, s] = 1  # BLAST lists a subject once per HSP
      if (sf[q] == sf[s]) tp[q]++; else if (fold[q] != fold[s]) stopped[q] = 1 }
    END { for (q in want) { t = nsf[sf[q]] - 1; if (t < 1) continue; sum += tp[q] / t; n++ }
          printf "%6d  %.4f", n, sum / n }' "$work/truth" "$1"
}
timed() { local t0 t1; t0=$(date +%s.%N); "$@"; t1=$(date +%s.%N); awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }'; }
row() { printf '%-52s %s  %8s s\n' "$1" "$(roc1 "$2")" "$3"; }

echo "== ROC1 on SCOPe ASTRAL 40% ($(grep -c '^>' "$db_fa") domains), $(grep -c '^>' "$work/q.fa") queries (every ${step}th from the ${offset}th), $threads threads"
printf '%-52s %6s  %6s  %10s\n' "method" "queries" "ROC1" "time"
sw() { "$swsearch" search -q "$work/q.fa" -d "$work/db" --device cpu -t "$threads" --top 20000 -e 1e6 \
         --outfmt "6 qseqid sseqid evalue score" "$@"; }
t=$(timed sw -o "$work/sw.tsv")
row "swsearch, E-value (--stats table, the default)" "$work/sw.tsv" "$t"
# The same hits by raw score; a stable sort keeps equal scores in E-value order.
sort -s -t "$(printf '\t')" -k1,1 -k4,4nr "$work/sw.tsv" > "$work/sw_raw.tsv"
row "swsearch, raw score" "$work/sw_raw.tsv" "$t"
t=$(timed sw --stats fit -o "$work/swfit.tsv")
row "swsearch, E-value (--stats fit)" "$work/swfit.tsv" "$t"
if command -v ssearch36 > /dev/null; then
  t=$(timed sh -c "ssearch36 -q -p -s BL62 -f -11 -g -1 -E 1e6 -b 20000 -d 0 -T $threads '$work/q.fa' '$db_fa' > '$work/ss.out'")
  # The list of best scores: "id description ( len) s-w bits E()"; the
  # query is named on its ">>>" line.
  awk '/^ *[0-9]+>>>/ { sub(/^ *[0-9]+>>>/, ""); split($0, w, " "); query = w[1]; next }
       /^The best scores are:/ { inlist = 1; next }
       inlist && (/^$/ || /^>>>/) { inlist = 0; next }
       inlist && $NF ~ /^[0-9.]+(e[+-]?[0-9]+)?$/ && $1 ~ /^d/ { print query, $1, $NF }' "$work/ss.out" > "$work/ss.txt"
  rm "$work/ss.out"
  row "ssearch36, E-value (default statistics)" "$work/ss.txt" "$t"
fi
if command -v blastp > /dev/null && command -v makeblastdb > /dev/null; then
  # makeblastdb complains about a control byte in two SCOPe titles (and
  # keeps the sequences); its messages go to a log.
  makeblastdb -in "$db_fa" -dbtype prot -out "$work/blastdb" > "$work/makeblastdb.log" 2>&1
  for cbs in 2 0; do
    t=$(timed sh -c "blastp -query '$work/q.fa' -db '$work/blastdb' -outfmt '6 qseqid sseqid evalue bitscore' \
           -max_target_seqs 20000 -evalue 1000 -comp_based_stats $cbs -num_threads $threads > '$work/blast$cbs.tsv' 2> /dev/null")
    row "blastp, E-value (comp_based_stats $cbs)" "$work/blast$cbs.tsv" "$t"
  done
fi
