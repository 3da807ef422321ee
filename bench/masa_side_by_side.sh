#!/usr/bin/env bash
# Our megabase pairwise engine against MASA-CUDAlign 3.9.1 (the CUDAlign 4.0
# line) on one GPU, in one run, rounds alternating, on the same related DNA
# pair(s) from synthdb. Only MASA's stage 1 (best score and its end, no
# traceback) is the counterpart of our forward pass, so that is what is timed:
#   MASA:  cudalign --stage-1 --no-flush [--no-block-pruning] --gpu=0 --clear
#            --work-dir=WD A.fa B.fa
#          its seconds are the ALIGN line of WD/statistics_01.00 (stage 1's
#          own timer around the alignment of the matrix, in ms; the setup of
#          the sequences and of the GPU is outside it), its score and end the
#          "Best Score" and "Best Position: (i,j)" lines of the same file
#          (i in A, j in B, 1-based);
#   ours:  bench/pair_bench A+B --prune 0 and --prune 1: kernel_s (the forward
#          pass's kernels), score, a_end, b_end of its JSON line;
#   and, as a figure of the whole command, the wall time of
#          swsearch align PAIR --engine cudalign --no-pruning (forward and
#          start passes, reading the input and writing the TSV included).
# MASA without block pruning is compared with ours without pruning, MASA
# with its block pruning with ours with pruning. GCUPS = |A| x |B| / seconds
# for both, pruned cells counted; the ratio is MASA's seconds over ours (above
# 1 means we are faster). Each figure is the median of ROUNDS rounds.
#
# Scores: MASA's are fixed at compile time (src/CUDAligner.hpp): match +1,
# mismatch -3, DNA_GAP_OPEN 3, DNA_GAP_EXT 2, with E = max(H - 3, E) - 2, so
# the first gap base costs 5 and each further one 2: a gap of k bases costs
# 3 + 2k. Our defaults (and pair_bench's fixed scoring) are match 1, mismatch
# -3, gap open 3, gap extend 2 with a gap of k costing open + k x extend =
# 3 + 2k: the same, so no option is passed to either side. The script checks
# that the best scores agree (the end cells may differ where several cells
# hold the best score).
#
# MASA is built from MASA_DIR (a copy of MASA-CUDAlign 3.9.1.1024 outside our
# tree, never committed, ported to CUDA 12/13 by bench/masa_port.py; ported
# here if it was not) unless MASA_DIR/cudalign exists. MASA's 1 and 5 Mbp
# runs hang near the end of stage 1 (2 Mbp runs; the port's barrier change,
# see bench/masa_port.py, did not cure it), so every MASA run is under `timeout MASA_TIMEOUT` (default 300 s): a run that times
# out is reported as a hang, the other runs of that length and mode are
# skipped, and the script goes on.
#
# Usage: bench/masa_side_by_side.sh BUILD MASA_DIR [LENGTHS]
#   LENGTHS: lengths of A (default "2000000"); environment: ROUNDS (default
#   3), MASA_TIMEOUT (seconds, default 300), MASA_ARCH (default from
#   nvidia-smi, else sm_90), CUDA_HOME (default /usr/local/cuda).
. "$(dirname "$0")/lib.sh"
masa=$(cd "$2" && pwd)
lengths=${3:-2000000}
rounds=${ROUNDS:-3}
limit=${MASA_TIMEOUT:-300}
cuda=${CUDA_HOME:-/usr/local/cuda}
pair_bench="$build/bench/pair_bench"

# MASA-CUDAlign, ported and built once.
if [ ! -x "$masa/cudalign" ]; then
  if ! grep -q port_fetch "$masa/src/CUDAligner.cu"; then
    echo "porting $masa to CUDA 12+ (bench/masa_port.py)"
    python3 "$bench_dir/masa_port.py" "$masa"
  fi
  arch=${MASA_ARCH:-}
  if [ -z "$arch" ]; then
    cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .' || true)
    arch=sm_${cap:-90}
  fi
  echo "building MASA-CUDAlign ($masa, $arch)"
  (
    cd "$masa"
    # make must not try to rerun aclocal/automake 1.11: inputs, then
    # aclocal.m4, then what autoconf/automake generated (copies may reorder them).
    for d in . libs/masa-core; do
      touch -c -d @946684800 $d/configure.ac $d/Makefile.am $d/m4/*.m4
      touch -c -d @946684801 $d/aclocal.m4
      touch -c -d @946684802 $d/configure $d/Makefile.in $d/src/config.h.in
    done
    # The link needs libcuda.so: the driver's, or the stub beside the runtime.
    export LIBRARY_PATH="$cuda/lib64/stubs:$cuda/lib64${LIBRARY_PATH:+:$LIBRARY_PATH}"
    [ -f Makefile ] || ./configure --with-cuda-arch="$arch" --with-cuda="$cuda"
    make -j"$(nproc)"
  ) > "$work/masa-build.log" 2>&1 || { tail -30 "$work/masa-build.log"; exit 1; }
  [ -x "$masa/cudalign" ] || { tail -30 "$work/masa-build.log"; exit 1; }
  tail -3 "$work/masa-build.log"
fi

jget() { # KEY: a number from a JSON line on stdin
  grep -o "\"$1\": *[-0-9.e+]*" | head -1 | sed 's/.*: *//'
}

