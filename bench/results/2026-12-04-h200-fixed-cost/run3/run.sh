#!/bin/bash
# Device visit 3 (the working tree of run 2): causal L=16384 timed again, f16
# and bf16 apart (four alternating passes each: in run 2 the two moved in
# opposite directions within each pass), then Nsight Compute stall samples of
# the staged-store kernel at 10 % density and causal L=4096 (one launch each).
cd "$(dirname "$0")/../../../.."
B=.carry/build
R=bench/results/2026-12-04-h200-fixed-cost/run3
L=/tmp/logs; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat $B/COMMIT) $(date -u +%FT%TZ)" > $S
for c in "causal f16 L=16384" "causal bf16 L=16384"; do
  n=$(echo "$c" | tr -c 'a-zA-Z0-9\n' '_')
  BIN=$B/tests/jitk_lib_attention_tests OUT=$L/ab_$n TIMEOUT=150 bash bench/device/attention_ab.sh \
    sm_90a 4 new=- base=-@.carry/base/jitk_lib_attention_tests -- "$c" > /dev/null 2>&1
  cat $L/ab_$n/table.md >> $OUT/table_sm_90a.md
done
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
echo "ncu=$NCU" >> $S
prof() {  # case
  local n=$(echo "$1" | tr -c 'a-zA-Z0-9\n' '_')
  JITK_ATTN_TARGET=sm_90a JITK_CACHE_DIR=/tmp/c_$n JITK_ATTN_NO_SWEEP=1 JITK_ATTN_ONLY="$1" \
    JITK_ATTN_RESULTS=$L/t_$n.txt timeout 200 $NCU --clock-control none --kernel-name regex:ws_fwd \
    --launch-skip 3 --launch-count 1 --section SpeedOfLight --section WarpStateStats \
    --section SourceCounters --export $L/p_$n --force-overwrite $B/tests/jitk_lib_attention_tests \
    --gtest_also_run_disabled_tests --gtest_filter='SparseAttnGpuTest.DISABLED_Timing' \
    > $L/ncu_$n.log 2>&1
  echo "$1 rc=$?" >> $S
  $NCU --import $L/p_$n.ncu-rep --print-details all > $L/details_$n.txt 2>&1
  $NCU --import $L/p_$n.ncu-rep --page source --csv --print-source sass > $L/sass_$n.csv 2>&1
  grep -E "Duration|Pipe Tensor Cycles Active  |Issue Active" $L/details_$n.txt | head -3 >> $S
  { echo "== $1"; python3 bench/device/stall_top.py $L/sass_$n.csv 45; } >> $OUT/stall_top.txt 2>&1
}
prof "random blocks 10% f16 L=4096"
prof "causal f16 L=4096"
echo "done $(date -u +%T)" >> $S
tar czf "$OUT/logs.tar.gz" -C $L .
cat $S $OUT/table_sm_90a.md; head -60 $OUT/stall_top.txt
