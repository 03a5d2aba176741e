#!/bin/bash
# Device visit 8 (the build in .carry/build, summary.txt names its commit):
# mma.sync (sm_90), Q copied with an L2 evict-first policy (read once; K and V
# are read by every query tile of their head and should stay): .carry/tpl_qevict,
# tpl_qevict.diff. GPU tests on the variant, then three alternating passes.
cd "$(dirname "$0")/../../../.."
L=/tmp/logs; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat .carry/build/COMMIT) $(date -u +%FT%TZ)" > $S
JITK_TEMPLATE_DIR=$(realpath .carry/tpl_qevict) JITK_CACHE_DIR=/tmp/cache_t timeout 200 \
  .carry/build/tests/jitk_lib_attention_tests --gtest_filter='SparseAttnGpuTest.AllLayouts*' > $L/attn.log 2>&1
echo "attention gpu tests (qevict) rc=$? $(grep -E '^\[  (PASSED|FAILED)' $L/attn.log | tr '\n' ' ')" \
  "worst $(grep -o 'cos [0-9.]*' $L/attn.log | sort | head -1), cases $(grep -c 'cos ' $L/attn.log)" >> $S
BIN=.carry/build/tests/jitk_lib_attention_tests OUT=$L/ab TIMEOUT=200 bash bench/device/attention_ab.sh \
  sm_90 3 base=- qevict=.carry/tpl_qevict -- \
  "causal f16 L=4096,causal bf16 L=4096,dense f16 L=4096,causal f16 L=16384,random blocks 10% f16 L=4096" > /dev/null 2>&1
grep -v "block=64\|d=64" $L/ab/table.md > $OUT/table_sm_90.md; cat $L/ab/runs.txt >> $S
echo "done $(date -u +%T)" >> $S
tar czf "$OUT/logs.tar.gz" --exclude='cache_*' -C $L .
cat $S $OUT/table_sm_90.md
