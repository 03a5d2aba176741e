#!/usr/bin/env bash
# One visit to the GPU machine: jitk next to torch on the same inputs.
#
#   bench/device/run.sh [BUILD_DIR] [side_by_side.py options...]
#
# BUILD_DIR (default build/) is a build folder made on the CPU machine and
# carried along; it must hold lib/c_api/libjitk_c.so (with the abseil shared
# objects beside it) and, for the launch numbers, bench/*_bench. Nothing is
# built here. Writes into $OUT (default /tmp/jitk-bench):
#   results.md   header (date, GPU, driver, commit, command) and every table
#   short.md     the short table, also printed last
#   scaled_add.csv attention.csv parity.csv header.json
#   *_bench.json Google Benchmark output; attention.png, scaled_add.png
#   run.log      everything the steps printed
# bench/results/README.md says how a run is recorded in the repository.
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD="build"
if [[ $# -gt 0 && "$1" != -* ]]; then BUILD="$1"; shift; fi
OUT="${OUT:-/tmp/jitk-bench}"
mkdir -p "$OUT"
LOG="$OUT/run.log"
: >"$LOG"

BUILD="$(cd "$BUILD" 2>/dev/null && pwd || echo "$BUILD")"
export JITK_LIBRARY="${JITK_LIBRARY:-$BUILD/lib/c_api/libjitk_c.so}"
export PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}"
# Benchmarks linked against shared libraries the GPU machine may lack find
# copies carried in the build folder.
export LD_LIBRARY_PATH="$BUILD/bench:$BUILD/lib/c_api${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

step() { echo "== $*" | tee -a "$LOG"; }

# 1. Host benchmarks (GPU launch overhead, get_kernel memo hit): JSON for the tables.
for bench in launch_bench get_kernel_bench c_api_bench; do
  if [[ -x "$BUILD/bench/$bench" ]]; then
    step "$bench"
    timeout 45 "$BUILD/bench/$bench" --benchmark_format=json --benchmark_out="$OUT/$bench.json" \
      --benchmark_out_format=json --benchmark_min_time=0.2 >>"$LOG" 2>&1 ||
      echo "$bench failed (rc=$?)" | tee -a "$LOG"
  else
    echo "$BUILD/bench/$bench not found: no $bench numbers" | tee -a "$LOG"
  fi
done

# 2. jitk vs torch (scaled_add, sparse_attn when built in), parity, tables.
step "side_by_side.py $*"
timeout 330 python3 bench/device/side_by_side.py --out "$OUT" --build "$BUILD" "$@" 2>&1 |
  tee -a "$LOG" | grep -E "^(scaled_add|attention) |failed" || true

# 3. Plots.
step "plot.py"
python3 bench/device/plot.py "$OUT" >>"$LOG" 2>&1 || echo "plot failed" | tee -a "$LOG"

# 4. The Python package's tests, on the GPU with torch.
step "python tests"
timeout 90 python3 -m unittest discover -s tests/python >>"$LOG" 2>&1
py_rc=$?
py_summary=$(grep -E "^(Ran |OK|FAILED)" "$LOG" | tail -2 | tr '\n' ' ')

echo
cat "$OUT/short.md" 2>/dev/null || echo "no short table: see $LOG"
echo "| python tests | rc=$py_rc $py_summary | | |"
