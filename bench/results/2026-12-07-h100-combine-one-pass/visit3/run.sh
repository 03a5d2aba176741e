#!/bin/bash
# One device visit: why the split kernel's one pass (a window of 128 keys,
# the build's default) ran slower than the unsplit kernel pinned. Template
# variants (JITK_TEMPLATE_DIR): the build's (base), the split entry compiled
# as the unsplit kernel (plain: the same code under the split name), the
# split grid's index arithmetic skipped for one range (k1: no remainder,
# no key_range), without the combine branch (nocomb, right for one pass
# only); each with the default (split kernel, one pass), the unsplit kernel
# pinned on base; two alternating passes.
cd "$(dirname "$0")/../../../.."
B=.carry/build
mkdir -p "$OUT"
S="$OUT/summary.txt"
echo "commit $(cat $B/COMMIT | tr '\n' ' ') $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> $S
export PYTHONPATH=$PWD/python JITK_LIBRARY=$PWD/$B/lib/c_api/libjitk_c.so
SHAPES="1,32,8,1,32768;8,32,8,1,32768"
PIN="BLOCK_M=64,BLOCK_N=64,KV_SPLITS=1,STAGES=2,WAVES=4"
D=$OUT/decode_variants.txt; : > $D
for pass in 1 2; do
  for v in base plain k1 nocomb; do
    echo "== templates $v window 128 pass $pass" >> $D
    env $([[ $v != base ]] && echo JITK_TEMPLATE_DIR=$PWD/.carry/tpl_$v) JITK_CACHE_DIR=/tmp/jc-$v \
      timeout 100 python3 bench/device/decode_step.py --window 128 --shapes "$SHAPES" \
      --configs "$([[ $v == base ]] && echo $PIN)" 2>&1 | grep -v "system DB" >> $D
  done
done
echo "done $(date -u +%T)" >> $S
cat $S; grep -E "^==|32768" $D | cut -c1-150
