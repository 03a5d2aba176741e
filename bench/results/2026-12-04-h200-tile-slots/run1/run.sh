#!/bin/bash
# Device visit 1 (working tree on 03caf62): the warp-specialized wgmma engine
# with each computing warpgroup's 64 rows of Q its own (its own full / free
# barriers, the first K / V tile copied right after group 0's rows) and the
# ping-pong turns running on across query tiles. GPU tests of `new` (the
# build's embedded templates) and `early` (new, each warpgroup freeing Q right
# after its last S = Q K^T), then the sm_90a defaults timed in alternating
# passes: new, early, turn (03caf62's templates with only the turns changed;
# one Q, as before), base (03caf62's build and templates).
cd "$(dirname "$0")/../../../.."
B=.carry/build
L=/tmp/logs; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat $B/COMMIT | tr '\n' ' ') $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> $S
for v in new early; do
  dir=""; [[ $v == early ]] && dir="JITK_TEMPLATE_DIR=$(realpath .carry/tpl_early)"
  env $dir JITK_CACHE_DIR=/tmp/cache_t_$v timeout 200 $B/tests/jitk_lib_attention_tests \
    --gtest_filter='SparseAttnGpuTest.*' > $L/attn_$v.log 2>&1
  echo "attention gpu tests $v rc=$? $(grep -E '^\[  (PASSED|FAILED)' $L/attn_$v.log | tr '\n' ' ')" \
    "worst $(grep -o 'cos [0-9.]*' $L/attn_$v.log | sort | head -1), cases $(grep -c 'cos ' $L/attn_$v.log)" >> $S
  grep -E "^\[  FAILED  \] [A-Z]|Failure|error" $L/attn_$v.log | head -20 >> $S
done
echo "tests done $(date -u +%T)" >> $S
BIN=$B/tests/jitk_lib_attention_tests OUT=$L/ab TIMEOUT=120 bash bench/device/attention_ab.sh \
  sm_90a 2 new=- early=.carry/tpl_early turn=.carry/tpl_turn@.carry/base/jitk_lib_attention_tests \
  base=-@.carry/base/jitk_lib_attention_tests -- f16 > /dev/null 2>&1
cp $L/ab/table.md $OUT/table_sm_90a.md; cat $L/ab/runs.txt >> $S
echo "ab done $(date -u +%T)" >> $S
tar czf "$OUT/logs.tar.gz" -C $L .
cat $S $OUT/table_sm_90a.md
