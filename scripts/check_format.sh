#!/usr/bin/env bash
# Checks that the C++ lines changed since .clang-format was added are formatted (clang-format 14,
# the root .clang-format). Only changed lines are checked, so the code written before the style
# file is not reformatted wholesale. Run by scripts/test.sh before the build; exits 1 on a diff.
#
#   scripts/check_format.sh          # check the working tree against BASE
#   git clang-format BASE            # format the changed lines (BASE as printed on failure)
#
# BASE is the commit that introduced .clang-format. Without that history (no git checkout, or a
# shallow clone that does not reach BASE) the check is skipped with a message, not failed.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# C and C++ sources only: git clang-format's default list also takes JSON, JavaScript, Java...
EXTENSIONS="c,h,cc,cpp,cxx,hh,hpp,hxx"

skip() {
  echo "check_format: skipped: $*" >&2
  exit 0
}

command -v git >/dev/null || skip "git is not installed"
git rev-parse --is-inside-work-tree >/dev/null 2>&1 || skip "$ROOT is not a git checkout (no history to diff against)"
# A source tree unpacked inside some other repository is not a checkout of gpusim.
[ "$(cd "$(git rev-parse --show-toplevel)" && pwd -P)" = "$(pwd -P)" ] || skip "$ROOT is not the top of a git checkout"
if ! command -v git-clang-format >/dev/null || ! command -v clang-format >/dev/null; then
  echo "check_format: git-clang-format and clang-format are needed (Debian package clang-format)" >&2
  exit 2
fi

BASE="$(git log --diff-filter=A --format=%H -- .clang-format | tail -n 1)"
[ -n "$BASE" ] || skip "no commit in this checkout's history adds .clang-format (not committed yet, or a shallow clone)"
# In a shallow clone the oldest commit present looks as if it added every file; it is BASE only if
# it is the real one, which a shallow clone cannot tell.
shallow_file="$(git rev-parse --git-path shallow)"
if [ -f "$shallow_file" ] && grep -qx "$BASE" "$shallow_file"; then
  skip "shallow clone: the commit that added .clang-format is not in the fetched history (git fetch --unshallow)"
fi

# git clang-format (LLVM 14) exits 0 whether or not it prints a diff (2 on its own errors), so the
# verdict is whether the output holds a diff.
set +e
output="$(git clang-format --binary clang-format --extensions "$EXTENSIONS" --diff "$BASE" -- 2>&1)"
status=$?
set -e
if [ $status -ne 0 ]; then
  echo "$output" >&2
  echo "check_format: git clang-format failed (exit $status)" >&2
  exit 2
fi
if grep -q '^diff --git' <<<"$output"; then
  echo "$output"
  echo >&2
  echo "check_format: FAILED: lines changed since ${BASE:0:12} (the commit that added .clang-format) are not formatted as above." >&2
  echo "check_format: fix them with:  git clang-format $BASE" >&2
  echo "check_format: (it formats only the changed lines; add -f when the files have unstaged edits), then review and commit." >&2
  exit 1
fi
echo "check_format: the lines changed since ${BASE:0:12} are formatted"