masa_run() { # LEN MODE(off|on) ROUND: appends "secs score i j pruned%" or "hang"/"failed" to a file
  local n=$1 mode=$2 r=$3 wd="$work/wd-$1-$2-$3" log="$work/masa-$1-$2-$3.log" flag= rc=0
  [ "$mode" = off ] && flag=--no-block-pruning
  LD_LIBRARY_PATH="$cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    timeout -k 10 "$limit" "$masa/cudalign" --stage-1 --no-flush $flag --gpu=0 --clear --work-dir="$wd" \
    "$work/a$n.fa" "$work/b$n.fa" > "$log" 2>&1 || rc=$?
  local st="$wd/statistics_01.00"
  if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
    echo "MASA $n $mode round $r: no result after $limit s (hang); last lines:" >&2
    tail -3 "$log" | sed 's/\x1b\[[0-9;]*m//g' >&2
    echo hang >> "$work/masa-$n-$mode.times"
    return
  fi
  if [ $rc -ne 0 ] || [ ! -s "$st" ] || ! grep -q "Best Score" "$st"; then
    echo "MASA $n $mode round $r: failed (rc $rc); last lines:" >&2
    tail -8 "$log" | sed 's/\x1b\[[0-9;]*m//g' >&2
    echo failed >> "$work/masa-$n-$mode.times"
    return
  fi
  local ms score pos pruned
  ms=$(awk '$1 == "ALIGN:" && $2 + 0 > 0 { print $2; exit }' "$st")
  if [ -z "$ms" ]; then
    echo "MASA $n $mode round $r: no ALIGN time in $st" >&2
    echo failed >> "$work/masa-$n-$mode.times"
    return
  fi
  score=$(sed -n 's/^ *Best Score: *\([-0-9]*\).*/\1/p' "$st" | head -1)
  pos=$(sed -n 's/^ *Best Position: *(\([-0-9]*\),\([-0-9]*\)).*/\1 \2/p' "$st" | head -1)
  pruned=$(awk -F'[:=]' '/^Pruned Blocks: [0-9.]+ =/ && $2 ~ /\./ { gsub(/ /, "", $2); print $2; exit }' "$st")
  awk -v ms="$ms" 'BEGIN { printf "%.4f ", ms / 1000 }' >> "$work/masa-$n-$mode.times"
  echo "$score $pos ${pruned:-0}" >> "$work/masa-$n-$mode.times"
  cp "$st" "$work/masa-stats-$n-$mode"
}

ours_run() { # LEN MODE ROUND: appends "kernel_s score a_end b_end computed"
  local n=$1 mode=$2 prune=0 line
  [ "$mode" = on ] && prune=1
  line=$("$pair_bench" "$work/pair$n.fa" --prune $prune | tail -1)
  echo "$(jget kernel_s <<< "$line") $(jget score <<< "$line") $(jget a_end <<< "$line") $(jget b_end <<< "$line") $(jget computed <<< "$line")" \
    >> "$work/ours-$n-$mode.times"
}

whole_run() { # LEN: appends "wall_s score a_end b_end" of swsearch align --no-pruning
  local n=$1 t0 t1
  t0=$(date +%s.%N)
  if ! "$swsearch" align "$work/pair$n.fa" --engine cudalign --no-pruning -o "$work/align$n.tsv" 2> "$work/align$n.err"; then
    echo "swsearch align $n: failed:" >&2
    tail -5 "$work/align$n.err" >&2
    return
  fi
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" -F'\t' 'NR == 2 { printf "%.3f %s %s %s\n", b - a, $3, $5, $7 }' "$work/align$n.tsv" \
    >> "$work/whole-$n.times"
}

first_ok() { # FILE: the first row with a result
  awk '$1 ~ /^[0-9.]+$/ { print; exit }' "$1"
}

