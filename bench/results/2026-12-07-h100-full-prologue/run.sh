#!/bin/bash
# Decode steps (one query row, Hq=32, Hkv=8, keys to 32731) with two
# libraries: copies = .carry/copies (b862f38), prologue = .carry/prologue
# (the working tree: attention_tile copies every stage's tile before its
# walk, so a key range of two tiles waits for memory once). Defaults at B=1
# and 8, two alternating passes; three stages at B=8 under 256 keys; then
# the prologue build's attention GPU tests.
cd "$(dirname "$0")/../../.."
S="$OUT/summary.txt"; mkdir -p "$OUT"
echo "copies $(cat .carry/copies/COMMIT); prologue $(cat .carry/prologue/COMMIT | tr '\n' ' ') $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> $S
step() {  # lib window shapes [configs]
  JITK_LIBRARY=$PWD/.carry/$1/c_api/libjitk_c.so JITK_CACHE_DIR=/tmp/jitk-cache-$1 PYTHONPATH=$PWD/python \
    timeout 60 python3 bench/device/decode_step.py --window $2 --shapes "$3" ${4:+--configs "$4"} 2>&1 |
    grep -v "system DB" | sed "s|^|$1 w$2 |"
}
for rep in 1 2; do
  for lib in copies prologue; do
    for w in 256 1024 4096; do step $lib $w "1,32,8,1,32731;8,32,8,1,32731"; done
  done
  [[ $rep == 1 ]] && step prologue 256 "8,32,8,1,32731" "BLOCK_M=64,BLOCK_N=64,WAVES=4,STAGES=3,KV_SPLITS=4;BLOCK_M=64,BLOCK_N=64,WAVES=4,STAGES=3,KV_SPLITS=1"
  if [[ $rep == 1 ]]; then
    timeout 200 .carry/prologue/jitk_lib_attention_tests --gtest_filter='*GpuTest*' \
      --gtest_brief=1 > $OUT/gpu_tests.txt 2>&1
    echo "gpu tests rc=$? $(date -u +%T)" >> $S
  fi
done > $OUT/decode.txt
echo "decode rc=$? $(date -u +%T)" >> $S
cat $S; grep -E "PASSED|FAILED|SKIPPED" $OUT/gpu_tests.txt | head; grep -o "cos [0-9.]*" $OUT/gpu_tests.txt | sort -k2 | head -1
grep -hE " [0-9]+,32,8,1," $OUT/decode.txt | sed 's/   (median [^)]*)//' | cut -c1-150
