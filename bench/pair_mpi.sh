#!/usr/bin/env bash
# Row slices across processes and across GPUs of one process, against one
# process on one GPU: `mpirun -np NP swsearch align` and `swsearch align
# --gpus NP` on synthdb pairs; prints each run's summary line and whether
# its result equals the single run's. GPU=0 puts every rank on GPU 0 (a
# machine with one GPU: the ranks take turns on it, which checks the
# method, not the speed); --gpus runs only where NP GPUs exist.
#
# usage: bench/pair_mpi.sh BUILD [NP]
# Environment: PAIRS (default "related 10000000 10240 overlap, related
# 1000000 100352 cudalign, related 1000000 100352 overlap"), GPU.
. "$(dirname "$0")/lib.sh"
. "$bench_dir/pair_inputs.sh"
set +e # a failed run is reported, and the next one goes on
np=${2:-2}
gpus=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | wc -l)
nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | uniq -c
IFS=, read -ra pairs <<< "${PAIRS:-related 10000000 10240 overlap, related 1000000 100352 cudalign, related 1000000 100352 overlap}"
for pair in "${pairs[@]}"; do
  read -r kind s q engine <<< "$pair"
  f=$(make_pair "$kind" "$s" "$q")
  echo "== $s x $q $kind, $engine engine"
  "$swsearch" align "$f" --engine "$engine" > "$work/one.tsv" 2> "$work/one.err" || { cat "$work/one.err"; continue; }
  echo "1 process:   $(tail -1 "$work/one.err")"
  mpirun -np "$np" --oversubscribe "$swsearch" align "$f" --engine "$engine" ${GPU:+--gpu $GPU} \
    > "$work/mpi.tsv" 2> "$work/mpi.err"
  echo "$np processes (rc $?): $(tail -1 "$work/mpi.err")"
  cmp -s "$work/one.tsv" "$work/mpi.tsv" && echo "  same result: $(tail -1 "$work/one.tsv")" || echo "  DIFFERENT result"
  if [ "$gpus" -ge "$np" ]; then
    "$swsearch" align "$f" --engine "$engine" --gpus "$np" > "$work/team.tsv" 2> "$work/team.err"
    echo "--gpus $np (rc $?): $(tail -1 "$work/team.err")"
    cmp -s "$work/one.tsv" "$work/team.tsv" && echo "  same result" || echo "  DIFFERENT result"
  fi
done
