#!/bin/bash
# Device visit 9: jitk-tune sparse_attn on the sm_90a target (wgmma engine), and the C API tests.
cd "$(dirname "$0")/.."
export JITK_CACHE_DIR=/tmp/jitk-cache
mkdir -p "$OUT"
echo "commit $(cat .carry/build/COMMIT) $(date -u +%FT%TZ)" > "$OUT/summary.txt"
timeout 60 .carry/build/tests/jitk_lib_c_api_tests > "$OUT/c_api.log" 2>&1; echo "c_api rc=$? $(grep -E '^\[  (PASSED|FAILED)' "$OUT/c_api.log" | tr '\n' ' ')" >> "$OUT/summary.txt"
BUILD=.carry/build BUDGET=12,20s OUT=/tmp/tune timeout 200 bash bench/device/tune_sparse_attn.sh > /dev/null 2>&1; echo "tune rc=$?" >> "$OUT/summary.txt"
cp /tmp/tune/summary.md /tmp/tune/sweep.json /tmp/tune/sm_90.db "$OUT/" 2>/dev/null
tail -n 3 /tmp/tune/tune.log >> "$OUT/summary.txt"
gzip -f "$OUT/sweep.json" "$OUT/c_api.log"
cat "$OUT/summary.txt" "$OUT/summary.md"
