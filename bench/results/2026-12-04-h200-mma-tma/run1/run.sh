#!/bin/bash
# Device visit 1: mma.sync (sm_90) copying K / V with tensor-memory copies
# (sparse_attn_tma_fwd) against cp.async (the base). Binaries stripped into
# build-carry: base = the commit in build-carry/build/COMMIT, new = the
# working tree of build-carry/new/COMMIT. GPU tests on the new binary (sm_90
# and the device's own sm_90a), then two alternating timing passes.
cd "$(dirname "$0")/../../../.."
C=build-carry
L=/tmp/logs; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "base $(cat $C/build/COMMIT) new $(cat $C/new/COMMIT) $(date -u +%FT%TZ)" > $S
for target in sm_90 -; do
  env $([[ $target != - ]] && echo JITK_ATTN_TARGET=$target) JITK_CACHE_DIR=/tmp/cache_t_$target timeout 240 \
    $C/new/tests/jitk_lib_attention_tests --gtest_filter='SparseAttnGpuTest.*' > $L/attn_$target.log 2>&1
  echo "attention gpu tests ($target) rc=$? $(grep -E '^\[  (PASSED|FAILED)' $L/attn_$target.log | tr '\n' ' ')" \
    "worst $(grep -o 'cos [0-9.]*' $L/attn_$target.log | sort | head -1), cases $(grep -c 'cos ' $L/attn_$target.log)" >> $S
done
BIN=$C/new/tests/jitk_lib_attention_tests OUT=$L/ab TIMEOUT=200 bash bench/device/attention_ab.sh \
  sm_90 2 base=-@$C/build/tests/jitk_lib_attention_tests tma=- -- \
  "causal f16 L=4096,causal bf16 L=4096,dense f16 L=4096,causal f16 L=16384,causal bf16 L=16384,sliding 1024+128 f16 L=16384,random blocks 10% f16 L=4096,causal f16 L=4096 d=64" > /dev/null 2>&1
cp $L/ab/table.md $OUT/table_sm_90.md; cat $L/ab/runs.txt >> $S
echo "done $(date -u +%T)" >> $S
tar czf "$OUT/logs.tar.gz" --exclude='cache_*' -C $L .
cat $S $OUT/table_sm_90.md
