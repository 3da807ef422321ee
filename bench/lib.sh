# The preamble of every benchmark, sourced first: `. "$(dirname "$0")/lib.sh"`.
# Strict mode, the build folder, a work folder removed on exit, the in-tree
# inputs, and the helpers the scripts share. A script that reports failures
# run by run instead of stopping at the first turns -e off after sourcing.
set -euo pipefail

bench_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$bench_dir")
# The 20-query set of the CUDASW++ papers (UniProt P02232 ... Q9UKN1, 144 to
# 5,478 residues, 41,752 in all; bench/README.md).
queries=$bench_dir/data/queries20.fasta
# The SCOPe ASTRAL 40% set (14,323 domains), the example database, used whole.
scope_zst=$root/examples/scope-astral40.fa.zst

# The build folder: the first argument of most scripts (default build);
# scripts whose first argument is something else name their builds themselves.
build=${1:-build}
swsearch=$build/src/cli/swsearch
makedb=$build/tools/makedb/makedb

work=$(mktemp -d)
bench_work=$work # the trap's own copy: a script may point work elsewhere
trap 'rm -rf "$bench_work"' EXIT

# synthdb ARGS...: the benchmark generator (bench/synthdb.c), built into the
# work folder on first use.
synthdb() {
  [ -x "$bench_work/synthdb" ] || cc -O2 -o "$bench_work/synthdb" "$bench_dir/synthdb.c" -lm
  "$bench_work/synthdb" "$@"
}

# database NAME SYNTHDB_ARGS...: $work/NAME, a database of synthdb's output
# made by $makedb (for example: database sp protein --plant "$queries").
database() {
  local name=$1
  shift
  synthdb "$@" > "$work/$name.fa"
  "$makedb" -q "$work/$name.fa" "$work/$name"
  rm "$work/$name.fa"
}

# scope_fasta: the SCOPe set as FASTA in the work folder; prints its path.
scope_fasta() {
  # SCOPE_FASTA: the set already decompressed (a machine without zstd).
  if [ -n "${SCOPE_FASTA:-}" ]; then echo "$SCOPE_FASTA"; return; fi
  [ -s "$work/scope-astral40.fa" ] || zstd -q -dc "$scope_zst" > "$work/scope-astral40.fa"
  echo "$work/scope-astral40.fa"
}

# record FASTA K: the K-th record (1-based) of FASTA.
record() { awk -v k="$2" '/^>/ { n++ } n == k' "$1"; }

# residues_of FASTA: the residues of every record together.
residues_of() { awk '!/^>/ { n += length($0) } END { print n + 0 }' "$1"; }

# db_residues DB: the residues of a database, as swsearch info counts them.
db_residues() { "$swsearch" info -d "$1" | awk '$1 == "residues" { print $2; exit }'; }

# median FILE [COLUMN]: the median of the numbers in COLUMN (default 1) of
# FILE; rows without a number there (a run that failed) are left out, and
# "-" stands for none.
median() {
  awk -v c="${2:-1}" '$c ~ /^[0-9.]+([eE][-+]?[0-9]+)?$/ { print $c }' "$1" | sort -g |
    awk '{ v[NR] = $1 } END { if (!NR) print "-"; else print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# now: a time stamp; since T: the seconds from T to now (3 decimals).
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.3f\n", b - a }'; }

# swsearch_of BUILD: the program of BUILD, which lived in src/search/ before
# the re-layout.
swsearch_of() { if [ -x "$1/src/cli/swsearch" ]; then echo "$1/src/cli/swsearch"; else echo "$1/src/search/swsearch"; fi; }

# gpu_name: the first GPU's name, empty without one.
gpu_name() { nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 || true; }
