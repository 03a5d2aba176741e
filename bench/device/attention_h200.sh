#!/bin/bash
# One H200 visit for sparse_attn: GPU correctness tests, timings, SASS check,
# torch SDPA / FlexAttention parity. Build here first (see docs/sparse_attn.md):
#   cmake --build build-attn --target jitk_lib_attention_tests
#   mkdir -p build-attn/carry && strip -o build-attn/carry/jitk_lib_attention_tests \
#       build-attn/tests/jitk_lib_attention_tests
# then run with carry ["build-attn/carry"]. Logs go under $OUT; the summary prints last.
# QUICK=1: GPU tests only (no CPU tests), default configs only, no torch timing.
# BASELINE=<dir>: also time the headline shape against the kernel templates in
# <dir> (JITK_TEMPLATE_DIR) in the same run, through attention_ab.sh.
set -u
QUICK=${QUICK:-0}
NO_SWEEP=${NO_SWEEP:-$QUICK}  # NO_SWEEP=0 with QUICK=1: GPU tests, the config sweep, no torch timing
BIN=${BIN:-build-attn/carry/jitk_lib_attention_tests}
OUT=${OUT:-/tmp/attention_out}
DUMP=/tmp/attention_dump
mkdir -p "$OUT" "$DUMP"
export PYTHONUNBUFFERED=1

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw --format=csv \
  > "$OUT/gpu.txt" 2>&1
git rev-parse HEAD > "$OUT/commit.txt" 2>/dev/null || echo "no git" > "$OUT/commit.txt"

# Correctness on the GPU (the CPU tests run too, except the compile sweep).
FILTER='-Archs/SparseAttnCompileTest.*'
[ "$QUICK" = 1 ] && FILTER='SparseAttnGpuTest.*'
timeout 150 "$BIN" --gtest_filter="$FILTER" > "$OUT/tests.log" 2>&1
echo "tests rc=$?" >> "$OUT/summary.txt"

# Timings of the issue's shapes (default config + a small sweep).
JITK_ATTN_NO_SWEEP=$NO_SWEEP JITK_ATTN_RESULTS="$OUT/timing.txt" timeout 240 "$BIN" --gtest_also_run_disabled_tests \
  --gtest_filter='SparseAttnGpuTest.DISABLED_Timing' > "$OUT/timing.log" 2>&1
echo "timing rc=$?" >> "$OUT/summary.txt"

if [ -n "${BASELINE:-}" ]; then
  BIN="$BIN" OUT="$OUT/baseline" TIMEOUT=90 bash bench/device/attention_ab.sh - 1 new=- \
    base="$BASELINE" -- "causal f16 L=4096" > /dev/null 2>&1
  echo "baseline timing rc=$?" >> "$OUT/summary.txt"
fi

# Inputs/outputs for the parity script, plus the default causal f16 cubin.
JITK_ATTN_DUMP="$DUMP" JITK_ATTN_CUBIN="$OUT/sparse_attn_causal_f16_d128.cubin" timeout 45 "$BIN" \
  --gtest_also_run_disabled_tests --gtest_filter='SparseAttnGpuTest.DISABLED_DumpForParity' \
  > "$OUT/dump.log" 2>&1
echo "dump rc=$?" >> "$OUT/summary.txt"
if [ -f "$OUT/sparse_attn_causal_f16_d128.cubin" ]; then
  cuobjdump -sass "$OUT/sparse_attn_causal_f16_d128.cubin" > "$OUT/sass.txt" 2>&1
  {
    echo "SASS: HMMA $(grep -c HMMA "$OUT/sass.txt") LDSM $(grep -c LDSM "$OUT/sass.txt")" \
         "LDGSTS $(grep -c LDGSTS "$OUT/sass.txt") LDL/STL $(grep -cE 'LDL|STL' "$OUT/sass.txt")"
  } >> "$OUT/summary.txt"
fi

TIME_FLAG=--time
[ "$QUICK" = 1 ] && TIME_FLAG=
timeout 150 python3 bench/device/attention_parity.py "$DUMP" $TIME_FLAG > "$OUT/parity.log" 2>&1
echo "parity rc=$?" >> "$OUT/summary.txt"

echo "===== tests"; grep -E "^\[  (PASSED|FAILED) |tests ran|Failure|compiled" "$OUT/tests.log" | head -20
echo "===== parity"; grep -E "^[a-z_0-9]+$|  (ours|sdpa|flex|ours_lse|flex_lse)|timing|error" "$OUT/parity.log" | head -40
echo "===== summary"; cat "$OUT/summary.txt" "$OUT/gpu.txt"
echo "===== timing"; grep -E "^\|" "$OUT/timing.log"
if [ -n "${BASELINE:-}" ]; then echo "===== baseline ($BASELINE)"; cat "$OUT/baseline/table.md"; fi
