#!/bin/sh
# The alignments swsearch reports are ssearch36's (FASTA 36, Debian package
# fasta3; BLOSUM62, gap open 11, extend 1): for SCOPe domains searched
# against a tenth of the SCOPe ASTRAL 40% set, every hit that ssearch36
# lists has the same Smith-Waterman score; and wherever the best alignment
# is unique, the same start and end in both sequences, the same number of
# identities and the same columns. Uniqueness is tested by aligning the
# reversed sequences too: the tie rule then prefers the other end, so equal
# coordinates both ways mean that no other optimal alignment ends or starts
# elsewhere.
# Usage: test_ssearch_alignments.sh SWSEARCH MAKEDB DATA_DIR
set -eu
swsearch=$1 makedb=$2 data=$3
if ! command -v ssearch36 >/dev/null 2>&1; then
  echo "ssearch36 not installed (Debian package fasta3): skipped"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
zstd -dcq "$data/scope40_every10th.fa.zst" > "$tmp/db.fa"
# 30 queries spread over the classes: every 48th domain.
awk '/^>/ { n++ } (n - 1) % 48 == 0' "$tmp/db.fa" > "$tmp/q.fa"
# Reversed copies: one sequence line per record, residues reversed.
reverse() {
  awk 'function flush(  i, r) { if (seq != "") { r = ""; for (i = length(seq); i >= 1; i--) r = r substr(seq, i, 1); print r } seq = "" }
       /^>/ { flush(); print; next }
       { seq = seq $0 }
       END { flush() }' "$1"
}
reverse "$tmp/db.fa" > "$tmp/rdb.fa"
reverse "$tmp/q.fa" > "$tmp/rq.fa"
"$makedb" -q "$tmp/db.fa" "$tmp/db"
"$makedb" -q "$tmp/rdb.fa" "$tmp/rdb"
fields="6 qseqid sseqid score qstart qend sstart send nident length cigar qlen slen"
"$swsearch" search -q "$tmp/q.fa" -d "$tmp/db" --device cpu --top 2000 -e 1e9 --outfmt "$fields" -o "$tmp/ours.tsv"
"$swsearch" search -q "$tmp/rq.fa" -d "$tmp/rdb" --device cpu --top 2000 -e 1e9 --outfmt "$fields" -o "$tmp/rev.tsv"
# -m 9C: the list of best scores with the s-w score, identity, coordinates
# and CIGAR of each hit (ssearch36's I is a subject residue against a gap,
# our D); -E 1 keeps hits whose alignments are not mostly noise.
ssearch36 -q -p -s BL62 -f -11 -g -1 -m 9C -E 1 -b 200 -d 0 -T 2 \
  "$tmp/q.fa" "$tmp/db.fa" > "$tmp/ssearch.out"

awk '
  /^ *[0-9]+>>>/ { sub(/^ *[0-9]+>>>/, ""); split($0, w, " "); query = w[1]; next }
  /^The best scores are:/ { inlist = 1; next }
  inlist && (/^$/ || /^>>>/) { inlist = 0; next }
  inlist && match($0, /\( *[0-9]+\)/) {
    # After "( LEN)": s-w bits E %_id %_sim sw alen an0 ax0 pn0 px0 an1 ax1 pn1 px1 gapq gapl fs aln_code
    n = split(substr($0, RSTART + RLENGTH), f, /[ \t]+/)
    k = 0; for (i = 1; i <= n; i++) if (f[i] != "") v[++k] = f[i]
    print query "\t" $1 "\t" v[1] "\t" v[8] "\t" v[9] "\t" v[12] "\t" v[13] "\t" v[4] "\t" v[7] "\t" v[19]
  }' "$tmp/ssearch.out" > "$tmp/theirs.tsv"
[ "$(wc -l < "$tmp/theirs.tsv")" -ge 60 ] || { echo "FAIL: parsed only $(wc -l < "$tmp/theirs.tsv") ssearch36 hits"; exit 1; }

awk -F'\t' -v OFS='\t' '
  FILENAME == ARGV[1] { fwd[$1 SUBSEP $2] = $0; next }
  FILENAME == ARGV[2] {
    # Back to forward coordinates; the CIGAR of a reversed alignment is the
    # forward CIGAR with its runs in reverse order.
    qs = $11 - $5 + 1; qe = $11 - $4 + 1; ss = $12 - $7 + 1; se = $12 - $6 + 1
    c = $10; r = ""
    while (match(c, /^[0-9]+[MID]/)) { r = substr(c, 1, RLENGTH) r; c = substr(c, RLENGTH + 1) }
    rev[$1 SUBSEP $2] = $3 "\t" qs "\t" qe "\t" ss "\t" se "\t" $8 "\t" r
    next
  }
  {
    key = $1 SUBSEP $2
    compared++
    if (!(key in fwd)) { print "FAIL: ssearch36 hit " $1 " " $2 " missing"; bad++; next }
    split(fwd[key], o, "\t")
    if (o[3] != $3) { print "FAIL: " $1 " " $2 ": score " o[3] ", ssearch36 " $3; bad++; next }
    mine = o[3] "\t" o[4] "\t" o[5] "\t" o[6] "\t" o[7] "\t" o[8] "\t" o[10]
    if (mine != rev[key]) { ties++; next }
    unique++
    # ssearch36: the alignment length counts every column, the identity
    # is a fraction of them with 3 decimals.
    cig = $10; gsub(/I/, "x", cig); gsub(/D/, "I", cig); gsub(/x/, "D", cig)
    if (o[4] != $4 || o[5] != $5 || o[6] != $6 || o[7] != $7) {
      print "FAIL: " $1 " " $2 ": " o[4] "-" o[5] " / " o[6] "-" o[7] ", ssearch36 " $4 "-" $5 " / " $6 "-" $7; bad++
    } else if (o[9] != $9 || sprintf("%.3f", o[8] / o[9]) != sprintf("%.3f", $8)) {
      print "FAIL: " $1 " " $2 ": " o[8] " identities in " o[9] " columns, ssearch36 " $8 " of " $9; bad++
    } else if (o[10] != cig) {
      print "FAIL: " $1 " " $2 ": columns " o[10] ", ssearch36 " cig " (our convention)"; bad++
    }
  }
  END {
    printf "%d ssearch36 hits: %d with a unique best alignment, %d with ties; %d differ\n", compared, unique, ties, bad
    if (bad || unique < compared / 2) exit 1
  }' "$tmp/ours.tsv" "$tmp/rev.tsv" "$tmp/theirs.tsv"
echo "PASS"
