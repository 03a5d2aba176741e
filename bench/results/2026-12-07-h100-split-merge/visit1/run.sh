#!/bin/bash
# One device visit: key-range splits merged by the split pass's last block
# per query tile (the build's library, .carry/build) against the combine
# pass (139cfe2's library, .carry/old, with a5800f4's templates,
# .carry/tpl_base): decode steps without a window (32 ranges) and under
# windows of 256 (5 ranges) and 1024 keys (17), B=1 and B=8, two
# alternating passes. Then the attention GPU tests on the build (each case
# launched twice: the merge's counters left at zero).
cd "$(dirname "$0")/../../../.."
B=.carry/build
mkdir -p "$OUT"
S="$OUT/summary.txt"
echo "new $(head -1 $B/COMMIT) old $(cat .carry/old/COMMIT | head -1) $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> $S
cp $B/lib/c_api/libabsl_* .carry/old/
export PYTHONPATH=$PWD/python
SHAPES="1,32,8,1,32768;8,32,8,1,32768"
D=$OUT/decode_merge.txt; : > $D
for pass in 1 2; do
  for v in old new; do
    for w in 0 256 1024; do
      echo "== $v window $w pass $pass" >> $D
      if [[ $v == old ]]; then
        env JITK_LIBRARY=$PWD/.carry/old/libjitk_c.so JITK_TEMPLATE_DIR=$PWD/.carry/tpl_base \
          JITK_CACHE_DIR=/tmp/jc-old timeout 100 python3 bench/device/decode_step.py \
          --window $w --shapes "$SHAPES" 2>&1 | grep -v "system DB" >> $D
      else
        env JITK_LIBRARY=$PWD/$B/lib/c_api/libjitk_c.so JITK_CACHE_DIR=/tmp/jc-new \
          timeout 100 python3 bench/device/decode_step.py \
          --window $w --shapes "$SHAPES" 2>&1 | grep -v "system DB" >> $D
      fi
    done
  done
done
echo "decode done $(date -u +%T)" >> $S
JITK_CACHE_DIR=/tmp/jc-tests timeout 200 \
  $B/tests/jitk_lib_attention_tests --gtest_filter='SparseAttnGpuTest.*' > $OUT/gpu_tests.txt 2>&1
echo "gpu tests rc=$? $(date -u +%T)" >> $S
awk '/ cos /{for(i=1;i<=NF;i++) if($i=="cos") print $(i+1)}' $OUT/gpu_tests.txt | sort -g | head -1 | sed "s/^/worst cos /" >> $S
grep -E "^\[  (PASSED|FAILED)|second launch" $OUT/gpu_tests.txt | head -20 >> $S
cat $S; grep -E "^==|32768" $D | cut -c1-120
