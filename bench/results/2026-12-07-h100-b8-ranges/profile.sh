#!/bin/bash
# Decode steps (one query row, Hq=32, Hkv=8, keys to 32731, sliding
# windows) with every call's keys from DRAM (cold.txt); then Nsight Compute
# on jitk's kernels and SDPA's flash kernels with the L2 left warm
# (--cache-control none), one eager call each after the warm-up
# (ncu_<case>.txt; per kernel its duration, grid, DRAM and L2 figures).
cd "$(dirname "$0")/../../.."
mkdir -p "$OUT"
LIB=$PWD/.carry/build/lib/c_api/libjitk_c.so
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
# The same steps with every call's keys from DRAM: 16 K / V caches in turn
# (decode_step.py --layers), the default and the unsplit kernel.
C="BLOCK_M=64,BLOCK_N=64,STAGES=2,WAVES=4,KV_SPLITS"
for w in 128 256 1024 4096; do
  JITK_LIBRARY=$LIB JITK_CACHE_DIR=/tmp/jitk-cache PYTHONPATH=$PWD/python timeout 150 \
    python3 bench/device/decode_step.py --window $w --layers 16 \
    --shapes "1,32,8,1,32731;8,32,8,1,32731" --configs "$C=1" 2>&1 |
    grep -v "system DB" | sed "s|^|w$w |"
done > $OUT/cold.txt
echo "cold rc=$? $(date -u +%T)"
for c in "8 256"; do
  set -- $c
  JITK_LIBRARY=$LIB JITK_CACHE_DIR=/tmp/jitk-cache PYTHONPATH=$PWD/python timeout 200 $NCU \
    --cache-control none --clock-control none --kernel-name "regex:sparse_attn|flash" \
    --launch-count 12 --section SpeedOfLight --section MemoryWorkloadAnalysis \
    --section LaunchStats --section Occupancy --section WarpStateStats \
    python3 bench/device/decode_step.py --window $2 --calls 2 --passes 1 \
    --shapes "$1,32,8,1,32731" > $OUT/ncu_b$1_w$2.txt 2>&1
  echo "ncu b$1 w$2 rc=$? $(date -u +%T)"
  grep -E "^  [a-zA-Z_].*\(|^    (Duration|DRAM Throughput|L2 Hit Rate|Memory Throughput|Grid Size|Registers Per|Achieved Occupancy|L1/TEX Hit)" \
    $OUT/ncu_b$1_w$2.txt | sed -E 's/^  (void )?([a-zA-Z_0-9]+).*/\2/; s/ {2,}/ /g' |
    awk -v c="b$1 w$2" '/^[a-zA-Z_]/{if (l) print l; l=c " " substr($0,1,28); next} {l=l " |" $0} END{print l}'
done
grep -hE "^w[0-9]+ +[0-9]+,32,8,1," $OUT/cold.txt | sed 's/   (median [^)]*)//' |
  awk '{print $1, $2, $3, $4, $7, $NF}' | sed 's/BLOCK_M=64,BLOCK_N=64,STAGES=2,WAVES=4,//'
