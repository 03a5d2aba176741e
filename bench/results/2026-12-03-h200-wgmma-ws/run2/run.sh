#!/bin/bash
# Device visit 2: which barrier wait of the warp-specialized engine never completes.
cd "$(dirname "$0")/.."
export JITK_CACHE_DIR=/tmp/jitk-cache2
mkdir -p "$OUT"
JITK_TEMPLATE_DIR=$PWD/.carry/kt timeout 120 stdbuf -oL -eL .carry/build/tests/jitk_lib_attention_tests \
  --gtest_filter='SparseAttnGpuTest.WgmmaEngineOnHopper' > "$OUT/diag.log" 2>&1
echo "rc=$?"
grep -v "cos 0.99\|cos 1.0" "$OUT/diag.log" | head -60
