#!/bin/bash
# Device visit 4 (the commit in summary.txt): the mma.sync engine's config
# sweep (sm_90) on the causal cases now that L=4096 runs in rank-major
# order: does another config than the default 128x64x4x2 win there?
# One pass of SparseAttnGpuTest.DISABLED_Timing with its sweep lists.
cd "$(dirname "$0")/../../../.."
B=.carry/build
L=/tmp/logs; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat $B/COMMIT) $(date -u +%FT%TZ)" > $S
SWEEP=1 BIN=$B/tests/jitk_lib_attention_tests OUT=$L/sweep TIMEOUT=400 bash bench/device/attention_ab.sh \
  sm_90 1 new=- -- "causal f16 L=4096,causal bf16 L=4096,causal f16 L=16384" > /dev/null 2>&1
cp $L/sweep/table.md $OUT/table_sm_90_sweep.md; cat $L/sweep/runs.txt >> $S
echo "done $(date -u +%T)" >> $S
cat $S $OUT/table_sm_90_sweep.md
