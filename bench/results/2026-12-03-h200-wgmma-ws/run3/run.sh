#!/bin/bash
# Device visit 3: the registers setmaxnreg really moves (SASS), correctness of
# the warp-specialized engine with a 40-register producer, then timings.
cd "$(dirname "$0")/.."
export JITK_CACHE_DIR=/tmp/jitk-cache3
mkdir -p "$OUT"
TB=$(python3 -c "import triton,os;print(os.path.dirname(triton.__file__))" 2>/dev/null)
DIS=$(find "$TB" /usr/local/cuda* -name cuobjdump -type f 2>/dev/null | head -1)
echo "cuobjdump: $DIS"
for f in .carry/cubins/*.cubin; do echo "$f: $($DIS -sass $f 2>&1 | grep -io 'USETMAXREG[^;]*\|SETMAXREG[^;]*' | sort | uniq -c | tr '\n' ' ')"; done
JITK_TEMPLATE_DIR=$PWD/.carry/kt40 timeout 150 stdbuf -oL -eL .carry/build/tests/jitk_lib_attention_tests \
  --gtest_filter='SparseAttnGpuTest.WgmmaEngineOnHopper' > "$OUT/correct.log" 2>&1
echo "correct rc=$? stuck=$(grep -c STUCK $OUT/correct.log) $(grep -E '^\[  (PASSED|FAILED)' $OUT/correct.log | tr '\n' ' ')"
grep -v "cos 0.99\|cos 1.0\|^Google Test trace\|sparse_attn_gpu_test.cc:3" "$OUT/correct.log" | grep -v STUCK | head -12 | cut -c1-220
grep STUCK "$OUT/correct.log" | head -6
grep "WAVES=12\|WAVES=8" "$OUT/correct.log" | awk '{print $1, $2, $10, $11}' | sort -k4 | head -3
JITK_TEMPLATE_DIR=$PWD/.carry/kt40 JITK_ATTN_RESULTS="$OUT/timing.txt" timeout 260 stdbuf -oL .carry/build/tests/jitk_lib_attention_tests --gtest_also_run_disabled_tests \
  --gtest_filter='SparseAttnGpuTest.DISABLED_Timing' > "$OUT/timing.log" 2>&1; echo "timing rc=$?"
grep " | " "$OUT/timing.log" | grep -v "^|" | cut -d'|' -f1-4
