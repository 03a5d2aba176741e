#!/bin/bash
# Device visit 1 (2ff8096's build): the rank-major tile order of the
# non-persistent grid. GPU tests of the new build, then the mma.sync engine
# (JITK_ATTN_TARGET=sm_90) timed in three alternating passes: new (rank-major
# where the host picks it), hm (the same templates, the host forced to
# head-major order), base (74039fa's build and templates); then the
# warp-specialized engine (sm_90a, whose persistent grid keeps head-major
# order) new against base, two passes.
cd "$(dirname "$0")/../../../.."
B=.carry/build
L=/tmp/logs; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat $B/COMMIT) $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> $S
JITK_CACHE_DIR=/tmp/cache_t_new timeout 200 $B/tests/jitk_lib_attention_tests \
  --gtest_filter='SparseAttnGpuTest.*' > $L/attn_new.log 2>&1
echo "attention gpu tests new rc=$? $(grep -E '^\[  (PASSED|FAILED)' $L/attn_new.log | tr '\n' ' ')" \
  "worst $(grep -o 'cos [0-9.]*' $L/attn_new.log | sort | head -1), cases $(grep -c 'cos ' $L/attn_new.log)" >> $S
grep -E "^\[  FAILED  \] [A-Z]|Failure|error" $L/attn_new.log | head -20 >> $S
echo "tests done $(date -u +%T)" >> $S
BIN=$B/tests/jitk_lib_attention_tests OUT=$L/mma TIMEOUT=150 bash bench/device/attention_ab.sh \
  sm_90 3 new=- hm=-@.carry/hm/jitk_lib_attention_tests base=-@.carry/base/jitk_lib_attention_tests \
  -- "f16,f32" > /dev/null 2>&1
cp $L/mma/table.md $OUT/table_sm_90.md; cat $L/mma/runs.txt >> $S
echo "sm_90 done $(date -u +%T)" >> $S
BIN=$B/tests/jitk_lib_attention_tests OUT=$L/ws TIMEOUT=120 bash bench/device/attention_ab.sh \
  sm_90a 2 new=- base=-@.carry/base/jitk_lib_attention_tests -- "f16" > /dev/null 2>&1
cp $L/ws/table.md $OUT/table_sm_90a.md; cat $L/ws/runs.txt >> $S
echo "sm_90a done $(date -u +%T)" >> $S
tar czf "$OUT/logs.tar.gz" -C $L .
cat $S $OUT/table_sm_90.md $OUT/table_sm_90a.md
