#!/bin/bash
# Device visit 10 (the build in .carry/build, summary.txt names its commit):
# the copying thread of the warp-specialized engine asks L2 for the next
# query tile's first K / V tiles (at most STAGES) with its Q
# (.carry/tpl_kvpf, tpl_kvpf.diff): at 10 % density the L2 hit rate is 59 %
# and most K / V tiles come from HBM on first use (run 9). GPU tests on the
# variant, then three alternating passes.
cd "$(dirname "$0")/../../../.."
L=/tmp/logs; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat .carry/build/COMMIT) $(date -u +%FT%TZ)" > $S
JITK_TEMPLATE_DIR=$(realpath .carry/tpl_kvpf) JITK_CACHE_DIR=/tmp/cache_t timeout 200 \
  .carry/build/tests/jitk_lib_attention_tests --gtest_filter='SparseAttnGpuTest.WgmmaEngineOnHopper' > $L/attn.log 2>&1
echo "attention gpu tests (kvpf) rc=$? $(grep -E '^\[  (PASSED|FAILED)' $L/attn.log | tr '\n' ' ')" \
  "worst $(grep -o 'cos [0-9.]*' $L/attn.log | sort | head -1), cases $(grep -c 'cos ' $L/attn.log)" >> $S
BIN=.carry/build/tests/jitk_lib_attention_tests OUT=$L/ab TIMEOUT=200 bash bench/device/attention_ab.sh \
  sm_90a 3 base=- kvpf=.carry/tpl_kvpf -- \
  "causal f16 L=4096,random blocks 10%,random blocks 30%,sliding 1024+128 f16 L=16384" > /dev/null 2>&1
grep -v "d=64" $L/ab/table.md > $OUT/table_sm_90a.md; cat $L/ab/runs.txt >> $S
echo "done $(date -u +%T)" >> $S
tar czf "$OUT/logs.tar.gz" --exclude='cache_*' -C $L .
cat $S $OUT/table_sm_90a.md
