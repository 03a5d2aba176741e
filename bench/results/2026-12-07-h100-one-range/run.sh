#!/bin/bash
# One device visit: the split kernels running the unsplit code for a launch
# of one range (.carry/tpl_one, the working tree's templates) against the
# build's (base): decode steps at windows 128 (one pass) and 1024 (17 / 4
# ranges: unchanged code), the unsplit kernel pinned on base; two
# alternating passes. Then the attention GPU tests on tpl_one.
# (tpl_one also branched in mma_tma_block, dropped afterwards: it spills
# there, 2026-12-07-cpu-one-range; these decode steps run fwd_block.)
cd "$(dirname "$0")/../../.."
B=.carry/build
mkdir -p "$OUT"
S="$OUT/summary.txt"
echo "commit $(cat $B/COMMIT | tr '\n' ' ') $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> $S
export PYTHONPATH=$PWD/python JITK_LIBRARY=$PWD/$B/lib/c_api/libjitk_c.so
SHAPES="1,32,8,1,32768;8,32,8,1,32768"
PIN="BLOCK_M=64,BLOCK_N=64,KV_SPLITS=1,STAGES=2,WAVES=4"
D=$OUT/decode_one.txt; : > $D
for pass in 1 2; do
  for v in base one; do
    for w in 128 1024; do
      echo "== templates $v window $w pass $pass" >> $D
      env $([[ $v != base ]] && echo JITK_TEMPLATE_DIR=$PWD/.carry/tpl_$v) JITK_CACHE_DIR=/tmp/jc-$v \
        timeout 100 python3 bench/device/decode_step.py --window $w --shapes "$SHAPES" \
        --configs "$([[ $v == base && $w == 128 ]] && echo $PIN)" 2>&1 | grep -v "system DB" >> $D
    done
  done
done
echo "decode done $(date -u +%T)" >> $S
JITK_TEMPLATE_DIR=$PWD/.carry/tpl_one JITK_CACHE_DIR=/tmp/jc-tests timeout 150 \
  $B/tests/jitk_lib_attention_tests --gtest_filter='SparseAttnGpuTest.*' > $OUT/gpu_tests_one.txt 2>&1
echo "gpu tests (tpl_one) rc=$? $(date -u +%T)" >> $S
awk '/ cos /{for(i=1;i<=NF;i++) if($i=="cos") print $(i+1)}' $OUT/gpu_tests_one.txt | sort -g | head -1 | sed "s/^/worst cos /" >> $S
grep -E "^\[  (PASSED|FAILED)" $OUT/gpu_tests_one.txt >> $S
cat $S; grep -E "^==|32768" $D | cut -c1-150
