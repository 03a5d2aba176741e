#!/usr/bin/env bash
# The main job: set up, build, report the GPUs jitk finds and compile the
# built-in kernels for them (or for gfx90a and sm_90 when there is none),
# printing each kernel's resource usage.
#   scripts/main.sh [BUILD_DIR]
set -euo pipefail
BUILD_DIR="${1:-build}"
"$(dirname "$0")/setup.sh" "$BUILD_DIR"
"$BUILD_DIR/lib/jitk-info" --compile
