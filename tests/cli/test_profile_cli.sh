#!/bin/sh
# swsearch profile as a user meets it: help, usage errors, malformed
# alignments named by file and line with nothing written, the hand-checked
# merge in both formats, the column map, and the merge of two halves of a
# real family keeping every row; rows of gaps only kept, records with no
# characters refused; --pairs lists, two pairs with one output refused.
# Usage: test_profile_cli.sh SWSEARCH
set -u
swsearch=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/../support/cli_checks.sh"

printf '>s1 first\nACDEFGHIK\n>s2\nACDE-GHIK\n' > "$tmp/a.afa"
printf '>t1\nACDFGHIK\n>t2\nAC-FGHLK\n>t3\nACDFGHIK\n' > "$tmp/b.afa"

expect 0 "profile --help" -- "$swsearch" profile --help
out_has "aligned FASTA"
out_has "euclid"
expect 2 "one file" -- "$swsearch" profile "$tmp/a.afa"
err_has "two aligned FASTA files, not 1"
expect 2 "bad --score" -- "$swsearch" profile "$tmp/a.afa" "$tmp/b.afa" --score max
err_has "--score is 'expected' or 'euclid', not 'max'"
expect 2 "bad --format" -- "$swsearch" profile "$tmp/a.afa" "$tmp/b.afa" -f msf
err_has "--format is 'fasta' or 'clustal'"
expect 2 "--gap-open twice" -- "$swsearch" profile "$tmp/a.afa" "$tmp/b.afa" --gap-open 3 --gap-open 4
err_has "given twice"

# The hand-checked merge (see tests/unit/test_profile.c): the half-gap F
# column of the first alignment faces a gap column.
expect 0 "merge" -- "$swsearch" profile "$tmp/a.afa" "$tmp/b.afa"
printf '>s1 first\nACDEFGHIK\n>s2\nACDE-GHIK\n>t1\nACDF-GHIK\n>t2\nAC-F-GHLK\n>t3\nACDF-GHIK\n' > "$tmp/want.afa"
cmp -s "$tmp/out" "$tmp/want.afa" && pass || { fail "merged alignment:"; cat "$tmp/out"; }
err_has "swsearch: profile: 9 x 8 columns (2 and 3 rows): score 123072 (30.0469 in matrix units), 9 merged columns"
expect 0 "clustal and map" -- "$swsearch" profile "$tmp/a.afa" "$tmp/b.afa" -f clustal --map "$tmp/map.tsv" -q
out_has "^CLUSTAL"
out_has "^t2  *AC-F-GHLK$"
[ "$(sed -n '1p;7p' "$tmp/map.tsv" | tr '\n\t' '| ')" = "#score 123072|5 -|" ] && pass || { fail "map:"; cat "$tmp/map.tsv"; }
expect 0 "euclid" -- "$swsearch" profile "$tmp/a.afa" "$tmp/b.afa" --score euclid
err_has "in distance units"

# Malformed input: a clear error naming file and line; -o never appears.
printf '>x\nACDE\n>y\nAC-\n' > "$tmp/ragged.afa"
expect 1 "ragged rows" -- "$swsearch" profile "$tmp/ragged.afa" "$tmp/b.afa" -o "$tmp/never.afa"
err_has "ragged.afa:3: row 'y' has 3 columns, the first row has 4"
absent "$tmp/never.afa"
printf '>x\nAC1E\n' > "$tmp/digit.afa"
expect 1 "unknown character" -- "$swsearch" profile "$tmp/a.afa" "$tmp/digit.afa" -o "$tmp/never.afa"
err_has "digit.afa:2: invalid residue '1'"
absent "$tmp/never.afa"
: > "$tmp/empty.afa"
expect 1 "empty file" -- "$swsearch" profile "$tmp/empty.afa" "$tmp/b.afa"
err_has "empty.afa: no aligned sequences"
expect 1 "missing file" -- "$swsearch" profile "$tmp/nothere.afa" "$tmp/b.afa"
err_has "nothere.afa"
expect 1 "--map onto -o" -- "$swsearch" profile "$tmp/a.afa" "$tmp/b.afa" -o "$tmp/same" --map "$tmp/same"
err_has "the same file as -o"
absent "$tmp/same"
expect 1 "-o onto an input" -- "$swsearch" profile "$tmp/a.afa" "$tmp/b.afa" -o "$tmp/a.afa"
cmp -s "$tmp/a.afa" - <<EOF2 && pass || fail "-o replaced an input"
>s1 first
ACDEFGHIK
>s2
ACDE-GHIK
EOF2

# A bigger merge: every row of both inputs comes out with its residues in
# order, and all rows have one length.
awk 'BEGIN { srand(5); s = ""; for (i = 0; i < 300; i++) s = s substr("ACDEFGHIKLMNPQRSTVWY", int(rand() * 20) + 1, 1)
  for (r = 0; r < 12; r++) { t = ""; for (i = 1; i <= 300; i++) { x = rand()
      t = t (x < 0.05 ? "-" : x < 0.15 ? substr("ACDEFGHIKLMNPQRSTVWY", int(rand() * 20) + 1, 1) : substr(s, i, 1)) }
    f = r < 6 ? "h1" : "h2"; print ">" f "_" r > ("'"$tmp"'/" f ".afa"); print t > ("'"$tmp"'/" f ".afa") } }'
