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
# ITERATIONS=N (optional) adds iterated searches of N rounds: swsearch
# --iterations, psiblast -num_iterations and jackhmmer -N, each round's hits
# at E-value <= INCLUSION (default 0.002, psiblast's) entering the next
# round's profile, every tool reporting the last round's hits up to E-value
# 10. swsearch iterates every query in one run (THREADS threads), on the
# CPU, or with DEVICE=gpu on the GPU (its single searches too: the same
# hits, in a fraction of the time).
# SINGLE=0 leaves out ssearch36 and blastp (swsearch's single search stays,
# the reference for the iterated rows).
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
sw() { "$swsearch" search -q "$work/q.fa" -d "$work/db" --device "${DEVICE:-cpu}" -t "$threads" --top 20000 -e 1e6 \
         --outfmt "6 qseqid sseqid evalue score" "$@"; }
t=$(timed sw -o "$work/sw.tsv")
row "swsearch, E-value (--stats table, the default)" "$work/sw.tsv" "$t"
# The same hits by raw score; a stable sort keeps equal scores in E-value order.
sort -s -t "$(printf '\t')" -k1,1 -k4,4nr "$work/sw.tsv" > "$work/sw_raw.tsv"
row "swsearch, raw score" "$work/sw_raw.tsv" "$t"
t=$(timed sw --stats fit -o "$work/swfit.tsv")
row "swsearch, E-value (--stats fit)" "$work/swfit.tsv" "$t"
single=${SINGLE:-1}
if [ "$single" != 0 ] && command -v ssearch36 > /dev/null; then
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
# blastdb: makeblastdb complains about a control byte in two SCOPe titles
# (and keeps the sequences); its messages go to a log.
blastdb() { [ -s "$work/blastdb.pin" ] || makeblastdb -in "$db_fa" -dbtype prot -out "$work/blastdb" > "$work/makeblastdb.log" 2>&1; }
if [ "$single" != 0 ] && command -v blastp > /dev/null && command -v makeblastdb > /dev/null; then
  blastdb
  for cbs in 2 0; do
    t=$(timed sh -c "blastp -query '$work/q.fa' -db '$work/blastdb' -outfmt '6 qseqid sseqid evalue bitscore' \
           -max_target_seqs 20000 -evalue 1000 -comp_based_stats $cbs -num_threads $threads > '$work/blast$cbs.tsv' 2> /dev/null")
    row "blastp, E-value (comp_based_stats $cbs)" "$work/blast$cbs.tsv" "$t"
  done
fi

iterations=${ITERATIONS:-0}
[ "$iterations" -gt 0 ] || exit 0
inclusion=${INCLUSION:-0.002}
echo "-- $iterations iterations, inclusion E-value <= $inclusion, hits reported up to E-value 10"
sw_iterated() {
  "$swsearch" search -q "$work/q.fa" -d "$work/db" --device "${DEVICE:-cpu}" -t "$threads" --top 5000 -e 10 \
    --iterations "$iterations" --inclusion-evalue "$inclusion" --outfmt "6 qseqid sseqid evalue" -o "$work/swi.tsv"
}
# Timed in this shell, not in a command substitution, so that a failed run
# stops the script.
t0=$(now)
sw_iterated
t=$(printf '%.1f' "$(since "$t0")")
row "swsearch, $iterations iterations (--inclusion-evalue)" "$work/swi.tsv" "$t"
if command -v psiblast > /dev/null && command -v makeblastdb > /dev/null; then
  blastdb
  t=$(timed sh -c "psiblast -query '$work/q.fa' -db '$work/blastdb' -num_iterations $iterations -inclusion_ethresh $inclusion \
         -evalue 10 -max_target_seqs 5000 -outfmt '7 qseqid sseqid evalue' -num_threads $threads > '$work/psi.out' 2> '$work/psi.log'")
  # Format 6 runs the rounds together; format 7 heads each round with its
  # "# Iteration:" and "# Query:" lines, so a query's block is restarted at
  # each of its rounds and the last one printed. Its warnings (composition
  # statistics reset for PSSMs) go to a log.
  awk '/^# Query: / { if ($3 != q) { for (i = 1; i <= n; i++) print h[i]; q = $3 } n = 0; next }
       /^#/ { next }
       { h[++n] = $0 }
       END { for (i = 1; i <= n; i++) print h[i] }' "$work/psi.out" > "$work/psi.tsv"
  row "psiblast, $iterations iterations (-inclusion_ethresh)" "$work/psi.tsv" "$t"
fi
if command -v jackhmmer > /dev/null; then
  # jackhmmer searches the queries one after another, and its table holds
  # each query's last round, ordered by the full sequence's E-value.
  t=$(timed jackhmmer -N "$iterations" --incE "$inclusion" --incdomE "$inclusion" -E 10 --cpu "$threads" \
         --tblout "$work/jh.tbl" -o /dev/null "$work/q.fa" "$db_fa")
  awk '!/^#/ { print $3, $1, $5 }' "$work/jh.tbl" > "$work/jh.txt"
  row "jackhmmer, $iterations iterations (--incE, --incdomE)" "$work/jh.txt" "$t"
fi
