#!/usr/bin/env bash
# Installs jitk's build dependencies (Debian 12) and configures + builds it.
#   scripts/setup.sh [BUILD_DIR]      default BUILD_DIR: build
# Idempotent: packages already present are not fetched again.
set -euo pipefail

BUILD_DIR="${1:-build}"
PACKAGES=(
  build-essential cmake pkg-config
  libabsl-dev libsqlite3-dev libgtest-dev libgmock-dev libbenchmark-dev
  libxxhash-dev nlohmann-json3-dev libcli11-dev python3
  libamdhip64-dev libamd-comgr-dev libhsa-runtime-dev rocminfo rocm-device-libs
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""
  [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi

# The CUDA backend needs only the toolkit headers at build time; without
# them it is left out and the HIP backend still builds.
if [[ ! -f /usr/local/cuda/include/nvrtc.h ]]; then
  echo "setup: /usr/local/cuda not found; building without the CUDA backend"
fi

cmake -S "$(dirname "$0")/.." -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build "$BUILD_DIR" -j"$(nproc)"
