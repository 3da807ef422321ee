#!/bin/sh
# swsearch serve and search --server: the same output as a direct search in
# every format, from a file or standard input; concurrent clients; requests
# that are garbage, cut short or abandoned, after which the server still
# answers; no client holding up another (one that sends nothing, one that
# sends a byte at a time, one that stops reading its answer, 70 idle
# connections, one that leaves while queued, more requests than the queue
# takes); matrices by name or sent by the client, never a path the server
# opens; PSSM queries and alignments, whose text the client sends, alone and
# sharing scans with FASTA requests; clear errors; the socket path never
# destroyed; an empty socket name refused; SIGTERM and SIGHUP end it and
# remove the socket. The server runs
# on the CPU here (GPU machines run the GPU test suites), with a client
# timeout of 3 s.
# Usage: test_serve_cli.sh SWSEARCH MAKEDB WIRE_POKE DATA_DIR
set -u
swsearch=$1 makedb=$2 poke=$3 data=$4
tmp=$(mktemp -d)
export SWSEARCH_CACHE_DIR="$tmp/cache"
server_pid=
trap '[ -n "$server_pid" ] && kill -9 $server_pid 2>/dev/null; rm -rf "$tmp"' EXIT
. "$(dirname "$0")/../support/cli_checks.sh"

"$makedb" -q "$data/scope40_every10th.fa.zst" "$tmp/db" || { echo "FAIL: makedb"; exit 1; }
# Queries: 8 of the benchmark queries, and all 20 for the abandoned request.
awk '/^>/ { n++ } n <= 8' "$data/queries20.fasta" > "$tmp/q.fa"
cp "$data/queries20.fasta" "$tmp/qall.fa"
sock="$tmp/s.sock"
: > "$tmp/server.log"

# Usage errors.
expect 2 "serve without options" -- "$swsearch" serve
err_has "serve needs -d DB and --socket PATH"
expect 2 "serve --gpus 0,x" -- "$swsearch" serve -d "$tmp/db" --socket "$sock" --gpus 0,x
err_has "'x' in '0,x' is not a GPU number"
expect 2 "serve --gpu and --gpus" -- "$swsearch" serve -d "$tmp/db" --socket "$sock" --gpu 1 --gpus 2
err_has "both choose GPUs"
expect 2 "--server with -d" -- "$swsearch" search --server "$sock" -q "$tmp/q.fa" -d "$tmp/db"
err_has "no -d"
expect 1 "no server" -- "$swsearch" search --server "$sock" -q "$tmp/q.fa" -o "$tmp/none.tsv"
err_has "cannot reach a server at $sock"
absent "$tmp/none.tsv"
# A file that is not a socket is never replaced.
echo precious > "$tmp/file"
expect 1 "socket path is a file" -- "$swsearch" serve -d "$tmp/db" --socket "$tmp/file" --device cpu
err_has "exists and is not a socket"
[ "$(cat "$tmp/file")" = precious ] && pass || fail "the file at the socket path changed"

# Starts a server and waits for its "ready" line (a stale socket file may
# be there before it listens).
start_server() {
  before=$(grep -c "ready in" "$tmp/server.log" 2> /dev/null || true)
  "$swsearch" serve -d "$tmp/db" --socket "$sock" --device cpu -t 2 -v --client-timeout 3 "$@" 2>> "$tmp/server.log" &
  server_pid=$!
  i=0
  while [ "$(grep -c "ready in" "$tmp/server.log" 2> /dev/null || true)" = "${before:-0}" ] && [ $i -lt 100 ]; do
    sleep 0.1; i=$((i + 1))
  done
  [ -S "$sock" ] && pass || fail "the server did not come up"
}
start_server
expect 1 "a second server on the socket" -- "$swsearch" serve -d "$tmp/db" --socket "$sock" --device cpu
err_has "a server already listens on"

