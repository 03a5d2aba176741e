#!/bin/bash
# Device visit 2: where the warp-specialized engine's time goes at 10 % block
# density against causal (L=4096, f16, default 128x128x12x3, the `turn`
# templates of run 1): Nsight Compute's warp states and per-instruction stall
# samples of one launch of each.
cd "$(dirname "$0")/../../../.."
L=/tmp/logs; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu | head -1)
echo "$(date -u +%FT%TZ) ncu=$NCU" > $S
BIN=.carry/base/jitk_lib_attention_tests
for c in "random blocks 10% f16 L=4096" "causal f16 L=4096"; do
  n=$(echo "$c" | tr -c 'a-zA-Z0-9\n' '_')
  JITK_TEMPLATE_DIR=$(realpath .carry/tpl_turn) JITK_ATTN_TARGET=sm_90a JITK_CACHE_DIR=/tmp/c_$n \
    JITK_ATTN_NO_SWEEP=1 JITK_ATTN_ONLY="$c" JITK_ATTN_RESULTS=$L/t_$n.txt \
    timeout 240 $NCU --clock-control none --kernel-name regex:ws_fwd --launch-skip 3 --launch-count 1 \
    --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section SourceCounters \
    --section MemoryWorkloadAnalysis --export $L/p_$n --force-overwrite \
    $BIN --gtest_also_run_disabled_tests --gtest_filter='SparseAttnGpuTest.DISABLED_Timing' > $L/ncu_$n.log 2>&1
  echo "$c rc=$?" >> $S
  $NCU --import $L/p_$n.ncu-rep --print-details all > $OUT/details_$n.txt 2>&1
  $NCU --import $L/p_$n.ncu-rep --page source --csv --print-source sass > $L/sass_$n.csv 2>&1
  echo "sass rows $(wc -l < $L/sass_$n.csv)" >> $S
done
tar czf "$OUT/logs.tar.gz" -C $L .
cat $S; grep -E "Warp Cycles Per Issued|Stall|Issued Warp|No Eligible|Duration|Compute \(SM\) Throughput|Memory Throughput" $OUT/details_*.txt | head -60
