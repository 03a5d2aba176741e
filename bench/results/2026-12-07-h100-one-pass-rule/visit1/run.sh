#!/bin/bash
# One device visit (.carry/build of the commit in COMMIT): decode steps under
# windows of 192 to 320 keys at batch 1 to 8, one pass (KV_SPLITS=1) and two
# ranges against the default's ranges.
cd "$(dirname "$0")/../../../.."
B=.carry/build
L=/tmp/logs_v3; rm -rf $L; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat $B/COMMIT | tr '\n' ' ') $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> $S
export JITK_CACHE_DIR=/tmp/jitk-cache LD_LIBRARY_PATH=$PWD/$B/lib/c_api
export JITK_LIBRARY=$PWD/$B/lib/c_api/libjitk_c.so
c() { echo -n "BLOCK_M=64,BLOCK_N=64,KV_SPLITS=$1,STAGES=2,WAVES=4"; }
for w in 192 256 320; do
  for b in 1 2 4 8; do
    PYTHONPATH=$PWD/python timeout 100 python3 bench/device/decode_step.py --window $w --shapes "$b,32,8,1,32768" \
      --configs "$(c 1);$(c 2)" 2>&1 | grep -v "system DB"
  done
done > $OUT/decode_one_pass.txt
echo "decode rc=$? $(date -u +%T)" >> $S
cat $S
grep -E "32768|window" $OUT/decode_one_pass.txt | cut -c1-150
