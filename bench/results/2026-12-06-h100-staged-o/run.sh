#!/bin/bash
# Run on an H100 (the device pool had no H200); build and templates of 5180e96, variants as
# .carry/tpl_<name> (patches beside this file), the cubins compiled here from 5180e96 with and
# without JITK_ATTN_TRACE (bench/device/attention_timeline.sh's define).
# One device visit: SASS of the 10 % kernel (with and without the trace), the
# staged O's epilogue variants timed against the build's templates (three
# alternating passes), the timeline of trace13 (events after finish_row and
# after the first waits for Q and K); last, the attention GPU tests.
cd "$(dirname "$0")/../../.."
B=.carry/build
L=/tmp/logs_v2; rm -rf $L; mkdir -p "$OUT" $L/sass
S="$OUT/summary.txt"
echo "commit $(cat $B/COMMIT | tr '\n' ' ') $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> $S
CUOBJDUMP=$(command -v cuobjdump || ls /usr/local/cuda*/bin/cuobjdump | head -1)
for f in .carry/cubins/*.cubin; do $CUOBJDUMP -sass $f > $L/sass/$(basename $f .cubin).sass 2>&1; done
echo "sass $(ls $L/sass | tr '\n' ' ')" >> $S
BIN=$B/tests/jitk_lib_attention_tests OUT=$L/ab TIMEOUT=100 bash bench/device/attention_ab.sh sm_90a 3 \
  main=- branchless=.carry/tpl_branchless blfast=.carry/tpl_blfast nostm=.carry/tpl_nostm -- \
  "causal f16 L=4096,random blocks 10% f16 L=4096,random blocks 10% same" \
  > /dev/null 2>&1
cp $L/ab/table.md $OUT/table_ab.md; grep rc= $L/ab/runs.txt | tr '\n' ';' >> $S
echo "ab done $(date -u +%T)" >> $S
SRC=.carry/tpl_trace13 BIN=$B/tests/jitk_lib_attention_tests OUT=$L/tl_t13 TIMEOUT=120 \
  bash bench/device/attention_timeline.sh "random blocks 10% f16 L=4096" > /dev/null 2>&1
echo "timeline trace13 rc=$? $(date -u +%T)" >> $S
cp $L/tl_t13/summary.txt $OUT/timeline_trace13.txt
JITK_CACHE_DIR=/tmp/c_check_v2 timeout 200 $B/tests/jitk_lib_attention_tests \
  --gtest_filter='SparseAttnGpuTest.*' > $L/check_attention.log 2>&1
echo "attention GPU tests rc=$?" >> $S
grep -E "^\[  (PASSED|FAILED|SKIPPED) +\]" $L/check_attention.log | sort | uniq -c >> $S
echo "check done $(date -u +%T)" >> $S
tar czf $OUT/logs.tar.gz --exclude=cache* --exclude=templates -C $L . 2>/dev/null
cat $S $OUT/table_ab.md $OUT/timeline_trace13.txt | cut -c1-300
