#!/bin/bash
# One device visit (.carry/build of the working tree on 8240b94): the staged
# O's epilogue with the LSE written after the stage is released and the next
# tile's block-mask reads after the staged rows ("new", the build's own
# templates) against 8240b94's templates (.carry/tpl_base), three alternating
# passes; every GPU and compile test with "new"; every timing case once.
cd "$(dirname "$0")/../../.."
B=.carry/build
L=/tmp/logs_eo; rm -rf $L; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat $B/COMMIT | tr '\n' ' ') $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> $S
BIN=$B/tests/jitk_lib_attention_tests OUT=$L/ab TIMEOUT=100 bash bench/device/attention_ab.sh sm_90a 3 \
  base=.carry/tpl_base new=- -- \
  "causal f16 L=4096,dense f16 L=4096,random blocks 10%,random blocks 30%,sliding 1024+128 f16" \
  > /dev/null 2>&1
cp $L/ab/table.md $OUT/table_ab.md; grep rc= $L/ab/runs.txt >> $S
echo "ab done $(date -u +%T)" >> $S
export LD_LIBRARY_PATH=$B/bench:$B/lib/c_api
GPU_ONLY=1 JITK_CACHE_DIR=/tmp/c_check_eo OUT=$L/check timeout 300 bash bench/device/check_all.sh $B \
  > $OUT/check_all.txt 2>&1
grep -E "^(worst attention|tests )" $OUT/check_all.txt >> $S
grep -E "^\[  FAILED  \] [A-Z]" $L/check/check_all.log | sort -u >> $S
cp $L/check/check_all.log $OUT/
echo "check done $(date -u +%T)" >> $S
JITK_CACHE_DIR=$L/ab/cache_new JITK_ATTN_NO_SWEEP=1 JITK_ATTN_RESULTS=$OUT/timing_all.txt timeout 100 \
  $B/tests/jitk_lib_attention_tests --gtest_also_run_disabled_tests \
  --gtest_filter='SparseAttnGpuTest.DISABLED_Timing' > $L/timing_all.log 2>&1
echo "timing all rc=$? $(date -u +%T)" >> $S
tar czf $OUT/logs.tar.gz -C $L ab 2>/dev/null
cat $S $OUT/table_ab.md; tail -14 $OUT/check_all.txt