# Exactly a direct search's output, format by format.
for f in 6 0 7 json tsv "6 qseqid sseqid score evalue bitscore qstart qend sstart send qseq sseq cigar"; do
  "$swsearch" search -q "$tmp/q.fa" -d "$tmp/db" --device cpu --outfmt "$f" -e 100 -o "$tmp/direct.out"
  "$swsearch" search -q "$tmp/q.fa" --server "$sock" --outfmt "$f" -e 100 -o "$tmp/served.out" 2> "$tmp/err"
  cmp -s "$tmp/direct.out" "$tmp/served.out" && pass || fail "--outfmt '$f': served output differs"
done
# Fitted statistics, --top, scoring, standard input and standard output.
"$swsearch" search -q "$tmp/q.fa" -d "$tmp/db" --device cpu --stats fit --top 7 --gap-open 10 \
  --matrix BLOSUM50 > "$tmp/direct.out"
"$swsearch" search -q - --server "$sock" --stats fit --top 7 --gap-open 10 --matrix BLOSUM50 \
  < "$tmp/q.fa" > "$tmp/served.out"
cmp -s "$tmp/direct.out" "$tmp/served.out" && pass || fail "fit, stdin: served output differs"

# PSSM queries: the client sends the file's text, the server parses it as
# a direct search parses the file; the same output, format by format, for
# PSI-BLAST's PSSM, a profile swsearch saved, alignments in each format (A3M
# told by its name) and standard input.
pssm=$data/pssm_sh3_d1ckaa.pssm
"$swsearch" search --msa "$data/pssm_sh3.a3m" -d "$tmp/db" --device cpu --iterations 1 \
  --save-pssm "$tmp/saved.pssm" -o /dev/null
head -1 "$tmp/saved.pssm" | grep -q "^swsearch-pssm" && pass || fail "no saved profile"
for query in "--pssm $pssm" "--pssm $tmp/saved.pssm" "--msa $data/pssm_sh3.a3m" "--msa $data/pssm_sh3.sto" \
  "--msa $data/pssm_sh3.afa"; do
  for f in 6 7 0 json; do
    # shellcheck disable=SC2086
    "$swsearch" search $query -d "$tmp/db" --device cpu --outfmt "$f" -e 100 -o "$tmp/direct.out"
    # shellcheck disable=SC2086
    "$swsearch" search $query --server "$sock" --outfmt "$f" -e 100 -o "$tmp/served.out" 2> "$tmp/err"
    cmp -s "$tmp/direct.out" "$tmp/served.out" && [ "$(wc -l < "$tmp/served.out")" -gt 5 ] && pass ||
      { cat "$tmp/err"; fail "'$query', --outfmt '$f': served output differs, or has next to no hits"; }
  done
done
"$swsearch" search --pssm - -d "$tmp/db" --device cpu --outfmt 7 < "$pssm" > "$tmp/direct.out"
"$swsearch" search --pssm - --server "$sock" --outfmt 7 < "$pssm" > "$tmp/served.out"
cmp -s "$tmp/direct.out" "$tmp/served.out" && pass || fail "--pssm -: served output differs"
# A profile made for another matrix is refused as a direct search refuses it.
expect 1 "a PSSM of another matrix" -- "$swsearch" search --pssm "$tmp/saved.pssm" --server "$sock" --matrix BLOSUM45
err_has "saved.pssm: a PSSM made for BLOSUM62; the search uses BLOSUM45"
# An alignment whose query is longer than the server's bound ends its own
# request before its PSSM is built.
{ echo ">endless"; head -c 4000001 /dev/zero | tr '\0' 'A'; echo; } > "$tmp/endless.afa"
expect 1 "an alignment beyond the server's bound" -- "$swsearch" search --msa "$tmp/endless.afa" \
  --server "$sock" -o "$tmp/endless.out"
