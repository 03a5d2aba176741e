#!/bin/bash
# Device visit 8 (the commit in summary.txt, every binary stripped in
# .carry/build, libjitk_c.so and its abseil libraries included): every test
# that skips without a GPU, for real (bench/device/check_all.sh), then jitk
# next to SDPA / FlexAttention under CUDA graphs (side_by_side.py) with O
# stored by TMA.
cd "$(dirname "$0")/../../../.."
B=.carry/build
L=/tmp/logs; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat $B/COMMIT) $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> $S
export JITK_CACHE_DIR=/tmp/jitk-cache
GTEST_FILTER='*GpuTest*:CompilePruningTest.*:HipBackendTest.*' OUT=$OUT timeout 240 \
  bash bench/device/check_all.sh $B > $OUT/check_table.txt 2>&1
echo "check rc=$?" >> $OUT/check_table.txt
grep -o "cos [0-9.]*" "$OUT/check_all.log" | sort | head -1 | sed 's/^/worst attention /' >> $S
grep -E "^\[  (PASSED|SKIPPED|FAILED)  ?\] [0-9]+ test" "$OUT/check_all.log" |
  awk '{n[$2]+=$4} END {for (k in n) print "tests " k, n[k]}' >> $S
export JITK_LIBRARY=$PWD/$B/lib/c_api/libjitk_c.so PYTHONPATH=$PWD/python LD_LIBRARY_PATH=$PWD/$B/lib/c_api
timeout 240 python3 bench/device/side_by_side.py --out /tmp/sbs --build $B --sizes 24-24 --dtypes float16 \
  --attn-lengths 4096,16384 --attn-dtypes float16,bfloat16 --attn-budget-s 180 > $L/sbs.log 2>&1
echo "side_by_side rc=$?" >> $S; cp /tmp/sbs/short.md "$OUT/sbs_short.md"; cp /tmp/sbs/results.md "$OUT/sbs_results.md"
tar czf "$OUT/logs.tar.gz" -C $L .
cat $S $OUT/check_table.txt; echo "--- torch"; tail -24 "$OUT/sbs_short.md"
