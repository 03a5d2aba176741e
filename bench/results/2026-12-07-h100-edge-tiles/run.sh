#!/bin/bash
# Sliding-window decode steps (one query row, Hq=32, Hkv=8, d=128, f16):
# 76ffc3a (.carry/before: whole mask blocks walked), 8a75216 (.carry/cuts:
# the window's edge blocks cut to the tiles holding its keys) and the
# library under test (.carry/build: also one combine lane up to eight
# ranges), alternating, two rounds (make_before.sh builds the first two).
# Keys to 32731 (the lowest block's lower tile lies below windows of 128
# and 256 keys) and to 32700 (the highest block's upper tile lies past the
# keys). Default config and the unsplit kernel (KV_SPLITS=1).
# PART=1: windows of 128, 256 and 1024 keys at B=1 and 8, two rounds;
#   windows ending on a tile edge (keys to 32768, the library under test);
#   the GPU tests.
# PART=2: B=4 under 256 and 512 keys; cold-cache steps (--layers 16) of
#   76ffc3a and the library under test; Nsight Compute's kernel times at
#   B=8 under 256 keys.
cd "$(dirname "$0")/../../.."
S="$OUT/summary.txt"; mkdir -p "$OUT"
{ echo "before $(cat .carry/before/COMMIT)  cuts $(cat .carry/cuts/COMMIT)  after $(cat .carry/build/COMMIT | tr '\n' ' ')"
  date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; } > $S
C="BLOCK_M=64,BLOCK_N=64,STAGES=2,WAVES=4,KV_SPLITS"
step() {  # before|cuts|after window shapes configs [extra args]
  local lib=$PWD/.carry/build/lib/c_api/libjitk_c.so
  [[ $1 != after ]] && lib=$PWD/.carry/$1/c_api/libjitk_c.so
  JITK_LIBRARY=$lib JITK_CACHE_DIR=/tmp/jc-$1 PYTHONPATH=$PWD/python \
    timeout 60 python3 bench/device/decode_step.py --window $2 --shapes "$3" --configs "$4" $5 2>&1 |
    grep -v "system DB" | sed "s|^|$1 w$2 |"
}
if [[ ${PART:-1} == 1 ]]; then
  SHAPES="1,32,8,1,32731;8,32,8,1,32731;8,32,8,1,32700"
  for rep in 1 2; do
    for w in 128 256 1024; do
      for lib in before cuts after; do step $lib $w "$SHAPES" "$C=1"; done
    done
  done > $OUT/sweep.txt
  echo "sweep rc=$? $(date -u +%T)" >> $S
  # Windows that end on a tile edge (keys to 32768) visit a tile fewer than
  # the count over every position: 192 keys three, 256 keys four.
  for rep in 1 2; do
    for w in 192 256; do step after $w "1,32,8,1,32768;8,32,8,1,32768" "$C=1"; done
  done > $OUT/aligned.txt
  echo "aligned rc=$? $(date -u +%T)" >> $S
  timeout 150 .carry/build/tests/jitk_lib_attention_tests --gtest_filter='*GpuTest*' > $OUT/gpu_tests.txt 2>&1
  echo "gpu tests rc=$? $(grep -cE '^\[       OK' $OUT/gpu_tests.txt) ok, $(grep -cE '^\[  SKIPPED' $OUT/gpu_tests.txt) skipped $(date -u +%T)" >> $S
fi
if [[ ${PART:-2} == 2 ]]; then
  for w in 256 512; do
    for lib in before cuts after; do step $lib $w "4,32,8,1,32731" "$C=1"; done
  done > $OUT/sweep_b4.txt
  echo "sweep B=4 rc=$? $(date -u +%T)" >> $S
  for w in 256 1024; do
    for lib in before after; do step $lib $w "1,32,8,1,32731;8,32,8,1,32731" "$C=1" "--layers 16 --passes 5"; done
  done > $OUT/cold.txt
  echo "cold rc=$? $(date -u +%T)" >> $S
  NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
  JITK_LIBRARY=$PWD/.carry/build/lib/c_api/libjitk_c.so JITK_CACHE_DIR=/tmp/jc-after PYTHONPATH=$PWD/python \
    timeout 150 $NCU --kernel-name regex:"sparse_attn|flash|fmha|attention" --launch-skip 4 --launch-count 8 \
    --section SpeedOfLight --section LaunchStats --section Occupancy --section MemoryWorkloadAnalysis \
    python3 bench/device/decode_step.py --window 256 --calls 2 --passes 1 --shapes "8,32,8,1,32731" \
    > $OUT/ncu_w256.txt 2>&1
  echo "ncu rc=$? $(date -u +%T)" >> $S
fi
cat $S
grep -hsE "^(before|cuts|after) w[0-9]+ +[0-9]+,32,8,1," $OUT/sweep*.txt | sed 's/   (median [^)]*)//' |
  awk '{print $1, $2, $3, $4, $5, $8, ($NF == "default" ? "default" : "split1")}' | sort -s -k2,2V -k3,3 -k7,7
grep -hE "^after w[0-9]+ +[0-9]+,32,8,1," $OUT/aligned.txt 2>/dev/null | sed 's/   (median [^)]*)//' |
  awk '{print "aligned", $1, $2, $3, $4, $5, $8, ($NF == "default" ? "default" : "split1")}'
grep -hE "^(before|after) w[0-9]+ +[0-9]+,32,8,1," $OUT/cold.txt 2>/dev/null | sed 's/   (median [^)]*)//' |
  awk '{print "cold", $1, $2, $3, $4, $5, $8, ($NF == "default" ? "default" : "split1")}'
grep -E "^  [a-zA-Z_].*\(|Duration|DRAM Throughput|Registers Per|Achieved Occupancy|Grid Size" $OUT/ncu_w256.txt 2>/dev/null | cut -c1-100 | head -60
