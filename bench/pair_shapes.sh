#!/usr/bin/env bash
# The overlap engine against the CUDAlign engine on the shapes of Jain and
# Kumar's table: subjects of 10^5 to 10^8 bases against queries of 128,
# 1,024, 10,240 and 100,352, a related pair (synthdb's mutated window of the
# subject) and an unrelated one, forward pass (kernel time), subject as the
# first sequence. One line a run: shape, kind, both engines' seconds and
# GCUPS, the ratio (CUDAlign engine's time over the overlap engine's), the
# overlap engine's recomputation figures, the faster engine and the one
# auto takes (sw_pair_choose_engine); "DIFFER" where the two engines
# disagree.
#
# usage: bench/pair_shapes.sh BUILD
# Environment: SUBJECTS (default "100000 1000000 10000000 100000000"),
# QUERIES (default "128 1024 10240 100352"), KINDS (default "related random"),
# PRUNE (CUDAlign engine's pruning, default 1 as in swsearch align),
# FIRST=query (the query as the first sequence). Every run's JSON line is
# kept in $pair_dir/runs.jsonl.
. "$(dirname "$0")/lib.sh"
. "$bench_dir/pair_inputs.sh"
set +e # a failed run is reported, and the next one goes on
subjects=${SUBJECTS-100000 1000000 10000000 100000000}
queries=${QUERIES-128 1024 10240 100352}
kinds=${KINDS-related random}
prune=${PRUNE-1}
rm -f "$pair_dir/runs.jsonl"
nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null
bench=$build/bench/pair_bench

printf '%-10s %-7s %-8s %10s %9s %10s %9s %7s %7s %6s %7s %-8s %s\n' subject query kind overlap_s GCUPS cudalign_s GCUPS ratio inexact rounds recomp faster auto
for s in $subjects; do
  for q in $queries; do
    [ "$q" -lt "$s" ] || continue
    for kind in $kinds; do
      f=$(make_pair "$kind" "$s" "$q")
      [ "${FIRST:-subject}" = query ] && f=$(swap_pair "$f")
      o=$("$bench" "$f" --engine overlap) || { echo "$s $q $kind: overlap engine failed"; continue; }
      c=$("$bench" "$f" --engine cudalign --prune "$prune") || { echo "$s $q $kind: cudalign engine failed"; continue; }
      ot=$(echo "$o" | field kernel_s) ct=$(echo "$c" | field kernel_s)
      og=$(echo "$o" | field gcups) cg=$(echo "$c" | field gcups)
      same=""
      for k in score a_end b_end; do
        [ "$(echo "$o" | field $k)" = "$(echo "$c" | field $k)" ] || same=" DIFFER($k)"
      done
      faster=$(awk -v a="$ct" -v b="$ot" 'BEGIN { print (b < a ? "overlap" : "cudalign") }')
      printf '%-10s %-7s %-8s %10s %9s %10s %9s %7.2f %7s %6s %7s %-8s %s%s\n' "$s" "$q" "$kind" "$ot" "$og" "$ct" "$cg" \
        "$(awk -v a="$ct" -v b="$ot" 'BEGIN { print a / b }')" "$(echo "$o" | field inexact_first)" \
        "$(echo "$o" | field rounds)" "$(echo "$o" | field recomputed)" "$faster" "$(echo "$o" | field auto | tr -d '"')" "$same"
      echo "$o" >> "$pair_dir/runs.jsonl"
      echo "$c" >> "$pair_dir/runs.jsonl"
    done
  done
done
