#!/bin/bash
# Device visit 1 (the build in .carry/build, summary.txt names its commit):
# the sparse_attn GPU tests, with 64-row warp-specialized configs now two
# blocks per SM; then the configs swept (SWEEP=1) on random block masks,
# causal and dense, two alternating passes; then the previous build
# (.carry/base: 64-row configs one block per SM) on the causal sweep, once.
cd "$(dirname "$0")/../../../.."
L=/tmp/logs; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat .carry/build/COMMIT) base $(cat .carry/base/COMMIT) $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> $S
JITK_CACHE_DIR=/tmp/cache_t timeout 200 .carry/build/tests/jitk_lib_attention_tests \
  --gtest_filter='SparseAttnGpuTest.*' > $L/attn.log 2>&1
echo "attention gpu tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $L/attn.log | tr '\n' ' ')" \
  "worst $(grep -o 'cos [0-9.]*' $L/attn.log | sort | head -1), cases $(grep -c 'cos ' $L/attn.log)" >> $S
grep -E "^\[  FAILED  \] [A-Z]|Failure" -A3 $L/attn.log | head -12 >> $S
grep -E "BLOCK_M=64,BLOCK_N=64,STAGES=3,WAVES=8" $L/attn.log | head -3 >> $S
echo "tests done $(date -u +%T)" >> $S
BIN=.carry/build/tests/jitk_lib_attention_tests OUT=$L/sweep SWEEP=1 TIMEOUT=200 \
  bash bench/device/attention_ab.sh sm_90a 2 new=- -- \
  "random blocks 10% f16 L=4096,random blocks 30%,causal f16 L=4096,dense f16 L=4096,random blocks 10% f16 L=16384" > /dev/null 2>&1
cp $L/sweep/table.md $OUT/table_sweep.md; cat $L/sweep/runs.txt >> $S
echo "sweep done $(date -u +%T)" >> $S
BIN=.carry/base/tests/jitk_lib_attention_tests OUT=$L/base SWEEP=1 TIMEOUT=120 \
  bash bench/device/attention_ab.sh sm_90a 1 base=- -- "causal f16 L=4096" > /dev/null 2>&1
cp $L/base/table.md $OUT/table_base.md; cat $L/base/runs.txt >> $S
echo "done $(date -u +%T)" >> $S
tar czf "$OUT/logs.tar.gz" --exclude='cache_*' -C $L .
cat $S $OUT/table_sweep.md $OUT/table_base.md
