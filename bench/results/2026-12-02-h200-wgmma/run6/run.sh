#!/bin/bash
# Device visit 6: wgmma engine (sm_90a) correctness, and timing against mma.sync (sm_90).
cd "$(dirname "$0")/.."
export JITK_CACHE_DIR=/tmp/jitk-cache
B=.carry/build/tests/jitk_lib_attention_tests
mkdir -p "$OUT"
echo "commit $(cat .carry/build/COMMIT)+wgmma $(date -u +%FT%TZ)" > "$OUT/summary.txt"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> "$OUT/summary.txt"
timeout 120 $B --gtest_filter='SparseAttnGpuTest.WgmmaEngineOnHopper' > "$OUT/wgmma_tests.log" 2>&1; echo "wgmma tests rc=$?" >> "$OUT/summary.txt"
grep -E "^\[  (PASSED|FAILED)" "$OUT/wgmma_tests.log" >> "$OUT/summary.txt"
grep -m5 -E "cos 0\.[0-8]|Failure|Expected|error" "$OUT/wgmma_tests.log" >> "$OUT/summary.txt"
JITK_ATTN_TARGET=sm_90a JITK_ATTN_RESULTS="$OUT/timing_wgmma.txt" timeout 150 $B --gtest_also_run_disabled_tests \
  --gtest_filter='SparseAttnGpuTest.DISABLED_Timing' > "$OUT/timing_wgmma.log" 2>&1; echo "timing wgmma rc=$?" >> "$OUT/summary.txt"
JITK_ATTN_TARGET=sm_90 JITK_ATTN_NO_SWEEP=1 JITK_ATTN_RESULTS="$OUT/timing_mma.txt" timeout 120 $B --gtest_also_run_disabled_tests \
  --gtest_filter='SparseAttnGpuTest.DISABLED_Timing' > "$OUT/timing_mma.log" 2>&1; echo "timing mma rc=$?" >> "$OUT/summary.txt"
timeout 100 $B --gtest_filter='SparseAttnGpuTest.*:-*Wgmma*' > "$OUT/tests.log" 2>&1; echo "mma tests rc=$?" >> "$OUT/summary.txt"
grep -E "^\[  (PASSED|FAILED)" "$OUT/tests.log" >> "$OUT/summary.txt"
gzip -f "$OUT"/*.log
cat "$OUT/summary.txt"; echo "--- mma"; cat "$OUT/timing_mma.txt"; echo "--- wgmma"; cat "$OUT/timing_wgmma.txt"
