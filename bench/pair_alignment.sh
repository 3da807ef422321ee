#!/usr/bin/env bash
# The alignment itself on the GPU: for related pairs from synthdb, the whole
# `swsearch align` command for score and coordinates alone, then with the
# alignment (PAF with the CIGAR), their ratio (the goal: at most 1.5 at
# 5 Mbp), the summary lines (the alignment's time and cells), the peak host
# memory (GNU time's maximum resident set) and the peak device memory (the
# most nvidia-smi saw in use during the run, sampled every 50 ms, less what
# was in use before). Every alignment is re-scored by swsearch before it is
# written; the CIGAR's spans are checked here against the coordinates.
#
# usage: bench/pair_alignment.sh BUILD
# Environment: SIZES (default "1000000 5000000").
. "$(dirname "$0")/lib.sh"
. "$bench_dir/pair_inputs.sh"
set +e # a failed run is reported, and the next one goes on
sizes=${SIZES-1000000 5000000}
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader 2>/dev/null
sw=$swsearch

used_mib() { nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits 2>/dev/null | head -1; }

# run LABEL ARGS...: wall seconds, peak RSS, peak device memory of one command.
run() {
  local label=$1
  shift
  local base
  base=$(used_mib)
  (while :; do used_mib; sleep 0.05; done) > "$work/gpu-mem.log" &
  local sampler=$!
  /usr/bin/time -f "%e %M" -o "$work/time.txt" "$sw" "$@" 2> "$work/stderr.txt"
  local rc=$?
  kill $sampler 2>/dev/null
  wait $sampler 2>/dev/null
  local peak
  peak=$(sort -n "$work/gpu-mem.log" | tail -1)
  read -r wall rss < "$work/time.txt"
  awk -v l="$label" -v rc=$rc -v w="$wall" -v r="$rss" -v p="${peak:-0}" -v b="${base:-0}" \
    'BEGIN { printf "%-28s rc=%d %8.2f s  host peak %7.1f MB  device peak %d MiB\n", l, rc, w, r / 1024, p - b }'
  grep -E "engine:|alignment:" "$work/stderr.txt" | sed 's/^/    /'
  echo "$wall" > "$work/last_wall"
}

for n in $sizes; do
  f=$(related_pair "$n")
  echo "== related pair, $n bases"
  run "score and coordinates" align "$f" --engine cudalign -o "$work/score$n.tsv"
  t_score=$(cat "$work/last_wall")
  run "with the alignment (PAF)" align "$f" --engine cudalign -f paf -o "$work/align$n.paf"
  t_align=$(cat "$work/last_wall")
  awk -v a="$t_align" -v s="$t_score" 'BEGIN { printf "ratio %.3f (goal at 5 Mbp: at most 1.5)\n", a / s }'
  # The CIGAR spans the PAF's coordinates on both sequences.
  awk -F'\t' '{
      cg = ""; as = ""
      for (i = 13; i <= NF; ++i) { if ($i ~ /^cg:Z:/) cg = substr($i, 6); if ($i ~ /^AS:i:/) as = substr($i, 6) }
      q = 0; t = 0
      k = split(cg, lens, /[MID]/); split(cg, ops, /[0-9]+/)
      for (i = 1; i < k; ++i) { if (ops[i + 1] != "D") q += lens[i]; if (ops[i + 1] != "I") t += lens[i] }
      ok = (cg ~ /^([0-9]+[MID])+$/ && q == $4 - $3 && t == $9 - $8)
      printf "PAF: %s %d-%d, %s %d-%d, score %s, CIGAR %s the coordinates\n", $1, $3, $4, $6, $8, $9, as, ok ? "spans" : "DOES NOT SPAN"
    }' "$work/align$n.paf"
done
