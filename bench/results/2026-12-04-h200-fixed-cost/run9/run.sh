#!/bin/bash
# Device visit 9 (the working tree in summary.txt): the sparse_attn GPU tests
# with the new case of more query tiles than SMs per warp-specialized config;
# the same tests on templates that never store a staged O before refilling
# its stage (.carry/tpl_mut, wrong on purpose: the new case must fail); then
# the default configs timed, two passes, random 10 % at L=4096 and L=16384
# next to causal.
cd "$(dirname "$0")/../../../.."
B=.carry/build
L=/tmp/logs; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat $B/COMMIT) $(date -u +%FT%TZ)" > $S
tests() {  # name, env...
  local n=$1; shift
  env "$@" JITK_CACHE_DIR=/tmp/cache_$n timeout 300 $B/tests/jitk_lib_attention_tests \
    --gtest_filter='SparseAttnGpuTest.*' > $L/attn_$n.log 2>&1
  echo "attention gpu tests $n rc=$? $(grep -E '^\[  (PASSED|FAILED)' $L/attn_$n.log | tr '\n' ' ')" \
    "worst $(grep -o 'cos [0-9.]*' $L/attn_$n.log | sort | head -1), cases $(grep -c 'cos ' $L/attn_$n.log)" >> $S
  grep -E "^\[  FAILED  \] [A-Z]" $L/attn_$n.log | head -5 >> $S
  grep -E "Failure" -A4 $L/attn_$n.log | grep -E "custom|Custom|layout=5|BLOCK" | head -6 >> $S
}
tests new
tests mut JITK_TEMPLATE_DIR=$(realpath .carry/tpl_mut)
BIN=$B/tests/jitk_lib_attention_tests OUT=$L/ab TIMEOUT=150 bash bench/device/attention_ab.sh \
  sm_90a 2 new=- -- "random blocks 10%,causal f16 L=4096,causal f16 L=16384" > /dev/null 2>&1
cp $L/ab/table.md $OUT/table_sm_90a.md; cat $L/ab/runs.txt >> $S
echo "done $(date -u +%T)" >> $S
tar czf "$OUT/logs.tar.gz" --exclude='cache_*' -C $L .
cat $S $OUT/table_sm_90a.md
