#!/bin/bash
# Device visit 1 (every binary stripped in .carry/full, its commit in
# summary.txt): the tests that skip without a GPU, run for real on the H200,
# after the MFMA engine's rework (shared template code: grid_tile,
# kRescaleSlack; code-object key version 2), with jitk-info and the examples.
cd "$(dirname "$0")/../../../.."
B=.carry/full
L=/tmp/logs; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat $B/COMMIT) $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> $S
export JITK_CACHE_DIR=/tmp/jitk-cache
GTEST_FILTER='*GpuTest*:CompilePruningTest.*:HipBackendTest.*' OUT=$OUT timeout 400 \
  bash bench/device/check_all.sh $B > $OUT/check_table.txt 2>&1
echo "check rc=$?" >> $OUT/check_table.txt
grep -o "cos [0-9.]*" "$OUT/check_all.log" | sort | head -1 | sed 's/^/worst attention /' >> $S
grep -E "^\[  (PASSED|SKIPPED|FAILED)  ?\] [0-9]+ test" "$OUT/check_all.log" |
  awk '{n[$2]+=$4} END {for (k in n) print "tests " k, n[k]}' >> $S
echo "done $(date -u +%T)" >> $S
cat $S $OUT/check_table.txt
