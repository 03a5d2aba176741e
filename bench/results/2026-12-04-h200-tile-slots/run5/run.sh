#!/bin/bash
# Device visit 5 (ee747a7's build): Nsight Compute warp states and per-instruction
# stall samples of one launch each: the mma.sync engine (JITK_ATTN_TARGET=sm_90,
# default 128x64x4x2) on causal f16 L=4096 and L=16384, and the warp-specialized
# engine (sm_90a) at 10 % density with the tile slots.
cd "$(dirname "$0")/../../../.."
L=/tmp/logs; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu | head -1)
echo "$(date -u +%FT%TZ) ncu=$NCU" > $S
BIN=.carry/build/tests/jitk_lib_attention_tests
prof() {  # target kernel-regex case
  local n=$(echo "$1 $3" | tr -c 'a-zA-Z0-9\n' '_')
  JITK_ATTN_TARGET=$1 JITK_CACHE_DIR=/tmp/c_$n JITK_ATTN_NO_SWEEP=1 JITK_ATTN_ONLY="$3" \
    JITK_ATTN_RESULTS=$L/t_$n.txt timeout 200 $NCU --clock-control none --kernel-name regex:$2 \
    --launch-skip 3 --launch-count 1 --section SpeedOfLight --section WarpStateStats \
    --section SchedulerStats --section SourceCounters --section MemoryWorkloadAnalysis \
    --section Occupancy --export $L/p_$n --force-overwrite $BIN --gtest_also_run_disabled_tests \
    --gtest_filter='SparseAttnGpuTest.DISABLED_Timing' > $L/ncu_$n.log 2>&1
  echo "$1 $3 rc=$?" >> $S
  $NCU --import $L/p_$n.ncu-rep --print-details all > $L/details_$n.txt 2>&1
  $NCU --import $L/p_$n.ncu-rep --page source --csv --print-source sass > $L/sass_$n.csv 2>&1
  grep -E "Duration|Pipe Tensor Cycles Active  |Issue Active|Achieved Occupancy|Registers Per" $L/details_$n.txt | head -6 >> $S
}
prof sm_90 "sparse_attn_fwd" "causal f16 L=4096"
prof sm_90 "sparse_attn_fwd" "causal f16 L=16384"
prof sm_90a "ws_fwd" "random blocks 10% f16 L=4096"
tar czf "$OUT/logs.tar.gz" -C $L .
cat $S
