#!/bin/bash
# One device visit: the split pass's merge with its count as one
# acquire-release atomic (.carry/tpl_acqrel, on the build's library)
# against the fences around a relaxed atomic (the build's templates) and
# the combine pass (139cfe2's library, .carry/old, with a5800f4's
# templates): decode steps under windows of 256 and 1024 keys, B=1 and
# B=8, two alternating passes; then the wgmma GPU test on tpl_acqrel.
cd "$(dirname "$0")/../../../.."
B=.carry/build
mkdir -p "$OUT"
S="$OUT/summary.txt"
echo "new $(head -1 $B/COMMIT) old $(head -1 .carry/old/COMMIT) $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> $S
cp $B/lib/c_api/libabsl_* .carry/old/
export PYTHONPATH=$PWD/python
SHAPES="1,32,8,1,32768;8,32,8,1,32768"
D=$OUT/decode_acqrel.txt; : > $D
for pass in 1 2; do
  for v in old fence acqrel; do
    for w in 256 1024; do
      echo "== $v window $w pass $pass" >> $D
      case $v in
        old) vars="JITK_LIBRARY=$PWD/.carry/old/libjitk_c.so JITK_TEMPLATE_DIR=$PWD/.carry/tpl_base" ;;
        fence) vars="JITK_LIBRARY=$PWD/$B/lib/c_api/libjitk_c.so" ;;
        acqrel) vars="JITK_LIBRARY=$PWD/$B/lib/c_api/libjitk_c.so JITK_TEMPLATE_DIR=$PWD/.carry/tpl_acqrel" ;;
      esac
      env $vars JITK_CACHE_DIR=/tmp/jc-$v timeout 100 python3 bench/device/decode_step.py \
        --window $w --shapes "$SHAPES" 2>&1 | grep -v "system DB" >> $D
    done
  done
done
echo "decode done $(date -u +%T)" >> $S
JITK_TEMPLATE_DIR=$PWD/.carry/tpl_acqrel JITK_CACHE_DIR=/tmp/jc-tests timeout 150 \
  $B/tests/jitk_lib_attention_tests --gtest_filter='SparseAttnGpuTest.Wgmma*' > $OUT/gpu_tests_acqrel.txt 2>&1
echo "gpu tests (tpl_acqrel) rc=$? $(date -u +%T)" >> $S
grep -E "^\[  (PASSED|FAILED)|second launch" $OUT/gpu_tests_acqrel.txt | head -20 >> $S
cat $S; grep -E "^==|32768" $D | cut -c1-120