expect 0 "halves" -- "$swsearch" profile "$tmp/h1.afa" "$tmp/h2.afa" -q
awk '/^>/ { if (n) print n "\t" seq; n = $1; seq = ""; next } { seq = seq $0 } END { print n "\t" seq }' "$tmp/out" > "$tmp/merged.tsv"
awk -F'\t' '{ print length($2) }' "$tmp/merged.tsv" | sort -u | wc -l | grep -q '^1$' && pass || fail "merged rows differ in length"
cat "$tmp/h1.afa" "$tmp/h2.afa" | awk '/^>/ { n = $1; next } { gsub(/-/, ""); print n "\t" $0 }' > "$tmp/in.tsv"
awk -F'\t' '{ gsub(/-/, "", $2); print $1 "\t" $2 }' "$tmp/merged.tsv" > "$tmp/out.tsv"
cmp -s "$tmp/in.tsv" "$tmp/out.tsv" && pass || fail "a row lost or changed residues in the merge"

# Clustal and Stockholm input: our Clustal output reads back as the same
# alignment; a Stockholm file with annotations and two blocks.
"$swsearch" profile "$tmp/a.afa" "$tmp/b.afa" -f clustal -q > "$tmp/ab.aln"
"$swsearch" profile "$tmp/a.afa" "$tmp/b.afa" -q > "$tmp/ab.afa"
printf '>z\nACDEFGHIK\n' > "$tmp/z.afa"
expect 0 "clustal input" -- "$swsearch" profile "$tmp/ab.aln" "$tmp/z.afa" -q
"$swsearch" profile "$tmp/ab.afa" "$tmp/z.afa" -q > "$tmp/via_fasta.afa"
sed 's/ .*//' "$tmp/via_fasta.afa" | cmp -s "$tmp/out" - && pass || fail "Clustal input differs from the same alignment in FASTA"
printf '# STOCKHOLM 1.0\n#=GF ID test\ns1      ACDEF.GHIK\ns2      ACDE--GHIK\n#=GC SS_cons ..........\n\ns1      LL\ns2      L-\n//\n' > "$tmp/st.sto"
expect 0 "stockholm input" -- "$swsearch" profile "$tmp/st.sto" "$tmp/z.afa" -q
[ "$(sed -n 2p "$tmp/out")" = "ACDEF-GHIKLL" ] && [ "$(sed -n 4p "$tmp/out")" = "ACDE--GHIKL-" ] && pass ||
  { fail "Stockholm rows:"; cat "$tmp/out"; }
printf 'CLUSTAL W\n\nx   ACD\ny   AC\n' > "$tmp/rag.aln"
expect 1 "ragged clustal" -- "$swsearch" profile "$tmp/rag.aln" "$tmp/z.afa"
err_has "rag.aln:4: row 'y' has 2 columns, the first row has 3"
printf '# STOCKHOLM 1.0\nx AC#D\n//\n' > "$tmp/bad.sto"
expect 1 "bad stockholm residue" -- "$swsearch" profile "$tmp/bad.sto" "$tmp/z.afa"
err_has "bad.sto:2: invalid residue '#' in row x"
printf '# STOCKHOLM 1.0\nx ACD\n' > "$tmp/open.sto"
expect 1 "stockholm without //" -- "$swsearch" profile "$tmp/open.sto" "$tmp/z.afa"
err_has "no '//' line"

# Many pairs at once: each output equals the pair merged alone.
printf '# pairs\n%s %s %s\n\n%s %s %s\n%s %s %s\n' "$tmp/a.afa" "$tmp/b.afa" "$tmp/m1.afa" \
  "$tmp/h1.afa" "$tmp/h2.afa" "$tmp/m2.afa" "$tmp/b.afa" "$tmp/h1.afa" "$tmp/m3.afa" > "$tmp/list"
expect 0 "--pairs" -- "$swsearch" profile --pairs "$tmp/list" -t 2
err_has "swsearch: profile: 3 pairs"
"$swsearch" profile "$tmp/a.afa" "$tmp/b.afa" -q > "$tmp/s1.afa"
"$swsearch" profile "$tmp/h1.afa" "$tmp/h2.afa" -q > "$tmp/s2.afa"
"$swsearch" profile "$tmp/b.afa" "$tmp/h1.afa" -q > "$tmp/s3.afa"
cmp -s "$tmp/m1.afa" "$tmp/s1.afa" && cmp -s "$tmp/m2.afa" "$tmp/s2.afa" && cmp -s "$tmp/m3.afa" "$tmp/s3.afa" && pass ||
  fail "--pairs outputs differ from single merges"
