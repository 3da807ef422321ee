#!/bin/sh
# What -o does with what its path names: devices, FIFOs and descriptors are
# written in place, symlinks lead to the file replaced, a file the user may
# not write and the run's own inputs are refused, the old file's mode is
# kept, a failed or killed run leaves the directory as it was.
# Usage: test_output_cli.sh SWSEARCH MAKEDB DATA_DIR
set -u
swsearch=$1 makedb=$2
tmp=$(mktemp -d)
cat_pid= run_pid=
cleanup() {
  [ -n "$cat_pid" ] && kill "$cat_pid" 2> /dev/null
  [ -n "$run_pid" ] && kill -KILL "$run_pid" 2> /dev/null
  [ -e "$tmp/immutable.tsv" ] && chattr -i "$tmp/immutable.tsv" 2> /dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
. "$(dirname "$0")/../support/cli_checks.sh"
root=0
[ "$(id -u)" -eq 0 ] && root=1
# unchanged FILE COPY: FILE still holds what COPY holds.
unchanged() { if cmp -s "$1" "$2"; then pass; else fail "$1 changed"; fi; }
# mode_of FILE: its permission bits, as ls shows them.
mode_of() { ls -ld "$1" | cut -c1-10; }

cat > "$tmp/db.fa" <<'FA'
>s1 first
MKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQAPILSRVGDGTQDNLSGAEKAVQVKVKALPDAQFEVV
>s2 unrelated
GGGGSSSSPPPPGGGGSSSSPPPP
FA
printf '>q1 query one\nMKTAYIAKQRQISFVKSHFSRQLEERLGLIEV\n' > "$tmp/q.fa"
"$makedb" -q "$tmp/db.fa" "$tmp/db" || { echo "FAIL: makedb"; exit 1; }
set -- "$tmp"/db*.swr
residues=$1
[ -f "$residues" ] || { echo "FAIL: no residue file"; exit 1; }
search() { "$swsearch" search -q "$tmp/q.fa" -d "$tmp/db" "$@"; }
"$swsearch" search -q "$tmp/q.fa" -d "$tmp/db" > "$tmp/table.tsv" || { echo "FAIL: search"; exit 1; }
grep -q "^q1	" "$tmp/table.tsv" || { echo "FAIL: search found nothing"; exit 1; }
printf '>a\nTTTTACGTACGTTTTT\n' > "$tmp/a.fa"
printf '>b\nGGACGTACGGG\n' > "$tmp/b.fa"

# A symlink leads to the file that is replaced; the link stays a link.
printf 'old\n' > "$tmp/target.tsv"
ln -s target.tsv "$tmp/link.tsv"
expect 0 "symlink to a file" -- search -o "$tmp/link.tsv"
[ -L "$tmp/link.tsv" ] && pass || fail "the symlink was replaced"
unchanged "$tmp/target.tsv" "$tmp/table.tsv"
mkdir "$tmp/sub"
ln -s sub/new.tsv "$tmp/dangling.tsv"
expect 0 "dangling symlink" -- search -o "$tmp/dangling.tsv"
[ -L "$tmp/dangling.tsv" ] && pass || fail "the dangling symlink was replaced"
unchanged "$tmp/sub/new.tsv" "$tmp/table.tsv"

# Descriptors are written to, not reopened or replaced.
expect 0 "-o /dev/fd/1" -- search -o /dev/fd/1
fd_ok=0
cmp -s "$tmp/out" "$tmp/table.tsv" && fd_ok=1
unchanged "$tmp/out" "$tmp/table.tsv"
expect 0 "-o /proc/self/fd/3" -- sh -c 'exec 3> "$1"; shift; "$@" -o /proc/self/fd/3' sh "$tmp/fd3.tsv" \
  "$swsearch" search -q "$tmp/q.fa" -d "$tmp/db"
unchanged "$tmp/fd3.tsv" "$tmp/table.tsv"
# Only a program that got /dev/fd/1 right may be given /dev/stdout: an old
# one would replace the system's /dev/stdout.
if [ "$fd_ok" -eq 1 ]; then
  expect 0 "-o /dev/stdout" -- search -o /dev/stdout
  unchanged "$tmp/out" "$tmp/table.tsv"
  [ -L /dev/stdout ] || [ -c /dev/stdout ] && pass || fail "/dev/stdout is no longer a link or device"
fi
expect 1 "descriptor not open" -- search -o /dev/fd/9
err_has "descriptor 9 is not open for writing"

# Nothing that exists changes when the run fails.
printf 'keep\n' > "$tmp/keep.tsv"
cp "$tmp/keep.tsv" "$tmp/keep.copy"
printf '>bad\nMK#AY\n' > "$tmp/bad.fa"
expect 1 "failed search" -- "$swsearch" search -q "$tmp/bad.fa" -d "$tmp/db" -o "$tmp/keep.tsv"
unchanged "$tmp/keep.tsv" "$tmp/keep.copy"

# A replaced file keeps its mode.
printf 'old\n' > "$tmp/mode.tsv"
chmod 640 "$tmp/mode.tsv"
expect 0 "replace a file" -- search -o "$tmp/mode.tsv"
unchanged "$tmp/mode.tsv" "$tmp/table.tsv"
[ "$(mode_of "$tmp/mode.tsv")" = "-rw-r-----" ] && pass || fail "mode $(mode_of "$tmp/mode.tsv"), expected -rw-r-----"

expect 1 "directory" -- search -o "$tmp/sub"
err_has "sub is a directory"
[ -d "$tmp/sub" ] && pass || fail "the directory was replaced"

# The run's own inputs, found by device and inode, are never overwritten.
for f in q.fa db.swi b.fa; do cp "$tmp/$f" "$tmp/$f.copy"; done
cp "$residues" "$tmp/residues.copy"
expect 1 "-o the query file" -- search -o "$tmp/q.fa"
err_has "q.fa is the query file .*q.fa; refusing to overwrite an input"
unchanged "$tmp/q.fa" "$tmp/q.fa.copy"
expect 1 "-o the query file on stdin" -- sh -c '"$@" < "$0"' "$tmp/q.fa" "$swsearch" search -q - -d "$tmp/db" -o "$tmp/q.fa"
err_has "standard input"
unchanged "$tmp/q.fa" "$tmp/q.fa.copy"
ln "$tmp/q.fa" "$tmp/hardlink.fa"
expect 1 "-o a hard link to the query file" -- search -o "$tmp/hardlink.fa"
err_has "hardlink.fa is the query file"
expect 1 "-o the database index" -- search -o "$tmp/db.swi"
err_has "db.swi is a file of the database"
unchanged "$tmp/db.swi" "$tmp/db.swi.copy"
expect 1 "-o the residue file" -- search -o "$residues"
err_has "a file of the database .*db; refusing"
unchanged "$residues" "$tmp/residues.copy"
ln -s "$residues" "$tmp/residues-link"
expect 1 "-o a link to the residue file" -- search -o "$tmp/residues-link"
err_has "residues-link is .*swr, a file of the database"
cp "$(dirname "$0")/../../matrices/BLOSUM62" "$tmp/matrix" 2> /dev/null
if [ -f "$tmp/matrix" ]; then
  cp "$tmp/matrix" "$tmp/matrix.copy"
  expect 1 "-o the matrix file" -- search --matrix "$tmp/matrix" -o "$tmp/matrix"
  err_has "is the matrix file"
  unchanged "$tmp/matrix" "$tmp/matrix.copy"
fi
expect 1 "align -o its input" -- "$swsearch" align "$tmp/a.fa" "$tmp/b.fa" --engine cpu -q -o "$tmp/b.fa"
err_has "b.fa is the input .*b.fa; refusing to overwrite an input"
unchanged "$tmp/b.fa" "$tmp/b.fa.copy"
# A database file that is no input of this run is refused too.
cp "$tmp/db.swi" "$tmp/other.swi"
expect 1 "search -o another database's index" -- search -o "$tmp/other.swi"
err_has "other.swi is a swsearch database file"
unchanged "$tmp/other.swi" "$tmp/db.swi.copy"
expect 1 "align -o a database file" -- "$swsearch" align "$tmp/a.fa" "$tmp/b.fa" --engine cpu -q -o "$residues"
err_has "is a swsearch database file"
unchanged "$residues" "$tmp/residues.copy"

# A killed run leaves the directory as it was: two random sequences of 300 kbp
# keep one CPU thread busy for many seconds.
awk 'BEGIN { srand(16); for (s = 0; s < 2; s++) { printf ">r%d\n", s;
  for (i = 1; i <= 300000; i++) { printf "%s", substr("ACGT", int(rand() * 4) + 1, 1); if (i % 80 == 0) print "" }
  print "" } }' > "$tmp/big.fa"
