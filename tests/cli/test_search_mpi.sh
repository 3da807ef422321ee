#!/bin/sh
# swsearch search under mpirun: 2 and 3 ranks on the CPU engine write byte
# for byte what one process writes, in formats 6, 7, 0 and json, with
# published and fitted statistics, a small --top and queries from standard
# input. The database holds every sequence three times, so that equal
# scores in different shares must merge in FASTA order, and spans several
# residue chunks, so that shares begin and end inside chunks. A query file
# of many queries runs in several batches. A failure on any rank ends every
# rank, with one message (rank 0's) and no output file. Skips (77) without
# mpirun or without MPI support.
# usage: test_search_mpi.sh SWSEARCH MAKEDB SYNTHDB DATA_DIR
swsearch=$1 makedb=$2 synthdb=$3 data=$4
command -v mpirun > /dev/null || { echo "mpirun not found: skipped"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
# Open MPI refuses root unless told; CI runs as root.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
failures=0 checks=0
fail() { echo "FAIL: $1"; failures=$((failures + 1)); }
pass() { checks=$((checks + 1)); }
# A rank left waiting must fail the test, not hang it.
mpi() { timeout 120 mpirun "$@"; }

# Sequences with homologs of the queries planted, each three times under
# other names: about 3.3 million residues, 2 residue chunks.
head -n 60 "$data/queries20.fasta" > "$tmp/q.fa"
"$synthdb" protein --seqs 3000 --seed 7 --plant "$tmp/q.fa" > "$tmp/base.fa" || { echo "FAIL: synthdb"; exit 1; }
awk 'FNR == 1 { copy++ } /^>/ { sub(/^>/, ">c" copy "_") } { print }' "$tmp/base.fa" "$tmp/base.fa" "$tmp/base.fa" > "$tmp/db.fa"
"$makedb" -q "$tmp/db.fa" "$tmp/db" || exit 1

if ! mpi -np 2 "$swsearch" search -q "$tmp/q.fa" -d "$tmp/db" --device cpu -o "$tmp/probe" 2> "$tmp/err"; then
  if grep -q "without MPI support" "$tmp/err"; then echo "swsearch built without MPI: skipped"; exit 77; fi
  cat "$tmp/err"
  fail "mpirun -np 2 failed"
fi

same() { # what, then the command's arguments after "search"
  what=$1; shift
  "$swsearch" search "$@" -o "$tmp/one.out" 2> "$tmp/err1" || { cat "$tmp/err1"; fail "one process: $what"; return; }
  for np in 2 3; do
    rm -f "$tmp/many.out"
    mpi -np $np "$swsearch" search "$@" -o "$tmp/many.out" 2> "$tmp/err" || { cat "$tmp/err"; fail "$np ranks: $what"; continue; }
    if cmp -s "$tmp/one.out" "$tmp/many.out"; then pass; else
      fail "$np ranks: $what: $(diff "$tmp/one.out" "$tmp/many.out" | head -4)"; fi
  done
}
for fmt in 6 7 0 json; do
  same "format $fmt" -q "$tmp/q.fa" -d "$tmp/db" --device cpu --outfmt "$fmt"
done
grep -q '"subject":"c1_' "$tmp/one.out" && pass || fail "the json output has no hits"
# The default device: where the engine tells each query's hits as it
# finishes them (the GPU's), they travel to rank 0 query by query.
same "the default device" -q "$tmp/q.fa" -d "$tmp/db" --outfmt 0
# Ties: every hit is there three times, with equal scores, in every share.
same "--top 4, ties across shares" -q "$tmp/q.fa" -d "$tmp/db" --device cpu --top 4 \
  --outfmt "6 qseqid sseqid score evalue qstart qend sstart send"
# Equal scores come in FASTA order, and copies in several shares tie.
awk 'NR == FNR { if (/^>/) { sub(/^>/, ""); sub(/ .*/, ""); pos[$0] = ++n } next }
     $1 == q && $3 == score { if (pos[$2] < last) bad = 1; if (substr($2, 1, 3) != copy) ties++ }
     { q = $1; score = $3; last = pos[$2]; copy = substr($2, 1, 3) }
     END { exit bad || !ties }' "$tmp/db.fa" "$tmp/one.out" && pass ||
  fail "--top 4: equal scores out of FASTA order, or no ties: $(head -4 "$tmp/one.out")"
# Fitted statistics need every score of every share (a matrix file has no
# published statistics).
cp "$data/../../matrices/BLOSUM62" "$tmp/matrix" || exit 1
same "fitted statistics" -q "$tmp/q.fa" -d "$tmp/db" --device cpu --matrix "$tmp/matrix" --outfmt 7
grep -q "fitted to this query" "$tmp/one.out" && pass || fail "no fitted statistics in format 7"
# Queries from standard input reach rank 0 alone.
"$swsearch" search -q "$tmp/q.fa" -d "$tmp/db" --device cpu -o "$tmp/file.out" 2> /dev/null
mpi -np 3 "$swsearch" search -q - -d "$tmp/db" --device cpu < "$tmp/q.fa" > "$tmp/stdin.out" 2> "$tmp/err" || {
  cat "$tmp/err"; fail "3 ranks, queries on standard input"; }
cmp -s "$tmp/file.out" "$tmp/stdin.out" && pass || fail "queries on standard input: another output"
# Many queries: more residues than a batch holds (524,288), so several
# batches, on a database of a few short sequences.
awk '/^>/ { n++ } n <= 2400' "$tmp/db.fa" > "$tmp/many.fa"
awk '/^>/ { if (h != "" && length(s) < 120 && k++ < 12) print h "\n" s; h = $0; s = ""; next } { s = s $0 }' \
  "$tmp/base.fa" > "$tmp/small.fa"
"$makedb" -q "$tmp/small.fa" "$tmp/small" || exit 1
"$swsearch" search -q "$tmp/many.fa" -d "$tmp/small" --device cpu -v -o /dev/null 2> "$tmp/err"
grep -q "queries in [2-9] batches" "$tmp/err" && pass || fail "the many queries ran in one batch: $(cat "$tmp/err")"
same "several batches" -q "$tmp/many.fa" -d "$tmp/small" --device cpu --top 5
# -v names the ranks.
mpi -np 2 "$swsearch" search -q "$tmp/q.fa" -d "$tmp/db" --device cpu -v -o /dev/null 2> "$tmp/err"
grep -q "cells on 2 MPI ranks, each CPU" "$tmp/err" && pass || fail "-v does not name the ranks: $(cat "$tmp/err")"
# More ranks than sequences: empty shares.
printf '>a\nMKVLAAGIVALLLAAGCSS\n>b\nMSTNPKPQRKTKRNTNRRPQDVKFPGG\n' > "$tmp/tiny.fa"
"$makedb" -q "$tmp/tiny.fa" "$tmp/tiny" || exit 1
same "more ranks than sequences" -q "$tmp/tiny.fa" -d "$tmp/tiny" --device cpu

# Where a GPU is usable, the GPU engine: ranks on one machine share its
# GPUs (on one GPU, every rank's share on it), a share's batches after the
# first find it resident; the output equals the CPU's.
if "$swsearch" search -q "$tmp/tiny.fa" -d "$tmp/tiny" --device gpu -o /dev/null 2> /dev/null; then
  "$swsearch" search -q "$tmp/q.fa" -d "$tmp/db" --device cpu --outfmt 0 -o "$tmp/cpu.out"
  same "GPU engine" -q "$tmp/q.fa" -d "$tmp/db" --device gpu --outfmt 0
  cmp -s "$tmp/cpu.out" "$tmp/one.out" && pass || fail "the GPU's output differs from the CPU's"
  same "GPU engine, several batches" -q "$tmp/many.fa" -d "$tmp/small" --device gpu --top 5
  mpi -np 2 "$swsearch" search -q "$tmp/q.fa" -d "$tmp/db" --device gpu -v -o /dev/null 2> "$tmp/err"
  grep -q "cells on 2 MPI ranks.* GPU" "$tmp/err" && pass || fail "-v on GPUs: $(cat "$tmp/err")"
else
  echo "no usable GPU: the GPU engine under mpirun skipped"
fi

# Failures: every rank ends, rank 0 alone reports, no output file.
fails_cleanly() { # what, expected message, then the command's arguments after "search"
  what=$1 expect=$2; shift 2
  rm -f "$tmp/fail.out"
  mpi -np 3 "$swsearch" search "$@" -o "$tmp/fail.out" > /dev/null 2> "$tmp/err"
  rc=$?
  [ $rc -ne 0 ] && [ $rc -ne 124 ] && pass || fail "$what: exit status $rc"
  [ "$(grep -c "^swsearch: .*$expect" "$tmp/err")" = 1 ] && pass || fail "$what: not one message '$expect': $(cat "$tmp/err")"
  [ ! -e "$tmp/fail.out" ] && pass || fail "$what: an output file was left"
}
fails_cleanly "a missing query file" "nope.fa: No such file" -q "$tmp/nope.fa" -d "$tmp/db" --device cpu
fails_cleanly "a missing database" "nodb.swi: No such file" -q "$tmp/q.fa" -d "$tmp/nodb" --device cpu
{ cat "$tmp/many.fa"; printf '>bad\nACDE1FG\n'; } > "$tmp/bad.fa"
fails_cleanly "a bad residue in a later batch" "bad.fa:[0-9]*: invalid residue '1'" -q "$tmp/bad.fa" -d "$tmp/small" --device cpu

echo "$checks checks passed, $failures failed"
[ "$failures" -eq 0 ]
