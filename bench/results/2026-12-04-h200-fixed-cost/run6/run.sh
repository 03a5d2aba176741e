#!/bin/bash
# Device visit 6 (416b0ba's build; templates of the working tree in
# .carry/tpl_flat): the computing warpgroups walk every key tile of their
# block's query tiles in one loop, issuing the next query tile's first
# S = Q K^T with the last P V of the current one. The sparse_attn GPU tests
# on those templates, then new against base (416b0ba's embedded templates),
# same binary, three alternating passes.
cd "$(dirname "$0")/../../../.."
BIN=.carry/base/jitk_lib_attention_tests
L=/tmp/logs; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "416b0ba + tpl_flat $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> $S
JITK_TEMPLATE_DIR=$(realpath .carry/tpl_flat) JITK_CACHE_DIR=/tmp/cache_t timeout 300 $BIN \
  --gtest_filter='SparseAttnGpuTest.*' > $L/attn_new.log 2>&1
echo "attention gpu tests new rc=$? $(grep -E '^\[  (PASSED|FAILED)' $L/attn_new.log | tr '\n' ' ')" \
  "worst $(grep -o 'cos [0-9.]*' $L/attn_new.log | sort | head -1), cases $(grep -c 'cos ' $L/attn_new.log)" >> $S
grep -E "^\[  FAILED  \] [A-Z]|Failure" -A3 $L/attn_new.log | head -30 >> $S
BIN=$BIN OUT=$L/ab TIMEOUT=150 bash bench/device/attention_ab.sh \
  sm_90a 3 new=.carry/tpl_flat base=- \
  -- "f16 L=4096,bf16 L=4096,sliding,B=1 L=16384" > /dev/null 2>&1
cp $L/ab/table.md $OUT/table_sm_90a.md; cat $L/ab/runs.txt >> $S
echo "done $(date -u +%T)" >> $S
tar czf "$OUT/logs.tar.gz" --exclude='cache_*' -C $L .
cat $S $OUT/table_sm_90a.md
