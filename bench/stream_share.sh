#!/usr/bin/env bash
# The streamed scan against the share of the database kept on the GPU: the
# 20 benchmark queries against a Swiss-Prot-like database of SEQS sequences
# (default 2,288,000), resident and with --gpu-memory at each of SHARES
# (fractions of what the database takes on the GPU; default 0.25 0.5 0.75),
# on GPUS GPUs (default 1). Prints each run's -v summary and its scan rate
# over the resident one; the outputs must be equal.
# Usage: bench/stream_share.sh BUILD [SEQS] [SHARES]
. "$(dirname "$0")/lib.sh"
seqs=${2:-2288000}
shares=${3:-0.25 0.5 0.75}
gpus=${GPUS:-1}
synthdb protein --seqs "$seqs" --plant "$queries" > "$work/db.fa"
"$makedb" -q "$work/db.fa" "$work/db"
rm "$work/db.fa"
residues=$(db_residues "$work/db")
args=(-q "$queries" -d "$work/db" --gap-open 10 --gap-extend 1 --top 10 --outfmt tsv --gpus "$gpus")
run() { # NAME [OPTION...]: prints the scan seconds
  local name=$1
  shift
  "$swsearch" search "${args[@]}" "$@" -v -o "$work/out-$name.tsv" 2> "$work/err-$name"
  grep -m1 'scan' "$work/err-$name" | sed "s/^/  $name: /" >&2
  sed -n 's/.*scan \([0-9.]*\) s.*/\1/p' "$work/err-$name" | head -1
}
run warm > /dev/null
base=$(run resident)
echo "== 20 queries x $seqs sequences ($residues residues) on $gpus x $(gpu_name)"
printf '%-10s %9s %7s\n' share "scan s" rate
printf '%-10s %9s %7s\n' resident "$base" 1.000
for s in $shares; do
  kib=$(awk -v s="$s" -v r="$residues" -v n="$seqs" 'BEGIN { printf "%d", (r + 76 * n) * s / 1024 }')
  t=$(run "s$s" --gpu-memory "${kib}K")
  grep -q "streamed to the GPUs" "$work/err-s$s" || echo "  (share $s did not stream)"
  cmp -s "$work/out-resident.tsv" "$work/out-s$s.tsv" || echo "FAIL: share $s differs from the resident output"
  printf '%-10s %9s %7.3f\n' "$s" "$t" "$(awk -v a="$base" -v b="$t" 'BEGIN { print a / b }')"
done