err_has "endless.afa: the query (the first row) has 4000001 residues, more than 4000000"
absent "$tmp/endless.out"
rm -f "$tmp/endless.afa"
# A malformed PSSM: the client is told the line and the problem, and the
# server answers the next request.
printf 'swsearch-pssm 1\nlabel x\nbroken\n' > "$tmp/bad.pssm"
expect 1 "a malformed PSSM" -- "$swsearch" search --pssm "$tmp/bad.pssm" --server "$sock" -o "$tmp/bad.out"
err_has "bad.pssm:3: expected 'sequences N'"
absent "$tmp/bad.out"
head -5 "$pssm" > "$tmp/cut.pssm"
sed -n 6p "$pssm" | cut -c1-40 >> "$tmp/cut.pssm"
expect 1 "a PSI-BLAST PSSM cut in a line" -- "$swsearch" search --pssm "$tmp/cut.pssm" --server "$sock"
err_has "cut.pssm:6:"
printf '>q\nMKTAYIAKQR\n>r\nMKTAY\n' > "$tmp/ragged.afa"
expect 1 "an alignment of rows of two lengths" -- "$swsearch" search --msa "$tmp/ragged.afa" --server "$sock"
err_has "ragged.afa:3: row 'r' has 5 columns, the first row has 10"
"$swsearch" search --pssm "$pssm" -d "$tmp/db" --device cpu -o "$tmp/direct_pssm.out"
"$swsearch" search --pssm "$pssm" --server "$sock" -o "$tmp/after.out"
cmp -s "$tmp/direct_pssm.out" "$tmp/after.out" && pass || fail "after a malformed PSSM: output differs"
kill -0 "$server_pid" 2> /dev/null && pass || fail "the server died"
# A request never names a PSSM's path for the server to open.
expect 0 "a request naming a PSSM path" -- "$poke" request "$sock" "$tmp/q.fa" --pssm /etc/passwd
out_has "the server rejected its options"
grep -q "root:" "$tmp/out" && fail "the server showed a file's contents" || pass
expect 2 "--query-kind outside a request" -- "$swsearch" search -q "$tmp/q.fa" --server "$sock" --query-kind pssm
err_has "unknown option '--query-kind'"

"$swsearch" search -q "$tmp/q.fa" -d "$tmp/db" --device cpu > "$tmp/direct.out"

# Concurrent clients queue; each gets its own answer.
clients=
for i in 1 2 3 4 5; do
  "$swsearch" search -q "$tmp/q.fa" --server "$sock" -o "$tmp/c$i.out" &
  clients="$clients $!"
done
for p in $clients; do wait "$p"; done
for i in 1 2 3 4 5; do
  cmp -s "$tmp/direct.out" "$tmp/c$i.out" && pass || fail "concurrent client $i: output differs"
done

# Bad input gets the usual error, naming the client's file and line; no -o.
printf '>ok\nMKTAYIAKQR\n>bad\nMKT#AYI\n' > "$tmp/bad.fa"
expect 1 "bad residue" -- "$swsearch" search -q "$tmp/bad.fa" --server "$sock" -o "$tmp/bad.out"
err_has "bad.fa:4: invalid residue '#'"
absent "$tmp/bad.out"
expect 1 "unknown matrix" -- "$swsearch" search -q "$tmp/q.fa" --server "$sock" --matrix NOSUCH -o "$tmp/bad.out"
absent "$tmp/bad.out"
expect 1 "--stats table for a file matrix" -- "$swsearch" search -q "$tmp/q.fa" --server "$sock" \
  --gap-open 3 --stats table -o "$tmp/bad.out"
err_has "NCBI publishes no statistics"
absent "$tmp/bad.out"

# Misbehaving clients end their own request only.
expect 0 "garbage" -- "$poke" garbage "$sock"
out_has "status 2: bad request: not a swsearch request"
expect 0 "request cut short" -- "$poke" cut "$sock"
expect 0 "silent client" -- "$poke" silent "$sock"
expect 0 "client that leaves" -- "$poke" vanish "$sock" "$tmp/qall.fa"
# One endless query ends its own request at the server's bound.
{ echo ">endless"; head -c 4000001 /dev/zero | tr '\0' 'A'; echo; } > "$tmp/endless.fa"
expect 1 "a query beyond the server's bound" -- "$swsearch" search -q "$tmp/endless.fa" --server "$sock" \
  -o "$tmp/endless.out"
