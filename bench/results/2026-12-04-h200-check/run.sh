#!/bin/bash
# Device visit (HEAD of the session, built on the CPU machine, stripped binaries
# carried in .carry/build): every test that skips without a GPU, for real on the
# H200 (CI runs the rest), plus jitk-info --compile and the examples, through
# bench/device/check_all.sh; its table last.
cd "$(dirname "$0")/../../.."
export JITK_CACHE_DIR=/tmp/jitk-cache
export GTEST_FILTER='*GpuTest*:CompilePruningTest.*:HipBackendTest.*'
OUT=$OUT timeout 220 bash bench/device/check_all.sh .carry/build
grep -E "cos [0-9.]*" "$OUT/check_all.log" | grep -o "cos [0-9.]*" | sort | head -1 | sed 's/^/worst attention /'
grep -E "^\[  (PASSED|SKIPPED|FAILED)  ?\] [0-9]+ test" "$OUT/check_all.log" |
  awk '{n[$2]+=$4} END {for (k in n) print "tests " k, n[k]}'
