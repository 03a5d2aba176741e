#!/usr/bin/env bash
# Nsight Compute on sparse_attn: warp states and per-instruction stall samples
# of one launch per case (the default config), exported as text beside the
# profiles: details_<case>.txt (every section), sass_<case>.csv (SASS with
# its samples and stall reasons) and stall_top_<case>.txt (the instructions
# with the most samples, stall_top.py). A short summary is printed last.
#
#   bench/device/profile_attention.sh TARGET KERNEL_REGEX CASE...
#     TARGET        sm_90a (warp-specialized wgmma), sm_90 (mma.sync), or - (the device's own)
#     KERNEL_REGEX  the kernel to profile: ws_fwd, sparse_attn_fwd, tma_fwd
#     CASE          a substring of SparseAttnGpuTest.DISABLED_Timing's case names
#   env: BIN (default build/tests/jitk_lib_attention_tests), OUT (default /tmp/attention_profile)
# Example, from the repository root with the build folder carried as .carry/build:
#   BIN=.carry/build/tests/jitk_lib_attention_tests \
#     bash bench/device/profile_attention.sh sm_90a ws_fwd "random blocks 10% f16 L=4096" "causal f16 L=4096"
set -uo pipefail
if (($# < 3)); then
  sed -n '2,13p' "$0" >&2
  exit 2
fi
TARGET=$1 REGEX=$2
shift 2
BIN=${BIN:-build/tests/jitk_lib_attention_tests}
OUT=${OUT:-/tmp/attention_profile}
mkdir -p "$OUT"
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
if [[ -z $NCU ]]; then
  echo "no ncu (Nsight Compute) on this machine" >&2
  exit 1
fi
S="$OUT/summary.txt"
echo "$(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name --format=csv,noheader) ncu=$NCU" >"$S"
for c in "$@"; do
  n=$(echo "$TARGET $c" | tr -c 'a-zA-Z0-9\n' '_')
  # The fourth launch of the first matching case: the first ones warm up.
  env ${TARGET:+$([[ $TARGET != - ]] && echo "JITK_ATTN_TARGET=$TARGET")} \
    JITK_CACHE_DIR="$OUT/cache_$n" JITK_ATTN_NO_SWEEP=1 JITK_ATTN_ONLY="$c" \
    JITK_ATTN_RESULTS="$OUT/timing_$n.txt" timeout 200 "$NCU" --clock-control none \
    --kernel-name "regex:$REGEX" --launch-skip 3 --launch-count 1 --section SpeedOfLight \
    --section WarpStateStats --section SchedulerStats --section SourceCounters \
    --section MemoryWorkloadAnalysis --section Occupancy --export "$OUT/p_$n" --force-overwrite \
    "$BIN" --gtest_also_run_disabled_tests --gtest_filter='SparseAttnGpuTest.DISABLED_Timing' \
    >"$OUT/ncu_$n.log" 2>&1
  echo "$TARGET $c rc=$?" >>"$S"
  "$NCU" --import "$OUT/p_$n.ncu-rep" --print-details all >"$OUT/details_$n.txt" 2>&1
  "$NCU" --import "$OUT/p_$n.ncu-rep" --page source --csv --print-source sass >"$OUT/sass_$n.csv" 2>&1
  python3 "$(dirname "$0")/stall_top.py" "$OUT/sass_$n.csv" 45 >"$OUT/stall_top_$n.txt" 2>&1
  grep -E "Duration|Tensor|Issue Active|DRAM Throughput|L2 Hit Rate|Warp Cycles Per Issued" \
    "$OUT/details_$n.txt" | head -12 >>"$S"
done
cat "$S"