err_has "sequence endless is longer than 4000000 residues"
absent "$tmp/endless.out"
rm -f "$tmp/endless.fa"
"$swsearch" search -q "$tmp/q.fa" --server "$sock" -o "$tmp/after.out"
cmp -s "$tmp/direct.out" "$tmp/after.out" && pass || fail "after bad clients: output differs"
kill -0 "$server_pid" 2> /dev/null && pass || fail "the server died"

# No client holds up another. `answered_within LIMIT NAME`: a client of
# the 8 queries, its output equal to the direct search's, within LIMIT
# seconds.
answered_within() {
  t0=$(date +%s%N)
  timeout 60 "$swsearch" search -q "$tmp/q.fa" --server "$sock" -o "$tmp/$2.out" 2> "$tmp/err"
  t=$(( ($(date +%s%N) - t0) / 1000000 ))
  cmp -s "$tmp/direct.out" "$tmp/$2.out" && pass || { cat "$tmp/err"; fail "$2: output differs"; }
  [ "$t" -le $(($1 * 1000)) ] && pass || fail "$2: answered in $t ms, beyond $1 s"
}
# One connection that sends nothing, and 70 more (the listen queue holds
# 64): the next client is answered at once.
"$poke" idle "$sock" 8 & idle=$!
"$poke" hold "$sock" 70 8 & hold=$!
sleep 0.5
answered_within 2 "beside idle connections"
# One that sends a byte a second is cut off at the client timeout.
expect 0 "a client sending a byte a second is cut off" -- "$poke" drip "$sock" 10
# One that stops reading its answer (pairwise alignments, more than the
# socket holds) holds nothing up beyond its own search.
awk '/^>/ { n++ } n <= 3' "$tmp/q.fa" > "$tmp/q3.fa"
"$poke" stall "$sock" 60 "$tmp/q3.fa" --outfmt 0 -e 1000 & stall=$!
sleep 0.3
answered_within 20 "behind a client that stopped reading"
kill "$idle" "$hold" "$stall" 2> /dev/null; wait "$idle" "$hold" "$stall" 2> /dev/null
# One that leaves while its request waits is not searched (the only
# request of 2 queries).
awk '/^>/ { n++ } n <= 2' "$tmp/q.fa" > "$tmp/q2.fa"
"$swsearch" search -q "$tmp/qall.fa" --server "$sock" --outfmt 0 -e 1000 -o /dev/null & slow=$!
sleep 0.3
"$poke" vanish "$sock" "$tmp/q2.fa"
wait "$slow"
answered_within 20 "after a client that left while queued"
grep -q "serve: 2 queries" "$tmp/server.log" && fail "the request of a client that left was searched" || pass
# More requests than the queue takes: the rest are told the server is busy,
# the others get their answers.
"$swsearch" search -q "$tmp/qall.fa" --server "$sock" --outfmt 0 -e 1000 -o /dev/null & slow=$!
sleep 0.3
busy_clients=
for i in $(seq 40); do
  "$swsearch" search -q "$tmp/q3.fa" --server "$sock" -o "$tmp/b$i.out" 2> "$tmp/b$i.err" &
  busy_clients="$busy_clients $!"
done
for p in $busy_clients; do wait "$p"; done
wait "$slow"
"$swsearch" search -q "$tmp/q3.fa" -d "$tmp/db" --device cpu -o "$tmp/direct3.out"
busy=0 answered=0
for i in $(seq 40); do
  if grep -q "the server is busy" "$tmp/b$i.err"; then busy=$((busy + 1))
  elif cmp -s "$tmp/direct3.out" "$tmp/b$i.out"; then answered=$((answered + 1))
  else echo "client $i: $(cat "$tmp/b$i.err")"; fi
done
[ $busy -gt 0 ] && [ $((busy + answered)) -eq 40 ] && pass ||
  fail "40 clients behind a long search: $busy told busy, $answered answered, $((40 - busy - answered)) neither"
