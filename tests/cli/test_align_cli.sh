#!/bin/sh
# swsearch align as a user meets it: help, usage errors, clear errors for bad
# input with no partial output, the record counts it accepts, hand-checked
# alignments, both output formats, engines and thread counts that agree.
# Usage: test_align_cli.sh SWSEARCH DATA_DIR
set -u
swsearch=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/../support/cli_checks.sh"
# no_temp: no temporary output file of an -o run is left in $tmp.
no_temp() {
  for f in "$tmp"/*.tmp.*; do
    if [ -e "$f" ]; then fail "temporary output $f left behind"; return; fi
  done
  pass
}
# line_is TEXT: the result line (the second line of the TSV on stdout) is TEXT.
line_is() {
  got=$(sed -n 2p "$tmp/out")
  if [ "$got" = "$1" ]; then pass; else fail "result line '$got', expected '$1'"; fi
}
tab=$(printf '\t')
# row A_ID B_ID SCORE A_START A_END B_START B_END: a TSV result line.
row() { printf '%s\t%s\t%s\t%s\t%s\t%s\t%s' "$@"; }

# ACGTACG is the only common run of more than one base, and nothing next to
# it matches (a 4 and 12 are T, b 2 and 10 are G), while a mismatch costs 3
# and a gap at least 5: score 7, a 5..11, b 3..9.
printf '>a first sequence\nTTTTACGTACGTTTTT\n' > "$tmp/a.fa"
printf '>b\nGGACGTACGGG\n' > "$tmp/b.fa"
cat "$tmp/a.fa" "$tmp/b.fa" > "$tmp/ab.fa"

# Help and usage errors.
expect 0 "--help" -- "$swsearch" --help
out_has "align"
expect 0 "align --help" -- "$swsearch" align --help
out_has "--gap-open"
out_has "CUDAlign"
expect 2 "unknown option" -- "$swsearch" align --bogus "$tmp/a.fa" "$tmp/b.fa"
err_has "unknown option '--bogus'"
expect 2 "no file" -- "$swsearch" align
err_has "one FASTA file of two sequences or two files of one"
expect 2 "three files" -- "$swsearch" align "$tmp/a.fa" "$tmp/b.fa" "$tmp/ab.fa"
err_has "not 3 files"
expect 2 "option without value" -- "$swsearch" align "$tmp/a.fa" "$tmp/b.fa" --match
err_has "needs a value"
expect 2 "zero --match" -- "$swsearch" align "$tmp/a.fa" "$tmp/b.fa" --match 0
err_has "--match needs a positive score"
expect 2 "negative --match" -- "$swsearch" align "$tmp/a.fa" "$tmp/b.fa" --match -1
err_has "--match needs a positive score"
expect 2 "word --match" -- "$swsearch" align "$tmp/a.fa" "$tmp/b.fa" --match one
err_has "not 'one'"
expect 2 "positive --mismatch" -- "$swsearch" align "$tmp/a.fa" "$tmp/b.fa" --mismatch 2
err_has "--mismatch needs a score of zero or less"
expect 2 "negative --gap-open" -- "$swsearch" align "$tmp/a.fa" "$tmp/b.fa" --gap-open -1
err_has "--gap-open needs a penalty of zero or more"
expect 2 "zero --gap-extend" -- "$swsearch" align "$tmp/a.fa" "$tmp/b.fa" --gap-extend 0
err_has "--gap-extend needs a positive penalty"
expect 2 "bad --format" -- "$swsearch" align "$tmp/a.fa" "$tmp/b.fa" --format xml
err_has "--format is 'tsv', 'json', 'paf' or 'maf', not 'xml'"
expect 2 "bad --engine" -- "$swsearch" align "$tmp/a.fa" "$tmp/b.fa" --engine gpu
err_has "--engine is 'auto', 'cpu', 'cudalign' or 'overlap'"
expect 2 "zero --threads" -- "$swsearch" align "$tmp/a.fa" "$tmp/b.fa" --threads 0
err_has "--threads needs a whole number"

# Scores beyond what 32-bit cells hold are refused once the lengths are known.
expect 1 "huge --match" -- "$swsearch" align "$tmp/a.fa" "$tmp/b.fa" --match 536870912 -o "$tmp/huge.tsv"
err_has "largest score"
absent "$tmp/huge.tsv"
expect 1 "huge gap penalties" -- "$swsearch" align "$tmp/a.fa" "$tmp/b.fa" --gap-open 65535 --gap-extend 2
err_has "penalties above"

# Bad input: file, line and character named, exit 1, no output file.
printf '>s1 bad\nACGT\nACXT\n' > "$tmp/bad.fa"
expect 1 "invalid base" -- "$swsearch" align "$tmp/bad.fa" "$tmp/b.fa" -o "$tmp/bad.tsv"
err_has "bad.fa:3: invalid residue 'X' in sequence s1"
absent "$tmp/bad.tsv"
printf '>s1\nACGU\n' > "$tmp/rna.fa"
expect 1 "U is not DNA" -- "$swsearch" align "$tmp/a.fa" "$tmp/rna.fa" -o "$tmp/rna.tsv"
err_has "rna.fa:2: invalid residue 'U'"
absent "$tmp/rna.tsv"
printf '>s1\nAC-GT\n' > "$tmp/gapped.fa"
expect 1 "gap character" -- "$swsearch" align "$tmp/gapped.fa" "$tmp/b.fa"
err_has "gapped.fa:2: invalid residue '-'"
expect 1 "missing file" -- "$swsearch" align "$tmp/none.fa" "$tmp/b.fa" -o "$tmp/none.tsv"
err_has "none.fa"
absent "$tmp/none.tsv"
expect 1 "output directory missing" -- "$swsearch" align "$tmp/a.fa" "$tmp/b.fa" -o "$tmp/no/such/dir.tsv"
err_has "no/such/dir.tsv"
no_temp

# Record counts: one file of two or two files of one, nothing else.
expect 1 "one file of one record" -- "$swsearch" align "$tmp/a.fa" -o "$tmp/one.tsv"
err_has "a.fa: holds 1 sequence; give one file of two sequences or two files of one"
absent "$tmp/one.tsv"
printf '>c\nACGT\n' | cat "$tmp/ab.fa" - > "$tmp/abc.fa"
expect 1 "one file of three records" -- "$swsearch" align "$tmp/abc.fa"
err_has "abc.fa: holds 3 sequences; give one file of two sequences or two files of one"
expect 1 "second file of two records" -- "$swsearch" align "$tmp/a.fa" "$tmp/ab.fa" -o "$tmp/two.tsv"
err_has "ab.fa: holds 2 sequences"
absent "$tmp/two.tsv"
expect 1 "first file of two records" -- "$swsearch" align "$tmp/ab.fa" "$tmp/b.fa"
err_has "ab.fa: holds 2 sequences"
: > "$tmp/empty.fa"
expect 1 "empty file" -- "$swsearch" align "$tmp/empty.fa" "$tmp/b.fa"
err_has "empty.fa: holds no sequence"
printf '>e\n\n' > "$tmp/emptyseq.fa"
expect 1 "only an empty sequence" -- "$swsearch" align "$tmp/emptyseq.fa" "$tmp/b.fa"
err_has "empty sequence 'e' skipped"
err_has "emptyseq.fa: holds no sequence"

# The hand-checked alignment, from two files and from one file of two.
expect 0 "two files" -- "$swsearch" align "$tmp/a.fa" "$tmp/b.fa" --engine cpu
line_is "$(row a b 7 5 11 3 9)"
head -1 "$tmp/out" | grep -q "^#a_id${tab}b_id${tab}score${tab}a_start${tab}a_end${tab}b_start${tab}b_end$" && pass || fail "header line"
[ "$(wc -l < "$tmp/out")" -eq 2 ] && pass || fail "TSV has two lines"
err_has "cpu engine"
err_has "GCUPS"
expect 0 "one file of two" -- "$swsearch" align "$tmp/ab.fa" --engine cpu
line_is "$(row a b 7 5 11 3 9)"
expect 0 "swapped" -- "$swsearch" align "$tmp/b.fa" "$tmp/a.fa" --engine cpu
line_is "$(row b a 7 3 9 5 11)"
expect 0 "-o" -- "$swsearch" align "$tmp/ab.fa" --engine cpu -o "$tmp/ab.tsv"
[ ! -s "$tmp/out" ] && pass || fail "-o still wrote to stdout"
[ "$(sed -n 2p "$tmp/ab.tsv")" = "$(row a b 7 5 11 3 9)" ] && pass || fail "-o file content"
no_temp
expect 0 "-q" -- "$swsearch" align "$tmp/ab.fa" --engine cpu -q
[ ! -s "$tmp/err" ] && pass || { fail "-q still wrote to stderr"; cat "$tmp/err"; }
# --progress draws even off a terminal; the passes end with a line each.
expect 0 "--progress" -- "$swsearch" align "$tmp/ab.fa" --engine cpu --progress
err_has "pass 1/2"
line_is "$(row a b 7 5 11 3 9)"

# Lower case, N and IUPAC codes: N or R against anything, N itself included,
# is a mismatch, so ACGT?ACGT scores 4 - 3 + 4 = 5 over all nine bases.
printf '>lower\nacgtnacgt\n>upper\nACGTNACGT\n' > "$tmp/n.fa"
expect 0 "lower case and N" -- "$swsearch" align "$tmp/n.fa" --engine cpu
line_is "$(row lower upper 5 1 9 1 9)"
printf '>iupac\nACGTRACGT\n>plain\nacgtaacgt\n' > "$tmp/iupac.fa"
expect 0 "IUPAC codes" -- "$swsearch" align "$tmp/iupac.fa" --engine cpu
line_is "$(row iupac plain 5 1 9 1 9)"
printf '>amb\nRYKMSWBDHVN\n>amb2\nRYKMSWBDHVN\n' > "$tmp/amb.fa"
expect 0 "ambiguity codes never match" -- "$swsearch" align "$tmp/amb.fa" --engine cpu
line_is "$(row amb amb2 0 0 0 0 0)"

# Identical sequences align end to end; unrelated ones not at all.
printf '>x\nGATTACAGATTACACCGTAGGCTA\n>y\nGATTACAGATTACACCGTAGGCTA\n' > "$tmp/same.fa"
expect 0 "identical" -- "$swsearch" align "$tmp/same.fa" --engine cpu
line_is "$(row x y 24 1 24 1 24)"
printf '>aaaa\nAAAA\n>cccc\nCCCC\n' > "$tmp/none2.fa"
expect 0 "all mismatches" -- "$swsearch" align "$tmp/none2.fa" --engine cpu
line_is "$(row aaaa cccc 0 0 0 0 0)"
err_has "no start pass"
# A bare '>' is named after its place in the input.
printf '>\nACGT\n>\nACGT\n' > "$tmp/bare.fa"
expect 0 "empty headers" -- "$swsearch" align "$tmp/bare.fa" --engine cpu
line_is "$(row seq1 seq2 4 1 4 1 4)"

# Scoring options change the answer as the convention says. Nothing beside
# ACGTACG matches (a is T and b is G two bases out on both sides), so
# doubling the match doubles the score and keeps the coordinates.
expect 0 "--match 2" -- "$swsearch" align "$tmp/ab.fa" --engine cpu --match 2
line_is "$(row a b 14 5 11 3 9)"
# A gap of one base costs open + extend: ACGTT-ACG against ACGTTAACG with
# open 0 and extend 1 scores 8 - 1 = 7 over the whole of both.
printf '>g1\nACGTTACG\n>g2\nACGTTAACG\n' > "$tmp/gap.fa"
expect 0 "one-base gap" -- "$swsearch" align "$tmp/gap.fa" --engine cpu --gap-open 0 --gap-extend 1
line_is "$(row g1 g2 7 1 8 1 9)"
# With the defaults the gap costs 5, more than the three bases past it gain:
# ACGTTA alone, 6.
expect 0 "gap not worth it" -- "$swsearch" align "$tmp/gap.fa" --engine cpu
line_is "$(row g1 g2 6 1 6 1 6)"

# JSON: the fields, nulls when nothing aligns, and ids escaped.
expect 0 "json" -- "$swsearch" align "$tmp/ab.fa" --engine cpu --format json
out_has '"a_id": "a"'
out_has '"a_length": 16'
out_has '"b_length": 11'
out_has '"score": 7'
out_has '"a_start": 5'
out_has '"b_end": 9'
out_has '"engine": "cpu"'
out_has '"cells": '
out_has '"seconds": '
cp "$tmp/out" "$tmp/ab.json"
expect 0 "json, nothing aligns" -- "$swsearch" align "$tmp/none2.fa" --engine cpu -f json
out_has '"score": 0, "a_start": null, "a_end": null, "b_start": null, "b_end": null'
cp "$tmp/out" "$tmp/none.json"
printf '>q"u\\o\001te\nACGT\n>\351t\303\251\nACGT\n' > "$tmp/odd.fa"
expect 0 "json, odd ids" -- "$swsearch" align "$tmp/odd.fa" --engine cpu -f json
cp "$tmp/out" "$tmp/odd.json"
if command -v python3 > /dev/null; then
  python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
keys = {"a_id", "a_length", "b_id", "b_length", "score", "a_start", "a_end", "b_start", "b_end", "engine", "cells", "pruned", "seconds", "overlap", "strips"}
assert set(d) == keys, set(d) ^ keys
assert (d["score"], d["a_start"], d["a_end"], d["b_start"], d["b_end"]) == (7, 5, 11, 3, 9), d
assert d["cells"] > 0 and d["seconds"] >= 0 and d["overlap"] is None and d["strips"] == 0, d
d = json.load(open(sys.argv[2]))
assert d["score"] == 0 and d["a_start"] is None and d["b_end"] is None, d
d = json.load(open(sys.argv[3], encoding="utf-8"))
assert d["a_id"] == "q\"u\\o\x01te" and d["b_id"] == "\ufffdt\u00e9", d
' "$tmp/ab.json" "$tmp/none.json" "$tmp/odd.json" && pass || fail "JSON does not parse or lacks fields"
else
  echo "python3 not found: JSON parse check skipped"
fi

# A longer pair (an LCG's bases, then b = a with substitutions, an insertion
# and a deletion) gives the same line on any number of threads.
awk 'BEGIN {
  x = 12345; s = ""
  for (i = 0; i < 3000; i++) { x = (x * 69069 + 1) % 4294967296; s = s substr("ACGT", int(x / 1073741824) + 1, 1) }
  t = substr(s, 1, 700) "GATTACA" substr(s, 701, 800) substr(s, 1531)
  u = ""
  for (i = 1; i <= length(t); i++) u = u (i % 97 == 0 ? "T" : substr(t, i, 1))
  print ">long_a"; for (i = 1; i <= length(s); i += 70) print substr(s, i, 70)
  print ">long_b"; for (i = 1; i <= length(u); i += 60) print substr(u, i, 60)
}' > "$tmp/long.fa"
expect 0 "1 thread" -- "$swsearch" align "$tmp/long.fa" --engine cpu --threads 1 -q
cp "$tmp/out" "$tmp/t1.tsv"
expect 0 "3 threads" -- "$swsearch" align "$tmp/long.fa" --engine cpu --threads 3 -q
cmp -s "$tmp/t1.tsv" "$tmp/out" && pass || fail "1 and 3 threads differ: $(sed -n 2p "$tmp/t1.tsv") / $(sed -n 2p "$tmp/out")"
score=$(awk -F'\t' 'NR == 2 { print $3 }' "$tmp/t1.tsv")
[ "${score:-0}" -gt 2000 ] && pass || fail "long pair scores ${score:-nothing}, expected most of 3000 bases"

# The GPU engine, where it runs, agrees with the CPU; where it cannot, an
# explicit request fails naming the GPU, and auto falls back with a note.
"$swsearch" align "$tmp/long.fa" --engine cudalign -q -o "$tmp/gpu.tsv" 2> "$tmp/err"
case $? in
  0) cmp -s "$tmp/gpu.tsv" "$tmp/t1.tsv" && pass || fail "cudalign and CPU results differ"
     expect 0 "cudalign --no-pruning" -- "$swsearch" align "$tmp/long.fa" --engine cudalign --no-pruning -q
     cmp -s "$tmp/out" "$tmp/t1.tsv" && pass || fail "cudalign without pruning differs from CPU"
     for f in ab same none2 gap n; do
       "$swsearch" align "$tmp/$f.fa" --engine cpu -q > "$tmp/c.tsv" 2> /dev/null
       expect 0 "cudalign $f" -- "$swsearch" align "$tmp/$f.fa" --engine cudalign -q
       cmp -s "$tmp/out" "$tmp/c.tsv" && pass || fail "cudalign and CPU differ on $f.fa"
       expect 0 "overlap $f" -- "$swsearch" align "$tmp/$f.fa" --engine overlap -q
       cmp -s "$tmp/out" "$tmp/c.tsv" && pass || fail "overlap and CPU differ on $f.fa"
     done
     expect 0 "overlap long" -- "$swsearch" align "$tmp/long.fa" --engine overlap -f json
     grep -q '"engine": "overlap", .*"overlap": {"chunks": [0-9]*, "rounds": [0-9]*' "$tmp/out" && pass ||
       fail "overlap JSON lacks the recomputation figures"
     err_has "overlap engine: .*chunks, [0-9]* recomputation round"
     expect 0 "overlap long tsv" -- "$swsearch" align "$tmp/long.fa" --engine overlap -q
     cmp -s "$tmp/out" "$tmp/t1.tsv" && pass || fail "overlap and CPU results differ"
     # Two GPUs where there are two; a clear error where there is one.
     for e in cudalign overlap; do
       if "$swsearch" align "$tmp/long.fa" --engine $e --gpus 2 -q > "$tmp/g2.tsv" 2> "$tmp/err"; then
         cmp -s "$tmp/g2.tsv" "$tmp/t1.tsv" && pass || fail "--gpus 2 on $e differs from CPU"
       else
         grep -q "no GPU 1" "$tmp/err" && pass || { fail "--gpus 2 on $e:"; cat "$tmp/err"; }
       fi
     done ;;
  1) err_has "GPU"; absent "$tmp/gpu.tsv"
     expect 1 "overlap without GPU" -- "$swsearch" align "$tmp/long.fa" --engine overlap -q
     err_has "GPU"
     expect 0 "auto without GPU" -- "$swsearch" align "$tmp/long.fa" -o "$tmp/auto.tsv"
     err_has "warning: .*GPU"
     cmp -s "$tmp/auto.tsv" "$tmp/t1.tsv" && pass || fail "auto fallback differs from CPU" ;;
  *) fail "--engine cudalign crashed or misbehaved"; cat "$tmp/err" ;;
esac
expect 0 "auto" -- "$swsearch" align "$tmp/ab.fa"
line_is "$(row a b 7 5 11 3 9)"

# --best: two exact matches (ACGTACGTAC, then GATTACA) are the first two;
# the third (TTAC) lies in the rows of the second but not in its columns.
printf '>a\nCCCCACGTACGTACCCCCCCCGATTACACCCC\n>b\nTTACGTACGTACTTGATTACATT\n' > "$tmp/two.fa"
expect 0 "--best 3" -- "$swsearch" align "$tmp/two.fa" --best 3 --engine cpu -q
line_is "$(row a b 10 5 14 3 12)"
[ "$(sed -n 3p "$tmp/out")" = "$(row a b 7 22 28 15 21)" ] && pass || fail "second alignment: $(sed -n 3p "$tmp/out")"
[ "$(sed -n 4p "$tmp/out")" = "$(row a b 4 24 27 1 4)" ] && pass || fail "third alignment: $(sed -n 4p "$tmp/out")"
[ "$(wc -l < "$tmp/out")" -eq 4 ] && pass || fail "--best 3 wrote $(wc -l < "$tmp/out") lines"
expect 0 "--best json" -- "$swsearch" align "$tmp/two.fa" -k 2 -f json --engine cpu -q
out_has '"alignments": \[{"score": 10, "a_start": 5, "a_end": 14, "b_start": 3, "b_end": 12}, {"score": 7, "a_start": 22'
expect 0 "--best beyond what aligns" -- "$swsearch" align "$tmp/none2.fa" --best 5 --engine cpu -q
line_is "$(row aaaa cccc 0 0 0 0 0)"
expect 2 "--best 0" -- "$swsearch" align "$tmp/two.fa" --best 0
err_has "--best needs a whole number"
expect 2 "--gpus 0" -- "$swsearch" align "$tmp/two.fa" --gpus 0
err_has "--gpus needs a whole number"
expect 1 "--gpus with the CPU engine" -- "$swsearch" align "$tmp/two.fa" --gpus 2 --engine cpu
err_has "several GPUs need a GPU engine"
expect 2 "--split diagonal" -- "$swsearch" align "$tmp/two.fa" --gpus 2 --split diagonal
err_has "--split: 'diagonal' is not columns or rows"
if "$swsearch" align "$tmp/two.fa" --best 3 --engine cudalign -q > "$tmp/g.tsv" 2> /dev/null; then
  "$swsearch" align "$tmp/two.fa" --best 3 --engine cpu -q > "$tmp/c.tsv"
  cmp -s "$tmp/g.tsv" "$tmp/c.tsv" && pass || fail "--best on cudalign differs from CPU"
  "$swsearch" align "$tmp/long.fa" --best 4 --engine overlap -q > "$tmp/g.tsv" 2> /dev/null
  "$swsearch" align "$tmp/long.fa" --best 4 --engine cpu -q > "$tmp/c.tsv"
  cmp -s "$tmp/g.tsv" "$tmp/c.tsv" && pass || fail "--best on the overlap engine differs from CPU"
fi

# zstd-compressed input is recognised by content.
if command -v zstd > /dev/null; then
  zstd -q -c "$tmp/long.fa" > "$tmp/long.fa.zst"
  expect 0 "zstd input" -- "$swsearch" align "$tmp/long.fa.zst" --engine cpu -q
  cmp -s "$tmp/t1.tsv" "$tmp/out" && pass || fail "zstd input gives another result"
else
  echo "zstd not found: compressed input check skipped"
fi


# The alignment itself: the hand-checked pair (ACGTACG, 7 matches), and the
# long pair, whose CIGAR must span the coordinates and whose PAF, MAF, TSV
# and JSON agree; GPU engines give the same (where one runs).
expect 0 "-a" -- "$swsearch" align "$tmp/ab.fa" -a --engine cpu -q
line_is "$(row a b 7 5 11 3 9)${tab}7${tab}0${tab}0${tab}0${tab}100.000${tab}7M"
head -1 "$tmp/out" | grep -q "${tab}matches${tab}mismatches${tab}gap_openings${tab}gap_bases${tab}identity${tab}cigar$" && pass ||
  fail "-a header line: $(head -1 "$tmp/out")"
expect 0 "paf" -- "$swsearch" align "$tmp/ab.fa" -f paf --engine cpu -q
[ "$(cat "$tmp/out")" = "a${tab}16${tab}4${tab}11${tab}+${tab}b${tab}11${tab}2${tab}9${tab}7${tab}7${tab}255${tab}tp:A:P${tab}AS:i:7${tab}NM:i:0${tab}cg:Z:7M" ] &&
  pass || fail "PAF line: $(cat "$tmp/out")"
expect 0 "maf" -- "$swsearch" align "$tmp/ab.fa" -f maf --engine cpu -q
grep -q "^s a 4 7 + 16 ACGTACG$" "$tmp/out" && grep -q "^s b 2 7 + 11 ACGTACG$" "$tmp/out" && grep -q "^a score=7$" "$tmp/out" &&
  pass || { fail "MAF block:"; cat "$tmp/out"; }
# long.fa: PAF's CIGAR consumes exactly the aligned spans, and its score
# re-counted from the MAF rows (+1 match, -3 mismatch, -(3 + 2k) a gap)
# is the score.
expect 0 "long paf" -- "$swsearch" align "$tmp/long.fa" -f paf --engine cpu -q
awk -F'\t' '{ c = $0; sub(/.*cg:Z:/, "", c); qa = 0; tb = 0
  while (match(c, /^[0-9]+[MID]/)) { n = substr(c, 1, RLENGTH - 1) + 0; op = substr(c, RLENGTH, 1)
    if (op != "D") qa += n; if (op != "I") tb += n; c = substr(c, RLENGTH + 1) }
  exit !(c == "" && qa == $4 - $3 && tb == $9 - $8) }' "$tmp/out" && pass || fail "PAF CIGAR does not span the coordinates: $(cut -f1-12 "$tmp/out")"
paf_score=$(sed 's/.*AS:i:\([0-9]*\).*/\1/' "$tmp/out")
expect 0 "long maf" -- "$swsearch" align "$tmp/long.fa" -f maf --engine cpu -q
awk -v want="$paf_score" '/^s / { row[++n] = $7 } END {
  a = row[1]; b = row[2]; if (length(a) != length(b)) exit 1
  s = 0; gap = ""
  for (i = 1; i <= length(a); i++) { x = substr(a, i, 1); y = substr(b, i, 1)
    g = x == "-" ? "a" : y == "-" ? "b" : ""
    if (g == "") s += (x == y && x != "N") ? 1 : -3
    else s -= (g == gap) ? 2 : 5
    gap = g }
  exit s != want }' "$tmp/out" && pass || fail "MAF rows do not re-score to $paf_score"
