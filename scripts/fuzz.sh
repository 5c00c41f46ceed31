#!/usr/bin/env bash
# scripts/fuzz.sh TARGET MINUTES: builds the sanitizer build's harness TARGET (one of FUZZ_TARGETS in
# scripts/common.sh) and fuzzes it for MINUTES from fuzz/corpus/TARGET and
# fuzz/regressions/TARGET. Inputs it finds interesting are kept in build-asan/fuzz-corpus/TARGET;
# an input that crashes (or a sanitizer report, a timeout, running out of memory) is written to
# fuzz/regressions/TARGET/, which scripts/test.sh replays. Prints the number of executions.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
if [ $# -ne 2 ]; then
  echo "usage: scripts/fuzz.sh TARGET MINUTES (TARGET: ${FUZZ_TARGETS[*]})" >&2
  exit 2
fi
target="$1" minutes="$2"
if ! [[ "$minutes" =~ ^[1-9][0-9]*$ ]]; then
  echo "fuzz.sh: MINUTES must be a whole number of minutes, at least 1; got '$minutes'" >&2
  exit 2
fi
if [[ " ${FUZZ_TARGETS[*]} " != *" $target "* ]]; then
  echo "fuzz.sh: unknown target '$target': expected one of ${FUZZ_TARGETS[*]}" >&2
  exit 2
fi
build_sanitized --target "$target" >/dev/null
mkdir -p "$SANITIZE_BUILD/fuzz-corpus/$target" "$ROOT/fuzz/regressions/$target"
fuzz_target "$target" "$((minutes * 60))" "$ROOT/fuzz/regressions/$target/" "$SANITIZE_BUILD/fuzz-corpus/$target"