# Matrices: a request that names a path is refused without the server
# opening it; a client's matrix file travels as its text.
expect 0 "a request naming a matrix path" -- "$poke" request "$sock" "$tmp/q3.fa" --matrix /etc/passwd
out_has "a matrix is given by name here, not as a file"
grep -q "root:" "$tmp/out" && fail "the server showed a file's contents" || pass
sed 's/^A  4/A  5/' "$(dirname "$0")/../../matrices/BLOSUM62" > "$tmp/mine.mat"
"$swsearch" search -q "$tmp/q.fa" -d "$tmp/db" --device cpu --matrix "$tmp/mine.mat" -o "$tmp/direct_m.out"
"$swsearch" search -q "$tmp/q.fa" --server "$sock" --matrix "$tmp/mine.mat" -o "$tmp/served_m.out"
cmp -s "$tmp/direct_m.out" "$tmp/served_m.out" && pass || fail "a client's matrix file: served output differs"
cmp -s "$tmp/direct.out" "$tmp/direct_m.out" && fail "the client's matrix changed nothing" || pass
kill -0 "$server_pid" 2> /dev/null && pass || fail "the server died"

# Requests under way share a scan, each answered as a direct search answers
# it: four that come while a long one is scanned, with their own formats,
# tops and E-values, share the next scan.
"$swsearch" search -q "$tmp/qall.fa" --server "$sock" --outfmt 0 -e 1000 -o /dev/null & slow=$!
sleep 0.3
set -- "--outfmt 6" "--outfmt 7 --top 5" "--outfmt json -e 1e-3" "--outfmt 0 --top 3 -e 1"
shared= i=0
for o in "$@"; do
  i=$((i + 1))
  # shellcheck disable=SC2086
  "$swsearch" search -q "$tmp/q.fa" --server "$sock" $o -o "$tmp/shared$i.out" & shared="$shared $!"
done
for p in $shared; do wait "$p"; done
wait "$slow"
i=0
for o in "$@"; do
  i=$((i + 1))
  # shellcheck disable=SC2086
  "$swsearch" search -q "$tmp/q.fa" -d "$tmp/db" --device cpu $o -o "$tmp/direct_shared.out"
  cmp -s "$tmp/direct_shared.out" "$tmp/shared$i.out" && pass || fail "shared scan, '$o': output differs"
done
set --
grep -q "scan of 32 queries for 4 requests" "$tmp/server.log" && pass ||
  { grep "scan of" "$tmp/server.log" | tail -5; fail "the four requests did not share a scan"; }
# A PSSM request, an alignment's and a FASTA request share a scan too, each
# answered as its direct search answers it.
"$swsearch" search -q "$tmp/qall.fa" --server "$sock" --outfmt 0 -e 1000 -o /dev/null & slow=$!
sleep 0.3
set -- "--pssm $pssm --outfmt 7" "--msa $data/pssm_sh3.sto --outfmt 0 -e 1" "-q $tmp/q.fa --outfmt 7 --top 5"
shared= i=0
for o in "$@"; do
  i=$((i + 1))
  # shellcheck disable=SC2086
  "$swsearch" search $o --server "$sock" -o "$tmp/mixed$i.out" & shared="$shared $!"
done
for p in $shared; do wait "$p"; done
wait "$slow"
i=0
for o in "$@"; do
  i=$((i + 1))
  # shellcheck disable=SC2086
  "$swsearch" search $o -d "$tmp/db" --device cpu -o "$tmp/direct_mixed.out"
  cmp -s "$tmp/direct_mixed.out" "$tmp/mixed$i.out" && pass || fail "shared scan, '$o': output differs"
done
set --
grep -q "scan of 10 queries for 3 requests" "$tmp/server.log" && pass ||
  { grep "scan of" "$tmp/server.log" | tail -5; fail "the PSSM, alignment and FASTA requests did not share a scan"; }
