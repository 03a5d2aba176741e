#!/bin/bash
# Device visit 5 (the build in .carry/build, summary.txt names its commit):
# the sparse_attn GPU tests after the review fixes (a query-tile walk of
# 64x64x8x3 at d = 128 added, two blocks per SM at 112 KiB each), then the
# default configs timed once more, two passes, 64-token and 128-token masks.
cd "$(dirname "$0")/../../../.."
L=/tmp/logs; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat .carry/build/COMMIT) $(date -u +%FT%TZ)" > $S
JITK_CACHE_DIR=/tmp/cache_t timeout 200 .carry/build/tests/jitk_lib_attention_tests \
  --gtest_filter='SparseAttnGpuTest.*:SparseAttnWgmmaCompileTest.*' > $L/attn.log 2>&1
echo "attention gpu tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $L/attn.log | tr '\n' ' ')" \
  "worst $(grep -o 'cos [0-9.]*' $L/attn.log | sort | head -1), cases $(grep -c 'cos ' $L/attn.log)" >> $S
grep -E "^\[  FAILED  \] [A-Z]|Failure" -A3 $L/attn.log | head -12 >> $S
grep -E "d=128;.*BLOCK_M=64,BLOCK_N=64,STAGES=3,WAVES=8" $L/attn.log | grep "lq=1100" | head -2 >> $S
BIN=.carry/build/tests/jitk_lib_attention_tests OUT=$L/ab TIMEOUT=200 bash bench/device/attention_ab.sh \
  sm_90a 2 new=- -- "block=64,causal f16 L=4096,random blocks 10% f16 L=4096,sliding" > /dev/null 2>&1
cp $L/ab/table.md $OUT/table_sm_90a.md; cat $L/ab/runs.txt >> $S
echo "done $(date -u +%T)" >> $S
tar czf "$OUT/logs.tar.gz" --exclude='cache_*' -C $L .
cat $S $OUT/table_sm_90a.md
