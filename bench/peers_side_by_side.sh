#!/usr/bin/env bash
# swsearch against CUDASW++4.0 on one GPU, in one run, rounds alternating: the
# scan of the 20 benchmark queries against the Swiss-Prot-like database and
# against an equal-length database (1,000,000 sequences of 256 residues), and
# swsearch's whole command. Prints each time, TCUPS and the ratio (CUDASW++4.0's
# time over ours: above 1 means we are faster), and checks the top scores agree.
#
# CUDASW++4.0 is built from PEERS/cudasw4 (a copy of asbschmidt/CUDASW4 outside
# our tree, never committed; bench/README.md has the recipe and the
# Makefile edits) unless PEERS/bin holds its align and makedb already.
# Gap costs: CUDASW++4.0 charges its gap-open score for the first gap residue,
# so its --gop -11 --gex -1 is our --gap-open 10 --gap-extend 1; both run that.
# Usage: bench/peers_side_by_side.sh BUILD PEERS [ROUNDS]
. "$(dirname "$0")/lib.sh"
peers=$(cd "$2" && pwd)
rounds=${3:-3}

# CUDASW++4.0, built once.
. "$(dirname "$0")/cudasw4.sh"
cudasw4_ready "$peers" "$work"

synthdb protein --plant "$queries" > "$work/sp.fa"
synthdb uniform --seqs 1000000 --len 256 > "$work/eq.fa"
for db in sp eq; do
  "$makedb" -q "$work/$db.fa" "$work/$db"
  mkdir -p "$work/cs-$db"
  "$peers/bin/makedb" "$work/$db.fa" "$work/cs-$db/db" > /dev/null
  rm "$work/$db.fa"
done
qres=$(residues_of "$queries")
declare -A dbres=([sp]=$(db_residues "$work/sp") [eq]=$((1000000 * 256)))

ours_scan() { # DB: the scan seconds of one call (all queries), from -v
  "$swsearch" search -q "$queries" -d "$work/$1" --gap-open 10 --gap-extend 1 --top 10 --outfmt tsv -v \
    -o "$work/ours-$1.tsv" 2> "$work/ours-$1.err"
  sed -n 's/.*scan \([0-9.]*\) s.*/\1/p' "$work/ours-$1.err" | head -1
}
ours_whole() { # DB: wall seconds of the whole command
  local t0
  t0=$(now)
  "$swsearch" search -q "$queries" -d "$work/$1" --gap-open 10 --gap-extend 1 --top 10 --outfmt tsv \
    -o "$work/whole-$1.tsv"
  since "$t0"
}
theirs_scan() { # DB: CUDASW++4.0's scan seconds ("Total time: X s")
  "$peers/bin/align" --query "$queries" --db "$work/cs-$1/db" --dpx --gop -11 --gex -1 --top 10 --verbose \
    --tsv --of "$work/theirs-$1.tsv" > "$work/theirs-$1.log" 2>&1
  grep -i "total time" "$work/theirs-$1.log" | tail -1 | grep -o '[0-9.]\+ *s' | head -1 | tr -d ' s'
}

for db in sp eq; do : > "$work/ours-$db.times"; : > "$work/theirs-$db.times"; : > "$work/whole-$db.times"; done
ours_scan sp > /dev/null # calibration, caches
for r in $(seq "$rounds"); do
  for db in sp eq; do
    ours_scan "$db" >> "$work/ours-$db.times"
    theirs_scan "$db" >> "$work/theirs-$db.times"
    ours_whole "$db" >> "$work/whole-$db.times"
  done
done

echo "== swsearch vs CUDASW++4.0 (DPX), 20 queries ($qres residues), median of $rounds rounds, $(gpu_name)"
printf '%-34s %10s %9s %12s %9s %7s %12s\n' database "ours s" "TCUPS" "CUDASW4 s" "TCUPS" ratio "our command"
for db in sp eq; do
  o=$(median "$work/ours-$db.times") t=$(median "$work/theirs-$db.times") w=$(median "$work/whole-$db.times")
  cells=$(awk -v q="$qres" -v d="${dbres[$db]}" 'BEGIN { print q * d }')
  label=$([ $db = sp ] && echo "Swiss-Prot-like (${dbres[$db]} res.)" || echo "equal length 1,000,000 x 256")
  awk -v l="$label" -v o="$o" -v t="$t" -v c="$cells" -v w="$w" \
    'BEGIN { printf "%-34s %10.3f %9.2f %12.3f %9.2f %6.2fx %11.3f s\n", l, o, c / o / 1e12, t, c / t / 1e12, t / o, w }'
done
# The scores must agree. Both keep each query's 10 best: compare them rank by
# rank (ours: query_id query_length rank score ...; CUDASW++4.0: query number,
# query length, header, result number, score, ...). CUDASW++4.0 scores U as X,
# so a few subjects with selenocysteine score lower there.
for db in sp eq; do
  awk -F'\t' 'NR > 1 { if ($1 != last) { q++; last = $1 } print q - 1, $3 - 1, $4 }' "$work/ours-$db.tsv" | sort > "$work/os-$db"
  awk -F'\t' '$1 ~ /^[0-9]+$/ { print $1, $4, $5 }' "$work/theirs-$db.tsv" | sort > "$work/ts-$db"
  same=$(join <(awk '{ print $1 "_" $2, $3 }' "$work/os-$db" | sort) <(awk '{ print $1 "_" $2, $3 }' "$work/ts-$db" | sort) | awk '$2 == $3' | wc -l)
  echo "$db: $same of $(wc -l < "$work/os-$db") top-10 scores equal, rank by rank"
done
