# Shared by scripts/setup.sh and scripts/test.sh: install what is missing, then build.
# Debian 12 packages only (README, "Set up"); apt-get runs only when a package is missing.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${GPUSIM_BUILD_DIR:-$ROOT/build}"
PACKAGES=(build-essential cmake ninja-build ccache pkg-config
          libboost-dev libeigen3-dev nlohmann-json3-dev libyaml-cpp-dev libcli11-dev libfmt-dev
          libgtest-dev libgmock-dev libbenchmark-dev clang-format clang-tidy
          pybind11-dev python3-dev python3-numpy python3-pandas python3-matplotlib python3-pytest python3-yaml python3-jsonschema
          python3-nbformat python3-nbclient python3-nbconvert python3-ipykernel python3-distributed)

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
