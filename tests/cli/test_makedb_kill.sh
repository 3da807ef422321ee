#!/bin/sh
# A killed makedb leaves the database it replaces or the new one, never a
# broken mix, and the next run removes what the killed one left. A build of
# database B over database A is killed (SIGKILL, through the preloaded shim)
# just before its 1st, 2nd, ... file system step until a run completes; after
# each kill the prefix must hold A or B, complete, and a clean build must
# leave exactly the three database files. Also: SIGTERM during a build
# leaves no file behind.
# Usage: test_makedb_kill.sh MAKEDB SWSEARCH KILL_SHIM DATA_DIR
set -u
LC_ALL=C
export LC_ALL
makedb=$1 swsearch=$2 shim=$3 data=$4
[ -r "$shim" ] || { echo "no kill shim: skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

a="$data/fasta_small.fa" a_seqs=3
b="$data/queries20.fasta" b_seqs=20
db="$tmp/d/db"
mkdir "$tmp/d"

# The number of sequences of the database at $db, or "unusable".
db_state() {
  if "$swsearch" verify -d "$db" > /dev/null 2> "$tmp/verify.err" &&
    "$swsearch" info -d "$db" > "$tmp/info" 2> "$tmp/info.err"; then
    sed -n 's/^sequences *//p' "$tmp/info"
  else
    echo unusable
  fi
}

# Exactly db.swi and one data file of each kind, of one build.
expect_three_files() {
  files=$(ls -A "$tmp/d" | tr '\n' ' ')
  set -- $files
  if [ $# -ne 3 ]; then
    fail "$what: expected the three database files, found: $files"
    return
  fi
  case "$files" in
  "db."[0-9a-f]*".swh db."[0-9a-f]*".swr db.swi ")
    id_h=${1#db.} id_r=${2#db.}
    [ "${id_h%.swh}" = "${id_r%.swr}" ] && [ ${#id_h} -eq 20 ] ||
      fail "$what: data files of two builds: $files" ;;
  *) fail "$what: unexpected files: $files" ;;
  esac
}

# kill_at_every_step LABEL [ENV...]: the loop described above.
kill_at_every_step() {
  label=$1
  shift
  "$makedb" -q "$a" "$db" || { fail "$label: first build failed"; return; }
  n=1 saw_a=0 saw_b=0
  while [ "$n" -le 200 ]; do
    env "$@" SW_KILL_AT=$n LD_PRELOAD="$shim" "$makedb" -q "$b" "$db" 2> "$tmp/err"
    status=$?
    state=$(db_state)
    what="$label, killed at step $n"
    case "$state" in
    "$a_seqs") saw_a=$((saw_a + 1)) ;;
    "$b_seqs") saw_b=$((saw_b + 1)) ;;
    *)
      fail "$what: the database is $state: $(cat "$tmp/verify.err" "$tmp/info.err")"
      ;;
    esac
    if [ "$status" -eq 0 ]; then
      [ "$state" = "$b_seqs" ] || fail "$label: a completed build left $state sequences"
      expect_three_files
      break
    fi
    # A clean run removes what the killed one left and brings back A.
    what="$label, clean build after a kill at step $n"
    "$makedb" -q "$a" "$db" 2> "$tmp/err" || fail "$what: $(cat "$tmp/err")"
    expect_three_files
    n=$((n + 1))
  done
  [ "$n" -le 200 ] || fail "$label: no run completed in 200 steps"
  [ "$saw_a" -gt 0 ] && [ "$saw_b" -gt 1 ] ||
    fail "$label: kills left A $saw_a and B $saw_b times; expected both"
  echo "$label: killed at $((n - 1)) steps, each left A or B"
}

kill_at_every_step "unnamed files"
kill_at_every_step "named files (no O_TMPFILE)" SW_KILL_NO_TMPFILE=1

# SIGTERM in the middle of a long build (level 19 on one thread) leaves no
# file: the data files are unnamed until the end (or, without O_TMPFILE,
# registered for removal), and the lock file is removed on the signal.
awk 'BEGIN { srand(7); aa = "ACDEFGHIKLMNPQRSTVWY";
  for (s = 0; s < 4000; s++) { print ">s" s; line = "";
    for (i = 0; i < 1000; i++) line = line substr(aa, int(rand() * 20) + 1, 1);
    print line } }' > "$tmp/big.fa"
mkfifo "$tmp/fifo"
# sigterm_mid_build LABEL [ENV...]
sigterm_mid_build() {
  label=$1
  shift
  rm -rf "$tmp/d" && mkdir "$tmp/d"
  env "$@" "$makedb" -q --threads 1 --level 19 "$tmp/fifo" "$db" 2> "$tmp/err" &
  pid=$!
  cat "$tmp/big.fa" > "$tmp/fifo"
  # Input read: the build is compressing now, for seconds at level 19.
  sleep 0.3
  if kill -0 "$pid" 2> /dev/null; then
    kill -TERM "$pid"
    wait "$pid"
    status=$?
    [ "$status" -gt 128 ] || fail "SIGTERM, $label: makedb exited $status, not by the signal"
    left=$(ls -A "$tmp/d")
    [ -z "$left" ] || fail "SIGTERM during the build, $label, left: $left"
  else
    wait "$pid"
    fail "SIGTERM, $label: the build ended before the signal; make it longer"
  fi
}
sigterm_mid_build "unnamed files"
sigterm_mid_build "named files (no O_TMPFILE)" SW_KILL_NO_TMPFILE=1 LD_PRELOAD="$shim"

if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all kill checks passed"
