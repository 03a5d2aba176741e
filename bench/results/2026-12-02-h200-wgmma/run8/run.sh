#!/bin/bash
# Device visit 8: sm_90a as Hopper's device target: every test binary, then
# sparse_attn timings (wgmma default + sweep; mma.sync defaults for the ratio).
cd "$(dirname "$0")/.."
export JITK_CACHE_DIR=/tmp/jitk-cache
B=.carry/build/tests
mkdir -p "$OUT"
echo "commit $(cat .carry/build/COMMIT) $(date -u +%FT%TZ)" > "$OUT/summary.txt"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> "$OUT/summary.txt"
for t in jitk_lib_tests jitk_lib_backend_cuda_tests jitk_lib_kernels_tests jitk_lib_c_api_tests; do
  timeout 60 $B/$t > "$OUT/$t.log" 2>&1; echo "$t rc=$? $(grep -E '^\[  (PASSED|FAILED)' "$OUT/$t.log" | tr '\n' ' ')" >> "$OUT/summary.txt"
  grep -E "^\[  FAILED  \] [A-Z]" "$OUT/$t.log" >> "$OUT/summary.txt"
done
timeout 150 $B/jitk_lib_attention_tests --gtest_filter='SparseAttnGpuTest.*' > "$OUT/attn_tests.log" 2>&1; echo "attention gpu rc=$? $(grep -E '^\[  (PASSED|FAILED)' "$OUT/attn_tests.log" | tr '\n' ' ')" >> "$OUT/summary.txt"
grep -E "^\[  FAILED  \] [A-Z]" "$OUT/attn_tests.log" >> "$OUT/summary.txt"
JITK_ATTN_RESULTS="$OUT/timing_wgmma.txt" timeout 200 $B/jitk_lib_attention_tests --gtest_also_run_disabled_tests \
  --gtest_filter='SparseAttnGpuTest.DISABLED_Timing' > "$OUT/timing_wgmma.log" 2>&1; echo "timing wgmma rc=$?" >> "$OUT/summary.txt"
JITK_ATTN_TARGET=sm_90 JITK_ATTN_NO_SWEEP=1 JITK_ATTN_RESULTS="$OUT/timing_mma.txt" timeout 100 $B/jitk_lib_attention_tests --gtest_also_run_disabled_tests \
  --gtest_filter='SparseAttnGpuTest.DISABLED_Timing' > "$OUT/timing_mma.log" 2>&1; echo "timing mma rc=$?" >> "$OUT/summary.txt"
gzip -f "$OUT"/*.log
cat "$OUT/summary.txt"; echo "--- mma"; cat "$OUT/timing_mma.txt"; echo "--- wgmma"; cat "$OUT/timing_wgmma.txt"
