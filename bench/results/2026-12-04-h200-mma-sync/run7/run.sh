#!/bin/bash
# Device visit 7 (working tree on 7c3c142, as committed next): the sparse_attn
# GPU tests with the final templates and defaults (mma.sync: 128x64 for every
# mask, causal full tiles in their own loop), then the defaults of both
# engines timed twice.
cd "$(dirname "$0")/../../../.."
B=.carry/build
L=/tmp/logs; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat $B/COMMIT | tr '\n' ' ') $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> $S
JITK_CACHE_DIR=/tmp/cache_new timeout 200 $B/tests/jitk_lib_attention_tests \
  --gtest_filter='SparseAttnGpuTest.*' > $L/attn_new.log 2>&1
echo "attention gpu tests new rc=$? $(grep -E '^\[  (PASSED|FAILED)' $L/attn_new.log | tr '\n' ' ')" \
  "worst $(grep -o 'cos [0-9.]*' $L/attn_new.log | sort | head -1), cases $(grep -c 'cos ' $L/attn_new.log)" >> $S
grep -E "^\[  FAILED  \] [A-Z]" $L/attn_new.log >> $S
for tgt in sm_90 sm_90a; do for i in 1 2; do
  JITK_CACHE_DIR=/tmp/cache_$tgt JITK_ATTN_TARGET=$tgt JITK_ATTN_NO_SWEEP=1 JITK_ATTN_RESULTS="$L/timing_${tgt}_$i.txt" \
    timeout 100 $B/tests/jitk_lib_attention_tests --gtest_also_run_disabled_tests \
    --gtest_filter='SparseAttnGpuTest.DISABLED_Timing' > $L/timing_${tgt}_$i.log 2>&1
  echo "timing $tgt $i rc=$?" >> $S
done
  paste -d'|' <(cut -d'|' -f1-4 $L/timing_${tgt}_1.txt) <(cut -d'|' -f3-4 $L/timing_${tgt}_2.txt) > $OUT/table_$tgt.txt
done
tar czf "$OUT/logs.tar.gz" -C $L .
cat $S
cat $OUT/table_sm_90.txt $OUT/table_sm_90a.txt
