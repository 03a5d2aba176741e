#!/bin/bash
# Device visit 6 (2ee513f's build; `new` = its templates plus a cp.async copy
# path for K / V / Q tiles whose rows are back to back (row stride = HEAD_DIM)
# and wholly inside the sequence: one address per thread and immediate
# offsets, no per-copy select and address chain). GPU tests with `new`, then
# the mma.sync engine (JITK_ATTN_TARGET=sm_90) timed in three alternating
# passes against 2ee513f's templates on the f16 / bf16 L=4096 cases and the
# sliding window.
cd "$(dirname "$0")/../../../.."
B=.carry/build
L=/tmp/logs; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat $B/COMMIT) + kernel_templates/sparse_attn_common.h $(date -u +%FT%TZ)" > $S
JITK_TEMPLATE_DIR=$(realpath .carry/tpl_new) JITK_CACHE_DIR=/tmp/cache_t_new timeout 200 \
  $B/tests/jitk_lib_attention_tests --gtest_filter='SparseAttnGpuTest.*' > $L/attn_new.log 2>&1
echo "attention gpu tests new rc=$? $(grep -E '^\[  (PASSED|FAILED)' $L/attn_new.log | tr '\n' ' ')" \
  "worst $(grep -o 'cos [0-9.]*' $L/attn_new.log | sort | head -1), cases $(grep -c 'cos ' $L/attn_new.log)" >> $S
grep -E "^\[  FAILED  \] [A-Z]|Failure|error" $L/attn_new.log | head -20 >> $S
BIN=$B/tests/jitk_lib_attention_tests OUT=$L/ab TIMEOUT=120 bash bench/device/attention_ab.sh \
  sm_90 3 new=.carry/tpl_new base=- -- "f16 L=4096,sliding" > /dev/null 2>&1
cp $L/ab/table.md $OUT/table_sm_90.md; cat $L/ab/runs.txt >> $S
tar czf "$OUT/logs.tar.gz" -C $L .
cat $S $OUT/table_sm_90.md
