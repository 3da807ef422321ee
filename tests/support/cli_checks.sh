# Checks shared by the command-line tests, sourced after $tmp is made:
# each check counts a pass or prints a failure; the test ends with
# `cli_checks_done`, whose status is the test's.
failures=0 passed=0

pass() { passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
# expect STATUS DESCRIPTION -- COMMAND...: runs COMMAND, stderr to $tmp/err.
expect() {
  want=$1 what=$2; shift 3
  "$@" > "$tmp/out" 2> "$tmp/err"; got=$?
  if [ "$got" -eq "$want" ]; then pass; else fail "$what: exit $got, expected $want"; cat "$tmp/err"; fi
}
err_has() { if grep -q -- "$1" "$tmp/err"; then pass; else fail "stderr lacks '$1':"; cat "$tmp/err"; fi; }
out_has() { if grep -q -- "$1" "$tmp/out"; then pass; else fail "stdout lacks '$1':"; cat "$tmp/out"; fi; }
absent() { if [ -e "$1" ]; then fail "$1 exists"; else pass; fi; }
cli_checks_done() {
  echo "$passed passed, $failures failed"
  [ "$failures" -eq 0 ]
}
