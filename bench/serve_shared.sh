#!/usr/bin/env bash
# Clients sharing the resident server's scans: `swsearch serve` holds the
# Swiss-Prot-like database, and the 20 benchmark queries are sent
# (1) by one client as one request of 160 queries (the 20, 8 times),
# (2) by 8 clients at once, 20 queries each, and
# (3) as one query while a client of 160 queries is under way (fairness:
#     answered within two scans).
# Every answer must equal a direct search's output. The ratio of (2) to
# (1) is what sharing scans costs; without it each client waited for the
# scans of those before it.
# A database of SEQS sequences (second argument) keeps trial runs short;
# ROUNDS (first argument, default 3) repeats (1) and (2), median reported.
# SCAN_QUERIES, when set, is the server's --scan-queries.
# Usage: bench/serve_shared.sh BUILD [ROUNDS] [SEQS]
. "$(dirname "$0")/lib.sh"
rounds=${2:-3}
seqs=${3:+--seqs $3}
server=
trap '[ -n "$server" ] && kill $server 2>/dev/null; rm -rf "$bench_work"' EXIT
database sp protein $seqs --plant "$queries"
for i in $(seq 8); do cat "$queries"; done > "$work/q160.fa"
record "$queries" 4 > "$work/q375.fa"

"$swsearch" search -q "$queries" -d "$work/sp" -o "$work/direct20.out"
"$swsearch" search -q "$work/q375.fa" -d "$work/sp" -o "$work/direct375.out"

"$swsearch" serve -d "$work/sp" --socket "$work/s" -v ${SCAN_QUERIES:+--scan-queries $SCAN_QUERIES} \
  2> "$work/serve.log" &
server=$!
for i in $(seq 600); do grep -q "ready in" "$work/serve.log" && break; sleep 0.1; done
grep "ready in" "$work/serve.log"
"$swsearch" search -q "$queries" --server "$work/s" -o "$work/warm.out"

: > "$work/one" ; : > "$work/eight"
for r in $(seq "$rounds"); do
  a=$(now)
  "$swsearch" search -q "$work/q160.fa" --server "$work/s" -o "$work/r160.out"
  since "$a" >> "$work/one"
  a=$(now)
  pids=
  for k in $(seq 8); do
    "$swsearch" search -q "$queries" --server "$work/s" -o "$work/c$k.out" & pids="$pids $!"
  done
  for p in $pids; do wait "$p"; done
  since "$a" >> "$work/eight"
  for k in $(seq 8); do
    cmp -s "$work/direct20.out" "$work/c$k.out" || { echo "CLIENT $k: ANSWER DIFFERS"; exit 1; }
  done
done
[ "$(wc -l < "$work/r160.out")" -eq $((8 * $(wc -l < "$work/direct20.out"))) ] ||
  { echo "THE 160-QUERY ANSWER HAS THE WRONG LENGTH"; exit 1; }
one=$(median "$work/one") eight=$(median "$work/eight")
echo "one client, 160 queries: median $one s of $rounds ($(tr '\n' ' ' < "$work/one"))"
echo "8 clients x 20 queries at once: median $eight s of $rounds ($(tr '\n' ' ' < "$work/eight"))"
awk -v a="$eight" -v b="$one" 'BEGIN { printf "8 clients / one client of 160: %.3fx\n", a / b }'
grep "scan of" "$work/serve.log" | tail -4

# Fairness: one query behind a client of 160 queries (one scan of 160).
"$swsearch" search -q "$work/q160.fa" --server "$work/s" -o /dev/null & long=$!
sleep 2
a=$(now)
"$swsearch" search -q "$work/q375.fa" --server "$work/s" -o "$work/fair.out"
fair=$(since "$a")
kill -0 "$long" 2> /dev/null && still="the long client still under way" || still="the long client had ended"
wait "$long"
cmp -s "$work/direct375.out" "$work/fair.out" || { echo "FAIRNESS ANSWER DIFFERS"; exit 1; }
echo "one query behind a client of 160: answered in $fair s ($still)"
grep "serve: 1 queries" "$work/serve.log" | tail -1
kill -TERM $server; wait $server; server=
tail -1 "$work/serve.log"
