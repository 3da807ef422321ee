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

run --frobnicate "$data/fasta_small.fa" "$tmp/db/x"
expect_status 2 "unknown option"
expect_stderr "makedb: unknown option '--frobnicate'" "unknown option"

run --level 99 "$data/fasta_small.fa" "$tmp/db/x"
expect_status 2 "bad level"
expect_stderr "makedb: --level needs a whole number from 1 to 22" "bad level"

run --threads "$data/fasta_small.fa" "$tmp/db/x"
expect_status 2 "missing option value"
expect_no_files "usage errors"

# A good build: the three files, and on a non-terminal stderr only the
# one-line summary (no progress).
run "$data/fasta_small.fa" "$tmp/db/small"
expect_status 0 "good build"
for ext in swi swr swh; do
  [ -s "$tmp/db/small.$ext" ] || fail "good build: no $tmp/db/small.$ext"
done
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

if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all makedb command-line checks passed"
