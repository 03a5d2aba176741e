#!/bin/bash
# Decode steps at B=1 where the window's keys cross a tile edge (LK=32731):
# windows of 576 and 768 keys (10 and 13 tiles) and 640 (11), the default
# (one range per tile) against 8 ranges (.carry/old/c_api, as ../visit1/run.sh).
cd "$(dirname "$0")/../../../.."
S="$OUT/summary.txt"; mkdir -p "$OUT"
echo "library $(cat .carry/old/COMMIT | tr '\n' ' ') $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> $S
for w in 576 640 768 576 640 768; do
  JITK_LIBRARY=$PWD/.carry/old/c_api/libjitk_c.so JITK_CACHE_DIR=/tmp/jitk-cache PYTHONPATH=$PWD/python \
    timeout 60 python3 bench/device/decode_step.py --window $w --shapes "1,32,8,1,32731" \
    --configs "BLOCK_M=64,BLOCK_N=64,KV_SPLITS=8,STAGES=2,WAVES=4" 2>&1 | grep -v "system DB" | sed "s|^|w$w |"
done > $OUT/decode.txt
echo "decode rc=$? $(date -u +%T)" >> $S
cat $S; grep -E "1,32,8,1," $OUT/decode.txt | cut -c1-170
