#!/bin/bash
# Device visit 6 (the build in .carry/build, summary.txt names its commit):
# the computing warps of the warp-specialized engine read the next query
# tile's block-mask counts a whole query tile early (.carry/tpl_early,
# tpl_early.diff) instead of just before the stores (Version 12's profile:
# 1.7 % of the samples at 10 % density waited for them at the fence after
# stmatrix). GPU tests on the variant, then three alternating passes.
cd "$(dirname "$0")/../../../.."
L=/tmp/logs; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat .carry/build/COMMIT) $(date -u +%FT%TZ)" > $S
JITK_TEMPLATE_DIR=$(realpath .carry/tpl_early) JITK_CACHE_DIR=/tmp/cache_t timeout 200 \
  .carry/build/tests/jitk_lib_attention_tests --gtest_filter='SparseAttnGpuTest.*' > $L/attn.log 2>&1
echo "attention gpu tests (early) rc=$? $(grep -E '^\[  (PASSED|FAILED)' $L/attn.log | tr '\n' ' ')" \
  "worst $(grep -o 'cos [0-9.]*' $L/attn.log | sort | head -1), cases $(grep -c 'cos ' $L/attn.log)" >> $S
grep -E "^\[  FAILED  \] [A-Z]|Failure" -A3 $L/attn.log | head -12 >> $S
BIN=.carry/build/tests/jitk_lib_attention_tests OUT=$L/ab TIMEOUT=200 bash bench/device/attention_ab.sh \
  sm_90a 3 base=- early=.carry/tpl_early -- \
  "causal f16 L=4096,dense f16 L=4096,random blocks 10%,random blocks 30%,sliding" > /dev/null 2>&1
cp $L/ab/table.md $OUT/table_sm_90a.md; cat $L/ab/runs.txt >> $S
echo "done $(date -u +%T)" >> $S
tar czf "$OUT/logs.tar.gz" --exclude='cache_*' -C $L .
cat $S $OUT/table_sm_90a.md