mkdir "$tmp/kill"
printf 'previous\n' > "$tmp/kill/out.tsv"
cp "$tmp/kill/out.tsv" "$tmp/kill.copy"
ls -A "$tmp/kill" > "$tmp/kill.before"
"$swsearch" align "$tmp/big.fa" --engine cpu --threads 1 -q -o "$tmp/kill/out.tsv" 2> "$tmp/err" &
run_pid=$!
sleep 0.5
kill -TERM "$run_pid" 2> /dev/null
wait "$run_pid" 2> /dev/null
status=$?
run_pid=
[ "$status" -gt 128 ] && pass || fail "align ended with status $status before the signal"
ls -A "$tmp/kill" > "$tmp/kill.after"
cmp -s "$tmp/kill.before" "$tmp/kill.after" && pass || { fail "a killed run left files:"; cat "$tmp/kill.after"; }
unchanged "$tmp/kill/out.tsv" "$tmp/kill.copy"

# Refused before anything is written: a file on which writing fails for root
# too (immutable), and a read-only file for a user who is not root, in a
# directory where that user could create the replacement.
if [ "$root" -eq 1 ] && printf 'old\n' > "$tmp/immutable.tsv" && chattr +i "$tmp/immutable.tsv" 2> /dev/null; then
  expect 1 "immutable file" -- search -o "$tmp/immutable.tsv"
  err_has "cannot write to .*immutable.tsv"
  chattr -i "$tmp/immutable.tsv"
