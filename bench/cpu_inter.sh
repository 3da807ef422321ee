#!/usr/bin/env bash
# The CPU engines on many queries, on SCOPe ASTRAL 40% (14,323 domains):
#   1. 200 domains (every 71st from the first) as queries, scores only (the
#      10 best of each query, no alignments): swsearch --cpu-engine auto,
#      striped and inter; ssearch36 (-T THREADS, -b 10 -d 0) and Opal
#      (pyopal, a pool of THREADS threads) where installed.
#   2. 2,000 peptides of 10 to 30 residues cut from the domains (every 7th
#      domain from the 3rd; length and start from its number): striped
#      against auto and inter (goal: auto 10x striped).
#   3. The 375-residue query (the 4th of data/queries20.fasta), best of 5:
#      striped against auto (goal: auto no slower).
# GCUPS = query residues x database residues / seconds. Seconds: the whole
# command (opening the database and writing hits included) for swsearch
# and ssearch36; for Opal the search calls only (the database encoded
# before the clock starts). Scores: BLOSUM62, gap 11 + k for k residues in
# all three (Opal's open 12, extend 1: it charges open + (k - 1) x extend).
# Every ratio is between runs of one call of this script; on a shared
# machine rerun it before trusting a small difference.
# PYOPAL_PYTHON: a Python that imports pyopal (default: python3 if it does);
# for example `python3 -m venv /tmp/pyopal && /tmp/pyopal/bin/pip install pyopal`.
# Usage: bench/cpu_inter.sh [BUILD_DIR] [THREADS]   (default: build, 2)
. "$(dirname "$0")/lib.sh"
threads=${2:-2}
db_fa=$(scope_fasta)
"$makedb" -q "$db_fa" "$work/db" > /dev/null
db_res=$(residues_of "$db_fa")
db_seqs=$(grep -c '^>' "$db_fa")

awk '/^>/ { n++; keep = (n - 1) % 71 == 0 && ++k <= 200 } keep' "$db_fa" > "$work/q200.fa"
# One domain a line, then a peptide from every 7th: 10 to 30 residues.
awk '/^>/ { if (s != "") print s; s = ""; next } { s = s $0 } END { if (s != "") print s }' "$db_fa" |
  awk 'NR % 7 == 3 && n < 2000 { L = 10 + (NR * 7) % 21; if (length($0) < L) next
         n++; printf ">pep%d\n%s\n", n, substr($0, 1 + (NR * 13) % (length($0) - L + 1), L) }' > "$work/pep.fa"
record "$queries" 4 > "$work/q375.fa"

pyopal_python=${PYOPAL_PYTHON:-python3}
"$pyopal_python" -c 'import pyopal' 2> /dev/null || pyopal_python=

# sw NAME ENGINE QUERIES: one swsearch run; its seconds go to $work/NAME.s,
# the engine it names to $work/NAME.engine, its hits to $work/NAME.tsv.
sw() {
  local t0
  t0=$(now)
  "$swsearch" search -q "$3" -d "$work/db" --device cpu -t "$threads" --cpu-engine "$2" --top 10 \
    --outfmt "6 qseqid sseqid score" -v -o "$work/$1.tsv" 2> "$work/$1.err"
  since "$t0" > "$work/$1.s"
  sed -n 's/.*cells on \(.*\)$/\1/p' "$work/$1.err" > "$work/$1.engine"
}
# row LABEL SECONDS QUERY_RESIDUES [BASE_SECONDS BASE_NAME]
row() {
  awk -v l="$1" -v s="$2" -v q="$3" -v d="$db_res" -v b="${4:-}" -v bn="${5:-}" 'BEGIN {
    printf "%-46s %8.3f s %7.2f GCUPS", l, s, q * d / s / 1e9
    if (b != "") printf "   %6.2fx %s", b / s, bn
    printf "\n" }'
}
same_hits() {
  if cmp -s "$work/$1.tsv" "$work/$2.tsv"; then echo "hits of $1 and $2: identical"
  else echo "hits of $1 and $2: DIFFER"; fi
}

q200_res=$(residues_of "$work/q200.fa")
echo "== 200 SCOPe domains ($q200_res residues) x $db_seqs domains ($db_res residues), $threads threads, scores only"
sw auto auto "$work/q200.fa"
sw striped striped "$work/q200.fa"
sw inter inter "$work/q200.fa"
base=$(cat "$work/auto.s")
row "swsearch auto: $(cat "$work/auto.engine")" "$base" "$q200_res"
row "swsearch striped" "$(cat "$work/striped.s")" "$q200_res" "$base" "auto's speed"
row "swsearch inter" "$(cat "$work/inter.s")" "$q200_res" "$base" "auto's speed"
same_hits auto striped
same_hits auto inter
if command -v ssearch36 > /dev/null; then
  t0=$(now)
  ssearch36 -q -p -s BL62 -f -11 -g -1 -b 10 -d 0 -T "$threads" "$work/q200.fa" "$db_fa" > /dev/null
  row "ssearch36 -T $threads" "$(since "$t0")" "$q200_res" "$base" "auto's speed"
fi
if [ -n "$pyopal_python" ]; then
  t=$("$pyopal_python" - "$db_fa" "$work/q200.fa" "$threads" << 'EOF'
import sys, time
from multiprocessing.pool import ThreadPool
import pyopal

def read(path):
    seqs, cur = [], None
    for line in open(path):
        if line.startswith(">"):
            cur = []
            seqs.append(cur)
        else:
            cur.append(line.strip().upper())
    return ["".join(s) for s in seqs]

database = pyopal.Database(read(sys.argv[1]))
queries = read(sys.argv[2])
threads = int(sys.argv[3])
with ThreadPool(threads) as pool:
    start = time.perf_counter()
    for q in queries:
        scores = [r.score for r in pyopal.align(q, database, "BLOSUM62", gap_open=12, gap_extend=1,
                                                 mode="score", threads=threads, pool=pool)]
        sorted(scores, reverse=True)[:10]
    print(time.perf_counter() - start)
EOF
)
  version=$("$pyopal_python" -c 'import pyopal; print(pyopal.__version__)')
  row "Opal (pyopal $version, search calls)" "$t" "$q200_res" "$base" "auto's speed"
fi

pep_res=$(residues_of "$work/pep.fa")
echo "== 2,000 peptides of 10-30 residues ($pep_res residues) x $db_seqs domains, $threads threads"
sw pauto auto "$work/pep.fa"
sw pstriped striped "$work/pep.fa"
sw pinter inter "$work/pep.fa"
base=$(cat "$work/pstriped.s")
row "swsearch striped" "$base" "$pep_res"
row "swsearch auto: $(cat "$work/pauto.engine")" "$(cat "$work/pauto.s")" "$pep_res" "$base" "striped's speed"
row "swsearch inter" "$(cat "$work/pinter.s")" "$pep_res" "$base" "striped's speed"
same_hits pauto pstriped
same_hits pauto pinter

echo "== the 375-residue query x $db_seqs domains, $threads threads, best of 5"
for i in 1 2 3 4 5; do
  for e in striped auto; do
    sw "one_$e" "$e" "$work/q375.fa"
    cat "$work/one_$e.s" >> "$work/one_$e.all"
  done
done
best() { sort -g "$1" | head -1; }
base=$(best "$work/one_striped.all")
row "swsearch striped" "$base" 375
row "swsearch auto: $(cat "$work/one_auto.engine")" "$(best "$work/one_auto.all")" 375 "$base" "striped's speed"
same_hits one_auto one_striped
