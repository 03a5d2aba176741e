#!/bin/bash
# Decode steps, one query row, Hq=32, Hkv=8, under sliding windows, graph
# replay, keys to 32731 (the query at key 32730). Three libraries:
#   old   = .carry/old   (265331c)
#   lanes = .carry/lanes (91d6f9e: the combine pass's two lanes per columns)
#   new   = .carry/new or .carry/build (the working tree: copies skip keys
#           the window hides)
# PART=1: the three at their defaults, windows 256, 1024, 4096 and none, B=1
#   and 8, two alternating passes; then old's range count (one range per tile
#   the kernel visits) against the count it took before (9, 11, 13) and 8.
# PART=2: GPU tests of the new build; new at B=1 with 8 and 32 ranges.
cd "$(dirname "$0")/../../.."
S="$OUT/summary.txt"; mkdir -p "$OUT"
echo "old $(cat .carry/old/COMMIT | head -1); lanes $(cat .carry/lanes/COMMIT); new $(cat .carry/build/COMMIT | tr '\n' ' ') $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> $S
C="BLOCK_M=64,BLOCK_N=64,STAGES=2,WAVES=4,KV_SPLITS"
step() {  # lib window shapes [configs]
  local lib=.carry/$1/c_api; [[ -d $lib ]] || lib=.carry/build/lib/c_api  # new: either
  JITK_LIBRARY=$PWD/$lib/libjitk_c.so JITK_CACHE_DIR=/tmp/jitk-cache-$1 PYTHONPATH=$PWD/python \
    timeout 90 python3 bench/device/decode_step.py --window $2 --shapes "$3" ${4:+--configs "$4"} 2>&1 |
    grep -v "system DB" | sed "s|^|$1 w$2 |"
}
if [[ ${PART:-1} == 1 ]]; then
  for rep in 1 2; do
    for lib in old lanes new; do
      for w in 256 1024 4096 0; do step $lib $w "1,32,8,1,32731;8,32,8,1,32731"; done
    done
  done > $OUT/libs.txt
  echo "libs rc=$? $(date -u +%T)" >> $S
  for rep in 1 2; do
    step old 512 "1,32,8,1,32731" "$C=9;$C=8"
    step old 640 "1,32,8,1,32731" "$C=11;$C=8"
    step old 768 "1,32,8,1,32731" "$C=13;$C=8"
  done > $OUT/ranges.txt
  echo "ranges rc=$? $(date -u +%T)" >> $S
fi
if [[ ${PART:-2} == 2 ]]; then
  OUT=$OUT GPU_ONLY=1 timeout 300 bash bench/device/check_all.sh .carry/build > $OUT/check.txt 2>&1
  echo "check rc=$? $(date -u +%T)" >> $S
  for rep in 1 2; do
    for w in 512 1024 4096 0; do step new $w "1,32,8,1,32731" "$C=8;$C=32"; done
    for w in 128 192 512; do step old $w "8,32,8,1,32731"; step new $w "8,32,8,1,32731"; done
  done > $OUT/splits.txt
  echo "splits rc=$? $(date -u +%T)" >> $S
fi
cat $S; tail -n 6 $OUT/check.txt 2>/dev/null
for f in libs ranges splits; do
  [[ -f $OUT/$f.txt ]] && grep -hE " [0-9]+,32,8,1," $OUT/$f.txt | sed 's/   (median [^)]*)//' | cut -c1-130
done
