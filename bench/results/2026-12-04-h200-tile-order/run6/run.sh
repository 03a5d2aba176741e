#!/bin/bash
# Device visit 6: rank-major order over groups of heads (the smallest group,
# dividing H, whose query tiles fill the resident blocks; heads stored one
# after another become batches of the group). grp: the working tree's host
# with grouping and no limit on the launch's waves; old: e00fe07 (rank-major
# over all of a batch's heads up to 32 waves, head-major beyond); hm: e00fe07
# forced to head-major. The mma.sync engine (sm_90), causal cases, two
# alternating passes.
cd "$(dirname "$0")/../../../.."
L=/tmp/logs; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "working tree on $(cat .carry/build/COMMIT) $(date -u +%FT%TZ)" > $S
BIN=.carry/grp/jitk_lib_attention_tests OUT=$L/mma TIMEOUT=200 bash bench/device/attention_ab.sh \
  sm_90 2 grp=- old=-@.carry/old/jitk_lib_attention_tests hm=-@.carry/hm/jitk_lib_attention_tests \
  -- "causal" > /dev/null 2>&1
cp $L/mma/table.md $OUT/table_sm_90.md; cat $L/mma/runs.txt >> $S
echo "done $(date -u +%T)" >> $S
cat $S $OUT/table_sm_90.md
