#!/usr/bin/env bash
# PSSM queries on the GPU against the same queries as sequences: each of
# the 20 benchmark queries searched alone against the Swiss-Prot-like
# database (synthdb protein, SEQS sequences, the queries' homologs planted),
# once with -q and once with --msa (an alignment of the query alone: a PSSM
# whose rows are the matrix's, so every score, E-value and alignment must
# be the sequence search's, and the script says whether the outputs are
# identical). Per query: the scan seconds and GCUPS of each, from -v, and
# their ratio; then the sums. `--top 10`, format 6.
# Usage: bench/pssm_gpu.sh [BUILD_DIR]   (SEQS, default 572000; DEVICE, default gpu)
. "$(dirname "$0")/lib.sh"
seqs=${SEQS:-572000}
device=${DEVICE:-gpu} # DEVICE=cpu tries the script where there is no GPU
database sp protein --seqs "$seqs" --plant "$queries"
echo "== PSSM against sequence queries, GPU $(gpu_name), $seqs sequences"
printf "%-8s %6s %22s %22s %7s %s\n" query length "sequence: scan s GCUPS" "PSSM: scan s GCUPS" ratio output
same=0
for k in $(seq 1 20); do
  record "$queries" "$k" > "$work/q.fa"
  len=$(residues_of "$work/q.fa")
  for kind in seq pssm; do
    if [ $kind = seq ]; then input=(-q "$work/q.fa"); else input=(--msa "$work/q.fa"); fi
    "$swsearch" search "${input[@]}" -d "$work/sp" --device "$device" --top 10 -v -o "$work/$kind.tsv" 2> "$work/$kind.err" ||
      { cat "$work/$kind.err"; exit 1; }
    sed -n 's/^swsearch: scan \([0-9.]*\) s (\([0-9.]*\) GCUPS).*/\1 \2/p' "$work/$kind.err" > "$work/$kind.scan"
  done
  if cmp -s "$work/seq.tsv" "$work/pssm.tsv"; then verdict=identical; same=$((same + 1)); else verdict=DIFFER; fi
  read -r ss sg < "$work/seq.scan"
  read -r ps pg < "$work/pssm.scan"
  echo "$k $len $ss $sg $ps $pg" >> "$work/rows"
  awk -v k="$k" -v l="$len" -v ss="$ss" -v sg="$sg" -v ps="$ps" -v pg="$pg" -v v="$verdict" 'BEGIN {
    printf "%-8s %6d %12.3f %9.1f %12.3f %9.1f %7.3f %s\n", k, l, ss, sg, ps, pg, ps / ss, v }'
done
awk '{ ss += $3; ps += $5; cells += $2 } END {
  printf "all 20: sequence scans %.3f s, PSSM scans %.3f s: PSSM %.3fx the time\n", ss, ps, ps / ss }' "$work/rows"
echo "outputs identical for $same of 20 queries"
