#!/usr/bin/env bash
# The persistent grid's rank-major walk for causal launches: causal launches
# from the first key, this build against 927e37c's libjitk_c.so (.carry/old),
# two alternating passes; then the attention GPU tests on sm_90a.
cd "$(dirname "$0")/../../../.."
B=.carry/build
export PYTHONPATH=$PWD/python
cp $B/lib/c_api/libabsl_* .carry/old/
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; cat $B/COMMIT; } | tee $OUT/gpu.txt
lib() { [[ $1 == old ]] && echo $PWD/.carry/old/libjitk_c.so || echo $PWD/$B/lib/c_api/libjitk_c.so; }
SHAPES="1,8,8,2560,2560;1,16,16,2560,2560;1,32,8,1280,1280;2,8,8,2560,2560;1,8,8,8192,8192;1,8,8,16384,16384;1,32,8,4096,4096;4,32,32,4096,4096"
for pass in 1 2; do
  for v in old new; do
    echo "== $v (pass $pass)"
    JITK_LIBRARY=$(lib $v) JITK_CACHE_DIR=/tmp/jc-$v timeout 100 python3 bench/device/prefill_chunk.py \
      --shapes "$SHAPES" 2>&1 | grep -v "system DB" | grep -v "^#"
  done
done > $OUT/causal_ab.txt 2>&1
# The attention GPU tests on the device's own target (sm_90a: the warp-specialized
# engine, with a causal case that its walk takes rank-major).
timeout 170 $B/tests/jitk_lib_attention_tests --gtest_filter='SparseAttnGpuTest.WgmmaEngineOnHopper' \
  > $OUT/gpu_tests.txt 2>&1
echo "gpu tests rc=$?"; grep "lq=640" $OUT/gpu_tests.txt | cut -c1-60,90-
awk '/ cos /{for(i=1;i<=NF;i++) if($i=="cos") print $(i+1)}' $OUT/gpu_tests.txt | sort -g | head -1 |
  sed 's/^/worst cos /'
grep -E "^\[  (PASSED|FAILED)" $OUT/gpu_tests.txt
grep -E "^==|default|sdpa" $OUT/causal_ab.txt | cut -c1-125
