# Sourced by the CLI test scripts (tests/*_test.sh GPUSIM ROOT): the binary and source tree from the
# arguments, a scratch directory removed on exit, and the assertions, each printing "ok   NAME" or
# "FAIL NAME ..." and setting fail=1. A script ends with `exit $fail`.
set -uo pipefail
GPUSIM="$1"
ROOT="$2"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; cat "$TMP/out" "$TMP/err"; fail=1; }
check() {  # check NAME EXPECTED_EXIT COMMAND...
  local name="$1" want="$2"
  shift 2
  "$@" >"$TMP/out" 2>"$TMP/err"
  local got=$?
  if [ "$got" -ne "$want" ]; then
    echo "FAIL $name: exit $got, expected $want"; cat "$TMP/out" "$TMP/err"; fail=1
  else
    echo "ok   $name"
  fi
}
contains() {  # contains NAME FILE TEXT
  if grep -qF -- "$3" "$2"; then echo "ok   $1"; else echo "FAIL $1: '$3' not in $2"; cat "$2"; fail=1; fi
}
lacks() {  # lacks NAME FILE TEXT
  if grep -qF -- "$3" "$2"; then echo "FAIL $1: '$3' in $2"; cat "$2"; fail=1; else echo "ok   $1"; fi
}
matches() {  # matches NAME FILE REGEX
  if grep -qE -- "$3" "$2"; then echo "ok   $1"; else echo "FAIL $1: /$3/ not in $2"; cat "$2"; fail=1; fi
}
