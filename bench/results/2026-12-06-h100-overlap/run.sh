#!/bin/bash
# One device visit (.carry/build of 31a39ec; .carry/tpl_head = the templates of 31a39ec,
# .carry/tpl_overlap = them with overlap.patch beside this file): the attention GPU tests
# with overlap's templates, then head / overlap in three alternating passes.
cd "$(dirname "$0")/../../.."
B=.carry/build
L=/tmp/logs_v4; rm -rf $L; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat $B/COMMIT | tr '\n' ' ') $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> $S
JITK_TEMPLATE_DIR=$PWD/.carry/tpl_overlap JITK_CACHE_DIR=/tmp/c_check timeout 200 $B/tests/jitk_lib_attention_tests \
  --gtest_filter='SparseAttnGpuTest.*' > $L/check_attention.log 2>&1
echo "attention GPU tests (overlap) rc=$? $(date -u +%T)" >> $S
grep -E "^\[  (PASSED|FAILED|SKIPPED) +\]" $L/check_attention.log | sort | uniq -c >> $S
BIN=$B/tests/jitk_lib_attention_tests OUT=$L/ab TIMEOUT=100 bash bench/device/attention_ab.sh sm_90a 3 \
  head=.carry/tpl_head overlap=.carry/tpl_overlap -- \
  "causal f16 L=4096,random blocks 10% f16 L=4096,random blocks 10% same,random blocks 30%,sliding 1024+128 f16 L=16384,random blocks 10% f16 L=16384" > /dev/null 2>&1
cp $L/ab/table.md $OUT/table_ab.md; grep rc= $L/ab/runs.txt | tr '\n' ';' >> $S
echo "ab done $(date -u +%T)" >> $S
tar czf $OUT/logs.tar.gz --exclude=cache* --exclude=templates -C $L . 2>/dev/null
cat $S $OUT/table_ab.md | cut -c1-300
grep -E "Failure|FAILED" $L/check_attention.log | head -5