fi
if [ "$root" -eq 1 ] && command -v setpriv > /dev/null &&
   setpriv --reuid=65534 --regid=65534 --clear-groups "$swsearch" --version > /dev/null 2>&1; then
  chmod 755 "$tmp"
  mkdir "$tmp/shared"
  chmod 777 "$tmp/shared"
  printf 'read only\n' > "$tmp/shared/ro.tsv"
  chmod 444 "$tmp/shared/ro.tsv"
  cp "$tmp/shared/ro.tsv" "$tmp/ro.copy"
  expect 1 "read-only file" -- setpriv --reuid=65534 --regid=65534 --clear-groups \
    "$swsearch" align "$tmp/a.fa" "$tmp/b.fa" --engine cpu -q -o "$tmp/shared/ro.tsv"
  err_has "cannot write to .*ro.tsv: Permission denied"
  unchanged "$tmp/shared/ro.tsv" "$tmp/ro.copy"
fi

# Devices and FIFOs of our own, in place (never the system's).
if [ "$root" -eq 1 ] && mknod "$tmp/null" c 1 3 2> /dev/null && mknod "$tmp/full" c 1 7 2> /dev/null; then
  expect 0 "null device" -- search -o "$tmp/null"
  [ -c "$tmp/null" ] && pass || fail "the null device was replaced"
  expect 1 "full device" -- search -o "$tmp/full"
  err_has "full: error writing results: No space left on device"
  [ -c "$tmp/full" ] && pass || fail "the full device was replaced"
  expect 0 "align to the null device" -- "$swsearch" align "$tmp/a.fa" "$tmp/b.fa" --engine cpu -q -o "$tmp/null"
  [ -c "$tmp/null" ] && pass || fail "align replaced the null device"
