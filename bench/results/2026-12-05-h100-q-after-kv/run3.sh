#!/bin/bash
# Third device visit (.carry/build of 0a7c489): the order of 0a7c489 (new)
# kept for two computing warpgroups only, the previous one for one
# (.carry/tpl_split), against both, three alternating passes, on the 64-token
# block cases and the defaults' causal and 10 % cases.
cd "$(dirname "$0")/../../.."
B=.carry/build
L=/tmp/logs; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat $B/COMMIT | tr '\n' ' ') $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> $S
BIN=$B/tests/jitk_lib_attention_tests OUT=$L/ab TIMEOUT=100 bash bench/device/attention_ab.sh sm_90a 3 \
  base=.carry/tpl_base new=- split=.carry/tpl_split -- \
  "block=64,causal f16 L=4096,random blocks 10% f16 L=4096" > /dev/null 2>&1
cp $L/ab/table.md $OUT/table_split.md; grep rc= $L/ab/runs.txt >> $S
grep -h "cos" $L/ab/timing_*.log 2>/dev/null | grep -o "cos [0-9.]*" | sort -t' ' -k2 | head -1 | sed 's/^/worst /' >> $S
echo "done $(date -u +%T)" >> $S
tar czf $OUT/logs.tar.gz -C $L ab 2>/dev/null
cat $S $OUT/table_split.md