expect 0 "long json -a" -- "$swsearch" align "$tmp/long.fa" -f json -a --engine cpu -q
grep -q '"identity": [0-9.]*, "cigar": "[0-9MID]*"' "$tmp/out" && pass || fail "JSON without the alignment: $(cut -c1-300 "$tmp/out")"
expect 0 "summary line" -- "$swsearch" align "$tmp/long.fa" -a --engine cpu -o "$tmp/sum.tsv"
err_has "swsearch: alignment: [0-9]* columns, [0-9]* matches, [0-9]* mismatches, [0-9]* gap openings, [0-9]* gap bases, identity"
if "$swsearch" align "$tmp/long.fa" --engine cudalign -f paf -q > "$tmp/g.paf" 2> /dev/null; then
  "$swsearch" align "$tmp/long.fa" --engine cpu -f paf -q > "$tmp/c.paf"
  cmp -s "$tmp/g.paf" "$tmp/c.paf" && pass || fail "GPU and CPU PAF differ"
fi
# A window as text: the columns of a's bases 6..9, and errors.
expect 0 "--view" -- "$swsearch" align "$tmp/ab.fa" --view 6:9 --engine cpu -q
grep -q "^a  *6 CGTA 9$" "$tmp/out" && grep -q "^b  *4 CGTA 7$" "$tmp/out" && grep -q "^  *||||$" "$tmp/out" &&
  pass || { fail "--view 6:9:"; cat "$tmp/out"; }