fi
if mkfifo "$tmp/fifo" 2> /dev/null; then
  cat "$tmp/fifo" > "$tmp/from-fifo" &
  cat_pid=$!
  expect 0 "FIFO" -- search -o "$tmp/fifo"
  # The reader ends once the writer closes; one that still waits got nothing.
  n=0
  while kill -0 "$cat_pid" 2> /dev/null && [ $n -lt 50 ]; do sleep 0.1; n=$((n + 1)); done
  if kill -0 "$cat_pid" 2> /dev/null; then fail "the FIFO's reader got no writer"; else pass; cat_pid=; fi
  unchanged "$tmp/from-fifo" "$tmp/table.tsv"
  [ -p "$tmp/fifo" ] && pass || fail "the FIFO was replaced"
fi

# A write that fails names the output and the system's reason, whether it
# fails during the run (output larger than a buffer) or at its end, for -o,
# standard output, --plot and --map alike.
if [ -c /dev/full ]; then
  i=0
  while [ $i -lt 3000 ]; do printf '>q%d\nMKTAYIAKQRQISFVKSHFSRQLEERLGLIEV\n' $i; i=$((i + 1)); done > "$tmp/many.fa"
  expect 1 "search -o /dev/full" -- "$swsearch" search -q "$tmp/many.fa" -d "$tmp/db" -o /dev/full
  err_has "^swsearch: /dev/full: error writing results: No space left on device$"
  expect 1 "search to a full standard output" -- sh -c '"$@" > /dev/full' sh "$swsearch" search -q "$tmp/many.fa" -d "$tmp/db"
  err_has "^swsearch: standard output: error writing results: No space left on device$"
  expect 1 "small search -o /dev/full" -- search -o /dev/full
  err_has "^swsearch: /dev/full: error writing results: No space left on device$"
  expect 1 "align -o /dev/full" -- "$swsearch" align "$tmp/a.fa" "$tmp/b.fa" --engine cpu -q -o /dev/full
  err_has "^swsearch: /dev/full: error writing results: No space left on device$"
  expect 1 "align --plot /dev/full" -- "$swsearch" align "$tmp/a.fa" "$tmp/b.fa" --engine cpu -q --plot /dev/full
  err_has "^swsearch: /dev/full: error writing the plot: No space left on device$"
  printf '>s1\nACDEFGHIK\n>s2\nACDE-GHIK\n' > "$tmp/a.afa"
  printf '>t1\nACDFGHIK\n>t2\nAC-FGHLK\n' > "$tmp/b.afa"
  expect 1 "profile -o /dev/full" -- "$swsearch" profile "$tmp/a.afa" "$tmp/b.afa" -q -o /dev/full
  err_has "^swsearch: /dev/full: error writing results: No space left on device$"
  expect 1 "profile --map /dev/full" -- "$swsearch" profile "$tmp/a.afa" "$tmp/b.afa" -q -o "$tmp/merged.afa" --map /dev/full
  err_has "^swsearch: /dev/full: error writing the map: No space left on device$"
  absent "$tmp/merged.afa"
fi
# A --plot or --map path that cannot be written is named as such, with the
# system's reason.
expect 1 "align --plot in a missing directory" -- "$swsearch" align "$tmp/a.fa" "$tmp/b.fa" --engine cpu -q --plot "$tmp/none/p.svg"
err_has "^swsearch: --plot $tmp/none/p.svg: cannot create a file in .*: No such file or directory$"
printf '>s1\nACDEFGHIK\n' > "$tmp/c.afa"
expect 1 "profile --map in a missing directory" -- "$swsearch" profile "$tmp/c.afa" "$tmp/c.afa" -q -o "$tmp/m.afa" --map "$tmp/none/m.txt"
err_has "^swsearch: --map $tmp/none/m.txt: cannot create a file in .*: No such file or directory$"
absent "$tmp/m.afa"

ls "$tmp" "$tmp/sub" | grep -q '\.tmp\.' && fail "temporary output left behind" || pass
cli_checks_done
