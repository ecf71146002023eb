#!/usr/bin/env bash
# alloclab set-up for a fresh Debian 12 machine, as root (or with sudo):
#   scripts/setup.sh report          install dependencies, build what the main job runs (alloclab,
#                                    the explorer page), write the default report (the quick main
#                                    job: about 75-100 s on 2 cores)
#   scripts/setup.sh report --full   the same with the complete main job (about 14 minutes)
#   scripts/setup.sh test            install dependencies, check formatting (clang-format), build,
#                                    run every test (CI runs this)
# CUDA is optional: if nvcc is installed (/usr/local/cuda) the gpu/ module is built as well;
# its tests are skipped, with the reason, where no GPU is present.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
  echo "usage: scripts/setup.sh report [--full] | test" >&2
  exit 2
}
mode=${1:-}
job=()
case "$mode" in
  report)
    case "${2:-}" in "") ;; --full) job=(--full) ;; *) usage ;; esac
    ;;
  test) [ $# -eq 1 ] || usage ;;
  *) usage ;;
esac

# Debian packages, each chosen for a reason given in docs/dependencies.md.
packages=(build-essential cmake ninja-build
  libeigen3-dev libboost-dev libboost-context-dev catch2 libcli11-dev nlohmann-json3-dev
  libfmt-dev librandom123-dev gnuplot-nox libopenmpi-dev openmpi-bin emscripten)
# The report test renders the HTML report in headless Chromium; CI checks the formatting with
# Debian's clang-format (the version .clang-format is written for).
if [ "$mode" = test ]; then packages+=(chromium clang-format); fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# nvcc lives outside PATH on a stock CUDA install.
if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi

if [ "$mode" = test ]; then scripts/check-format.sh; fi

build=${ALLOCLAB_BUILD_DIR:-build}
jobs=${ALLOCLAB_JOBS:-$(nproc)}
config=(-DCMAKE_BUILD_TYPE=Release)
# Where no GPU is visible (CI), nothing built here can launch a kernel: the CUDA sources are
# compiled to PTX only, without ptxas's sm_90 machine code (ALLOCLAB_CUDA_SASS, CMakeLists.txt;
# docs/testing.md, "Build time"). ALLOCLAB_CUDA_SASS=ON|OFF in the environment decides instead.
sass=${ALLOCLAB_CUDA_SASS:-}
if [ -z "$sass" ]; then
  sass=OFF
  if nvidia-smi -L >/dev/null 2>&1; then sass=ON; fi
fi
config+=(-DALLOCLAB_CUDA_SASS="$sass")
# ccache, where installed, as the compiler launcher (an empty launcher where it is not, so that a
# build directory configured with it keeps working after ccache is removed).
launcher=
if command -v ccache >/dev/null; then launcher=ccache; fi
config+=(-DCMAKE_CXX_COMPILER_LAUNCHER="$launcher")
if command -v nvcc >/dev/null; then config+=(-DCMAKE_CUDA_COMPILER_LAUNCHER="$launcher"); fi
cmake -S . -B "$build" -G Ninja "${config[@]}"
if [ "$mode" = test ]; then
  cmake --build "$build" -j "$jobs"
else
  # The main job runs cli/alloclab and copies explorer/explorer.html (where CMake found em++):
  # those two targets and what they link, no tests, no benchmarks.
  targets=(alloclab)
  if ninja -C "$build" -t query explorer >/dev/null 2>&1; then targets+=(explorer); fi
  cmake --build "$build" -j "$jobs" --target "${targets[@]}"
fi

if [ "$mode" = test ]; then
  cd "$build"
  ctest --output-on-failure -j "$jobs"
else
  scripts/main-job.sh "${job[@]}" "$build"
fi
