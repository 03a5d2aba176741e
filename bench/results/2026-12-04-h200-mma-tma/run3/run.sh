#!/bin/bash
# Device visit 3, after the review fixes (build-carry/final/COMMIT: the
# attention test binary): the attention GPU tests at sm_90 (the mma engine's
# tensor-copy kernel, now with head dims 16 to 128 and only k and v mapped)
# and at the device's own sm_90a, then one timing pass of the stage-1 shapes.
cd "$(dirname "$0")/../../../.."
C=build-carry
L=/tmp/logs; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat $C/final/COMMIT) $(date -u +%FT%TZ)" > $S
for target in sm_90 -; do
  env $([[ $target != - ]] && echo JITK_ATTN_TARGET=$target) JITK_CACHE_DIR=/tmp/cache_t_$target timeout 240 \
    $C/final/tests/jitk_lib_attention_tests --gtest_filter='SparseAttnGpuTest.*' > $L/attn_$target.log 2>&1
  echo "attention gpu tests ($target) rc=$? $(grep -E '^\[  (PASSED|FAILED)' $L/attn_$target.log | tr '\n' ' ')" \
    "worst $(grep -o 'cos [0-9.]*' $L/attn_$target.log | sort | head -1), cases $(grep -c 'cos ' $L/attn_$target.log)" >> $S
done
BIN=$C/final/tests/jitk_lib_attention_tests OUT=$L/ab TIMEOUT=200 bash bench/device/attention_ab.sh \
  sm_90 1 tma=- -- "causal f16 L=4096,causal bf16 L=4096,causal f16 L=16384,causal bf16 L=16384" > /dev/null 2>&1
grep -v "block=64\|d=64" $L/ab/table.md > $OUT/table_sm_90.md; cat $L/ab/runs.txt >> $S
echo "done $(date -u +%T)" >> $S
tar czf "$OUT/logs.tar.gz" --exclude='cache_*' -C $L .
cat $S $OUT/table_sm_90.md