# A client that goes away cancels its search: the scan under way stops
# within a block of database sequences, and the next client is answered
# long before the whole scan would have ended.
for i in 1 2 3; do cat "$tmp/qall.fa"; done > "$tmp/q60.fa"
t0=$(date +%s%N)
"$swsearch" search -q "$tmp/q60.fa" --server "$sock" -o /dev/null
full=$(( ($(date +%s%N) - t0) / 1000000 ))
"$swsearch" search -q "$tmp/q60.fa" --server "$sock" -o /dev/null & doomed=$!
sleep 0.5
kill -9 "$doomed"; wait "$doomed" 2> /dev/null
t0=$(date +%s%N)
"$swsearch" search -q "$tmp/q.fa" --server "$sock" -o "$tmp/after_cancel.out"
t=$(( ($(date +%s%N) - t0) / 1000000 ))
cmp -s "$tmp/direct.out" "$tmp/after_cancel.out" && pass || fail "after a cancelled search: output differs"
[ "$t" -le $((full / 2)) ] && pass ||
  fail "after a client left mid-scan: answered in $t ms; the whole scan takes $full ms"
grep -q "serve: 0 queries, 0 hits in .*: the client went away" "$tmp/server.log" && pass ||
  fail "the search of a client that left was not cancelled"

# SIGTERM: exit 0, socket removed.
kill -TERM "$server_pid"
wait "$server_pid"; st=$?
server_pid=
[ $st -eq 0 ] && pass || fail "serve exited $st after SIGTERM"
absent "$sock"
grep -q "serve: stopped" "$tmp/server.log" && pass || { fail "no stop line"; cat "$tmp/server.log"; }

# SIGHUP as SIGTERM.
start_server
kill -HUP "$server_pid"
wait "$server_pid"; st=$?
server_pid=
[ $st -eq 0 ] && pass || fail "serve exited $st after SIGHUP"
absent "$sock"
# An empty socket name would be an abstract socket, open to every user.
expect 2 "an empty socket name" -- "$swsearch" serve -d "$tmp/db" --socket '' --device cpu
err_has "a socket path has 1 to"
expect 2 "an empty server name" -- "$swsearch" search --server '' -q "$tmp/q.fa"
err_has "a socket path has 1 to"

# A socket left by a killed server is replaced.
start_server
kill -9 "$server_pid"; wait "$server_pid" 2> /dev/null
server_pid=
[ -S "$sock" ] && pass || fail "the killed server's socket is gone"
start_server --scan-queries 2
"$swsearch" search -q "$tmp/q.fa" --server "$sock" -o "$tmp/again.out"
cmp -s "$tmp/direct.out" "$tmp/again.out" && pass || fail "after a stale socket: output differs"
# Fairness: a request of one query behind one of 60 (30 scans of 2 queries)
# is answered within two scans, the long one still under way (the log's
# lines from here on: earlier PSSM requests were of one query too).
logged=$(wc -l < "$tmp/server.log")
"$swsearch" search -q "$tmp/q60.fa" --server "$sock" -o /dev/null & long=$!
sleep 0.5
awk '/^>/ { n++ } n <= 1' "$tmp/q.fa" > "$tmp/q1.fa"
"$swsearch" search -q "$tmp/q1.fa" --server "$sock" -o "$tmp/one.out"
kill -0 "$long" 2> /dev/null && pass || fail "the request of 60 queries ended before the one of 1"
"$swsearch" search -q "$tmp/q1.fa" -d "$tmp/db" --device cpu -o "$tmp/direct_one.out"
cmp -s "$tmp/direct_one.out" "$tmp/one.out" && pass || fail "the request of one query: output differs"
tail -n +$((logged + 1)) "$tmp/server.log" | grep -q "serve: 1 queries, .* within [12] scans\{0,1\}$" && pass ||
  { grep "serve: 1 queries" "$tmp/server.log"; fail "the request of one query waited more than two scans"; }
wait "$long"
kill -TERM "$server_pid"; wait "$server_pid"; server_pid=

cli_checks_done
