#!/bin/bash
# Device visit 4 (2ee513f, every binary stripped in .carry/build, libjitk_c.so
# and its abseil libraries included): every test that skips without a GPU, for
# real (bench/device/check_all.sh; CI runs the rest), then the sm_90a defaults
# timed in three alternating passes: new (2ee513f) and take (new with the
# computing warpgroups' next-tile block-mask reads issued before this tile's
# MMAs instead of after them).
cd "$(dirname "$0")/../../../.."
B=.carry/build
L=/tmp/logs; mkdir -p "$OUT" $L
export JITK_CACHE_DIR=/tmp/jitk-cache
GTEST_FILTER='*GpuTest*:CompilePruningTest.*:HipBackendTest.*' OUT=$OUT timeout 260 \
  bash bench/device/check_all.sh $B > $L/check_table.txt 2>&1
echo "check rc=$?" >> $L/check_table.txt
unset JITK_CACHE_DIR
BIN=$B/tests/jitk_lib_attention_tests OUT=$L/ab TIMEOUT=120 bash bench/device/attention_ab.sh \
  sm_90a 3 new=- take=.carry/tpl_take -- f16 > /dev/null 2>&1
cp $L/ab/table.md $OUT/table_sm_90a.md; cp $L/check_table.txt $OUT/
tar czf "$OUT/logs.tar.gz" -C $L .
grep -o "cos [0-9.]*" "$OUT/check_all.log" | sort | head -1 | sed 's/^/worst attention /'
grep -E "^\[  (PASSED|SKIPPED|FAILED)  ?\] [0-9]+ test" "$OUT/check_all.log" |
  awk '{n[$2]+=$4} END {for (k in n) print "tests " k, n[k]}'
cat $L/check_table.txt $L/ab/runs.txt $OUT/table_sm_90a.md
