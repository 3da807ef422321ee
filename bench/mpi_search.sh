#!/usr/bin/env bash
# Database search over MPI ranks on the GPUs of one machine: the 20
# benchmark queries against the Swiss-Prot-like database SEQS sequences
# long (default 2,288,000: about 845 M residues), whole commands timed from
# outside, median of ROUNDS:
# - one rank with one GPU (`mpirun -np 1`, GPU 0 visible), the baseline;
# - R ranks with a GPU each (`mpirun -np R`, GPUs 0 .. R-1 visible: ranks
#   sharing a machine take a GPU each), for R in RANKS (default 2 4; those
#   the machine lacks GPUs for are left out), and their speedup;
# - one process with `--gpus R` on the same GPUs, and the ranks' time
#   against it (above 1: the ranks are slower).
# The scan of each (from -v: the slowest rank's) is shown beside. Every
# output must be equal byte for byte to one process's on one GPU.
# QUERY_STEP (optional): the queries are every QUERY_STEP-th database
# sequence instead (228: about 10,000 of them). ONE=0 leaves out the runs on
# one GPU (their baseline then is --gpus in one process); ONE=rank keeps
# only `mpirun -np 1` of them (for long runs).
# Usage: bench/mpi_search.sh BUILD [ROUNDS] [SEQS]
. "$(dirname "$0")/lib.sh"
rounds=${2:-3}
seqs=${3:-2288000}
have=$(nvidia-smi --list-gpus | wc -l)
ranks=()
for r in ${RANKS:-2 4}; do [ "$r" -le "$have" ] && ranks+=("$r"); done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

synthdb protein --seqs "$seqs" --plant "$queries" > "$work/db.fa"
if [ -n "${QUERY_STEP:-}" ]; then
  awk -v step="$QUERY_STEP" '/^>/ { keep = (n++ % step == 0) } keep' "$work/db.fa" > "$work/many.fa"
  queries=$work/many.fa
fi
"$makedb" -q "$work/db.fa" "$work/db"
rm "$work/db.fa"
one=${ONE:-1}
residues=$(db_residues "$work/db")
qres=$(residues_of "$queries")
gpus_of() { seq -s, 0 $(($1 - 1)); }
args=(-q "$queries" -d "$work/db" --top 10 --outfmt tsv -v)

timed() { # NAME COMMAND...: wall seconds to whole-NAME, scan to scan-NAME, output to out-NAME.tsv
  local name=$1 t0
  shift
  t0=$(now)
  "$@" "${args[@]}" -o "$work/out-$name.tsv" 2> "$work/err-$name"
  since "$t0" >> "$work/whole-$name"
  sed -n 's/.*scan \([0-9.]*\) s.*/\1/p' "$work/err-$name" | head -1 >> "$work/scan-$name"
}
ranks_run() { # RANKS ARGS...
  local n=$1
  shift
  CUDA_VISIBLE_DEVICES=$(gpus_of "$n") mpirun -np "$n" --bind-to none "$swsearch" search "$@"
}

"$swsearch" search -q "$bench_dir/data/queries20.fasta" -d "$work/db" --gpus 1 -o /dev/null 2> /dev/null # calibration, caches
for r in $(seq "$rounds"); do
  if [ "$one" != 0 ]; then
    [ "$one" = rank ] || timed one "$swsearch" search --gpus 1
    timed rank1 ranks_run 1
  fi
  for g in "${ranks[@]}"; do
    timed "rank$g" ranks_run "$g"
    timed "gpus$g" "$swsearch" search --gpus "$g"
  done
done

echo "== $(grep -c '^>' "$queries") queries ($qres residues) x $seqs sequences ($residues residues), median of $rounds rounds, $(gpu_name) x $have"
printf '%-28s %9s %8s %9s\n' run "whole s" speedup "scan s"
w1=$(median "$work/whole-rank1")
[ "$one" != 0 ] || w1=$(median "$work/whole-gpus${ranks[0]}")
row() { # NAME LABEL
  awk -v l="$2" -v w="$(median "$work/whole-$1")" -v w1="$w1" -v s="$(median "$work/scan-$1")" \
    'BEGIN { printf "%-28s %9.3f %7.2fx %9s\n", l, w, w1 / w, s }'
  cmp -s "$work/out-$ref.tsv" "$work/out-$1.tsv" || echo "FAIL: the output of $2 differs from one process's"
}
ref=one
[ "$one" != rank ] || ref=rank1
[ "$one" != 0 ] || ref=gpus${ranks[0]}
if [ "$one" != 0 ]; then
  [ "$one" = rank ] || row one "one process, 1 GPU"
  row rank1 "mpirun -np 1, 1 GPU"
fi
for g in "${ranks[@]}"; do
  row "rank$g" "mpirun -np $g, a GPU each"
  row "gpus$g" "one process, --gpus $g"
  awk -v a="$(median "$work/whole-rank$g")" -v b="$(median "$work/whole-gpus$g")" -v g="$g" \
    'BEGIN { printf "  %d ranks against --gpus %d in one process: %.3fx the time\n", g, g, a / b }'
done
grep -h "cells on" "$work"/err-rank* | sort -u | sed 's/^/  /'
# Where the time goes, from the last round's -v.
for name in rank1 one "${ranks[@]/#/rank}" "${ranks[@]/#/gpus}"; do
  [ -f "$work/err-$name" ] || continue
  echo "  $name: $(grep -o 'database load [0-9.]* s.*' "$work/err-$name" | head -1)"
done
