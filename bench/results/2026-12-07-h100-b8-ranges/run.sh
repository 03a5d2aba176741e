#!/bin/bash
# Decode steps at B=4 and 8 (one query row, Hq=32, Hkv=8, keys to 32731)
# under sliding windows: the default against pinned range counts
# (KV_SPLITS=1 is the unsplit kernel), two alternating passes; then Nsight
# Compute's duration of each kernel (split pass, combine, SDPA's) at B=8.
# Library: .carry/build (its COMMIT).
cd "$(dirname "$0")/../../.."
S="$OUT/summary.txt"; mkdir -p "$OUT"
echo "build $(cat .carry/build/COMMIT | tr '\n' ' ') $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> $S
LIB=$PWD/.carry/build/lib/c_api/libjitk_c.so
C="BLOCK_M=64,BLOCK_N=64,STAGES=2,WAVES=4,KV_SPLITS"
step() {  # window shapes [configs] [extra args]
  JITK_LIBRARY=$LIB JITK_CACHE_DIR=/tmp/jitk-cache PYTHONPATH=$PWD/python \
    timeout 120 python3 bench/device/decode_step.py --window $1 --shapes "$2" ${3:+--configs "$3"} 2>&1 |
    grep -v "system DB" | sed "s|^|w$1 |"
}
for rep in 1 2; do
  for w in 128 256 512 1024 2048; do
    step $w "4,32,8,1,32731;8,32,8,1,32731" "$C=1;$C=2;$C=3;$C=4;$C=6;$C=8"
  done
done > $OUT/sweep.txt
echo "sweep rc=$? $(date -u +%T)" >> $S
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
for w in 256 1024; do
  JITK_LIBRARY=$LIB JITK_CACHE_DIR=/tmp/jitk-cache PYTHONPATH=$PWD/python timeout 150 $NCU \
    --cache-control none --clock-control none --metrics gpu__time_duration.sum --launch-skip 6 \
    --launch-count 24 python3 bench/device/decode_step.py --window $w --calls 2 --passes 1 \
    --shapes "8,32,8,1,32731" > $OUT/ncu_w$w.txt 2>&1
  echo "ncu w$w rc=$? $(date -u +%T)" >> $S
done
cat $S
grep -hE "^w[0-9]+ +[0-9]+,32,8,1," $OUT/sweep.txt | sed 's/   (median [^)]*)//' | awk '{print $1, $2, $3, $4, $7, $NF}'
for w in 256 1024; do
  grep -E "^  [a-zA-Z_].*\(|gpu__time_duration" $OUT/ncu_w$w.txt | paste - - | awk -v w=$w '{print "w" w, $1, $NF}' | cut -c1-110
done
