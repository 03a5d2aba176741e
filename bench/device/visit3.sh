#!/usr/bin/env bash
# The final split count (a range counted as 320 keys): the tuner on the dense
# 8-head launch of 160 tiles over 2560 keys and on the 640-row chunk, default
# against its sweep.
cd "$(dirname "$0")/../.."
B=.carry/build
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
cat $B/COMMIT | tee -a $OUT/gpu.txt
export JITK_CACHE_DIR=/tmp/jitk-cache
for shape in "f16;b=1;block=128;d=128;hkv=8;hq=8;layout=0;lk=2560;lq=2560" \
             "f16;b=1;block=128;d=128;hkv=8;hq=32;layout=1;lk=32768;lq=640"; do
  timeout 100 $B/tuner/jitk-tune --kernel sparse_attn --budget 25s --shape "$shape" 2>&1 | grep "\[1/1\]" | tee -a $OUT/tune.log
done
