#!/bin/bash
# The library with whole edge blocks again and one pass decided on the
# tiles a decode step visits (.carry/build) against 76ffc3a (.carry/before):
# the attention GPU tests, then one-row decode steps (Hq=32, Hkv=8, d=128,
# f16) under 128 keys at key 32730 (four tiles of two blocks: split at B=1
# and 4 now, one pass before; one pass at B=8 either way) and 256 keys at the
# last key (B=8, split either way: a reference), the default and the
# unsplit kernel (KV_SPLITS=1).
cd "$(dirname "$0")/../../.."
S="$OUT/summary.txt"; mkdir -p "$OUT"
{ echo "before $(cat .carry/before/COMMIT)  after $(cat .carry/build/COMMIT | tr '\n' ' ')"
  date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; } > $S
timeout 100 .carry/build/tests/jitk_lib_attention_tests --gtest_filter='*GpuTest*' > $OUT/gpu_tests.txt 2>&1
echo "gpu tests rc=$? $(grep -cE '^\[       OK' $OUT/gpu_tests.txt) ok, $(grep -cE '^\[  SKIPPED' $OUT/gpu_tests.txt) skipped $(date -u +%T)" >> $S
C="BLOCK_M=64,BLOCK_N=64,STAGES=2,WAVES=4,KV_SPLITS=1"
step() {  # before|after window shapes
  local lib=$PWD/.carry/build/lib/c_api/libjitk_c.so
  [[ $1 != after ]] && lib=$PWD/.carry/$1/c_api/libjitk_c.so
  JITK_LIBRARY=$lib JITK_CACHE_DIR=/tmp/jc-$1 PYTHONPATH=$PWD/python \
    timeout 40 python3 bench/device/decode_step.py --window $2 --shapes "$3" --configs "$C" --passes 5 2>&1 |
    grep -v "system DB" | sed "s|^|$1 w$2 |"
}
for lib in after before; do
  step $lib 128 "1,32,8,1,32731;4,32,8,1,32731;8,32,8,1,32731"
  step $lib 256 "8,32,8,1,32768"
done > $OUT/steps.txt
echo "steps rc=$? $(date -u +%T)" >> $S
cat $S
grep -hE "^(before|after) w[0-9]+ +[0-9]+,32,8,1," $OUT/steps.txt | sed 's/   (median [^)]*)//' |
  awk '{print $1, $2, $3, $4, $5, $8, ($NF == "default" ? "default" : "split1")}'
