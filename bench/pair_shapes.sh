#!/usr/bin/env bash
# The overlap engine against the CUDAlign engine on the shapes of Jain and
# Kumar's table: subjects of 10^5 to 10^8 bases against queries of 128,
# 1,024, 10,240 and 100,352, a related pair (synthdb's mutated window of the
# subject) and an unrelated one, forward pass (kernel time), subject as the
# first sequence. One line a run: shape, kind, both engines' seconds and
# GCUPS, the ratio, the overlap engine's recomputation figures, and the
# engine a rule "overlap where one sequence is 16 times the other" would
# take (the candidate crossover); "DIFFER" where the two engines disagree.
#
# usage: bench/pair_shapes.sh BUILD SHARED_DIR
# Environment: SUBJECTS (default "100000 1000000 10000000 100000000"),
# QUERIES (default "128 1024 10240 100352"), KINDS (default "related random"),
# PRUNE (CUDAlign engine's pruning, default 1 as in swsearch align).
set -uo pipefail
build=$1 shared=$2
subjects=${SUBJECTS-100000 1000000 10000000 100000000}
queries=${QUERIES-128 1024 10240 100352}
kinds=${KINDS-related random}
prune=${PRUNE-1}
work=${TMPDIR:-/tmp}/swsearch-pair-shapes
mkdir -p "$work"
cc -O2 -o "$work/synthdb" "$shared/bench/synthdb.c" -lm || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null
bench=$build/bench/pair_bench

first_record() { awk '/^>/ { n++ } n == 1'; }

make_pair() { # make_pair KIND S Q -> file
  local f=$work/$1-$2-$3.fa
  if [ ! -s "$f" ]; then
    if [ "$1" = related ]; then
      "$work/synthdb" dna --len "$2" --query-len "$3" --seed 7 > "$f"
    else
      "$work/synthdb" dna --len "$2" --seed 21 | first_record > "$f"
      "$work/synthdb" dna --len "$3" --seed 22 | first_record | sed '1s/.*/>unrelated_query/' >> "$f"
    fi
  fi
  echo "$f"
}

field() { sed -n "s/.*\"$1\": \([^,}]*\).*/\1/p"; }

printf '%-10s %-7s %-8s %10s %9s %10s %9s %7s %7s %6s %7s %s\n' subject query kind overlap_s GCUPS cudalign_s GCUPS ratio inexact rounds recomp rule16
for s in $subjects; do
  for q in $queries; do
    [ "$q" -lt "$s" ] || continue
    for kind in $kinds; do
      f=$(make_pair "$kind" "$s" "$q")
      o=$("$bench" "$f" --engine overlap) || { echo "$s $q $kind: overlap engine failed"; continue; }
      c=$("$bench" "$f" --engine cudalign --prune "$prune") || { echo "$s $q $kind: cudalign engine failed"; continue; }
      ot=$(echo "$o" | field kernel_s) ct=$(echo "$c" | field kernel_s)
      og=$(echo "$o" | field gcups) cg=$(echo "$c" | field gcups)
      same=""
      for k in score a_end b_end; do
        [ "$(echo "$o" | field $k)" = "$(echo "$c" | field $k)" ] || same=" DIFFER($k)"
      done
      m=$(echo "$o" | field m) n=$(echo "$o" | field n)
      auto=$(awk -v m="$m" -v n="$n" 'BEGIN { s = m < n ? m : n; l = m < n ? n : m; print (s * 16 <= l ? "overlap" : "cudalign") }')
      printf '%-10s %-7s %-8s %10s %9s %10s %9s %7.2f %7s %6s %7s %s%s\n' "$s" "$q" "$kind" "$ot" "$og" "$ct" "$cg" \
        "$(awk -v a="$ct" -v b="$ot" 'BEGIN { print a / b }')" "$(echo "$o" | field inexact_first)" \
        "$(echo "$o" | field rounds)" "$(echo "$o" | field recomputed)" "$auto" "$same"
      echo "$o" >> "$work/runs.jsonl"
      echo "$c" >> "$work/runs.jsonl"
    done
  done
done
