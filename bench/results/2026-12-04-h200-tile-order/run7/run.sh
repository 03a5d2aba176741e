#!/bin/bash
# Device visit 7 (the commit in summary.txt, every binary stripped in
# .carry/build, libjitk_c.so and its abseil libraries included): every test
# that skips without a GPU, for real (bench/device/check_all.sh), after the
# occupancy estimate moved into lib/ and planning's register estimate.
cd "$(dirname "$0")/../../../.."
B=.carry/build
L=/tmp/logs; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat $B/COMMIT) $(date -u +%FT%TZ)" > $S
export JITK_CACHE_DIR=/tmp/jitk-cache
GTEST_FILTER='*GpuTest*:CompilePruningTest.*:HipBackendTest.*' OUT=$OUT timeout 300 \
  bash bench/device/check_all.sh $B > $OUT/check_table.txt 2>&1
echo "check rc=$?" >> $OUT/check_table.txt
grep -o "cos [0-9.]*" "$OUT/check_all.log" | sort | head -1 | sed 's/^/worst attention /' >> $S
grep -E "^\[  (PASSED|SKIPPED|FAILED)  ?\] [0-9]+ test" "$OUT/check_all.log" |
  awk '{n[$2]+=$4} END {for (k in n) print "tests " k, n[k]}' >> $S
cat $S $OUT/check_table.txt
