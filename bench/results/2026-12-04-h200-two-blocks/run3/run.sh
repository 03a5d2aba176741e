#!/bin/bash
# Device visit 3 (the commit in summary.txt, every binary stripped in
# .carry/full with libjitk_c.so and its abseil libraries): every test that
# skips without a GPU, for real (bench/device/check_all.sh), with 64-token
# mask blocks now defaulting to 64x64x8x3 (two blocks per SM); then jitk-tune
# sweeps two such shapes exhaustively (tuned config and speed-up over the
# default).
cd "$(dirname "$0")/../../../.."
B=.carry/full
L=/tmp/logs; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat $B/COMMIT) $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> $S
export JITK_CACHE_DIR=/tmp/jitk-cache
GTEST_FILTER='*GpuTest*:CompilePruningTest.*:HipBackendTest.*' OUT=$OUT timeout 300 \
  bash bench/device/check_all.sh $B > $OUT/check_table.txt 2>&1
echo "check rc=$?" >> $OUT/check_table.txt
grep -o "cos [0-9.]*" "$OUT/check_all.log" | sort | head -1 | sed 's/^/worst attention /' >> $S
grep -E "^\[  (PASSED|SKIPPED|FAILED)  ?\] [0-9]+ test" "$OUT/check_all.log" |
  awk '{n[$2]+=$4} END {for (k in n) print "tests " k, n[k]}' >> $S
JITK_CACHE_DIR=/tmp/tune-cache timeout 200 $B/tuner/jitk-tune --kernel sparse_attn --strategy exhaustive \
  --shape "f16;b=4;block=64;d=128;hkv=32;hq=32;layout=1;lk=4096;lq=4096" \
  --shape "f16;b=4;block=64;d=128;hkv=32;hq=32;layout=2;lk=16384;lq=16384" \
  --db $OUT/tuned.db --json > $OUT/sweep.json 2> $L/tune.log
echo "jitk-tune rc=$?" >> $S
tail -8 $L/tune.log >> $S
echo "done $(date -u +%T)" >> $S
tar czf "$OUT/logs.tar.gz" -C $L .
cat $S $OUT/check_table.txt
