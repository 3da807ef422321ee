#!/usr/bin/env bash
# One pair aligned many times over, to catch what fails only now and then:
# `swsearch align` (score, start and end) RUNS times with each engine,
# every output compared with the first; prints per build and engine the
# runs that differed or failed, and the first error met.
#
# usage: bench/pair_repeat.sh BUILD [TREE ...]
# BUILD is the tree's own build; each TREE (another source tree, such as
# one made by scripts/ab-prepare.sh) is built beside it for comparison.
# Environment: SHAPE ("ALPHA BLOCKS WARPS": the megabase kernel's shape for
# every build, BUILD rebuilt under that shape in BUILD-repeat-...; empty,
# the default: builds as they are), PAIR (default "related 1000000
# 100352"), RUNS (default 20), ENGINES (default "overlap cudalign").
. "$(dirname "$0")/lib.sh"
. "$bench_dir/pair_inputs.sh"
set +e # a failed run is reported, and the next one goes on
shift
runs=${RUNS:-20}
read -r kind s q <<< "${PAIR:-related 1000000 100352}"
f=$(make_pair "$kind" "$s" "$q")

# build_tree SRC DIR: swsearch of SRC in DIR, under SHAPE if set.
build_tree() {
  local flags=()
  if [ -n "${SHAPE:-}" ]; then
    read -r alpha blocks warps <<< "$SHAPE"
    flags=(-DCMAKE_CUDA_FLAGS="-DSW_PAIR_ALPHA=$alpha -DSW_PAIR_BLOCKS_PER_SM=$blocks -DSW_PAIR_WARPS_PER_BLOCK=$warps")
  fi
  cmake -S "$1" -B "$2" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 "${flags[@]}" > "$work/configure.log" 2>&1 &&
    cmake --build "$2" -j16 --target swsearch > "$work/build.log" 2>&1 || { tail -30 "$work/build.log"; return 1; }
}

suffix=${SHAPE:+-repeat-${SHAPE// /-}}
builds=()
if [ -n "$suffix" ]; then
  build_tree . "$build$suffix" || exit 1
  builds+=("$build$suffix")
else
  builds+=("$build")
fi
for tree in "$@"; do
  build_tree "$tree" "$tree/build$suffix" || exit 1
  builds+=("$tree/build$suffix")
done
nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null
echo "pair: $kind $s x $q, $runs runs${SHAPE:+, shape $SHAPE}"
for b in "${builds[@]}"; do
  for engine in ${ENGINES:-overlap cudalign}; do
    first="" differ=0 failed=0 error=""
    for r in $(seq "$runs"); do
      if "$b/src/cli/swsearch" align "$f" -e "$engine" -q > "$work/repeat.out" 2> "$work/repeat.err"; then
        got=$(tail -n +2 "$work/repeat.out")
        if [ -z "$first" ]; then first=$got; elif [ "$got" != "$first" ]; then differ=$((differ + 1)); fi
      else
        failed=$((failed + 1))
        [ -n "$error" ] || error=$(head -2 "$work/repeat.err")
      fi
    done
    printf '%s -e %s: %d failed, %d differed of %d; result: %s\n' "$b" "$engine" "$failed" "$differ" "$runs" "$(echo "$first" | head -1)"
    [ -z "$error" ] || echo "  first error: $error"
  done
done
