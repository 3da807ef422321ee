#!/usr/bin/env bash
# The forward and start passes of a megabase alignment on several GPUs of
# one machine: synthdb's related pair of LEN bases (default 10,000,000),
# `swsearch align --engine cudalign` on 1 GPU and with --gpus N for N in
# GPU_COUNTS (default 2 4; those the machine lacks are left out), in column
# strips and, for comparison, in row slices (--split rows; SPLITS, default
# "columns rows"), without pruning and with it (PRUNING, default "off on").
# Prints each run's forward and start seconds, GCUPS and speedups over one
# GPU, from its summary line; every result must equal one GPU's byte for
# byte. PAF=1 adds the whole command with --format paf (the alignment
# itself) on 1 GPU and on the most GPUs. MPI=1 adds `mpirun -np N`, a rank
# a GPU (rank k takes GPU k), in strips, against --gpus N in one process.
# SPLITS="columns" leaves the row slices out.
# Usage: bench/pair_strips.sh BUILD [LEN]
. "$(dirname "$0")/lib.sh"
. "$bench_dir/pair_inputs.sh"
set +e # a failed run is reported, and the next one goes on
len=${2:-10000000}
have=$(nvidia-smi --list-gpus | wc -l)
counts=()
for g in ${GPU_COUNTS:-2 4}; do [ "$g" -le "$have" ] && counts+=("$g"); done
f=$(related_pair "$len")
nvidia-smi --query-gpu=name --format=csv,noheader | uniq -c | sed 's/^ */GPUs: /'
echo "== related pair of $len bases ($(grep -c '>' "$f") records), cudalign engine"

# run NAME ARGS...: the summary line to $work/NAME.err, the result to $work/NAME.tsv.
run() {
  local name=$1 t0
  shift
  t0=$(now)
  "$swsearch" align "$f" --engine cudalign "$@" > "$work/$name.tsv" 2> "$work/$name.err"
  local rc=$?
  echo "$(since "$t0")" > "$work/$name.wall"
  [ $rc = 0 ] || { echo "FAIL $name (rc $rc): $(tail -3 "$work/$name.err")"; return 1; }
}
seconds_of() { sed -n "s/.*$2 pass [0-9.e+]* cells\( ([0-9.]*% pruned)\)\? in \([0-9.]*\) s.*/\2/p" "$work/$1.err" | head -1; }
gcups_of() { sed -n "s/.*$2 pass [0-9.e+]* cells\( ([0-9.]*% pruned)\)\? in [0-9.]* s (\([0-9.]*\) GCUPS).*/\2/p" "$work/$1.err" | head -1; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else print "-" }'; }

printf '%-22s %10s %9s %8s %10s %8s %8s  %s\n' run "forward s" GCUPS speedup "start s" speedup "wall s" result
for pruning in ${PRUNING:-off on}; do
  opt=()
  [ "$pruning" = off ] && opt=(--no-pruning)
  one=one-$pruning
  run "$one" "${opt[@]}" || continue
  f1=$(seconds_of "$one" forward) s1=$(seconds_of "$one" start)
  printf '%-22s %10s %9s %8s %10s %8s %8s  %s\n' "1 GPU, pruning $pruning" "$f1" "$(gcups_of "$one" forward)" \
    1.00x "$s1" 1.00x "$(cat "$work/$one.wall")" "$(tail -1 "$work/$one.tsv" | cut -f1-7)"
  for g in "${counts[@]}"; do
    for split in ${SPLITS:-columns rows}; do
      name=g$g-$split-$pruning
      run "$name" "${opt[@]}" --gpus "$g" --split "$split" || continue
      fs=$(seconds_of "$name" forward) ss=$(seconds_of "$name" start)
      cmp -s "$work/$one.tsv" "$work/$name.tsv" && same=same || same=DIFFERENT
      printf '%-22s %10s %9s %8s %10s %8s %8s  %s\n' "$g GPUs, $split" "$fs" "$(gcups_of "$name" forward)" \
        "$(ratio "$f1" "$fs")" "$ss" "$(ratio "$s1" "$ss")" "$(cat "$work/$name.wall")" "$same"
      grep -o '\[[^]]*\]' "$work/$name.err" | head -1 | sed 's/^/    /'
    done
    if [ "${MPI:-0}" = 1 ]; then
      name=mpi$g-$pruning
      t0=$(now)
      OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun -np "$g" --bind-to none \
        "$swsearch" align "$f" --engine cudalign "${opt[@]}" > "$work/$name.tsv" 2> "$work/$name.err" ||
        { echo "FAIL $name: $(tail -3 "$work/$name.err")"; continue; }
      since "$t0" > "$work/$name.wall"
      fs=$(seconds_of "$name" forward) ss=$(seconds_of "$name" start)
      cmp -s "$work/$one.tsv" "$work/$name.tsv" && same=same || same=DIFFERENT
      printf '%-22s %10s %9s %8s %10s %8s %8s  %s\n' "mpirun -np $g" "$fs" "$(gcups_of "$name" forward)" \
        "$(ratio "$f1" "$fs")" "$ss" "$(ratio "$s1" "$ss")" "$(cat "$work/$name.wall")" "$same"
      cols=g$g-columns-$pruning
      [ -s "$work/$cols.wall" ] && echo "    whole command against --gpus $g: $(ratio "$(cat "$work/$name.wall")" "$(cat "$work/$cols.wall")") the time"
    fi
  done
done
if [ "${PAF:-0}" = 1 ]; then
  most=${counts[-1]:-1}
  run paf1 --format paf && run pafn --format paf --gpus "$most"
  cmp -s "$work/paf1.tsv" "$work/pafn.tsv" && same=same || same=DIFFERENT
  echo "--format paf, whole command: 1 GPU $(cat "$work/paf1.wall") s, $most GPUs $(cat "$work/pafn.wall") s" \
    "($(ratio "$(cat "$work/paf1.wall")" "$(cat "$work/pafn.wall")")), $same"
fi
