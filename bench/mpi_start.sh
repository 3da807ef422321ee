#!/usr/bin/env bash
# What mpirun itself costs on this machine, apart from the search: an empty
# job of 1 and 4 ranks, and a search of a tiny database (two short
# sequences) by one process on 4 GPUs against 4 ranks with a GPU each,
# whole commands timed from outside, median of ROUNDS (default 5); the
# 4-rank search also with Open MPI's shared-memory transport alone
# (--mca pml ob1 --mca btl self,vader), which skips probing network
# devices.
# Usage: bench/mpi_start.sh BUILD [ROUNDS]
. "$(dirname "$0")/lib.sh"
rounds=${2:-5}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
printf '>a\nMKVLAAGIVALLLAAGCSS\n>b\nMSTNPKPQRKTKRNTNRRPQDVKFPGG\n' > "$work/tiny.fa"
"$makedb" -q "$work/tiny.fa" "$work/tiny"
have=$(nvidia-smi --list-gpus | wc -l)
g=$((have < 4 ? have : 4))
gpus=$(seq -s, 0 $((g - 1)))
args=(search -q "$work/tiny.fa" -d "$work/tiny" --device gpu -o /dev/null)
time_of() { # NAME COMMAND...
  local name=$1 t0
  shift
  t0=$(now)
  "$@" > /dev/null 2>&1 || echo "FAIL: $name" >&2
  since "$t0" >> "$work/$name"
}
"$swsearch" "${args[@]}" --gpus "$g" # calibration, caches
for r in $(seq "$rounds"); do
  time_of empty1 mpirun -np 1 --bind-to none true
  time_of empty4 mpirun -np "$g" --bind-to none true
  time_of one "$swsearch" "${args[@]}" --gpus "$g"
  time_of ranks env CUDA_VISIBLE_DEVICES="$gpus" mpirun -np "$g" --bind-to none "$swsearch" "${args[@]}"
  time_of ranks_sm env CUDA_VISIBLE_DEVICES="$gpus" mpirun -np "$g" --bind-to none --mca pml ob1 --mca btl self,vader \
    "$swsearch" "${args[@]}"
done
echo "== mpirun's own cost, median of $rounds rounds, $(gpu_name) x $have, $g GPUs"
for name in empty1 empty4 one ranks ranks_sm; do printf '%-9s %7.3f s\n' "$name" "$(median "$work/$name")"; done