gpu=$(gpu_name)
for n in $lengths; do
  synthdb dna --len "$n" > "$work/pair$n.fa"
  record "$work/pair$n.fa" 1 > "$work/a$n.fa"
  record "$work/pair$n.fa" 2 > "$work/b$n.fa"
  for f in masa-$n-off masa-$n-on ours-$n-off ours-$n-on whole-$n; do : > "$work/$f.times"; done
  "$pair_bench" "$work/pair$n.fa" --prune 0 > /dev/null # warm-up: context, caches
  for r in $(seq "$rounds"); do
    for mode in off on; do
      if grep -q '^hang' "$work/masa-$n-$mode.times"; then
        echo "MASA $n $mode round $r: skipped (hung before)" >&2
      else
        masa_run "$n" "$mode" "$r"
      fi
      ours_run "$n" "$mode" "$r"
    done
    whole_run "$n"
  done
done

echo "== MASA-CUDAlign 3.9.1 stage 1 against swsearch's forward pass, ${gpu:-GPU ?}, median of $rounds rounds"
echo "   (MASA: ALIGN time of stage 1; ours: pair_bench kernel_s; ratio = MASA s / ours s)"
printf '%-9s %-5s %10s %8s %10s %8s %7s  %s\n' length prune "MASA s" GCUPS "ours s" GCUPS ratio "best score (end in A, B)"
for n in $lengths; do
  m=$(awk '!/^>/ { k += length($0) } END { print k }' "$work/a$n.fa")
  q=$(awk '!/^>/ { k += length($0) } END { print k }' "$work/b$n.fa")
  for mode in off on; do
    mt=$(median "$work/masa-$n-$mode.times" 1)
    ot=$(median "$work/ours-$n-$mode.times" 1)
    mrow=$(first_ok "$work/masa-$n-$mode.times")
    orow=$(first_ok "$work/ours-$n-$mode.times")
    read -r _ oscore oa ob ocomp <<< "$orow"
    if [ -z "$mrow" ]; then
      status=$(head -1 "$work/masa-$n-$mode.times")
      awk -v n="$n" -v p="$mode" -v ot="$ot" -v m="$m" -v q="$q" -v s="${status:-no run}" \
        -v os="$oscore" -v oa="$oa" -v ob="$ob" \
        'BEGIN { printf "%-9s %-5s %10s %8s %10.3f %8.0f %7s  MASA: %s; ours %s (%s, %s)\n",
                        n, p, "-", "-", ot, m * q / ot / 1e9, "-", s, os, oa, ob }'
      continue
    fi
    read -r _ mscore mi mj mpruned <<< "$mrow"
    agree=$([ "$mscore" = "$oscore" ] && echo "equal" || echo "DIFFER")
    awk -v n="$n" -v p="$mode" -v mt="$mt" -v ot="$ot" -v m="$m" -v q="$q" -v a="$agree" \
      -v ms="$mscore" -v mi="$mi" -v mj="$mj" -v os="$oscore" -v oa="$oa" -v ob="$ob" \
      'BEGIN { cells = m * q;
               printf "%-9s %-5s %10.3f %8.0f %10.3f %8.0f %6.2fx  %s: MASA %s (%s, %s), ours %s (%s, %s)\n",
                      n, p, mt, cells / mt / 1e9, ot, cells / ot / 1e9, mt / ot, a, ms, mi, mj, os, oa, ob }'
    if [ "$mode" = on ]; then
      echo "          MASA pruned ${mpruned}% of its blocks; ours computed ${ocomp} of the cells"
    fi
  done
  w=$(median "$work/whole-$n.times" 1)
  read -r _ ws wa wb <<< "$(first_ok "$work/whole-$n.times")"
  same=$([ "${ws:-}" = "$oscore" ] && echo "equal to pair_bench's" || echo "DIFFERS from pair_bench's $oscore")
  echo "          whole swsearch align --no-pruning (both passes): $w s, score ${ws:--} ($same; ends ${wa:--}, ${wb:--})"
  hangs=$(cat "$work/masa-$n-off.times" "$work/masa-$n-on.times" | grep -c '^hang' || true)
  if [ "$hangs" -gt 0 ]; then
    echo "          MASA hung $hangs time(s) at this length (timeout $limit s)"
  fi
  for mode in off on; do
    if [ -s "$work/masa-stats-$n-$mode" ]; then
      echo "          MASA $mode (last run): $(grep -h "Block Count" "$work/masa-stats-$n-$mode" | sed 's/^ *//')," \
        "stage 1 total $(awk '$1 == "Total:" { printf "%.3f", $2 / 1000; exit }' "$work/masa-stats-$n-$mode") s, |A| $m, |B| $q"
    fi
  done
done
exit 0