expect 0 "--view outside" -- "$swsearch" align "$tmp/ab.fa" --view 13:16 --engine cpu -q
out_has "no base of a in 13-16"
expect 2 "--view backwards" -- "$swsearch" align "$tmp/ab.fa" --view 9:6
err_has "1 <= FROM <= TO"
expect 2 "--view word" -- "$swsearch" align "$tmp/ab.fa" --view a:b
err_has "--view needs FROM:TO"
expect 2 "--view and --format" -- "$swsearch" align "$tmp/ab.fa" --view 1:5 -f paf
err_has "it takes no --format"
expect 1 "--view beyond a" -- "$swsearch" align "$tmp/ab.fa" --view 17:20 --engine cpu -o "$tmp/v.txt"
err_has "a has 16 bases"
absent "$tmp/v.txt"
# A picture: well-formed SVG with one path per alignment; never over -o.
expect 0 "--plot" -- "$swsearch" align "$tmp/two.fa" --best 3 --plot "$tmp/p.svg" --engine cpu -q
if command -v python3 > /dev/null; then
  python3 -c "import sys, xml.etree.ElementTree as E; r = E.parse(sys.argv[1]).getroot(); n = len(r.findall('{http://www.w3.org/2000/svg}polyline')); sys.exit(0 if n == int(sys.argv[2]) else 1)" \
    "$tmp/p.svg" "$(($(wc -l < "$tmp/out") - 1))" && pass || fail "--plot: not an SVG with one path per alignment"
