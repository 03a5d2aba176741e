#!/bin/bash
# Device visit 1: the warp-specialized wgmma engine: correctness, then timings.
cd "$(dirname "$0")/.."
export JITK_CACHE_DIR=/tmp/jitk-cache
B=.carry/build/tests
mkdir -p "$OUT"
echo "commit $(cat .carry/build/COMMIT | tr '\n' ' ') $(date -u +%FT%TZ)" > "$OUT/summary.txt"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> "$OUT/summary.txt"
timeout 200 $B/jitk_lib_attention_tests --gtest_filter='SparseAttnGpuTest.WgmmaEngineOnHopper' > "$OUT/attn_tests.log" 2>&1
rc=$?; echo "wgmma gpu test rc=$rc $(grep -E '^\[  (PASSED|FAILED)' "$OUT/attn_tests.log" | tr '\n' ' ')" >> "$OUT/summary.txt"
grep -E "FAILED|Failure|cos|worst" "$OUT/attn_tests.log" | head -30 >> "$OUT/summary.txt"
JITK_ATTN_RESULTS="$OUT/timing_wgmma.txt" timeout 330 $B/jitk_lib_attention_tests --gtest_also_run_disabled_tests \
  --gtest_filter='SparseAttnGpuTest.DISABLED_Timing' > "$OUT/timing_wgmma.log" 2>&1; echo "timing wgmma rc=$?" >> "$OUT/summary.txt"
tail -5 "$OUT/timing_wgmma.log" >> "$OUT/summary.txt"
gzip -f "$OUT"/*.log
cat "$OUT/summary.txt"; echo "--- wgmma"; cat "$OUT/timing_wgmma.txt"
