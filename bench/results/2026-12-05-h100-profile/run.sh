#!/bin/bash
# One device visit (.carry/build of ff6bc15): Nsight Compute on the 10 %
# case, causal and the same-keys case; bounds on what the 10 % case's query
# tiles pay for (template variants, wrong on purpose, timing only): nostore
# (the staged O never stored), qonce (Q copied for a block's first query tile
# only) and both; then every timing case at the default config.
cd "$(dirname "$0")/../../.."
B=.carry/build
L=/tmp/logs; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat $B/COMMIT | tr '\n' ' ') $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> $S
BIN=$B/tests/jitk_lib_attention_tests OUT=$L/profile timeout 240 bash bench/device/profile_attention.sh \
  sm_90a ws_fwd "random blocks 10% f16 L=4096" "causal f16 L=4096" "random blocks 10% same keys" \
  > $L/profile.txt 2>&1
cat $L/profile/summary.txt >> $S
cp $L/profile/details_*.txt $L/profile/sass_*.csv $L/profile/summary.txt $OUT/ 2>/dev/null
echo "profile done $(date -u +%T)" >> $S
BIN=$B/tests/jitk_lib_attention_tests OUT=$L/ab TIMEOUT=60 bash bench/device/attention_ab.sh sm_90a 2 \
  base=- nostore=.carry/tpl_nostore qonce=.carry/tpl_qonce both=.carry/tpl_both -- \
  "causal f16 L=4096,random blocks 10% f16 L=4096,random blocks 10% same keys" > /dev/null 2>&1
cp $L/ab/table.md $OUT/table_ab.md; grep rc= $L/ab/runs.txt >> $S
echo "ab done $(date -u +%T)" >> $S
JITK_CACHE_DIR=/tmp/c_time JITK_ATTN_NO_SWEEP=1 JITK_ATTN_RESULTS=$OUT/timing_all.txt timeout 100 \
  $B/tests/jitk_lib_attention_tests --gtest_also_run_disabled_tests \
  --gtest_filter='SparseAttnGpuTest.DISABLED_Timing' > $L/timing_all.log 2>&1
echo "timing all rc=$? $(date -u +%T)" >> $S
tar czf $OUT/logs.tar.gz -C $L . 2>/dev/null
cat $S $OUT/table_ab.md $OUT/timing_all.txt
