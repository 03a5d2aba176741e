#!/bin/bash
# Device visit 2 (the build of the commit in summary.txt): rank-major order
# only under a causal mask, chosen by the K / V reads per head
# (kRankMajorMaxKvReads = 4). GPU tests of the new build, then the mma.sync
# engine's causal cases (sm_90) in two alternating passes: rm (the same
# build with rank-major forced for causal masks), hm (head-major forced),
# base (74039fa's build and templates). Shapes: B=4 H=32 at L=4096, 8192,
# 16384 (3.9, 7.8, 15.5 reads per head in rank-major order), B=1 H=32 at
# L=8192 and 16384 (the same reads, a quarter of the blocks), f32 at 4096.
cd "$(dirname "$0")/../../../.."
B=.carry/build
L=/tmp/logs; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat $B/COMMIT) $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> $S
JITK_CACHE_DIR=/tmp/cache_t_new timeout 200 $B/tests/jitk_lib_attention_tests \
  --gtest_filter='SparseAttnGpuTest.*' > $L/attn_new.log 2>&1
echo "attention gpu tests new rc=$? $(grep -E '^\[  (PASSED|FAILED)' $L/attn_new.log | tr '\n' ' ')" \
  "worst $(grep -o 'cos [0-9.]*' $L/attn_new.log | sort | head -1), cases $(grep -c 'cos ' $L/attn_new.log)" >> $S
grep -E "^\[  FAILED  \] [A-Z]|Failure|error" $L/attn_new.log | head -20 >> $S
echo "tests done $(date -u +%T)" >> $S
BIN=$B/tests/jitk_lib_attention_tests OUT=$L/mma TIMEOUT=200 bash bench/device/attention_ab.sh \
  sm_90 2 rm=-@.carry/rm/jitk_lib_attention_tests hm=-@.carry/hm/jitk_lib_attention_tests \
  base=-@.carry/base/jitk_lib_attention_tests -- "causal" > /dev/null 2>&1
cp $L/mma/table.md $OUT/table_sm_90.md; cat $L/mma/runs.txt >> $S
echo "sm_90 done $(date -u +%T)" >> $S
tar czf "$OUT/logs.tar.gz" -C $L .
cat $S $OUT/table_sm_90.md
