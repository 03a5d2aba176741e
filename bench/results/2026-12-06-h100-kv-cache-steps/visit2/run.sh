#!/usr/bin/env bash
# Sliding-window decode steps: a window of 1024 + 128 global tokens (the
# tuner's) at the defaults, tuned, and the window of 4096 again.
cd "$(dirname "$0")/../../../.."
B=.carry/build
export JITK_LIBRARY=$PWD/$B/lib/c_api/libjitk_c.so PYTHONPATH=$PWD/python
export JITK_CACHE_DIR=/tmp/jitk-cache2
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
cat $B/COMMIT | tee -a $OUT/gpu.txt
S="1,32,8,1,32768;8,32,8,1,32768"
python3 bench/device/decode_step.py --window 1024 --shapes "$S" > $OUT/decode_window1024_default.txt 2>&1
$B/tuner/jitk-tune --kernel sparse_attn --budget 40s --json \
  --shape 'f16;b=1;block=128;d=128;hkv=8;hq=32;layout=2;lk=32768;lq=1' \
  > $OUT/tune.json 2> $OUT/tune.log
python3 bench/device/decode_step.py --window 1024 --shapes "$S" > $OUT/decode_window1024_tuned.txt 2>&1
tail -5 $OUT/tune.log
cat $OUT/decode_window1024_default.txt $OUT/decode_window1024_tuned.txt | grep -v "system DB"
