#!/bin/bash
# Device visit 3 (working tree on 611025b): the warp-specialized engine with
# the turns across query tiles (run 1's `turn`) and the copying thread
# publishing each stage's first key and partial flag in a tile slot, so the
# computing warpgroups read no block mask in their loop (run 2's profile:
# their index loads stalled ~3 % of the samples at 10 % density). GPU tests
# of `new` (the build's embedded templates), then the sm_90a defaults timed
# in three alternating passes: new, turn (03caf62's build with run 1's turn
# templates), base (03caf62's build and templates).
cd "$(dirname "$0")/../../../.."
B=.carry/build
L=/tmp/logs; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat $B/COMMIT | tr '\n' ' ') $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> $S
JITK_CACHE_DIR=/tmp/cache_t_new timeout 200 $B/tests/jitk_lib_attention_tests \
  --gtest_filter='SparseAttnGpuTest.*' > $L/attn_new.log 2>&1
echo "attention gpu tests new rc=$? $(grep -E '^\[  (PASSED|FAILED)' $L/attn_new.log | tr '\n' ' ')" \
  "worst $(grep -o 'cos [0-9.]*' $L/attn_new.log | sort | head -1), cases $(grep -c 'cos ' $L/attn_new.log)" >> $S
grep -E "^\[  FAILED  \] [A-Z]|Failure|error" $L/attn_new.log | head -20 >> $S
echo "tests done $(date -u +%T)" >> $S
BIN=$B/tests/jitk_lib_attention_tests OUT=$L/ab TIMEOUT=120 bash bench/device/attention_ab.sh \
  sm_90a 3 new=- turn=.carry/tpl_turn@.carry/base/jitk_lib_attention_tests \
  base=-@.carry/base/jitk_lib_attention_tests -- f16 > /dev/null 2>&1
cp $L/ab/table.md $OUT/table_sm_90a.md; cat $L/ab/runs.txt >> $S
echo "ab done $(date -u +%T)" >> $S
tar czf "$OUT/logs.tar.gz" -C $L .
cat $S $OUT/table_sm_90a.md
