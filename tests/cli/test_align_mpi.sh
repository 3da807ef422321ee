#!/bin/sh
# swsearch align under mpirun: 2 and 3 ranks on the CPU engine give the
# line a single process gives, in column strips (each rank a strip, its
# last column sent to the next) and in row slices (--split rows), on a pair
# whose best alignment runs through every strip and slice (so the slices
# must be recomputed from their neighbours) and on an unrelated pair.
# Skips (77) without mpirun or without MPI support.
# usage: test_align_mpi.sh SWSEARCH
swsearch=$1
command -v mpirun > /dev/null || { echo "mpirun not found: skipped"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
# Open MPI refuses root unless told; CI runs as root.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
failures=0
fail() { echo "FAIL: $1"; failures=$((failures + 1)); }

awk 'function seq(n, x,   s, i) { s = ""; for (i = 0; i < n; i++) { x = (x * 69069 + 1) % 4294967296; s = s substr("ACGT", int(x / 1073741824) + 1, 1) } last = x; return s }
function wrap(s,   i) { for (i = 1; i <= length(s); i += 60) print substr(s, i, 60) }
BEGIN {
  a = seq(6000, 99); b = ""
  for (i = 1; i <= 5000; i++) b = b (i % 41 == 0 ? "A" : substr(a, i + 700, 1))
  print ">related_a"; wrap(a); print ">related_b"; wrap(b)
  u = seq(4000, 12345)
  print ">unrelated_a" > "/dev/stderr"; print u > "/dev/stderr"
}' > "$tmp/rel.fa" 2> "$tmp/u1.fa"
{ cat "$tmp/u1.fa"; echo ">unrelated_b"; awk 'NR == 2' "$tmp/rel.fa"; } > "$tmp/unrel.fa"

if ! mpirun -np 2 "$swsearch" align "$tmp/rel.fa" --engine cpu -q > "$tmp/probe" 2> "$tmp/err"; then
  if grep -q "without MPI support" "$tmp/err"; then echo "swsearch built without MPI: skipped"; exit 77; fi
  cat "$tmp/err"
  fail "mpirun -np 2 failed"
fi
for f in rel unrel; do
  "$swsearch" align "$tmp/$f.fa" --engine cpu -t 2 -q > "$tmp/one.tsv" || fail "one process on $f"
  for np in 2 3; do
    mpirun -np $np "$swsearch" align "$tmp/$f.fa" --engine cpu -t 1 > "$tmp/many.tsv" 2> "$tmp/err" || {
      cat "$tmp/err"; fail "$np ranks on $f"; }
    cmp -s "$tmp/one.tsv" "$tmp/many.tsv" || fail "$np ranks on $f: $(sed -n 2p "$tmp/many.tsv") vs $(sed -n 2p "$tmp/one.tsv")"
    grep -q "\[$np processes, $np column strips\]" "$tmp/err" || { cat "$tmp/err"; fail "$np ranks on $f: no summary"; }
    # Row slices, the method before strips, still on request.
    mpirun -np $np "$swsearch" align "$tmp/$f.fa" --engine cpu -t 1 --split rows > "$tmp/rows.tsv" 2> "$tmp/err" || {
      cat "$tmp/err"; fail "$np ranks on $f in row slices"; }
    cmp -s "$tmp/one.tsv" "$tmp/rows.tsv" || fail "$np ranks on $f in row slices: $(sed -n 2p "$tmp/rows.tsv")"
    grep -q "\[$np processes, [0-9]* recomputation round" "$tmp/err" || { cat "$tmp/err"; fail "$np ranks on $f: no slices summary"; }
  done
done
# JSON names the strips.
mpirun -np 2 "$swsearch" align "$tmp/rel.fa" --engine cpu -t 1 -f json -q > "$tmp/out.json" 2> "$tmp/err" || fail "JSON under mpirun"
grep -q '"strips": 2' "$tmp/out.json" || { cat "$tmp/out.json"; fail "JSON does not name the 2 strips"; }
"$swsearch" align "$tmp/rel.fa" --engine cpu -t 1 -f json -q | grep -q '"strips": 0' || fail "JSON of one process: strips not 0"
# The related pair's alignment crosses the slices: they were recomputed.
mpirun -np 3 "$swsearch" align "$tmp/rel.fa" --engine cpu -t 1 --split rows > /dev/null 2> "$tmp/err"
grep -q "\[3 processes, [1-9][0-9]* recomputation round" "$tmp/err" || { cat "$tmp/err"; fail "no recomputation on the related pair"; }
# Where a GPU is usable, the GPU engines: every rank on GPU 0, which checks
# the strips (cudalign) and slices (overlap: boundary rows of any row
# count), not the speed. The skinny pair's slices have more rows than
# columns: the overlap engine takes them.
if "$swsearch" align "$tmp/rel.fa" --engine cudalign -q > /dev/null 2>&1; then
  awk 'function seq(n, x,   s, i) { s = ""; for (i = 0; i < n; i++) { x = (x * 69069 + 1) % 4294967296; s = s substr("ACGT", int(x / 1073741824) + 1, 1) } return s }
function wrap(s,   i) { for (i = 1; i <= length(s); i += 60) print substr(s, i, 60) }
BEGIN {
  a = seq(40000, 7); b = ""
  for (i = 1; i <= 3000; i++) b = b (i % 37 == 0 ? "C" : substr(a, i + 18500, 1))
  print ">skinny_a"; wrap(a); print ">skinny_b"; wrap(b)
}' > "$tmp/skinny.fa"
  for f in rel skinny; do
    "$swsearch" align "$tmp/$f.fa" --engine cpu -t 2 -q > "$tmp/one.tsv" || fail "one process on $f"
    for engine in cudalign overlap; do
      for np in 2 3; do
        mpirun -np $np "$swsearch" align "$tmp/$f.fa" --engine $engine --gpu 0 > "$tmp/many.tsv" 2> "$tmp/err" || {
          cat "$tmp/err"; fail "$np ranks on $f, $engine engine"; }
        cmp -s "$tmp/one.tsv" "$tmp/many.tsv" ||
          fail "$np ranks on $f, $engine engine: $(sed -n 2p "$tmp/many.tsv") vs $(sed -n 2p "$tmp/one.tsv")"
      done
    done
  done
else
  echo "no usable GPU: the GPU engines under mpirun skipped"
fi
# An error on every rank: a non-zero exit, no output file.
mpirun -np 2 "$swsearch" align "$tmp/missing.fa" --engine cpu -o "$tmp/none.tsv" 2> "$tmp/err" && fail "missing file accepted"
[ -e "$tmp/none.tsv" ] && fail "output left behind after an error"
grep -q "missing.fa" "$tmp/err" || fail "error does not name the file"
[ $failures -eq 0 ] && echo "all MPI checks passed" || echo "$failures MPI checks failed"
[ $failures -eq 0 ]
