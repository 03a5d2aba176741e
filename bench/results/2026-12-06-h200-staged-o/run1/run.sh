#!/bin/bash
# Run 1, one device visit (.carry/build of 1a2d144, variants as .carry/tpl_<name>,
# the patches beside this file): block 0's timeline with the staged O's steps
# (base and walk_pv), then base / lse_late / walk_pv / s01 timed in three
# alternating passes.
cd "$(dirname "$0")/../../../.."
B=.carry/build
L=/tmp/logs_v1; rm -rf $L; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat $B/COMMIT | tr '\n' ' ') $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> $S
BIN=$B/tests/jitk_lib_attention_tests OUT=$L/tl_base TIMEOUT=120 bash bench/device/attention_timeline.sh \
  "causal f16 L=4096,random blocks 10% f16 L=4096" > /dev/null 2>&1
echo "timeline base rc=$? $(date -u +%T)" >> $S
SRC=.carry/tpl_walk_pv BIN=$B/tests/jitk_lib_attention_tests OUT=$L/tl_walk TIMEOUT=120 \
  bash bench/device/attention_timeline.sh "causal f16 L=4096,random blocks 10% f16 L=4096" > /dev/null 2>&1
echo "timeline walk_pv rc=$? $(date -u +%T)" >> $S
cp $L/tl_base/summary.txt $OUT/timeline_base.txt; cp $L/tl_walk/summary.txt $OUT/timeline_walk_pv.txt
BIN=$B/tests/jitk_lib_attention_tests OUT=$L/ab TIMEOUT=100 bash bench/device/attention_ab.sh sm_90a 3 \
  base=- lse_late=.carry/tpl_lse_late walk_pv=.carry/tpl_walk_pv s01=.carry/tpl_s01 -- \
  "causal f16 L=4096,dense f16 L=4096,random blocks 10%,random blocks 30%,sliding 1024+128 f16" \
  > /dev/null 2>&1
cp $L/ab/table.md $OUT/table_ab.md; grep rc= $L/ab/runs.txt | tr '\n' ';' >> $S
echo "ab done $(date -u +%T)" >> $S
tar czf $OUT/logs.tar.gz --exclude=cache* --exclude=templates -C $L . 2>/dev/null
cat $S $OUT/timeline_base.txt $OUT/timeline_walk_pv.txt $OUT/table_ab.md | cut -c1-400
