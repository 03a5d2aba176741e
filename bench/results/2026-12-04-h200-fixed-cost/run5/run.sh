#!/bin/bash
# Device visit 5 (working tree on 416b0ba): K and V in rings of their own
# (STAGES K buffers freed after S = Q K^T, two V buffers) and two Q buffers. The
# sparse_attn GPU tests on the new build, then new against base (416b0ba's
# test binary with its own templates) at the sm_90a defaults, three
# alternating passes.
cd "$(dirname "$0")/../../../.."
B=.carry/build
L=/tmp/logs; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat $B/COMMIT) $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> $S
JITK_CACHE_DIR=/tmp/cache_t timeout 300 $B/tests/jitk_lib_attention_tests \
  --gtest_filter='SparseAttnGpuTest.*' > $L/attn_new.log 2>&1
echo "attention gpu tests new rc=$? $(grep -E '^\[  (PASSED|FAILED)' $L/attn_new.log | tr '\n' ' ')" \
  "worst $(grep -o 'cos [0-9.]*' $L/attn_new.log | sort | head -1), cases $(grep -c 'cos ' $L/attn_new.log)" >> $S
grep -E "^\[  FAILED  \] [A-Z]|Failure" -A3 $L/attn_new.log | head -30 >> $S
BIN=$B/tests/jitk_lib_attention_tests OUT=$L/ab TIMEOUT=150 bash bench/device/attention_ab.sh \
  sm_90a 3 new=- base=-@.carry/base/jitk_lib_attention_tests \
  -- "f16 L=4096,bf16 L=4096,sliding,B=1 L=16384" > /dev/null 2>&1
cp $L/ab/table.md $OUT/table_sm_90a.md; cat $L/ab/runs.txt >> $S
echo "done $(date -u +%T)" >> $S
tar czf "$OUT/logs.tar.gz" -C $L .
cat $S $OUT/table_sm_90a.md
