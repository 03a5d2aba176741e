#!/bin/bash
# Decode steps (one query row, Hq=32, Hkv=8, keys to 32731, sliding windows)
# with every call's keys from DRAM: 16 K / V caches in turn
# (decode_step.py --layers), the default and the unsplit kernel, B=1 and 8.
# Library: .carry/build (its COMMIT).
cd "$(dirname "$0")/../../.."
mkdir -p "$OUT"
LIB=$PWD/.carry/build/lib/c_api/libjitk_c.so
C="BLOCK_M=64,BLOCK_N=64,STAGES=2,WAVES=4,KV_SPLITS"
{ cat .carry/build/COMMIT | head -1; date -u +%FT%TZ; nvidia-smi --query-gpu=name --format=csv,noheader; } > $OUT/cold.txt
for w in 256 1024; do
  JITK_LIBRARY=$LIB JITK_CACHE_DIR=/tmp/jitk-cache PYTHONPATH=$PWD/python timeout 100 \
    python3 bench/device/decode_step.py --window $w --layers 16 --passes 5 \
    --shapes "1,32,8,1,32731;8,32,8,1,32731" --configs "$C=1" 2>&1 |
    grep -v "system DB" | sed "s|^|w$w |"
done >> $OUT/cold.txt
echo "cold rc=$? $(date -u +%T)"
grep -hE "^w[0-9]+ +[0-9]+,32,8,1," $OUT/cold.txt | sed 's/   (median [^)]*)//' |
  awk '{print $1, $2, $3, $4, $7, $NF}' | sed 's/BLOCK_M=64,BLOCK_N=64,STAGES=2,WAVES=4,//'
