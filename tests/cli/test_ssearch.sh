#!/bin/sh
# Every score swsearch reports for the 20 benchmark queries against 2,500
# Swiss-Prot-like sequences (20 standard residues plus B, Z, X) equals the
# Smith-Waterman score of ssearch36 (FASTA 36, Debian package fasta3) with
# BLOSUM62, gap open 11, extend 1; and both list the same hits.
# Usage: test_ssearch.sh SWSEARCH MAKEDB DATA_DIR
set -eu
swsearch=$1 makedb=$2 data=$3
if ! command -v ssearch36 >/dev/null 2>&1; then
  echo "ssearch36 not installed (Debian package fasta3): skipped"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
zstd -dcq "$data/swissprot_like_2500.fa.zst" > "$tmp/db.fa"
"$makedb" -q "$tmp/db.fa" "$tmp/db"
"$swsearch" search -q "$data/queries20.fasta" -d "$tmp/db" --top 100000 --outfmt tsv -o "$tmp/ours.tsv"
# -z -1: no statistics, so the hit list shows the raw s-w score of every
# library sequence (-m 9 would also align every hit: minutes instead of seconds).
ssearch36 -q -p -s BL62 -f -11 -g -1 -z -1 -E 1e9 -b 100000 -d 0 -T 2 \
  "$data/queries20.fasta" "$tmp/db.fa" > "$tmp/ssearch.out"

awk 'NR > 1 { print $1 "\t" $5 "\t" $4 }' "$tmp/ours.tsv" | sort > "$tmp/ours.txt"
parse_ssearch() {
awk '
  /^ *[0-9]+>>>/ { sub(/^ *[0-9]+>>>/, ""); split($0, w, " "); query = w[1]; next }
  /^The best scores are:/ { inlist = 1; next }
  inlist && /^$/ { inlist = 0; next }
  inlist && /^>>>/ { inlist = 0; next }
  inlist {
    # "ID description ( LEN)  SCORE\t..." : the score follows the length.
    if (match($0, /\( *[0-9]+\)[ \t]+[0-9]+/)) {
      s = substr($0, RSTART, RLENGTH); sub(/^.*\)[ \t]+/, "", s)
      if (s + 0 > 0) print query "\t" $1 "\t" s
    }
  }' "$1"
}

parse_ssearch "$tmp/ssearch.out" | sort > "$tmp/ssearch.txt"

ours=$(wc -l < "$tmp/ours.txt")
theirs=$(wc -l < "$tmp/ssearch.txt")
if [ "$theirs" -lt 45000 ]; then
  echo "FAIL: parsed only $theirs scores from ssearch36 output"
  exit 1
fi
if ! diff "$tmp/ssearch.txt" "$tmp/ours.txt" > "$tmp/diff.txt"; then
  echo "FAIL: scores differ from ssearch36 (< ssearch36, > swsearch):"
  head -20 "$tmp/diff.txt"
  exit 1
fi
echo "PASS: all $ours scores (20 queries x 2,500 sequences) equal ssearch36's"

# Selenocysteine (U), pyrrolysine (O) and J (leucine or isoleucine), which
# NCBI's matrix files lack: 300 sequences with every C, K or I replaced.
awk '/^>/ { n++; print; next }
     n <= 100 { gsub(/C/, "U") } n > 100 && n <= 200 { gsub(/K/, "O") } n > 200 && n <= 300 { gsub(/I/, "J") }
     n <= 300' "$tmp/db.fa" > "$tmp/uoj.fa"
"$makedb" -q "$tmp/uoj.fa" "$tmp/uoj"
"$swsearch" search -q "$data/queries20.fasta" -d "$tmp/uoj" --top 100000 --outfmt tsv -o "$tmp/uoj.tsv"
ssearch36 -q -p -s BL62 -f -11 -g -1 -z -1 -E 1e9 -b 100000 -d 0 -T 2 \
  "$data/queries20.fasta" "$tmp/uoj.fa" > "$tmp/uoj.out"
awk 'NR > 1 { print $1 "\t" $5 "\t" $4 }' "$tmp/uoj.tsv" | sort > "$tmp/ours_uoj.txt"
parse_ssearch "$tmp/uoj.out" | sort > "$tmp/ssearch_uoj.txt"
[ "$(wc -l < "$tmp/ssearch_uoj.txt")" -ge 5000 ] || { echo "FAIL: parsed too few U/O/J scores"; exit 1; }
if ! diff "$tmp/ssearch_uoj.txt" "$tmp/ours_uoj.txt" > "$tmp/diff.txt"; then
  echo "FAIL: U, O or J scores differ from ssearch36 (< ssearch36, > swsearch):"
  head -20 "$tmp/diff.txt"
  exit 1
fi
echo "PASS: with U, O and J in the subjects, all $(wc -l < "$tmp/ours_uoj.txt") scores equal ssearch36's"
