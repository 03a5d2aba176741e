#!/bin/bash
# Device visit 4: sparse_attn GPU tests, timings (warp-specialized engine with
# and without ping-pong), then jitk next to SDPA / FlexAttention.
cd "$(dirname "$0")/.."
export JITK_CACHE_DIR=/tmp/jitk-cache4
B=.carry/build/tests
mkdir -p "$OUT"
echo "commit $(cat .carry/build/COMMIT) $(date -u +%FT%TZ)" > "$OUT/summary.txt"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> "$OUT/summary.txt"
timeout 120 $B/jitk_lib_attention_tests --gtest_filter='SparseAttnGpuTest.*' > "$OUT/attn_tests.log" 2>&1
echo "attention gpu tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $OUT/attn_tests.log | tr '\n' ' ')" >> "$OUT/summary.txt"
grep -E "^\[  FAILED  \] [A-Z]" "$OUT/attn_tests.log" >> "$OUT/summary.txt"
echo "worst cos (wgmma ws): $(grep 'WAVES=12\|WAVES=8}' $OUT/attn_tests.log | grep -o 'cos [0-9.]*' | sort | head -1)" >> "$OUT/summary.txt"
JITK_ATTN_RESULTS="$OUT/timing.txt" timeout 100 $B/jitk_lib_attention_tests --gtest_also_run_disabled_tests \
  --gtest_filter='SparseAttnGpuTest.DISABLED_Timing' > "$OUT/timing.log" 2>&1; echo "timing rc=$?" >> "$OUT/summary.txt"
JITK_TEMPLATE_DIR=$PWD/.carry/kt_nopp JITK_ATTN_RESULTS="$OUT/timing_nopingpong.txt" timeout 100 $B/jitk_lib_attention_tests --gtest_also_run_disabled_tests \
  --gtest_filter='SparseAttnGpuTest.DISABLED_Timing' > "$OUT/timing_nopingpong.log" 2>&1; echo "timing no ping-pong rc=$?" >> "$OUT/summary.txt"
export JITK_LIBRARY=$PWD/.carry/build/lib/c_api/libjitk_c.so PYTHONPATH=$PWD/python LD_LIBRARY_PATH=$PWD/.carry/build/lib/c_api
timeout 280 python3 bench/device/side_by_side.py --out "$OUT/sbs" --build .carry/build --sizes 24-24 --dtypes float16 \
  --attn-lengths 4096,16384 --attn-dtypes float16,bfloat16 --attn-budget-s 200 > "$OUT/sbs.log" 2>&1
echo "side_by_side rc=$?" >> "$OUT/summary.txt"
gzip -f "$OUT"/*.log
cat "$OUT/summary.txt"; echo "--- timing (ping-pong)"; grep "WAVES=12\|default" "$OUT/timing.txt" | cut -d'|' -f1-4
echo "--- no ping-pong"; grep "WAVES=12" "$OUT/timing_nopingpong.txt" | cut -d'|' -f1-4
echo "--- torch"; cat "$OUT/sbs/short.md" 2>/dev/null | tail -25
