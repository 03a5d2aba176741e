#!/bin/bash
# One device visit: decode steps under windows of 1024 and 4096 keys, the
# default's range counts and stages against others (KV_SPLITS 8, 16, 64;
# three stages), B=1 and B=8, one pass each.
cd "$(dirname "$0")/../../../.."
B=.carry/build
mkdir -p "$OUT"
echo "commit $(cat $B/COMMIT | head -1) $(date -u +%FT%TZ)" > $OUT/summary.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> $OUT/summary.txt
export PYTHONPATH=$PWD/python JITK_LIBRARY=$PWD/$B/lib/c_api/libjitk_c.so
C="BLOCK_M=64,BLOCK_N=64,STAGES=2,WAVES=4,KV_SPLITS"
for w in 1024 4096; do
  timeout 150 python3 bench/device/decode_step.py --window $w --shapes "1,32,8,1,32768;8,32,8,1,32768" \
    --configs "$C=8;$C=16;$C=64;BLOCK_M=64,BLOCK_N=64,STAGES=3,WAVES=4,KV_SPLITS=32" 2>&1 | grep -v "system DB"
done > $OUT/decode_ranges.txt
echo "done $(date -u +%T)" >> $OUT/summary.txt
cat $OUT/summary.txt; grep -E "^#|32768" $OUT/decode_ranges.txt | cut -c1-150
