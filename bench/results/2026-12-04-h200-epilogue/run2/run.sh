#!/bin/bash
# Device visit 2 (working tree on bc9e566): the sparse_attn GPU tests with the
# warp-specialized engine issuing the next query tile's first S = Q K^T after
# the wait for this tile's last P V and before its stores (visit 1 issued it
# before that wait: ptxas serialized every MMA, C7518), then the sm_90a
# defaults timed in three alternating passes: new (embedded templates), base
# (bc9e566's), nostore (new without the store of O: a bound on what the
# epilogue still costs, wrong on purpose).
cd "$(dirname "$0")/../../../.."
B=.carry/build
L=/tmp/logs; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat $B/COMMIT | tr '\n' ' ') $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> $S
JITK_CACHE_DIR=/tmp/cache_new timeout 240 $B/tests/jitk_lib_attention_tests \
  --gtest_filter='SparseAttnGpuTest.*' > $L/attn_new.log 2>&1
echo "attention gpu tests new rc=$? $(grep -E '^\[  (PASSED|FAILED)' $L/attn_new.log | tr '\n' ' ')" \
  "worst $(grep -o 'cos [0-9.]*' $L/attn_new.log | sort | head -1), cases $(grep -c 'cos ' $L/attn_new.log)" >> $S
grep -E "^\[  FAILED  \] [A-Z]|Failure|error" $L/attn_new.log | head -20 >> $S
echo "tests done $(date -u +%T)" >> $S
BIN=$B/tests/jitk_lib_attention_tests OUT=$L/ab TIMEOUT=120 bash bench/device/attention_ab.sh \
  sm_90a 3 new=- base=.carry/tpl_base nostore=.carry/tpl_nostore -- f16 > /dev/null 2>&1
cp $L/ab/table.md $OUT/table_sm_90a.md; cat $L/ab/runs.txt >> $S
echo "ab done $(date -u +%T)" >> $S
tar czf "$OUT/logs.tar.gz" -C $L .
cat $S $OUT/table_sm_90a.md
