#!/bin/bash
# Device visit 7 (the build in .carry/build, summary.txt names its commit):
# d = 64, where 64-row warp-specialized blocks fit two per SM with 128-key
# stages too: the warp-specialized configs swept on causal and random 10 %
# (L=4096, f16), two alternating passes.
cd "$(dirname "$0")/../../../.."
L=/tmp/logs; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat .carry/build/COMMIT) $(date -u +%FT%TZ)" > $S
BIN=.carry/build/tests/jitk_lib_attention_tests OUT=$L/ab SWEEP=1 TIMEOUT=200 \
  bash bench/device/attention_ab.sh sm_90a 2 new=- -- "d=64" > /dev/null 2>&1
cp $L/ab/table.md $OUT/table_sm_90a.md; cat $L/ab/runs.txt >> $S
echo "done $(date -u +%T)" >> $S
tar czf "$OUT/logs.tar.gz" --exclude='cache_*' -C $L .
cat $S $OUT/table_sm_90a.md
