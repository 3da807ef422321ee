#!/usr/bin/env bash
# Database search on several GPUs of one machine, in one run: the 20
# benchmark queries against the Swiss-Prot-like database SEQS sequences
# long (default 2,288,000: four times the usual one, about 845 M residues),
# on 1, 2 and 4 GPUs (GPU_COUNTS; those the machine lacks are left out).
# For each count: our scan (from -v) and our whole command (load, scan,
# output), median of ROUNDS, their speedups over one GPU, and CUDASW++4.0 on
# the same GPUs (CUDA_VISIBLE_DEVICES) with the same data and its ratio to
# ours (above 1: we are faster). The outputs of every count must be equal
# byte for byte. BASELINE (optional): another build of swsearch, timed on
# one GPU in the same rounds (a change's cost on one GPU).
# CUDASW++4.0 comes from PEERS (bench/cudasw4.sh); PEERS "-" leaves it out.
# Gap costs: its --gop -11 --gex -1 is our --gap-open 10 --gap-extend 1 (it
# charges the open for the first residue); both run that.
# Usage: bench/multi_gpu.sh BUILD [ROUNDS] [SEQS] [PEERS]
. "$(dirname "$0")/lib.sh"
rounds=${2:-3}
seqs=${3:-2288000}
peers=${4:--}
have=$(nvidia-smi --list-gpus | wc -l)
counts=()
for g in ${GPU_COUNTS:-1 2 4}; do [ "$g" -le "$have" ] && counts+=("$g"); done

. "$(dirname "$0")/cudasw4.sh"
if [ "$peers" != - ]; then
  peers=$(cd "$peers" && pwd)
  cudasw4_ready "$peers" "$work"
fi
cudasw4_databases "$seqs" "$peers"
residues=$(db_residues "$work/db")
qres=$(residues_of "$queries")
gpus_of() { seq -s, 0 $(($1 - 1)); }
args=(-q "$queries" -d "$work/db" --gap-open 10 --gap-extend 1 --top 10 --outfmt tsv)

ours_scan() { # BUILD NAME [OPTION...]: scan seconds from -v; the output goes to out-NAME.tsv
  local b=$1 name=$2
  shift 2
  "$b/src/cli/swsearch" search "${args[@]}" "$@" -v -o "$work/out-$name.tsv" 2> "$work/err"
  sed -n 's/.*scan \([0-9.]*\) s.*/\1/p' "$work/err" | head -1
}
ours_whole() { # GPUS: wall seconds of the whole command
  local t0
  t0=$(now)
  "$swsearch" search "${args[@]}" --gpus "$1" -o "$work/whole-$1.tsv"
  since "$t0"
}
theirs_scan() { # GPUS: CUDASW++4.0's "Total time"
  CUDA_VISIBLE_DEVICES=$(gpus_of "$1") "$peers/bin/align" --query "$queries" --db "$work/cs/db" --dpx --gop -11 \
    --gex -1 --top 10 --verbose --tsv --of "$work/theirs-$1.tsv" > "$work/theirs.log" 2>&1
  grep -i "total time" "$work/theirs.log" | tail -1 | grep -o '[0-9.]\+ *s' | head -1 | tr -d ' s'
}

ours_scan "$build" 1 --gpus 1 > /dev/null # calibration, caches
for r in $(seq "$rounds"); do
  for g in "${counts[@]}"; do
    ours_scan "$build" "$g" --gpus "$g" >> "$work/scan-$g"
    ours_whole "$g" >> "$work/whole-$g"
    [ "$peers" = - ] || theirs_scan "$g" >> "$work/theirs-$g"
  done
  # The baseline may predate --gpus: its default, GPU 0.
  [ -z "${BASELINE:-}" ] || ours_scan "$BASELINE" base >> "$work/base-1"
done

echo "== 20 queries ($qres residues) x $seqs sequences ($residues residues), median of $rounds rounds, $(gpu_name) x $have"
printf '%5s %9s %7s %8s %9s %8s %11s %7s\n' GPUs "scan s" TCUPS speedup "whole s" speedup "CUDASW4 s" ratio
s1=$(median "$work/scan-1") w1=$(median "$work/whole-1")
for g in "${counts[@]}"; do
  s=$(median "$work/scan-$g") w=$(median "$work/whole-$g") t=-
  [ "$peers" = - ] || t=$(median "$work/theirs-$g")
  awk -v g="$g" -v s="$s" -v w="$w" -v s1="$s1" -v w1="$w1" -v t="$t" -v c="$(awk -v q="$qres" -v d="$residues" 'BEGIN { print q * d }')" \
    'BEGIN { printf "%5d %9.3f %7.2f %7.2fx %9.3f %7.2fx %11s %7s\n", g, s, c / s / 1e12, s1 / s, w, w1 / w, t,
             t == "-" ? "-" : sprintf("%.2fx", t / s) }'
  cmp -s "$work/out-1.tsv" "$work/out-$g.tsv" && cmp -s "$work/whole-1.tsv" "$work/whole-$g.tsv" ||
    echo "FAIL: the output on $g GPUs differs from the output on one"
done
if [ -n "${BASELINE:-}" ]; then
  echo "baseline $BASELINE on one GPU: scan $(median "$work/base-1") s"
  cmp -s "$work/out-1.tsv" "$work/out-base.tsv" || echo "FAIL: the baseline's output differs"
fi
