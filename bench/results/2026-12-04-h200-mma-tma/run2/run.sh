#!/bin/bash
# Device visit 2, on the commit in build-carry/full/COMMIT (every binary
# stripped, with libjitk_c.so and its abseil libraries): every GPU test
# (check_all.sh, the device's own target sm_90a), the attention GPU tests at
# sm_90 (the mma engine's tensor-copy kernel), three alternating timing passes
# against 8a9e66d (build-carry/build), and the causal L=4096 config sweep at
# sm_90.
cd "$(dirname "$0")/../../../.."
C=build-carry
L=/tmp/logs; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "base $(cat $C/build/COMMIT) new $(cat $C/full/COMMIT) $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> $S
JITK_CACHE_DIR=/tmp/jitk-cache GTEST_FILTER='*GpuTest*:CompilePruningTest.*:HipBackendTest.*' \
  OUT=$OUT timeout 400 bash bench/device/check_all.sh $C/full > $OUT/check_table.txt 2>&1
echo "check rc=$?" >> $OUT/check_table.txt
grep -o "cos [0-9.]*" "$OUT/check_all.log" | sort | head -1 | sed 's/^/check_all worst attention /' >> $S
grep -E "^\[  (PASSED|SKIPPED|FAILED)  ?\] [0-9]+ test" "$OUT/check_all.log" |
  awk '{n[$2]+=$4} END {for (k in n) print "check_all tests " k, n[k]}' >> $S
JITK_ATTN_TARGET=sm_90 JITK_CACHE_DIR=/tmp/cache_sm90 timeout 240 \
  $C/full/tests/jitk_lib_attention_tests --gtest_filter='SparseAttnGpuTest.*' > $L/attn_sm_90.log 2>&1
echo "attention gpu tests (sm_90) rc=$? $(grep -E '^\[  (PASSED|FAILED)' $L/attn_sm_90.log | tr '\n' ' ')" \
  "worst $(grep -o 'cos [0-9.]*' $L/attn_sm_90.log | sort | head -1), cases $(grep -c 'cos ' $L/attn_sm_90.log)" >> $S
BIN=$C/full/tests/jitk_lib_attention_tests OUT=$L/ab TIMEOUT=200 bash bench/device/attention_ab.sh \
  sm_90 3 base=-@$C/build/tests/jitk_lib_attention_tests tma=- -- \
  "causal f16 L=4096,causal bf16 L=4096,dense f16 L=4096,causal f16 L=16384,causal bf16 L=16384,sliding 1024+128 f16 L=16384,random blocks 10% f16 L=4096" > /dev/null 2>&1
grep -v "block=64\|d=64" $L/ab/table.md > $OUT/table_sm_90.md; cat $L/ab/runs.txt >> $S
SWEEP=1 BIN=$C/full/tests/jitk_lib_attention_tests OUT=$L/sweep TIMEOUT=200 bash bench/device/attention_ab.sh \
  sm_90 1 tma=- -- "causal f16 L=4096" > /dev/null 2>&1
grep "causal f16 L=4096 |" $L/sweep/table.md > $OUT/sweep_sm_90.md; cat $L/sweep/runs.txt >> $S
echo "done $(date -u +%T)" >> $S
gzip -f $OUT/check_all.log
tar czf "$OUT/logs.tar.gz" --exclude='cache_*' -C $L .
cat $S $OUT/check_table.txt $OUT/table_sm_90.md $OUT/sweep_sm_90.md
