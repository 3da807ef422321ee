#!/bin/sh
# makedb runs on one prefix at the same time, and readers during rebuilds:
# one writer at a time (the second fails at once, saying why), and a reader
# sees the old database or the new one, never a mix and never an error.
# Usage: test_makedb_concurrency.sh MAKEDB SWSEARCH DATA_DIR
set -u
LC_ALL=C
export LC_ALL
makedb=$1 swsearch=$2 data=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

a="$data/fasta_small.fa" a_seqs=3
b="$data/queries20.fasta" b_seqs=20
mkdir "$tmp/d"
db="$tmp/d/db"
lock_message="another makedb is writing this database"

# The number of sequences of the database at $db, or "unusable: why".
db_state() {
  if "$swsearch" info -d "$db" > "$tmp/info" 2> "$tmp/info.err"; then
    sed -n 's/^sequences *//p' "$tmp/info"
  else
    echo "unusable: $(cat "$tmp/info.err")"
  fi
}

expect_a_or_b() {
  state=$(db_state)
  [ "$state" = "$a_seqs" ] || [ "$state" = "$b_seqs" ] || fail "$1: the database is $state"
}

expect_three_files() {
  n=$(ls -A "$tmp/d" | wc -l)
  [ "$n" -eq 3 ] || fail "$1: expected the three database files, found: $(ls -A "$tmp/d" | tr '\n' ' ')"
}

# A build that holds the lock (its input is a FIFO that stays open) makes a
# second build of the same prefix fail at once, naming the prefix.
mkfifo "$tmp/fifo"
for round in 1 2 3; do
  "$makedb" -q "$tmp/fifo" "$db" 2> "$tmp/err1" &
  pid=$!
  exec 3> "$tmp/fifo"
  printf '>held\nACDEFGHIKLMNPQ\n' >&3
  i=0
  while [ ! -e "$db.swlock" ] && [ "$i" -lt 100 ]; do
    sleep 0.05
    i=$((i + 1))
  done
  "$makedb" -q "$b" "$db" 2> "$tmp/err2"
  status=$?
  [ "$status" -eq 1 ] || fail "locked prefix, round $round: the second build exited $status, expected 1"
  grep -qF "makedb: $db: $lock_message" "$tmp/err2" ||
    fail "locked prefix, round $round: message lacks the prefix and the reason: $(cat "$tmp/err2")"
  exec 3>&-
  wait "$pid" || fail "locked prefix, round $round: the first build failed: $(cat "$tmp/err1")"
  [ "$(db_state)" = 1 ] || fail "locked prefix, round $round: the first build's database is $(db_state)"
  expect_three_files "locked prefix, round $round"
done

# Two builds started together, 20 times: each either builds or fails with
# the lock message; the database is complete and the directory holds its
# three files.
round=0
while [ "$round" -lt 20 ]; do
  round=$((round + 1))
  "$makedb" -q "$a" "$db" 2> "$tmp/err1" &
  pid1=$!
  "$makedb" -q "$b" "$db" 2> "$tmp/err2" &
  pid2=$!
  wait "$pid1"
  s1=$?
  wait "$pid2"
  s2=$?
  [ "$s1" -eq 0 ] || [ "$s2" -eq 0 ] || fail "two builds, round $round: both failed"
  for k in 1 2; do
    eval "s=\$s$k"
    if [ "$s" -ne 0 ] && ! grep -qF "$lock_message" "$tmp/err$k"; then
      fail "two builds, round $round: build $k failed otherwise: $(cat "$tmp/err$k")"
    fi
  done
  expect_a_or_b "two builds, round $round"
  expect_three_files "two builds, round $round"
done

# Readers during rebuilds that alternate between A and B for about 5 s:
# every reader succeeds and sees A or B.
"$makedb" -q "$a" "$db" || fail "first build failed"
(
  while [ ! -e "$tmp/stop" ]; do
    "$makedb" -q "$b" "$db" 2>> "$tmp/writer.err" || echo failed >> "$tmp/writer.failed"
    "$makedb" -q "$a" "$db" 2>> "$tmp/writer.err" || echo failed >> "$tmp/writer.failed"
  done
) &
writer=$!
end=$(($(date +%s) + 5))
reads=0 bad=0
while [ "$(date +%s)" -lt "$end" ]; do
  state=$(db_state)
  reads=$((reads + 1))
  if [ "$state" != "$a_seqs" ] && [ "$state" != "$b_seqs" ]; then
    bad=$((bad + 1))
    [ "$bad" -le 3 ] && fail "reader during rebuilds: the database is $state"
  fi
  if ! "$swsearch" verify -d "$db" > /dev/null 2> "$tmp/verify.err"; then
    bad=$((bad + 1))
    [ "$bad" -le 3 ] && fail "verify during rebuilds: $(cat "$tmp/verify.err")"
  fi
done
touch "$tmp/stop"
wait "$writer"
[ ! -e "$tmp/writer.failed" ] || fail "a rebuild failed: $(cat "$tmp/writer.err")"
[ "$bad" -eq 0 ] || fail "$bad of $reads reads during rebuilds failed"
echo "$reads reads during rebuilds"
expect_three_files "after the rebuilds"

if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all concurrency checks passed"
