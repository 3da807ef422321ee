#!/bin/sh
# What a user of makedb sees: exit statuses, messages naming file and line,
# and no database files left behind by a failed build.
# Usage: test_makedb_cli.sh MAKEDB DATA_DIR
set -u
makedb=$1 data=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# run ARGS...: runs makedb, leaving the status in $status and stderr in $tmp/err.
run() {
  "$makedb" "$@" > "$tmp/out" 2> "$tmp/err"
  status=$?
}

expect_status() {
  [ "$status" -eq "$1" ] || fail "$2: exit status $status, expected $1 (stderr: $(cat "$tmp/err"))"
}

expect_stderr() {
  grep -qF -- "$1" "$tmp/err" || fail "$2: stderr lacks '$1' (stderr: $(cat "$tmp/err"))"
}

expect_no_files() {
  left=$(ls -A "$tmp/db" 2>/dev/null)
  [ -z "$left" ] || fail "$1: files left behind: $left"
}

# expect_database_files WHAT NAME: $tmp/db holds NAME.swi and one data file
# of each kind, NAME.<16 hex digits>.swr and .swh of the same build, and no
# other file of NAME (no lock file, no temporary file).
expect_database_files() {
  mine=$(cd "$tmp/db" && ls -A | grep -F "$2." | tr '\n' ' ')
  set -- "$1" "$2" $mine
  [ $# -eq 5 ] || { fail "$1: expected three files of $2, found: $mine"; return; }
  r=${4#"$2".} i=$5
  case "$3 $4 $5" in
  "$2.${r%.swr}.swh $2.$r $2.swi") ;;
  *) fail "$1: unexpected files: $mine" ;;
  esac
  [ ${#r} -eq 20 ] || fail "$1: data file $4 is not named by a 16-digit id"
  [ -s "$tmp/db/$i" ] || fail "$1: empty index"
}

# A failure after some sequences were already added must still leave nothing.
mkdir -p "$tmp/db"
run "$data/fasta_bad_residue.fa" "$tmp/db/bad"
expect_status 1 "bad residue"
expect_stderr "makedb: $data/fasta_bad_residue.fa:5: invalid residue '#' in sequence P2" "bad residue"
expect_no_files "bad residue"

run "$tmp/missing.fa" "$tmp/db/missing"
expect_status 1 "missing input"
expect_stderr "makedb: $tmp/missing.fa: No such file or directory" "missing input"
expect_no_files "missing input"

: > "$tmp/empty.fa"
run "$tmp/empty.fa" "$tmp/db/empty"
expect_status 1 "empty input"
expect_stderr "makedb: $tmp/empty.fa: no sequences" "empty input"
expect_no_files "empty input"

printf '\037\213\010\000\000\000\000\000\000\003' > "$tmp/in.fa.gz"
run "$tmp/in.fa.gz" "$tmp/db/gz"
expect_status 1 "gzip input"
expect_stderr "gzip-compressed input is not supported" "gzip input"
expect_no_files "gzip input"

run --help
expect_status 0 "--help"
grep -q "^Usage: makedb" "$tmp/out" || fail "--help: no usage on stdout"

run --version
expect_status 0 "--version"

run
expect_status 2 "no arguments"
expect_stderr "makedb: expected FASTA and DB_PREFIX" "no arguments"

# Usage errors read as swsearch's do (one helper words both): the option,
# the problem, where the help is.
run --frobnicate "$data/fasta_small.fa" "$tmp/db/x"
expect_status 2 "unknown option"
expect_stderr "makedb: unknown option '--frobnicate'; see 'makedb --help'" "unknown option"

run -qZ "$data/fasta_small.fa" "$tmp/db/x"
expect_status 2 "unknown short option"
expect_stderr "makedb: unknown option '-Z'; see 'makedb --help'" "unknown short option"

run --level 99 "$data/fasta_small.fa" "$tmp/db/x"
expect_status 2 "bad level"
expect_stderr "makedb: --level needs a whole number from 1 to 22, not '99'" "bad level"

run --threads 2x "$data/fasta_small.fa" "$tmp/db/x"
expect_status 2 "bad thread count"
expect_stderr "makedb: --threads needs a whole number from 1 to 4096, not '2x'" "bad thread count"

run --threads "$data/fasta_small.fa" "$tmp/db/x"
expect_status 2 "missing option value"

run "$data/fasta_small.fa" "$tmp/db/x" --level
expect_status 2 "missing option value at the end"
expect_stderr "makedb: option '--level' needs a value; see 'makedb --help'" "missing option value at the end"

run "$data/fasta_small.fa"
expect_status 2 "one argument"
expect_stderr "makedb: expected FASTA and DB_PREFIX; see 'makedb --help'" "one argument"
expect_no_files "usage errors"

# A good build: the three files (the index and the data files it names),
# and on a non-terminal stderr only the one-line summary (no progress).
run "$data/fasta_small.fa" "$tmp/db/small"
expect_status 0 "good build"
expect_database_files "good build" small
[ "$(wc -l < "$tmp/err")" -eq 1 ] || fail "good build: stderr is not one line: $(cat "$tmp/err")"
expect_stderr "3 sequences" "good build"
if tr '\r' '#' < "$tmp/err" | grep -q '#'; then fail "good build: progress on a non-terminal"; fi
rm -f "$tmp"/db/*

run -q "$data/fasta_small.fa" "$tmp/db/quiet"
expect_status 0 "quiet build"
[ ! -s "$tmp/err" ] || fail "quiet build: stderr not empty: $(cat "$tmp/err")"
rm -f "$tmp"/db/*

run -q "$data/fasta_empty_sequence.fa" "$tmp/db/warn"
expect_status 0 "empty sequence"
expect_stderr "makedb: $data/fasta_empty_sequence.fa:3: empty sequence 'P2' skipped" "empty sequence"
rm -f "$tmp"/db/*

"$makedb" -q - "$tmp/db/stdin" < "$data/fasta_small.fa" 2> "$tmp/err"
status=$?
expect_status 0 "standard input"
[ -s "$tmp/db/stdin.swi" ] || fail "standard input: no index"
rm -f "$tmp"/db/*

# Every option at most once.
for args in "--threads 2 --threads 3" "--level 3 --level 3" "--dna --dna" "-q --quiet"; do
  opt=${args%% *}
  [ "$opt" = -q ] && opt=-q/--quiet
  run $args "$data/fasta_small.fa" "$tmp/db/x"
  expect_status 2 "repeated option ($args)"
  expect_stderr "makedb: option $opt given twice" "repeated option ($args)"
done
expect_no_files "repeated options"

# A prefix must name files, not a directory, device, FIFO or socket, and
# nothing is made beside or inside what it names.
mkdir "$tmp/prefix" "$tmp/prefix/dir"
run "$data/fasta_small.fa" "$tmp/prefix/dir"
expect_status 1 "directory as prefix"
expect_stderr "makedb: $tmp/prefix/dir: is a directory" "directory as prefix"
run "$data/fasta_small.fa" "$tmp/prefix/dir/"
expect_status 1 "prefix with a trailing slash"
expect_stderr "makedb: $tmp/prefix/dir/: the database name ends in a directory" "trailing slash"
run "$data/fasta_small.fa" "$tmp/prefix/dir/."
expect_status 1 "prefix '.'"
run "$data/fasta_small.fa" "$tmp/prefix/dir/.."
expect_status 1 "prefix '..'"
mkfifo "$tmp/prefix/fifo"
run "$data/fasta_small.fa" "$tmp/prefix/fifo"
expect_status 1 "FIFO as prefix"
expect_stderr "makedb: $tmp/prefix/fifo: is a device, FIFO or socket" "FIFO as prefix"
# A character device of our own (never one in /dev), where mknod is allowed.
if mknod "$tmp/prefix/null" c 1 3 2> /dev/null; then
  run "$data/fasta_small.fa" "$tmp/prefix/null"
  expect_status 1 "device as prefix"
  expect_stderr "makedb: $tmp/prefix/null: is a device, FIFO or socket" "device as prefix"
  rm -f "$tmp/prefix/null"
else
  echo "mknod not permitted: device prefix not checked"
fi
rm -f "$tmp/prefix/fifo"
left=$(cd "$tmp/prefix" && find . ! -name . ! -name dir)
[ -z "$left" ] || fail "refused prefixes left files: $left"

# A build never replaces or removes its own input, whatever name reaches it
# (devices and inodes are compared): refused before anything is written.
cp "$data/fasta_small.fa" "$tmp/db/in.swr"
run "$tmp/db/in.swr" "$tmp/db/in"
expect_status 1 "input named like a version-1 data file"
expect_stderr "makedb: $tmp/db/in.swr: this input is $tmp/db/in.swr, a file that building the database $tmp/db/in would replace or remove" "input is an output"
cmp -s "$tmp/db/in.swr" "$data/fasta_small.fa" || fail "input is an output: the input changed"
[ "$(ls -A "$tmp/db")" = in.swr ] || fail "input is an output: files made: $(ls -A "$tmp/db")"
ln "$tmp/db/in.swr" "$tmp/db/other.swlock"
run "$tmp/db/in.swr" "$tmp/db/other"
expect_status 1 "input linked as the lock file"
expect_stderr "this input is $tmp/db/other.swlock" "input linked as the lock file"
cmp -s "$tmp/db/other.swlock" "$data/fasta_small.fa" || fail "input linked as the lock file: changed"
rm -f "$tmp"/db/*
"$makedb" -q "$data/fasta_small.fa" "$tmp/db/sp"
"$makedb" -q - "$tmp/db/sp" < "$tmp/db/sp.swi" 2> "$tmp/err"
status=$?
expect_status 1 "index as standard input"
expect_stderr "makedb: <stdin>: this input is $tmp/db/sp.swi" "index as standard input"
run "$tmp/db"/sp.*.swr "$tmp/db/sp"
expect_status 1 "data file as input"
expect_stderr "a file that building the database $tmp/db/sp would replace or remove" "data file as input"
expect_database_files "after refused inputs" sp
rm -f "$tmp"/db/*

# What killed runs left is removed by the next build of the same prefix, by
# exact names only: the files of the prefix "db.v2" in the same directory,
# whose names start with "db.", stay as they are.
"$makedb" -q "$data/fasta_small.fa" "$tmp/db/db.v2" || fail "leftovers: build of db.v2 failed"
"$makedb" -q "$data/fasta_small.fa" "$tmp/db/orphan" || fail "leftovers: build of orphan failed"
for f in "$tmp"/db/orphan.*.sw?; do
  mv "$f" "$tmp/db/db.${f#"$tmp/db/orphan."}"
done
rm -f "$tmp/db/orphan.swi"
: > "$tmp/db/db.swr.tmp0123456789abcdef"
: > "$tmp/db/db.swh.tmp0123456789abcdef"
: > "$tmp/db/db.swi.tmpfedcba9876543210"
: > "$tmp/db/db.spillAb12Cd"
printf 'cut' > "$tmp/db/db.00000000deadbeef.swh"
: > "$tmp/db/db.v2.swi.tmp0123456789abcdef"
: > "$tmp/db/db.v2.0123456789abcdef.swr"
: > "$tmp/db/db.swi.tmp1"
: > "$tmp/db/dbx.swr.tmp0123456789abcdef"
(cd "$tmp/db" && ls -A | grep -v '^db\.[^v]' | grep -v '^db\.swi\.tmp1$' | sort > "$tmp/others.before" &&
  cat $(cat "$tmp/others.before") | cksum > "$tmp/others.sum")
run -q "$data/queries20.fasta" "$tmp/db/db"
expect_status 0 "build over leftovers"
(cd "$tmp/db" && ls -A | grep -v '^db\.[^v]' | grep -v '^db\.swi\.tmp1$' | sort > "$tmp/others.after")
cmp -s "$tmp/others.before" "$tmp/others.after" ||
  fail "leftovers: files of other prefixes changed: $(diff "$tmp/others.before" "$tmp/others.after")"
(cd "$tmp/db" && cat $(cat "$tmp/others.after")) | cksum | cmp -s - "$tmp/others.sum" ||
  fail "leftovers: contents of other prefixes' files changed"
[ -e "$tmp/db/db.swi.tmp1" ] || fail "leftovers: db.swi.tmp1 (no leftover name) was removed"
rm -f "$tmp/db/db.swi.tmp1"
mine=$(cd "$tmp/db" && ls -A | grep '^db\.[^v]' | tr '\n' ' ')
set -- $mine
[ $# -eq 3 ] || fail "leftovers: expected the three files of db, found: $mine"

if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all makedb command-line checks passed"
