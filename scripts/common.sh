# Shared by scripts/setup.sh and scripts/test.sh: install what is missing, then build.
# Debian 12 packages only (README, "Set up"); apt-get runs only when a package is missing.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${GPUSIM_BUILD_DIR:-$ROOT/build}"
PACKAGES=(build-essential cmake ninja-build ccache pkg-config
          libboost-dev libeigen3-dev nlohmann-json3-dev libyaml-cpp-dev libcli11-dev libfmt-dev zlib1g-dev
          libgtest-dev libgmock-dev libbenchmark-dev valgrind clang-format clang-tidy clang-14 libclang-rt-14-dev
          pybind11-dev python3-dev python3-numpy python3-pandas python3-matplotlib python3-pytest python3-yaml python3-jsonschema
          python3-nbformat python3-nbclient python3-nbconvert python3-ipykernel python3-distributed
          chromium chromium-driver python3-selenium python3-pil prometheus mkdocs mkdocs-material)

install_dependencies() {
  local missing=()
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "gpusim: installing ${missing[*]}" >&2
  local sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# The gpusim command into /usr/local/bin and the gpusim package into Debian's python3
# (/usr/local/lib/python3.X/dist-packages), so that `gpusim` and `/usr/bin/python3 -c "import gpusim"`
# work from any directory and any new shell.
install_gpusim() {
  local sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  "${sudo[@]}" cmake --install "$BUILD" --component cli >/dev/null
  "${sudo[@]}" cmake --install "$BUILD" --component python >/dev/null
}

build() {
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$BUILD" --parallel "$(nproc)"
}

# The sanitizer build (docs/design/testing.md): clang 14, ASan + UBSan on every target
# and the fuzz/ harnesses, in its own directory (no Python module, no benchmarks). ccache keeps a
# rebuild short.
SANITIZE_BUILD="${GPUSIM_SANITIZE_BUILD_DIR:-$ROOT/build-asan}"
build_sanitized() {
  cmake -S "$ROOT" -B "$SANITIZE_BUILD" -G Ninja -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -gline-tables-only" -DGPUSIM_SANITIZE=ON -DGPUSIM_FUZZ=ON \
    -DGPUSIM_BUILD_PYTHON=OFF -DGPUSIM_BUILD_BENCH=OFF >/dev/null
  cmake --build "$SANITIZE_BUILD" --parallel "$(nproc)" "$@"
}

# The fuzz/ harnesses, each with its seed corpus in fuzz/corpus/TARGET.
FUZZ_TARGETS=(fuzz_scenario fuzz_trace fuzz_parsers fuzz_k8s fuzz_cel fuzz_requests fuzz_report)

# Limits for one input (docs/design/testing.md): slower than FUZZ_TIMEOUT_S seconds or
# larger than FUZZ_RSS_MB is a finding, like a crash or a sanitizer report.
FUZZ_TIMEOUT_S=10
FUZZ_RSS_MB=2048
# fuzz_target TARGET SECONDS ARTIFACT_PREFIX NEW_CORPUS_DIR: fuzzes the built harness for SECONDS from
# its seed corpus and regressions (fuzz/regressions/TARGET), writing new
# inputs to NEW_CORPUS_DIR and a failing one to ARTIFACT_PREFIX; prints "TARGET: N executions in
# SECONDS s"; fails if an input did.
fuzz_target() {
  local target="$1" seconds="$2" artifacts="$3" corpus="$4" log
  log="$(mktemp)"
  local status=0 seeds=("$ROOT/fuzz/corpus/$target")
  # git keeps no empty folder: a harness without regressions yet has none, and libFuzzer stops at a missing one.
  if [ -d "$ROOT/fuzz/regressions/$target" ]; then seeds+=("$ROOT/fuzz/regressions/$target"); fi
  "$SANITIZE_BUILD/bin/$target" -max_total_time="$seconds" -timeout="$FUZZ_TIMEOUT_S" -rss_limit_mb="$FUZZ_RSS_MB" \
    -print_final_stats=1 -artifact_prefix="$artifacts" "$corpus" "${seeds[@]}" >"$log" 2>&1 || status=$?
  if [ "$status" -ne 0 ]; then
    tail -n 60 "$log" >&2
    echo "$target: FAILED (exit $status); the input is in $artifacts" >&2
  else
    echo "$target: $(sed -n 's/^stat::number_of_executed_units: *//p' "$log") executions in ${seconds} s"
  fi
  rm -f "$log"
  return "$status"
}
