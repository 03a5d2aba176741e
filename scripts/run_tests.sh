#!/usr/bin/env bash
# Builds (if needed) and runs every test. GPU tests skip without a GPU.
#   scripts/run_tests.sh [BUILD_DIR]
set -euo pipefail
BUILD_DIR="${1:-build}"
"$(dirname "$0")/setup.sh" "$BUILD_DIR"
ctest --test-dir "$BUILD_DIR" --output-on-failure -j"$(nproc)"
