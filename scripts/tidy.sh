#!/usr/bin/env bash
# Runs clang-tidy (Debian's clang-tidy 14, the root .clang-tidy) over C++ sources, for developers:
#
#   scripts/tidy.sh                      # the sources changed since .clang-format was added (as check_format.sh)
#   scripts/tidy.sh sim/cluster/src/cluster.cpp  # the given .cpp files
#   scripts/tidy.sh --all                # every project .cpp file of the build
#
# A changed header is checked through the .cpp files that include it directly (the findings in
# project headers are reported, see HeaderFilterRegex in .clang-tidy). Needs the compilation
# database build/compile_commands.json, which the build writes (GPUSIM_BUILD_DIR for another build
# directory; configured here when missing). Exits 1 when clang-tidy reports a finding. TIDY_JOBS
# (default: the number of cores) files are checked at a time.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${GPUSIM_BUILD_DIR:-$ROOT/build}"
cd "$ROOT"

TIDY="$(command -v clang-tidy-14 || command -v clang-tidy || true)"
[ -n "$TIDY" ] || { echo "tidy: clang-tidy is not installed (Debian package clang-tidy)" >&2; exit 2; }
if [ ! -f "$BUILD/compile_commands.json" ]; then
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
fi

# The project's .cpp files in the compilation database, relative to the root (not the catalog
# sources the build generates under the build directory).
mapfile -t known < <(python3 - "$BUILD/compile_commands.json" "$ROOT" "$BUILD" <<'EOF'
import json, os, sys
database, root, build = sys.argv[1], os.path.realpath(sys.argv[2]), os.path.realpath(sys.argv[3])
for entry in json.load(open(database)):
    path = os.path.realpath(os.path.join(entry["directory"], entry["file"]))
    if path.startswith(root + os.sep) and not path.startswith(build + os.sep):
        print(os.path.relpath(path, root))
EOF
)

files=()
if [ $# -eq 1 ] && [ "$1" = "--all" ]; then
  files=("${known[@]}")
elif [ $# -gt 0 ]; then
  files=("$@")
else
  git rev-parse --is-inside-work-tree >/dev/null 2>&1 || { echo "tidy: not a git checkout; name the files" >&2; exit 2; }
  BASE="$(git log --diff-filter=A --format=%H -- .clang-format | tail -n 1)"
  [ -n "$BASE" ] || { echo "tidy: no commit in this history adds .clang-format; name the files" >&2; exit 2; }
  declare -A wanted=()
  while IFS= read -r f; do
    case "$f" in
      *.cpp) wanted["$f"]=1 ;;
      *.hpp)
        # How the header is included: "gpusim/sim/cluster.hpp" from an include/ directory, else by name.
        name="${f#*/include/}"
        [ "$name" = "$f" ] && name="$(basename "$f")"
        for k in "${known[@]}"; do grep -qF "#include \"$name\"" "$k" && wanted["$k"]=1; done
        ;;
    esac
  done < <(git diff --name-only --diff-filter=d "$BASE" -- '*.cpp' '*.hpp'; git ls-files --others --exclude-standard -- '*.cpp' '*.hpp')
  for k in "${known[@]}"; do [ -n "${wanted[$k]:-}" ] && files+=("$k"); done
  if [ ${#files[@]} -eq 0 ]; then
    echo "tidy: no source of the build changed since ${BASE:0:12}"
    exit 0
  fi
fi

echo "tidy: ${#files[@]} file(s) with $TIDY" >&2
# Without clang's "N warnings generated." (from the system headers, which are not reported).
set +e
printf '%s\0' "${files[@]}" |
  xargs -0 -n 1 -P "${TIDY_JOBS:-$(nproc)}" "$TIDY" -p "$BUILD" --quiet --warnings-as-errors='*' 2>&1 |
  grep -v -E '^[0-9]+ (warning|error)s? (and [0-9]+ errors? )?generated\.$'
status=${PIPESTATUS[1]}
set -e
if [ "$status" -ne 0 ]; then
  echo "tidy: clang-tidy reported findings (above)" >&2
  exit 1
fi
echo "tidy: no findings" >&2
