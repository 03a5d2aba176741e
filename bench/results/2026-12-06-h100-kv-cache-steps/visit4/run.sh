#!/usr/bin/env bash
# Sliding-window decode steps with the split capped at the window's key tiles
# (58ec288) against the build before it (7a52b6d's libjitk_c.so, carried as
# .carry/old beside the same abseil libraries), two alternating passes, in
# one log.
cd "$(dirname "$0")/../../../.."
B=.carry/build
export PYTHONPATH=$PWD/python
cp $B/lib/c_api/libabsl_* .carry/old/
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; cat $B/COMMIT; } | tee $OUT/gpu.txt
S="1,32,8,1,32768;8,32,8,1,32768"
for pass in 1 2; do
  for lib in old new; do
    so=$PWD/$B/lib/c_api/libjitk_c.so
    [[ $lib == old ]] && so=$PWD/.carry/old/libjitk_c.so
    for w in 128 1024 4096; do
      echo "== window $w, $lib (pass $pass)"
      JITK_LIBRARY=$so JITK_CACHE_DIR=/tmp/jc-$lib python3 bench/device/decode_step.py \
        --window $w --shapes "$S" 2>&1 | grep -v "system DB" | tail -n 3
    done
  done
done > $OUT/decode_ab.txt
cat $OUT/decode_ab.txt
