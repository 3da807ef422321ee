#!/usr/bin/env bash
# A database larger than the GPU memory given, in one run: the 20 benchmark
# queries against a Swiss-Prot-like database of SEQS sequences (default
# 2,288,000: about 845 M residues), resident and with --gpu-memory LIMIT
# (default: a quarter of what the database takes on the GPU, residues and
# per-sequence arrays), on GPUS GPUs (default 1). For each: the scan (from
# -v), the whole command, the peak host memory, median of ROUNDS; the
# streamed scan's rate over the resident one; CUDASW++4.0 resident and with
# --maxGpuMem LIMIT on the same GPUs and data, and our streamed scan's
# ratio to its (above 1: we are faster). The outputs must be equal.
# CUDASW++4.0 comes from PEERS (bench/cudasw4.sh); PEERS "-" leaves it out.
# Gap costs: its --gop -11 --gex -1 is our --gap-open 10 --gap-extend 1.
# Usage: bench/streamed.sh BUILD [ROUNDS] [SEQS] [PEERS] [LIMIT]
. "$(dirname "$0")/lib.sh"
rounds=${2:-3}
seqs=${3:-2288000}
peers=${4:--}
limit=${5:-}
gpus=${GPUS:-1}
. "$(dirname "$0")/cudasw4.sh"
if [ "$peers" != - ]; then
  peers=$(cd "$peers" && pwd)
  cudasw4_ready "$peers" "$work"
fi
cudasw4_databases "$seqs" "$peers"
residues=$(db_residues "$work/db")
qres=$(residues_of "$queries")
# What the database takes on a GPU: its residues and 76 bytes a sequence.
if [ -z "$limit" ]; then
  kib=$(( (residues + seqs * 76) / 4 / 1024 ))
  limit=$(( kib > 1024 ? kib : 1024 ))K
fi
args=(-q "$queries" -d "$work/db" --gap-open 10 --gap-extend 1 --top 10 --outfmt tsv --gpus "$gpus")
cuda_devices=$(seq -s, 0 $((gpus - 1)))

ours() { # NAME [OPTION...]: the scan seconds, the wall seconds and the peak kB appended to scan-, wall-, peak-NAME
  local name=$1 wall peak
  shift
  /usr/bin/time -f "%e %M" -o "$work/time" "$swsearch" search "${args[@]}" "$@" -v -o "$work/out-$name.tsv" 2> "$work/err"
  sed -n 's/.*scan \([0-9.]*\) s.*/\1/p' "$work/err" | head -1 >> "$work/scan-$name"
  read -r wall peak < "$work/time"
  echo "$wall" >> "$work/wall-$name"
  echo "$peak" >> "$work/peak-$name"
}
theirs() { # [OPTION...]: CUDASW++4.0's "Total time"
  if ! CUDA_VISIBLE_DEVICES=$cuda_devices "$peers/bin/align" --query "$queries" --db "$work/cs/db" --dpx --gop -11 \
    --gex -1 --top 10 --verbose --tsv --of "$work/theirs.tsv" "$@" > "$work/theirs.log" 2>&1; then
    echo "CUDASW++4.0 $* failed:" >&2; tail -5 "$work/theirs.log" >&2; echo nan; return
  fi
  grep -m1 "DB batches will be cached" "$work/theirs.log" | sed 's/^/  CUDASW++4.0: /' >&2
  grep -i "total time" "$work/theirs.log" | tail -1 | grep -o '[0-9.]\+ *s' | head -1 | tr -d ' s'
}
# CUDASW++4.0's --maxGpuMem covers its whole working set: 256 MiB it keeps
# free, its temporary storage (4 GiB by default), a score and an id for
# every sequence, two transfer buffers (128 MiB and 10 M sequences at 12
# bytes each) and then as much of the database (its residues and 20 bytes a
# sequence) as fits; the rest goes over the bus for every query. It is given
# what keeps the same share of its database on the GPU as --gpu-memory keeps
# of ours (its log's "DB batches will be cached" line says how much did).
limit_bytes=$(numfmt --from=iec "${limit%B}")
share=$(awk -v l="$limit_bytes" -v r="$residues" -v n="$seqs" 'BEGIN { printf "%.6f", l / (r + 76 * n) }')
their_limit=$(awk -v s="$share" -v r="$residues" -v n="$seqs" \
  'BEGIN { printf "%.0f", 256 * 2^20 + 4 * 2^30 + 8 * n + 2 * (128 * 2^20 + 12 * 10000000 + 8) + s * (r + 20 * n) + 2^20 }')

ours warm # calibration, caches
for r in $(seq "$rounds"); do
  ours resident
  ours streamed --gpu-memory "$limit"
  grep -q "streamed to the GPUs" "$work/err" || echo "FAIL: --gpu-memory $limit did not stream"
  if [ "$peers" != - ]; then
    theirs >> "$work/theirs-resident"
    theirs --maxGpuMem "$their_limit" >> "$work/theirs-streamed"
  fi
done
cmp -s "$work/out-resident.tsv" "$work/out-streamed.tsv" || echo "FAIL: the streamed output differs from the resident one"

echo "== 20 queries ($qres residues) x $seqs sequences ($residues residues) on $gpus x $(gpu_name), --gpu-memory $limit (share $share; CUDASW++4.0 --maxGpuMem $their_limit), median of $rounds rounds"
printf '%-10s %9s %7s %9s %10s %11s %9s\n' run "scan s" TCUPS "whole s" "peak MB" "CUDASW4 s" "ratio"
sr=$(median "$work/scan-resident")
for run in resident streamed; do
  s=$(median "$work/scan-$run") w=$(median "$work/wall-$run") p=$(median "$work/peak-$run") t=-
  [ "$peers" = - ] || t=$(median "$work/theirs-$run")
  awk -v run="$run" -v s="$s" -v w="$w" -v p="$p" -v t="$t" -v c="$(awk -v q="$qres" -v d="$residues" 'BEGIN { print q * d }')" \
    'BEGIN { printf "%-10s %9.3f %7.2f %9.3f %10.0f %11s %9s\n", run, s, c / s / 1e12, w, p / 1024, t,
             t == "-" ? "-" : sprintf("%.2fx", t / s) }'
done
awk -v a="$sr" -v b="$(median "$work/scan-streamed")" 'BEGIN { printf "streamed scan rate: %.3f of the resident one\n", a / b }'
