#!/bin/bash
# Device visit 1 (the test binary of the commit in summary.txt, stripped into
# build-carry/build; templates in build-carry/tpl_*): mma.sync (sm_90) with the
# next K / V tile's copies spread over the tile's work instead of issued in one
# burst after the barrier: tpl_qk (one part per k-step of S = Q K^T), tpl_pv
# (one part per k-step of P V), tpl_base (the commit's templates). GPU tests on
# both variants, then two alternating timing passes.
cd "$(dirname "$0")/../../../.."
C=build-carry
L=/tmp/logs; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat $C/build/COMMIT) $(date -u +%FT%TZ)" > $S
for v in pv qk; do
  JITK_ATTN_TARGET=sm_90 JITK_TEMPLATE_DIR=$(realpath $C/tpl_$v) JITK_CACHE_DIR=/tmp/cache_t_$v timeout 200 \
    $C/build/tests/jitk_lib_attention_tests --gtest_filter='SparseAttnGpuTest.AllLayouts*' > $L/attn_$v.log 2>&1
  echo "attention gpu tests sm_90 ($v) rc=$? $(grep -E '^\[  (PASSED|FAILED)' $L/attn_$v.log | tr '\n' ' ')" \
    "worst $(grep -o 'cos [0-9.]*' $L/attn_$v.log | sort | head -1), cases $(grep -c 'cos ' $L/attn_$v.log)" >> $S
done
BIN=$C/build/tests/jitk_lib_attention_tests OUT=$L/ab TIMEOUT=200 bash bench/device/attention_ab.sh \
  sm_90 2 base=$C/tpl_base qk=$C/tpl_qk pv=$C/tpl_pv -- \
  "causal f16 L=4096,causal bf16 L=4096,dense f16 L=4096,causal f16 L=16384,causal bf16 L=16384,sliding 1024+128 f16 L=16384,random blocks 10% f16 L=4096" > /dev/null 2>&1
grep -v "block=64\|d=64" $L/ab/table.md > $OUT/table_sm_90.md; cat $L/ab/runs.txt >> $S
echo "done $(date -u +%T)" >> $S
tar czf "$OUT/logs.tar.gz" --exclude='cache_*' -C $L .
cat $S $OUT/table_sm_90.md
