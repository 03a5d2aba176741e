#!/bin/bash
# Device visit 1: sparse_attn next to SDPA / FlexAttention on this commit's
# defaults. The C++ harness's timing of every case (GPU time, CUDA events
# around back-to-back launches) first, then side_by_side.py as it was
# (one call per eager sample: the host's cost of the call is timed as GPU
# idle time) and as it is now (one call queued ahead of the start event), in
# the same visit, so the two timings of the same kernels can be compared.
cd "$(dirname "$0")/../../../.." # .carry/side_by_side_head.py: bench/device/side_by_side.py of 37cfd15
B=.carry/build
L=/tmp/logs; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat $B/COMMIT | tr '\n' ' ') $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> $S
export JITK_CACHE_DIR=/tmp/jitk-cache
JITK_ATTN_NO_SWEEP=1 JITK_ATTN_RESULTS=$OUT/timing_all.txt timeout 110 \
  $B/tests/jitk_lib_attention_tests --gtest_also_run_disabled_tests \
  --gtest_filter='SparseAttnGpuTest.DISABLED_Timing' > $L/timing_all.log 2>&1
echo "timing all rc=$? $(date -u +%T)" >> $S
export JITK_LIBRARY=$PWD/$B/lib/c_api/libjitk_c.so PYTHONPATH=$PWD/python LD_LIBRARY_PATH=$PWD/$B/lib/c_api
timeout 150 python3 .carry/side_by_side_head.py --out /tmp/sbs_old --build $B --sizes 20-20 \
  --dtypes float16 --attn-lengths 4096 --attn-dtypes float16,bfloat16 --parity-max-len 0 \
  --attn-budget-s 120 > $L/sbs_old.log 2>&1
echo "side_by_side (one call per sample) rc=$? $(date -u +%T)" >> $S
cp /tmp/sbs_old/results.md "$OUT/sbs_old_results.md"
timeout 280 python3 bench/device/side_by_side.py --out /tmp/sbs --build $B --sizes 24-24 --dtypes float16 \
  --attn-lengths 4096,16384 --attn-dtypes float16,bfloat16 --attn-budget-s 200 > $L/sbs.log 2>&1
echo "side_by_side rc=$? $(date -u +%T)" >> $S
cp /tmp/sbs/short.md "$OUT/sbs_short.md"; cp /tmp/sbs/results.md "$OUT/sbs_results.md"
cp /tmp/sbs/*.csv /tmp/sbs/header.json "$OUT/" 2>/dev/null
tar czf "$OUT/logs.tar.gz" -C $L .
cat $S; cat $OUT/timing_all.txt | head -40
echo "--- old"; grep -E "\| (jitk|flex|sdpa) \|" "$OUT/sbs_old_results.md"
echo "--- new"; grep -E "\| (jitk|flex|sdpa) \||us_per_call|from Python" "$OUT/sbs_results.md"
