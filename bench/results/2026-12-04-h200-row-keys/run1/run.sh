#!/bin/bash
# Device visit (working tree on c2a8fcf): the element mask of every engine
# from per-row key ranges (RowKeys: mma.sync and wgmma as before, now also the
# fp32 FMA engine; the MFMA engine is AMD's). The sparse_attn GPU tests, then
# new (embedded templates) against base (c2a8fcf's) at the defaults of plain
# sm_90 (mma.sync, FMA for f32) and sm_90a, two alternating passes each, and
# the SASS of the mma.sync causal / sliding-causal kernels of both sets diffed.
cd "$(dirname "$0")/../../../.."
B=.carry/build
L=/tmp/logs; mkdir -p "$OUT" $L/sass
S="$OUT/summary.txt"
echo "commit $(cat $B/COMMIT | tr '\n' ' ') $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> $S
JITK_CACHE_DIR=/tmp/cache_new timeout 240 $B/tests/jitk_lib_attention_tests \
  --gtest_filter='SparseAttnGpuTest.*' > $L/attn_new.log 2>&1
echo "attention gpu tests new rc=$? $(grep -E '^\[  (PASSED|FAILED)' $L/attn_new.log | tr '\n' ' ')" \
  "worst $(grep -o 'cos [0-9.]*' $L/attn_new.log | sort | head -1), cases $(grep -c 'cos ' $L/attn_new.log)" >> $S
grep -E "^\[  FAILED  \] [A-Z]|Failure" $L/attn_new.log | head -20 >> $S
for m in 1 2; do
  for v in base new; do
    cuobjdump -sass .carry/cubin/mma_m${m}_$v.cubin | grep -E '^\s+/\*[0-9a-f]{4}\*/' |
      sed -E 's@^\s+/\*[0-9a-f]{4}\*/\s+@@; s@\s*/\*.*@@' > $L/sass/mma_m${m}_$v.sass
  done
  echo "sass mask $m: $(wc -l < $L/sass/mma_m${m}_base.sass) / $(wc -l < $L/sass/mma_m${m}_new.sass) instructions," \
    "$(diff $L/sass/mma_m${m}_base.sass $L/sass/mma_m${m}_new.sass | grep -c '^<') lines differ" >> $S
  diff $L/sass/mma_m${m}_base.sass $L/sass/mma_m${m}_new.sass | head -12 >> $L/sass/diff_m$m.txt
done
for tgt in sm_90 sm_90a; do
  BIN=$B/tests/jitk_lib_attention_tests OUT=$L/ab_$tgt TIMEOUT=150 bash bench/device/attention_ab.sh \
    $tgt 2 new=- base=.carry/tpl_base -- "L=4096,sliding" > /dev/null 2>&1
  cp $L/ab_$tgt/table.md $OUT/table_$tgt.md; cat $L/ab_$tgt/runs.txt >> $S
done
echo "done $(date -u +%T)" >> $S
tar czf "$OUT/logs.tar.gz" -C $L .
cat $S $L/sass/diff_m1.txt $OUT/table_sm_90.md $OUT/table_sm_90a.md
