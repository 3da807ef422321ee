#!/bin/sh
# The letters beyond the 20 standard ones (* U O J B Z X) score as in
# ssearch36 (FASTA 36, Debian package fasta3), against each other and
# against the 20: for every pair x, y of the 27 letters, the query
# WWWWWWxWWWWWW against the subject WWWWWWyWWWWWW has the same
# Smith-Waterman score in swsearch and in ssearch36 (gap open 11, extend 1),
# with BLOSUM62 (ssearch36's BL62) and BLOSUM50 (its BL50). The flanks make
# the score 12 W:W + s(x, y), so every entry of the table shows.
# Usage: test_ssearch_letters.sh SWSEARCH MAKEDB
set -eu
swsearch=$1 makedb=$2
if ! command -v ssearch36 >/dev/null 2>&1; then
  echo "ssearch36 not installed (Debian package fasta3): skipped"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# One record per letter; '*' is named "stop" in identifiers.
letters='A R N D C Q E G H I L K M F P S T W Y V B J Z X * U O'
: > "$tmp/q.fa"
: > "$tmp/s.fa"
set -f
for x in $letters; do
  name=$x
  [ "$x" = '*' ] && name=stop
  printf '>q%s\nWWWWWW%sWWWWWW\n' "$name" "$x" >> "$tmp/q.fa"
  printf '>s%s\nWWWWWW%sWWWWWW\n' "$name" "$x" >> "$tmp/s.fa"
done
set +f
"$makedb" -q "$tmp/s.fa" "$tmp/db"

status=0
for pair in BLOSUM62:BL62 BLOSUM50:BL50; do
  ours=${pair%%:*} theirs=${pair#*:}
  "$swsearch" search -q "$tmp/q.fa" -d "$tmp/db" --matrix "$ours" --gap-open 11 --gap-extend 1 \
    --top 100000 --outfmt tsv -o "$tmp/ours.tsv"
  awk 'NR > 1 { print $1 "\t" $5 "\t" $4 }' "$tmp/ours.tsv" | sort > "$tmp/ours.txt"
  # -z -1: no statistics, so the list shows the raw score of every subject.
  ssearch36 -q -p -s "$theirs" -f -11 -g -1 -z -1 -E 1e9 -b 100000 -d 0 -T 1 \
    "$tmp/q.fa" "$tmp/s.fa" > "$tmp/ssearch.out"
  awk '
    /^ *[0-9]+>>>/ { sub(/^ *[0-9]+>>>/, ""); split($0, w, " "); query = w[1]; next }
    /^The best scores are:/ { inlist = 1; next }
    inlist && /^$/ { inlist = 0; next }
    inlist && /^>>>/ { inlist = 0; next }
    inlist && match($0, /\( *[0-9]+\)[ \t]+[0-9]+/) {
      s = substr($0, RSTART, RLENGTH); sub(/^.*\)[ \t]+/, "", s); print query "\t" $1 "\t" s
    }' "$tmp/ssearch.out" | sort > "$tmp/ssearch.txt"
  n=$(wc -l < "$tmp/ssearch.txt")
  if [ "$n" -ne 729 ]; then
    echo "FAIL: $theirs: parsed $n scores from ssearch36, expected 27 x 27 = 729"
    status=1
    continue
  fi
  if diff "$tmp/ssearch.txt" "$tmp/ours.txt" > "$tmp/diff.txt"; then
    echo "PASS: $ours: all 729 pairs of letters score as ssearch36 -s $theirs scores them"
  else
    echo "FAIL: $ours: scores differ from ssearch36 -s $theirs (< ssearch36, > swsearch):"
    head -20 "$tmp/diff.txt"
    status=1
  fi
done
exit $status
