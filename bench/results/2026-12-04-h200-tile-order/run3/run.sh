#!/bin/bash
# Device visit 3 (the commit in summary.txt; every binary stripped in
# .carry/build, libjitk_c.so and its abseil libraries included): every test
# that skips without a GPU, for real (bench/device/check_all.sh), then the
# mma.sync engine (sm_90) at its defaults on every timing case, new against
# base (74039fa's build and templates), two alternating passes.
cd "$(dirname "$0")/../../../.."
B=.carry/build
L=/tmp/logs; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat $B/COMMIT) $(date -u +%FT%TZ)" > $S
export JITK_CACHE_DIR=/tmp/jitk-cache
GTEST_FILTER='*GpuTest*:CompilePruningTest.*:HipBackendTest.*' OUT=$OUT timeout 300 \
  bash bench/device/check_all.sh $B > $L/check_table.txt 2>&1
echo "check rc=$?" >> $L/check_table.txt
unset JITK_CACHE_DIR
echo "check done $(date -u +%T)" >> $S
BIN=$B/tests/jitk_lib_attention_tests OUT=$L/mma TIMEOUT=200 bash bench/device/attention_ab.sh \
  sm_90 2 new=- base=-@.carry/base/jitk_lib_attention_tests -- "f16,f32" > /dev/null 2>&1
cp $L/mma/table.md $OUT/table_sm_90.md; cp $L/check_table.txt $OUT/; cat $L/mma/runs.txt >> $S
echo "sm_90 done $(date -u +%T)" >> $S
tar czf "$OUT/logs.tar.gz" -C $L .
grep -o "cos [0-9.]*" "$OUT/check_all.log" | sort | head -1 | sed 's/^/worst attention /' >> $S
grep -E "^\[  (PASSED|SKIPPED|FAILED)  ?\] [0-9]+ test" "$OUT/check_all.log" |
  awk '{n[$2]+=$4} END {for (k in n) print "tests " k, n[k]}' >> $S
cat $S $L/check_table.txt $OUT/table_sm_90.md