else
  grep -q "<svg" "$tmp/p.svg" && pass || fail "--plot wrote no SVG"
fi
# The same picture as PNG for a name ending in .png (any case) where the
# build has libpng: a PNG of the plot's size with the paths' colours in it;
# without libpng a clear refusal before any work, and no file.
if "$swsearch" align "$tmp/two.fa" --best 3 --plot "$tmp/p.PNG" --engine cpu -q > /dev/null 2> "$tmp/err"; then
  if command -v python3 > /dev/null; then
    python3 - "$tmp/p.PNG" <<'PY' && pass || fail "--plot p.PNG: not a PNG of the plot with its paths"
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n"
at, idat, size = 8, b"", None
while at < len(data):
    n, kind = struct.unpack(">I4s", data[at:at + 8])
    body = data[at + 8:at + 8 + n]
    if kind == b"IHDR": size = struct.unpack(">II", body[:8])
    if kind == b"IDAT": idat += body
    at += 12 + n
assert size == (1040, 840), size
raw = zlib.decompress(idat)
# The best path's blue, unfiltered in some row or filtered: look for pixels
# after undoing the filters.
w, h, stride = size[0], size[1], size[0] * 3
rows, prev = [], bytearray(stride)
for y in range(h):
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - 3] if i >= 3 else 0
        b, c = prev[i], (prev[i - 3] if i >= 3 else 0)
        p = a + b - c
        pred = [0, a, b, (a + b) // 2, a if abs(p - a) <= abs(p - b) and abs(p - a) <= abs(p - c) else (b if abs(p - b) <= abs(p - c) else c)][f]
        line[i] = (line[i] + pred) & 255
    rows.append(line)
    prev = line
blue = sum(1 for line in rows for i in range(0, stride, 3) if tuple(line[i:i + 3]) == (0x1f, 0x77, 0xb4))
assert blue > 100, blue
PY
  else
    [ "$(head -c 4 "$tmp/p.PNG" | od -An -c | tr -d ' ')" = "\211PNG" ] && pass || fail "--plot p.PNG: not a PNG"
  fi
else
  err_has "this build writes no PNG"
  absent "$tmp/p.PNG"
fi
expect 1 "--plot onto -o" -- "$swsearch" align "$tmp/ab.fa" --plot "$tmp/same.txt" -o "$tmp/same.txt" --engine cpu
err_has "the same file as -o"
absent "$tmp/same.txt"
expect 1 "--plot onto the input" -- "$swsearch" align "$tmp/ab.fa" --plot "$tmp/ab.fa" --engine cpu
cmp -s "$tmp/ab.fa" /dev/stdin <<EOF2 && pass || fail "--plot replaced the input"
>a first sequence
TTTTACGTACGTTTTT
>b
GGACGTACGGG
EOF2

# Killed while it aligns (SIGTERM, SIGHUP; a background job of this shell
# ignores SIGINT): no output file, no picture, no temporary file left. A
# 40,000-base related pair takes a few seconds with the alignment on two
# cores.
awk 'BEGIN { srand(17); s = ""; for (i = 0; i < 40000; i++) s = s substr("ACGT", int(rand() * 4) + 1, 1)
  t = ""; for (i = 1; i <= length(s); i++) { r = rand(); c = substr(s, i, 1)
    if (r < 0.01) t = t substr("ACGT", int(rand() * 4) + 1, 1); else if (r < 0.012) continue; else t = t c }
  print ">big_a"; for (i = 1; i <= length(s); i += 80) print substr(s, i, 80)
  print ">big_b"; for (i = 1; i <= length(t); i += 80) print substr(t, i, 80) }' > "$tmp/big.fa"
for sig in TERM HUP; do
  rm -f "$tmp/killed.paf" "$tmp/killed.svg"
  "$swsearch" align "$tmp/big.fa" -a -f paf --engine cpu -t 2 -q -o "$tmp/killed.paf" --plot "$tmp/killed.svg" 2> /dev/null &
  pid=$!
  sleep 1
  kill -$sig $pid
  wait $pid
  status=$?
  [ $status -ne 0 ] && pass || fail "align killed by SIG$sig exited 0"
  absent "$tmp/killed.paf"
  absent "$tmp/killed.svg"
  no_temp
done

# Each option at most once, in its short or long form.
expect 2 "--engine twice" -- "$swsearch" align "$tmp/ab.fa" --engine cpu -e cpu
err_has "option -e/--engine given twice"
expect 2 "--match twice" -- "$swsearch" align "$tmp/ab.fa" --match 1 --match 2 -o "$tmp/twice.tsv"
err_has "option --match given twice"
absent "$tmp/twice.tsv"
expect 2 "-q twice" -- "$swsearch" align "$tmp/ab.fa" -q --quiet
err_has "option -q/--quiet given twice"

cli_checks_done
