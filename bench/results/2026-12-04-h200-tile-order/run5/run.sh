#!/bin/bash
# Device visit 5 (the commit in summary.txt): why rank-major order loses at
# B=4 L=16384 but gains at B=1 L=16384 (mma.sync engine, sm_90). rm / hm:
# that build with the host forced to rank-major / head-major order. 1) the
# two cases timed alternately twice with the SM clock and power sampled
# every 20 ms (nvidia-smi); 2) Nsight Compute (speed of light, memory
# workload) on one launch of each order at B=4 L=16384.
cd "$(dirname "$0")/../../../.."
L=/tmp/logs; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat .carry/build/COMMIT) $(date -u +%FT%TZ)" > $S
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu | head -1)
timed() {  # variant case pass
  local n=$(echo "$1 $2 $3" | tr -c 'a-zA-Z0-9\n' '_')
  nvidia-smi --query-gpu=clocks.sm,power.draw --format=csv,noheader,nounits -lms 20 > $L/smi_$n.csv &
  local smi=$!
  JITK_ATTN_TARGET=sm_90 JITK_CACHE_DIR=/tmp/c_$1 JITK_ATTN_NO_SWEEP=1 JITK_ATTN_ONLY="$2" \
    JITK_ATTN_RESULTS=$L/t_$n.txt timeout 200 .carry/$1/jitk_lib_attention_tests \
    --gtest_also_run_disabled_tests --gtest_filter='SparseAttnGpuTest.DISABLED_Timing' > $L/log_$n.txt 2>&1
  kill $smi
  # samples with the SM busy (power above 300 W): mean clock and power
  echo "$1 | $2 | pass $3 | $(cut -d'|' -f3-4 $L/t_$n.txt | tr -s ' ') | $(awk -F', ' '$2 > 300 {c += $1; p += $2; n++} END {if (n) printf "%.0f MHz %.0f W over %d samples", c / n, p / n, n}' $L/smi_$n.csv)" >> $S
}
for pass in 1 2; do
  for v in rm hm; do
    timed $v "causal f16 L=16384" $pass
    timed $v "causal f16 B=1 L=16384" $pass
  done
done
prof() {  # variant
  JITK_ATTN_TARGET=sm_90 JITK_CACHE_DIR=/tmp/c_$1 JITK_ATTN_NO_SWEEP=1 JITK_ATTN_ONLY="causal f16 L=16384" \
    JITK_ATTN_RESULTS=$L/tp_$1.txt timeout 200 $NCU --clock-control none --kernel-name regex:sparse_attn_fwd \
    --launch-skip 2 --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis \
    --export $L/p_$1 --force-overwrite .carry/$1/jitk_lib_attention_tests --gtest_also_run_disabled_tests \
    --gtest_filter='SparseAttnGpuTest.DISABLED_Timing' > $L/ncu_$1.log 2>&1
  echo "ncu $1 rc=$?" >> $S
  $NCU --import $L/p_$1.ncu-rep --print-details all > $OUT/ncu_$1.txt 2>&1
  grep -E "Duration|DRAM Throughput|L2 Hit Rate|Memory Throughput|Compute \(SM\) Throughput|SM Frequency|L1/TEX Hit" $OUT/ncu_$1.txt | head -9 | sed "s/^/  $1 /" >> $S
}
prof rm
prof hm
tar czf "$OUT/logs.tar.gz" -C $L .
cat $S
