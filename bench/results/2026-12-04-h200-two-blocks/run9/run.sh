#!/bin/bash
# Device visit 9 (the build in .carry/build, summary.txt names its commit):
# Nsight Compute on the sm_90a default (128x128x12x3), one launch each of
# random 10 % and causal at L=4096: DRAM bytes and throughput, L2 hit rate,
# tensor-pipe activity, for the floor of 10 % density (perf notes).
cd "$(dirname "$0")/../../../.."
B=.carry/build
L=/tmp/logs; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat $B/COMMIT) $(date -u +%FT%TZ)" > $S
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
echo "ncu=$NCU" >> $S
prof() {  # case
  local n=$(echo "$1" | tr -c 'a-zA-Z0-9\n' '_')
  JITK_ATTN_TARGET=sm_90a JITK_CACHE_DIR=/tmp/c_$n JITK_ATTN_NO_SWEEP=1 JITK_ATTN_ONLY="$1" \
    JITK_ATTN_RESULTS=$L/t_$n.txt timeout 200 $NCU --clock-control none --kernel-name regex:ws_fwd \
    --launch-skip 3 --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis \
    --metrics dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct,gpu__time_duration.sum \
    --export $L/p_$n --force-overwrite $B/tests/jitk_lib_attention_tests \
    --gtest_also_run_disabled_tests --gtest_filter='SparseAttnGpuTest.DISABLED_Timing' \
    > $L/ncu_$n.log 2>&1
  echo "== $1 rc=$?" >> $S
  $NCU --import $L/p_$n.ncu-rep --print-details all > $L/details_$n.txt 2>&1
  grep -E "dram__bytes_read.sum|dram__bytes_write.sum|dram__throughput|hmma_cycles_active|lts__t_sector_hit_rate|gpu__time_duration|DRAM Throughput|L2 Hit Rate  " \
    $L/details_$n.txt | head -12 >> $S
}
prof "random blocks 10% f16 L=4096"
prof "causal f16 L=4096"
echo "done $(date -u +%T)" >> $S
tar czf "$OUT/logs.tar.gz" -C $L .
cat $S
