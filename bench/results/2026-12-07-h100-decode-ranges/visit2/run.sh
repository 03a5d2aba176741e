#!/bin/bash
# One device visit: decode steps with the range count pinned (KV_SPLITS 2,
# 4, 8, 16, 32; 64/64/4/2) beside the default, without a window and under
# windows of 1024 and 4096 keys, B=1 and B=8; two passes.
cd "$(dirname "$0")/../../../.."
B=.carry/build
mkdir -p "$OUT"
echo "commit $(cat $B/COMMIT | head -1) $(date -u +%FT%TZ)" > $OUT/summary.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> $OUT/summary.txt
export PYTHONPATH=$PWD/python JITK_LIBRARY=$PWD/$B/lib/c_api/libjitk_c.so JITK_CACHE_DIR=/tmp/jc
C="BLOCK_M=64,BLOCK_N=64,STAGES=2,WAVES=4,KV_SPLITS"
for pass in 1 2; do
  for w in 0 1024 4096; do
    echo "== window $w pass $pass"
    timeout 100 python3 bench/device/decode_step.py --window $w --shapes "1,32,8,1,32768;8,32,8,1,32768" \
      --configs "$C=2;$C=4;$C=8;$C=16;$C=32" 2>&1 | grep -v "system DB"
  done
done > $OUT/decode_ranges.txt
echo "done $(date -u +%T)" >> $OUT/summary.txt
cat $OUT/summary.txt; grep -E "^==|32768" $OUT/decode_ranges.txt | sed 's/BLOCK_M=64,BLOCK_N=64,STAGES=2,WAVES=4,//' | cut -c1-40,55-70,100-140
