#!/bin/bash
# Device visit 11 (.carry/build at the commit in summary.txt; .carry/full's
# libjitk_c.so of fb5d4ab): after the tidy-up, the sparse_attn GPU tests, and
# side_by_side.py (which now passes its block size along) at 64-token blocks,
# f16, L=4096.
cd "$(dirname "$0")/../../../.."
L=/tmp/logs; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat .carry/build/COMMIT) $(date -u +%FT%TZ)" > $S
JITK_CACHE_DIR=/tmp/cache_t timeout 200 .carry/build/tests/jitk_lib_attention_tests \
  --gtest_filter='SparseAttnGpuTest.*' > $L/attn.log 2>&1
echo "attention gpu tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $L/attn.log | tr '\n' ' ')" \
  "worst $(grep -o 'cos [0-9.]*' $L/attn.log | sort | head -1), cases $(grep -c 'cos ' $L/attn.log)" >> $S
B=.carry/full
export JITK_CACHE_DIR=/tmp/jitk-cache JITK_LIBRARY=$PWD/$B/lib/c_api/libjitk_c.so PYTHONPATH=$PWD/python \
  LD_LIBRARY_PATH=$PWD/$B/lib/c_api
timeout 200 python3 bench/device/side_by_side.py --out /tmp/sbs --build $B --sizes 20-20 --dtypes float16 \
  --attn-lengths 4096 --attn-dtypes float16 --attn-block 64 --attn-budget-s 120 > $L/sbs.log 2>&1
echo "side_by_side rc=$?" >> $S; cp /tmp/sbs/results.md "$OUT/sbs_results.md"
tar czf "$OUT/logs.tar.gz" -C $L .
cat $S; grep -A12 "## sparse_attn" "$OUT/sbs_results.md"; grep "sparse_attn |" "$OUT/sbs_results.md"