printf '%s %s\n' "$tmp/a.afa" "$tmp/b.afa" > "$tmp/short.list"
expect 1 "--pairs short line" -- "$swsearch" profile --pairs "$tmp/short.list"
err_has "short.list:1: expected 'A.afa B.afa OUT', too few paths"
printf '%s %s %s\n%s %s %s\n' "$tmp/a.afa" "$tmp/b.afa" "$tmp/n1.afa" "$tmp/ragged.afa" "$tmp/b.afa" "$tmp/n2.afa" > "$tmp/bad.list"
expect 1 "--pairs bad input" -- "$swsearch" profile --pairs "$tmp/bad.list" -t 1
err_has "bad.list:2: .*ragged.afa:3: row 'y' has 3 columns"
absent "$tmp/n2.afa"
expect 2 "--pairs with files" -- "$swsearch" profile --pairs "$tmp/list" "$tmp/a.afa" "$tmp/b.afa"
err_has "it takes no files"

# Two pairs that write one file: refused before any pair runs, naming the
# file and both lines, whatever the spelling of the path.
mkdir "$tmp/outs"
ln -s "$tmp/outs" "$tmp/link"
printf '%s %s %s\n%s %s %s\n# the first again\n%s %s %s\n' "$tmp/a.afa" "$tmp/b.afa" "$tmp/outs/c1.afa" \
  "$tmp/b.afa" "$tmp/h1.afa" "$tmp/outs/c2.afa" "$tmp/h1.afa" "$tmp/h2.afa" "$tmp/outs/c1.afa" > "$tmp/clash.list"
expect 1 "--pairs one output twice" -- "$swsearch" profile --pairs "$tmp/clash.list" -t 2
err_has "clash.list:4: output $tmp/outs/c1.afa is also the output of line 1: every pair needs a file of its own"
absent "$tmp/outs/c1.afa"
absent "$tmp/outs/c2.afa"
printf '%s %s %s\n%s %s %s\n' "$tmp/a.afa" "$tmp/b.afa" "$tmp/outs/c3.afa" \
  "$tmp/b.afa" "$tmp/h1.afa" "$tmp/link/./c3.afa" > "$tmp/alias.list"
expect 1 "--pairs one output by two names" -- "$swsearch" profile --pairs "$tmp/alias.list"
err_has "alias.list:2: output $tmp/link/./c3.afa is also the output of line 1 ($tmp/outs/c3.afa)"
absent "$tmp/outs/c3.afa"

# A row of gaps only takes part (and comes out as it went in); a record
# with no characters at all is no row of the alignment: an error naming
# file, line and row, and no output.
printf '>s1\nACDEFGHIK\n>none\n---------\n>s2\nACDE-GHIK\n' > "$tmp/gaprow.afa"
expect 0 "a row of gaps only" -- "$swsearch" profile "$tmp/gaprow.afa" "$tmp/b.afa" -q
[ "$(sed -n '3p;4p' "$tmp/out" | tr '\n' ' ')" = ">none --------- " ] && [ "$(grep -c '^>' "$tmp/out")" -eq 6 ] && pass ||
  { fail "the row of gaps:"; cat "$tmp/out"; }
printf '>s1\nACDEFGHIK\n>lost one\n>s2\nACDE-GHIK\n' > "$tmp/emptyrow.afa"
expect 1 "a record with no characters" -- "$swsearch" profile "$tmp/b.afa" "$tmp/emptyrow.afa" -o "$tmp/never.afa"
err_has "emptyrow.afa:3: row 'lost' has no characters, not even gaps: not an alignment"
absent "$tmp/never.afa"
printf '%s %s %s\n' "$tmp/emptyrow.afa" "$tmp/b.afa" "$tmp/never.afa" > "$tmp/empty.list"
expect 1 "--pairs, a record with no characters" -- "$swsearch" profile --pairs "$tmp/empty.list"
err_has "empty.list:1: .*emptyrow.afa:3: row 'lost' has no characters"
absent "$tmp/never.afa"

# --device: the GPU's merge is the CPU's, byte for byte; without a GPU,
# --device gpu fails with a clear error and writes nothing.
expect 2 "bad --device" -- "$swsearch" profile "$tmp/a.afa" "$tmp/b.afa" --device tpu
err_has "--device is 'auto', 'gpu' or 'cpu', not 'tpu'"
expect 0 "--device cpu" -- "$swsearch" profile "$tmp/h1.afa" "$tmp/h2.afa" --device cpu -o "$tmp/cpu.afa"
err_has "on 1 CPU thread\\|on [0-9]* CPU threads"
"$swsearch" profile "$tmp/h1.afa" "$tmp/h2.afa" --device gpu -o "$tmp/gpu.afa" > "$tmp/out" 2> "$tmp/err"
status=$?
case $status in
0) err_has "on GPU 0"
   cmp -s "$tmp/cpu.afa" "$tmp/gpu.afa" && pass || fail "--device gpu merged differently from --device cpu" ;;
1) err_has "GPU\\|CUDA"
   absent "$tmp/gpu.afa" ;;
*) fail "--device gpu: exit $status"; cat "$tmp/err" ;;
esac

cli_checks_done
