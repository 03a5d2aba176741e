#!/bin/bash
# Device visit 2 (the build in .carry/build): 64-token mask blocks (causal,
# sliding window, random 10 %), where only 64-row tiles apply, with the
# 64-row configs swept (the default, unbuffered 64x64x4x1, against the
# warp-specialized ones, two blocks per SM); then the mma.sync default
# (stage 1) on causal L=4096, f16 and bf16. Two alternating passes each.
cd "$(dirname "$0")/../../../.."
L=/tmp/logs; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat .carry/build/COMMIT) $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> $S
BIN=.carry/build/tests/jitk_lib_attention_tests OUT=$L/b64 SWEEP=1 TIMEOUT=250 \
  bash bench/device/attention_ab.sh sm_90a 2 new=- -- "block=64" > /dev/null 2>&1
cp $L/b64/table.md $OUT/table_block64.md; cat $L/b64/runs.txt >> $S
echo "block64 done $(date -u +%T)" >> $S
BIN=.carry/build/tests/jitk_lib_attention_tests OUT=$L/mma TIMEOUT=150 \
  bash bench/device/attention_ab.sh sm_90 3 new=- -- "causal f16 L=4096,causal bf16 L=4096" > /dev/null 2>&1
grep -v block=64 $L/mma/table.md > $OUT/table_mma.md; cat $L/mma/runs.txt >> $S
echo "done $(date -u +%T)" >> $S
tar czf "$OUT/logs.tar.gz" --exclude='cache_*' -C $L .
cat $S $OUT/table_block64.md $OUT/table_mma.md
