#!/usr/bin/env bash
# Queries at the end of the keys (q_offset): the GPU tests, the Python tests,
# sliding-window decode steps packed and unpacked against SDPA over the window.
cd "$(dirname "$0")/../../../.."
B=.carry/build
export JITK_LIBRARY=$PWD/$B/lib/c_api/libjitk_c.so PYTHONPATH=$PWD/python
export JITK_CACHE_DIR=/tmp/jitk-cache
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
cat $B/COMMIT | tee -a $OUT/gpu.txt
GPU_ONLY=1 OUT=$OUT bench/device/check_all.sh $B > $OUT/check_table.txt 2>&1
python3 -m unittest discover -s tests/python > $OUT/python_tests.txt 2>&1
W="1,32,8,1,32768;8,32,8,1,32768;1,32,8,1,131072"
python3 bench/device/decode_step.py --window 4096 --shapes "$W" > $OUT/decode_window.txt 2>&1
python3 bench/device/decode_step.py --window 4096 --per-head-mask --shapes "$W" \
  > $OUT/decode_window_unpacked.txt 2>&1
python3 bench/device/decode_step.py --shapes "1,32,8,1,4096;8,32,8,1,4096" > $OUT/decode_dense_4096.txt 2>&1
cat $OUT/check_table.txt | tail -30
tail -3 $OUT/python_tests.txt
cat $OUT/decode_window.txt $OUT/decode_window_unpacked.txt $OUT/decode_dense_4096.txt | grep -v "system DB"
