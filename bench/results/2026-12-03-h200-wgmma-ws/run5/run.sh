#!/bin/bash
# Device visit 5: the new sm_90a defaults: GPU tests, timings, jitk-tune's
# sweep (exported as the shipped DB), jitk next to SDPA / FlexAttention, and
# the SASS of the default causal kernel.
cd "$(dirname "$0")/.."
export JITK_CACHE_DIR=/tmp/jitk-cache5
B=.carry/build/tests
L=/tmp/logs; mkdir -p "$OUT" $L
echo "commit $(cat .carry/build/COMMIT) $(date -u +%FT%TZ)" > "$OUT/summary.txt"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> "$OUT/summary.txt"
timeout 100 $B/jitk_lib_attention_tests --gtest_filter='SparseAttnGpuTest.*' > $L/attn_tests.log 2>&1
echo "attention gpu tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $L/attn_tests.log | tr '\n' ' ')" >> "$OUT/summary.txt"
grep -E "^\[  FAILED  \] [A-Z]" $L/attn_tests.log >> "$OUT/summary.txt"
echo "worst cos: $(grep -o 'cos [0-9.]*' $L/attn_tests.log | sort | head -1), cases $(grep -c 'cos ' $L/attn_tests.log)" >> "$OUT/summary.txt"
JITK_ATTN_RESULTS="$OUT/timing.txt" timeout 90 $B/jitk_lib_attention_tests --gtest_also_run_disabled_tests \
  --gtest_filter='SparseAttnGpuTest.DISABLED_Timing' > $L/timing.log 2>&1; echo "timing rc=$?" >> "$OUT/summary.txt"
OUT=/tmp/tune BUILD=.carry/build BUDGET=20,22s timeout 200 bash bench/device/tune_sparse_attn.sh > $L/tune_stdout.log 2>&1
echo "tune rc=$?" >> "$OUT/summary.txt"; cp /tmp/tune/summary.md "$OUT/tune_summary.md"; cp /tmp/tune/sweep.json "$OUT/sweep.json"; cp /tmp/tune/tune.log $L/
.carry/build/cache/jitk-db export /tmp/tune/tuned.db "$OUT/sm_90a.json" --format json --tuning-only >> "$OUT/summary.txt" 2>&1
export JITK_LIBRARY=$PWD/.carry/build/lib/c_api/libjitk_c.so PYTHONPATH=$PWD/python LD_LIBRARY_PATH=$PWD/.carry/build/lib/c_api
timeout 150 python3 bench/device/side_by_side.py --out /tmp/sbs --build .carry/build --sizes 24-24 --dtypes float16 \
  --attn-lengths 4096,16384 --attn-dtypes float16,bfloat16 --attn-budget-s 120 > $L/sbs.log 2>&1
echo "side_by_side rc=$?" >> "$OUT/summary.txt"; cp /tmp/sbs/short.md "$OUT/sbs_short.md"; cp /tmp/sbs/results.md "$OUT/sbs_results.md"
D=$(find /opt /usr/local -name cuobjdump -type f 2>/dev/null | head -1)
$D -sass .carry/cubins/ws_causal_d128.cubin > $L/sass_ws_causal_d128.txt 2>&1
echo "SASS causal d128 128/128/12/3: $(grep -c 'STL' $L/sass_ws_causal_d128.txt) STL, $(grep -c 'LDL' $L/sass_ws_causal_d128.txt) LDL, $(grep -c 'HGMMA' $L/sass_ws_causal_d128.txt) HGMMA, $(grep -c 'LDGSTS' $L/sass_ws_causal_d128.txt) LDGSTS, $(grep -c 'SYNCS' $L/sass_ws_causal_d128.txt) SYNCS" >> "$OUT/summary.txt"
tar czf "$OUT/logs.tar.gz" -C $L .
cat "$OUT/summary.txt"; echo "--- timing"; cut -d'|' -f1-4 "$OUT/timing.txt"; echo "--- tune"; cat "$OUT/tune_summary.md"; echo "--- torch"; tail -22 "$OUT/sbs_short.md"
