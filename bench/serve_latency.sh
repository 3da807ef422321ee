#!/usr/bin/env bash
# One query answered by a resident database: `swsearch serve` holds the
# Swiss-Prot-like database in memory and on the GPU, and the 375-residue
# benchmark query (the 4th of queries20) is searched with
# `swsearch search --server`, end to end (the client process included), a
# number of times; then all 20 queries, one client after another and 4 at a
# time. Every answer must equal a direct search's output.
# A database of SEQS sequences (third argument) keeps trial runs short.
# Usage: bench/serve_latency.sh BUILD [RUNS] [SEQS]
. "$(dirname "$0")/lib.sh"
runs=${2:-20}
seqs=${3:+--seqs $3}
server=
trap '[ -n "$server" ] && kill $server 2>/dev/null; rm -rf "$bench_work"' EXIT
database sp protein $seqs --plant "$queries"
record "$queries" 4 > "$work/q375.fa"
for i in $(seq 20); do record "$queries" "$i" > "$work/q$i.fa"; done

t0=$(now)
"$swsearch" search -q "$work/q375.fa" -d "$work/sp" -o "$work/direct.out"
direct=$(since "$t0")

"$swsearch" serve -d "$work/sp" --socket "$work/s" -v 2> "$work/serve.log" &
server=$!
for i in $(seq 600); do grep -q "ready in" "$work/serve.log" && break; sleep 0.1; done
grep "ready in" "$work/serve.log"

: > "$work/times"
for r in $(seq "$runs"); do
  a=$(date +%s%N)
  "$swsearch" search -q "$work/q375.fa" --server "$work/s" -o "$work/served.out"
  b=$(date +%s%N)
  echo $(( (b - a) / 1000 )) >> "$work/times"
  cmp -s "$work/direct.out" "$work/served.out" || { echo "SERVED OUTPUT DIFFERS"; exit 1; }
done
sort -n "$work/times" | awk -v direct="$direct" -v hits="$(wc -l < "$work/direct.out")" '
  { v[NR] = $1 / 1000 }
  END { printf "one 375-residue query, %d hits, %d runs: median %.1f ms, min %.1f ms, max %.1f ms end to end (direct search with the database load: %s s)\n",
        hits, NR, v[int((NR + 1) / 2)], v[1], v[NR], direct }'
"$swsearch" search -q "$work/q375.fa" --server "$work/s" -v -o "$work/served.out" 2>&1 | tail -2

# The 20 queries one at a time: each client's time, and 4 clients at once.
a=$(date +%s%N)
for i in $(seq 20); do "$swsearch" search -q "$work/q$i.fa" --server "$work/s" -o "$work/r$i.out"; done
b=$(date +%s%N)
echo "20 queries, one client after another: $(( (b - a) / 1000000 )) ms"
a=$(date +%s%N)
for k in 0 1 2 3; do
  ( for i in $(seq $((k * 5 + 1)) $((k * 5 + 5))); do "$swsearch" search -q "$work/q$i.fa" --server "$work/s" -o "$work/p$i.out"; done ) &
done
wait $(jobs -p | grep -v "^$server$") 2>/dev/null || true
b=$(date +%s%N)
echo "20 queries, 4 clients at once: $(( (b - a) / 1000000 )) ms"
for i in $(seq 20); do cmp -s "$work/r$i.out" "$work/p$i.out" || { echo "CONCURRENT ANSWER $i DIFFERS"; exit 1; }; done
"$swsearch" search -q "$work/q20.fa" -d "$work/sp" -o "$work/direct20.out"
cmp -s "$work/direct20.out" "$work/r20.out" && echo "answers equal direct searches" || { echo "QUERY 20 DIFFERS"; exit 1; }
kill -TERM $server; wait $server; server=
tail -1 "$work/serve.log"
