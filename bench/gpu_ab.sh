#!/usr/bin/env bash
# A/B comparison of GPU builds on the same data in one run: builds the
# Swiss-Prot-like and the 1,000,000 x 256 databases once, then times the scan
# of the 20 queries (all in one call, gpu_bench) with every build in turn,
# ROUNDS rounds interleaved, and prints each build's best time and its ratio
# to the first build's. An entry BUILD_DIR@ARGS passes ARGS (spaces as
# commas) to that run of gpu_bench, for example build@--columns,32.
# Usage: bench/gpu_ab.sh ROUNDS ENTRY [ENTRY...]
. "$(dirname "$0")/lib.sh"
rounds=$1
shift
builds=("$@")
makedb="${builds[0]%%@*}/tools/makedb/makedb"
name_of() { basename "$1" | tr -c 'A-Za-z0-9_.\n-' '_'; }

# AB_DBS: a folder that already holds the databases sp and u made so.
dbs=${AB_DBS:-$work}
if [ -z "${AB_DBS:-}" ]; then
  database sp protein --plant "$queries"
  database u uniform --seqs 1000000 --len 256
fi

for db in sp u; do
  for b in "${builds[@]}"; do echo 1e9 > "$work/best.$db.$(name_of "$b")"; done
done
for ((r = 1; r <= rounds; ++r)); do
  for db in sp u; do
    for b in "${builds[@]}"; do
      name=$(name_of "$b")
      dir=${b%%@*}
      args=()
      [[ $b == *@* ]] && IFS=, read -r -a args <<< "${b#*@}"
      line=$("$dir/bench/gpu_bench" "$dbs/$db" "$queries" --single 0 "${args[@]}" | grep '^all ')
      s=$(echo "$line" | sed -E 's/^all [0-9]+ queries in one call \(best of [0-9]+\): ([0-9.]+) s.*/\1/')
      echo "round $r $db $name $s s"
      echo "$line" | sed -E 's/.*\(([0-9.e+]+) cells\).*/\1/' > "$work/cells.$db"
      awk -v s="$s" '{ print (s < $1 ? s : $1) }' "$work/best.$db.$name" > "$work/t" && mv "$work/t" "$work/best.$db.$name"
    done
  done
done
echo
printf '%-6s %-24s %10s %8s %8s\n' db build seconds TCUPS ratio
for db in sp u; do
  base=$(cat "$work/best.$db.$(name_of "${builds[0]}")")
  cells=$(cat "$work/cells.$db")
  for b in "${builds[@]}"; do
    t=$(cat "$work/best.$db.$(name_of "$b")")
    awk -v db="$db" -v n="$(name_of "$b")" -v t="$t" -v b="$base" -v c="$cells" \
      'BEGIN { printf "%-6s %-24s %10.4f %8.3f %8.3f\n", db, n, t, c / t / 1e12, b / t }'
  done
done
